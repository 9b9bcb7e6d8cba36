package main

// The 16-bit log_softmax_backward row kernels of internal/cpu (gradRow):
// the sum Σ dy and dx = scale·(dy − exp(y)·s) read float16 or bfloat16 rows
// directly, converting in registers, and round dx to 16 bits as they store,
// so that a row takes two passes over its L1-resident data instead of five
// (two conversions to float32 scratch, sum, gradient, conversion back).
// The exp is the 16-bit forward rows' base-2 one (fwd16s70.go's exp2Poly,
// 10 ops where expN takes about 20; its error, 2.6e-6 relative for
// bfloat16 and 7.5e-8 for float16, far below the half ulp of the output).

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// emitBwd16s71c emits this file's kernels for both instruction sets, after
// the others, so that their assembly stays as it was.
func emitBwd16s71c() {
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		for _, bf := range []bool{false, true} {
			g.sum16(bf)
		}
		g.logSoftmaxGradF16(false)
		g.logSoftmaxGradF16(true)
	}
	for _, g := range []*gen{{avx512: false, w: 16, suffix: "AVX2"}, {avx512: true, w: 32, suffix: "AVX512"}} {
		g.logSoftmaxGradBF16EO(false) // w: bfloat16 elements a block
		g.logSoftmaxGradBF16EO(true)
	}
}

// logSoftmaxGradBF16EO is the bfloat16 gradient on blocks of one vector
// of words split into even and odd lanes (cpu74c.go's widening and
// narrowing, no shuffles): 2 ops to widen a block and 8 to narrow it where
// VPMOVZXWD, VPSLLD, roundHi and VPERMT2W took 17.
// With nt it emits logSoftmaxGradBF16EONT, its non-temporal variant.
func (g *gen) logSoftmaxGradBF16EO(nt bool) {
	name, doc := "logSoftmaxGradBF16EO", fmt.Sprintf("writes dx[i] = BF16((dy[i] − exp(y[i])·s)·scale) of bfloat16 values, on blocks of %d split into even and odd lanes; len(dx) must be a multiple of %[1]d.", g.w)
	if nt {
		name, doc = name+"NT", fmt.Sprintf("is logSoftmaxGradBF16EO with non-temporal stores; dx must be %d-byte aligned.", 2*g.w)
	}
	g.text(name, "func(dx, y, dy []uint16, s, scale float32)", doc)
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s, scale := g.bcast("s"), g.bcast("scale")
	blocks := 1 // blocks a group: 2 vectors each
	if g.avx512 {
		g.hoist(cInt1, cInt7FFF, cQuietHi)
		blocks = 2
	}
	ex := g.exp2Of(true)
	hi := g.hiWords()
	var odd reg.OpmaskVirtual
	if g.avx512 {
		odd = oddWords()
	}
	// Scale 1 skips the multiply: t·1 is t bit for bit.
	g.unitScale(scale, func(one bool) {
		g.loop(n, unroll, func(vs int) {
			g.groupsOf(vs, blocks, func(ks []int) {
				var ys []reg.VecVirtual
				for _, k := range ks {
					y := g.vec()
					g.movdqu(g.at(py, k, 2), y)
					ev, od := g.vec(), g.vec()
					VPSLLD(Imm(16), y, ev)
					g.pand(hi, y, od)
					ys = append(ys, ev, od)
				}
				es := ex(ys)
				for b, k := range ks {
					dy := g.vec()
					g.movdqu(g.at(pdy, k, 2), dy)
					var r [2]reg.VecVirtual
					for j := range r {
						t := g.vec()
						if j == 0 {
							VPSLLD(Imm(16), dy, t)
						} else {
							g.pand(hi, dy, t)
						}
						e := es[2*b+j]
						VMULPS(s, e, e)
						VSUBPS(e, t, t)
						if !one {
							VMULPS(scale, t, t)
						}
						r[j] = g.roundHi(t)
					}
					g.storeEvenOdd(r, odd, nt, g.at(pdx, k, 2))
				}
			})
		}, noTail)
		g.ret()
	})
}

// sum16 emits sumBF16 or sumF16: sum's order (unroll accumulators,
// foldPairs, hreduce) on whole vectors of converted values.
func (g *gen) sum16(bf bool) {
	t := name16(bf)
	g.text("sum"+t, "func(a []uint16) float32",
		"returns Σ a[i] of "+t+" values in float32; len(a) must be a multiple of 16.")
	pa, n := ptr("a"), length("a")
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			VADDPS(g.load16(pa, k, bf), acc[k], acc[k])
		}
	}, noTail)
	g.reduceSum(acc)
	g.ret()
}

// logSoftmaxGradF16 emits logSoftmaxGradF16 or, with nt, its
// non-temporal variant (the bfloat16 one is logSoftmaxGradBF16EO).
func (g *gen) logSoftmaxGradF16(nt bool) {
	name, doc := "logSoftmaxGradF16", "writes dx[i] = F16((dy[i] − exp(y[i])·s)·scale) of float16 values; len(dx) must be a multiple of 16."
	if nt {
		name, doc = name+"NT", fmt.Sprintf("is logSoftmaxGradF16 with non-temporal stores; dx must be %d-byte aligned.", 2*g.w)
	}
	g.text(name, "func(dx, y, dy []uint16, s, scale float32)", doc)
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s, scale := g.bcast("s"), g.bcast("scale")
	ex := g.exp2Of(false)
	// Scale 1 skips the multiply: t·1 is t bit for bit.
	g.unitScale(scale, func(one bool) {
		g.loop(n, unroll, func(vs int) {
			g.groups(vs, func(ks []int) {
				ys := make([]reg.VecVirtual, len(ks))
				for j, k := range ks {
					ys[j] = g.load16(py, k, false)
				}
				es := ex(ys)
				for j, k := range ks {
					VMULPS(s, es[j], es[j])
					d := g.load16(pdy, k, false)
					VSUBPS(es[j], d, d)
					if !one {
						VMULPS(scale, d, d)
					}
					g.storeF16(d, g.at(pdx, k, 2), nt)
				}
			})
		}, noTail)
		g.ret()
	})
}

// exp2Of loads the constants of the 16-bit rows' base-2 exp (fwd16s70.go's
// exp2Poly with the format's polynomial, bf: bfloat16's) and returns it as
// a function of y, clobbered: e^y = 2^(min(y, 89)·log2e), the clamp keeping
// t ≤ 128.4 (2^128 and above overflow alike) and NaN. exp.go's exp2Poly16
// of exp2Grad's t is its twin.
func (g *gen) exp2Of(bf bool) func(ys []reg.VecVirtual) []reg.VecVirtual {
	first, deg := s70BF, len(exp2BF16)-1
	if !bf {
		first, deg = s70F16(), len(exp2F16)-1
	}
	var lo reg.VecVirtual
	if !g.avx512 {
		lo = g.s70Reg(s70Lo)
	}
	cs := make([]Op, deg+1)
	for j := range cs {
		cs[j] = g.s70Op(first + j)
	}
	l2e := g.s70Op(s70Log2e)
	g.hoist(cExpHi)
	return func(ys []reg.VecVirtual) []reg.VecVirtual {
		each := stepwise(len(ys))
		each(func(k int) { minKeepNaN(ys[k], g.creg(cExpHi), ys[k]) })
		each(func(k int) { VMULPS(l2e, ys[k], ys[k]) })
		return g.exp2Poly(ys, lo, cs)
	}
}
