package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	Register("cpu", func(ordinal int) (Backend, error) {
		if ordinal != 0 {
			return nil, fmt.Errorf("no cpu:%d (there is one cpu device)", ordinal)
		}
		return NewCPU(), nil
	})
}

// Buffer rotation: a case whose buffers (Case.Traffic bytes: inputs and
// output) are smaller than rotateBytes is replicated into enough buffer
// sets to cover rotateBytes (at most maxSets), and successive reps use the
// sets in turn. 64 MiB is twice the ~32 MB last-level cache of a typical
// server slice, so a rep finds its inputs in DRAM, not in cache, as they
// would be in a real pipeline. The reference copy rotates the same way.
const (
	rotateBytes = 64 << 20
	maxSets     = 64
)

// CPU is the CPU backend: the softmax package's parallel engine on
// GOMAXPROCS goroutines, with the kernel set chosen by package vec.
//
// Timing uses the monotonic clock around each single call. The reference
// copy is Go's copy() over buffers of the op's minimum traffic (half read,
// half written), timed both on one goroutine and split across GOMAXPROCS
// goroutines (as the softmax engine uses all cores); the faster of the two
// medians is kept, so copy_ratio is measured against the best copy this Go
// process achieves, and the records' copy_kind says which one it was.
type CPU struct{}

// NewCPU returns the CPU backend.
func NewCPU() *CPU { return &CPU{} }

// Kind returns "cpu".
func (*CPU) Kind() string { return "cpu" }

// Name returns e.g. "cpu (avx512 kernels, 2 threads)".
func (*CPU) Name() string {
	return fmt.Sprintf("cpu (%s kernels, %d threads)", vec.Impl(), runtime.GOMAXPROCS(0))
}

// Apply runs softmax.Apply.
func (*CPU) Apply(op spec.Op, dst, src softmax.Tensor, opt softmax.Options) error {
	return softmax.Apply(op, dst, src, opt)
}

// ApplyBackward runs softmax.ApplyBackward.
func (*CPU) ApplyBackward(op spec.Op, dx, y, dy softmax.Tensor, opt softmax.Options) error {
	return softmax.ApplyBackward(op, dx, y, dy, opt)
}

// Algos returns the kernel sets selectable in this process.
func (*CPU) Algos() []string { return cpuKernelSets() }

// Info returns the CPU model, SIMD features, kernel set and GOMAXPROCS.
func (*CPU) Info() []string {
	return []string{
		"model: " + CPUModel(),
		"features: " + featureLine(),
		"kernels: " + kernelLine(),
		fmt.Sprintf("GOMAXPROCS: %d (NumCPU %d)", runtime.GOMAXPROCS(0), runtime.NumCPU()),
	}
}

// Close does nothing.
func (*CPU) Close() error { return nil }

// newTensorAt allocates a host tensor of shape whose data starts offset
// elements into its storage (Case.Offset).
func newTensorAt(dt spec.DType, offset int, shape []int) (softmax.Tensor, error) {
	t, err := softmax.NewTensor(dt, shape...)
	if err != nil || offset == 0 {
		return t, err
	}
	store, err := softmax.NewTensor(dt, offset+t.Len())
	if err != nil {
		return t, err
	}
	switch {
	case t.F32 != nil:
		t.F32 = store.F32[offset:]
	case t.F64 != nil:
		t.F64 = store.F64[offset:]
	default:
		t.U16 = store.U16[offset:]
	}
	return t, nil
}

// Prepare allocates the case's buffer sets (see rotateBytes) and fills
// them: forward inputs uniform in ±4 (never zero); backward y = the forward
// op of such an input and dy uniform in ±4. Outputs are pre-written so no
// rep pays for first-touch page faults. algo is not needed on the CPU.
func (b *CPU) Prepare(c Case, algo string) (Workload, error) {
	l, err := c.Layout()
	if err != nil {
		return nil, err
	}
	if !c.DType.Valid() || !c.Op.Valid() {
		return nil, fmt.Errorf("bad case %v", c)
	}
	if err := c.checkOffset(); err != nil {
		return nil, err
	}
	w := &cpuWorkload{c: c, l: l, chosen: vec.Impl()}
	sets := 1
	if t := c.Traffic(); t > 0 && t < rotateBytes {
		sets = int(min((rotateBytes+t-1)/t, maxSets))
	}
	w.sets = make([]cpuSet, sets)
	for i := range w.sets {
		s := &w.sets[i]
		if s.a, err = newTensorAt(c.DType, c.Offset, c.Shape); err != nil {
			return nil, err
		}
		if s.b, err = newTensorAt(c.DType, c.Offset, c.Shape); err != nil {
			return nil, err
		}
		seed := uint64(i)*0x9e3779b97f4a7c15 + 1
		fillRandom(s.a, seed)
		// Fresh allocations are untouched zero pages: write the output
		// too, so no rep pays for page faults.
		fillRandom(s.b, seed+3)
		if c.Op.Backward() {
			// a becomes dx; b = y = forward(x); dy fresh.
			fwd := spec.Softmax
			if c.Op.Log() {
				fwd = spec.LogSoftmax
			}
			if err := softmax.Apply(fwd, s.b, s.a, softmax.Options{Axis: c.Axis}); err != nil {
				return nil, err
			}
			if s.dy, err = newTensorAt(c.DType, c.Offset, c.Shape); err != nil {
				return nil, err
			}
			fillRandom(s.dy, seed+7)
		}
	}
	return w, nil
}

// cpuSet is one set of buffers. Forward: a = x, b = y. Backward: b = y,
// dy, a = dx.
type cpuSet struct {
	a, b, dy softmax.Tensor
}

type cpuWorkload struct {
	c      Case
	l      spec.Layout
	chosen string
	sets   []cpuSet
	next   int

	copySrc, copyDst [][]byte
	copyKind         string
}

func (w *cpuWorkload) Chosen() string { return w.chosen }

// step runs the op on the next buffer set.
func (w *cpuWorkload) step() error {
	s := &w.sets[w.next]
	w.next = (w.next + 1) % len(w.sets)
	opt := softmax.Options{Axis: w.c.Axis}
	if w.c.Op.Backward() {
		return softmax.ApplyBackward(w.c.Op, s.a, s.b, s.dy, opt)
	}
	return softmax.Apply(w.c.Op, s.b, s.a, opt)
}

func (w *cpuWorkload) resolve(algo string) string {
	if algo == "auto" || algo == "" {
		return w.chosen
	}
	return algo
}

func (w *cpuWorkload) Run(algo string) error {
	restore, err := useCPUKernels(w.resolve(algo))
	if err != nil {
		return err
	}
	defer restore()
	return w.step()
}

func (w *cpuWorkload) Time(algo string, warmup, reps int) ([]float64, error) {
	if reps < 1 || warmup < 0 {
		return nil, fmt.Errorf("bad timing counts: warmup %d, reps %d", warmup, reps)
	}
	restore, err := useCPUKernels(w.resolve(algo))
	if err != nil {
		return nil, err
	}
	defer restore()
	return timeReps(warmup, reps, w.step)
}

// timeReps returns reps samples of fn's time in seconds, after warmup
// untimed calls. A sample times a batch of calls that spans at least
// minSample() and reports their mean, so an op shorter than a clock tick
// still reads a real time; ops of ≥ minSample() run one a sample. The
// batch size is set once: from the last warm-up call when that spans a
// sample, else from untimed calibration batches.
func timeReps(warmup, reps int, fn func() error) ([]float64, error) {
	var last time.Duration
	for range warmup {
		t0 := clockNow()
		if err := fn(); err != nil {
			return nil, err
		}
		last = clockNow() - t0
	}
	batch := 1
	if span := minSample(); last < span {
		var err error
		if batch, err = calibrateBatch(fn, span); err != nil {
			return nil, err
		}
	}
	ts := make([]float64, reps)
	for i := range ts {
		t0 := clockNow()
		for range batch {
			if err := fn(); err != nil {
				return nil, err
			}
		}
		ts[i] = (clockNow() - t0).Seconds() / float64(batch)
	}
	return ts, nil
}

// maxBatch bounds a sample's calls once the clock sees them (an op of a few
// ns would otherwise ask for millions); a batch the clock does not see at
// all keeps doubling up to 1<<30.
const maxBatch = 1 << 16

// calibrateBatch returns how many calls of fn span at least span: it times
// batches of 1, then of the count that the last one's time projects (at
// least double), until one spans it.
func calibrateBatch(fn func() error, span time.Duration) (int, error) {
	for n := 1; ; {
		t0 := clockNow()
		for range n {
			if err := fn(); err != nil {
				return 0, err
			}
		}
		took := clockNow() - t0
		if took >= span || (took > 0 && n >= maxBatch) || n >= 1<<30 {
			return n, nil
		}
		next := 2 * n
		if took > 0 {
			next = min(max(next, int(float64(n)*1.2*float64(span)/float64(took))), maxBatch)
		}
		n = next
	}
}

// minSample is the least time a sample spans: 100 µs, or 100 ticks of
// clockNow where its tick is coarser than 1 µs, at most 50 ms.
var minSample = sync.OnceValue(func() time.Duration {
	return min(max(100*time.Microsecond, 100*clockTick()), 50*time.Millisecond)
})

// clockTick is the median step of clockNow over five changes of its
// reading (the median, so that one preemption between two reads does not
// stretch every sample).
func clockTick() time.Duration {
	var steps [5]time.Duration
	for i := range steps {
		t0 := clockNow()
		t1 := clockNow()
		for spins := 0; t1 == t0 && spins < 1e8; spins++ {
			t1 = clockNow()
		}
		steps[i] = t1 - t0
	}
	slices.Sort(steps[:])
	return steps[len(steps)/2]
}

// TimeCopy times copy() over Traffic/2 bytes (so Traffic bytes move), in
// the same number of rotating sets as the op, serially and split across
// GOMAXPROCS goroutines, and returns the samples of the faster variant.
func (w *cpuWorkload) TimeCopy(warmup, reps int) ([]float64, error) {
	if reps < 1 || warmup < 0 {
		return nil, fmt.Errorf("bad timing counts: warmup %d, reps %d", warmup, reps)
	}
	n := int(w.c.Traffic() / 2)
	if w.copySrc == nil {
		w.copySrc = make([][]byte, len(w.sets))
		w.copyDst = make([][]byte, len(w.sets))
		for i := range w.copySrc {
			w.copySrc[i] = make([]byte, n)
			w.copyDst[i] = make([]byte, n)
			src := w.copySrc[i]
			for j := 0; j < n; j += 4096 { // touch every page
				src[j] = byte(j>>12) | 1
			}
			copy(w.copyDst[i], src) // fault the destination pages in
		}
	}
	k := 0
	serial := func() error {
		copy(w.copyDst[k], w.copySrc[k])
		k = (k + 1) % len(w.copySrc)
		return nil
	}
	best, err := timeReps(warmup, reps, serial)
	if err != nil {
		return nil, err
	}
	w.copyKind = "copy, 1 goroutine"
	p := runtime.GOMAXPROCS(0)
	if p > 1 && n >= 64<<10 {
		par := func() error {
			parallelCopy(w.copyDst[k], w.copySrc[k], p)
			k = (k + 1) % len(w.copySrc)
			return nil
		}
		ts, err := timeReps(warmup, reps, par)
		if err != nil {
			return nil, err
		}
		if Median(ts) < Median(best) {
			best = ts
			w.copyKind = fmt.Sprintf("copy, %d goroutines", p)
		}
	}
	return best, nil
}

// CopyKind says which copy TimeCopy kept.
func (w *cpuWorkload) CopyKind() string { return w.copyKind }

func (w *cpuWorkload) Close() error {
	w.sets, w.copySrc, w.copyDst = nil, nil, nil
	return nil
}

// parallelCopy copies src into dst in p cache-line aligned pieces, one per
// goroutine.
func parallelCopy(dst, src []byte, p int) {
	n := min(len(dst), len(src))
	chunk := (n/p + 63) &^ 63
	var wg sync.WaitGroup
	for lo := chunk; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	copy(dst[:min(chunk, n)], src[:min(chunk, n)])
	wg.Wait()
}

// fillRandom fills t with values uniform in ±4, none of them zero (even
// after rounding to f16/bf16), in parallel.
func fillRandom(t softmax.Tensor, seed uint64) {
	n := t.Len()
	p := runtime.GOMAXPROCS(0)
	const piece = 1 << 16
	var wg sync.WaitGroup
	sem := make(chan struct{}, p)
	for lo := 0; lo < n; lo += piece {
		hi := min(lo+piece, n)
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			rng := rand.New(rand.NewPCG(seed, uint64(lo)))
			var buf []float32
			if t.DType == spec.Float32 {
				buf = t.F32[lo:hi]
			} else {
				buf = make([]float32, hi-lo)
			}
			for i := range buf {
				v := float32(rng.Float64()*8 - 4)
				if v > -1.0/1024 && v < 1.0/1024 {
					v = 1
				}
				buf[i] = v
			}
			switch t.DType {
			case spec.Float16:
				vec.F32ToF16(t.U16[lo:hi], buf)
			case spec.BFloat16:
				vec.F32ToBF16(t.U16[lo:hi], buf)
			case spec.Float64:
				for i, v := range buf {
					t.F64[lo+i] = float64(v)
				}
			}
		})
	}
	wg.Wait()
}
