//go:build amd64 && !purego

package vec

// expSumMax runs the assembly xentExp of the set in use (the twin for
// "go"), with out's unaligned head and whatever the kernel's full blocks
// did not reach written by the plain and streaming LogNorm.
func expSumMax(dst, x, next, out, in []float32, scale, m, k, c float32) (s, mx float32) {
	var kern func(dst, x, next, out, in []float32, scale, m, k, c float32) (float32, float32, int)
	align := uintptr(32)
	switch impl {
	case "avx512":
		kern, align = xentExpAVX512, 64
	case "avx2":
		kern = xentExpAVX2
	default:
		s, mx, _ = xentExpGeneric(dst, x, next, out, in, scale, m, k, c)
		return s, mx
	}
	h := alignHead(out, align)
	logNorm(out[:h], in[:h], k, c, 0)
	s, mx, done := kern(dst, x, next, out[h:], in[h:], scale, m, k, c)
	logNormStream(out[h+done:], in[h+done:], k, c, 0)
	return s, mx
}

// ExpSumMaxNative reports whether ExpSumMax runs assembly: without it the
// cross-entropy keeps its max pass and ExpSumFlush, which the other sets
// have.
func ExpSumMaxNative() bool { return impl == "avx512" || impl == "avx2" }
