package bench

import (
	"fmt"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"io"
	"math/rand/v2"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/cuda"
)

// SweepLossCUDA is SweepLoss on GPU ordinal: the fused cross-entropy
// forward+backward (cuda.Device.CrossEntropy with torch's defaults, the
// gradient into its own tensor) or the log-sum-exp of rows, each rep after
// an L2 flush and timed with CUDA events, beside a device-to-device copy
// of the same traffic (LossTraffic). Algo is the planner's kernel
// (internal/plan/xent.tsv); opt.Algo must be "" or "auto". A CrossEntropy
// call waits for its kernels (its target check), so each rep also holds the
// host's wait and the end event's launch, a few µs.
func SweepLossCUDA(ordinal int, op string, cases []Case, opt SweepOptions) ([]Record, error) {
	if !IsLossOp(op) {
		return nil, fmt.Errorf("unknown loss op %q (want %s or %s)", op, OpCrossEntropy, OpLogSumExp)
	}
	if opt.Algo != "" && opt.Algo != "auto" {
		return nil, fmt.Errorf("--algo %s: the GPU loss ops have one planner-chosen kernel (auto)", opt.Algo)
	}
	if opt.Reps < 1 || opt.Warmup < 0 {
		return nil, fmt.Errorf("bad timing counts: warmup %d, reps %d", opt.Warmup, opt.Reps)
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	d, err := cuda.Open(ordinal)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	l2, timer, release, err := newTiming(d)
	if err != nil {
		return nil, err
	}
	defer release()
	var recs []Record
	failed := 0
	for i, c := range cases {
		if stopped(opt.Stop) {
			return recs, fmt.Errorf("%w after %d of %d cases", ErrInterrupted, i, len(cases))
		}
		r, err := lossCaseCUDA(d, l2, timer, op, c, opt)
		if err != nil {
			fmt.Fprintf(log, "%s: %v\n", lossSpec(op, c), err)
			r.Error = err.Error()
			failed++
		}
		recs = append(recs, r)
		if opt.Step != nil {
			opt.Step(c)
		}
	}
	if failed > 0 {
		return recs, fmt.Errorf("%d benchmark(s) failed", failed)
	}
	return recs, nil
}

// lossCaseCUDA times one case; the record carries its error.
func lossCaseCUDA(d *cuda.Device, l2 *cuda.L2Flush, timer *cuda.Timer, op string, c Case, opt SweepOptions) (Record, error) {
	r := Record{Spec: lossSpec(op, c), Shape: append([]int(nil), c.Shape...), DType: c.DType.String(), Axis: c.Axis,
		Op: op, Algo: "auto", Device: d.String(), Bytes: LossTraffic(op, c.Shape, c.DType)}
	if len(c.Shape) == 0 || c.NormAxis() != len(c.Shape)-1 {
		return r, fmt.Errorf("%s runs along the last (class) axis", op)
	}
	v := c.Shape[len(c.Shape)-1]
	rows := 1
	for _, n := range c.Shape[:len(c.Shape)-1] {
		rows *= n
	}
	// The bench's calls are plain (kernels.XentPlain) where the rows are whole packs.
	pl, err := d.XentPlan(plan.XentProblem{Rows: int64(rows), V: int64(v), DType: c.DType,
		Plain: v%kernels.Pack(c.DType) == 0, LSE: op == OpLogSumExp})
	if err != nil {
		return r, err
	}
	r.Chosen, r.IsChosen = pl.Symbol, true
	var free []func() error
	defer func() {
		for _, f := range free {
			f()
		}
	}()
	x, err := uploadTiled(d, c.DType, c.Shape)
	if err != nil {
		return r, err
	}
	free = append(free, x.Free)
	var run func() error
	if op == OpLogSumExp {
		dst, err := d.NewTensor(c.DType, rows)
		if err != nil {
			return r, err
		}
		free = append(free, dst.Free)
		run = func() error { return d.LogSumExp(dst, x, cuda.Options{Axis: -1}, nil) }
	} else {
		out, t, err := ceBuffers(d, c.DType, c.Shape, v, &free)
		if err != nil {
			return r, err
		}
		run = func() error { return d.CrossEntropy(x, t, softmax.CrossEntropyOptions{}, out, nil) }
	}
	flush := func() error { return l2.Run(nil) }
	ts, err := timer.TimeWith(nil, opt.Warmup, opt.Reps, flush, run)
	if err != nil {
		return r, err
	}
	half := r.Bytes / 2
	src, err := d.Alloc(half)
	if err != nil {
		return r, err
	}
	free = append(free, src.Free)
	dst, err := d.Alloc(half)
	if err != nil {
		return r, err
	}
	free = append(free, dst.Free)
	cts, err := timer.TimeWith(nil, opt.Warmup, opt.Reps, flush, func() error { return cuda.CopyAsync(dst, 0, src, 0, half, nil) })
	if err != nil {
		return r, err
	}
	r.fill(Summarize(ts), Summarize(cts), "cuMemcpyDtoDAsync")
	return r, nil
}

// uploadTiled makes a device tensor of random values (normal, σ 1) without
// a host copy of its size: a random block of up to 2^24 elements is
// uploaded and then doubled in place by device-to-device copies.
func uploadTiled(d *cuda.Device, dt softmax.DType, shape []int) (cuda.Tensor, error) {
	t, err := d.NewTensor(dt, shape...)
	if err != nil {
		return t, err
	}
	n := int64(t.Len())
	blk := min(n, 1<<24)
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	h, err := d.UploadRandomAt(rng, dt, 0, int(blk))
	if err != nil {
		t.Free()
		return t, err
	}
	defer h.Free()
	es := int64(dt.Size())
	if err := cuda.CopyAsync(t.Buf, t.Offset, h.Buf, h.Offset, blk*es, nil); err != nil {
		t.Free()
		return t, err
	}
	for have := blk; have < n; have *= 2 {
		k := min(have, n-have)
		if err := cuda.CopyAsync(t.Buf, t.Offset+have*es, t.Buf, t.Offset, k*es, nil); err != nil {
			t.Free()
			return t, err
		}
	}
	return t, d.Synchronize()
}

// ceBuffers makes a cross-entropy bench call's gradient (shape) and loss
// (one value) tensors and uploads random targets in [0, v), one a row;
// their frees go to free.
func ceBuffers(d *cuda.Device, dt softmax.DType, shape []int, v int, free *[]func() error) (cuda.CrossEntropyOutput, cuda.Targets, error) {
	grad, err := d.NewTensor(dt, shape...)
	if err != nil {
		return cuda.CrossEntropyOutput{}, cuda.Targets{}, err
	}
	*free = append(*free, grad.Free)
	loss, err := d.NewTensor(cuda.XentStatDType(dt), 1)
	if err != nil {
		return cuda.CrossEntropyOutput{}, cuda.Targets{}, err
	}
	*free = append(*free, loss.Free)
	rows := 1
	for _, n := range shape[:len(shape)-1] {
		rows *= n
	}
	tg := make([]int64, rows)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range tg {
		tg[i] = int64(rng.IntN(max(1, v)))
	}
	t, err := d.UploadTargets(softmax.Targets{I64: tg})
	if err != nil {
		return cuda.CrossEntropyOutput{}, cuda.Targets{}, err
	}
	*free = append(*free, t.Buf.Free)
	return cuda.CrossEntropyOutput{Loss: &loss, Grad: &grad}, t, nil
}

// newTiming makes a device's L2 flush and event timer; release frees both.
func newTiming(d *cuda.Device) (*cuda.L2Flush, *cuda.Timer, func(), error) {
	l2, err := d.NewL2Flush()
	if err != nil {
		return nil, nil, nil, err
	}
	timer, err := d.NewTimer()
	if err != nil {
		l2.Free()
		return nil, nil, nil, err
	}
	return l2, timer, func() { timer.Destroy(); l2.Free() }, nil
}
