package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/spec"
)

// BenchmarkApplyHostCost times the host side of Apply: planning and queuing
// the launch, not the kernel. Calls go in batches of 64 with a device sync
// between batches (untimed), so the launch queue never fills and blocks.
// Under softmax bench's timing a call that costs the host more than the
// work queued ahead of it (the L2 flush) leaves the GPU idle inside the
// timed span, so this cost bounds what small cases can measure.
func BenchmarkApplyHostCost(b *testing.B) {
	d := openOrSkip(b)
	defer d.Close()
	cases := []struct {
		shape []int
		dt    spec.DType
	}{
		{[]int{4096, 256}, spec.Float32}, {[]int{128, 1024}, spec.Float16}, {[]int{4096, 16384}, spec.Float32},
		{[]int{4, 1048576}, spec.Float16}, {[]int{128, 128256}, spec.BFloat16}, {[]int{1, 100000000}, spec.Float32},
		{[]int{4096, 4096}, spec.Float32}, // axis 0 below
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i, c := range cases {
		axis := -1
		if i == len(cases)-1 {
			axis = 0
		}
		x, y := benchTensors(b, d, rng, c.dt, c.shape)
		opt := Options{Axis: axis}
		b.Run(fmt.Sprintf("%dx%d_%v_axis%d/plan", c.shape[0], c.shape[1], c.dt, axis), func(b *testing.B) {
			for range b.N {
				if _, err := d.Plan(spec.Softmax, c.dt, c.shape, opt); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%dx%d_%v_axis%d/apply", c.shape[0], c.shape[1], c.dt, axis), func(b *testing.B) {
			var spent time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if err := d.Apply(spec.Softmax, y, x, opt, nil); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(t0)
				if i%64 == 63 {
					if err := d.Synchronize(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "host-ns/op")
		})
		x.Free()
		y.Free()
	}
}

// benchTensors uploads a random input of shape and allocates an output of
// the same shape and dtype, failing the benchmark on an error.
func benchTensors(b *testing.B, d *Device, rng *rand.Rand, dt spec.DType, shape []int) (x, y Tensor) {
	b.Helper()
	x, err := d.UploadRandom(rng, dt, shape...)
	if err != nil {
		b.Fatal(err)
	}
	if y, err = d.NewTensor(dt, shape...); err != nil {
		b.Fatal(err)
	}
	return x, y
}
