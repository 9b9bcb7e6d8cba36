package main

// The float64 kernels: the float32 kernels' passes on float64 lanes (4 a
// ymm, 8 a zmm), with the float64 exp of generic64.go step for step: clamp
// to [−746, 710] with NaN passing, n = (x·log2e + 1.5·2^52) − 1.5·2^52
// (round to nearest even), r = x − n·ln2Hi − n·ln2Lo by FMAs, e^r by a
// polynomial of degree 11 in Horner FMAs, and ·2^n: VSCALEFPD on AVX-512;
// on AVX2, which has no 64-bit integer conversion, ·2^⌊n/2⌋·2^(n−⌊n/2⌋),
// each power built from the bits of n + 1.5·2^52, so denormal results round
// once as VSCALEFPD rounds them.

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Float64 exp constants; they must equal generic64.go's.
const (
	d64Log2e = 1.44269504088896338700e+00
	d64Ln2Hi = 6.93147180369123816490e-01
	d64Ln2Lo = 1.90821492927058770002e-10
	d64Shift = 0x1.8p52
	d64Lo    = -746
	d64Hi    = 710
)

// Indexes into the float64 constant table.
const (
	dNegInf = iota
	dExpLo
	dExpHi
	dLog2e
	dShift
	dLn2Hi
	dLn2Lo
	dHalf
	dOne
	dBias // int64 1023
	dC13  // q's coefficients (generic64.go's exp64Coef), of r^9 first
	// The log's constants follow the exp's coefficients (iota − dC13 − 1
	// counts from 0 here).
	dMant      = dC13 + len(exp64Coef) + (iota - dC13 - 1) // int64 0x000fffffffffffff
	dExpMagic                                              // the bits of 2^52 (0x4330…)
	dExpMagicF                                             // 2^52 + 1023
	dSqrt2
	dTwo
	dPosInf
	dLg1
	dLg2
	dLg3
	dLg4
	dLg5
	dLg6
	dLg7
	numConsts64
)

// exp64Coef must equal generic64.go's.
var exp64Coef = [...]float64{
	2.5100375832561234e-08, 2.7620075879983367e-07, 2.7557268480310024e-06,
	2.4801521322368692e-05, 0.00019841269863040545, 0.0013888888917196719,
	0.008333333333330065, 0.041666666666624164, 0.16666666666666669,
	0.5000000000000001,
}

var consts64Bits = func() [numConsts64]uint64 {
	var c [numConsts64]uint64
	c[dNegInf] = math.Float64bits(math.Inf(-1))
	c[dExpLo] = math.Float64bits(d64Lo)
	c[dExpHi] = math.Float64bits(d64Hi)
	c[dLog2e] = math.Float64bits(d64Log2e)
	c[dShift] = math.Float64bits(d64Shift)
	c[dLn2Hi] = math.Float64bits(d64Ln2Hi)
	c[dLn2Lo] = math.Float64bits(d64Ln2Lo)
	c[dHalf] = math.Float64bits(0.5)
	c[dOne] = math.Float64bits(1)
	c[dBias] = 1023
	for k, v := range exp64Coef {
		c[dC13+k] = math.Float64bits(v)
	}
	c[dMant] = 1<<52 - 1
	c[dExpMagic] = 0x4330000000000000
	c[dExpMagicF] = math.Float64bits(1<<52 + 1023)
	c[dSqrt2] = math.Float64bits(math.Sqrt2)
	c[dTwo] = math.Float64bits(2)
	c[dPosInf] = math.Float64bits(math.Inf(1))
	for k, v := range log64Lg {
		c[dLg1+k] = math.Float64bits(v)
	}
	return c
}()

var (
	consts64   Mem // numConsts64 entries of 4 replicated qwords (32 bytes each)
	tailMask64 Mem // 4 qwords of -1 then 4 of 0
)

// emit64 writes the float64 tables and both sets' float64 kernels.
func emit64() {
	consts64 = GLOBL("vecconsts64", RODATA|NOPTR)
	for k, v := range consts64Bits {
		for j := 0; j < 4; j++ {
			DATA(32*k+8*j, U64(v))
		}
	}
	tailMask64 = GLOBL("tailmask64", RODATA|NOPTR)
	for j := 0; j < 8; j++ {
		v := uint64(0)
		if j < 4 {
			v = math.MaxUint64
		}
		DATA(8*j, U64(v))
	}
	for _, g := range []*gen{{avx512: false, w: 4, suffix: "AVX2", f64: true}, {avx512: true, w: 8, suffix: "AVX512", f64: true}} {
		g.maxOf64()
		g.expSum64(false)
		g.expSum64(true)
		g.expScale64(false)
		g.expScale64(true)
		g.normalize64(false)
		g.normalize64(true)
		g.logNorm64(false)
		g.logNorm64(true)
		g.dot64()
		g.sum64()
		g.softmaxGrad64()
		g.logSoftmaxGrad64()
		g.maxLanes64()
		g.expSumLanes64()
		g.expScaleLanes64()
		g.normalizeLanes64()
		g.logNormLanes64()
		g.mulAdd64()
		g.add64()
		g.softmaxGradLanes64()
		g.logSoftmaxGradLanes64()
		g.logLanes64()
	}
}

// setMask64 builds the float64 tail mask for rem (1 ≤ rem < w) lanes.
func (g *gen) setMask64(rem reg.GPVirtual) {
	if g.avx512 {
		t := GP32()
		MOVL(U32(0xff), t)
		BZHIL(rem.As32(), t, t)
		g.k = K()
		KMOVW(t, g.k)
		return
	}
	p, t := GP64(), GP64()
	LEAQ(tailMask64.Offset(32), p)
	MOVQ(rem, t)
	NEGQ(t)
	g.ymask = YMM()
	VMOVDQU(Mem{Base: p, Index: t, Scale: 8}, g.ymask)
}

// bcastD broadcasts a float64 parameter to a vector register.
func (g *gen) bcastD(name string) reg.VecVirtual {
	r := g.vec()
	VBROADCASTSD(addr(Param(name)), r)
	return r
}

// hoistD keeps float64 constants in registers for the whole function.
func (g *gen) hoistD(ks ...int) {
	for _, k := range ks {
		if _, ok := g.hoisted[k]; ok {
			continue
		}
		r := g.vec()
		VBROADCASTSD(consts64.Offset(32*k), r)
		g.hoisted[k] = r
	}
}

// cD returns float64 constant k as a source operand: its register, or on
// AVX2 its 32-byte table entry.
func (g *gen) cD(k int) Op {
	if r, ok := g.hoisted[k]; ok {
		return r
	}
	if g.avx512 {
		return g.cregD(k)
	}
	return consts64.Offset(32 * k)
}

// cregD returns float64 constant k in a register.
func (g *gen) cregD(k int) reg.VecVirtual {
	if r, ok := g.hoisted[k]; ok {
		return r
	}
	r := g.vec()
	if g.avx512 {
		VBROADCASTSD(consts64.Offset(32*k), r)
	} else {
		VMOVUPD(consts64.Offset(32*k), r)
	}
	return r
}

// fmaD emits op(c, a, b) with float64 constant c from a register or, on
// AVX-512 when not hoisted, as a broadcast memory operand.
func (g *gen) fmaD(op, bcst func(...Op), c int, a, b reg.VecVirtual) {
	if _, ok := g.hoisted[c]; ok || !g.avx512 {
		op(g.cD(c), a, b)
		return
	}
	bcst(consts64.Offset(32*c), a, b)
}

// loadD loads float64 vector v of base (masked in the tail).
func (g *gen) loadD(base reg.GPVirtual, v int) reg.VecVirtual {
	r := g.vec()
	m := g.at(base, v, 8)
	switch {
	case !g.tail:
		VMOVUPD(m, r)
	case g.avx512:
		VMOVUPD_Z(m, g.k, r)
	default:
		VMASKMOVPD(m, g.ymask, r)
	}
	return r
}

// srcD returns float64 vector v of base as a source operand.
func (g *gen) srcD(base reg.GPVirtual, v int) Op {
	if g.tail {
		return g.loadD(base, v)
	}
	return g.at(base, v, 8)
}

// storeD stores float64 vector r as vector v of base (masked in the tail).
func (g *gen) storeD(r reg.VecVirtual, base reg.GPVirtual, v int) {
	m := g.at(base, v, 8)
	switch {
	case !g.tail && g.nt:
		VMOVNTPD(r, m)
	case !g.tail:
		VMOVUPD(r, m)
	case g.avx512:
		VMOVUPD(r, g.k, m)
	default:
		VMASKMOVPD(r, g.ymask, m)
	}
}

// hoistExpD keeps the float64 exp constants the kernels use most in
// registers: on AVX-512 all but the polynomial's middle terms (broadcast
// from memory), on AVX2 the clamp bounds (VMAXPD/VMINPD keep NaN only from
// a register operand).
func (g *gen) hoistExpD() {
	if g.avx512 {
		g.hoistD(dExpLo, dExpHi, dLog2e, dShift, dLn2Hi, dLn2Lo, dOne, dC13)
	} else {
		g.hoistD(dExpLo, dExpHi)
	}
}

// expD computes e^x for several vectors at once, step by step across them
// (see expN); the xs are clobbered.
func (g *gen) expD(xs []reg.VecVirtual) []reg.VecVirtual {
	each := stepwise(len(xs))
	each(func(k int) { VMAXPD(xs[k], g.cregD(dExpLo), xs[k]) })
	each(func(k int) { VMINPD(xs[k], g.cregD(dExpHi), xs[k]) })
	n := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		n[k] = g.vec()
		VMULPD(g.cD(dLog2e), xs[k], n[k])
	})
	each(func(k int) { VADDPD(g.cD(dShift), n[k], n[k]) })
	each(func(k int) { VSUBPD(g.cD(dShift), n[k], n[k]) })
	each(func(k int) { g.fmaD(VFNMADD231PD, VFNMADD231PD_BCST, dLn2Hi, n[k], xs[k]) })
	each(func(k int) { g.fmaD(VFNMADD231PD, VFNMADD231PD_BCST, dLn2Lo, n[k], xs[k]) })
	p := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		p[k] = g.vec()
		if r, ok := g.hoisted[dC13]; ok {
			VMOVAPD(r, p[k])
		} else {
			VMOVUPD(g.cD(dC13), p[k])
		}
	})
	for c := dC13 + 1; c < dC13+len(exp64Coef); c++ {
		each(func(k int) { g.fmaD(VFMADD213PD, VFMADD213PD_BCST, c, xs[k], p[k]) })
	}
	for range 2 {
		each(func(k int) { g.fmaD(VFMADD213PD, VFMADD213PD_BCST, dOne, xs[k], p[k]) })
	}
	if g.avx512 {
		each(func(k int) { VSCALEFPD(n[k], p[k], p[k]) })
		return p
	}
	// n1 = ⌊n/2⌋ and n2 = n − n1 (in n), each turned into 2^n by the bits of
	// n + 1.5·2^52, whose low bits are n: (bits + 1023) << 52.
	n1 := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		n1[k] = g.vec()
		VMULPD(g.cD(dHalf), n[k], n1[k])
	})
	each(func(k int) { VROUNDPD(Imm(9), n1[k], n1[k]) }) // floor, no precision exception
	each(func(k int) { VSUBPD(n1[k], n[k], n[k]) })
	for _, v := range [][]reg.VecVirtual{n1, n} {
		each(func(k int) { VADDPD(g.cD(dShift), v[k], v[k]) })
		each(func(k int) { VPADDQ(g.cD(dBias), v[k], v[k]) })
		each(func(k int) { VPSLLQ(Imm(52), v[k], v[k]) })
	}
	each(func(k int) { VMULPD(n1[k], p[k], p[k]) })
	each(func(k int) { VMULPD(n[k], p[k], p[k]) })
	return p
}

// hreduceD combines the float64 lanes of v with op (VMAXPD or VADDPD),
// leaving the result in every lane; v is clobbered.
func (g *gen) hreduceD(v reg.VecVirtual, op func(...Op)) reg.VecVirtual {
	t := g.vec()
	if g.avx512 {
		VSHUFF64X2(Imm(0x4e), v, v, t)
		op(t, v, v)
		VSHUFF64X2(Imm(0xb1), v, v, t)
		op(t, v, v)
		VPERMILPD(Imm(0x55), v, t)
	} else {
		VPERM2F128(Imm(0x01), v, v, t)
		op(t, v, v)
		VPERMILPD(Imm(0x5), v, t)
	}
	op(t, v, v)
	return v
}

func vmaxpd(ops ...Op) { VMAXPD(ops...) }
func vaddpd(ops ...Op) { VADDPD(ops...) }

// reduceSumD adds the accumulators pairwise, then across lanes, and stores
// the float64 result.
func (g *gen) reduceSumD(acc []reg.VecVirtual) {
	s := g.hreduceD(foldPairs(acc, vaddpd), vaddpd)
	VMOVSD(s.AsX(), addr(ReturnIndex(0)))
}

// zeros returns unroll zeroed accumulators.
func (g *gen) zeros() []reg.VecVirtual {
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VXORPD(acc[k], acc[k], acc[k])
	}
	return acc
}

// groupsD is groups for the float64 exps: two vectors at a time on both
// sets.
func (g *gen) groupsD(vs int, f func(ks []int)) { g.groupsOf(vs, expGroup64, f) }

// expGroup64 is the float64 exps emitted step by step together. On Zen 4
// (AVX-512 double-pumped) ExpSum64 of 4096 elements in L1 took 0.61-0.62
// ns an element of CPU time in groups of 2, 0.64-0.65 in groups of 4 and
// of 1, and hoisting all of the polynomial's coefficients changed nothing.
const expGroup64 = 2
