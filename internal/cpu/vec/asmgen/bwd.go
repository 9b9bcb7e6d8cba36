package main

// The softmax_backward row kernels of internal/cpu: for bfloat16 rows
// (gradRow) the dot Σ y·dy straight from the 16-bit rows, and dx =
// scale·y·(dy − s) converted on the fly and rounded to bfloat16, so that a
// row takes two passes over its L1-resident data instead of five (two
// conversions, dot, gradient, conversion back) and no float32 scratch; for
// streamed float32 dx (gradOut's gradNT) the scaled gradient stored
// non-temporally in one pass, not through scratch and a second pass
// (kernels.go's softmaxGrad with nt). The bfloat16 gradient, and AVX-512's
// dot, are cpu74c.go's even/odd kernels now; AVX2's dot stays here (the
// order of Dot of the converted values).

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// emitBwd emits this file's kernels for both instruction sets, after the
// others, so that their assembly stays as it was.
func emitBwd() {
	// The bfloat16 gradient (both sets) and AVX-512's dot are cpu74c.go's
	// even/odd kernels now.
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		if !g.avx512 {
			g.dotBF16()
		}
		g.softmaxGrad(true)
	}
}

// loadBF16 loads bfloat16 vector k of base as float32 (full blocks only).
func (g *gen) loadBF16(base reg.GPVirtual, k int) reg.VecVirtual {
	r := g.vec()
	VPMOVZXWD(g.at(base, k, 2), r)
	VPSLLD(Imm(16), r, r)
	return r
}

// noTail is the scalar tail of kernels whose callers pass whole vectors.
func noTail(reg.GPVirtual) {}

func (g *gen) dotBF16() {
	g.text("dotBF16", "func(a, b []uint16) float32",
		"returns Σ a[i]·b[i] of bfloat16 values in float32; len(a) must be a multiple of 16.")
	pa, n, pb := ptr("a"), length("a"), ptr("b")
	acc := g.accs(unroll, false)
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			a, b := g.loadBF16(pa, k), g.loadBF16(pb, k)
			VFMADD231PS(b, a, acc[k])
		}
	}, noTail)
	g.reduceSum(acc)
	g.ret()
}
