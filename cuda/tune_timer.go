package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gofused/softmax"
)

// Timer times work queued on a stream with a pair of CUDA events. The
// autotuner and the benchmark (package bench) share it.
type Timer struct {
	start, stop *Event
}

// NewTimer creates a timer's two events.
func (d *Device) NewTimer() (*Timer, error) {
	start, err := d.NewEvent()
	if err != nil {
		return nil, err
	}
	stop, err := d.NewEvent()
	if err != nil {
		start.Destroy()
		return nil, err
	}
	return &Timer{start: start, stop: stop}, nil
}

// Time calls f warmup times untimed, then reps times, each call between
// the timer's events recorded on stream s (nil: the default stream), and
// returns the duration of each timed call in seconds, sorted ascending.
// f must queue its work on s; Time synchronises after every timed call.
func (t *Timer) Time(s *Stream, warmup, reps int, f func() error) ([]float64, error) {
	for i := 0; i < warmup; i++ {
		if err := f(); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, reps)
	for i := 0; i < reps; i++ {
		if err := t.start.Record(s); err != nil {
			return nil, err
		}
		if err := f(); err != nil {
			return nil, err
		}
		if err := t.stop.Record(s); err != nil {
			return nil, err
		}
		if err := t.stop.Synchronize(); err != nil {
			return nil, err
		}
		dt, err := t.stop.Since(t.start)
		if err != nil {
			return nil, err
		}
		out = append(out, dt.Seconds())
	}
	sort.Float64s(out)
	return out, nil
}

// Destroy releases the timer's events.
func (t *Timer) Destroy() error {
	err := t.start.Destroy()
	if e := t.stop.Destroy(); err == nil {
		err = e
	}
	return err
}

// UploadRandom allocates a device tensor of dtype dt and shape filled with
// standard normal values drawn from rng (rounded to dt): inputs for
// benchmarks and tuning.
func (d *Device) UploadRandom(rng *rand.Rand, dt softmax.DType, shape ...int) (Tensor, error) {
	h, err := softmax.NewTensor(dt, shape...)
	if err != nil {
		return Tensor{}, fmt.Errorf("cuda: %w", err)
	}
	for k := range h.F32 {
		h.F32[k] = float32(rng.NormFloat64())
	}
	for k := range h.U16 {
		v := float32(rng.NormFloat64())
		if dt == softmax.Float16 {
			h.U16[k] = softmax.FloatToHalfBits(v)
		} else {
			h.U16[k] = uint16(softmax.BFloat16From(v))
		}
	}
	return d.Upload(h)
}

// medianSorted returns the median of ascending samples (NaN when empty).
func medianSorted(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
