//go:build !amd64 || purego

package vec

// dotBF16, softmaxGradBF16 and softmaxGradStream are the twins where there is no assembly.
func dotBF16(a, b []uint16) float32 { return dotBF16Generic(a, b) }

func softmaxGradBF16(dx, y, dy []uint16, s, scale float32, _ bool) {
	softmaxGradBF16Generic(dx, y, dy, s, scale)
}

func softmaxGradStream(dx, y, dy []float32, s, scale float32) {
	softmaxGradScaleGeneric(dx, y, dy, s, scale)
}

func logSoftmaxGradStream(dx, y, dy []float32, s, scale float32) {
	logSoftmaxGradScale(dx, y, dy, s, scale)
}
