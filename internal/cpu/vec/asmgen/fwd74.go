package main

// The 16-bit forward row kernels of internal/cpu (rowCached16): the max and
// the exp pass read float16 or bfloat16 rows directly, converting in
// registers, and the normalizing pass rounds to 16 bits as it stores, so a
// row takes three passes over its L1-resident data instead of five (a
// conversion to float32 scratch, max, exp+sum, normalize, a conversion
// back) and no float32 copy of the input. The exp pass, which bounds these
// rows on a 2-core machine, is fwd16s70.go's.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The constants of the 16-bit rows' first exp (exp16, since replaced by
// fwd16s70.go's), which main.go's table keeps.
const (
	ln2     = 0.693147180559945309
	exp16Q2 = 0.499992311000824
	exp16Q3 = 0.16667114198207855
	exp16Q4 = 0.041890114545822144
	exp16Q5 = 0.008312525227665901
)

// emitFwd74 emits this file's kernels for both instruction sets, after the
// others, so that their assembly stays as it was.
func emitFwd74() {
	// bf16Pack indexes the high words of two vectors of dwords (VPERMT2W).
	bf16Pack = GLOBL("bf16pack", RODATA|NOPTR)
	for j := 0; j < 32; j++ {
		DATA(2*j, U16(2*j+1))
	}
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		for _, bf := range []bool{false, true} {
			g.max16(bf)
			g.normalize16(bf, false)
			g.normalize16(bf, true)
		}
	}
}

var bf16Pack Mem

// name16 is "BF16" or "F16".
func name16(bf bool) string {
	if bf {
		return "BF16"
	}
	return "F16"
}

// load16 loads 16-bit vector k of base (bfloat16 with bf, else float16)
// as float32 (full blocks only).
func (g *gen) load16(base reg.GPVirtual, k int, bf bool) reg.VecVirtual {
	if bf {
		return g.loadBF16(base, k)
	}
	r := g.vec()
	VCVTPH2PS(g.at(base, k, 2), r)
	return r
}

func (g *gen) max16(bf bool) {
	t := name16(bf)
	g.text("max"+t, "func(x []uint16, scale float32) float32",
		"is maxOf of "+t+" values; len(x) must be a multiple of 16.")
	px, n := ptr("x"), length("x")
	scale := g.bcast("scale")
	pl := g.permBF16For(bf) // bf16s71b.go
	// Scale 1 skips the multiply: x·1 is x, and the pass is a third faster.
	g.unitScale(scale, func(one bool) {
		acc := g.accs(unroll, true)
		g.loop(n, unroll, func(vs int) {
			for k := 0; k < vs; k++ {
				v := g.load16P(pl, px, k, bf)
				if !one {
					VMULPS(v, scale, v)
				}
				maxKeepNaN(acc[k], v, acc[k])
			}
		}, noTail)
		g.reduceMax(acc)
		g.ret()
	})
}

func (g *gen) normalize16(bf, nt bool) {
	t := name16(bf)
	name, doc := "normalize"+t, "writes dst[i] = "+t+"(x[i]·k); len(dst) must be a multiple of 16."
	if nt {
		name, doc = "normalize"+t+"NT", "is normalize"+t+" with non-temporal stores; dst must be 64-byte aligned."
	}
	g.text(name, "func(dst []uint16, x []float32, k float32)", doc)
	pd, n, px := ptr("dst"), length("dst"), ptr("x")
	kv := g.bcast("k")
	scaled := func(k int) reg.VecVirtual {
		v := g.vec()
		VMULPS(g.at(px, k, 4), kv, v)
		return v
	}
	if bf && g.avx512 {
		g.normalizeBF16Pairs(pd, n, scaled, nt)
		return
	}
	if bf {
		round := func(k int) reg.VecVirtual { return g.roundBF16(scaled(k)) }
		g.loop(n, unroll, func(vs int) { g.storeBF16(vs, round, pd, nt) }, noTail)
		g.ret()
		return
	}
	g.loop(n, unroll, func(vs int) {
		for k := 0; k < vs; k++ {
			g.storeF16(scaled(k), g.at(pd, k, 2), nt)
		}
	}, noTail)
	g.ret()
}

// normalizeBF16Pairs is normalize16's AVX-512 bfloat16 loop: each vector
// rounded by roundHi keeps its bfloat16 in the high word of each dword, and
// VPERMT2W packs two of them into one 64-byte store, where roundBF16 and
// VPMOVDW took 11 ops a vector (0.113 ns/element in L1 on Zen 4); the NaN
// test is one unordered compare. nt needs dst 64-byte aligned.
func (g *gen) normalizeBF16Pairs(pd, n reg.GPVirtual, scaled func(k int) reg.VecVirtual, nt bool) {
	g.hoist(cInt1, cInt7FFF, cQuietHi)
	idx := g.vec()
	VMOVDQU32(bf16Pack, idx)
	round := func(k int) reg.VecVirtual { return g.roundHi(scaled(k)) }
	g.loop(n, unroll, func(vs int) {
		k := 0
		for ; k+1 < vs; k += 2 {
			t0, t1 := round(k), round(k+1)
			VPERMT2W(t1, idx, t0)
			g.storeWords(t0, g.at(pd, k, 2), nt)
		}
		if k < vs {
			t := round(k)
			VPSRLD(Imm(16), t, t)
			h := YMM()
			VPMOVDW(t, h)
			VMOVDQU16(h, g.at(pd, k, 2))
		}
	}, noTail)
	g.ret()
}
