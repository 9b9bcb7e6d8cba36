package main

// The float64 kernels (f64.go has their helpers and exp), in the order of
// the float32 ones: the row passes, the gradients, the lanes forms.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

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

// scaledMinusLanesD loads scale·x[k] − m[k] for each vector k of ks.
func (g *gen) scaledMinusLanesD(ks []int, px, pm reg.GPVirtual, scale reg.VecVirtual) []reg.VecVirtual {
	xs := make([]reg.VecVirtual, len(ks))
	for j, k := range ks {
		xs[j] = g.vec()
		VMULPD(g.srcD(px, k), scale, xs[j])
		VSUBPD(g.srcD(pm, k), xs[j], xs[j])
	}
	return xs
}

func (g *gen) expSumLanes64() {
	g.text("expSumLanes64", "func(dst, d, x, m []float64, scale float64)",
		"writes dst[i] = exp(scale·x[i] − m[i]) and adds it to d[i].")
	pdst, n, pd, px, pm := ptr("dst"), length("dst"), ptr("d"), ptr("x"), ptr("m")
	scale := g.bcastD("scale")
	g.hoistExpD()
	g.loop(n, unroll, func(vs int) {
		g.groupsD(vs, func(ks []int) {
			es := g.expD(g.scaledMinusLanesD(ks, px, pm, scale))
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
			es := g.expD(g.scaledMinusLanesD(ks, px, pm, scale))
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
