package cpu

import (
	"runtime"
	"sync"
)

// part is one share of a parallel step; run is called once for each of
// parts shares, each on its own goroutine with its own scratch.
type part interface {
	run(i, parts int, s *scratch)
}

type job struct {
	p        part
	i, parts int
	wg       *sync.WaitGroup
}

// pool is a set of long-lived worker goroutines, so a call costs channel
// hand-offs rather than goroutine starts and allocations.
type pool struct {
	mu      sync.Mutex
	workers int
	jobs    chan job
}

var workers = pool{jobs: make(chan job)}

// scratches hands the calling goroutine a scratch for share 0.
var scratches = sync.Pool{New: func() any { return new(scratch) }}

func (p *pool) ensure(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.workers < n; p.workers++ {
		go func() {
			s := new(scratch)
			for j := range p.jobs {
				j.p.run(j.i, j.parts, s)
				j.wg.Done()
			}
		}()
	}
}

// parallel runs shares 0..parts-1 of pt, share 0 on the calling goroutine,
// and returns when all are done.
func parallel(pt part, parts int, wg *sync.WaitGroup) {
	if parts > 1 {
		workers.ensure(parts - 1)
		wg.Add(parts - 1)
		for i := 1; i < parts; i++ {
			workers.jobs <- job{p: pt, i: i, parts: parts, wg: wg}
		}
	}
	s := scratches.Get().(*scratch)
	pt.run(0, parts, s)
	scratches.Put(s)
	if parts > 1 {
		wg.Wait()
	}
}

// threads is the parallelism a call may use.
func threads() int { return runtime.GOMAXPROCS(0) }

// share returns the half-open range of n items that share i of parts takes.
func share(n, i, parts int) (lo, hi int) {
	return n * i / parts, n * (i + 1) / parts
}

// scratch is one goroutine's reusable working memory; it only grows.
type scratch struct {
	a, b, c, d, e []float32
	f, g          []float32
	lm            []float32 // lane maxima
	ld            []float64 // lane sums
	slab          []float32 // lanesCached's exps
	ones          []float32 // all 1
	m, s          []float64
	// Float64 passes (engine64.go).
	a64, b64, c64, d64, e64 []float64
}

func grow32(v *[]float32, n int) []float32 {
	if cap(*v) < n {
		*v = make([]float32, n)
	}
	return (*v)[:n]
}

func grow64(v *[]float64, n int) []float64 {
	if cap(*v) < n {
		*v = make([]float64, n)
	}
	return (*v)[:n]
}
