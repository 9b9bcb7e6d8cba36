package main

// The streamed float32 log_softmax_backward row kernel of internal/cpu:
// dx = (dy − exp(y)·s)·scale in one pass with non-temporal stores, so that
// a large dx is not first read from memory line by line (its plain stores'
// read-for-ownership is a quarter of the op's traffic) and no chunk goes
// through scratch and a second pass. It is kernels.go's logSoftmaxGrad with
// nt: the same roundings in the same order, then the multiplication.

// emitBwd74 emits this file's kernels for both instruction sets, after the
// others, so that their assembly stays as it was.
func emitBwd74() {
	for _, g := range []*gen{{avx512: false, w: 8, suffix: "AVX2"}, {avx512: true, w: 16, suffix: "AVX512"}} {
		g.logSoftmaxGrad(true)
	}
}
