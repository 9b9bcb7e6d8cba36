package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/shard"
)

// ShardConfig is one scaling run of a sharded op (issue 77) over the
// local GPUs.
type ShardConfig struct {
	Op       string        // OpCrossEntropy, OpLogSumExp, "softmax" or "log_softmax"
	Rows, V  int           // the whole problem (strong), or V a GPU (Weak)
	DType    softmax.DType // of the logits
	GPUs     []int         // ranks counts to time; 1 is the single-GPU op
	Weak     bool          // V is each GPU's width: the problem grows with the GPUs
	Warmup   int
	Reps     int
	Log      io.Writer // progress; nil: none
	Ordinals []int     // the GPUs, in rank order (nil: 0, 1, …)
}

// ShardRow is one GPU count's timing: the median over reps of the slowest
// rank's time a call, after an L2 flush on every rank.
type ShardRow struct {
	GPUs       int
	Rows, V    int // the whole problem
	Width      int // a rank's columns (the widest)
	Micros     float64
	Efficiency float64 // strong: t(1)/(P·t(P)); weak: t(1)/t(P)
}

// ShardScaling times cfg.Op at each GPU count: 1 GPU runs the single-GPU
// op (Device.CrossEntropy, LogSumExp, Apply), P > 1 the sharded one (Comm,
// ncclCommInitAll over the first P GPUs, a goroutine a rank). The
// cross-entropy is torch's defaults with its gradient into a tensor of
// its own, as SweepLossCUDA's.
func ShardScaling(cfg ShardConfig) ([]ShardRow, error) {
	if cfg.Reps < 1 || cfg.Warmup < 0 || cfg.Rows < 1 || cfg.V < 1 {
		return nil, fmt.Errorf("bench: shard scaling of %d×%d, %d reps", cfg.Rows, cfg.V, cfg.Reps)
	}
	switch cfg.Op {
	case OpCrossEntropy, OpLogSumExp, "softmax", "log_softmax":
	default:
		return nil, fmt.Errorf("bench: no sharded op %q (cross_entropy, logsumexp, softmax, log_softmax)", cfg.Op)
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	maxP := slices.Max(cfg.GPUs)
	ords := cfg.Ordinals
	if ords == nil {
		for i := range maxP {
			ords = append(ords, i)
		}
	}
	if len(ords) < maxP {
		return nil, fmt.Errorf("bench: %d GPUs asked, %d given", maxP, len(ords))
	}
	devs := make([]*cuda.Device, maxP)
	for i := range devs {
		d, err := cuda.Open(ords[i])
		if err != nil {
			return nil, err
		}
		defer d.Close()
		devs[i] = d
	}
	var rows []ShardRow
	var t1 float64
	for _, p := range cfg.GPUs {
		v := cfg.V
		if cfg.Weak {
			v = cfg.V * p
		}
		us, width, err := timeSharded(cfg, devs[:p], cfg.Rows, v)
		if err != nil {
			return rows, fmt.Errorf("%d GPUs: %w", p, err)
		}
		if p == 1 {
			t1 = us
		}
		r := ShardRow{GPUs: p, Rows: cfg.Rows, V: v, Width: width, Micros: us}
		if t1 > 0 {
			r.Efficiency = t1 / us
			if !cfg.Weak {
				r.Efficiency /= float64(p)
			}
		}
		fmt.Fprintf(log, "%d GPUs: %.1f µs\n", p, us)
		rows = append(rows, r)
	}
	return rows, nil
}

// timeSharded times one GPU count: the median over reps of the slowest
// rank.
func timeSharded(cfg ShardConfig, devs []*cuda.Device, rows, v int) (float64, int, error) {
	p := len(devs)
	rs, err := shard.Even(v, p)
	if err != nil {
		return 0, 0, err
	}
	var comms []*cuda.Comm
	if p > 1 {
		if comms, err = cuda.OpenComms(devs); err != nil {
			return 0, 0, err
		}
		defer func() {
			for _, c := range comms {
				c.Close()
			}
		}()
	}
	times := make([][]float64, p)
	errs := make([]error, p)
	var wg sync.WaitGroup
	for r := range p {
		wg.Go(func() {
			var c *cuda.Comm
			if comms != nil {
				c = comms[r]
			}
			times[r], errs[r] = rankTimes(cfg, devs[r], c, rows, rs[r], v)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	slow := make([]float64, cfg.Reps)
	for _, ts := range times {
		for i, t := range ts {
			slow[i] = max(slow[i], t)
		}
	}
	return Median(slow) * 1e6, rs[0].Hi - rs[0].Lo, nil
}

// rankTimes times one rank's calls (c nil: the single-GPU op on whole
// rows), each after an L2 flush, in seconds.
func rankTimes(cfg ShardConfig, d *cuda.Device, c *cuda.Comm, rows int, rg shard.Range, v int) ([]float64, error) {
	w := rg.Hi - rg.Lo
	var free []func() error
	defer func() {
		for _, f := range free {
			f()
		}
	}()
	s, err := d.NewStream()
	if err != nil {
		return nil, err
	}
	defer s.Destroy()
	l2, timer, release, err := newTiming(d)
	if err != nil {
		return nil, err
	}
	defer release()
	x, err := uploadTiled(d, cfg.DType, []int{rows, w})
	if err != nil {
		return nil, err
	}
	free = append(free, x.Free)
	sh := cuda.Shard{Lo: rg.Lo, V: v}
	var run func() error
	switch cfg.Op {
	case OpLogSumExp:
		dst, err := d.NewTensor(cfg.DType, rows)
		if err != nil {
			return nil, err
		}
		free = append(free, dst.Free)
		run = func() error {
			if c == nil {
				return d.LogSumExp(dst, x, cuda.Options{Axis: -1}, s)
			}
			return c.LogSumExp(dst, x, sh, cuda.Options{}, s)
		}
	case OpCrossEntropy:
		out, t, err := ceBuffers(d, cfg.DType, []int{rows, w}, v, &free)
		if err != nil {
			return nil, err
		}
		run = func() error {
			if c == nil {
				return d.CrossEntropy(x, t, softmax.CrossEntropyOptions{}, out, s)
			}
			return c.CrossEntropy(x, t, sh, softmax.CrossEntropyOptions{}, out, s)
		}
	default:
		y, err := d.NewTensor(cfg.DType, rows, w)
		if err != nil {
			return nil, err
		}
		free = append(free, y.Free)
		op := softmax.OpSoftmax
		if cfg.Op == "log_softmax" {
			op = softmax.OpLogSoftmax
		}
		run = func() error {
			if c == nil {
				return d.Apply(op, y, x, cuda.Options{Axis: -1}, s)
			}
			return c.Softmax(op, y, x, sh, cuda.Options{}, s)
		}
	}
	return timer.TimeWith(s, cfg.Warmup, cfg.Reps, func() error { return l2.Run(s) }, run)
}
