package cpu

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// boundCase is a cpu-suite forward case and the kernel passes its schedule
// runs over each element.
type boundCase struct {
	name  string
	n     int        // elements
	dt    spec.DType // storage
	reads int        // times the schedule reads the input from memory
	pass  func(t *boundScratch)
}

// boundScratch is one thread's L1-resident working set: a chunk of input
// (float32 and 16-bit), exps, output and lane vectors.
type boundScratch struct {
	x, e, o, m, k []float32
	h, b, v       []uint16 // float16 and bfloat16 inputs, output
	m16           float32  // rowPasses16: the next chunk's max
	has16         bool
}

func newBoundScratch() *boundScratch {
	t := &boundScratch{}
	for _, p := range []*[]float32{&t.x, &t.e, &t.o, &t.m, &t.k} {
		*p = make([]float32, chunk)
	}
	t.h, t.b, t.v = make([]uint16, chunk), make([]uint16, chunk), make([]uint16, chunk)
	for i := range t.x {
		t.x[i] = float32(i%61)/8 - 4
		t.m[i], t.k[i] = 4, 1e-3
	}
	vec.F32ToF16(t.h, t.x)
	vec.F32ToBF16(t.b, t.x)
	return t
}

// The passes of one chunk: rowCached's (max, exp+sum, normalize), for
// 16-bit rows rowCached16's (the same three on the 16-bit data), the split
// long row's (max, exp+sum; then exp·k) and lanesBlocked's (lane max, lane
// exp+sum; then lane exp·k).
func rowPasses(t *boundScratch) {
	m := vec.Max(t.x, 1)
	vec.Normalize(t.o, t.e, 1/vec.ExpSum(t.e, t.x, 1, m))
}

// rowPasses16 is rowCached16 on a chunk: the exp pass and the normalizing
// pass, which also takes the next slice's max (the same chunk here) as
// rowCached16's does.
func rowPasses16(bf bool) func(*boundScratch) {
	return func(t *boundScratch) {
		u := t.h
		if bf {
			u = t.b
		}
		if !t.has16 {
			t.m16, t.has16 = vec.Max16(u, bf, 1), true
		}
		t.m16 = vec.Normalize16Max(t.v, bf, t.e, 1/vec.ExpSum16Ahead(t.e, u, bf, nil, 1, t.m16), false, u, 1)
	}
}

func logPasses(t *boundScratch) {
	m := vec.Max(t.x, 1)
	vec.LogNorm(t.o, t.x, 1, m, float32(math.Log(float64(vec.ExpSum(t.e, t.x, 1, m)))))
}

func splitPasses(t *boundScratch) {
	m := vec.Max(t.x, 1)
	s := vec.ExpSum(t.e, t.x, 1, m)
	vec.ExpScale(t.o, t.x, 1, m, 1/s)
}

func lanePasses(t *boundScratch) {
	for j := 0; j < chunk; j += blockWidth {
		x, m, e, o := t.x[j:j+blockWidth], t.m[:blockWidth], t.e[:blockWidth], t.o[j:j+blockWidth]
		vec.MaxLanes(m, x, 1)
		vec.ExpAddLanes(e, x, m, nil, 1)
		vec.ExpScaleLanes(o, x, m, t.k[:blockWidth], 1)
	}
}

var boundCases = []boundCase{
	{"4096x4096:f32", 4096 * 4096, spec.Float32, 1, rowPasses},
	{"1x16777216:f32", 1 << 24, spec.Float32, 2, splitPasses},
	{"4096x4096:f32:0", 4096 * 4096, spec.Float32, 2, lanePasses},
	{"1024x4096:f16", 1024 * 4096, spec.Float16, 1, rowPasses16(false)},
	{"8192x1024:bf16", 8192 * 1024, spec.BFloat16, 1, rowPasses16(true)},
	{"128x32000:f32:-1:log_softmax", 128 * 32000, spec.Float32, 1, logPasses},
}

// BenchmarkBound measures what each cpu-suite forward case cannot beat on
// this machine with GOMAXPROCS threads (run with -cpu 2); ns/op of:
//   - compute: the case's kernel passes over L1-resident chunks, as many
//     elements as the case, shared by the threads (no memory traffic);
//   - copy: a copy of the case's bytes (the op's minimum traffic), split
//     across the threads and rotating through 64 MiB of buffers as
//     softmax bench does: the denominator of its copy ratio;
//   - floor: for cases whose schedule reads the input twice, a read pass
//     (vec.Max) over the input before that copy.
//
// A case's bound is max(compute, floor or copy); bench/results files record
// the figures.
func BenchmarkBound(b *testing.B) {
	p := threads()
	for _, c := range boundCases {
		bytes := c.n * c.dt.Size()
		b.Run(c.name+"/compute", func(b *testing.B) {
			ts := make([]*boundScratch, p)
			for i := range ts {
				ts[i] = newBoundScratch()
			}
			chunks := (c.n + p*chunk - 1) / (p * chunk)
			for i := 0; i < b.N; i++ {
				onAll(p, func(w int) {
					for range chunks {
						c.pass(ts[w])
					}
				})
			}
		})
		src, dst := rotation(bytes), rotation(bytes)
		for _, extra := range []bool{false, true} {
			if extra && c.reads < 2 {
				continue
			}
			name := c.name + "/copy"
			if extra {
				name = c.name + "/floor"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(2 * bytes))
				for i := 0; i < b.N; i++ {
					s, d := src[i%len(src)], dst[i%len(dst)]
					onAll(p, func(w int) {
						lo, hi := share(len(s), w, p)
						if extra {
							vec.Max(s[lo:hi], 1)
						}
						copy(d[lo:hi], s[lo:hi])
					})
				}
			})
		}
	}
}

// rotation returns buffers of bytes each (as float32), enough of them to
// cover 64 MiB (softmax bench's rotateBytes), filled so no page is untouched.
func rotation(bytes int) [][]float32 {
	sets := max(1, min((64<<20+bytes-1)/bytes, 64))
	out := make([][]float32, sets)
	for i := range out {
		out[i] = make([]float32, bytes/4)
		for j := range out[i] {
			out[i][j] = float32(j%7) - 3
		}
	}
	return out
}

// onAll runs f(0..p-1) on p goroutines and waits.
func onAll(p int, f func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < p; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); f(w) }()
	}
	f(0)
	wg.Wait()
}

// BenchmarkBoundL1 is the bound files' compute (a): a case's passes over
// one L1-resident chunk on one thread, the fastest of b.N rounds of 200
// chunks, in ns per element (the figure that noise from other work on the
// machine moves least).
func BenchmarkBoundL1(b *testing.B) {
	for _, c := range boundCases {
		b.Run(c.name, func(b *testing.B) {
			t := newBoundScratch()
			best := time.Duration(1 << 62)
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				for j := 0; j < 200; j++ {
					c.pass(t)
				}
				best = min(best, time.Since(t0))
			}
			b.ReportMetric(float64(best.Nanoseconds())/float64(200*chunk), "ns/el")
		})
	}
}
