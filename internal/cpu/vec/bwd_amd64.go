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
// blocks of softmaxGradBF16EO (one vector: AVX-512 32 elements, AVX2 16)
// and the twin on the unaligned head and the rest.
func softmaxGradBF16(dx, y, dy []uint16, s, scale float32, stream bool) {
	kern, width, ok := bySet(softmaxGradBF16EOAVX512, softmaxGradBF16EOAVX2)
	if !ok {
		softmaxGradBF16Generic(dx, y, dy, s, scale)
		return
	}
	h := 0
	if stream {
		kern, _, _ = bySet(softmaxGradBF16EONTAVX512, softmaxGradBF16EONTAVX2)
		h = alignHead(dx, width)
	}
	softmaxGradBF16Generic(dx[:h], y[:h], dy[:h], s, scale)
	block := int(width) / 2 // bfloat16 elements a vector
	m := h + (len(dx)-h)/block*block
	kern(dx[h:m], y[h:m], dy[h:m], s, scale)
	softmaxGradBF16Generic(dx[m:], y[m:], dy[m:], s, scale)
}

// softmaxGradStream runs the assembly softmaxGradNT from dx's first
// vector-aligned element, the twin before it (and for the "go" set).
func softmaxGradStream(dx, y, dy []float32, s, scale float32) {
	gradStream(dx, y, dy, s, scale, softmaxGradNTAVX512, softmaxGradNTAVX2, softmaxGradScaleGeneric)
}

// logSoftmaxGradStream runs the assembly logSoftmaxGradNT from dx's first
// vector-aligned element, the set's plain kernels before it (and for the
// "go" set), so that every element has the plain path's bits.
func logSoftmaxGradStream(dx, y, dy []float32, s, scale float32) {
	gradStream(dx, y, dy, s, scale, logSoftmaxGradNTAVX512, logSoftmaxGradNTAVX2, logSoftmaxGradScale)
}

// gradStream runs the non-temporal kernel of the set in use (avx512 or
// avx2) from dx's first vector-aligned element and plain before it (and
// on all of dx for the "go" set).
func gradStream(dx, y, dy []float32, s, scale float32, avx512, avx2, plain func(dx, y, dy []float32, s, scale float32)) {
	kern, width, ok := bySet(avx512, avx2)
	if !ok {
		plain(dx, y, dy, s, scale)
		return
	}
	h := alignHead(dx, width)
	plain(dx[:h], y[:h], dy[:h], s, scale)
	kern(dx[h:], y[h:], dy[h:], s, scale)
}
