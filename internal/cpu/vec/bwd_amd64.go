//go:build amd64 && !purego

package vec

// dotBF16 runs the assembly dot of the set in use on whole blocks (AVX-512:
// dotBF16EO on 32, AVX2: dotBF16 on 16) and the twin on the rest (the "go"
// set: the twin on all).
func dotBF16(a, b []uint16) float32 {
	switch impl {
	case "avx512":
		m := len(a) &^ 31
		return dotBF16EOAVX512(a[:m], b[:m]) + dotBF16Generic(a[m:], b[m:])
	case "avx2":
		m := len(a) &^ 15
		return dotBF16AVX2(a[:m], b[:m]) + dotBF16Generic(a[m:], b[m:])
	}
	return dotBF16Generic(a, b)
}

// softmaxGradBF16 runs the assembly softmaxGradBF16 (stream: its
// non-temporal variant from dx's first vector-aligned element) on whole
// blocks of softmaxGradBF16EO (AVX-512: 32 elements, AVX2: 16) and the
// twin on the unaligned head and the rest.
func softmaxGradBF16(dx, y, dy []uint16, s, scale float32, stream bool) {
	var kern func(dx, y, dy []uint16, s, scale float32)
	block, align := 16, uintptr(32)
	switch {
	case impl == "avx512" && stream:
		kern, block, align = softmaxGradBF16EONTAVX512, 32, 64
	case impl == "avx512":
		kern, block = softmaxGradBF16EOAVX512, 32
	case impl == "avx2" && stream:
		kern = softmaxGradBF16EONTAVX2
	case impl == "avx2":
		kern = softmaxGradBF16EOAVX2
	default:
		softmaxGradBF16Generic(dx, y, dy, s, scale)
		return
	}
	h := 0
	if stream {
		h = alignHead(dx, align)
	}
	softmaxGradBF16Generic(dx[:h], y[:h], dy[:h], s, scale)
	m := h + (len(dx)-h)/block*block
	kern(dx[h:m], y[h:m], dy[h:m], s, scale)
	softmaxGradBF16Generic(dx[m:], y[m:], dy[m:], s, scale)
}

// softmaxGradStream runs the assembly softmaxGradNT from dx's first
// vector-aligned element, the twin before it (and for the "go" set).
func softmaxGradStream(dx, y, dy []float32, s, scale float32) {
	var kern func(dx, y, dy []float32, s, scale float32)
	align := uintptr(32)
	switch impl {
	case "avx512":
		kern, align = softmaxGradNTAVX512, 64
	case "avx2":
		kern = softmaxGradNTAVX2
	default:
		softmaxGradScaleGeneric(dx, y, dy, s, scale)
		return
	}
	h := alignHead(dx, align)
	softmaxGradScaleGeneric(dx[:h], y[:h], dy[:h], s, scale)
	kern(dx[h:], y[h:], dy[h:], s, scale)
}

// logSoftmaxGradStream runs the assembly logSoftmaxGradNT from dx's first
// vector-aligned element, the set's plain kernels before it (and for the
// "go" set), so that every element has the plain path's bits.
func logSoftmaxGradStream(dx, y, dy []float32, s, scale float32) {
	var kern func(dx, y, dy []float32, s, scale float32)
	align := uintptr(32)
	switch impl {
	case "avx512":
		kern, align = logSoftmaxGradNTAVX512, 64
	case "avx2":
		kern = logSoftmaxGradNTAVX2
	default:
		logSoftmaxGradScale(dx, y, dy, s, scale)
		return
	}
	h := alignHead(dx, align)
	logSoftmaxGradScale(dx[:h], y[:h], dy[:h], s, scale)
	kern(dx[h:], y[h:], dy[h:], s, scale)
}
