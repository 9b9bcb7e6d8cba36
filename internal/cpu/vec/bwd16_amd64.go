//go:build amd64 && !purego

package vec

// sum16 runs the assembly sum16 of the set in use on whole blocks of 16
// and sum16Rest on the rest (the "go" set: the twin on all).
func sum16(a []uint16, bf bool) float32 {
	kern, _, ok := bySet(sumF16AVX512, sumF16AVX2)
	if bf {
		kern, _, ok = bySet(sumBF16AVX512, sumBF16AVX2)
	}
	if !ok {
		return sum16Generic(a, bf)
	}
	m := len(a) &^ 15
	return kern(a[:m]) + sum16Rest(a[m:], bf)
}

// logSoftmaxGrad16 runs the assembly gradient of the set in use (stream:
// its non-temporal variant from dx's first aligned element) on whole
// blocks (float16: logSoftmaxGradF16 on 16; bfloat16: logSoftmaxGradBF16EO
// on one vector of words, AVX-512 32, AVX2 16) and the twin on the
// unaligned head and the rest.
func logSoftmaxGrad16(dx, y, dy []uint16, bf bool, s, scale float32, stream bool) {
	var kern func(dx, y, dy []uint16, s, scale float32)
	var width uintptr
	var ok bool
	block := 16
	switch {
	case bf && stream:
		kern, width, ok = bySet(logSoftmaxGradBF16EONTAVX512, logSoftmaxGradBF16EONTAVX2)
		block = int(width) / 2
	case bf:
		kern, width, ok = bySet(logSoftmaxGradBF16EOAVX512, logSoftmaxGradBF16EOAVX2)
		block = int(width) / 2
	case stream:
		// A float16 store is half a float32 vector wide.
		kern, width, ok = bySet(logSoftmaxGradF16NTAVX512, logSoftmaxGradF16NTAVX2)
		width /= 2
	default:
		kern, _, ok = bySet(logSoftmaxGradF16AVX512, logSoftmaxGradF16AVX2)
	}
	if !ok {
		logSoftmaxGrad16Generic(dx, y, dy, bf, s, scale)
		return
	}
	h := 0
	if stream {
		h = alignHead(dx, width)
	}
	logSoftmaxGrad16Generic(dx[:h], y[:h], dy[:h], bf, s, scale)
	m := h + (len(dx)-h)/block*block
	kern(dx[h:m], y[h:m], dy[h:m], s, scale)
	logSoftmaxGrad16Generic(dx[m:], y[m:], dy[m:], bf, s, scale)
}

// Grad16Fused says whether LogSoftmaxGrad16 and Sum16 run assembly: where
// they do not, their scalar twins lose to the float32 kernels on converted
// rows.
func Grad16Fused() bool {
	_, _, ok := bySet(0, 0)
	return ok
}
