package main

// Issue 74's 16-bit forward row kernels (rowCached16), on a 2-core Zen 4
// bound by their ops: the exp pass (exp2Sum), the bfloat16 normalizing pass
// by AVX-512 BF16 (normalizeBF16Cvt, also taking the next row's max) and the
// max on packed words (maxBits16).
//
// The exp pass of the 16-bit forward rows with a base-2 exp:
// t = x·(scale·log2e) − m·log2e in one FMA (the second product's
// rounding scales every exp of the row alike, which the normalization
// cancels), f = t − ⌊t⌋ in one VREDUCEPS, 2^f by a minimax
// polynomial on [0, 1), scaled by 2^⌊t⌋ with VSCALEFPS (which takes the
// floor of t itself and flushes t = −∞ to 0), so no clamp, no rounding and
// no ln2 reduction: 10 vector ops an exp of a bfloat16 row where exp16 took
// 14. The degree follows the format: 4 for bfloat16 (2.6e-6 relative, an
// eight-hundredth of its half ulp), 5 for float16 (7.5e-8); t's rounding
// adds |t|·2^−24 (1e-6 at the smallest normal float16 output). exp.go's
// exp2Poly16 is the twin; its constants are these.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Minimax fits of 2^f on [0, 1) for relative error, lowest degree first
// (float32 values; exp.go's exp2BF16 and exp2F16 must equal them).
var (
	exp2BF16 = []float64{1.0000026226043701, 0.6930038332939148, 0.2414427548646927, 0.052011460065841675, 0.013534167781472206}
	exp2F16  = []float64{0.9999999403953552, 0.6931530833244324, 0.24015361070632935, 0.05582631751894951, 0.00898933969438076, 0.0018775768112391233}
)

// s70 is this file's constant table: log2e, the AVX2 clamp of t (below it
// every result is 0), s70Words and the coefficients, each 8 replicated
// dwords as main.go's table.
var s70 Mem

const (
	s70Log2e = iota
	s70Lo
	s70Abs16     // words of 0x7fff
	s70InfF16    // words of float16 +∞ (0x7c00)
	s70InfBF16   // words of bfloat16 +∞ (0x7f80)
	s70NegInfF16 // words of float16 −∞ in maxBits order (0xfc00 ^ 0x7fff)
	s70NegInfBF16
	s70BF // exp2BF16's coefficients, then exp2F16's
)

func s70F16() int { return s70BF + len(exp2BF16) }

// s70Words are the word constants (s70Abs16 …), as dwords of two words.
var s70Words = []uint32{0x7fff7fff, 0x7c007c00, 0x7f807f80, 0x83ff83ff, 0x807f807f}

// emitFwd16s70 emits this file's kernels for both instruction sets, after
// the others, so that their assembly stays as it was.
func emitFwd16s70() {
	s70 = GLOBL("fwd16s70", RODATA|NOPTR)
	bits := []uint32{f32(log2e), f32(-151)}
	bits = append(bits, s70Words...)
	for _, v := range append(append([]float64{}, exp2BF16...), exp2F16...) {
		bits = append(bits, f32(v))
	}
	for k, v := range bits {
		for j := 0; j < 8; j++ {
			DATA(32*k+4*j, U32(v))
		}
	}
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		for _, bf := range []bool{false, true} {
			g.exp2Sum16(bf)
		}
		if g.avx512 {
			g.maxBits16(false)
			g.maxBits16(true)
			for _, withMax := range []bool{false, true} {
				g.normalizeBF16Cvt(false, withMax)
				g.normalizeBF16Cvt(true, withMax)
			}
		}
	}
}

// s70Reg loads constant k of s70 into a register.
func (g *gen) s70Reg(k int) reg.VecVirtual {
	r := g.vec()
	if g.avx512 {
		VBROADCASTSS(s70.Offset(32*k), r)
	} else {
		VMOVUPS(s70.Offset(32*k), r)
	}
	return r
}

// s70Op returns constant k of s70 as a source operand: a register on
// AVX-512, memory on AVX2 (whose 16 registers would not hold them all).
func (g *gen) s70Op(k int) Op {
	if g.avx512 {
		return g.s70Reg(k)
	}
	return s70.Offset(32 * k)
}

// exp2Poly returns 2^t for the vectors t (clobbered), with coefficients cs
// (lowest degree first), step by step across the vectors. Every t must be
// ≤ 128 or NaN.
func (g *gen) exp2Poly(s []reg.VecVirtual, lo reg.VecVirtual, cs []Op) []reg.VecVirtual {
	each := stepwise(len(s))
	f, n := make([]reg.VecVirtual, len(s)), make([]reg.VecVirtual, len(s))
	if g.avx512 {
		// imm 0x09: M = 0 fraction bits kept, round down, inexact suppressed.
		each(func(k int) {
			f[k] = g.vec()
			VREDUCEPS(Imm(0x09), s[k], f[k])
		})
	} else {
		each(func(k int) { maxKeepNaN(s[k], lo, s[k]) })
		each(func(k int) {
			n[k] = g.vec()
			VROUNDPS(Imm(0x09), s[k], n[k])
		})
		each(func(k int) {
			f[k] = g.vec()
			VSUBPS(n[k], s[k], f[k])
		})
	}
	deg := len(cs) - 1
	p := make([]reg.VecVirtual, len(s))
	each(func(k int) {
		p[k] = g.vec()
		if r, ok := cs[deg].(reg.VecVirtual); ok {
			g.mov(r, p[k])
		} else {
			VMOVUPS(cs[deg], p[k])
		}
	})
	for j := deg - 1; j >= 0; j-- {
		each(func(k int) { VFMADD213PS(cs[j], f[k], p[k]) })
	}
	if g.avx512 {
		each(func(k int) { VSCALEFPS(s[k], p[k], p[k]) })
		return p
	}
	return g.ldexpN(p, n, each)
}

func (g *gen) exp2Sum16(bf bool) {
	t := name16(bf)
	g.text("exp2Sum"+t, "func(dst []float32, x []uint16, next []float32, scale, m float32) float32",
		"is expSum"+t+" with the base-2 exp of exp2Poly16; len(dst) must be a multiple of 16.")
	pl := g.newPermBF16(g.avx512 && bf)
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	pn, nn := ptr("next"), length("next")
	scale, m := g.bcast("scale"), g.bcast("m")
	first, deg := s70BF, len(exp2BF16)-1
	if !bf {
		first, deg = s70F16(), len(exp2F16)-1
	}
	lo := reg.VecVirtual(nil)
	if !g.avx512 {
		lo = g.s70Reg(s70Lo)
	}
	cs := make([]Op, deg+1)
	for j := range cs {
		cs[j] = g.s70Op(first + j)
	}
	// t = x·L − M in one FMA, with L = scale·log2e and M = m·log2e
	// (rounded as exp2Args rounds them).
	l := g.vec()
	VMULPS(g.s70Op(s70Log2e), scale, l)
	VMULPS(g.s70Op(s70Log2e), m, m)
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.load16P(pl, px, k, bf)
				VFMSUB213PS(m, l, xs[j])
			}
			es := g.exp2Poly(xs, lo, cs)
			for j, k := range ks {
				g.store(es[j], pd, k)
				VADDPS(es[j], acc[k], acc[k])
			}
		})
		g.prefetch(vs, pn, nn)
	}, noTail)
	g.reduceSum(acc)
	g.ret()
}

// normalizeBF16Cvt emits normalizeBF16Cvt (nt: its non-temporal variant;
// withMax: normalizeMaxBF16Cvt, which also returns the max of next):
// normalizeBF16 with AVX-512 BF16's VCVTNE2PS2BF16, which rounds two
// vectors to 32 bfloat16 (nearest even, NaN quieted as F32ToBF16 does) in
// one op where normalizeBF16Pairs takes 13: the normalizing pass of a
// bfloat16 row in L1, 4.1 → 2.1 cycles a vector on Zen 4. The instruction
// reads denormals as 0, so a pair with one (VFPCLASSPS, tested once for
// both) is rounded by normalizeBF16Pairs' integer code instead, out of line.
func (g *gen) normalizeBF16Cvt(nt, withMax bool) {
	name, doc := "normalizeBF16Cvt", "is normalizeBF16 by VCVTNE2PS2BF16 (AVX-512 BF16); len(dst) must be a multiple of 16."
	if nt {
		name, doc = "normalizeBF16CvtNT", "is normalizeBF16Cvt with non-temporal stores; dst must be 64-byte aligned."
	}
	sig := "func(dst []uint16, x []float32, k float32)"
	if withMax {
		name, doc = "normalizeMax"+name[len("normalize"):], "is "+name+" that also returns maxBF16(next, scale); len(next) must be len(dst)."
		sig = "func(dst []uint16, x []float32, k float32, next []uint16, scale float32) float32"
	}
	g.text(name, sig, doc)
	pl := g.newPermBF16(withMax)
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	kv := g.bcast("k")
	g.hoist(cInt1, cInt7FFF, cQuietHi)
	idx := g.vec()
	VMOVDQU32(bf16Pack, idx)
	g.withNextMax(withMax, true, pl, func(extra func(vs int), finish func()) {
		type slow struct {
			label, back string
			k           int
		}
		var slows []slow
		g.loop(n, unroll, func(vs int) {
			k := 0
			for ; k+1 < vs; k += 2 {
				lo, hi, out := reg.Z30, reg.Z31, reg.Z29
				VMULPS(g.at(px, k, 4), kv, lo)
				VMULPS(g.at(px, k+1, 4), kv, hi)
				k1, k2 := K(), K()
				VFPCLASSPSZ(Imm(0x20), lo, k1) // denormal
				VFPCLASSPSZ(Imm(0x20), hi, k2)
				cvtne2ps2bf16(out, hi, lo)
				sl := slow{label: g.label("denormal"), back: g.label("packed"), k: k}
				slows = append(slows, sl)
				KORTESTW(k1, k2)
				JNZ(LabelRef(sl.label))
				if nt {
					VMOVNTDQ(out, g.at(pd, k, 2))
				} else {
					VMOVDQU16(out, g.at(pd, k, 2))
				}
				Label(sl.back)
			}
			if k < vs {
				t := g.roundHi(g.mulAt(px, k, kv))
				VPSRLD(Imm(16), t, t)
				h := YMM()
				VPMOVDW(t, h)
				VMOVDQU16(h, g.at(pd, k, 2))
			}
			extra(vs)
		}, noTail)
		finish()
		g.ret()
		for _, sl := range slows {
			Label(sl.label)
			v0, v1 := g.vec(), g.vec()
			VMOVAPS(reg.Z30, v0)
			VMOVAPS(reg.Z31, v1)
			t0, t1 := g.roundHi(v0), g.roundHi(v1)
			VPERMT2W(t1, idx, t0)
			g.storeWords(t0, g.at(pd, sl.k, 2), nt)
			JMP(LabelRef(sl.back))
		}
	})
}

// withNextMax emits a kernel body (emit: its loop runs extra(vs) in each
// block, then finish, then its return): once as it is or, with withMax,
// taking the max of the 16-bit array next (bfloat16 with bf) times the
// parameter scale along, into the result (scale 1 and any other, as
// unitScale), loading by pl where it is not nil.
func (g *gen) withNextMax(withMax, bf bool, pl *permBF16, emit func(extra func(vs int), finish func())) {
	if !withMax {
		emit(func(int) {}, func() {})
		return
	}
	pn, scale := ptr("next"), g.bcast("scale")
	g.unitScale(scale, func(one bool) {
		acc := g.accs(unroll, true)
		emit(func(vs int) {
			for k := 0; k < vs; k++ {
				v := g.load16P(pl, pn, k, bf)
				if !one {
					VMULPS(scale, v, v)
				}
				maxKeepNaN(acc[k], v, acc[k])
			}
		}, func() { g.reduceMax(acc) })
	})
}

// mulAt returns float32 vector k of px times kv.
func (g *gen) mulAt(px reg.GPVirtual, k int, kv reg.VecVirtual) reg.VecVirtual {
	v := g.vec()
	VMULPS(g.at(px, k, 4), kv, v)
	return v
}

// cvtne2ps2bf16 emits VCVTNE2PS2BF16 dst, src1, src2 (Intel order: dst's
// low 16 words are src2 rounded, its high 16 words src1), which Go's
// assembler does not know, as its EVEX bytes; the operands must be
// physical zmm registers.
func cvtne2ps2bf16(dst, src1, src2 reg.Register) {
	d, s1, s2 := int(dst.(reg.Physical).PhysicalIndex()), int(src1.(reg.Physical).PhysicalIndex()), int(src2.(reg.Physical).PhysicalIndex())
	bit := func(r, b int) byte { return byte(r>>b) & 1 }
	p0 := (1-bit(d, 3))<<7 | (1-bit(s2, 4))<<6 | (1-bit(s2, 3))<<5 | (1-bit(d, 4))<<4 | 0b10 // R X B R' 00 mm=0F38
	p1 := byte(^s1&0xf)<<3 | 1<<2 | 0b11                                                     // W=0 vvvv 1 pp=F2
	p2 := byte(0b10)<<5 | (1-bit(s1, 4))<<3                                                  // z=0 L'L=512 b=0 V' aaa=0
	modrm := byte(0xc0) | byte(d&7)<<3 | byte(s2&7)
	for j, b := range []byte{0x62, p0, p1, p2, 0x72, modrm} {
		in := &ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(b)}}
		if j == 0 {
			in.Inputs, in.Outputs = []Op{src1, src2}, []Op{dst}
		}
		Instruction(in)
	}
	Comment(fmt.Sprintf("VCVTNE2PS2BF16 %s, %s, %s above", src2.Asm(), src1.Asm(), dst.Asm()))
}

// maxBits16 emits maxBitsF16 or maxBitsBF16: the max of a 16-bit row on the
// packed words, 32 a vector, where max16 converts 16 to float32 and takes
// their max (float16 rows of 4096 on Zen 4: the max pass was 16% of the
// row). A word w orders as a signed int as its value does once a negative
// one's magnitude bits are flipped, w ^ (w>>15 & 0x7fff); NaNs above +∞
// are left out as max16 leaves them (negative ones order below −∞), so a
// row of NaNs gives −∞.
func (g *gen) maxBits16(bf bool) {
	t := name16(bf)
	g.text("maxBits"+t, "func(x []uint16) uint16",
		"returns the "+t+" bits of the max of x's non-NaN values (−∞ if none), as max16; len(x) must be a multiple of 32.")
	px, n := ptr("x"), length("x")
	inf, negInf := s70InfF16, s70NegInfF16
	if bf {
		inf, negInf = s70InfBF16, s70NegInfBF16
	}
	abs, infW := g.vec(), g.vec()
	VPBROADCASTD(s70.Offset(32*s70Abs16), abs)
	VPBROADCASTD(s70.Offset(32*inf), infW)
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VPBROADCASTD(s70.Offset(32*negInf), acc[k])
	}
	// Blocks of 2·unroll·16 words: each vector of 32 words is one "k".
	g.w = 32
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v, sg, ok := g.vec(), g.vec(), K()
			VMOVDQU16(g.at(px, k, 2), v)
			VPSRAW(Imm(15), v, sg)
			VPTERNLOGD(Imm(0x78), abs, sg, v) // v ^ (sg & 0x7fff)
			VPCMPW(Imm(2), infW, v, ok)       // ≤ +∞: not NaN
			VPMAXSW(v, acc[k], ok, acc[k])
		}
	}, noTail)
	g.w = 16
	m := foldPairs(acc, func(ops ...Op) { VPMAXSW(ops...) })
	y := YMM()
	VEXTRACTI64X4(Imm(1), m, y)
	VPMAXSW(y, m.AsY(), y)
	x := XMM()
	VEXTRACTI128(Imm(1), y, x)
	VPMAXSW(x, y.AsX(), x)
	tx := XMM()
	VPSHUFD(Imm(0x4e), x, tx)
	VPMAXSW(tx, x, x)
	VPSHUFD(Imm(0xb1), x, tx)
	VPMAXSW(tx, x, x)
	VPSRLD(Imm(16), x, tx)
	VPMAXSW(tx, x, x)
	// Back from the order: flip a negative one's magnitude bits again.
	VPSRAW(Imm(15), x, tx)
	VPTERNLOGD(Imm(0x78), abs.AsX(), tx, x)
	r := GP32()
	VMOVD(x, r)
	MOVW(r.As16(), addr(ReturnIndex(0)))
	g.ret()
}
