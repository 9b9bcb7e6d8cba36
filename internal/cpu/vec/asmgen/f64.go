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
	each := func(f func(k int)) {
		for k := range xs {
			f(k)
		}
	}
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

func (g *gen) maxOf64() {
	g.text("maxOf64", "func(x []float64, scale float64) float64",
		"returns the max of scale·x[i] over the elements that are not NaN (−∞ if none).")
	px, n := ptr("x"), length("x")
	scale := g.bcastD("scale")
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VBROADCASTSD(consts64.Offset(32*dNegInf), acc[k])
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			switch {
			case !g.tail:
				VMULPD(g.at(px, k, 8), scale, v)
			case g.avx512:
				// Masked-off lanes are −∞.
				x := g.vec()
				VMOVUPD_Z(g.at(px, k, 8), g.k, x)
				VBROADCASTSD(consts64.Offset(32*dNegInf), v)
				VMULPD(x, scale, g.k, v)
			default:
				VMASKMOVPD(g.at(px, k, 8), g.ymask, v)
				VMULPD(v, scale, v)
				VBLENDVPD(g.ymask, v, g.cregD(dNegInf), v)
			}
			// A NaN v leaves the accumulator alone.
			VMAXPD(acc[k], v, acc[k])
		}
	}, nil)
	m := g.hreduceD(foldPairs(acc, vmaxpd), vmaxpd)
	VMOVSD(m.AsX(), addr(ReturnIndex(0)))
	g.ret()
}

// prefetchD is prefetch for float64 arrays.
func (g *gen) prefetchD(vs int, pn, nn reg.GPVirtual) {
	if vs != unroll || g.tail {
		return
	}
	skip := g.label("noprefetch")
	CMPQ(g.i, nn)
	JAE(LabelRef(skip))
	for b := 0; b < unroll*g.w*8; b += 64 {
		PREFETCHT1(Mem{Base: pn, Index: g.i, Scale: 8, Disp: b})
	}
	Label(skip)
}

// expSum64 emits expSum64 or, with flush, expSumFlush64, which also
// writes out[i] = in[i]·k with non-temporal stores in its full blocks (out
// aligned to the vector width), so that the previous slice's output
// reaches memory while the core computes exps (see expSum); done is how
// many leading elements of out it wrote.
func (g *gen) expSum64(flush bool) {
	if flush {
		g.text("expSumFlush64", "func(dst, x, next, out, in []float64, scale, m, k float64) (s float64, done int)",
			"is expSum64 that also writes out[i] = in[i]·k (non-temporal) for i < done.")
	} else {
		g.text("expSum64", "func(dst, x, next []float64, scale, m float64) float64",
			"writes dst[i] = exp(scale·x[i] − m), returns Σ dst[i] and prefetches next.")
	}
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	pn, nn := ptr("next"), length("next")
	scale, m := g.bcastD("scale"), g.bcastD("m")
	var pout, pin, lim, done reg.GPVirtual
	var kv reg.VecVirtual
	if flush {
		pout, pin, lim, done = ptr("out"), ptr("in"), length("out"), GP64()
		// Blocks at i ≤ len(out) − unroll·w are whole inside out.
		SUBQ(U32(unroll*g.w), lim)
		XORQ(done, done)
		kv = g.bcastD("k")
	}
	if g.avx512 || !flush {
		g.hoistExpD()
	}
	acc := g.zeros()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.vec()
				VMULPD(g.srcD(px, k), scale, xs[j])
				VSUBPD(m, xs[j], xs[j])
			}
			es := g.expD(xs)
			for j, k := range ks {
				g.storeD(es[j], pd, k)
				switch {
				case !g.tail:
					VADDPD(es[j], acc[k], acc[k])
				case g.avx512:
					VADDPD(es[j], acc[k], g.k, acc[k]) // masked-off lanes hold exp(−m)
				default:
					VANDPD(g.ymask, es[j], es[j])
					VADDPD(es[j], acc[k], acc[k])
				}
			}
		})
		g.prefetchD(vs, pn, nn)
		if flush && vs == unroll && !g.tail {
			skip := g.label("noflush")
			CMPQ(g.i, lim)
			JG(LabelRef(skip))
			for k := 0; k < unroll; k++ {
				v := g.vec()
				VMULPD(g.at(pin, k, 8), kv, v)
				VMOVNTPD(v, g.at(pout, k, 8))
			}
			LEAQ(Mem{Base: g.i, Disp: unroll * g.w}, done)
			Label(skip)
		}
	}, nil)
	g.reduceSumD(acc)
	if flush {
		Store(done, ReturnIndex(1))
	}
	g.ret()
}

// expScale64 emits expScale64 (dst[i] = exp(scale·x[i] − m)·mul) or, with
// nt, expScaleNT64.
func (g *gen) expScale64(nt bool) {
	name, doc := "expScale64", "writes dst[i] = exp(scale·x[i] − m)·mul."
	if nt {
		name, doc = "expScaleNT64", "is expScale64 with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x []float64, scale, m, mul float64)", doc)
	g.nt = nt
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	scale, m, mul := g.bcastD("scale"), g.bcastD("m"), g.bcastD("mul")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.vec()
				VMULPD(g.srcD(px, k), scale, xs[j])
				VSUBPD(m, xs[j], xs[j])
			}
			es := g.expD(xs)
			for j, k := range ks {
				VMULPD(mul, es[j], es[j])
				g.storeD(es[j], pd, k)
			}
		})
	}, nil)
	g.ret()
}

// normalize64 emits normalize64 (dst[i] = x[i]·k) or, with nt,
// normalizeNT64.
func (g *gen) normalize64(nt bool) {
	name, doc := "normalize64", "writes dst[i] = x[i]·k."
	if nt {
		name, doc = "normalizeNT64", "is normalize64 with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x []float64, k float64)", doc)
	g.nt = nt
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	kv := g.bcastD("k")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPD(g.srcD(px, k), kv, v)
			g.storeD(v, pd, k)
		}
	}, nil)
	g.ret()
}

// logNorm64 emits logNorm64 (dst[i] = (scale·x[i] − m) − logd) or, with
// nt, logNormNT64.
func (g *gen) logNorm64(nt bool) {
	name, doc := "logNorm64", "writes dst[i] = (scale·x[i] − m) − logd."
	if nt {
		name, doc = "logNormNT64", "is logNorm64 with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x []float64, scale, m, logd float64)", doc)
	g.nt = nt
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	scale, m, logd := g.bcastD("scale"), g.bcastD("m"), g.bcastD("logd")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPD(g.srcD(px, k), scale, v)
			VSUBPD(m, v, v)
			VSUBPD(logd, v, v)
			g.storeD(v, pd, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) dot64() {
	g.text("dot64", "func(a, b []float64) float64", "returns Σ a[i]·b[i].")
	pa, n, pb := ptr("a"), length("a"), ptr("b")
	acc := g.zeros()
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			a := g.loadD(pa, k)
			VFMADD231PD(g.srcD(pb, k), a, acc[k])
		}
	}, nil)
	g.reduceSumD(acc)
	g.ret()
}

func (g *gen) sum64() {
	g.text("sum64", "func(a []float64) float64", "returns Σ a[i].")
	pa, n := ptr("a"), length("a")
	acc := g.zeros()
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			VADDPD(g.srcD(pa, k), acc[k], acc[k])
		}
	}, nil)
	g.reduceSumD(acc)
	g.ret()
}

func (g *gen) softmaxGrad64() {
	g.text("softmaxGrad64", "func(dx, y, dy []float64, s float64)",
		"writes dx[i] = y[i]·(dy[i] − s).")
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s := g.bcastD("s")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.loadD(pdy, k)
			VSUBPD(s, t, t)
			VMULPD(g.srcD(py, k), t, t)
			g.storeD(t, pdx, k)
		}
	}, nil)
	g.ret()
}

// logSoftmaxGrad64 and its lanes form: dx[i] = dy[i] − exp(y[i])·s (s[i]).
func (g *gen) logSoftmaxGrad64() {
	g.text("logSoftmaxGrad64", "func(dx, y, dy []float64, s float64)",
		"writes dx[i] = dy[i] − exp(y[i])·s.")
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s := g.bcastD("s")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			ys := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				ys[j] = g.loadD(py, k)
			}
			es := g.expD(ys)
			for j, k := range ks {
				VMULPD(s, es[j], es[j])
				t := g.loadD(pdy, k)
				VSUBPD(es[j], t, t)
				g.storeD(t, pdx, k)
			}
		})
	}, nil)
	g.ret()
}

func (g *gen) maxLanes64() {
	g.text("maxLanes64", "func(m, x []float64, scale float64)",
		"sets m[i] = max(m[i], scale·x[i]), leaving m[i] alone where scale·x[i] is NaN.")
	pm, n, px := ptr("m"), length("m"), ptr("x")
	scale := g.bcastD("scale")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPD(g.srcD(px, k), scale, v)
			mo := g.loadD(pm, k)
			VMAXPD(mo, v, mo)
			g.storeD(mo, pm, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) expSumLanes64() {
	g.text("expSumLanes64", "func(dst, d, x, m []float64, scale float64)",
		"writes dst[i] = exp(scale·x[i] − m[i]) and adds it to d[i].")
	pdst, n, pd, px, pm := ptr("dst"), length("dst"), ptr("d"), ptr("x"), ptr("m")
	scale := g.bcastD("scale")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.vec()
				VMULPD(g.srcD(px, k), scale, xs[j])
				VSUBPD(g.srcD(pm, k), xs[j], xs[j])
			}
			es := g.expD(xs)
			for j, k := range ks {
				g.storeD(es[j], pdst, k)
				VADDPD(g.srcD(pd, k), es[j], es[j])
				g.storeD(es[j], pd, k)
			}
		})
	}, nil)
	g.ret()
}

func (g *gen) expScaleLanes64() {
	g.text("expScaleLanes64", "func(dst, x, m, mul []float64, scale float64)",
		"writes dst[i] = exp(scale·x[i] − m[i])·mul[i].")
	pd, n, px, pm, pmul := ptr("dst"), length("dst"), ptr("x"), ptr("m"), ptr("mul")
	scale := g.bcastD("scale")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.vec()
				VMULPD(g.srcD(px, k), scale, xs[j])
				VSUBPD(g.srcD(pm, k), xs[j], xs[j])
			}
			es := g.expD(xs)
			for j, k := range ks {
				VMULPD(g.srcD(pmul, k), es[j], es[j])
				g.storeD(es[j], pd, k)
			}
		})
	}, nil)
	g.ret()
}

func (g *gen) normalizeLanes64() {
	g.text("normalizeLanes64", "func(dst, x, k []float64)", "writes dst[i] = x[i]·k[i].")
	pd, n, px, pk := ptr("dst"), length("dst"), ptr("x"), ptr("k")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.loadD(px, k)
			VMULPD(g.srcD(pk, k), v, v)
			g.storeD(v, pd, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) logNormLanes64() {
	g.text("logNormLanes64", "func(dst, x, m, logd []float64, scale float64)",
		"writes dst[i] = (scale·x[i] − m[i]) − logd[i].")
	pd, n, px, pm, pl := ptr("dst"), length("dst"), ptr("x"), ptr("m"), ptr("logd")
	scale := g.bcastD("scale")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPD(g.srcD(px, k), scale, v)
			VSUBPD(g.srcD(pm, k), v, v)
			VSUBPD(g.srcD(pl, k), v, v)
			g.storeD(v, pd, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) mulAdd64() {
	g.text("mulAdd64", "func(acc, a, b []float64)", "accumulates acc[i] += a[i]·b[i] (fused).")
	pacc, n, pa, pb := ptr("acc"), length("acc"), ptr("a"), ptr("b")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.loadD(pacc, k)
			a := g.loadD(pa, k)
			VFMADD231PD(g.srcD(pb, k), a, t)
			g.storeD(t, pacc, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) add64() {
	g.text("add64", "func(acc, a []float64)", "accumulates acc[i] += a[i].")
	pacc, n, pa := ptr("acc"), length("acc"), ptr("a")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.loadD(pacc, k)
			VADDPD(g.srcD(pa, k), t, t)
			g.storeD(t, pacc, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) softmaxGradLanes64() {
	g.text("softmaxGradLanes64", "func(dx, y, dy, s []float64)",
		"writes dx[i] = y[i]·(dy[i] − s[i]).")
	pdx, n, py, pdy, ps := ptr("dx"), length("dx"), ptr("y"), ptr("dy"), ptr("s")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.loadD(pdy, k)
			VSUBPD(g.srcD(ps, k), t, t)
			VMULPD(g.srcD(py, k), t, t)
			g.storeD(t, pdx, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) logSoftmaxGradLanes64() {
	g.text("logSoftmaxGradLanes64", "func(dx, y, dy, s []float64)",
		"writes dx[i] = dy[i] − exp(y[i])·s[i].")
	pdx, n, py, pdy, ps := ptr("dx"), length("dx"), ptr("y"), ptr("dy"), ptr("s")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			ys := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				ys[j] = g.loadD(py, k)
			}
			es := g.expD(ys)
			for j, k := range ks {
				VMULPD(g.srcD(ps, k), es[j], es[j])
				t := g.loadD(pdy, k)
				VSUBPD(es[j], t, t)
				g.storeD(t, pdx, k)
			}
		})
	}, nil)
	g.ret()
}

// log64Lg are fdlibm's (and Go's math.Log's) coefficients L1…L7; they must
// equal generic64.go's.
var log64Lg = [...]float64{
	6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
	2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
	1.479819860511658591e-01,
}

// orQ and andQ are VPOR and VPAND on ymm, VPORQ and VPANDQ on zmm.
func (g *gen) orQ(a, b Op, dst reg.VecVirtual) {
	if g.avx512 {
		VPORQ(a, b, dst)
	} else {
		VPOR(a, b, dst)
	}
}

func (g *gen) andQ(a, b Op, dst reg.VecVirtual) {
	if g.avx512 {
		VPANDQ(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

// logLanes64 emits logLanes64: dst[i] = log(d[i]) for the lanes' sums of a
// short axis (d ≥ 1, or NaN or +Inf, which pass through), where a scalar
// math.Log a lane cost more than the lane's exps. It is Go's math.Log
// (fdlibm's algorithm) step for step, without FMAs: d = 2^e·m with m in
// [√½, √2) from the bits (e as a float64 by the 2^52 trick, as AVX2 has no
// 64-bit integer conversion), f = m − 1, s = f/(2+f), the polynomials in
// s² and s⁴, and e·ln2 split as exp splits it.
func (g *gen) logLanes64() {
	g.text("logLanes64", "func(dst, d []float64)", "writes dst[i] = log(d[i]) for d[i] ≥ 1, NaN or +Inf.")
	pdst, n, pd := ptr("dst"), length("dst"), ptr("d")
	if g.avx512 {
		g.hoistD(dOne, dHalf, dSqrt2, dPosInf)
	}
	g.loop(n, 1, func(vs int) {
		d := g.loadD(pd, 0)
		e, m := g.vec(), g.vec()
		VPSRLQ(Imm(52), d, e)
		g.orQ(g.cD(dExpMagic), e, e)
		VSUBPD(g.cD(dExpMagicF), e, e)
		g.andQ(g.cD(dMant), d, m)
		g.orQ(g.cD(dOne), m, m)
		// m ≥ √2: m/2 and e+1 (Go's math.Log halves frexp's fraction below √½).
		if g.avx512 {
			k := K()
			VCMPPD(Imm(2), m, g.cregD(dSqrt2), k)
			VADDPD(g.cregD(dOne), e, k, e)
			VMULPD(g.cregD(dHalf), m, k, m)
		} else {
			mask, t := g.vec(), g.vec()
			VCMPPD(Imm(2), m, g.cregD(dSqrt2), mask)
			VANDPD(g.cD(dOne), mask, t)
			VADDPD(t, e, e)
			VBLENDVPD(mask, g.cregD(dHalf), g.cregD(dOne), t)
			VMULPD(t, m, m)
		}
		f, s := g.vec(), g.vec()
		VSUBPD(g.cD(dOne), m, f)
		VADDPD(g.cD(dTwo), f, s)
		VDIVPD(s, f, s)
		s2, s4 := g.vec(), g.vec()
		VMULPD(s, s, s2)
		VMULPD(s2, s2, s4)
		// t1 = s2·(L1 + s4·(L3 + s4·(L5 + s4·L7))), t2 = s4·(L2 + s4·(L4 + s4·L6)).
		horner := func(cs ...int) reg.VecVirtual {
			r := g.vec()
			VMULPD(g.cD(cs[0]), s4, r)
			for _, c := range cs[1:] {
				VADDPD(g.cD(c), r, r)
				VMULPD(s4, r, r)
			}
			return r
		}
		t1 := horner(dLg7, dLg5, dLg3) // s4·(L3 + s4·(L5 + s4·L7))
		VADDPD(g.cD(dLg1), t1, t1)
		VMULPD(s2, t1, t1)
		t2 := horner(dLg6, dLg4) // s4·(L4 + s4·L6)
		VADDPD(g.cD(dLg2), t2, t2)
		VMULPD(s4, t2, t2)
		VADDPD(t2, t1, t1) // R
		// hfsq = 0.5·f·f; out = e·ln2Hi − ((hfsq − (s·(hfsq + R) + e·ln2Lo)) − f)
		h := g.vec()
		VMULPD(g.cD(dHalf), f, h)
		VMULPD(f, h, h)
		VADDPD(h, t1, t1)
		VMULPD(s, t1, t1)
		lo := g.vec()
		VMULPD(g.cD(dLn2Lo), e, lo)
		VADDPD(lo, t1, t1)
		VSUBPD(t1, h, h)
		VSUBPD(f, h, h)
		VMULPD(g.cD(dLn2Hi), e, e)
		VSUBPD(h, e, e)
		// NaN and +Inf pass through.
		if g.avx512 {
			k := K()
			VCMPPD(Imm(1), g.cregD(dPosInf), d, k)
			VMOVAPD(e, k, d)
		} else {
			c := g.vec()
			VCMPPD(Imm(1), g.cregD(dPosInf), d, c)
			VBLENDVPD(c, e, d, d)
		}
		g.storeD(d, pdst, 0)
	}, nil)
	g.ret()
}
