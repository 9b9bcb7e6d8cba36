package main

import "fmt"

// Register use: R0… slice pointers, R9 the element count, R10 scratch, R12
// and R13 the prefetch pointer and count; V0…V15 loop-body work registers
// (accumulators at the top), V16…V31 constants and broadcast parameters.

// all emits every kernel of the neon set. The Stream variants, the fence
// and ExpSumFlush are Go wrappers (dispatch_arm64.go).
func (g *gen) all() {
	g.maxSum()
	g.expScale()
	g.logOut()
	g.reduce("dot", "a, b []float32", "returns Σ a[i]·b[i].")
	g.reduce("sum", "a []float32", "returns Σ a[i].")
	g.softmaxGrad(false)
	g.softmaxGrad(true)
	g.logSoftmaxGrad(false)
	g.logSoftmaxGrad(true)
	g.onlineUpdate()
	g.expScaleLanes()
	g.logOutLanes()
	g.accumulate("mulAdd", "acc, a, b []float32", "accumulates acc[i] += a[i]·b[i].")
	g.accumulate("add", "acc, a []float32", "accumulates acc[i] += a[i].")
	g.f16ToF32()
	g.f32ToF16()
	g.bf16ToF32()
	g.f32ToBF16()
	g.maxOf()
	g.expSum()
	g.normalize(false)
	g.normalize(true)
	g.maxLanes()
	g.expSumLanes()
	g.logNorm()
	g.logNormLanes()
	g.recipLanes()
	g.logLanes()
}

// ---- the online (max, sum) kernels --------------------------------------

// expNoHi are the constants of an exp whose argument is ≤ 0 or NaN.
var expNoHi = append([]konst{cLo, cLog2e, cLn2Hi, cLn2Lo}, append(cP, cOne, cBias2)...)

func (g *gen) maxSum() {
	g.text("maxSum", "x []float32, scale float32", "m, d float32",
		"returns the online (max, sum) pair of scale·x.")
	g.ptr("x", "R0")
	g.length("x", "R9")
	g.useConsts(expNoHi...)
	g.useConsts(cNegInf, cNegMax)
	scale := g.bcast("scale")
	acc := g.reserve(2)
	M, D := acc[0], acc[1]
	g.mov(M, g.c(cNegInf))
	g.zero(D)
	g.loop(func(b *blk) {
		v := b.load("R0")
		for k := range v {
			g.fmul(v[k], v[k], scale)
		}
		if b.mode == modeElem {
			// Lanes 1…3 are −∞, which leaves (M, D) alone.
			t := g.reg()
			g.mov(t, g.c(cNegInf))
			g.p("VMOV V%d.S[0], V%d.S[0]", v[0], t)
			g.release(v[0])
			v[0] = t
		}
		// Block max (a NaN may win), then the running max, which keeps
		// its old value where the block max is NaN (FMAXNM).
		mx := g.reg()
		if len(v) == 4 {
			t := g.reg()
			g.fmax(mx, v[0], v[1])
			g.fmax(t, v[2], v[3])
			g.fmax(mx, mx, t)
			g.release(t)
		} else {
			g.mov(mx, v[0])
		}
		g.fmaxnm(mx, M, mx)
		ms := g.reg()
		g.fmax(ms, mx, g.c(cNegMax)) // −∞-safe offset
		// Rescale D by exp(M − new max) once per block, without a branch,
		// and add one exp per element.
		a0 := g.reg()
		g.fsub(a0, M, ms)
		g.mov(M, mx)
		g.release(mx)
		for k := range v {
			g.fsub(v[k], v[k], ms)
		}
		g.release(ms)
		args := append([]V{a0}, v...)
		for k := 0; k < len(args); k += expGroup {
			g.exp(args[k:min(k+expGroup, len(args))], false)
		}
		g.fmul(D, D, a0)
		for len(v) > 1 {
			var next []V
			for j := 0; j+1 < len(v); j += 2 {
				g.fadd(v[j], v[j], v[j+1])
				next = append(next, v[j])
			}
			v = next
		}
		g.fadd(D, D, v[0])
	})
	// Merge the lanes.
	g.resetRegs()
	mall, ms := g.reg(), g.reg()
	g.fmaxnmv(mall, M)
	g.dup0(mall)
	g.fmax(ms, mall, g.c(cNegMax))
	g.fsub(M, M, ms)
	g.exp([]V{M}, false)
	g.fmul(D, D, M)
	g.faddp(D, D, D)
	g.faddp(D, D, D)
	g.p("FMOVS %s, m+%d(FP)", mall.F(), g.args["m"])
	g.p("FMOVS %s, d+%d(FP)", D.F(), g.args["d"])
	g.ret()
}

func (g *gen) onlineUpdate() {
	g.text("onlineUpdate", "m, d, x []float32, scale float32", "",
		"merges (scale·x[i], 1) into the lane pairs (m[i], d[i]).")
	g.ptr("m", "R0")
	g.ptr("m", "R3")
	g.ptr("d", "R1")
	g.ptr("d", "R4")
	g.ptr("x", "R2")
	g.length("m", "R9")
	g.useConsts(expNoHi...)
	g.useConsts(cNegMax)
	scale := g.bcast("scale")
	// One vector at a time: the blend masks and both exps' operands
	// outlive the exp.
	g.loop(func(b *blk) {
		v, mo, d := b.load("R2")[0], b.load("R0")[0], b.load("R1")[0]
		g.fmul(v, v, scale)
		// With mn = max(v, mo) one of exp(mo − mn), exp(v − mn) is 1:
		//   v > mo: d = d·exp(mo − v) + exp(v − v)
		//   else:   d = d + exp(v − mo)
		// with the −∞-safe offset; exp(v − v) is 1, or NaN for v = +∞.
		gt, oth, s := g.reg(), g.reg(), g.reg()
		g.fcmgt(gt, v, mo)
		g.mov(oth, v)
		g.bit(oth, mo, gt) // the smaller one (v where NaN)
		g.bit(mo, v, gt)   // the new max
		g.fmax(s, mo, g.c(cNegMax))
		g.fsub(oth, oth, s)
		g.fsub(v, v, v)
		g.fadd(v, v, g.c(cOne))
		g.exp([]V{oth}, false)
		g.fmul(s, d, oth)
		g.bit(d, s, gt)
		g.bit(oth, v, gt)
		g.fadd(d, d, oth)
		b.store("R3", []V{mo})
		b.store("R4", []V{d})
	}, modeVec, modeElem)
	g.ret()
}

func (g *gen) maxOf() {
	g.text("maxOf", "x []float32, scale float32", "ret float32",
		"returns the max of scale·x[i] over the elements that are not NaN (−∞ if none).")
	g.ptr("x", "R0")
	g.length("x", "R9")
	g.useConsts(cNegInf)
	scale := g.bcast("scale")
	acc := g.reserve(4)
	for _, a := range acc {
		g.mov(a, g.c(cNegInf))
	}
	g.loop(func(b *blk) {
		v := b.load("R0")
		for k := range v {
			g.fmul(v[k], v[k], scale)
		}
		if b.mode == modeElem {
			t := g.reg()
			g.mov(t, g.c(cNegInf))
			g.p("VMOV V%d.S[0], V%d.S[0]", v[0], t)
			v[0] = t
		}
		for k := range v {
			g.fmaxnm(acc[k], acc[k], v[k]) // the product's NaN (quiet) loses
		}
	})
	g.fmax(acc[0], acc[0], acc[1])
	g.fmax(acc[2], acc[2], acc[3])
	g.fmax(acc[0], acc[0], acc[2])
	g.fmaxnmv(acc[0], acc[0])
	g.p("FMOVS %s, ret+%d(FP)", acc[0].F(), g.args["ret"])
	g.ret()
}

func (g *gen) maxLanes() {
	g.text("maxLanes", "m, x []float32, scale float32", "",
		"sets m[i] = max(m[i], scale·x[i]), leaving m[i] alone where scale·x[i] is NaN.")
	g.ptr("m", "R0")
	g.ptr("m", "R2")
	g.ptr("x", "R1")
	g.length("m", "R9")
	scale := g.bcast("scale")
	g.loop(func(b *blk) {
		v, mo := b.load("R1"), b.load("R0")
		gt := g.reg()
		for k := range v {
			g.fmul(v[k], v[k], scale)
			g.fcmgt(gt, v[k], mo[k])
			g.bit(mo[k], v[k], gt)
		}
		b.store("R2", mo)
	})
	g.ret()
}

// ---- exp kernels ------------------------------------------------------------

func (g *gen) expScale() {
	g.text("expScale", "dst, x []float32, scale, m, mul float32", "",
		"writes dst[i] = exp(scale·x[i] − m)·mul.")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.length("dst", "R9")
	g.useConsts(expConsts...)
	scale, m, mul := g.bcast("scale"), g.bcast("m"), g.bcast("mul")
	g.loop(func(b *blk) {
		o := b.load("R1")
		g.mulSub(o, scale, m)
		groups(len(o), func(ks []int) { g.exp(pick(o, ks), true) })
		for _, e := range o {
			g.fmul(e, e, mul)
		}
		b.store("R0", o)
	})
	g.ret()
}

func (g *gen) expScaleLanes() {
	g.text("expScaleLanes", "dst, x, m, mul []float32, scale float32", "",
		"writes dst[i] = exp(scale·x[i] − m[i])·mul[i].")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.ptr("m", "R2")
	g.ptr("mul", "R3")
	g.length("dst", "R9")
	g.useConsts(expConsts...)
	scale := g.bcast("scale")
	g.loop(func(b *blk) {
		x, a := b.load("R1"), b.load("R2")
		g.mulSubLanes(x, scale, a)
		g.release(a...)
		a = x
		groups(len(a), func(ks []int) { g.exp(pick(a, ks), true) })
		mul := b.load("R3")
		for k := range a {
			g.fmul(a[k], a[k], mul[k])
		}
		b.store("R0", a)
	})
	g.ret()
}

func (g *gen) expSum() {
	g.text("expSum", "dst, x, next []float32, scale, m float32", "ret float32",
		"writes dst[i] = exp(scale·x[i] − m), returns Σ dst[i] and prefetches next.")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.length("dst", "R9")
	g.ptr("next", "R12")
	g.length("next", "R13")
	g.useConsts(expConsts...)
	scale, m := g.bcast("scale"), g.bcast("m")
	acc := g.reserve(4)
	for _, a := range acc {
		g.zero(a)
	}
	g.loop(func(b *blk) {
		o := b.load("R1")
		g.mulSub(o, scale, m)
		groups(len(o), func(ks []int) { g.exp(pick(o, ks), true) })
		b.store("R0", o)
		if b.mode == modeElem {
			g.p("FMOVS %s, %s // clear lanes 1…3", o[0].F(), o[0].F())
		}
		for k := range o {
			g.fadd(acc[k], acc[k], o[k])
		}
		g.prefetch(b)
	})
	g.sumAcc(acc)
	g.ret()
}

// prefetch brings the next 64 bytes of next (R12, R13 elements left) into
// L2 once per block.
func (g *gen) prefetch(b *blk) {
	if b.mode != modeBlock {
		return
	}
	skip := g.label("noprefetch")
	g.p("CMP $16, R13")
	g.p("BLT %s", skip)
	g.p("PRFM (R12), PLDL2KEEP")
	g.p("ADD $64, R12")
	g.p("SUB $16, R13")
	fmt.Fprintf(&g.asm, "%s:\n", skip)
}

// sumAcc adds the accumulators pairwise, then across lanes, and stores the
// float32 result ret.
func (g *gen) sumAcc(acc []V) {
	for len(acc) > 1 {
		var next []V
		for k := 0; k+1 < len(acc); k += 2 {
			g.fadd(acc[k], acc[k], acc[k+1])
			next = append(next, acc[k])
		}
		acc = next
	}
	g.faddp(acc[0], acc[0], acc[0])
	g.faddp(acc[0], acc[0], acc[0])
	g.p("FMOVS %s, ret+%d(FP)", acc[0].F(), g.args["ret"])
}

func (g *gen) expSumLanes() {
	g.text("expSumLanes", "dst, d, x, m, next []float32, scale float32", "",
		"writes dst[i] = exp(scale·x[i] − m[i]), adds it to d[i] and prefetches next.")
	g.ptr("dst", "R0")
	g.ptr("d", "R1")
	g.ptr("d", "R2")
	g.ptr("x", "R3")
	g.ptr("m", "R4")
	g.length("dst", "R9")
	g.ptr("next", "R12")
	g.length("next", "R13")
	g.useConsts(expConsts...)
	scale := g.bcast("scale")
	g.loop(func(b *blk) {
		x, a := b.load("R3"), b.load("R4")
		g.mulSubLanes(x, scale, a)
		g.release(a...)
		a = x
		groups(len(a), func(ks []int) { g.exp(pick(a, ks), true) })
		b.store("R0", a)
		d := b.load("R1")
		for k := range d {
			g.fadd(d[k], d[k], a[k])
		}
		b.store("R2", d)
		g.prefetch(b)
	})
	g.ret()
}

func (g *gen) logSoftmaxGrad(lanes bool) {
	name, params, doc := "logSoftmaxGrad", "dx, y, dy []float32, s float32", "writes dx[i] = dy[i] − exp(y[i])·s."
	if lanes {
		name, params, doc = "logSoftmaxGradLanes", "dx, y, dy, s []float32", "writes dx[i] = dy[i] − exp(y[i])·s[i]."
	}
	g.text(name, params, "", doc)
	g.ptr("dx", "R0")
	g.ptr("y", "R1")
	g.ptr("dy", "R2")
	g.length("dx", "R9")
	g.useConsts(expConsts...)
	var s V
	if lanes {
		g.ptr("s", "R3")
	} else {
		s = g.bcast("s")
	}
	g.loop(func(b *blk) {
		y := b.load("R1")
		groups(len(y), func(ks []int) { g.exp(pick(y, ks), true) })
		dy := b.load("R2")
		var sv []V
		if lanes {
			sv = b.load("R3")
		}
		for k := range y {
			if lanes {
				s = sv[k]
			}
			g.fmls(dy[k], y[k], s) // dy − e·s, rounded once like the twin
		}
		b.store("R0", dy)
	})
	g.ret()
}

// ---- element-wise arithmetic -----------------------------------------------

func (g *gen) logOut() {
	g.text("logOut", "dst, x []float32, scale, sub float32", "",
		"writes dst[i] = scale·x[i] − sub.")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.length("dst", "R9")
	scale, sub := g.bcast("scale"), g.bcast("sub")
	g.loop(func(b *blk) {
		x := b.load("R1")
		g.mulSub(x, scale, sub)
		b.store("R0", x)
	})
	g.ret()
}

func (g *gen) logOutLanes() {
	g.text("logOutLanes", "dst, x, sub []float32, scale float32", "",
		"writes dst[i] = scale·x[i] − sub[i].")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.ptr("sub", "R2")
	g.length("dst", "R9")
	scale := g.bcast("scale")
	g.loop(func(b *blk) {
		x, s := b.load("R1"), b.load("R2")
		g.mulSubLanes(x, scale, s)
		b.store("R0", x)
	})
	g.ret()
}

func (g *gen) logNorm() {
	g.text("logNorm", "dst, x []float32, scale, m, logd float32", "",
		"writes dst[i] = (scale·x[i] − m) − logd.")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.length("dst", "R9")
	scale, m, logd := g.bcast("scale"), g.bcast("m"), g.bcast("logd")
	g.loop(func(b *blk) {
		o := b.load("R1")
		g.mulSub(o, scale, m)
		for _, v := range o {
			g.fsub(v, v, logd)
		}
		b.store("R0", o)
	})
	g.ret()
}

func (g *gen) logNormLanes() {
	g.text("logNormLanes", "dst, x, m, logd []float32, scale float32", "",
		"writes dst[i] = (scale·x[i] − m[i]) − logd[i].")
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.ptr("m", "R2")
	g.ptr("logd", "R3")
	g.length("dst", "R9")
	scale := g.bcast("scale")
	g.loop(func(b *blk) {
		x, m, l := b.load("R1"), b.load("R2"), b.load("R3")
		g.mulSubLanes(x, scale, m)
		for k := range x {
			g.fsub(x[k], x[k], l[k])
		}
		b.store("R0", x)
	})
	g.ret()
}

// reduce emits dot or sum: four accumulators, added pairwise at the end.
func (g *gen) reduce(name, params, doc string) {
	g.text(name, params, "ret float32", doc)
	dot := name == "dot"
	g.ptr("a", "R0")
	g.length("a", "R9")
	if dot {
		g.ptr("b", "R1")
	}
	acc := g.reserve(4)
	for _, a := range acc {
		g.zero(a)
	}
	g.loop(func(b *blk) {
		a := b.load("R0") // lanes 1…3 are 0 for single elements
		if dot {
			bv := b.load("R1")
			for k := range a {
				g.fmla(acc[k], a[k], bv[k])
			}
			return
		}
		for k := range a {
			g.fadd(acc[k], acc[k], a[k])
		}
	})
	g.sumAcc(acc)
	g.ret()
}

func (g *gen) softmaxGrad(lanes bool) {
	name, params, doc := "softmaxGrad", "dx, y, dy []float32, s float32", "writes dx[i] = y[i]·(dy[i] − s)."
	if lanes {
		name, params, doc = "softmaxGradLanes", "dx, y, dy, s []float32", "writes dx[i] = y[i]·(dy[i] − s[i])."
	}
	g.text(name, params, "", doc)
	g.ptr("dx", "R0")
	g.ptr("y", "R1")
	g.ptr("dy", "R2")
	g.length("dx", "R9")
	var s V
	if lanes {
		g.ptr("s", "R3")
	} else {
		s = g.bcast("s")
	}
	g.loop(func(b *blk) {
		y, dy := b.load("R1"), b.load("R2")
		var sv []V
		if lanes {
			sv = b.load("R3")
		}
		for k := range y {
			if lanes {
				s = sv[k]
			}
			g.fsub(dy[k], dy[k], s)
			g.fmul(dy[k], y[k], dy[k])
		}
		b.store("R0", dy)
	})
	g.ret()
}

// accumulate emits mulAdd (acc += a·b, fused like the twin) or add.
func (g *gen) accumulate(name, params, doc string) {
	g.text(name, params, "", doc)
	mul := name == "mulAdd"
	g.ptr("acc", "R0")
	g.ptr("acc", "R3")
	g.ptr("a", "R1")
	g.length("acc", "R9")
	if mul {
		g.ptr("b", "R2")
	}
	g.loop(func(b *blk) {
		acc, a := b.load("R0"), b.load("R1")
		if mul {
			bv := b.load("R2")
			for k := range acc {
				g.fmla(acc[k], a[k], bv[k])
			}
		} else {
			for k := range acc {
				g.fadd(acc[k], acc[k], a[k])
			}
		}
		b.store("R3", acc)
	})
	g.ret()
}

func (g *gen) normalize(lanes bool) {
	name, params, doc := "normalize", "dst, x []float32, k float32", "writes dst[i] = x[i]·k."
	if lanes {
		name, params, doc = "normalizeLanes", "dst, x, k []float32", "writes dst[i] = x[i]·k[i]."
	}
	g.text(name, params, "", doc)
	g.ptr("dst", "R0")
	g.ptr("x", "R1")
	g.length("dst", "R9")
	var kv V
	if lanes {
		g.ptr("k", "R2")
	} else {
		kv = g.bcast("k")
	}
	g.loop(func(b *blk) {
		x := b.load("R1")
		var ks []V
		if lanes {
			ks = b.load("R2")
		}
		for j := range x {
			if lanes {
				kv = ks[j]
			}
			g.fmul(x[j], x[j], kv)
		}
		b.store("R0", x)
	})
	g.ret()
}

func (g *gen) recipLanes() {
	g.text("recipLanes", "dst, d []float32", "", "writes dst[i] = 1/d[i].")
	g.ptr("dst", "R0")
	g.ptr("d", "R1")
	g.length("dst", "R9")
	g.useConsts(cOne)
	g.loop(func(b *blk) {
		d := b.load("R1")
		for _, v := range d {
			g.fdiv(v, g.c(cOne), v)
		}
		b.store("R0", d)
	})
	g.ret()
}

// logLanes is the log of asmgen and logLanesGeneric, step for step (each
// operation rounded, no fused multiply-add).
func (g *gen) logLanes() {
	g.text("logLanes", "dst, d []float32", "",
		"writes dst[i] = log(d[i]) for d[i] ≥ 1 (NaN and +Inf pass through).")
	g.ptr("dst", "R0")
	g.ptr("d", "R1")
	g.length("dst", "R9")
	g.useConsts(cOne, cBias, cMant, cHalf, cSqrt2, cPosInf, cLn2Hi, cLn2Lo)
	g.useConsts(cLg...)
	g.loop(func(b *blk) {
		d := b.load("R1")
		for _, dv := range d {
			e, m, t, f, s := g.reg(), g.reg(), g.reg(), g.reg(), g.reg()
			// d = 2^e·m with m in [1, 2), then m in (√2/2, √2].
			g.ushr(e, dv, 23)
			g.sub(e, e, g.c(cBias))
			g.scvtf(e, e)
			g.and(m, dv, g.c(cMant))
			g.orr(m, m, g.c(cOne))
			g.fcmgt(t, m, g.c(cSqrt2))
			g.fmul(f, m, g.c(cHalf))
			g.bit(m, f, t)
			g.fadd(f, e, g.c(cOne))
			g.bit(e, f, t)
			// log(1+f) = f − (h − s·(h + R)), s = f/(2+f), h = f²/2.
			g.fsub(f, m, g.c(cOne)) // exact
			g.fadd(s, m, g.c(cOne))
			g.fdiv(s, f, s)
			z, r := m, t
			g.fmul(z, s, s)
			g.fmul(r, g.c(cLg[3]), z)
			g.fadd(r, r, g.c(cLg[2]))
			g.fmul(r, z, r)
			g.fadd(r, r, g.c(cLg[1]))
			g.fmul(r, z, r)
			g.fadd(r, r, g.c(cLg[0]))
			g.fmul(r, z, r)
			h := z
			g.fmul(h, g.c(cHalf), f)
			g.fmul(h, f, h)
			g.fadd(r, h, r)
			g.fmul(r, s, r)
			g.fsub(h, h, r)
			g.fsub(f, f, h)
			// e·ln2Hi + (log(1+f) + e·ln2Lo).
			g.fmul(r, g.c(cLn2Lo), e)
			g.fadd(f, f, r)
			g.fmul(e, g.c(cLn2Hi), e)
			g.fadd(e, e, f)
			// NaN and +Inf pass through.
			g.fcmgt(t, g.c(cPosInf), dv)
			g.bit(dv, e, t)
			g.release(e, m, t, f, s)
		}
		b.store("R0", d)
	})
	g.ret()
}
