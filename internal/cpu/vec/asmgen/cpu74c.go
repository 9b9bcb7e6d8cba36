package main

// The bfloat16 softmax_backward kernels from blocks split into even and odd
// lanes (AVX-512: 32 elements in 64 bytes; AVX2: 16 in 32), so that a block
// is read, widened and written back without shuffles: the even elements
// widen with a shift left by 16, the odd ones with a mask of their high
// words, and the rounded results go back with a shift right of the even
// lanes and a word blend. softmaxGradBF16 (bwd.go) widened each vector with
// VPMOVZXWD and narrowed it with VPMOVDW, about 19 ops a vector, and was
// ALU-bound on Zen 4 (0.19 ns an element in L1, two thirds of a row's
// backward).

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// emitCPU74c emits this file's kernels, after the others, so that their
// assembly stays as it was.
func emitCPU74c() {
	g := &gen{avx512: true, w: 32, suffix: "AVX512"} // w: bfloat16 elements a block
	g.dotBF16EO()
	g.softmaxGradBF16EO(false)
	g.softmaxGradBF16EO(true)
	g = &gen{avx512: false, w: 16, suffix: "AVX2"}
	g.softmaxGradBF16EO(false)
	g.softmaxGradBF16EO(true)
}

// dotBF16EO is dotBF16 from the same even/odd split: block k of an
// unrolled step adds its even products to acc[2k] and its odd ones to
// acc[2k+1] (a lone block to acc[0] and acc[1]), folded as dotBF16's
// accumulators are; dotBF16EOGeneric is its twin.
func (g *gen) dotBF16EO() {
	g.text("dotBF16EO", "func(a, b []uint16) float32",
		"returns Σ a[i]·b[i] of bfloat16 values in float32 from even and odd lanes; len(a) must be a multiple of 32.")
	pa, n, pb := ptr("a"), length("a"), ptr("b")
	hi := g.hiWords()
	acc := g.accs(2*unroll, false)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			a, b, ae, be := g.vec(), g.vec(), g.vec(), g.vec()
			VMOVDQU32(g.at(pa, k, 2), a)
			VMOVDQU32(g.at(pb, k, 2), b)
			VPSLLD(Imm(16), a, ae)
			VPSLLD(Imm(16), b, be)
			VPANDD(hi, a, a)
			VPANDD(hi, b, b)
			VFMADD231PS(be, ae, acc[2*k])
			VFMADD231PS(b, a, acc[2*k+1])
		}
	}, noTail)
	g.reduceSum(acc)
	g.ret()
}

// hiWords returns a vector of int32 0xffff0000 (no table constant).
func (g *gen) hiWords() reg.VecVirtual {
	r := g.vec()
	if g.avx512 {
		VPTERNLOGD(Imm(0xff), r, r, r)
	} else {
		VPCMPEQD(r, r, r)
	}
	VPSLLD(Imm(16), r, r)
	return r
}

// oddWords returns the word mask 0xaaaaaaaa: the odd (high) words.
func oddWords() reg.OpmaskVirtual {
	t, k := GP32(), K()
	MOVL(U32(0xaaaaaaaa), t)
	KMOVD(t, k)
	return k
}

// roundHi rounds float32 v to bfloat16 to nearest even in the high word of
// each dword (the low word is left over), NaN quieted: roundBF16's
// arithmetic before its final shift.
func (g *gen) roundHi(v reg.VecVirtual) reg.VecVirtual {
	t := g.vec()
	VPSRLD(Imm(16), v, t)
	g.pand(g.c(cInt1), t, t)
	VPADDD(v, t, t)
	VPADDD(g.c(cInt7FFF), t, t)
	if g.avx512 {
		nan := K()
		VCMPPS(Imm(3), v, v, nan)
		VPORD(g.c(cQuietHi), v, nan, t)
		return t
	}
	nan, q := g.vec(), g.vec()
	VCMPPS(Imm(3), v, v, nan)
	VPOR(g.c(cQuietHi), v, q)
	VPBLENDVB(nan, q, t, t)
	return t
}

// movdqu moves a whole integer vector: VMOVDQU32 on AVX-512, VMOVDQU on
// AVX2.
func (g *gen) movdqu(src, dst Op) {
	if g.avx512 {
		VMOVDQU32(src, dst)
	} else {
		VMOVDQU(src, dst)
	}
}

// pand sets dst = a AND b: VPANDD on AVX-512, VPAND on AVX2.
func (g *gen) pand(a, b, dst Op) {
	if g.avx512 {
		VPANDD(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

func (g *gen) softmaxGradBF16EO(nt bool) {
	name, doc := "softmaxGradBF16EO", fmt.Sprintf("is softmaxGradBF16 on blocks of %d split into even and odd lanes; len(dx) must be a multiple of %[1]d.", g.w)
	if nt {
		name, doc = "softmaxGradBF16EONT", fmt.Sprintf("is softmaxGradBF16EO with non-temporal stores; dx must be %d-byte aligned.", 2*g.w)
	}
	g.text(name, "func(dx, y, dy []uint16, s, scale float32)", doc)
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s, scale := g.bcast("s"), g.bcast("scale")
	g.hoist(cInt1, cInt7FFF, cQuietHi)
	hi := g.hiWords()
	var odd reg.OpmaskVirtual
	if g.avx512 {
		odd = oddWords()
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			y, dy := g.vec(), g.vec()
			g.movdqu(g.at(py, k, 2), y)
			g.movdqu(g.at(pdy, k, 2), dy)
			var r [2]reg.VecVirtual
			for j := range r {
				ty, t := g.vec(), g.vec()
				if j == 0 {
					VPSLLD(Imm(16), y, ty)
					VPSLLD(Imm(16), dy, t)
				} else {
					g.pand(hi, y, ty)
					g.pand(hi, dy, t)
				}
				VSUBPS(s, t, t)
				VMULPS(ty, t, t)
				VMULPS(scale, t, t)
				r[j] = g.roundHi(t)
			}
			g.storeEvenOdd(r, odd, nt, g.at(pdx, k, 2))
		}
	}, noTail)
	g.ret()
}

// storeEvenOdd packs the rounded even-lane (r[0], in the high words) and
// odd-lane (r[1]) bfloat16 halves into one vector and stores it at dst,
// non-temporally with nt; odd is the odd-words mask (AVX-512).
func (g *gen) storeEvenOdd(r [2]reg.VecVirtual, odd reg.OpmaskVirtual, nt bool, dst Mem) {
	VPSRLD(Imm(16), r[0], r[0])
	if g.avx512 {
		VPBLENDMW(r[1], r[0], odd, r[0])
	} else {
		VPBLENDW(Imm(0xaa), r[1], r[0], r[0])
	}
	if nt {
		VMOVNTDQ(r[0], dst)
	} else {
		g.movdqu(r[0], dst)
	}
}
