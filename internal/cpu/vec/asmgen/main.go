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
	cTanhCut // 0.625: below it (in magnitude) the polynomial
	cLn2     // exp16 (fwd74.go): ln2 and its polynomial
	cQ2
	cQ3
	cQ4
	cQ5
	cQuietHi  // int32 0x00400000: a float32 NaN's quiet bit, the high half's 0x40
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
	cLn2:     f32(ln2),
	cQ2:      f32(exp16Q2),
	cQ3:      f32(exp16Q3),
	cQ4:      f32(exp16Q4),
	cQ5:      f32(exp16Q5),
	cQuietHi: 0x00400000,
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
		g.softmaxGrad(false)
		g.logSoftmaxGrad(false)
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
	emitLanes()
	emitXent()
	emitBwd()
	emitBwd74()
	emitFwd16s71() // permbf16, before fwd74.go's maxBF16 uses it (bf16s71b.go)
	emitFwd74()
	emitCPU74c()
	emitFwd16s70()
	emitBwd16s71c()
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
	each := stepwise(len(xs))
	// Clamp with NaN passing through: exp(−104) rounds to 0 and exp(89)
	// overflows, as the scalar Exp's cut-offs require.
	each(func(k int) { maxKeepNaN(xs[k], g.creg(cExpLo), xs[k]) })
	if hi {
		each(func(k int) { minKeepNaN(xs[k], g.creg(cExpHi), xs[k]) })
	}
	// n = round(x·log2e), r = x − n·ln2Hi − n·ln2Lo.
	n := g.roundLog2e(xs, each)
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Hi, n[k], xs[k]) })
	each(func(k int) { g.fma(VFNMADD231PS, VFNMADD231PS_BCST, cLn2Lo, n[k], xs[k]) })
	// p = (((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5)·r² + r + 1.
	p := g.copies(cP0, len(xs), each)
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
	return g.ldexpN(p, n, each)
}

// stepwise returns the each of the N functions (expN and its kind): f(k)
// for k = 0 … n−1, so that one step is emitted for every vector before
// the next step.
func stepwise(n int) func(func(k int)) {
	return func(f func(k int)) {
		for k := 0; k < n; k++ {
			f(k)
		}
	}
}

// roundLog2e returns n = round(x·log2e), ties to even, for each x (each
// as stepwise's).
func (g *gen) roundLog2e(xs []reg.VecVirtual, each func(func(k int))) []reg.VecVirtual {
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
	return n
}

// copies returns count fresh registers holding constant c, copied from its
// hoisted register or loaded from the table: a polynomial's first
// coefficient, which the first FMA overwrites.
func (g *gen) copies(c, count int, each func(func(k int))) []reg.VecVirtual {
	p := make([]reg.VecVirtual, count)
	each(func(k int) {
		p[k] = g.vec()
		if r, ok := g.hoisted[c]; ok {
			g.mov(r, p[k])
		} else {
			VMOVUPS(g.c(c), p[k])
		}
	})
	return p
}

// ldexpN returns p·2^n for each k (n holding integral floats), step by
// step over the vectors as each orders them: VSCALEFPS on AVX-512, rounded
// once even when denormal; on AVX2 p·2^(n>>1)·2^(n−n>>1), both factors
// normal for n in [−151, 128], the first product exact and the second
// rounding once.
func (g *gen) ldexpN(p, n []reg.VecVirtual, each func(func(k int))) []reg.VecVirtual {
	if g.avx512 {
		each(func(k int) { VSCALEFPS(n[k], p[k], p[k]) })
		return p
	}
	n1 := make([]reg.VecVirtual, len(p))
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
