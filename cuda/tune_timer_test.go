package cuda

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// TestTimerWith checks that TimeWith runs the warm-up and every rep, calls
// before ahead of each timed rep, grows its events past the first pair,
// returns one positive sample a rep in ascending order, and that the work
// of the last rep has landed when it returns (it synchronises once, at the
// end).
func TestTimerWith(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	const words = 1 << 22 // 16 MB
	work, err := d.Alloc(4 * words)
	if err != nil {
		t.Fatal(err)
	}
	defer work.Free()
	scrub, err := d.Alloc(4 * words)
	if err != nil {
		t.Fatal(err)
	}
	defer scrub.Free()
	timer, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Destroy()

	const warmup, reps = 2, 9
	calls, befores := 0, 0
	f := func() error {
		calls++
		return work.Fill(0, uint32(calls), words, nil)
	}
	before := func() error {
		befores++
		return scrub.Fill(0, 0, words, nil)
	}
	got, err := timer.TimeWith(nil, warmup, reps, before, f)
	if err != nil {
		t.Fatal(err)
	}
	if calls != warmup+reps || befores != reps || len(got) != reps {
		t.Fatalf("calls %d (want %d), befores %d (want %d), samples %d (want %d)", calls, warmup+reps, befores, reps, len(got), reps)
	}
	if !slices.IsSorted(got) || got[0] <= 0 {
		t.Errorf("samples not ascending and positive: %v", got)
	}
	last := make([]byte, 4)
	if err := work.Read(4*(words-1), last); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(last); v != uint32(calls) {
		t.Errorf("last word %d after the timed reps, want %d (the last rep's fill)", v, calls)
	}

	boom := errors.New("boom")
	if _, err := timer.TimeWith(nil, 0, 3, func() error { return boom }, f); !errors.Is(err, boom) {
		t.Errorf("TimeWith with a failing before: err %v, want %v", err, boom)
	}
	if _, err := timer.Time(nil, 0, 3, func() error { return boom }); !errors.Is(err, boom) {
		t.Errorf("Time with a failing rep: err %v, want %v", err, boom)
	}
}
