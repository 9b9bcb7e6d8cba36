package main

// The streamed float32 log_softmax_backward row kernel of internal/cpu:
// dx = (dy − exp(y)·s)·scale in one pass with non-temporal stores, so that
// a large dx is not first read from memory line by line (its plain stores'
// read-for-ownership is a quarter of the op's traffic) and no chunk goes
// through scratch and a second pass.

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/reg"
)

// emitBwd74 emits this file's kernels for both instruction sets, after the
// others, so that their assembly stays as it was.
func emitBwd74() {
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		g.logSoftmaxGradNT()
	}
}

// logSoftmaxGradNT is logSoftmaxGrad then a multiplication by scale, the
// same roundings in the same order, stored non-temporally.
func (g *gen) logSoftmaxGradNT() {
	g.text("logSoftmaxGradNT", "func(dx, y, dy []float32, s, scale float32)",
		"writes dx[i] = (dy[i] − exp(y[i])·s)·scale with non-temporal stores; dx must be aligned to the vector width.")
	g.nt = true
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s, scale := g.bcast("s"), g.bcast("scale")
	g.hoistExp()
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			ys := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				ys[j] = g.load(py, k)
			}
			es := g.expN(ys, true)
			for j, k := range ks {
				VMULPS(s, es[j], es[j])
				t := g.load(pdy, k)
				VSUBPS(es[j], t, t)
				VMULPS(scale, t, t)
				g.store(t, pdx, k)
			}
		})
	}, nil)
	g.ret()
}
