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

// logSoftmaxGrad16 runs the assembly gradient of the set in use on whole
// blocks (float16: logSoftmaxGradF16 on 16; bfloat16: logSoftmaxGradBF16EO
// on one vector of words, AVX-512 32, AVX2 16) and the twin on the rest.
func logSoftmaxGrad16(dx, y, dy []uint16, bf bool, s, scale float32) {
	kern, width, ok := bySet(logSoftmaxGradBF16EOAVX512, logSoftmaxGradBF16EOAVX2)
	block := int(width) / 2
	if !bf {
		kern, _, ok = bySet(logSoftmaxGradF16AVX512, logSoftmaxGradF16AVX2)
		block = 16
	}
	if !ok {
		logSoftmaxGrad16Generic(dx, y, dy, bf, s, scale)
		return
	}
	m := len(dx) / block * block
	kern(dx[:m], y[:m], dy[:m], s, scale)
	logSoftmaxGrad16Generic(dx[m:], y[m:], dy[m:], bf, s, scale)
}

// Grad16Fused says whether LogSoftmaxGrad16 and Sum16 run assembly: where
// they do not, their scalar twins lose to the float32 kernels on converted
// rows.
func Grad16Fused() bool {
	_, _, ok := bySet(0, 0)
	return ok
}
