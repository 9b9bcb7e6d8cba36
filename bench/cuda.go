package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
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
type cudaBackend struct{ dev *cuda.Device }

func (b *cudaBackend) Kind() string { return "cuda" }
func (b *cudaBackend) Name() string { return b.dev.String() }
func (b *cudaBackend) Algos() []string {
	return cuda.Strategies()
}
func (b *cudaBackend) Close() error { return b.dev.Close() }

func (b *cudaBackend) Apply(op spec.Op, dst, src softmax.Tensor, opt softmax.Options) error {
	return b.dev.ApplyHost(op, dst, src, cuda.Options{Axis: opt.Axis, Scale: opt.Scale})
}

func (b *cudaBackend) ApplyBackward(op spec.Op, dx, y, dy softmax.Tensor, opt softmax.Options) error {
	return b.dev.ApplyBackwardHost(op, dx, y, dy, cuda.Options{Axis: opt.Axis})
}

func (b *cudaBackend) Info() []string {
	p := b.dev.Props()
	return []string{b.dev.String(),
		fmt.Sprintf("L2 %d MB, shared memory per block %d KB (opt-in %d KB), cluster launch %v", p.L2CacheSize>>20, p.SharedMemPerBlock>>10, p.SharedMemPerBlockOptin>>10, p.ClusterLaunch),
		"strategies: " + strings.Join(cuda.Strategies(), ", ")}
}

// Prepare allocates the case's tensors on the device, filled with random
// normal data, plus a copy source and destination of half the op's traffic
// (a copy moving the same bytes: read + write).
func (b *cudaBackend) Prepare(c Case, algo string) (Workload, error) {
	d := b.dev
	l, err := c.Layout()
	if err != nil {
		return nil, err
	}
	w := &cudaWorkload{dev: d, c: c}
	pl, err := d.Plan(c.Op, c.DType, c.Shape, cuda.Options{Axis: c.Axis})
	if err != nil {
		return nil, err
	}
	w.chosen = pl.Strategy
	rng := rand.New(rand.NewPCG(uint64(l.Len()), 9))
	for i := 0; i < c.Tensors(); i++ {
		h, _ := softmax.NewTensor(c.DType, c.Shape...)
		for k := range h.F32 {
			h.F32[k] = float32(rng.NormFloat64())
		}
		for k := range h.U16 {
			v := float32(rng.NormFloat64())
			if c.DType == softmax.Float16 {
				h.U16[k] = softmax.FloatToHalfBits(v)
			} else {
				h.U16[k] = uint16(softmax.BFloat16From(v))
			}
		}
		t, err := d.Upload(h)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.ts = append(w.ts, t)
	}
	half := c.Traffic() / 2
	if w.cpSrc, err = d.Alloc(half); err == nil {
		w.cpDst, err = d.Alloc(half)
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	if w.start, err = d.NewEvent(); err == nil {
		w.stop, err = d.NewEvent()
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, d.Synchronize()
}

type cudaWorkload struct {
	dev         *cuda.Device
	c           Case
	chosen      string
	ts          []cuda.Tensor // output first
	cpSrc       *cuda.Buffer
	cpDst       *cuda.Buffer
	start, stop *cuda.Event
}

func (w *cudaWorkload) Chosen() string { return w.chosen }

func (w *cudaWorkload) Run(algo string) error {
	if algo == "auto" {
		algo = ""
	}
	opt := cuda.Options{Axis: w.c.Axis, Algo: algo}
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
	for i := 0; i < warmup; i++ {
		if err := f(); err != nil {
			return nil, err
		}
	}
	out := make([]float64, 0, reps)
	for i := 0; i < reps; i++ {
		if err := w.start.Record(nil); err != nil {
			return nil, err
		}
		if err := f(); err != nil {
			return nil, err
		}
		if err := w.stop.Record(nil); err != nil {
			return nil, err
		}
		if err := w.stop.Synchronize(); err != nil {
			return nil, err
		}
		dt, err := w.stop.Since(w.start)
		if err != nil {
			return nil, err
		}
		out = append(out, dt.Seconds())
	}
	sort.Float64s(out)
	return out, nil
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
	for _, e := range []*cuda.Event{w.start, w.stop} {
		if e != nil {
			e.Destroy()
		}
	}
	return nil
}
