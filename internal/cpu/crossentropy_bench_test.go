package cpu

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/xent"
)

// BenchmarkCrossEntropy times the fused forward+backward (torch's defaults,
// gradient written) and LogSumExp on issue 73's CPU shape, beside a copy of
// the same bytes split over GOMAXPROCS goroutines as softmax bench's copy
// (run with -cpu 2: the copy ratio is copy's ns/op over the op's).
func BenchmarkCrossEntropy(b *testing.B) {
	const rows, v = 4096, 32000
	n := rows * v
	x, g := benchBuf(spec.Float32, n), benchBuf(spec.Float32, n)
	tg := make([]int64, rows)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range tg {
		tg[i] = int64(r.IntN(v))
	}
	loss := make([]float64, 1)
	b.Run(fmt.Sprintf("%dx%d:f32:xent", rows, v), func(b *testing.B) {
		b.SetBytes(int64(8 * n))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			loss[0] = CrossEntropy(CE{Rows: rows, V: v, X: x, Grad: g, HasGrad: true, Targets: xent.Targets{I64: tg},
				Ignore: xent.DefaultIgnoreIndex, WSum: v, GScale: 1.0 / rows})
		}
	})
	b.Run(fmt.Sprintf("%dx%d:f32:copy", rows, v), func(b *testing.B) {
		b.SetBytes(int64(8 * n))
		for i := 0; i < b.N; i++ {
			benchCopy(g.F32, x.F32, threads())
		}
	})
	l, err := spec.Decompose([]int{rows, v}, -1)
	if err != nil {
		b.Fatal(err)
	}
	dst := benchBuf(spec.Float32, rows)
	b.Run(fmt.Sprintf("%dx%d:f32:logsumexp", rows, v), func(b *testing.B) {
		b.SetBytes(int64(4 * n))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			LogSumExp(l, 1, dst, x)
		}
	})
	b.Run(fmt.Sprintf("%dx%d:f32:read", rows, v), func(b *testing.B) {
		b.SetBytes(int64(4 * n))
		for i := 0; i < b.N; i++ {
			benchSum(x.F32, threads())
		}
	})
}

// benchCopy is copy(dst, src) in p contiguous pieces, one goroutine each.
func benchCopy(dst, src []float32, p int) {
	parallelFn(p, func(i int) {
		lo, hi := share(len(src), i, p)
		copy(dst[lo:hi], src[lo:hi])
	})
}

var benchSink float32

// parallelFn runs f(0), …, f(p−1) on p goroutines and waits for them.
func parallelFn(p int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range p {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}

// benchSum reads x in p contiguous pieces, one goroutine each, with the
// vector Sum (a read of the logits: LogSumExp's traffic bound).
func benchSum(x []float32, p int) {
	parallelFn(p, func(i int) {
		lo, hi := share(len(x), i, p)
		var s float32
		for k := lo; k < hi; k += chunk {
			s += vec.Sum(x[k:min(k+chunk, hi)])
		}
		if s == 1 { // never: keeps the sums
			benchSink = s
		}
	})
}
