package bench

import (
	"errors"
	"testing"
	"time"
)

// steppingClock makes clockNow advance by step at each reading, whatever
// runs between readings, for the test's duration: an op the clock cannot
// see (step ≪ a sample) or one longer than a sample (step ≥ it).
func steppingClock(t *testing.T, step time.Duration) {
	t.Helper()
	minSample() // fixed on the real clock before it is replaced
	saved := clockNow
	var now time.Duration
	clockNow = func() time.Duration { now += step; return now }
	t.Cleanup(func() { clockNow = saved })
}

// An op the clock does not see runs in batches of maxBatch (a sample then
// spans one step of the clock), and a sample is the batch's mean.
func TestTimeRepsBatchesShortOps(t *testing.T) {
	steppingClock(t, time.Microsecond)
	calls := 0
	ts, err := timeReps(2, 3, func() error { calls++; return nil })
	if err != nil || len(ts) != 3 {
		t.Fatalf("timeReps = %v, %v", ts, err)
	}
	want := time.Microsecond.Seconds() / maxBatch
	for _, v := range ts {
		if v != want {
			t.Errorf("sample %v s, want one step over %d calls (%v s)", v, maxBatch, want)
		}
	}
	calibration := calls - 2 - 3*maxBatch
	if calibration < 1 || calibration > 4*maxBatch {
		t.Errorf("%d calls: want 2 warm-up, a calibration of batches up to %d, then 3×%d", calls, maxBatch, maxBatch)
	}
}

// An op longer than a sample runs once a sample, its warm-up call standing
// for the calibration.
func TestTimeRepsLongOpsRunOnce(t *testing.T) {
	step := 2 * minSample()
	steppingClock(t, step)
	calls := 0
	ts, err := timeReps(1, 3, func() error { calls++; return nil })
	if err != nil || len(ts) != 3 {
		t.Fatalf("timeReps = %v, %v", ts, err)
	}
	if calls != 1+3 {
		t.Errorf("%d calls, want 4 (1 warm-up + 3 samples)", calls)
	}
	for _, v := range ts {
		if v != step.Seconds() {
			t.Errorf("sample %v s, want %v", v, step.Seconds())
		}
	}
}

// The calibration grows the batch until one spans a sample, by the
// projection of the last batch's time.
func TestCalibrateBatch(t *testing.T) {
	// A call the clock sees as 10 µs: 100 µs needs 10 calls, projected
	// from the first batch's one call (with 20% to spare: 12).
	saved := clockNow
	t.Cleanup(func() { clockNow = saved })
	var now time.Duration
	clockNow = func() time.Duration { return now }
	n, err := calibrateBatch(func() error { now += 10 * time.Microsecond; return nil }, 100*time.Microsecond)
	if err != nil || n != 12 {
		t.Errorf("calibrateBatch = %d, %v; want 12", n, err)
	}
	boom := errors.New("boom")
	if _, err := calibrateBatch(func() error { return boom }, time.Millisecond); !errors.Is(err, boom) {
		t.Errorf("an op's error: %v", err)
	}
}

// An error in a timed sample stops the timing at once and is returned.
func TestTimeRepsStopsAtAnError(t *testing.T) {
	step := 2 * minSample()
	steppingClock(t, step)
	boom := errors.New("boom")
	calls := 0
	_, err := timeReps(1, 5, func() error {
		calls++
		if calls == 3 { // the second sample
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || calls != 3 {
		t.Errorf("err = %v after %d calls; want boom after 3", err, calls)
	}
}
