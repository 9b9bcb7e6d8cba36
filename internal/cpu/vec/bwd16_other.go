//go:build !amd64 || purego

package vec

// sum16 and logSoftmaxGrad16 are the twins where there is no assembly.
func sum16(a []uint16, bf bool) float32 { return sum16Generic(a, bf) }

func logSoftmaxGrad16(dx, y, dy []uint16, bf bool, s, scale float32, _ bool) {
	logSoftmaxGrad16Generic(dx, y, dy, bf, s, scale)
}

// Grad16Fused says whether LogSoftmaxGrad16 and Sum16 run assembly: here
// they do not, and their scalar twins lose to the float32 kernels (NEON
// where there is) on converted rows.
func Grad16Fused() bool { return false }
