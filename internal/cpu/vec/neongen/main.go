// Command neongen writes the arm64 NEON kernels of package vec: avo, which
// writes the amd64 ones (asmgen), has no arm64 back end. It is run by go
// generate in internal/cpu/vec:
//
//	go run ./neongen -out kernels_arm64.s -stubs stubs_arm64.go
//
// The kernels are the "neon" set: 4-lane float32 vectors, blocks of four
// vectors (VLD1/VST1 of 64 bytes), then single vectors, then one element
// at a time through lane 0 (FMOVS loads clear the other lanes). The
// instructions Go's arm64 assembler lacks (vector FADD, FMUL, FMAX, FRINTN,
// FCVTL, ...) are WORD encodings with the instruction in a comment. The exp
// is the algorithm of exp.go and asmgen: n = round(x·log2e) ties to even,
// r = x − n·ln2Hi − n·ln2Lo with FMLS, the Cephes polynomial by FMLA, and
// 2^n as two exact power-of-two factors so that denormal results round once.
// The exp's argument scale·x − m rounds the product first, like the twins
// and the amd64 kernels.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"math"
	"os"
	"strings"
)

// Exp and log constants; they must equal the float32 values of exp.go and
// generic.go.
const (
	log2e   = 1.44269504088896341
	ln2Hi   = 0.693359375
	ln2Lo   = -2.12194440e-4
	expP0   = 1.9875691500e-4
	expP1   = 1.3981999507e-3
	expP2   = 8.3334519073e-3
	expP3   = 4.1665795894e-2
	expP4   = 1.6666665459e-1
	expP5   = 5.0000001201e-1
	clampLo = -104 // exp(clampLo) rounds to 0
	clampHi = 89   // exp(clampHi) overflows to +Inf
)

func f32(v float64) uint32 { return math.Float32bits(float32(v)) }

// Constants live in V16…V31 for the whole kernel; each kernel names the
// ones it needs.
type konst struct {
	name string
	bits uint32
}

var (
	cNegInf  = konst{"−Inf", f32(math.Inf(-1))}
	cNegMax  = konst{"−MaxFloat32", f32(-math.MaxFloat32)}
	cLo      = konst{"clamp low", f32(clampLo)}
	cHi      = konst{"clamp high", f32(clampHi)}
	cLog2e   = konst{"log2(e)", f32(log2e)}
	cLn2Hi   = konst{"ln2 high", f32(ln2Hi)}
	cLn2Lo   = konst{"ln2 low", f32(ln2Lo)}
	cP       = []konst{{"P0", f32(expP0)}, {"P1", f32(expP1)}, {"P2", f32(expP2)}, {"P3", f32(expP3)}, {"P4", f32(expP4)}, {"P5", f32(expP5)}}
	cOne     = konst{"1.0", f32(1)}
	cBias    = konst{"int 127", 127}
	cBias2   = konst{"int 254", 254}
	cInt1    = konst{"int 1", 1}
	cInt7FFF = konst{"int 0x7fff", 0x7fff}
	cAbsMask = konst{"abs mask", 0x7fffffff}
	cInfBits = konst{"+Inf bits", 0x7f800000}
	cQuietBF = konst{"bf16 quiet bit", 0x00400000}
	cMant    = konst{"mantissa mask", 0x007fffff}
	cHalf    = konst{"0.5", f32(0.5)}
	cSqrt2   = konst{"√2", f32(math.Sqrt2)}
	cPosInf  = konst{"+Inf", f32(math.Inf(1))}
	cLg      = []konst{{"2/3", f32(2.0 / 3)}, {"2/5", f32(2.0 / 5)}, {"2/7", f32(2.0 / 7)}, {"2/9", f32(2.0 / 9)}}
)

// expConsts are the constants of the exp (the upper clamp only with hi).
var expConsts = append([]konst{cLo, cHi, cLog2e, cLn2Hi, cLn2Lo}, append(cP, cOne, cBias2)...)

// V is a vector register number.
type V int

func (v V) S4() string  { return fmt.Sprintf("V%d.S4", v) }
func (v V) B16() string { return fmt.Sprintf("V%d.B16", v) }
func (v V) H8() string  { return fmt.Sprintf("V%d.H8", v) }
func (v V) F() string   { return fmt.Sprintf("F%d", v) }

// gen accumulates the assembly and the stubs.
type gen struct {
	asm, stubs bytes.Buffer
	labels     int
	free       [16]bool       // V0…V15 available to a loop body
	reserved   int            // V(16−reserved)…V15 hold accumulators
	consts     map[konst]V    // the current kernel's constants
	nextConst  V              // next constant register
	args       map[string]int // frame offsets of the current kernel
	kernels    []string       // names, in order
}

func (g *gen) p(format string, a ...any) { fmt.Fprintf(&g.asm, "\t"+format+"\n", a...) }

func (g *gen) label(s string) string {
	g.labels++
	return fmt.Sprintf("%s%d", s, g.labels)
}

// word emits an instruction Go's assembler lacks.
func (g *gen) word(enc uint32, text string) { g.p("WORD $0x%08x // %s", enc, text) }

// Three-register vector instructions on 4 lanes of float32 or int32:
// d = n op m.
func (g *gen) v3(base uint32, mn string, d, n, m V) {
	g.word(base|uint32(m)<<16|uint32(n)<<5|uint32(d), fmt.Sprintf("%s V%d.4S, V%d.4S, V%d.4S", mn, d, n, m))
}

func (g *gen) fadd(d, n, m V)   { g.v3(0x4e20d400, "FADD", d, n, m) }
func (g *gen) fsub(d, n, m V)   { g.v3(0x4ea0d400, "FSUB", d, n, m) }
func (g *gen) fmul(d, n, m V)   { g.v3(0x6e20dc00, "FMUL", d, n, m) }
func (g *gen) fdiv(d, n, m V)   { g.v3(0x6e20fc00, "FDIV", d, n, m) }
func (g *gen) fmax(d, n, m V)   { g.v3(0x4e20f400, "FMAX", d, n, m) }   // NaN wins
func (g *gen) fmin(d, n, m V)   { g.v3(0x4ea0f400, "FMIN", d, n, m) }   // NaN wins
func (g *gen) fmaxnm(d, n, m V) { g.v3(0x4e20c400, "FMAXNM", d, n, m) } // a quiet NaN loses
func (g *gen) fcmgt(d, n, m V)  { g.v3(0x6ea0e400, "FCMGT", d, n, m) }  // all ones where n > m
func (g *gen) cmgt(d, n, m V)   { g.v3(0x4ea03400, "CMGT", d, n, m) }   // signed int32 n > m
func (g *gen) faddp(d, n, m V)  { g.v3(0x6e20d400, "FADDP", d, n, m) }

// Two-register vector instructions: d = op n.
func (g *gen) v2(base uint32, mn, arr string, d, n V) {
	g.word(base|uint32(n)<<5|uint32(d), fmt.Sprintf("%s V%d.%s, V%d.%s", mn, d, arrD(arr), n, arrN(arr)))
}

func arrD(a string) string { return strings.Split(a, ",")[0] }
func arrN(a string) string {
	if s := strings.Split(a, ","); len(s) > 1 {
		return s[1]
	}
	return a
}

func (g *gen) frintn(d, n V) { g.v2(0x4e218800, "FRINTN", "4S", d, n) }
func (g *gen) fcvtzs(d, n V) { g.v2(0x4ea1b800, "FCVTZS", "4S", d, n) }
func (g *gen) scvtf(d, n V)  { g.v2(0x4e21d800, "SCVTF", "4S", d, n) }
func (g *gen) fcvtl(d, n V)  { g.v2(0x0e217800, "FCVTL", "4S,4H", d, n) }
func (g *gen) fcvtl2(d, n V) { g.v2(0x4e217800, "FCVTL2", "4S,8H", d, n) }
func (g *gen) fcvtn(d, n V)  { g.v2(0x0e216800, "FCVTN", "4H,4S", d, n) }
func (g *gen) fcvtn2(d, n V) { g.v2(0x4e216800, "FCVTN2", "8H,4S", d, n) }

// sshr1 is d = n >> 1 (arithmetic) on int32 lanes.
func (g *gen) sshr1(d, n V) {
	g.word(0x4f3f0400|uint32(n)<<5|uint32(d), fmt.Sprintf("SSHR V%d.4S, V%d.4S, #1", d, n))
}

// fmaxnmv puts the max of n's lanes (a quiet NaN losing) in lane 0 of d.
func (g *gen) fmaxnmv(d, n V) {
	g.word(0x6e30c800|uint32(n)<<5|uint32(d), fmt.Sprintf("FMAXNMV S%d, V%d.4S", d, n))
}

// Instructions Go's assembler has, in ARM operand order (destination
// first) so that the kernels read like the WORD ones.
func (g *gen) mov(d, n V)     { g.p("VMOV %s, %s", n.B16(), d.B16()) }
func (g *gen) fmla(d, n, m V) { g.p("VFMLA %s, %s, %s", m.S4(), n.S4(), d.S4()) } // d += n·m
func (g *gen) fmls(d, n, m V) { g.p("VFMLS %s, %s, %s", m.S4(), n.S4(), d.S4()) } // d −= n·m
func (g *gen) add(d, n, m V)  { g.p("VADD %s, %s, %s", m.S4(), n.S4(), d.S4()) }
func (g *gen) sub(d, n, m V)  { g.p("VSUB %s, %s, %s", m.S4(), n.S4(), d.S4()) } // d = n − m
func (g *gen) and(d, n, m V)  { g.p("VAND %s, %s, %s", m.B16(), n.B16(), d.B16()) }
func (g *gen) orr(d, n, m V)  { g.p("VORR %s, %s, %s", m.B16(), n.B16(), d.B16()) }
func (g *gen) bit(d, n, m V)  { g.p("VBIT %s, %s, %s", m.B16(), n.B16(), d.B16()) } // d = m ? n : d
func (g *gen) shl(d, n V, s int) {
	g.p("VSHL $%d, %s, %s", s, n.S4(), d.S4())
}
func (g *gen) ushr(d, n V, s int) { g.p("VUSHR $%d, %s, %s", s, n.S4(), d.S4()) }
func (g *gen) zero(d V)           { g.p("VEOR %s, %s, %s", d.B16(), d.B16(), d.B16()) }
func (g *gen) dup0(d V)           { g.p("VDUP V%d.S[0], %s", d, d.S4()) }

// ---- registers --------------------------------------------------------

func (g *gen) resetRegs() {
	for i := range g.free {
		g.free[i] = i < 16-g.reserved
	}
}

// reserve takes k work registers from the top for accumulators that live
// across loop bodies.
func (g *gen) reserve(k int) []V {
	out := make([]V, k)
	for j := range out {
		out[j] = V(16 - g.reserved - k + j)
	}
	g.reserved += k
	g.resetRegs()
	return out
}

// regs allocates k consecutive work registers (VLD1 and VST1 lists).
func (g *gen) regs(k int) []V {
	for s := 0; s+k <= len(g.free); s++ {
		ok := true
		for j := s; j < s+k; j++ {
			ok = ok && g.free[j]
		}
		if ok {
			out := make([]V, k)
			for j := range out {
				g.free[s+j] = false
				out[j] = V(s + j)
			}
			return out
		}
	}
	log.Fatalf("out of vector registers")
	return nil
}

func (g *gen) reg() V { return g.regs(1)[0] }

func (g *gen) release(vs ...V) {
	for _, v := range vs {
		if v < 16 {
			g.free[v] = true
		}
	}
}

// c returns the register of constant k, which the kernel must have loaded
// with useConsts.
func (g *gen) c(k konst) V {
	r, ok := g.consts[k]
	if !ok {
		log.Fatalf("constant %s not loaded", k.name)
	}
	return r
}

// useConsts loads constants into V16 upwards.
func (g *gen) useConsts(ks ...konst) {
	for _, k := range ks {
		if _, ok := g.consts[k]; ok {
			continue
		}
		r := g.nextConst
		if r > 31 {
			log.Fatalf("out of constant registers")
		}
		g.nextConst++
		g.consts[k] = r
		g.p("MOVW $0x%08x, R10 // %s", k.bits, k.name)
		g.p("VDUP R10, %s", r.S4())
	}
}

// bcast broadcasts float32 parameter name into a constant register.
func (g *gen) bcast(name string) V {
	r := g.nextConst
	if r > 31 {
		log.Fatalf("out of constant registers")
	}
	g.nextConst++
	g.p("FMOVS %s+%d(FP), %s", name, g.args[name], r.F())
	g.dup0(r)
	return r
}

// ---- kernels ------------------------------------------------------------

// param is one parameter or result of a kernel signature.
type param struct{ name, typ string }

// text starts kernel name with Go signature params → results (float32
// results only) and records the frame offsets.
func (g *gen) text(name, params, results, doc string) {
	g.kernels = append(g.kernels, name)
	ps, rs := parseParams(params), parseParams(results)
	g.args = map[string]int{}
	off := 0
	for _, p := range ps {
		switch p.typ {
		case "[]float32", "[]uint16":
			off = align(off, 8)
			g.args[p.name+"_base"] = off
			g.args[p.name+"_len"] = off + 8
			off += 24
		case "float32":
			off = align(off, 4)
			g.args[p.name] = off
			off += 4
		default:
			log.Fatalf("type %s", p.typ)
		}
	}
	if len(rs) > 0 {
		off = align(off, 8)
	}
	for _, r := range rs {
		g.args[r.name] = off
		off += 4
	}
	sig := fmt.Sprintf("func %sNEON(%s)", name, params)
	if results != "" {
		sig += " (" + results + ")"
	}
	fmt.Fprintf(&g.stubs, "\n// %sNEON %s\n//\n//go:noescape\n%s\n", name, doc, sig)
	fmt.Fprintf(&g.asm, "\n// %s\nTEXT ·%sNEON(SB), NOSPLIT, $0-%d\n", sig, name, off)
	g.consts = map[konst]V{}
	g.nextConst = 16
	g.reserved = 0
	g.resetRegs()
}

func align(off, a int) int { return (off + a - 1) / a * a }

// parseParams reads "a, b []float32, s float32" or "m, d float32".
func parseParams(s string) []param {
	var out []param
	var pending []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		parts := strings.Fields(f)
		pending = append(pending, parts[0])
		if len(parts) == 2 {
			for _, n := range pending {
				out = append(out, param{n, parts[1]})
			}
			pending = nil
		}
	}
	if len(pending) > 0 {
		log.Fatalf("untyped parameters %v in %q", pending, s)
	}
	return out
}

// ptr loads slice name's base pointer into register r.
func (g *gen) ptr(name, r string) {
	g.p("MOVD %s_base+%d(FP), %s", name, g.args[name+"_base"], r)
}

// length loads slice name's length into register r.
func (g *gen) length(name, r string) {
	g.p("MOVD %s_len+%d(FP), %s", name, g.args[name+"_len"], r)
}

// ---- loops --------------------------------------------------------------

// Loop modes: a block of four vectors, one vector, one element.
const (
	modeBlock = iota
	modeVec
	modeElem
)

// blk is one loop body's view of its streams.
type blk struct {
	g    *gen
	mode int
	vs   int // vectors in this body (4, 1, 1)
}

// elems is the elements one body covers.
func (b *blk) elems() int { return []int{16, 4, 1}[b.mode] }

// load loads b.vs vectors of float32 stream p (a pointer register) and
// advances it.
func (b *blk) load(p string) []V {
	r := b.g.regs(b.vs)
	switch b.mode {
	case modeElem:
		b.g.p("FMOVS.P 4(%s), %s", p, r[0].F())
	default:
		b.g.p("VLD1.P %d(%s), [%s]", 16*b.vs, p, list(r))
	}
	return r
}

// store stores vectors r to float32 stream p and advances it.
func (b *blk) store(p string, r []V) {
	switch b.mode {
	case modeElem:
		b.g.p("FMOVS.P %s, 4(%s)", r[0].F(), p)
	default:
		b.g.p("VST1.P [%s], %d(%s)", list(r), 16*len(r), p)
	}
}

// list writes a VLD1/VST1 register list; the registers must be
// consecutive.
func list(r []V) string {
	s := make([]string, len(r))
	for i, v := range r {
		if i > 0 && v != r[i-1]+1 {
			log.Fatalf("register list %v not consecutive", r)
		}
		s[i] = v.S4()
	}
	return strings.Join(s, ", ")
}

// loop runs body over the R9 elements: blocks of 16, vectors of 4, then
// single elements (or the given modes only; modeElem must be last). Each
// body starts with all work registers free.
func (g *gen) loop(body func(b *blk), modes ...int) {
	if len(modes) == 0 {
		modes = []int{modeBlock, modeVec, modeElem}
	}
	done := g.label("done")
	for _, mode := range modes {
		step := []int{16, 4, 1}[mode]
		top, next := g.label("loop"), g.label("next")
		g.p("// %s", []string{"blocks of 4 vectors", "single vectors", "single elements"}[mode])
		fmt.Fprintf(&g.asm, "%s:\n", top)
		g.p("CMP $%d, R9", step)
		g.p("BLT %s", next)
		g.resetRegs()
		body(&blk{g: g, mode: mode, vs: []int{4, 1, 1}[mode]})
		g.p("SUB $%d, R9", step)
		g.p("B %s", top)
		fmt.Fprintf(&g.asm, "%s:\n", next)
		if mode == modeElem {
			fmt.Fprintf(&g.asm, "%s:\n", done)
		}
	}
}

func (g *gen) ret() { g.p("RET") }

// ---- exp ------------------------------------------------------------------

// exp computes e^x in place for each register of xs, step by step across
// them. Without hi every x must be ≤ 0 or NaN (the online merge), which
// saves the upper clamp. NaN stays NaN: FMAX and FMIN return it.
func (g *gen) exp(xs []V, hi bool) {
	each := func(f func(k int)) {
		for k := range xs {
			f(k)
		}
	}
	each(func(k int) { g.fmax(xs[k], xs[k], g.c(cLo)) })
	if hi {
		each(func(k int) { g.fmin(xs[k], xs[k], g.c(cHi)) })
	}
	n, p, t := make([]V, len(xs)), make([]V, len(xs)), make([]V, len(xs))
	each(func(k int) { n[k], p[k], t[k] = g.reg(), g.reg(), g.reg() })
	// n = round(x·log2e), r = x − n·ln2Hi − n·ln2Lo.
	each(func(k int) { g.fmul(n[k], xs[k], g.c(cLog2e)) })
	each(func(k int) { g.frintn(n[k], n[k]) })
	each(func(k int) { g.fmls(xs[k], n[k], g.c(cLn2Hi)) })
	each(func(k int) { g.fmls(xs[k], n[k], g.c(cLn2Lo)) })
	// p = ((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5: FMLA adds to its
	// destination, so each step starts from a copy of the constant.
	each(func(k int) { g.mov(p[k], g.c(cP[1])) })
	each(func(k int) { g.fmla(p[k], xs[k], g.c(cP[0])) })
	for _, c := range cP[2:] {
		each(func(k int) { g.mov(t[k], g.c(c)) })
		each(func(k int) { g.fmla(t[k], xs[k], p[k]) })
		each(func(k int) { p[k], t[k] = t[k], p[k] })
	}
	// e^r = p·r² + r + 1.
	each(func(k int) { g.fmul(t[k], xs[k], xs[k]) })
	each(func(k int) { g.fmla(xs[k], p[k], t[k]) })
	each(func(k int) { g.fadd(xs[k], xs[k], g.c(cOne)) })
	// ·2^n as ·2^(n>>1)·2^(n−n>>1): both factors are normal for n in
	// [−151, 128]; the first product is exact, the second rounds once.
	// With b = n + 254, b>>1 and b − b>>1 are the two biased exponents.
	each(func(k int) { g.fcvtzs(n[k], n[k]) })
	each(func(k int) { g.add(n[k], n[k], g.c(cBias2)) })
	each(func(k int) { g.sshr1(t[k], n[k]) })
	each(func(k int) { g.sub(n[k], n[k], t[k]) })
	each(func(k int) { g.shl(t[k], t[k], 23) })
	each(func(k int) { g.shl(n[k], n[k], 23) })
	each(func(k int) { g.fmul(xs[k], xs[k], t[k]) })
	each(func(k int) { g.fmul(xs[k], xs[k], n[k]) })
	each(func(k int) { g.release(n[k], p[k], t[k]) })
}

// expGroup is the vectors whose exps are interleaved (registers: four
// temporaries each).
const expGroup = 2

// groups calls f with groups of at most expGroup of the indexes 0…vs−1.
func groups(vs int, f func(ks []int)) {
	for k := 0; k < vs; k += expGroup {
		ks := []int{}
		for j := k; j < min(k+expGroup, vs); j++ {
			ks = append(ks, j)
		}
		f(ks)
	}
}

// pick returns the registers of rs at indexes ks.
func pick(rs []V, ks []int) []V {
	out := make([]V, len(ks))
	for j, k := range ks {
		out[j] = rs[k]
	}
	return out
}

// mulSub sets x[k] = x[k]·scale − m, the product rounded first like the
// twins' float32(x*scale) (and the amd64 kernels).
func (g *gen) mulSub(x []V, scale, m V) {
	for _, v := range x {
		g.fmul(v, v, scale)
	}
	for _, v := range x {
		g.fsub(v, v, m)
	}
}

// mulSubLanes sets x[k] = x[k]·scale − m[k], the product rounded first.
func (g *gen) mulSubLanes(x []V, scale V, m []V) {
	for _, v := range x {
		g.fmul(v, v, scale)
	}
	for k := range x {
		g.fsub(x[k], x[k], m[k])
	}
}

func main() {
	out := flag.String("out", "kernels_arm64.s", "assembly output")
	stubs := flag.String("stubs", "stubs_arm64.go", "Go declarations output")
	count := flag.Bool("count", false, "print the instructions-per-element table of docs/cpu-arm64.md (from kernels_arm64.s and kernels_amd64.s) instead")
	flag.Parse()
	if *count {
		arm, err := os.ReadFile("kernels_arm64.s")
		if err != nil {
			log.Fatal(err)
		}
		amd, err := os.ReadFile("kernels_amd64.s")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(countTable(string(arm), string(amd)))
		return
	}
	asm, src := generate(*out, *stubs)
	if err := os.WriteFile(*out, asm, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*stubs, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// generate returns the assembly and the stubs, their header naming the
// output paths.
func generate(out, stubs string) (asm, src []byte) {
	g := &gen{}
	g.all()
	header := fmt.Sprintf("// Code generated by command: go run ./neongen -out %s -stubs %s. DO NOT EDIT.\n\n", out, stubs)
	asm = []byte(header + "//go:build arm64 && !purego\n\n#include \"textflag.h\"\n" + g.asm.String())
	src, err := format.Source([]byte(header + "//go:build arm64 && !purego\n\npackage vec\n" + g.stubs.String()))
	if err != nil {
		log.Fatalf("stubs: %v", err)
	}
	return asm, src
}
