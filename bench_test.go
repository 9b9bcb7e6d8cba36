package softmax

import (
	"fmt"
	"testing"
)

// Benchmarks of the CPU backend; bytes are the minimum traffic (read x,
// write y), so MB/s compares directly with memory bandwidth.
func BenchmarkCPU(b *testing.B) {
	cases := []struct {
		shape []int
		axis  int
		op    Op
	}{
		{[]int{4096, 4096}, -1, OpSoftmax},
		{[]int{1, 1 << 24}, -1, OpSoftmax},
		{[]int{4096, 4096}, 0, OpSoftmax},
		{[]int{4096, 4096}, -1, OpLogSoftmax},
		{[]int{128, 1000}, -1, OpSoftmax},
		{[]int{4096, 4, 1024}, 1, OpSoftmax}, // a short non-last axis: per-lane costs every 4 elements
	}
	for _, c := range cases {
		for _, dt := range []DType{Float32, Float16, Float64} {
			b.Run(fmt.Sprintf("%v/%v/axis%d/%v", c.op, dt, c.axis, c.shape), func(b *testing.B) {
				x, _ := NewTensor(dt, c.shape...)
				for i := range x.F32 {
					x.F32[i] = float32(i%977) * 0.01
				}
				for i := range x.U16 {
					x.U16[i] = FloatToHalfBits(float32(i%977) * 0.01)
				}
				for i := range x.F64 {
					x.F64[i] = float64(i%977) * 0.01
				}
				y, _ := NewTensor(dt, c.shape...)
				b.SetBytes(int64(2 * x.Len() * dt.Size()))
				for b.Loop() {
					if err := Apply(c.op, y, x, Options{Axis: c.axis}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
