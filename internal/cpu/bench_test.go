package cpu

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// BenchmarkForward times Forward on the cpu suite's shapes (run with -cpu
// 1,2 for the per-thread throughput that minWorkBytes derives from).
func BenchmarkForward(b *testing.B) {
	cases := []struct {
		shape []int
		axis  int
		dt    spec.DType
		op    spec.Op
	}{
		{[]int{4096, 4096}, -1, spec.Float32, spec.Softmax},
		{[]int{1, 1 << 24}, -1, spec.Float32, spec.Softmax},
		{[]int{4096, 4096}, 0, spec.Float32, spec.Softmax},
		{[]int{1024, 4096}, -1, spec.Float16, spec.Softmax},
		{[]int{8192, 1024}, -1, spec.BFloat16, spec.Softmax},
		{[]int{128, 32000}, -1, spec.Float32, spec.LogSoftmax},
		{[]int{64, 1024}, -1, spec.Float32, spec.Softmax},
		{[]int{16, 4096}, -1, spec.Float16, spec.Softmax},
		{[]int{8192, 1024}, -1, spec.Float16, spec.Softmax},
		{[]int{2048, 4096}, -1, spec.BFloat16, spec.Softmax},
		{[]int{1024, 4096}, -1, spec.BFloat16, spec.Softmax},
		{[]int{512, 1024}, -1, spec.BFloat16, spec.Softmax},
	}
	for _, c := range cases {
		l, err := spec.Decompose(c.shape, c.axis)
		if err != nil {
			b.Fatal(err)
		}
		n := l.Len()
		x, y := benchBuf(c.dt, n), benchBuf(c.dt, n)
		b.Run(fmt.Sprintf("%dx%d:%s:%d:%s", c.shape[0], c.shape[1], c.dt, c.axis, c.op), func(b *testing.B) {
			b.SetBytes(int64(2 * n * c.dt.Size()))
			for i := 0; i < b.N; i++ {
				Forward(c.op, l, 1, y, x)
			}
		})
	}
}

func benchBuf(dt spec.DType, n int) Buf {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	f := make([]float32, n)
	for i := range f {
		f[i] = float32(r.NormFloat64() * 3)
	}
	switch dt {
	case spec.Float16:
		u := make([]uint16, n)
		vec.F32ToF16(u, f)
		return Buf{DType: dt, U16: u}
	case spec.BFloat16:
		u := make([]uint16, n)
		vec.F32ToBF16(u, f)
		return Buf{DType: dt, U16: u}
	}
	return Buf{DType: dt, F32: f}
}

type nop struct{}

func (nop) run(i, parts int, s *scratch) {}

// BenchmarkParallelWake is the pool's cost of one call that hands shares
// to idle workers and waits for them: the fan-out overhead minWorkBytes
// weighs against.
func BenchmarkParallelWake(b *testing.B) {
	for _, parts := range []int{1, 2, 4} {
		b.Run(fmt.Sprint(parts), func(b *testing.B) {
			var c call
			for i := 0; i < b.N; i++ {
				parallel(nop{}, parts, &c.wg)
			}
		})
	}
}

// busy is a part whose shares each spin for d.
type busy struct{ d time.Duration }

func (b busy) run(i, parts int, s *scratch) {
	for t0 := time.Now(); time.Since(t0) < b.d; {
	}
}

// BenchmarkFanOutBusy times calls of 40 µs of work a worker on every
// thread, cut as fanOut cuts it (sharesPerWorker shares a worker) and as
// one share a worker, with workers that poll spinFor for the next call
// and without: what a call loses to waking the workers, against the ideal
// 40 µs.
func BenchmarkFanOutBusy(b *testing.B) {
	p := runtime.GOMAXPROCS(0)
	defer spinFor.Store(spinFor.Load())
	for _, spin := range []time.Duration{0, time.Duration(spinFor.Load())} {
		for _, per := range []int{1, sharesPerWorker} {
			b.Run(fmt.Sprintf("shares=%dx%d/spin=%v", p, per, spin), func(b *testing.B) {
				spinFor.Store(int64(spin))
				var wg sync.WaitGroup
				for i := 0; i < b.N; i++ {
					parallelOn(busy{40 * time.Microsecond / time.Duration(per)}, p*per, p, &wg)
				}
			})
		}
	}
}

// BenchmarkBackwardSkew times the float32 backward rows with dx starting
// 0, 16 and 528 elements past y's and dy's page offsets (Go's large
// allocations are page-aligned, so by default all three share them, and an
// Intel core's load can stall behind an older store 4 KB away: "4K
// aliasing"), with plain and with non-temporal stores, on two rotating
// buffer sets as softmax bench uses.
func BenchmarkBackwardSkew(b *testing.B) {
	defer SetStreamWorkers(SetStreamWorkers(0))
	for _, c := range []struct {
		rows, n int
		op      spec.Op
	}{{128, 32000, spec.LogSoftmaxBackward}, {4096, 4096, spec.SoftmaxBackward}} {
		l, err := spec.Decompose([]int{c.rows, c.n}, -1)
		if err != nil {
			b.Fatal(err)
		}
		n := l.Len()
		type set struct{ y, dy Buf }
		sets := []set{{benchBuf(spec.Float32, n), benchBuf(spec.Float32, n)}, {benchBuf(spec.Float32, n), benchBuf(spec.Float32, n)}}
		for _, skew := range []int{0, 16, 528} {
			dxs := []Buf{benchBuf(spec.Float32, n+skew), benchBuf(spec.Float32, n+skew)}
			for k := range dxs {
				dxs[k].F32 = dxs[k].F32[skew : skew+n]
			}
			for _, nt := range []bool{false, true} {
				b.Run(fmt.Sprintf("%dx%d:%s/skew=%d/nt=%v", c.rows, c.n, c.op, skew, nt), func(b *testing.B) {
					SetStreamWorkers(map[bool]int{false: 0, true: 1 << 30}[nt])
					b.SetBytes(int64(3 * 4 * n))
					for i := 0; i < b.N; i++ {
						s := sets[i%2]
						Backward(c.op, l, 1, dxs[i%2], s.y, s.dy)
					}
				})
			}
		}
	}
}
