package cpu

import (
	"fmt"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/spec"
)

// BenchmarkFastest16 times Forward on 16-bit rows, in cache and issue 74's
// two cases, reporting the fastest of b.N calls in ns per element: the
// kernels' cost on a machine shared with other work, which the mean of
// BenchmarkForward blurs (rows.go's 16-bit figures; -cpu 1 for one core).
func BenchmarkFastest16(b *testing.B) {
	for _, c := range []struct {
		rows, n int
		dt      spec.DType
	}{{512, 1024, spec.BFloat16}, {128, 4096, spec.Float16}, {8192, 1024, spec.BFloat16}, {1024, 4096, spec.Float16}} {
		l, err := spec.Decompose([]int{c.rows, c.n}, -1)
		if err != nil {
			b.Fatal(err)
		}
		x, y := benchBuf(c.dt, c.rows*c.n), benchBuf(c.dt, c.rows*c.n)
		b.Run(fmt.Sprintf("%dx%d:%s", c.rows, c.n, c.dt), func(b *testing.B) {
			best := time.Duration(1 << 62)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				Forward(spec.Softmax, l, 1, y, x)
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(best.Nanoseconds())/float64(c.rows*c.n), "ns/el")
		})
	}
}
