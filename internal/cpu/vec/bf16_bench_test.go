package vec

import (
	"fmt"
	"testing"
)

// BenchmarkMaxBF16 times the max pass of a bfloat16 row in L1 at a scale
// ≤ 0, where maxBitsBF16 cannot serve and maxBF16 converts every element.
func BenchmarkMaxBF16(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		u := make([]uint16, n)
		F32ToBF16(u, benchFloats(n, -8, 8))
		for _, scale := range []float32{-1, 0} {
			b.Run(fmt.Sprintf("scale%g/%d", scale, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					sinkF = Max16(u, true, scale)
				}
			})
		}
	}
}

// BenchmarkBwdBF16 times the two passes of a bfloat16 softmax_backward row
// in L1 (gradRow's bf16Grad path): the dot, then the gradient.
func BenchmarkBwdBF16(b *testing.B) {
	for _, n := range []int{1024, 4096} {
		y, dy, dx := make([]uint16, n), make([]uint16, n), make([]uint16, n)
		F32ToBF16(y, benchFloats(n, 0, 1))
		F32ToBF16(dy, benchFloats(n, -1, 1))
		b.Run(fmt.Sprintf("dot/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sinkF = DotBF16(y, dy)
			}
		})
		b.Run(fmt.Sprintf("grad/%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				SoftmaxGradBF16(dx, y, dy, 0.3, 0.7)
			}
		})
	}
}
