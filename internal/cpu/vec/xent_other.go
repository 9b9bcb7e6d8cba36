//go:build !amd64 || purego

package vec

// expSumMax is the twin where there is no assembly xentExp.
func expSumMax(dst, x, next, out, in []float32, scale, m, k, c float32) (s, mx float32) {
	s, mx, _ = xentExpGeneric(dst, x, next, out, in, scale, m, k, c)
	return s, mx
}

// ExpSumMaxNative reports whether ExpSumMax runs assembly: without it the
// cross-entropy keeps its max pass and ExpSumFlush, which the other sets
// have.
func ExpSumMaxNative() bool { return false }
