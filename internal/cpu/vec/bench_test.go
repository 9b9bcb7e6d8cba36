package vec

import (
	"fmt"
	"math/rand"
	"runtime"
	"sync"
	"testing"
)

// Kernel benchmarks: BenchmarkX/<set>/<n> for every kernel set of this CPU,
// with b.SetBytes counting every byte read and written once.

var benchSizes = []int{256, 4096, 65536}

func benchFloats(n int, lo, hi float64) []float32 {
	r := rand.New(rand.NewSource(int64(n)))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(lo + r.Float64()*(hi-lo))
	}
	return x
}

// benchKernel runs body for every set and size; bytes is the traffic of
// one call per element.
func benchKernel(b *testing.B, bytes int, body func(s *kernelSet, n int) func()) {
	for _, s := range sets {
		for _, n := range benchSizes {
			b.Run(fmt.Sprintf("%s/%d", s.name, n), func(b *testing.B) {
				f := body(s, n)
				b.SetBytes(int64(bytes * n))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					f()
				}
			})
		}
	}
}

var sinkF float32

func BenchmarkMaxSum(b *testing.B) {
	benchKernel(b, 4, func(s *kernelSet, n int) func() {
		x := benchFloats(n, -10, 10)
		return func() { _, sinkF = s.maxSum(x, 0.7) }
	})
}

func BenchmarkExpScale(b *testing.B) {
	benchKernel(b, 8, func(s *kernelSet, n int) func() {
		x, dst := benchFloats(n, -10, 10), make([]float32, n)
		return func() { s.expScale(dst, x, 0.7, 7, 0.01) }
	})
}

func BenchmarkLogOut(b *testing.B) {
	benchKernel(b, 8, func(s *kernelSet, n int) func() {
		x, dst := benchFloats(n, -10, 10), make([]float32, n)
		return func() { s.logOut(dst, x, 0.7, 7) }
	})
}

func BenchmarkDot(b *testing.B) {
	benchKernel(b, 8, func(s *kernelSet, n int) func() {
		x, y := benchFloats(n, -1, 1), benchFloats(n, 0, 1)
		return func() { sinkF = s.dot(x, y) }
	})
}

func BenchmarkSum(b *testing.B) {
	benchKernel(b, 4, func(s *kernelSet, n int) func() {
		x := benchFloats(n, -1, 1)
		return func() { sinkF = s.sum(x) }
	})
}

func BenchmarkSoftmaxGrad(b *testing.B) {
	benchKernel(b, 12, func(s *kernelSet, n int) func() {
		y, dy, dx := benchFloats(n, 0, 1), benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.softmaxGrad(dx, y, dy, 0.3) }
	})
}

func BenchmarkLogSoftmaxGrad(b *testing.B) {
	benchKernel(b, 12, func(s *kernelSet, n int) func() {
		y, dy, dx := benchFloats(n, -10, 0), benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.logSoftmaxGrad(dx, y, dy, 0.3) }
	})
}

func BenchmarkOnlineUpdate(b *testing.B) {
	benchKernel(b, 20, func(s *kernelSet, n int) func() {
		x, m, d := benchFloats(n, -10, 10), benchFloats(n, -10, 10), benchFloats(n, 1, 2)
		return func() { s.onlineUpdate(m, d, x, 0.7) }
	})
}

func BenchmarkExpScaleLanes(b *testing.B) {
	benchKernel(b, 16, func(s *kernelSet, n int) func() {
		x, m, mul, dst := benchFloats(n, -10, 10), benchFloats(n, 7, 8), benchFloats(n, 0, 1), make([]float32, n)
		return func() { s.expScaleLanes(dst, x, m, mul, 0.7) }
	})
}

func BenchmarkLogOutLanes(b *testing.B) {
	benchKernel(b, 12, func(s *kernelSet, n int) func() {
		x, sub, dst := benchFloats(n, -10, 10), benchFloats(n, 7, 8), make([]float32, n)
		return func() { s.logOutLanes(dst, x, sub, 0.7) }
	})
}

func BenchmarkMulAdd(b *testing.B) {
	benchKernel(b, 16, func(s *kernelSet, n int) func() {
		x, y, acc := benchFloats(n, -1, 1), benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.mulAdd(acc, x, y) }
	})
}

func BenchmarkAdd(b *testing.B) {
	benchKernel(b, 12, func(s *kernelSet, n int) func() {
		x, acc := benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.add(acc, x) }
	})
}

func BenchmarkSoftmaxGradLanes(b *testing.B) {
	benchKernel(b, 16, func(s *kernelSet, n int) func() {
		y, dy, sl, dx := benchFloats(n, 0, 1), benchFloats(n, -1, 1), benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.softmaxGradLanes(dx, y, dy, sl) }
	})
}

func BenchmarkLogSoftmaxGradLanes(b *testing.B) {
	benchKernel(b, 16, func(s *kernelSet, n int) func() {
		y, dy, sl, dx := benchFloats(n, -10, 0), benchFloats(n, -1, 1), benchFloats(n, -1, 1), make([]float32, n)
		return func() { s.logSoftmaxGradLanes(dx, y, dy, sl) }
	})
}

func halves(n int) []uint16 {
	x := benchFloats(n, -100, 100)
	h := make([]uint16, n)
	f32ToF16Generic(h, x)
	return h
}

func BenchmarkF16ToF32(b *testing.B) {
	benchKernel(b, 6, func(s *kernelSet, n int) func() {
		h, dst := halves(n), make([]float32, n)
		return func() { s.f16ToF32(dst, h) }
	})
}

func BenchmarkF32ToF16(b *testing.B) {
	benchKernel(b, 6, func(s *kernelSet, n int) func() {
		x, dst := benchFloats(n, -100, 100), make([]uint16, n)
		return func() { s.f32ToF16(dst, x) }
	})
}

func BenchmarkBF16ToF32(b *testing.B) {
	benchKernel(b, 6, func(s *kernelSet, n int) func() {
		h, dst := halves(n), make([]float32, n)
		return func() { s.bf16ToF32(dst, h) }
	})
}

func BenchmarkF32ToBF16(b *testing.B) {
	benchKernel(b, 6, func(s *kernelSet, n int) func() {
		x, dst := benchFloats(n, -100, 100), make([]uint16, n)
		return func() { s.f32ToBF16(dst, x) }
	})
}

// Streaming benchmarks: a whole softmax (MaxSum then ExpScale) over data
// far larger than the caches, split over GOMAXPROCS goroutines, next to a
// copy of the same bytes (the memory-bandwidth yardstick). Bytes count the
// input read once and the output written once for both, so their MB/s
// compare directly.

// parallelRows runs f(lo, hi) over [0, rows) split across GOMAXPROCS.
func parallelRows(rows int, f func(lo, hi int)) {
	p := runtime.GOMAXPROCS(0)
	if p > rows {
		p = rows
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		lo, hi := rows*w/p, rows*(w+1)/p
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

func BenchmarkStream(b *testing.B) {
	shapes := []struct{ rows, cols int }{{4096, 4096}, {1, 1 << 24}}
	for _, sh := range shapes {
		n := sh.rows * sh.cols
		x, dst := benchFloats(n, -10, 10), make([]float32, n)
		name := fmt.Sprintf("%dx%d", sh.rows, sh.cols)
		b.Run("copy/"+name, func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for i := 0; i < b.N; i++ {
				parallelRows(sh.rows*64, func(lo, hi int) {
					w := n / (sh.rows * 64)
					copy(dst[lo*w:hi*w], x[lo*w:hi*w])
				})
			}
		})
		for _, s := range sets {
			b.Run(s.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(8 * n))
				for i := 0; i < b.N; i++ {
					if sh.rows > 1 {
						parallelRows(sh.rows, func(lo, hi int) {
							for r := lo; r < hi; r++ {
								row, out := x[r*sh.cols:(r+1)*sh.cols], dst[r*sh.cols:(r+1)*sh.cols]
								m, d := s.maxSum(row, 1)
								s.expScale(out, row, 1, m, 1/d)
							}
						})
						continue
					}
					// One long row: chunked online (max, sum) per worker,
					// merged, then ExpScale per chunk.
					const chunk = 8192
					chunks := n / chunk
					ms, ds := make([]float32, chunks), make([]float32, chunks)
					parallelRows(chunks, func(lo, hi int) {
						for c := lo; c < hi; c++ {
							ms[c], ds[c] = s.maxSum(x[c*chunk:(c+1)*chunk], 1)
						}
					})
					m, d := NegInf, float32(0)
					for c := range ms {
						m, d = Merge(m, d, ms[c], ds[c])
					}
					parallelRows(chunks, func(lo, hi int) {
						for c := lo; c < hi; c++ {
							s.expScale(dst[c*chunk:(c+1)*chunk], x[c*chunk:(c+1)*chunk], 1, m, 1/d)
						}
					})
				}
			})
		}
	}
}

// benchKernel64 is benchKernel for the float64 kernels (the set's own, or
// the twins where it has none).
func benchKernel64(b *testing.B, bytes int, body func(k *kernels64, n int) func()) {
	benchKernel(b, bytes, func(s *kernelSet, n int) func() {
		k := s.f64
		if k == nil {
			k = goSet64
		}
		return body(k, n)
	})
}

func benchFloats64(n int, lo, hi float64) []float64 {
	r := rand.New(rand.NewSource(int64(n)))
	x := make([]float64, n)
	for i := range x {
		x[i] = lo + r.Float64()*(hi-lo)
	}
	return x
}

func BenchmarkExpSum64(b *testing.B) {
	benchKernel64(b, 16, func(k *kernels64, n int) func() {
		x, dst := benchFloats64(n, -10, 0), make([]float64, n)
		return func() { k.expSum(dst, x, nil, 1, 0) }
	})
}

func BenchmarkMax64(b *testing.B) {
	benchKernel64(b, 8, func(k *kernels64, n int) func() {
		x := benchFloats64(n, -10, 10)
		return func() { k.maxOf(x, 1) }
	})
}

func BenchmarkNormalize64(b *testing.B) {
	benchKernel64(b, 16, func(k *kernels64, n int) func() {
		x, dst := benchFloats64(n, 0, 1), make([]float64, n)
		return func() { k.normalize(dst, x, 0.5) }
	})
}

func BenchmarkLogSoftmaxGrad64(b *testing.B) {
	benchKernel64(b, 24, func(k *kernels64, n int) func() {
		y, dy, dx := benchFloats64(n, -10, 0), benchFloats64(n, -1, 1), make([]float64, n)
		return func() { k.logSoftmaxGrad(dx, y, dy, 0.5) }
	})
}
