//go:build amd64 && !purego

package vec

// expSumMax runs the assembly xentExp of the set in use (the twin for
// "go"), with out's unaligned head and whatever the kernel's full blocks
// did not reach written by the plain and streaming normalize.
func expSumMax(dst, x, next, out, in []float32, scale, m, k float32) (s, mx float32) {
	var kern func(dst, x, next, out, in []float32, scale, m, k float32) (float32, float32, int)
	align := uintptr(32)
	switch impl {
	case "avx512":
		kern, align = xentExpAVX512, 64
	case "avx2":
		kern = xentExpAVX2
	default:
		s, mx, _ = xentExpGeneric(dst, x, next, out, in, scale, m, k)
		return s, mx
	}
	h := alignHead(out, align)
	normalize(out[:h], in[:h], k)
	s, mx, done := kern(dst, x, next, out[h:], in[h:], scale, m, k)
	normalizeStream(out[h+done:], in[h+done:], k)
	return s, mx
}

// ExpSumMaxNative reports whether ExpSumMax runs assembly: without it the
// cross-entropy keeps its max pass and ExpSumFlush, which the other sets
// have.
func ExpSumMaxNative() bool { return impl == "avx512" || impl == "avx2" }
