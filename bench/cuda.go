package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	Register("cuda", func(ordinal int) (Backend, error) {
		d, err := cuda.Open(ordinal)
		if err != nil {
			return nil, err
		}
		return &cudaBackend{dev: d}, nil
	})
}

// cudaBackend runs cases on one GPU through package cuda.
type cudaBackend struct {
	dev   *cuda.Device
	tuned bool          // the planner's pick consults the autotuning cache
	flush bool          // timed reps start with the L2 flushed (SetFlushL2)
	l2    *cuda.L2Flush // allocated on first use
}

// SetFlushL2 makes timed reps start with the L2 flushed (L2Flusher).
func (b *cudaBackend) SetFlushL2(on bool) { b.flush = on }

// flushL2 queues an L2 flush on the default stream, the stream the reps
// run on.
func (b *cudaBackend) flushL2() error {
	if b.l2 == nil {
		f, err := b.dev.NewL2Flush()
		if err != nil {
			return err
		}
		b.l2 = f
	}
	return b.l2.Run(nil)
}

// SetTuned makes the planner's pick ("auto", Apply, ApplyBackward) prefer
// the autotuning cache's winners (cuda.Options.Tuned).
func (b *cudaBackend) SetTuned(on bool) { b.tuned = on }

func (b *cudaBackend) Kind() string { return "cuda" }
func (b *cudaBackend) Name() string { return b.dev.String() }
func (b *cudaBackend) Algos() []string {
	return cuda.Strategies()
}
func (b *cudaBackend) Close() error {
	if b.l2 != nil {
		b.l2.Free()
	}
	return b.dev.Close()
}

func (b *cudaBackend) Apply(op spec.Op, dst, src softmax.Tensor, opt softmax.Options) error {
	return b.dev.ApplyHost(op, dst, src, cuda.Options{Axis: opt.Axis, Scale: opt.Scale, Tuned: b.tuned})
}

func (b *cudaBackend) ApplyBackward(op spec.Op, dx, y, dy softmax.Tensor, opt softmax.Options) error {
	return b.dev.ApplyBackwardHost(op, dx, y, dy, cuda.Options{Axis: opt.Axis, Scale: opt.Scale, Tuned: b.tuned})
}

func (b *cudaBackend) Info() []string {
	p := b.dev.Props()
	return []string{b.dev.String(),
		fmt.Sprintf("L2 %d MB, shared memory per block %d KB (opt-in %d KB), cluster launch %v", p.L2CacheSize>>20, p.SharedMemPerBlock>>10, p.SharedMemPerBlockOptin>>10, p.ClusterLaunch),
		"strategies: " + strings.Join(cuda.Strategies(), ", ")}
}

// Prepare allocates the case's tensors on the device, filled with random
// normal data, each c.Offset elements into its buffer, plus a copy source
// and destination of half the op's traffic (a copy moving the same bytes:
// read + write, from aligned buffers).
func (b *cudaBackend) Prepare(c Case, algo string) (Workload, error) {
	d := b.dev
	l, err := c.Layout()
	if err != nil {
		return nil, err
	}
	w := &cudaWorkload{dev: d, c: c, tuned: b.tuned}
	if b.flush {
		w.before = b.flushL2
	}
	if err := c.checkOffset(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(l.Len()), 9))
	for i := 0; i < c.Tensors(); i++ {
		t, err := d.UploadRandomAt(rng, c.DType, int64(c.Offset*c.DType.Size()), c.Shape...)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.ts = append(w.ts, t)
	}
	pl, err := d.PlanFor(c.Op, cuda.Options{Axis: c.Axis, Tuned: b.tuned}, w.ts[0], w.ts[1:]...)
	if err != nil {
		w.Close()
		return nil, err
	}
	w.chosen = pl.Strategy
	half := c.Traffic() / 2
	if w.cpSrc, err = d.Alloc(half); err == nil {
		w.cpDst, err = d.Alloc(half)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	if w.timer, err = d.NewTimer(); err != nil {
		w.Close()
		return nil, err
	}
	return w, d.Synchronize()
}

type cudaWorkload struct {
	dev    *cuda.Device
	c      Case
	chosen string
	ts     []cuda.Tensor // output first
	cpSrc  *cuda.Buffer
	cpDst  *cuda.Buffer
	timer  *cuda.Timer
	tuned  bool         // Options.Tuned for "auto"
	before func() error // ahead of each timed rep, untimed (an L2 flush); may be nil
}

func (w *cudaWorkload) Chosen() string { return w.chosen }

func (w *cudaWorkload) Run(algo string) error {
	if algo == "auto" {
		algo = ""
	}
	opt := cuda.Options{Axis: w.c.Axis, Algo: algo, Tuned: w.tuned}
	var err error
	if w.c.Op.Backward() {
		err = w.dev.ApplyBackward(w.c.Op, w.ts[0], w.ts[1], w.ts[2], opt, nil)
	} else {
		err = w.dev.Apply(w.c.Op, w.ts[0], w.ts[1], opt, nil)
	}
	if err != nil && strings.Contains(err.Error(), "cannot serve") {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return err
}

// timeEach times reps runs of f individually with CUDA events after warmup.
func (w *cudaWorkload) timeEach(f func() error, warmup, reps int) ([]float64, error) {
	return w.timer.TimeWith(nil, warmup, reps, w.before, f)
}

func (w *cudaWorkload) Time(algo string, warmup, reps int) ([]float64, error) {
	return w.timeEach(func() error { return w.Run(algo) }, warmup, reps)
}

func (w *cudaWorkload) TimeCopy(warmup, reps int) ([]float64, error) {
	n := w.cpSrc.Size()
	return w.timeEach(func() error { return cuda.CopyAsync(w.cpDst, 0, w.cpSrc, 0, n, nil) }, warmup, reps)
}

// CopyKind names the copy used as the ratio's denominator.
func (w *cudaWorkload) CopyKind() string { return "cuMemcpyDtoDAsync" }

func (w *cudaWorkload) Close() error {
	for _, t := range w.ts {
		t.Free()
	}
	for _, b := range []*cuda.Buffer{w.cpSrc, w.cpDst} {
		if b != nil {
			b.Free()
		}
	}
	if w.timer != nil {
		w.timer.Destroy()
	}
	return nil
}
