//go:build !amd64 || purego

package vec

// max16, expSum16 and normalize16 are the twins where there is no assembly.
func max16(x []uint16, bf bool, scale float32) float32 { return max16Generic(x, bf, scale) }

func expSum16(dst []float32, x []uint16, bf bool, _ []float32, scale, m float32) float32 {
	return expSum16Generic(dst, x, bf, scale, m)
}

func normalize16(dst []uint16, bf bool, x []float32, k float32, _ bool) {
	normalize16Generic(dst, bf, x, k)
}

func normalize16Max(dst []uint16, bf bool, x []float32, k float32, _ bool, next []uint16, scale float32) float32 {
	normalize16Generic(dst, bf, x, k)
	return max16Generic(next, bf, scale)
}
