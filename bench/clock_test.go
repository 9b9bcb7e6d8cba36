package bench

import (
	"errors"
	"testing"
	"time"
)

// An op far shorter than a sample runs in batches, and its samples are
// means over them: positive, and below the sample span.
func TestTimeRepsBatchesShortOps(t *testing.T) {
	calls := 0
	ts, err := timeReps(2, 5, func() error { calls++; return nil })
	if err != nil || len(ts) != 5 {
		t.Fatalf("timeReps = %v, %v", ts, err)
	}
	for _, v := range ts {
		if !(v > 0) || v >= minSample().Seconds() {
			t.Errorf("sample %v s: want a positive mean below %v", v, minSample())
		}
	}
	if calls < 2+5*2 {
		t.Errorf("%d calls: the samples were not batched", calls)
	}
}

// An op longer than a sample runs once a sample, with no calibration call
// beyond the warm-up.
func TestTimeRepsLongOpsRunOnce(t *testing.T) {
	calls := 0
	spin := func() error {
		calls++
		t0 := time.Now()
		for time.Since(t0) < minSample()+minSample()/2 {
		}
		return nil
	}
	ts, err := timeReps(1, 3, spin)
	if err != nil || len(ts) != 3 {
		t.Fatalf("timeReps = %v, %v", ts, err)
	}
	if calls != 1+3 {
		t.Errorf("%d calls, want 4 (1 warm-up + 3 samples)", calls)
	}
	for _, v := range ts {
		if v < minSample().Seconds() {
			t.Errorf("sample %v s shorter than the op", v)
		}
	}
}

func TestTimeRepsStopsAtAnError(t *testing.T) {
	boom := errors.New("boom")
	for _, warmup := range []int{0, 1} {
		calls := 0
		_, err := timeReps(warmup, 3, func() error {
			calls++
			if calls > 4 {
				return boom
			}
			return nil
		})
		if !errors.Is(err, boom) {
			t.Errorf("warmup %d: err = %v", warmup, err)
		}
	}
}
