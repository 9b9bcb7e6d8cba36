package main

// The float32 kernels of the two-pass schedule, the gradients, the online
// update and their lanes (non-last axis) forms.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// maxSumHoist are the constants MaxSum keeps in zmm registers; the other
// exp constants are broadcast from memory, leaving registers for 8-vector
// blocks.
var maxSumHoist = []int{cExpLo, cLog2e, cP0, cOne, cNegMax}

func (g *gen) maxSum() {
	g.text("maxSum", "func(x []float32, scale float32) (m, d float32)",
		"returns the online (max, sum) pair of scale·x.")
	px, n := ptr("x"), length("x")
	scale := g.bcast("scale")
	if g.avx512 {
		g.hoist(maxSumHoist...)
	} else {
		g.hoist(cExpLo)
	}
	M, D := g.vec(), g.vec()
	VBROADCASTSS(consts.Offset(32*cNegInf), M)
	VXORPS(D, D, D)
	u := maxSumUnrollAVX2
	if g.avx512 {
		u = maxSumUnrollAVX512
	}
	g.loop(n, u, func(vs int) {
		// Load the block and take its running max, ignoring NaN.
		v := make([]reg.VecVirtual, vs)
		for k := range v {
			v[k] = g.vec()
			switch {
			case !g.tail:
				VMULPS(g.at(px, k, 4), scale, v[k])
			case g.avx512:
				// Masked-off lanes are −∞, which leaves (m, d) alone.
				x := g.vec()
				VMOVUPS_Z(g.at(px, k, 4), g.k, x)
				g.mov(g.creg(cNegInf), v[k])
				VMULPS(x, scale, g.k, v[k])
			default:
				VMASKMOVPS(g.at(px, k, 4), g.ymask, v[k])
				VMULPS(v[k], scale, v[k])
				VBLENDVPS(g.ymask, v[k], g.creg(cNegInf), v[k])
			}
		}
		// Block max by a tree (a NaN may win there), then the running
		// max, which keeps its old value where the block max is NaN.
		t := append([]reg.VecVirtual(nil), v...)
		for len(t) > 1 {
			var next []reg.VecVirtual
			for j := 0; j+1 < len(t); j += 2 {
				r := g.vec()
				VMAXPS(t[j], t[j+1], r)
				next = append(next, r)
			}
			if len(t)%2 == 1 {
				next = append(next, t[len(t)-1])
			}
			t = next
		}
		mn := g.vec()
		maxKeepNaN(M, t[0], mn)
		ms := g.safe(mn)
		// Rescale the sums by exp(M − new max) once per block, without a
		// branch: a mispredicted one also throws away the loads in flight.
		// Then one exp per element, a few at a time.
		args := []reg.VecVirtual{g.vec()}
		VSUBPS(ms, M, args[0])
		g.mov(mn, M)
		for k := range v {
			VSUBPS(ms, v[k], v[k])
			args = append(args, v[k])
		}
		gs := maxSumGroupAVX2
		if g.avx512 {
			gs = maxSumGroupAVX512
		}
		var sum reg.VecVirtual
		for k := 0; k < len(args); k += gs {
			es := g.expN(args[k:min(k+gs, len(args))], false)
			if k == 0 {
				VMULPS(es[0], D, D)
				es = es[1:]
			}
			for len(es) > 1 {
				var next []reg.VecVirtual
				for j := 0; j+1 < len(es); j += 2 {
					VADDPS(es[j+1], es[j], es[j])
					next = append(next, es[j])
				}
				if len(es)%2 == 1 {
					next = append(next, es[len(es)-1])
				}
				es = next
			}
			if len(es) == 0 {
				continue
			}
			if sum == nil {
				sum = es[0]
			} else {
				VADDPS(es[0], sum, sum)
			}
		}
		VADDPS(sum, D, D)
	}, nil)
	// Merge the lanes.
	mall := g.vec()
	g.mov(M, mall)
	mall = g.hreduce(mall, vmaxps)
	ms := g.safe(mall)
	VSUBPS(ms, M, M)
	f := g.exp(M)
	VMULPS(f, D, D)
	D = g.hreduce(D, vaddps)
	VMOVSS(mall.AsX(), addr(Return("m")))
	VMOVSS(D.AsX(), addr(Return("d")))
	g.ret()
}

func (g *gen) expScale() {
	g.text("expScale", "func(dst, x []float32, scale, m, mul float32)",
		"writes dst[i] = exp(scale·x[i] − m)·mul.")
	g.expScaleBody()
}

// expScaleBody is expScale's and expScaleNT's loop (g.nt picks the stores).
func (g *gen) expScaleBody() {
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	scale, m, mul := g.bcast("scale"), g.bcast("m"), g.bcast("mul")
	g.hoistExp()
	g.unitScale(scale, func(one bool) {
		g.loop(n, unroll, func(vs int) {
			g.groups(vs, func(ks []int) {
				xs := make([]reg.VecVirtual, len(ks))
				for j, k := range ks {
					xs[j] = g.scaledMinus(px, k, scale, m, one)
				}
				es := g.expN(xs, true)
				for j, k := range ks {
					VMULPS(mul, es[j], es[j])
					g.store(es[j], pd, k)
				}
			})
		}, nil)
		g.ret()
	})
}

// groups calls f with the vector indexes 0…vs−1 in groups of
// expGroupAVX2/expGroupAVX512, whose exps are interleaved.
func (g *gen) groups(vs int, f func(ks []int)) {
	gs := expGroupAVX2
	if g.avx512 {
		gs = expGroupAVX512
	}
	g.groupsOf(vs, gs, f)
}

// groupsOf is groups with groups of gs.
func (g *gen) groupsOf(vs, gs int, f func(ks []int)) {
	for k := 0; k < vs; k += gs {
		var ks []int
		for j := k; j < k+gs && j < vs; j++ {
			ks = append(ks, j)
		}
		f(ks)
	}
}

// hoistExp keeps the exp's constants in registers (hoistExpOf).
func (g *gen) hoistExp() { g.hoistExpOf(expConsts) }

// hoistExpOf keeps an exp's constants cs in registers: all of them on
// AVX-512, the clamp bounds on AVX2.
func (g *gen) hoistExpOf(cs []int) {
	if g.avx512 {
		g.hoist(cs...)
	} else {
		g.hoist(cExpLo, cExpHi)
	}
}

// unitScale emits body twice, each ending the kernel: first for a scale
// of exactly 1 (torch's default, taken by far the most), without the
// multiply by it, then for any other scale. x·1 is x bit for bit (NaN
// included), so both give the same results; the multiply is an FMA-pipe
// op that costs 20% of expSum's time on Zen 4 (0.25 → 0.20 ns/element in
// L1, bench/results/cpu-dev-2026-11-29-xent.txt).
func (g *gen) unitScale(scale reg.VecVirtual, body func(one bool)) {
	general := g.label("scaled")
	VUCOMISS(consts.Offset(32*cOne), scale.AsX())
	JNE(LabelRef(general))
	JP(LabelRef(general))
	body(true)
	Label(general)
	body(false)
}

// scaledMinus returns scale·x − m for vector k of x at px, or x − m in a
// unitScale body for scale 1 (one).
func (g *gen) scaledMinus(px reg.GPVirtual, k int, scale, m reg.VecVirtual, one bool) reg.VecVirtual {
	if one {
		x := g.load(px, k)
		VSUBPS(m, x, x)
		return x
	}
	x := g.vec()
	VMULPS(g.src(px, k), scale, x)
	VSUBPS(m, x, x)
	return x
}

func (g *gen) logOut() {
	g.text("logOut", "func(dst, x []float32, scale, sub float32)",
		"writes dst[i] = scale·x[i] − sub.")
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	scale, sub := g.bcast("scale"), g.bcast("sub")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			x := g.vec()
			VMULPS(g.src(px, k), scale, x)
			VSUBPS(sub, x, x)
			g.store(x, pd, k)
		}
	}, nil)
	g.ret()
}

// reduceSum adds the accumulators pairwise and then across lanes and
// stores the sum to the result.
func (g *gen) reduceSum(acc []reg.VecVirtual) {
	s := g.hreduce(foldPairs(acc, vaddps), vaddps)
	VMOVSS(s.AsX(), addr(ReturnIndex(0)))
}

// reduceMax takes the max of the accumulators pairwise and then across
// lanes and stores it to the result.
func (g *gen) reduceMax(acc []reg.VecVirtual) {
	m := g.hreduce(foldPairs(acc, vmaxps), vmaxps)
	VMOVSS(m.AsX(), addr(ReturnIndex(0)))
}

// accs returns count float32 accumulators: zeros for a sum or, with
// negInf, −∞ for a max.
func (g *gen) accs(count int, negInf bool) []reg.VecVirtual {
	acc := make([]reg.VecVirtual, count)
	for k := range acc {
		acc[k] = g.vec()
		if negInf {
			VBROADCASTSS(consts.Offset(32*cNegInf), acc[k])
		} else {
			VXORPS(acc[k], acc[k], acc[k])
		}
	}
	return acc
}

func (g *gen) dot() {
	g.text("dot", "func(a, b []float32) float32", "returns Σ a[i]·b[i].")
	pa, n, pb := ptr("a"), length("a"), ptr("b")
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			a := g.load(pa, k)
			VFMADD231PS(g.src(pb, k), a, acc[k])
		}
	}, nil)
	g.reduceSum(acc)
	g.ret()
}

func (g *gen) sum() {
	g.text("sum", "func(a []float32) float32", "returns Σ a[i].")
	pa, n := ptr("a"), length("a")
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			VADDPS(g.src(pa, k), acc[k], acc[k])
		}
	}, nil)
	g.reduceSum(acc)
	g.ret()
}

// gradArgs starts softmaxGrad's or logSoftmaxGrad's kernel, name with doc
// or, with nt, name+"NT" with docNT: that variant multiplies by a scale
// parameter and stores non-temporally. It loads the parameters; scale is
// nil without nt.
func (g *gen) gradArgs(name, doc, docNT string, nt bool) (pdx, n, py, pdy reg.GPVirtual, s, scale reg.VecVirtual) {
	if nt {
		g.text(name+"NT", "func(dx, y, dy []float32, s, scale float32)", docNT)
		g.nt = true
	} else {
		g.text(name, "func(dx, y, dy []float32, s float32)", doc)
	}
	pdx, n, py, pdy = ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s = g.bcast("s")
	if nt {
		scale = g.bcast("scale")
	}
	return pdx, n, py, pdy, s, scale
}

// storeGrad stores t as vector k of pdx, multiplied by scale unless nil.
func (g *gen) storeGrad(t, scale reg.VecVirtual, pdx reg.GPVirtual, k int) {
	if scale != nil {
		VMULPS(scale, t, t)
	}
	g.store(t, pdx, k)
}

// softmaxGrad emits softmaxGrad or, with nt, softmaxGradNT: the same
// roundings then a multiplication by scale, stored non-temporally.
func (g *gen) softmaxGrad(nt bool) {
	pdx, n, py, pdy, s, scale := g.gradArgs("softmaxGrad", "writes dx[i] = y[i]·(dy[i] − s).",
		"writes dx[i] = (y[i]·(dy[i] − s))·scale with non-temporal stores; dx must be aligned to the vector width.", nt)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.load(pdy, k)
			VSUBPS(s, t, t)
			VMULPS(g.src(py, k), t, t)
			g.storeGrad(t, scale, pdx, k)
		}
	}, nil)
	g.ret()
}

// logSoftmaxGrad emits logSoftmaxGrad or, with nt, logSoftmaxGradNT (see
// softmaxGrad).
func (g *gen) logSoftmaxGrad(nt bool) {
	pdx, n, py, pdy, s, scale := g.gradArgs("logSoftmaxGrad", "writes dx[i] = dy[i] − exp(y[i])·s.",
		"writes dx[i] = (dy[i] − exp(y[i])·s)·scale with non-temporal stores; dx must be aligned to the vector width.", nt)
	g.hoistExp()
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			ys := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				ys[j] = g.load(py, k)
			}
			es := g.expN(ys, true)
			for j, k := range ks {
				VMULPS(s, es[j], es[j])
				t := g.load(pdy, k)
				VSUBPS(es[j], t, t)
				g.storeGrad(t, scale, pdx, k)
			}
		})
	}, nil)
	g.ret()
}

func (g *gen) onlineUpdate() {
	g.text("onlineUpdate", "func(m, d, x []float32, scale float32)",
		"merges (scale·x[i], 1) into the lane pairs (m[i], d[i]).")
	pm, n, pd, px := ptr("m"), length("m"), ptr("d"), ptr("x")
	scale := g.bcast("scale")
	if g.avx512 {
		g.hoist(cExpLo, cLog2e, cLn2Hi, cLn2Lo, cP0, cP1, cP2, cP3, cP4, cP5, cOne, cNegMax)
	} else {
		g.hoist(cExpLo)
	}
	g.loop(n, unroll, func(vs int) {
		// With mn = max(v, mo) one of exp(mo − mn), exp(v − mn) is
		// exp(0) = 1, so only the other one is computed:
		//   v > mo: d = d·exp(mo − v) + exp(v − v)
		//   else:   d = d + exp(v − mo)
		// with the −∞-safe offset; exp(v − v) is 1, or NaN for v = +∞.
		gs := 1
		if g.avx512 {
			gs = 3
		}
		g.groupsOf(vs, gs, func(ks []int) {
			args := make([]reg.VecVirtual, len(ks))
			ones := make([]reg.VecVirtual, len(ks))
			gts := make([]reg.Register, len(ks))
			for j, k := range ks {
				v := g.vec()
				VMULPS(g.src(px, k), scale, v)
				mo := g.load(pm, k)
				mn, oth := g.vec(), g.vec()
				maxKeepNaN(mo, v, mn)
				minKeepNaN(v, mo, oth)
				g.store(mn, pm, k)
				VSUBPS(g.safe(mn), oth, oth)
				args[j] = oth
				if g.avx512 {
					gt := K()
					VCMPPS(Imm(1), v, mo, gt)
					gts[j] = gt
				} else {
					gt := YMM()
					VCMPPS(Imm(1), v, mo, gt)
					gts[j] = gt
				}
				ones[j] = g.vec()
				VSUBPS(v, v, ones[j])
				VADDPS(g.c(cOne), ones[j], ones[j])
			}
			es := g.expN(args, false)
			for j, k := range ks {
				e, do := es[j], g.load(pd, k)
				if g.avx512 {
					VMULPS(e, do, gts[j], do)
					VMOVAPS(ones[j], gts[j], e)
				} else {
					t := YMM()
					VMULPS(e, do, t)
					VBLENDVPS(gts[j], t, do, do)
					VBLENDVPS(gts[j], ones[j], e, e)
				}
				VADDPS(e, do, do)
				g.store(do, pd, k)
			}
		})
	}, nil)
	g.ret()
}

// expScaleLanes emits expScaleLanes or, with nt, expScaleLanesNT.
func (g *gen) expScaleLanes(nt bool) {
	name, doc := "expScaleLanes", "writes dst[i] = exp(scale·x[i] − m[i])·mul[i]."
	sig := "func(dst, x, m, mul []float32, scale float32)"
	if nt {
		name, doc = "expScaleLanesNT", "is expScaleLanes with non-temporal stores that also prefetches next; dst must be aligned to the vector width."
		sig = "func(dst, x, m, mul, next []float32, scale float32)"
	}
	g.text(name, sig, doc)
	g.nt = nt
	pd, n, px, pm, pmul := ptr("dst"), length("dst"), ptr("x"), ptr("m"), ptr("mul")
	var pn, nn reg.GPVirtual
	if nt {
		pn, nn = ptr("next"), length("next")
	}
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
				VMULPS(g.src(pmul, k), es[j], es[j])
				g.store(es[j], pd, k)
			}
		})
		if nt {
			g.prefetch(vs, pn, nn)
		}
	}, nil)
	g.ret()
}

func (g *gen) logOutLanes() {
	g.text("logOutLanes", "func(dst, x, sub []float32, scale float32)",
		"writes dst[i] = scale·x[i] − sub[i].")
	pd, n, px, ps := ptr("dst"), length("dst"), ptr("x"), ptr("sub")
	scale := g.bcast("scale")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			x := g.vec()
			VMULPS(g.src(px, k), scale, x)
			VSUBPS(g.src(ps, k), x, x)
			g.store(x, pd, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) mulAdd() {
	g.text("mulAdd", "func(acc, a, b []float32)", "accumulates acc[i] += a[i]·b[i].")
	pacc, n, pa, pb := ptr("acc"), length("acc"), ptr("a"), ptr("b")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.load(pa, k)
			VMULPS(g.src(pb, k), t, t)
			VADDPS(g.src(pacc, k), t, t)
			g.store(t, pacc, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) add() {
	g.text("add", "func(acc, a []float32)", "accumulates acc[i] += a[i].")
	pacc, n, pa := ptr("acc"), length("acc"), ptr("a")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.load(pacc, k)
			VADDPS(g.src(pa, k), t, t)
			g.store(t, pacc, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) softmaxGradLanes() {
	g.text("softmaxGradLanes", "func(dx, y, dy, s []float32)",
		"writes dx[i] = y[i]·(dy[i] − s[i]).")
	pdx, n, py, pdy, ps := ptr("dx"), length("dx"), ptr("y"), ptr("dy"), ptr("s")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.load(pdy, k)
			VSUBPS(g.src(ps, k), t, t)
			VMULPS(g.src(py, k), t, t)
			g.store(t, pdx, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) logSoftmaxGradLanes() {
	g.text("logSoftmaxGradLanes", "func(dx, y, dy, s []float32)",
		"writes dx[i] = dy[i] − exp(y[i])·s[i].")
	pdx, n, py, pdy, ps := ptr("dx"), length("dx"), ptr("y"), ptr("dy"), ptr("s")
	g.hoistExp()
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			ys := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				ys[j] = g.load(py, k)
			}
			es := g.expN(ys, true)
			for j, k := range ks {
				VMULPS(g.src(ps, k), es[j], es[j])
				t := g.load(pdy, k)
				VSUBPS(es[j], t, t)
				g.store(t, pdx, k)
			}
		})
	}, nil)
	g.ret()
}

// scalarLoop emits a loop over rem elements from index g.i (AVX2 tails of
// the 16-bit conversions); body converts element g.i.
func (g *gen) scalarLoop(rem reg.GPVirtual, body func()) {
	top := g.label("scalar")
	Label(top)
	body()
	INCQ(g.i)
	DECQ(rem)
	JNZ(LabelRef(top))
}
