package main

// Session 71's second use of fwd16s71.go's VPERMW load (permBF16): maxBF16,
// the AVX-512 max pass of bfloat16 rows at scales ≤ 0 (where maxBitsBF16
// cannot serve), loads by one VPERMW instead of VPMOVZXWD and VPSLLD: a row
// of 4096 in L1 went from 189 to 153 ns (BenchmarkMaxBF16, scale 0, median
// of 8 alternated runs). Tried and left out: bf16ToF32, bound by its loads
// and stores (4096: 154 ns either way; 65536: 3770 to 4058 ns); the
// backward's even/odd kernels (cpu74c.go) widen by one shift or AND a
// vector: softmaxGradBF16EO by VPERMW and a VPERMT2W pack took 603 ns a row
// of 4096 to its 613 (medians of 10, within noise), and dotBF16EO's
// accumulation order is its twin's.

// permBF16For returns max16's loader: permBF16 for AVX-512 bfloat16, nil
// (load16) otherwise.
func (g *gen) permBF16For(bf bool) *permBF16 {
	return g.newPermBF16(g.avx512 && bf)
}
