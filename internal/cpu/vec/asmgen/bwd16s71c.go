package main

// The 16-bit log_softmax_backward row kernels of internal/cpu (gradRow):
// the sum Σ dy and dx = scale·(dy − exp(y)·s) read float16 or bfloat16 rows
// directly, converting in registers, and round dx to 16 bits as they store,
// so that a row takes two passes over its L1-resident data instead of five
// (two conversions to float32 scratch, sum, gradient, conversion back).
// The gradient is kernels.go's logSoftmaxGrad (expN, the same roundings in
// the same order), then the multiplication by scale and the rounding.

import (
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
			g.logSoftmaxGrad16(bf)
		}
	}
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

// logSoftmaxGrad16 emits logSoftmaxGradBF16 or logSoftmaxGradF16.
func (g *gen) logSoftmaxGrad16(bf bool) {
	t := name16(bf)
	g.text("logSoftmaxGrad"+t, "func(dx, y, dy []uint16, s, scale float32)",
		"writes dx[i] = "+t+"((dy[i] − exp(y[i])·s)·scale) of "+t+" values; len(dx) must be a multiple of 16.")
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s, scale := g.bcast("s"), g.bcast("scale")
	gs := expGroupAVX2
	if g.avx512 {
		gs = expGroupAVX512
	}
	if !bf || !g.avx512 {
		g.hoistExp()
	}
	if bf && g.avx512 {
		// The polynomial's constants are broadcast from memory: the
		// registers go to a group of 4 and roundHi's constants.
		g.hoist(cExpLo, cExpHi, cLog2e, cLn2Hi, cLn2Lo, cP0, cOne)
		g.hoist(cInt1, cInt7FFF, cQuietHi)
		g.pack = g.vec()
		VMOVDQU32(bf16Pack, g.pack)
		gs = 4
	}
	// Scale 1 skips the multiply: t·1 is t bit for bit.
	g.unitScale(scale, func(one bool) {
		g.loop(n, unroll, func(vs int) {
			g.groupsOf(vs, gs, func(ks []int) {
				ys := make([]reg.VecVirtual, len(ks))
				for j, k := range ks {
					ys[j] = g.load16(py, k, bf)
				}
				es := g.expN(ys, true)
				grad := make(map[int]reg.VecVirtual, len(ks))
				for j, k := range ks {
					VMULPS(s, es[j], es[j])
					d := g.load16(pdy, k, bf)
					VSUBPS(es[j], d, d)
					if !one {
						VMULPS(scale, d, d)
					}
					grad[k] = d
				}
				if bf {
					g.storeBF16Vecs(ks, grad, pdx)
					return
				}
				for _, k := range ks {
					g.storeF16(grad[k], g.at(pdx, k, 2), false)
				}
			})
		}, noTail)
		g.ret()
	})
}

// storeBF16Vecs rounds the float32 vectors v[k] to bfloat16 and stores
// them as vectors k of the bfloat16 array at pd: on AVX-512 roundHi and
// VPERMT2W by pairs (normalizeBF16Pairs's packing; its constants hoisted
// and its index in g.pack), on AVX2 storeBF16's packing.
func (g *gen) storeBF16Vecs(ks []int, v map[int]reg.VecVirtual, pd reg.GPVirtual) {
	if g.avx512 {
		j := 0
		for ; j+1 < len(ks); j += 2 {
			t0, t1 := g.roundHi(v[ks[j]]), g.roundHi(v[ks[j+1]])
			VPERMT2W(t1, g.pack, t0)
			g.storeWords(t0, g.at(pd, ks[j], 2), false)
		}
		if j < len(ks) {
			t := g.roundHi(v[ks[j]])
			VPSRLD(Imm(16), t, t)
			h := YMM()
			VPMOVDW(t, h)
			g.storeWords(h, g.at(pd, ks[j], 2), false)
		}
		return
	}
	j := 0
	for ; j+1 < len(ks); j += 2 {
		t0, t1 := g.roundBF16(v[ks[j]]), g.roundBF16(v[ks[j+1]])
		VPACKUSDW(t1, t0, t0)
		VPERMQ(Imm(0xd8), t0, t0)
		g.storeWords(t0, g.at(pd, ks[j], 2), false)
	}
	if j < len(ks) {
		t := g.roundBF16(v[ks[j]])
		hi := XMM()
		VEXTRACTI128(Imm(1), t, hi)
		VPACKUSDW(hi, t.AsX(), hi)
		g.storeWords(hi, g.at(pd, ks[j], 2), false)
	}
}
