package main

// The float32 kernels of the one-exp forward schedule, their lanes forms,
// the log passes and softcap.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The kernels of the one-exp forward schedule: a max pass, a pass that
// stores the exps and sums them, and a normalizing pass (non-temporal in
// the "NT" variants, which need dst aligned to the vector width and are
// called through wrappers that guarantee it).

func (g *gen) maxOf() {
	g.text("maxOf", "func(x []float32, scale float32) float32",
		"returns the max of scale·x[i] over the elements that are not NaN (−∞ if none).")
	px, n := ptr("x"), length("x")
	scale := g.bcast("scale")
	acc := g.accs(unroll, true)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			switch {
			case !g.tail:
				VMULPS(g.at(px, k, 4), scale, v)
			case g.avx512:
				// Masked-off lanes are −∞.
				x := g.vec()
				VMOVUPS_Z(g.at(px, k, 4), g.k, x)
				VBROADCASTSS(consts.Offset(32*cNegInf), v)
				VMULPS(x, scale, g.k, v)
			default:
				VMASKMOVPS(g.at(px, k, 4), g.ymask, v)
				VMULPS(v, scale, v)
				VBLENDVPS(g.ymask, v, g.creg(cNegInf), v)
			}
			// A NaN v leaves the accumulator alone; accumulators are never
			// NaN, so the reduction below needs no care.
			maxKeepNaN(acc[k], v, acc[k])
		}
	}, nil)
	g.reduceMax(acc)
	g.ret()
}

// expSum emits expSum or, with flush, expSumFlush, which also writes
// out[i] = in[i]·k with non-temporal stores in its full blocks (out aligned
// to the vector width), so that a core's writes to memory spread over its
// exps instead of stalling it in a burst; done is how many leading
// elements of out it wrote.
func (g *gen) expSum(flush bool) {
	if flush {
		g.text("expSumFlush", "func(dst, x, next, out, in []float32, scale, m, k float32) (s float32, done int)",
			"is expSum that also writes out[i] = in[i]·k (non-temporal) for i < done.")
	} else {
		g.text("expSum", "func(dst, x, next []float32, scale, m float32) float32",
			"writes dst[i] = exp(scale·x[i] − m), returns Σ dst[i] and prefetches next.")
	}
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	pn, nn := ptr("next"), length("next")
	scale, m := g.bcast("scale"), g.bcast("m")
	var pout, pin, lim, done reg.GPVirtual
	var kv reg.VecVirtual
	if flush {
		pout, pin, lim, done = ptr("out"), ptr("in"), length("out"), GP64()
		// Blocks at i ≤ len(out) − unroll·w are whole inside out.
		SUBQ(U32(unroll*g.w), lim)
		XORQ(done, done)
		kv = g.bcast("k")
	}
	switch {
	case g.avx512:
		// Registers are short for all exp constants, four accumulators and
		// a group of four exps: the polynomial's middle terms come from
		// memory.
		g.hoist(cExpLo, cExpHi, cLog2e, cLn2Hi, cLn2Lo, cP0, cOne)
	case !flush:
		// With flush's k, the clamp bounds too would need more than the
		// 16 VEX registers: they are loaded where used.
		g.hoistExp()
	}
	g.unitScale(scale, func(one bool) { g.expSumBody(flush, one, pd, n, px, pn, nn, pout, pin, lim, done, scale, m, kv) })
}

// expSumBody is expSum's loop, for scale 1 (one) or any scale.
func (g *gen) expSumBody(flush, one bool, pd, n, px, pn, nn, pout, pin, lim, done reg.GPVirtual, scale, m, kv reg.VecVirtual) {
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.scaledMinus(px, k, scale, m, one)
			}
			es := g.expN(xs, true)
			for j, k := range ks {
				g.store(es[j], pd, k)
				g.addLive(es[j], acc[k])
			}
		})
		g.prefetch(vs, pn, nn)
		if flush && vs == unroll && !g.tail {
			skip := g.label("noflush")
			CMPQ(g.i, lim)
			JG(LabelRef(skip))
			for k := 0; k < unroll; k++ {
				v := g.vec()
				VMULPS(g.at(pin, k, 4), kv, v)
				VMOVNTPS(v, g.at(pout, k, 4))
			}
			LEAQ(Mem{Base: g.i, Disp: unroll * g.w}, done)
			Label(skip)
		}
	}, nil)
	g.reduceSum(acc)
	if flush {
		Store(done, ReturnIndex(1))
	}
	g.ret()
}

// prefetch emits, in a full unrolled block, prefetches into L2 of the
// block's lines at the same index of next (an array of nn elements), for a
// kernel that keeps the core busy with exps while memory fetches the data
// of its next call.
func (g *gen) prefetch(vs int, pn, nn reg.GPVirtual) {
	if vs != unroll || g.tail {
		return
	}
	skip := g.label("noprefetch")
	CMPQ(g.i, nn)
	JAE(LabelRef(skip))
	for b := 0; b < unroll*g.w*4; b += 64 {
		PREFETCHT1(Mem{Base: pn, Index: g.i, Scale: 4, Disp: b})
	}
	Label(skip)
}

// normalize emits normalize (dst[i] = x[i]·k) or, with nt, normalizeNT.
func (g *gen) normalize(nt bool) {
	name, doc := "normalize", "writes dst[i] = x[i]·k."
	if nt {
		name, doc = "normalizeNT", "is normalize with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x []float32, k float32)", doc)
	g.nt = nt
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	kv := g.bcast("k")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPS(g.src(px, k), kv, v)
			g.store(v, pd, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) expScaleNT() {
	g.text("expScaleNT", "func(dst, x []float32, scale, m, mul float32)",
		"is expScale with non-temporal stores; dst must be aligned to the vector width.")
	g.nt = true
	g.expScaleBody()
}

func (g *gen) fence() {
	g.text("fence", "func()", "orders the non-temporal stores before later stores (SFENCE).")
	SFENCE()
	g.ret()
}

// The lanes kernels of the one-exp schedule for a non-last axis.

func (g *gen) maxLanes() {
	g.text("maxLanes", "func(m, x []float32, scale float32)",
		"sets m[i] = max(m[i], scale·x[i]), leaving m[i] alone where scale·x[i] is NaN.")
	pm, n, px := ptr("m"), length("m"), ptr("x")
	scale := g.bcast("scale")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPS(g.src(px, k), scale, v)
			mo := g.load(pm, k)
			maxKeepNaN(mo, v, mo)
			g.store(mo, pm, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) expSumLanes() {
	g.text("expSumLanes", "func(dst, d, x, m, next []float32, scale float32)",
		"writes dst[i] = exp(scale·x[i] − m[i]), adds it to d[i] and prefetches next.")
	pdst, n, pd, px, pm := ptr("dst"), length("dst"), ptr("d"), ptr("x"), ptr("m")
	pn, nn := ptr("next"), length("next")
	scale := g.bcast("scale")
	g.hoistExp()
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.vec()
				VMULPS(g.src(px, k), scale, xs[j])
				VSUBPS(g.src(pm, k), xs[j], xs[j])
			}
			es := g.expN(xs, true)
			for j, k := range ks {
				g.store(es[j], pdst, k)
				VADDPS(g.src(pd, k), es[j], es[j])
				g.store(es[j], pd, k)
			}
		})
		g.prefetch(vs, pn, nn)
	}, nil)
	g.ret()
}

// normalizeLanes emits normalizeLanes (dst[i] = x[i]·k[i]) or, with nt,
// normalizeLanesNT.
func (g *gen) normalizeLanes(nt bool) {
	name, doc := "normalizeLanes", "writes dst[i] = x[i]·k[i]."
	if nt {
		name, doc = "normalizeLanesNT", "is normalizeLanes with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x, k []float32)", doc)
	g.nt = nt
	pd, n, px, pk := ptr("dst"), length("dst"), ptr("x"), ptr("k")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.load(px, k)
			VMULPS(g.src(pk, k), v, v)
			g.store(v, pd, k)
		}
	}, nil)
	g.ret()
}

// logNorm emits logNorm (dst[i] = (scale·x[i] − m) − logd, rounded in that
// order) or, with nt, logNormNT.
func (g *gen) logNorm(nt bool) {
	name, doc := "logNorm", "writes dst[i] = (scale·x[i] − m) − logd."
	if nt {
		name, doc = "logNormNT", "is logNorm with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x []float32, scale, m, logd float32)", doc)
	g.nt = nt
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	scale, m, logd := g.bcast("scale"), g.bcast("m"), g.bcast("logd")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPS(g.src(px, k), scale, v)
			VSUBPS(m, v, v)
			VSUBPS(logd, v, v)
			g.store(v, pd, k)
		}
	}, nil)
	g.ret()
}

// logNormLanes emits logNormLanes (dst[i] = (scale·x[i] − m[i]) − logd[i])
// or, with nt, logNormLanesNT.
func (g *gen) logNormLanes(nt bool) {
	name, doc := "logNormLanes", "writes dst[i] = (scale·x[i] − m[i]) − logd[i]."
	if nt {
		name, doc = "logNormLanesNT", "is logNormLanes with non-temporal stores; dst must be aligned to the vector width."
	}
	g.text(name, "func(dst, x, m, logd []float32, scale float32)", doc)
	g.nt = nt
	pd, n, px, pm, pl := ptr("dst"), length("dst"), ptr("x"), ptr("m"), ptr("logd")
	scale := g.bcast("scale")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VMULPS(g.src(px, k), scale, v)
			VSUBPS(g.src(pm, k), v, v)
			VSUBPS(g.src(pl, k), v, v)
			g.store(v, pd, k)
		}
	}, nil)
	g.ret()
}

// recipLanes emits recipLanes (dst[i] = 1/d[i], correctly rounded): the
// lanes' softmax factors on a short axis, where one scalar division a lane
// cost a division per few elements.
func (g *gen) recipLanes() {
	g.text("recipLanes", "func(dst, d []float32)", "writes dst[i] = 1/d[i].")
	pdst, n, pd := ptr("dst"), length("dst"), ptr("d")
	g.hoist(cOne)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			v := g.vec()
			VDIVPS(g.src(pd, k), g.c(cOne), v)
			g.store(v, pdst, k)
		}
	}, nil)
	g.ret()
}

// logLanes emits logLanes: dst[i] = log(d[i]) for the lanes' sums of a
// short axis (d ≥ 1, or NaN or +Inf, which pass through), where a scalar
// math.Log a lane cost one log per few elements. d = 2^e·(1+f) with 1+f in
// [√½, √2); with s = f/(2+f), z = s², R = z·(2/3 + z·(2/5 + z·(2/7 +
// z·2/9))) and hfsq = f²/2, log(1+f) = f − (hfsq − s·(hfsq + R)) (fdlibm's
// form: f is exact and the rest a small correction; within 1 ulp of the
// correctly rounded log on 4·10⁶ random sums, where 2s·(1 + z/3 + ...)
// reached 3), and e·ln2 split as exp splits it: e·ln2Hi is exact. Every
// step is one rounded float32 operation, so logLanesGeneric gives the same
// bits.
func (g *gen) logLanes() {
	g.text("logLanes", "func(dst, d []float32)", "writes dst[i] = log(d[i]) for d[i] ≥ 1 (NaN and +Inf pass through).")
	pdst, n, pd := ptr("dst"), length("dst"), ptr("d")
	vs := 1
	if g.avx512 {
		// 16 YMM registers leave AVX2 no room to keep these in registers
		g.hoist(cOne, cBias, cMant, cHalf, cSqrt2, cPosInf, cLg1, cLg2, cLg3, cLg4, cLn2Hi, cLn2Lo)
		vs = 2
	}
	and, or := func(a, b, c Op) { VPAND(a, b, c) }, func(a, b, c Op) { VPOR(a, b, c) }
	if g.avx512 {
		and, or = func(a, b, c Op) { VPANDD(a, b, c) }, func(a, b, c Op) { VPORD(a, b, c) }
	}
	g.loop(n, vs, func(vs int) {
		for k := 0; k < vs; k++ {
			d := g.load(pd, k)
			e, m := g.vec(), g.vec()
			VPSRLD(Imm(23), d, e)
			VPSUBD(g.c(cBias), e, e)
			VCVTDQ2PS(e, e)
			and(g.c(cMant), d, m)
			or(g.c(cOne), m, m)
			// m > √2: halve m, add one to e
			if g.avx512 {
				gt := K()
				VCMPPS(Imm(0x1e), g.c(cSqrt2), m, gt)
				VMULPS(g.c(cHalf), m, gt, m)
				VADDPS(g.c(cOne), e, gt, e)
			} else {
				gt, t := YMM(), YMM()
				VCMPPS(Imm(0x1e), g.c(cSqrt2), m, gt)
				VMULPS(g.c(cHalf), m, t)
				VBLENDVPS(gt, t, m, m)
				VADDPS(g.c(cOne), e, t)
				VBLENDVPS(gt, t, e, e)
			}
			f, s := g.vec(), g.vec()
			VSUBPS(g.c(cOne), m, f) // exact
			VADDPS(g.c(cOne), m, s) // 2 + f
			VDIVPS(s, f, s)
			z, r := g.vec(), g.vec()
			VMULPS(s, s, z)
			VMULPS(g.c(cLg4), z, r)
			VADDPS(g.c(cLg3), r, r)
			VMULPS(z, r, r)
			VADDPS(g.c(cLg2), r, r)
			VMULPS(z, r, r)
			VADDPS(g.c(cLg1), r, r)
			VMULPS(z, r, r)
			h := z // hfsq = (f/2)·f
			VMULPS(g.c(cHalf), f, h)
			VMULPS(f, h, h)
			VADDPS(h, r, r)
			VMULPS(s, r, r)
			VSUBPS(r, h, h)
			VSUBPS(h, f, f) // log(1+f)
			VMULPS(g.c(cLn2Lo), e, r)
			VADDPS(r, f, f)
			VMULPS(g.c(cLn2Hi), e, e)
			VADDPS(f, e, e)
			// NaN and +Inf (not below +Inf) keep d
			if g.avx512 {
				fin := K()
				VCMPPS(Imm(1), g.c(cPosInf), d, fin)
				VMOVAPS(e, fin, d)
			} else {
				fin := YMM()
				VCMPPS(Imm(1), g.c(cPosInf), d, fin)
				VBLENDVPS(fin, e, d, d)
			}
			g.store(d, pdst, k)
		}
	}, nil)
	g.ret()
}

// softcap emits softcap: y = tanh(x·inv) as Cephes' tanhf (the polynomial
// below |y| = 0.625, 1 − 2/(exp(2x/cap) + 1) above), dst = cap·y and
// dz = 1 − y², every step one rounded float32 operation in
// softcapGeneric's order (no FMA), so that the two give the same bits.
func (g *gen) softcap() {
	g.text("softcap", "func(dst, dz, x []float32, capv, inv, s2 float32)",
		"writes dst[i] = capv·y and dz[i] = 1 − y² for y = tanh(x[i]·inv) (Cephes' tanhf; s2 = 2·inv).")
	pd, n, pz, px := ptr("dst"), length("dst"), ptr("dz"), ptr("x")
	capv, inv, s2 := g.bcast("capv"), g.bcast("inv"), g.bcast("s2")
	g.hoistExp()
	if g.avx512 {
		g.hoist(cTh0, cTh1, cTh2, cTh3, cTh4, cTanhCut, cAbsMask)
	}
	g.loop(n, 2, func(vs int) {
		for k := 0; k < vs; k++ {
			x := g.load(px, k)
			y, t := g.vec(), g.vec()
			VMULPS(inv, x, y)
			VMULPS(s2, x, t)
			// Above the cut: 1 − 2·(1/(e+1)), e = exp(2x/cap).
			big := g.expN([]reg.VecVirtual{t}, true)[0]
			VADDPS(g.c(cOne), big, big)
			VDIVPS(big, g.creg(cOne), big)
			VADDPS(big, big, big) // exact
			VSUBPS(big, g.creg(cOne), big)
			// Below: y + ((((c0·z + c1)·z − c2)·z + c3)·z − c4)·z·y, z = y².
			z, p := g.vec(), g.vec()
			VMULPS(y, y, z)
			VMULPS(g.c(cTh0), z, p)
			VADDPS(g.c(cTh1), p, p)
			VMULPS(z, p, p)
			VSUBPS(g.c(cTh2), p, p)
			VMULPS(z, p, p)
			VADDPS(g.c(cTh3), p, p)
			VMULPS(z, p, p)
			VSUBPS(g.c(cTh4), p, p)
			VMULPS(z, p, p)
			VMULPS(y, p, p)
			VADDPS(y, p, p)
			// |y| < 0.625 (false for NaN) takes the polynomial.
			a := g.vec()
			if g.avx512 {
				VPANDD(g.c(cAbsMask), y, a)
				lt := K()
				VCMPPS(Imm(1), g.c(cTanhCut), a, lt)
				VMOVAPS(p, lt, big)
			} else {
				VPAND(g.c(cAbsMask), y, a)
				lt := YMM()
				VCMPPS(Imm(1), g.c(cTanhCut), a, lt)
				VBLENDVPS(lt, p, big, big)
			}
			VMULPS(big, capv, y)
			g.store(y, pd, k)
			VMULPS(big, big, z)
			VSUBPS(z, g.creg(cOne), z)
			g.store(z, pz, k)
		}
	}, nil)
	g.ret()
}

// addLive adds e's live lanes into acc: every lane but in a tail, where the
// masked-off lanes hold exp(−m), not 0 (AVX-512 masks the add, AVX2 zeroes
// them first, overwriting e).
func (g *gen) addLive(e, acc reg.VecVirtual) {
	switch {
	case !g.tail:
		VADDPS(e, acc, acc)
	case g.avx512:
		VADDPS(e, acc, g.k, acc)
	default:
		VANDPS(g.ymask, e, e)
		VADDPS(e, acc, acc)
	}
}
