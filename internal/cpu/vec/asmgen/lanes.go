package main

// The float32 lane kernels of the blocked schedule of a non-last axis
// (lanesStats' exp pass, lanesWrite's streamed pass) with unitScale's
// scale-1 path, and the stats pass without the exps it never reads.

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/reg"
)

// emitLanes emits this file's kernels for both instruction sets, after the
// others, so that their assembly stays as it was.
func emitLanes() {
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		g.expAddLanes()
		g.expMulLanesNT()
	}
}

// lanesMinus returns scale·x − m for the vectors ks of x at px and m at
// pm, or x − m in a unitScale body for scale 1 (one).
func (g *gen) lanesMinus(ks []int, px, pm reg.GPVirtual, scale reg.VecVirtual, one bool) []reg.VecVirtual {
	xs := make([]reg.VecVirtual, len(ks))
	for j, k := range ks {
		if one {
			xs[j] = g.load(px, k)
		} else {
			xs[j] = g.vec()
			VMULPS(g.src(px, k), scale, xs[j])
		}
		VSUBPS(g.src(pm, k), xs[j], xs[j])
	}
	return xs
}

func (g *gen) expAddLanes() {
	g.text("expAddLanes", "func(d, x, m, next []float32, scale float32)",
		"adds exp(scale·x[i] − m[i]) to d[i] and prefetches next.")
	pd, n, px, pm := ptr("d"), length("d"), ptr("x"), ptr("m")
	g.expLanesInto(pd, n, px, pm, func(e reg.VecVirtual, k int) { VADDPS(g.src(pd, k), e, e) })
}

func (g *gen) expMulLanesNT() {
	g.text("expMulLanesNT", "func(dst, x, m, mul, next []float32, scale float32)",
		"is expScaleLanesNT with a scale-1 path without the multiply by it; dst must be aligned to the vector width.")
	g.nt = true
	pd, n, px, pm, pmul := ptr("dst"), length("dst"), ptr("x"), ptr("m"), ptr("mul")
	g.expLanesInto(pd, n, px, pm, func(e reg.VecVirtual, k int) { VMULPS(g.src(pmul, k), e, e) })
}

// expLanesInto is the body both kernels share: e = exp(scale·x[k] − m[k]),
// combined with the lane's other operand, stored to pd, next prefetched,
// with a scale-1 path (unitScale).
func (g *gen) expLanesInto(pd, n, px, pm reg.GPVirtual, combine func(e reg.VecVirtual, k int)) {
	pn, nn := ptr("next"), length("next")
	scale := g.bcast("scale")
	g.hoistExp()
	g.unitScale(scale, func(one bool) {
		g.loop(n, unroll, func(vs int) {
			g.groups(vs, func(ks []int) {
				es := g.expN(g.lanesMinus(ks, px, pm, scale, one), true)
				for j, k := range ks {
					combine(es[j], k)
					g.store(es[j], pd, k)
				}
			})
			g.prefetch(vs, pn, nn)
		}, nil)
		g.ret()
	})
}
