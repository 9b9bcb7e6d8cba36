package main

// The row kernel of the fused cross-entropy (internal/cpu/crossentropy.go):
// one pass that computes a chunk's exps against a running offset, their
// sum, the chunk's max (so that no separate max pass reads the row), and
// writes the previous row's gradient chunk with non-temporal stores.

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The exp of xentExp: n = round(t·log2e) by adding 1.5·2^23 inside one
// FMA (the sum rounds to an integer), r = t − n·ln2 in two steps as exp.go,
// and e^r by a degree-6 Horner polynomial with c0 = c1 = 1 (a Lawson
// minimax fit of the relative error on [−ln2/2, ln2/2]: 3.8e-9 with these
// float32 coefficients). Six FMAs where exp.go's Cephes form takes seven
// FMA-pipe ops and an add, and no VRNDSCALEPS; vec's xentExpGeneric is its
// twin. The twin and this table must agree.
const (
	xMagic = 12582912 // 1.5·2^23
	xC2    = 4.9999993452e-01
	xC3    = 1.6666520688e-01
	xC4    = 4.1668387390e-02
	xC5    = 8.3687100450e-03
	xC6    = 1.3814612330e-03
)

// Indexes into xentconsts (8 replicated dwords each, as vecconsts).
const (
	xcMagic = iota
	xcC2
	xcC3
	xcC4
	xcC5
	xcC6
	numXConsts
)

var xentConsts Mem

// emitXent emits the cross-entropy kernels after the others, so that the
// output before them stays as it was.
func emitXent() {
	xentConsts = GLOBL("xentconsts", RODATA|NOPTR)
	for k, v := range [numXConsts]float64{xcMagic: xMagic, xcC2: xC2, xcC3: xC3, xcC4: xC4, xcC5: xC5, xcC6: xC6} {
		for j := 0; j < 8; j++ {
			DATA(32*k+4*j, U32(math.Float32bits(float32(v))))
		}
	}
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		g.xentExp()
	}
}

// xc returns xent constant k as an operand: a register when hoisted, a
// 32-byte memory operand on AVX2.
func (g *gen) xc(hoisted map[int]reg.VecVirtual, k int) Op {
	if r, ok := hoisted[k]; ok {
		return r
	}
	return xentConsts.Offset(32 * k)
}

// xfma emits op(c, a, b) with xent constant c (a broadcast memory operand
// on AVX-512 when not hoisted).
func (g *gen) xfma(hoisted map[int]reg.VecVirtual, op, bcst func(...Op), c int, a, b reg.VecVirtual) {
	if _, ok := hoisted[c]; ok || !g.avx512 {
		op(g.xc(hoisted, c), a, b)
		return
	}
	bcst(xentConsts.Offset(32*c), a, b)
}

// xentExp emits xentExp: dst[i] = exp(scale·x[i] − m) by the exp above
// (scale·x[i] − m rounded once),
// s = Σ dst[i], mx = the max of scale·x[i] − m over the elements that are
// not NaN (−∞ if none), next prefetched into L2, and, in full blocks while
// they lie inside out, out[i] = in[i]·k − c with non-temporal stores (out
// aligned to the vector width; done is how many leading elements of out
// were written). There is no upper clamp: an element above 88 gives an
// unspecified exp, which the caller sees in mx and recomputes.
func (g *gen) xentExp() {
	g.text("xentExp", "func(dst, x, next, out, in []float32, scale, m, k, c float32) (s, mx float32, done int)",
		"is the cross-entropy row pass: exps against m, their sum, their max exponent, next prefetched, out = in·k − c.")
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	pn, nn := ptr("next"), length("next")
	pout, pin, lim, done := ptr("out"), ptr("in"), length("out"), GP64()
	// Blocks at i ≤ len(out) − unroll·w are whole inside out.
	SUBQ(U32(unroll*g.w), lim)
	XORQ(done, done)
	scale, m, kv, cv := g.bcast("scale"), g.bcast("m"), g.bcast("k"), g.bcast("c")
	xh := map[int]reg.VecVirtual{}
	if g.avx512 {
		g.hoist(cExpLo, cLog2e, cLn2Hi, cLn2Lo, cOne)
		for _, k := range []int{xcMagic, xcC6} {
			r := g.vec()
			VBROADCASTSS(xentConsts.Offset(32*k), r)
			xh[k] = r
		}
	}
	g.unitScale(scale, func(one bool) {
		acc := g.accs(unroll, false)
		mx := g.vec()
		VBROADCASTSS(consts.Offset(32*cNegInf), mx)
		gs := expGroupAVX2
		if g.avx512 {
			gs = expGroupAVX512
		}
		g.loop(n, unroll, func(vs int) {
			g.groupsOf(vs, gs, func(ks []int) {
				ts := make([]reg.VecVirtual, len(ks))
				for j, k := range ks {
					ts[j] = g.xentMinus(px, k, scale, m, one)
					g.xentMax(mx, ts[j])
				}
				es := g.xentExpN(xh, ts)
				for j, k := range ks {
					g.store(es[j], pd, k)
					g.addLive(es[j], acc[k])
				}
			})
			g.prefetch(vs, pn, nn)
			if vs == unroll && !g.tail {
				skip := g.label("noflush")
				CMPQ(g.i, lim)
				JG(LabelRef(skip))
				for k := 0; k < unroll; k++ {
					v := g.vec()
					VMULPS(g.at(pin, k, 4), kv, v)
					VSUBPS(cv, v, v) // an add-pipe op: LogNorm's roundings, free beside the exps
					VMOVNTPS(v, g.at(pout, k, 4))
				}
				LEAQ(Mem{Base: g.i, Disp: unroll * g.w}, done)
				Label(skip)
			}
		}, nil)
		g.reduceSum(acc)
		mr := g.hreduce(mx, vmaxps)
		VMOVSS(mr.AsX(), addr(ReturnIndex(1)))
		Store(done, ReturnIndex(2))
		g.ret()
	})
}

// xentMinus returns scale·x − m for vector k of x at px, rounded once (one
// FMA, where scaledMinus multiplies and subtracts), or x − m for scale 1.
func (g *gen) xentMinus(px reg.GPVirtual, k int, scale, m reg.VecVirtual, one bool) reg.VecVirtual {
	x := g.load(px, k)
	if one {
		VSUBPS(m, x, x)
	} else {
		VFMSUB213PS(m, scale, x)
	}
	return x
}

// xentMax folds t into the running max mx, NaN lanes (and the tail's
// masked-off lanes) leaving it alone.
func (g *gen) xentMax(mx, t reg.VecVirtual) {
	switch {
	case !g.tail:
		maxKeepNaN(mx, t, mx)
	case g.avx512:
		VMAXPS(mx, t, g.k, mx) // merge-masked: off lanes keep mx
	default:
		v := g.vec()
		VBLENDVPS(g.ymask, t, g.creg(cNegInf), v)
		maxKeepNaN(mx, v, mx)
	}
}

// xentExpN computes the exps of ts (clobbered) step by step across them.
// −∞ and anything below −104 is clamped (exp 0); NaN passes through.
func (g *gen) xentExpN(xh map[int]reg.VecVirtual, ts []reg.VecVirtual) []reg.VecVirtual {
	each := stepwise(len(ts))
	each(func(k int) { maxKeepNaN(ts[k], g.creg(cExpLo), ts[k]) })
	// n = (t·log2e + 1.5·2^23) − 1.5·2^23: t·log2e rounded to an integer.
	n := make([]reg.VecVirtual, len(ts))
	each(func(k int) {
		n[k] = g.vec()
		if r, ok := xh[xcMagic]; ok {
			g.mov(r, n[k])
		} else {
			VMOVUPS(xentConsts.Offset(32*xcMagic), n[k])
		}
	})
	each(func(k int) { g.fma(VFMADD231PS, VFMADD231PS_BCST, cLog2e, ts[k], n[k]) })
	each(func(k int) { VSUBPS(g.xc(xh, xcMagic), n[k], n[k]) })
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Hi, n[k], ts[k]) })
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Lo, n[k], ts[k]) })
	// p = ((((((c6·r + c5)·r + c4)·r + c3)·r + c2)·r + 1)·r + 1.
	p := make([]reg.VecVirtual, len(ts))
	each(func(k int) {
		p[k] = g.vec()
		if r, ok := xh[xcC6]; ok {
			g.mov(r, p[k])
		} else {
			VMOVUPS(xentConsts.Offset(32*xcC6), p[k])
		}
	})
	for _, c := range []int{xcC5, xcC4, xcC3, xcC2} {
		each(func(k int) { g.xfma(xh, VFMADD213PS, VFMADD213PS_BCST, c, ts[k], p[k]) })
	}
	for range 2 {
		each(func(k int) { g.fma(VFMADD213PS, VFMADD213PS_BCST, cOne, ts[k], p[k]) })
	}
	return g.ldexpN(p, n, each)
}
