package main

// The float16 and bfloat16 conversion kernels.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

func (g *gen) f16ToF32() {
	g.text("f16ToF32", "func(dst []float32, src []uint16)",
		"converts len(dst) binary16 values with F16C.")
	pd, n, ps := ptr("dst"), length("dst"), ptr("src")
	var tail func(reg.GPVirtual)
	if !g.avx512 {
		tail = func(rem reg.GPVirtual) {
			g.scalarLoop(rem, func() {
				t, x := GP32(), XMM()
				MOVWLZX(g.at(ps, 0, 2), t)
				VMOVD(t, x)
				VCVTPH2PS(x, x)
				VMOVSS(x, g.at(pd, 0, 4))
			})
		}
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			r := g.vec()
			switch {
			case !g.tail:
				VCVTPH2PS(g.at(ps, k, 2), r)
			default:
				h := YMM()
				VMOVDQU16_Z(g.at(ps, k, 2), g.k, h)
				VCVTPH2PS(h, r)
			}
			g.store(r, pd, k)
		}
	}, tail)
	g.ret()
}

func (g *gen) f32ToF16(nt bool) {
	name, doc := "f32ToF16", "converts len(dst) values to binary16 with F16C, rounding to nearest even."
	if nt {
		name, doc = "f32ToF16NT", "is f32ToF16 with non-temporal stores; dst must be 32-byte aligned."
	}
	g.text(name, "func(dst []uint16, src []float32)", doc)
	pd, n, ps := ptr("dst"), length("dst"), ptr("src")
	var tail func(reg.GPVirtual)
	if !g.avx512 {
		tail = func(rem reg.GPVirtual) {
			g.scalarLoop(rem, func() {
				x := XMM()
				VMOVSS(g.at(ps, 0, 4), x)
				VCVTPS2PH(Imm(0), x, x)
				VPEXTRW(Imm(0), x, g.at(pd, 0, 2))
			})
		}
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			x := g.load(ps, k)
			if !g.tail {
				g.storeF16(x, g.at(pd, k, 2), nt)
				continue
			}
			h := YMM()
			VCVTPS2PH(Imm(0), x, h)
			VMOVDQU16(h, g.k, g.at(pd, k, 2))
		}
	}, tail)
	g.ret()
}

func (g *gen) bf16ToF32() {
	g.text("bf16ToF32", "func(dst []float32, src []uint16)",
		"converts len(dst) bfloat16 values.")
	pd, n, ps := ptr("dst"), length("dst"), ptr("src")
	var tail func(reg.GPVirtual)
	if !g.avx512 {
		tail = func(rem reg.GPVirtual) {
			g.scalarLoop(rem, func() {
				t := GP32()
				MOVWLZX(g.at(ps, 0, 2), t)
				SHLL(Imm(16), t)
				MOVL(t, g.at(pd, 0, 4))
			})
		}
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			r := g.vec()
			switch {
			case !g.tail:
				VPMOVZXWD(g.at(ps, k, 2), r)
			default:
				h := YMM()
				VMOVDQU16_Z(g.at(ps, k, 2), g.k, h)
				VPMOVZXWD(h, r)
			}
			VPSLLD(Imm(16), r, r)
			g.store(r, pd, k)
		}
	}, tail)
	g.ret()
}

func (g *gen) f32ToBF16(nt bool) {
	name, doc := "f32ToBF16", "converts len(dst) values to bfloat16, rounding to nearest even with NaN kept quiet."
	if nt {
		name, doc = "f32ToBF16NT", "is f32ToBF16 with non-temporal stores; dst must be 32-byte aligned."
	}
	g.text(name, "func(dst []uint16, src []float32)", doc)
	pd, n, ps := ptr("dst"), length("dst"), ptr("src")
	if g.avx512 {
		g.hoist(cInt1, cInt7FFF, cAbsMask, cInfBits, cQuietBF)
	}
	round := func(k int) reg.VecVirtual { return g.roundBF16(g.load(ps, k)) }
	var tail func(reg.GPVirtual)
	if !g.avx512 {
		tail = func(rem reg.GPVirtual) {
			g.scalarLoop(rem, func() {
				u, a, l := GP32(), GP32(), GP32()
				nan, store := g.label("nan"), g.label("store")
				MOVL(g.at(ps, 0, 4), u)
				MOVL(u, a)
				ANDL(U32(0x7fffffff), a)
				CMPL(a, U32(0x7f800000))
				JA(LabelRef(nan))
				MOVL(u, l)
				SHRL(Imm(16), l)
				ANDL(Imm(1), l)
				ADDL(U32(0x7fff), u)
				ADDL(l, u)
				SHRL(Imm(16), u)
				JMP(LabelRef(store))
				Label(nan)
				SHRL(Imm(16), u)
				ORL(Imm(0x40), u)
				Label(store)
				MOVW(u.As16(), g.at(pd, 0, 2))
			})
		}
	}
	g.loop(n, unroll, func(vs int) { g.storeBF16(vs, round, pd, nt) }, tail)
	g.ret()
}

// roundBF16 returns the bfloat16 bits of float32 vector u in the low half
// of each dword: (u + 0x7fff + (u>>16)&1) >> 16, or (u>>16)|0x40 for NaN.
// On AVX-512 the constants must be hoisted.
func (g *gen) roundBF16(u reg.VecVirtual) reg.VecVirtual {
	h, t, a := g.vec(), g.vec(), g.vec()
	if g.avx512 {
		VPSRLD(Imm(16), u, h)
		VPANDD(g.c(cInt1), h, t)
		VPADDD(u, t, t)
		VPADDD(g.c(cInt7FFF), t, t)
		VPSRLD(Imm(16), t, t)
		VPANDD(g.c(cAbsMask), u, a)
		nan := K()
		VPCMPGTD(g.c(cInfBits), a, nan)
		VPORD(g.c(cQuietBF), h, nan, t)
		return t
	}
	VPSRLD(Imm(16), u, h)
	VPAND(g.c(cInt1), h, t)
	VPADDD(u, t, t)
	VPADDD(g.c(cInt7FFF), t, t)
	VPSRLD(Imm(16), t, t)
	VPAND(g.c(cAbsMask), u, a)
	VPCMPGTD(g.c(cInfBits), a, a)
	VPOR(g.c(cQuietBF), h, h)
	VPBLENDVB(a, h, t, t)
	return t
}

// storeBF16 stores vs vectors, each round(k)'s bfloat16 bits, as vectors
// k of the bfloat16 array at pd (masked in an AVX-512 tail; nt: full
// blocks non-temporal).
func (g *gen) storeBF16(vs int, round func(k int) reg.VecVirtual, pd reg.GPVirtual, nt bool) {
	if g.avx512 {
		for k := 0; k < vs; k++ {
			t := round(k)
			h := YMM()
			VPMOVDW(t, h)
			if g.tail {
				VMOVDQU16(h, g.k, g.at(pd, k, 2))
			} else {
				g.storeWords(h, g.at(pd, k, 2), nt)
			}
		}
		return
	}
	k := 0
	for ; k+1 < vs; k += 2 {
		t0, t1 := round(k), round(k+1)
		VPACKUSDW(t1, t0, t0)
		VPERMQ(Imm(0xd8), t0, t0)
		g.storeWords(t0, g.at(pd, k, 2), nt)
	}
	if k < vs {
		t := round(k)
		hi := XMM()
		VEXTRACTI128(Imm(1), t, hi)
		VPACKUSDW(hi, t.AsX(), hi)
		g.storeWords(hi, g.at(pd, k, 2), nt)
	}
}

// storeWords stores integer vector v to m: non-temporally with nt (m
// aligned to v's width), else with VMOVDQU16 on AVX-512 or VMOVDQU.
func (g *gen) storeWords(v reg.VecVirtual, m Mem, nt bool) {
	switch {
	case nt:
		VMOVNTDQ(v, m)
	case g.avx512:
		VMOVDQU16(v, m)
	default:
		VMOVDQU(v, m)
	}
}

// storeF16 stores float32 vector x as binary16 to m (all lanes):
// VCVTPS2PH straight to memory or, with nt, into a register and then
// VMOVNTDQ (m aligned to that register's width).
func (g *gen) storeF16(x reg.VecVirtual, m Mem, nt bool) {
	if !nt {
		VCVTPS2PH(Imm(0), x, m)
		return
	}
	h := XMM()
	if g.avx512 {
		h = YMM()
	}
	VCVTPS2PH(Imm(0), x, h)
	VMOVNTDQ(h, m)
}
