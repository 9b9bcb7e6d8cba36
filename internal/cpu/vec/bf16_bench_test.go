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
