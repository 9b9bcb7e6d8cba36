// Command asmgen writes the amd64 assembly kernels of package vec with avo.
//
// It is run by go generate in internal/cpu/vec:
//
//	go run ./asmgen -out kernels_amd64.s -stubs stubs_amd64.go -pkg vec
//
// Every kernel exists twice: an AVX2+FMA(+F16C) variant on 256-bit ymm
// registers with VMASKMOVPS or scalar tails, and an AVX-512 (F, BW, VL)
// variant on 512-bit zmm registers with k-masked tails. The "NT" kernels
// store whole vectors with VMOVNTPS (dst aligned to the vector width, the
// tail masked and plain); their callers issue the SFENCE (fence). The exp
// is the algorithm of exp.go: Cephes range reduction x = n·ln2 + r with n
// rounded to nearest (ties to even; the scalar rounds ties up), the same polynomial for
// e^r in Cephes form p·r² + r + 1 with FMAs, and a scaling by 2^n that
// rounds denormal results once (VSCALEFPS, or two exact power-of-two factors
// on AVX2).
package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Exp constants; they must equal the float32 values of exp.go.
const (
	log2e = 1.44269504088896341
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4
	expP0 = 1.9875691500e-4
	expP1 = 1.3981999507e-3
	expP2 = 8.3334519073e-3
	expP3 = 4.1665795894e-2
	expP4 = 1.6666665459e-1
	expP5 = 5.0000001201e-1
	// The exp input is clamped to [clampLo, clampHi]: exp(clampLo) rounds
	// to 0 and exp(clampHi) overflows to +Inf, while NaN passes through.
	clampLo = -104
	clampHi = 89
)

// Indexes into the constant table.
const (
	cNegInf = iota
	cNegMax
	cExpLo
	cExpHi
	cLog2e
	cLn2Hi
	cLn2Lo
	cP0
	cP1
	cP2
	cP3
	cP4
	cP5
	cOne
	cBias    // int32 127
	cInt1    // int32 1
	cInt7FFF // int32 0x7fff
	cAbsMask // int32 0x7fffffff
	cInfBits // int32 0x7f800000
	cQuietBF // int32 0x40
	cMant    // int32 0x007fffff: a float32's mantissa bits
	cHalf
	cSqrt2
	cPosInf
	cLg1 // 2/3, 2/5, 2/7, 2/9: log's atanh series
	cLg2
	cLg3
	cLg4
	cTh0 // Cephes' tanhf polynomial, c0 + … as softcapGeneric spells it
	cTh1
	cTh2
	cTh3
	cTh4
	cTanhCut  // 0.625: below it (in magnitude) the polynomial
	numConsts // count
)

func f32(v float64) uint32 { return math.Float32bits(float32(v)) }

var constBits = [numConsts]uint32{
	cNegInf:  f32(math.Inf(-1)),
	cNegMax:  f32(-math.MaxFloat32),
	cExpLo:   f32(clampLo),
	cExpHi:   f32(clampHi),
	cLog2e:   f32(log2e),
	cLn2Hi:   f32(ln2Hi),
	cLn2Lo:   f32(ln2Lo),
	cP0:      f32(expP0),
	cP1:      f32(expP1),
	cP2:      f32(expP2),
	cP3:      f32(expP3),
	cP4:      f32(expP4),
	cP5:      f32(expP5),
	cOne:     f32(1),
	cBias:    127,
	cInt1:    1,
	cInt7FFF: 0x7fff,
	cAbsMask: 0x7fffffff,
	cInfBits: 0x7f800000,
	cQuietBF: 0x40,
	cMant:    0x007fffff,
	cHalf:    f32(0.5),
	cSqrt2:   f32(math.Sqrt2),
	cPosInf:  f32(math.Inf(1)),
	cLg1:     f32(2.0 / 3),
	cLg2:     f32(2.0 / 5),
	cLg3:     f32(2.0 / 7),
	cLg4:     f32(2.0 / 9),
	cTh0:     f32(-5.70498872745e-3),
	cTh1:     f32(2.06390887954e-2),
	cTh2:     f32(5.37397155531e-2),
	cTh3:     f32(1.33314422036e-1),
	cTh4:     f32(3.33332819422e-1),
	cTanhCut: f32(0.625),
}

// expConsts are the constants the exp needs.
var expConsts = []int{cExpLo, cExpHi, cLog2e, cLn2Hi, cLn2Lo, cP0, cP1, cP2, cP3, cP4, cP5, cOne}

var (
	consts   Mem // numConsts entries of 8 replicated dwords (32 bytes each)
	tailMask Mem // 8 dwords of -1 then 8 of 0
)

func main() {
	ConstraintExpr("amd64,!purego")

	consts = GLOBL("vecconsts", RODATA|NOPTR)
	for k, v := range constBits {
		for j := 0; j < 8; j++ {
			DATA(32*k+4*j, U32(v))
		}
	}
	tailMask = GLOBL("tailmask", RODATA|NOPTR)
	for j := 0; j < 16; j++ {
		v := uint32(0)
		if j < 8 {
			v = 0xffffffff
		}
		DATA(4*j, U32(v))
	}

	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		g.maxSum()
		g.expScale()
		g.logOut()
		g.dot()
		g.sum()
		g.softmaxGrad()
		g.logSoftmaxGrad()
		g.onlineUpdate()
		g.expScaleLanes(false)
		g.logOutLanes()
		g.mulAdd()
		g.add()
		g.softmaxGradLanes()
		g.logSoftmaxGradLanes()
		g.f16ToF32()
		g.f32ToF16(false)
		g.f32ToF16(true)
		g.bf16ToF32()
		g.f32ToBF16(false)
		g.f32ToBF16(true)
		g.maxOf()
		g.expSum(false)
		g.expSum(true)
		g.normalize(false)
		g.normalize(true)
		g.expScaleNT()
		g.fence()
		g.maxLanes()
		g.expSumLanes()
		g.normalizeLanes(false)
		g.normalizeLanes(true)
		g.expScaleLanes(true)
		g.logNorm(false)
		g.logNorm(true)
		g.logNormLanes(false)
		g.logNormLanes(true)
		g.recipLanes()
		g.logLanes()
		g.softcap()
	}
	emit64()
	Generate()
}

// gen emits the kernels of one instruction set.
type gen struct {
	avx512 bool
	w      int // lanes per vector: float32 ones, or float64 ones with f64
	suffix string
	f64    bool // the float64 kernels (f64.go): tail masks of qwords

	// Per-function state.
	hoisted map[int]reg.VecVirtual // constants kept in registers
	i       reg.GPVirtual          // element index of the current block
	tail    bool                   // emitting the masked tail block
	nt      bool                   // full-block stores are non-temporal
	k       reg.OpmaskVirtual      // AVX-512 tail mask
	ymask   reg.VecVirtual         // AVX2 tail mask
	labels  int
}

// text starts a kernel.
func (g *gen) text(name, sig, doc string) {
	TEXT(name+g.suffix, NOSPLIT, sig)
	Pragma("noescape")
	Doc(name + g.suffix + " " + doc)
	g.hoisted = map[int]reg.VecVirtual{}
	g.tail = false
	g.nt = false
	g.labels = 0
}

// ret ends a kernel.
func (g *gen) ret() {
	VZEROUPPER()
	RET()
}

// label returns a fresh label name.
func (g *gen) label(s string) string {
	g.labels++
	return fmt.Sprintf("%s%d", s, g.labels)
}

func (g *gen) vec() reg.VecVirtual {
	if g.avx512 {
		return ZMM()
	}
	return YMM()
}

func addr(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// bcast broadcasts a float32 parameter to a vector register.
func (g *gen) bcast(name string) reg.VecVirtual {
	r := g.vec()
	VBROADCASTSS(addr(Param(name)), r)
	return r
}

// hoist keeps constants in registers for the whole function.
func (g *gen) hoist(ks ...int) {
	for _, k := range ks {
		if _, ok := g.hoisted[k]; ok {
			continue
		}
		r := g.vec()
		VBROADCASTSS(consts.Offset(32*k), r)
		g.hoisted[k] = r
	}
}

// c returns constant k as a source operand that may be memory.
func (g *gen) c(k int) Op {
	if r, ok := g.hoisted[k]; ok {
		return r
	}
	if g.avx512 {
		panic(fmt.Sprintf("constant %d not hoisted", k))
	}
	return consts.Offset(32 * k)
}

// creg returns constant k in a register.
func (g *gen) creg(k int) reg.VecVirtual {
	if r, ok := g.hoisted[k]; ok {
		return r
	}
	r := g.vec()
	if g.avx512 {
		VBROADCASTSS(consts.Offset(32*k), r)
	} else {
		VMOVUPS(consts.Offset(32*k), r)
	}
	return r
}

// mov copies a vector register.
func (g *gen) mov(src, dst reg.VecVirtual) {
	if g.avx512 {
		VMOVAPS(src, dst)
	} else {
		VMOVUPS(src, dst)
	}
}

// at addresses vector v (of the current block) of the array at base with
// elements of size bytes.
func (g *gen) at(base reg.GPVirtual, v, size int) Mem {
	return Mem{Base: base, Index: g.i, Scale: uint8(size), Disp: v * g.w * size}
}

// load loads float32 vector v from base (masked in the tail).
func (g *gen) load(base reg.GPVirtual, v int) reg.VecVirtual {
	r := g.vec()
	m := g.at(base, v, 4)
	switch {
	case !g.tail:
		VMOVUPS(m, r)
	case g.avx512:
		VMOVUPS_Z(m, g.k, r)
	default:
		VMASKMOVPS(m, g.ymask, r)
	}
	return r
}

// src returns float32 vector v of base as a source operand: memory in full
// blocks, a masked load in the tail.
func (g *gen) src(base reg.GPVirtual, v int) Op {
	if g.tail {
		return g.load(base, v)
	}
	return g.at(base, v, 4)
}

// store stores float32 vector r as vector v of base (masked in the tail).
func (g *gen) store(r reg.VecVirtual, base reg.GPVirtual, v int) {
	m := g.at(base, v, 4)
	switch {
	case !g.tail && g.nt:
		VMOVNTPS(r, m)
	case !g.tail:
		VMOVUPS(r, m)
	case g.avx512:
		VMOVUPS(r, g.k, m)
	default:
		VMASKMOVPS(r, g.ymask, m)
	}
}

// loop runs body over n elements: blocks of unroll vectors, then single
// vectors, then one masked block for the remainder (or scalarTail, when
// given, which must handle rem elements at index g.i and may clobber both).
func (g *gen) loop(n reg.GPVirtual, unroll int, body func(vs int), scalarTail func(rem reg.GPVirtual)) {
	g.i = GP64()
	XORQ(g.i, g.i)
	rem := GP64()
	MOVQ(n, rem)
	loopU, loop1, tail, done := g.label("loopU"), g.label("loop1"), g.label("tail"), g.label("done")
	if unroll > 1 {
		Label(loopU)
		CMPQ(rem, U32(unroll*g.w))
		JB(LabelRef(loop1))
		body(unroll)
		ADDQ(U32(unroll*g.w), g.i)
		SUBQ(U32(unroll*g.w), rem)
		JMP(LabelRef(loopU))
	}
	Label(loop1)
	CMPQ(rem, U32(g.w))
	JB(LabelRef(tail))
	body(1)
	ADDQ(U32(g.w), g.i)
	SUBQ(U32(g.w), rem)
	JMP(LabelRef(loop1))
	Label(tail)
	TESTQ(rem, rem)
	JZ(LabelRef(done))
	if scalarTail != nil {
		scalarTail(rem)
	} else {
		g.setMask(rem)
		g.tail = true
		body(1)
		g.tail = false
	}
	Label(done)
}

// setMask builds the tail mask for rem (1 ≤ rem < w) lanes.
func (g *gen) setMask(rem reg.GPVirtual) {
	if g.f64 {
		g.setMask64(rem)
		return
	}
	if g.avx512 {
		t := GP32()
		MOVL(U32(0xffff), t)
		BZHIL(rem.As32(), t, t)
		g.k = K()
		KMOVW(t, g.k)
		return
	}
	p, t := GP64(), GP64()
	LEAQ(tailMask.Offset(32), p)
	MOVQ(rem, t)
	NEGQ(t)
	g.ymask = YMM()
	VMOVDQU(Mem{Base: p, Index: t, Scale: 4}, g.ymask)
}

// maxKeepNaN sets dst = max(a, b) where a is returned when either is NaN.
func maxKeepNaN(a, b Op, dst reg.VecVirtual) { VMAXPS(a, b, dst) }

// minKeepNaN sets dst = min(a, b) where a is returned when either is NaN.
func minKeepNaN(a, b Op, dst reg.VecVirtual) { VMINPS(a, b, dst) }

// exp returns e^x, clobbering x. NaN stays NaN, x < −103.97 gives 0 (or
// the correctly rounded denormal above), x > 88.72 gives +Inf.
func (g *gen) exp(x reg.VecVirtual) reg.VecVirtual {
	return g.expN([]reg.VecVirtual{x}, true)[0]
}

// expN computes e^x for several vectors at once, step by step across them
// so that independent work reaches the schedulers together. The xs are
// clobbered. Without hi, every x must be ≤ 0 or NaN (the online merge's
// exp(v − max)), which saves the upper clamp.
func (g *gen) expN(xs []reg.VecVirtual, hi bool) []reg.VecVirtual {
	each := func(f func(k int)) {
		for k := range xs {
			f(k)
		}
	}
	// Clamp with NaN passing through: exp(−104) rounds to 0 and exp(89)
	// overflows, as the scalar Exp's cut-offs require.
	each(func(k int) { maxKeepNaN(xs[k], g.creg(cExpLo), xs[k]) })
	if hi {
		each(func(k int) { minKeepNaN(xs[k], g.creg(cExpHi), xs[k]) })
	}
	// n = round(x·log2e), r = x − n·ln2Hi − n·ln2Lo.
	n := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		n[k] = g.vec()
		VMULPS(g.c(cLog2e), xs[k], n[k])
	})
	each(func(k int) {
		if g.avx512 {
			VRNDSCALEPS(Imm(0), n[k], n[k])
		} else {
			VROUNDPS(Imm(0), n[k], n[k])
		}
	})
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Hi, n[k], xs[k]) })
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Lo, n[k], xs[k]) })
	// p = (((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5)·r² + r + 1.
	p := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		p[k] = g.vec()
		if r, ok := g.hoisted[cP0]; ok {
			g.mov(r, p[k])
		} else {
			VMOVUPS(g.c(cP0), p[k])
		}
	})
	for _, c := range []int{cP1, cP2, cP3, cP4, cP5} {
		each(func(k int) { g.fma(VFMADD213PS, VFMADD213PS_BCST, c, xs[k], p[k]) })
	}
	r2 := make([]reg.VecVirtual, len(xs))
	each(func(k int) {
		r2[k] = g.vec()
		VMULPS(xs[k], xs[k], r2[k])
	})
	each(func(k int) { VFMADD213PS(xs[k], r2[k], p[k]) })
	each(func(k int) { VADDPS(g.c(cOne), p[k], p[k]) })
	if g.avx512 {
		// p·2^n, rounded once even when denormal.
		each(func(k int) { VSCALEFPS(n[k], p[k], p[k]) })
		return p
	}
	// p·2^n as p·2^(n>>1)·2^(n−n>>1): both factors are normal for n in
	// [−151, 128], the first product is exact and the second rounds once.
	n1 := make([]reg.VecVirtual, len(xs))
	each(func(k int) { VCVTPS2DQ(n[k], n[k]) })
	each(func(k int) {
		n1[k] = YMM()
		VPSRAD(Imm(1), n[k], n1[k])
	})
	each(func(k int) { VPSUBD(n1[k], n[k], n[k]) })
	each(func(k int) {
		VPADDD(g.c(cBias), n1[k], n1[k])
		VPSLLD(Imm(23), n1[k], n1[k])
	})
	each(func(k int) {
		VPADDD(g.c(cBias), n[k], n[k])
		VPSLLD(Imm(23), n[k], n[k])
	})
	each(func(k int) { VMULPS(n1[k], p[k], p[k]) })
	each(func(k int) { VMULPS(n[k], p[k], p[k]) })
	return p
}

// fma emits op(c, a, b) with constant c from a register, as a broadcast
// memory operand (AVX-512 constants not hoisted) or as a 32-byte memory
// operand (AVX2).
func (g *gen) fma(op, bcst func(...Op), c int, a, b reg.VecVirtual) {
	if _, ok := g.hoisted[c]; ok || !g.avx512 {
		op(g.c(c), a, b)
		return
	}
	bcst(consts.Offset(32*c), a, b)
}

// safe returns max(m, −MaxFloat32) with NaN kept: the exponent offset of
// the online merge (−∞ is replaced so that −∞ − offset stays −∞).
func (g *gen) safe(m reg.VecVirtual) reg.VecVirtual {
	r := g.vec()
	maxKeepNaN(m, g.creg(cNegMax), r)
	return r
}

// hreduce combines all lanes of v with op (VMAXPS or VADDPS), leaving the
// result in every lane. v is clobbered.
func (g *gen) hreduce(v reg.VecVirtual, op func(...Op)) reg.VecVirtual {
	t := g.vec()
	if g.avx512 {
		VSHUFF32X4(Imm(0x4e), v, v, t)
		op(t, v, v)
		VSHUFF32X4(Imm(0xb1), v, v, t)
		op(t, v, v)
	} else {
		VPERM2F128(Imm(0x01), v, v, t)
		op(t, v, v)
	}
	VPERMILPS(Imm(0x4e), v, t)
	op(t, v, v)
	VPERMILPS(Imm(0xb1), v, t)
	op(t, v, v)
	return v
}

// foldPairs reduces the accumulators pairwise with op into acc[0] (a
// tree, so the order of the float sums is the same in every kernel).
func foldPairs(acc []reg.VecVirtual, op func(...Op)) reg.VecVirtual {
	for len(acc) > 1 {
		var next []reg.VecVirtual
		for k := 0; k+1 < len(acc); k += 2 {
			op(acc[k+1], acc[k], acc[k])
			next = append(next, acc[k])
		}
		acc = next
	}
	return acc[0]
}

func vmaxps(ops ...Op) { VMAXPS(ops...) }
func vaddps(ops ...Op) { VADDPS(ops...) }

// ptr loads the base pointer of a slice parameter.
func ptr(name string) reg.GPVirtual {
	r := GP64()
	Load(Param(name).Base(), r)
	return r
}

// length loads the length of a slice parameter.
func length(name string) reg.GPVirtual {
	r := GP64()
	Load(Param(name).Len(), r)
	return r
}

// Tuning, measured on Zen 5 (two FMA pipes that also run VSCALEFPS, two
// add/max/round pipes): an exp is 11 FMA-pipe ops, so the kernels are
// compute-bound in L1 and the aim is to keep both FMA pipes busy.
const (
	// unroll is the vectors per main-loop iteration of element-wise
	// kernels.
	unroll = 4
	// expGroup* vectors have their exps emitted step by step together.
	expGroupAVX2   = 2
	expGroupAVX512 = 4
	// MaxSum takes the max of maxSumUnroll* vectors, rescales its sums
	// once per block and then computes the exps maxSumGroup* at a time.
	maxSumUnrollAVX2   = 4
	maxSumUnrollAVX512 = 8
	maxSumGroupAVX2    = 2
	maxSumGroupAVX512  = 5
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

// hoistExp keeps the exp constants in registers (all on AVX-512, the clamp
// bounds on AVX2).
func (g *gen) hoistExp() {
	if g.avx512 {
		g.hoist(expConsts...)
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

func (g *gen) dot() {
	g.text("dot", "func(a, b []float32) float32", "returns Σ a[i]·b[i].")
	pa, n, pb := ptr("a"), length("a"), ptr("b")
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VXORPS(acc[k], acc[k], acc[k])
	}
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
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VXORPS(acc[k], acc[k], acc[k])
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			VADDPS(g.src(pa, k), acc[k], acc[k])
		}
	}, nil)
	g.reduceSum(acc)
	g.ret()
}

func (g *gen) softmaxGrad() {
	g.text("softmaxGrad", "func(dx, y, dy []float32, s float32)",
		"writes dx[i] = y[i]·(dy[i] − s).")
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s := g.bcast("s")
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			t := g.load(pdy, k)
			VSUBPS(s, t, t)
			VMULPS(g.src(py, k), t, t)
			g.store(t, pdx, k)
		}
	}, nil)
	g.ret()
}

func (g *gen) logSoftmaxGrad() {
	g.text("logSoftmaxGrad", "func(dx, y, dy []float32, s float32)",
		"writes dx[i] = dy[i] − exp(y[i])·s.")
	pdx, n, py, pdy := ptr("dx"), length("dx"), ptr("y"), ptr("dy")
	s := g.bcast("s")
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
				g.store(t, pdx, k)
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
			switch {
			case !g.tail && nt:
				h := XMM()
				if g.avx512 {
					h = YMM()
				}
				VCVTPS2PH(Imm(0), x, h)
				VMOVNTDQ(h, g.at(pd, k, 2))
			case !g.tail:
				VCVTPS2PH(Imm(0), x, g.at(pd, k, 2))
			default:
				h := YMM()
				VCVTPS2PH(Imm(0), x, h)
				VMOVDQU16(h, g.k, g.at(pd, k, 2))
			}
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
	// round returns the bfloat16 bits of vector k in the low half of each
	// dword: (u + 0x7fff + (u>>16)&1) >> 16, or (u>>16)|0x40 for NaN.
	round := func(k int) reg.VecVirtual {
		u := g.load(ps, k)
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
	g.loop(n, unroll, func(vs int) {
		if g.avx512 {
			for k := 0; k < vs; k++ {
				t := round(k)
				h := YMM()
				VPMOVDW(t, h)
				switch {
				case g.tail:
					VMOVDQU16(h, g.k, g.at(pd, k, 2))
				case nt:
					VMOVNTDQ(h, g.at(pd, k, 2))
				default:
					VMOVDQU16(h, g.at(pd, k, 2))
				}
			}
			return
		}
		k := 0
		for ; k+1 < vs; k += 2 {
			t0, t1 := round(k), round(k+1)
			VPACKUSDW(t1, t0, t0)
			VPERMQ(Imm(0xd8), t0, t0)
			if nt {
				VMOVNTDQ(t0, g.at(pd, k, 2))
			} else {
				VMOVDQU(t0, g.at(pd, k, 2))
			}
		}
		if k < vs {
			t := round(k)
			hi := XMM()
			VEXTRACTI128(Imm(1), t, hi)
			VPACKUSDW(hi, t.AsX(), hi)
			if nt {
				VMOVNTDQ(hi, g.at(pd, k, 2))
			} else {
				VMOVDQU(hi, g.at(pd, k, 2))
			}
		}
	}, tail)
	g.ret()
}

// The kernels of the one-exp forward schedule: a max pass, a pass that
// stores the exps and sums them, and a normalizing pass (non-temporal in
// the "NT" variants, which need dst aligned to the vector width and are
// called through wrappers that guarantee it).

func (g *gen) maxOf() {
	g.text("maxOf", "func(x []float32, scale float32) float32",
		"returns the max of scale·x[i] over the elements that are not NaN (−∞ if none).")
	px, n := ptr("x"), length("x")
	scale := g.bcast("scale")
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VBROADCASTSS(consts.Offset(32*cNegInf), acc[k])
	}
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
	m := g.hreduce(foldPairs(acc, vmaxps), vmaxps)
	VMOVSS(m.AsX(), addr(ReturnIndex(0)))
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
	acc := make([]reg.VecVirtual, unroll)
	for k := range acc {
		acc[k] = g.vec()
		VXORPS(acc[k], acc[k], acc[k])
	}
	g.loop(n, unroll, func(vs int) {
		g.groups(vs, func(ks []int) {
			xs := make([]reg.VecVirtual, len(ks))
			for j, k := range ks {
				xs[j] = g.scaledMinus(px, k, scale, m, one)
			}
			es := g.expN(xs, true)
			for j, k := range ks {
				g.store(es[j], pd, k)
				switch {
				case !g.tail:
					VADDPS(es[j], acc[k], acc[k])
				case g.avx512:
					// Masked-off lanes hold exp(−m), not 0.
					VADDPS(es[j], acc[k], g.k, acc[k])
				default:
					VANDPS(g.ymask, es[j], es[j])
					VADDPS(es[j], acc[k], acc[k])
				}
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
