package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/gofused/softmax"
)

// Timer times work queued on a stream with pairs of CUDA events, one pair
// a rep. The autotuner and the benchmark (package bench) share it.
type Timer struct {
	dev         *Device
	start, stop []*Event
}

// NewTimer creates a timer with one pair of events; Time adds pairs as
// the number of reps asks.
func (d *Device) NewTimer() (*Timer, error) {
	t := &Timer{dev: d}
	if err := t.grow(1); err != nil {
		return nil, err
	}
	return t, nil
}

// grow makes sure the timer has at least n pairs of events.
func (t *Timer) grow(n int) error {
	for len(t.stop) < n {
		start, err := t.dev.NewEvent()
		if err != nil {
			return err
		}
		stop, err := t.dev.NewEvent()
		if err != nil {
			start.Destroy()
			return err
		}
		t.start, t.stop = append(t.start, start), append(t.stop, stop)
	}
	return nil
}

// Time calls f warmup times untimed, then reps times, each call between
// a pair of events recorded on stream s (nil: the default stream), and
// returns the duration of each timed call in seconds, sorted ascending.
// f must queue its work on s. The reps are queued back to back and Time
// synchronises once, after the last: a rep's span then starts when the
// GPU reaches it, not when the host gets to launch it, as long as the host
// keeps ahead of the GPU.
func (t *Timer) Time(s *Stream, warmup, reps int, f func() error) ([]float64, error) {
	return t.TimeWith(s, warmup, reps, nil, f)
}

// TimeWith is Time with before, when not nil, called ahead of every timed
// call, outside its span: it queues work on s that must not be counted,
// such as flushing the L2 cache (which also gives the host time to queue
// the rep behind it).
func (t *Timer) TimeWith(s *Stream, warmup, reps int, before, f func() error) ([]float64, error) {
	if err := t.grow(reps); err != nil {
		return nil, err
	}
	for i := 0; i < warmup; i++ {
		if err := f(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < reps; i++ {
		if before != nil {
			if err := before(); err != nil {
				return nil, err
			}
		}
		if err := t.start[i].Record(s); err != nil {
			return nil, err
		}
		if err := f(); err != nil {
			return nil, err
		}
		if err := t.stop[i].Record(s); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, reps)
	if reps > 0 {
		if err := t.stop[reps-1].Synchronize(); err != nil {
			return nil, err
		}
	}
	for i := 0; i < reps; i++ {
		dt, err := t.stop[i].Since(t.start[i])
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
	var err error
	for _, e := range append(t.start, t.stop...) {
		if e2 := e.Destroy(); err == nil {
			err = e2
		}
	}
	t.start, t.stop = nil, nil
	return err
}

// L2Flush evicts everything from the device's L2 cache by overwriting a
// buffer of at least 256 MB (what triton.testing.do_bench zeroes) and four
// times the L2. Timing code runs it ahead of a timed rep (Timer.TimeWith),
// so that the rep reads its inputs from memory and inherits no dirty lines.
type L2Flush struct{ buf *Buffer }

// minFlushBytes is the least an L2Flush overwrites.
const minFlushBytes = 256 << 20

// NewL2Flush allocates the buffer an L2Flush overwrites.
func (d *Device) NewL2Flush() (*L2Flush, error) {
	b, err := d.Alloc(max(int64(minFlushBytes), 4*int64(d.props.L2CacheSize)))
	if err != nil {
		return nil, fmt.Errorf("cuda: L2 flush buffer: %w", err)
	}
	return &L2Flush{buf: b}, nil
}

// Run queues the overwrite on stream s (nil: the default stream).
func (f *L2Flush) Run(s *Stream) error { return f.buf.Fill(0, 0, f.buf.Size()/4, s) }

// Bytes is the size of the buffer Run overwrites.
func (f *L2Flush) Bytes() int64 { return f.buf.Size() }

// Free releases the buffer.
func (f *L2Flush) Free() error { return f.buf.Free() }

// UploadRandom allocates a device tensor of dtype dt and shape filled with
// standard normal values drawn from rng (rounded to dt): inputs for
// benchmarks and tuning.
func (d *Device) UploadRandom(rng *rand.Rand, dt softmax.DType, shape ...int) (Tensor, error) {
	return d.UploadRandomAt(rng, dt, 0, shape...)
}

// UploadRandomAt is UploadRandom with the tensor starting offset bytes into
// its buffer, as UploadAt places it.
func (d *Device) UploadRandomAt(rng *rand.Rand, dt softmax.DType, offset int64, shape ...int) (Tensor, error) {
	h, err := softmax.NewTensor(dt, shape...)
	if err != nil {
		return Tensor{}, fmt.Errorf("cuda: %w", err)
	}
	for k := range h.F32 {
		h.F32[k] = float32(rng.NormFloat64())
	}
	for k := range h.F64 {
		h.F64[k] = rng.NormFloat64()
	}
	for k := range h.U16 {
		v := float32(rng.NormFloat64())
		if dt == softmax.Float16 {
			h.U16[k] = softmax.FloatToHalfBits(v)
		} else {
			h.U16[k] = uint16(softmax.BFloat16From(v))
		}
	}
	return d.UploadAt(h, offset)
}

// medianSorted returns the median of ascending samples (NaN when empty).
func medianSorted(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
