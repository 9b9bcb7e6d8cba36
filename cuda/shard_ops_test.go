package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	softmax "github.com/gofused/softmax"
)

// rankRun is a case's ranks: their devices and exchanges.
type rankRun struct {
	devs []*Device
	exs  []exchange
	c    shardCase
	only int // ≥ 0: this process runs that rank alone (one process a GPU)
}

// cmp is closeRows over the columns this process computed.
func (rr rankRun) cmp(got, want []float64, rows int, tol float64, rowScale bool) error {
	if rr.only >= 0 && len(got) == rows*rr.c.v {
		rg := rr.c.ranges[rr.only]
		for r := range rows {
			for j := range rr.c.v {
				if j < rg.Lo || j >= rg.Hi {
					got[r*rr.c.v+j] = want[r*rr.c.v+j]
				}
			}
		}
	}
	return closeRows(got, want, rows, tol, rowScale)
}

// each runs body for every rank with its columns of x uploaded, and
// gathers what body returns (rows × the rank's width) into rows × v.
func (rr rankRun) each(x softmax.Tensor, body func(r int, d *Device, ex exchange, s *Stream, xs Tensor, sh Shard) ([]float64, error)) ([]float64, error) {
	parts := make([][]float64, len(rr.devs))
	err := onRanks(rr.devs, rr.exs, func(r int, d *Device, ex exchange, s *Stream) error {
		if rr.only >= 0 && r != rr.only {
			parts[r] = make([]float64, rr.c.rows*(rr.c.ranges[r].Hi-rr.c.ranges[r].Lo))
			return nil
		}
		rg := rr.c.ranges[r]
		xs, err := d.Upload(cols(x, rg.Lo, rg.Hi))
		if err != nil {
			return err
		}
		defer xs.Free()
		out, err := body(r, d, ex, s, xs, Shard{rg.Lo, rr.c.v})
		parts[r] = out
		return err
	})
	if err != nil {
		return nil, err
	}
	return gatherCols(parts, rr.c.ranges, rr.c.rows, rr.c.v), nil
}

// checkShardSoftmax compares the sharded softmax, log-softmax, log-sum-exp
// and both gradients with the single-GPU ops on devs[0].
func (rr rankRun) checkSoftmax(seed uint64) error {
	c, ref := rr.c, rr.devs[0]
	rng := rand.New(rand.NewPCG(seed, 77))
	x, _ := shardInput(rng, c, -100)
	xd, err := ref.Upload(x)
	if err != nil {
		return err
	}
	defer xd.Free()
	tol := shardTol(c.dt)
	opt := Options{Axis: -1, Scale: 0.7}
	dyh, _ := softmax.NewTensor(c.dt, c.rows, c.v)
	vals := make([]float32, c.rows*c.v)
	for i := range vals {
		vals[i] = float32(rng.NormFloat64())
	}
	setF32(dyh, vals)
	for _, op := range []softmax.Op{softmax.OpSoftmax, softmax.OpLogSoftmax} {
		yd, err := ref.NewTensor(c.dt, c.rows, c.v)
		if err != nil {
			return err
		}
		defer yd.Free()
		if err := ref.Apply(op, yd, xd, opt, nil); err != nil {
			return err
		}
		want, err := download(ref, yd)
		if err != nil {
			return err
		}
		got, err := rr.each(x, func(r int, d *Device, ex exchange, s *Stream, xs Tensor, sh Shard) ([]float64, error) {
			ys, err := d.NewTensor(c.dt, xs.Shape...)
			if err != nil {
				return nil, err
			}
			defer ys.Free()
			if err := d.shardSoftmax(ex, op, ys, xs, sh, opt, s); err != nil {
				return nil, err
			}
			if err := d.Wait(s); err != nil {
				return nil, err
			}
			return download(d, ys)
		})
		if err != nil {
			return fmt.Errorf("%v: %w", op, err)
		}
		if err := rr.cmp(got, want, c.rows, tol, op == softmax.OpSoftmax); err != nil {
			return fmt.Errorf("%v: %w", op, err)
		}
		// The gradient, from the single-GPU y.
		bop := softmax.OpSoftmaxBackward
		if op == softmax.OpLogSoftmax {
			bop = softmax.OpLogSoftmaxBackward
		}
		yh, _ := softmax.NewTensor(c.dt, c.rows, c.v)
		if err := yd.CopyTo(yh); err != nil {
			return err
		}
		dyd, err := ref.Upload(dyh)
		if err != nil {
			return err
		}
		defer dyd.Free()
		if err := ref.ApplyBackward(bop, yd, yd, dyd, opt, nil); err != nil { // in place over y
			return err
		}
		wantDX, err := download(ref, yd)
		if err != nil {
			return err
		}
		got, err = rr.each(yh, func(r int, d *Device, ex exchange, s *Stream, ys Tensor, sh Shard) ([]float64, error) {
			dys, err := d.Upload(cols(dyh, sh.Lo, sh.Lo+ys.Shape[1]))
			if err != nil {
				return nil, err
			}
			defer dys.Free()
			if err := d.shardBackward(ex, bop, dys, ys, dys, sh, opt, s); err != nil { // in place over dy
				return nil, err
			}
			if err := d.Wait(s); err != nil {
				return nil, err
			}
			return download(d, dys)
		})
		if err != nil {
			return fmt.Errorf("%v: %w", bop, err)
		}
		if err := rr.cmp(got, wantDX, c.rows, tol, true); err != nil {
			return fmt.Errorf("%v: %w", bop, err)
		}
	}
	// The log-sum-exp, every rank the whole rows'.
	lse, err := ref.NewTensor(c.dt, c.rows)
	if err != nil {
		return err
	}
	defer lse.Free()
	if err := ref.LogSumExp(lse, xd, opt, nil); err != nil {
		return err
	}
	want, err := download(ref, lse)
	if err != nil {
		return err
	}
	_, err = rr.each(x, func(r int, d *Device, ex exchange, s *Stream, xs Tensor, sh Shard) ([]float64, error) {
		l, err := d.NewTensor(c.dt, c.rows)
		if err != nil {
			return nil, err
		}
		defer l.Free()
		if err := d.shardLSE(ex, l, xs, sh, opt, s); err != nil {
			return nil, err
		}
		if err := d.Wait(s); err != nil {
			return nil, err
		}
		got, err := download(d, l)
		if err != nil {
			return nil, err
		}
		if err := closeRows(got, want, c.rows, lseTol(c.dt), false); err != nil {
			return nil, fmt.Errorf("logsumexp: %w", err)
		}
		return make([]float64, c.rows*xs.Shape[1]), nil
	})
	return err
}

// statTol bounds the relative difference of per-row statistics: float32
// math, float64 for f64.
func statTol(dt softmax.DType) float64 {
	if dt == softmax.Float64 {
		return 1e-12
	}
	return 2e-6
}

// lseTol is statTol for the log-sum-exp, which 16-bit logits store in
// their dtype.
func lseTol(dt softmax.DType) float64 {
	if dt == softmax.Float16 || dt == softmax.BFloat16 {
		return ceTol(dt)
	}
	return statTol(dt)
}

// xentOpts are the option sets the sharded cross-entropy is checked with:
// torch's defaults, every option with an ignore index that is a class, and
// per-row losses with per-row grad-outputs.
func xentOpts(v int) []struct {
	name string
	opt  softmax.CrossEntropyOptions
	g    softmax.GradOutput
	rows bool
} {
	return []struct {
		name string
		opt  softmax.CrossEntropyOptions
		g    softmax.GradOutput
		rows bool
	}{
		{"mean", softmax.CrossEntropyOptions{}, softmax.GradOutput{}, false},
		{"all", softmax.CrossEntropyOptions{IgnoreIndex: softmax.Ignore(3), LabelSmoothing: 0.1, Weights: weights(v, 5),
			Reduction: softmax.ReductionSum, Scale: 1.3, ZLoss: 1e-3, Softcap: 5}, softmax.GradOutput{Scalar: 0.5}, false},
		{"none", softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone, LabelSmoothing: 0.05}, softmax.GradOutput{}, true},
	}
}

// checkXent compares the sharded cross-entropy (loss, lse and gradient in
// one call; then the backward from the saved lse) with the single-GPU one.
func (rr rankRun) checkXent(seed uint64) error {
	c, ref := rr.c, rr.devs[0]
	rng := rand.New(rand.NewPCG(seed, 78))
	for _, o := range xentOpts(c.v) {
		x, tg := shardInput(rng, c, o.opt.Ignored())
		g := o.g
		if o.rows {
			g.Rows = make([]float64, c.rows)
			for i := range g.Rows {
				g.Rows[i] = rng.NormFloat64()
			}
		}
		want, err := xentOn(ref, x, tg, o.opt, g, nil)
		if err != nil {
			return fmt.Errorf("%s: single GPU: %w", o.name, err)
		}
		for _, bwd := range []bool{false, true} {
			var stats [2][]float64
			got, err := rr.each(x, func(r int, d *Device, ex exchange, s *Stream, xs Tensor, sh Shard) ([]float64, error) {
				res, err := xentOn(d, cols(x, sh.Lo, sh.Lo+xs.Shape[1]), tg, o.opt, g, &shardedXent{ex, sh, s, bwd, want.lse})
				if r == max(rr.only, 0) {
					stats = [2][]float64{res.loss, res.lse}
				}
				return res.grad, err
			})
			if err != nil {
				return fmt.Errorf("%s (backward %v): %w", o.name, bwd, err)
			}
			if err := rr.cmp(got, want.grad, c.rows, shardTol(c.dt), true); err != nil {
				return fmt.Errorf("%s (backward %v): grad: %w", o.name, bwd, err)
			}
			if bwd {
				continue
			}
			if err := closeRows(stats[0], want.loss, len(want.loss), statTol(c.dt)*10, false); err != nil {
				return fmt.Errorf("%s: loss: %w", o.name, err)
			}
			if err := closeRows(stats[1], want.lse, c.rows, statTol(c.dt), false); err != nil {
				return fmt.Errorf("%s: lse: %w", o.name, err)
			}
		}
	}
	return nil
}

type xentResult struct{ loss, lse, grad []float64 }

// shardedXent says xentOn runs a rank's sharded call: the forward, or
// (bwd) the backward from lse.
type shardedXent struct {
	ex  exchange
	sh  Shard
	s   *Stream
	bwd bool
	lse []float64
}

// xentOn runs the cross-entropy of host logits x on d, whole rows (sx nil)
// or one rank's columns, and reads back loss, lse and gradient.
func xentOn(d *Device, x softmax.Tensor, tg []int64, opt softmax.CrossEntropyOptions, g softmax.GradOutput, sx *shardedXent) (xentResult, error) {
	rows := x.Shape[0]
	xd, err := d.Upload(x)
	if err != nil {
		return xentResult{}, err
	}
	defer xd.Free()
	td, err := d.UploadTargets(softmax.Targets{I64: tg})
	if err != nil {
		return xentResult{}, err
	}
	defer td.Buf.Free()
	nl := 1
	if opt.Reduction == softmax.ReductionNone {
		nl = rows
	}
	st := XentStatDType(x.DType)
	loss, err := d.NewTensor(st, nl)
	if err != nil {
		return xentResult{}, err
	}
	defer loss.Free()
	lse, err := d.NewTensor(st, rows)
	if err != nil {
		return xentResult{}, err
	}
	defer lse.Free()
	out := CrossEntropyOutput{Loss: &loss, LSE: &lse, Grad: &xd, GradOutput: g} // the gradient in place
	var s *Stream
	switch {
	case sx == nil:
		err = d.CrossEntropy(xd, td, opt, out, nil)
	case sx.bwd:
		s = sx.s
		lh, _ := softmax.NewTensor(st, rows)
		setF64s(lh, sx.lse)
		if err := lse.CopyFrom(lh); err != nil {
			return xentResult{}, err
		}
		err = d.shardXent(nil, xd, td, sx.sh, opt, CrossEntropyOutput{Grad: &xd, GradOutput: g}, &lse, s)
	default:
		s = sx.s
		err = d.shardXent(sx.ex, xd, td, sx.sh, opt, out, nil, s)
	}
	if err != nil {
		return xentResult{}, err
	}
	var res xentResult
	for _, p := range []struct {
		dst *[]float64
		t   Tensor
	}{{&res.loss, loss}, {&res.lse, lse}, {&res.grad, xd}} {
		if *p.dst, err = download(d, p.t); err != nil {
			return res, err
		}
	}
	return res, nil
}

// setF64s stores float64 values into a Float32 or Float64 host tensor.
func setF64s(h softmax.Tensor, v []float64) {
	for i, x := range v {
		if h.DType == softmax.Float64 {
			h.F64[i] = x
		} else {
			h.F32[i] = float32(x)
		}
	}
}

// The sharded ops' own code on one GPU: 1 to 8 ranks, each a goroutine
// and a stream, exchanging through device copies in place of NCCL, against
// the single-GPU ops (every dtype, ragged and empty shards, the special
// rows).
func TestShardLocalRanks(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	dts := []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64}
	for i, c := range shardCases(dts, 8) {
		if testing.Short() && c.v > 5000 {
			continue // the sanitizers' run (scripts/gpu-tests-77.sh)
		}
		devs, exs := localRanks(d, len(c.ranges))
		rr := rankRun{devs, exs, c, -1}
		if err := rr.checkSoftmax(uint64(i)); err != nil {
			t.Errorf("%v: %v", c, err)
		}
		if err := rr.checkXent(uint64(i)); err != nil {
			t.Errorf("%v: cross-entropy: %v", c, err)
		}
	}
}
