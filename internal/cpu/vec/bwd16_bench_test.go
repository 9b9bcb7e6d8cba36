package vec

import (
	"fmt"
	"testing"
)

// BenchmarkLogBwd16 times the two passes of a 16-bit log_softmax_backward
// row in L1 (gradRow's log16Grad path): the sum of dy, then the gradient.
func BenchmarkLogBwd16(b *testing.B) {
	for _, bf := range []bool{true, false} {
		for _, n := range []int{1024, 4096} {
			y, dy, dx := make([]uint16, n), make([]uint16, n), make([]uint16, n)
			conv := F32ToF16
			if bf {
				conv = F32ToBF16
			}
			conv(y, benchFloats(n, -8, 0))
			conv(dy, benchFloats(n, -1, 1))
			t := name16(bf)
			from, to := F16ToF32, F32ToF16
			if bf {
				from, to = BF16ToF32, F32ToBF16
			}
			fy, fdy, fdx := make([]float32, n), make([]float32, n), make([]float32, n)
			// The float32 path the two passes replace (gradRow before).
			b.Run(fmt.Sprintf("%s/f32path/%d", t, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					from(fy, y)
					from(fdy, dy)
					LogSoftmaxGrad(fdx, fy, fdy, Sum(fdy)*0.3)
					Normalize(fdx, fdx, 0.7)
					to(dx, fdx)
				}
			})
			b.Run(fmt.Sprintf("%s/sum/%d", t, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkF = Sum16(dy, bf)
				}
			})
			b.Run(fmt.Sprintf("%s/grad/%d", t, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					LogSoftmaxGrad16(dx, y, dy, bf, 0.3, 0.7)
				}
			})
			b.Run(fmt.Sprintf("%s/grad1/%d", t, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					LogSoftmaxGrad16(dx, y, dy, bf, 0.3, 1)
				}
			})
		}
	}
}

// name16 is "BF16" or "F16".
func name16(bf bool) string {
	if bf {
		return "BF16"
	}
	return "F16"
}
