//go:build amd64 && !purego

package vec

// expSumMax runs the assembly xentExp of the set in use (the twin for
// "go"), with out's unaligned head and whatever the kernel's full blocks
// did not reach written by the plain and streaming LogNorm.
func expSumMax(dst, x, next, out, in []float32, scale, m, k, c float32) (s, mx float32) {
	kern, width, ok := bySet(xentExpAVX512, xentExpAVX2)
	if !ok {
		s, mx, _ = xentExpGeneric(dst, x, next, out, in, scale, m, k, c)
		return s, mx
	}
	h := alignHead(out, width)
	logNorm(out[:h], in[:h], k, c, 0)
	s, mx, done := kern(dst, x, next, out[h:], in[h:], scale, m, k, c)
	logNormStream(out[h+done:], in[h+done:], k, c, 0)
	return s, mx
}

// ExpSumMaxNative reports whether ExpSumMax runs assembly: without it the
// cross-entropy keeps its max pass and ExpSumFlush, which the other sets
// have.
func ExpSumMaxNative() bool { return impl == "avx512" || impl == "avx2" }
