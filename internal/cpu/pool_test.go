package cpu

import (
	"runtime"
	"sync"
	"testing"
)

// recorder is a part that notes which shares ran, how many times, and on
// which goroutines (each has its own scratch).
type recorder struct {
	mu      sync.Mutex
	counts  []int
	parts   int
	scratch map[*scratch]bool
}

func (r *recorder) run(i, parts int, s *scratch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts[i]++
	r.parts = parts
	r.scratch[s] = true
}

// TestFanOut: fanOut cuts items into up to sharesPerWorker shares a worker,
// runs each exactly once and on no more goroutines than it was given,
// however many threads there are.
func TestFanOut(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(6))
	for _, c := range []struct{ items, workers, parts int }{
		{1, 1, 1}, {100, 1, 1}, {100, 2, 8}, {5, 3, 5}, {128, 6, 24}, {7, 4, 7},
	} {
		for range 20 { // workers wake in different orders
			r := &recorder{counts: make([]int, c.parts), scratch: map[*scratch]bool{}}
			var wg sync.WaitGroup
			fanOut(r, c.items, c.workers, &wg)
			if r.parts != c.parts {
				t.Fatalf("items %d on %d workers: %d shares, want %d", c.items, c.workers, r.parts, c.parts)
			}
			for i, n := range r.counts {
				if n != 1 {
					t.Fatalf("items %d on %d workers: share %d ran %d times", c.items, c.workers, i, n)
				}
			}
			if len(r.scratch) > c.workers {
				t.Fatalf("items %d on %d workers: ran on %d goroutines", c.items, c.workers, len(r.scratch))
			}
		}
	}
}

// TestStreams: non-temporal stores for outputs of at least streamBytes
// written by at most streamWorkers workers, none after SetStreamWorkers(0).
func TestStreams(t *testing.T) {
	defer SetStreamWorkers(SetStreamWorkers(4))
	for _, c := range []struct {
		bytes, workers int
		want           bool
	}{
		{streamBytes, 1, true}, {streamBytes, 4, true}, {streamBytes - 1, 2, false},
		{streamBytes, 5, false}, {64 * streamBytes, 16, false}, // under SetStreamWorkers(4)
	} {
		if got := streams(c.bytes, c.workers); got != c.want {
			t.Errorf("streams(%d bytes, %d workers) = %v, want %v", c.bytes, c.workers, got, c.want)
		}
	}
	if SetStreamWorkers(1 << 20); !streams(streamBytes, 16) { // the default: any worker count
		t.Errorf("streams(%d bytes, 16 workers) = false under the default", streamBytes)
	}
	SetStreamWorkers(4)
	if prev := SetStreamWorkers(0); prev != 4 || streams(64*streamBytes, 1) {
		t.Errorf("SetStreamWorkers(0): previous %d (want 4), still streams on one worker", prev)
	}
}
