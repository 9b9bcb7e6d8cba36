package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// part is one share of a parallel step; run is called once for each of
// parts shares, each on its own goroutine with its own scratch.
type part interface {
	run(i, parts int, s *scratch)
}

// batch is one parallel step in flight. Its shares are claimed by index,
// so the caller and whichever workers wake first do them all: a worker
// that wakes late (a parked one takes microseconds) finds none left instead
// of holding the call up. refs counts the caller and the workers sent the
// batch; the last to let go returns it to batches.
type batch struct {
	p     part
	parts int
	wg    *sync.WaitGroup // one Done a finished share
	next  atomic.Int64
	refs  atomic.Int32
}

var batches = sync.Pool{New: func() any { return new(batch) }}

// work runs shares of b until none is left to claim.
func (b *batch) work(s *scratch) {
	for {
		i := int(b.next.Add(1) - 1)
		if i >= b.parts {
			return
		}
		b.p.run(i, b.parts, s)
		b.wg.Done()
	}
}

func (b *batch) release() {
	if b.refs.Add(-1) == 0 {
		b.p, b.wg = nil, nil
		batches.Put(b)
	}
}

// pool is a set of long-lived worker goroutines, so a call costs channel
// hand-offs rather than goroutine starts and allocations.
type pool struct {
	mu      sync.Mutex
	workers int
	jobs    chan *batch
}

// The buffer lets a caller hand out a batch without waiting for a worker to
// be at the receive.
var workers = pool{jobs: make(chan *batch, 256)}

// scratches hands the calling goroutine a scratch for its shares.
var scratches = sync.Pool{New: func() any { return new(scratch) }}

func (p *pool) ensure(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.workers < n; p.workers++ {
		go func() {
			s := new(scratch)
			for {
				b := p.next()
				b.work(s)
				b.release()
			}
		}()
	}
}

// spinFor is how long a worker polls for the next batch before it parks
// (in nanoseconds; atomic, so that BenchmarkFanOutBusy can change it under
// running workers). A parked worker takes microseconds to wake (an idle
// virtual CPU longer), and the runtime wakes them one after another, so
// the last of 15 starts its share late; calls that follow each other find
// polling workers at once, as torch's OpenMP threads spin before they
// sleep.
var spinFor atomic.Int64

func init() { spinFor.Store(int64(50 * time.Microsecond)) }

// next returns the next batch handed to the workers, polling for spinFor
// before it blocks.
func (p *pool) next() *batch {
	deadline := time.Now().Add(time.Duration(spinFor.Load()))
	for {
		select {
		case b := <-p.jobs:
			return b
		default:
		}
		if time.Now().After(deadline) {
			return <-p.jobs
		}
		runtime.Gosched()
	}
}

// parallel runs shares 0..parts-1 of pt on the calling goroutine and up to
// threads()−1 workers, and returns when all are done; wg counts the
// unfinished shares.
func parallel(pt part, parts int, wg *sync.WaitGroup) { parallelOn(pt, parts, parts, wg) }

// sharesPerWorker is how many shares fanOut cuts a worker's part of a step
// into. The shares are claimed as they are finished, so a worker that
// wakes late or is descheduled holds the call up by a quarter of its part,
// not by all of it (one share a worker, the rest of the call waited for
// the last one whole).
const sharesPerWorker = 4

// fanOut runs pt over items (rows, lane-block tasks) on workers goroutines,
// the calling one included, in up to sharesPerWorker shares each.
func fanOut(pt part, items, workers int, wg *sync.WaitGroup) {
	if workers <= 1 {
		parallelOn(pt, 1, 1, wg)
		return
	}
	parallelOn(pt, min(items, sharesPerWorker*workers), workers, wg)
}

// parallelOn is parallel on at most most goroutines, the calling one
// included.
func parallelOn(pt part, parts, most int, wg *sync.WaitGroup) {
	s := scratches.Get().(*scratch)
	defer scratches.Put(s)
	if parts <= 1 {
		pt.run(0, parts, s)
		return
	}
	helpers := min(parts, most, threads()) - 1
	workers.ensure(helpers)
	b := batches.Get().(*batch)
	b.p, b.parts, b.wg = pt, parts, wg
	b.next.Store(0)
	b.refs.Store(int32(helpers + 1))
	wg.Add(parts)
	for range helpers {
		select {
		case workers.jobs <- b:
		default: // the buffer is full: the others claim its shares
			b.release()
		}
	}
	b.work(s)
	b.release()
	wg.Wait()
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
	negMax        []float32 // all −MaxFloat32
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
