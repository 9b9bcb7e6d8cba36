package cuda

import (
	"fmt"
	"unsafe"

	softmax "github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// A Shard is one rank's part of a class axis split across a communicator's
// ranks (issue 77): its tensors hold the columns [Lo, Lo+width) of V, width
// being their last dimension. The ranks' parts may be of any widths (none
// too) as long as together they tile [0, V); internal/shard.Even splits as
// torch's vocab-parallel layers do.
type Shard struct{ Lo, V int }

func (sh Shard) check(width int) error {
	if sh.V < 1 || sh.Lo < 0 || width < 0 || sh.Lo+width > sh.V {
		return errs.Kind(errs.ErrBadShape, "cuda: shard [%d, %d) of %d classes: want 0 ≤ Lo ≤ Lo+width ≤ V, V ≥ 1", sh.Lo, sh.Lo+width, sh.V)
	}
	return nil
}

// exchange is the one collective between a sharded call's two passes:
// a Comm's NCCL calls, or the tests' ranks on one GPU.
type exchange interface {
	Rank() int
	Size() int
	// allGather fills the other ranks' slots of rec (size() slots of n
	// values, this rank's filled), on s.
	allGather(rec driver.DevicePtr, n int, f64 bool, s *Stream) error
	// allReduce sums n values at rec over the ranks, in place, on s.
	allReduce(rec driver.DevicePtr, n int, f64 bool, s *Stream) error
}

func ncclType(f64 bool) driver.NCCLDataType {
	if f64 {
		return driver.NCCLFloat64
	}
	return driver.NCCLFloat32
}

func (c *Comm) allGather(rec driver.DevicePtr, n int, f64 bool, s *Stream) error {
	off := driver.DevicePtr(uintptr(c.rank*n) * recSize(f64))
	return c.dev.ctx.Do(func() error {
		return c.nccl.AllGather(rec+off, rec, n, ncclType(f64), c.comm, s.handle())
	})
}

func (c *Comm) allReduce(rec driver.DevicePtr, n int, f64 bool, s *Stream) error {
	return c.dev.ctx.Do(func() error {
		return c.nccl.AllReduce(rec, rec, n, ncclType(f64), driver.NCCLSum, c.comm, s.handle())
	})
}

// Softmax computes op (softmax.OpSoftmax or OpLogSoftmax) of this rank's
// columns of logits whose class axis (the last) is split across the
// communicator's ranks, as Device.Apply computes it on the whole rows:
// each rank reads its columns twice (a per-row record, then the output)
// around one all-gather of the records (16 bytes a row a rank; 32 for
// float64). Every rank calls it with its shard, collectively, on its own
// stream s (nil: the default stream); NCCL runs on s. With OpenComms, call
// each rank from its own goroutine (NCCL blocks until every rank joins).
// The class axis is the last: opt.Axis must be 0 (the zero value), −1 or
// the last axis' index; opt.Algo is ignored.
func (c *Comm) Softmax(op softmax.Op, dst, src Tensor, sh Shard, opt Options, s *Stream) error {
	return c.dev.shardSoftmax(c, op, dst, src, sh, opt, s)
}

// LogSumExp writes each row's log Σ exp(Scale·x) over all ranks' columns
// into dst (src's dtype, one a row, as Device.LogSumExp), on every rank:
// one all-gather.
func (c *Comm) LogSumExp(dst, src Tensor, sh Shard, opt Options, s *Stream) error {
	return c.dev.shardLSE(c, dst, src, sh, opt, s)
}

// SoftmaxBackward computes the gradient op (softmax.OpSoftmaxBackward or
// OpLogSoftmaxBackward) of this rank's columns, as Device.ApplyBackward on
// whole rows: a per-row Σ dy·y (Σ dy) over the rank's columns, one
// all-reduce of it, then dx.
func (c *Comm) SoftmaxBackward(op softmax.Op, dx, y, dy Tensor, sh Shard, opt Options, s *Stream) error {
	return c.dev.shardBackward(c, op, dx, y, dy, sh, opt, s)
}

// CrossEntropy is Device.CrossEntropy over logits whose class axis is split
// across the ranks: targets are global class ids (the same on every rank),
// opt.Weights the global class weights (length sh.V); ignore_index, label
// smoothing, weights, z-loss, softcap and scale keep their global meaning.
// One all-gather of per-row records (max, sum, target logit, Σ w·z); every
// rank writes the same Loss and LSE and the gradient of its own columns.
func (c *Comm) CrossEntropy(logits Tensor, targets Targets, sh Shard, opt softmax.CrossEntropyOptions, out CrossEntropyOutput, s *Stream) error {
	return c.dev.shardXent(c, logits, targets, sh, opt, out, nil, s)
}

// CrossEntropyBackward writes this rank's columns of the gradient from the
// rows' global lse (CrossEntropy's LSE): no collective.
func (c *Comm) CrossEntropyBackward(grad, logits Tensor, targets Targets, lse Tensor, sh Shard, opt softmax.CrossEntropyOptions, g softmax.GradOutput, s *Stream) error {
	out := CrossEntropyOutput{Grad: &grad, GradOutput: g}
	return c.dev.shardXent(nil, logits, targets, sh, opt, out, &lse, s)
}

// shardRows checks a sharded call's tensors (outputs first; class axis
// last) and returns rows and the rank's width.
func (d *Device) shardRows(op softmax.Op, opt Options, sh Shard, names []string, ts ...Tensor) (spec.Layout, error) {
	ref := ts[len(ts)-1]
	if len(ref.Shape) == 0 {
		return spec.Layout{}, errs.Kind(errs.ErrBadShape, "cuda: a sharded %v needs a class axis, got a scalar", op)
	}
	if a := opt.Axis; a != 0 && a != -1 && a != len(ref.Shape)-1 {
		return spec.Layout{}, errs.Kind(errs.ErrBadAxis, "cuda: sharded ops split the last axis, not axis %d", a)
	}
	opt.Axis = -1
	l, err := d.checkTensors(op, opt, names, ts...)
	if err != nil {
		return l, err
	}
	if l.Inner != 1 {
		return l, errs.Kind(errs.ErrBadAxis, "cuda: sharded ops split the last axis")
	}
	return l, sh.check(l.Axis)
}

// shardParams are the kernels' parameters of a softmax-family call.
func shardParams(l spec.Layout, dt spec.DType, sh Shard, opt Options, x uintptr) kernels.XParams {
	p := kernels.XParams{X: x, Rows: int64(l.Outer), V: int64(l.Axis), Ignore: -1, Scale: opt.scale64(),
		GOut: 1, Vec: 1, Flags: kernels.XFlagNoTarget, Lo: int64(sh.Lo), VAll: int64(sh.V)}
	if dt == softmax.Float64 {
		p.Flags |= kernels.XFlagF64
	} else {
		p.Scale = float64(opt.scale())
	}
	return p
}

// shardRec returns room for size ranks' records of rows on s: nv values a
// row a rank, of the call's math type, after skip bytes of the workspace.
func (d *Device) shardRec(s *Stream, skip int64, rows, nv, size int, f64 bool) (driver.DevicePtr, error) {
	ws, err := d.workspaceFor(s, skip+int64(recSize(f64))*int64(nv*rows*size))
	if err != nil {
		return 0, err
	}
	return ws + driver.DevicePtr(skip), nil
}

func (d *Device) shardSoftmax(ex exchange, op softmax.Op, dst, src Tensor, sh Shard, opt Options, s *Stream) error {
	if op != softmax.OpSoftmax && op != softmax.OpLogSoftmax {
		return errs.Kind(errs.ErrBadOp, "cuda: sharded Softmax computes softmax or log_softmax, not %v", op)
	}
	l, err := d.shardRows(op, opt, sh, []string{"dst", "src"}, dst, src)
	if err != nil {
		return err
	}
	p := shardParams(l, src.DType, sh, opt, src.Ptr())
	p.Grad = dst.Ptr()
	if dst.Ptr()%16 != src.Ptr()%16 {
		p.Vec = 0
	}
	p.ShOp = kernels.ShardSoftmax
	if op == softmax.OpLogSoftmax {
		p.ShOp = kernels.ShardLog
	}
	return d.shardTwoPass(ex, src.DType, p, 0, s)
}

func (d *Device) shardLSE(ex exchange, dst, src Tensor, sh Shard, opt Options, s *Stream) error {
	l, err := d.shardRows(softmax.OpSoftmax, opt, sh, []string{"src"}, src)
	if err != nil {
		return err
	}
	if dst.DType != src.DType || dst.Len() != l.Outer {
		return errs.Kind(errs.ErrBadShape, "cuda: lse is %v × %d, want %v × %d (one a row)", dst.DType, dst.Len(), src.DType, l.Outer)
	}
	if err := d.checkDeviceTensor("lse", dst); err != nil {
		return err
	}
	p := shardParams(l, src.DType, sh, opt, src.Ptr())
	p.LSE = dst.Ptr()
	p.Flags |= kernels.XFlagLSENative
	return d.shardTwoPass(ex, src.DType, p, 0, s)
}

// shardTwoPass runs shard_stats, the all-gather and shard_apply of p on s,
// the records after skip bytes of the stream's workspace.
func (d *Device) shardTwoPass(ex exchange, dt spec.DType, p kernels.XParams, skip int64, s *Stream) error {
	if p.Rows == 0 {
		return nil
	}
	f64 := dt == softmax.Float64
	rec, err := d.shardRec(s, skip, int(p.Rows), kernels.ShardRecord, ex.Size(), f64)
	if err != nil {
		return err
	}
	n := int(p.Rows) * kernels.ShardRecord
	p.Rec = uintptr(rec) + uintptr(ex.Rank()*n)*recSize(f64)
	if err := d.shardLaunch(kernels.ShardStats, dt, p, s); err != nil {
		return err
	}
	if err := ex.allGather(rec, n, f64, s); err != nil {
		return fmt.Errorf("cuda: sharded call: all-gather of the row records: %w", err)
	}
	p.Rec, p.NRanks = uintptr(rec), int32(ex.Size())
	return d.shardLaunch(kernels.ShardApply, dt, p, s)
}

func recSize(f64 bool) uintptr {
	if f64 {
		return 8
	}
	return 4
}

func (d *Device) shardBackward(ex exchange, op softmax.Op, dx, y, dy Tensor, sh Shard, opt Options, s *Stream) error {
	if op != softmax.OpSoftmaxBackward && op != softmax.OpLogSoftmaxBackward {
		return errs.Kind(errs.ErrBadOp, "cuda: sharded SoftmaxBackward computes a gradient op, not %v", op)
	}
	l, err := d.shardRows(op, opt, sh, []string{"dx", "y", "dy"}, dx, y, dy)
	if err != nil {
		return err
	}
	dt := y.DType
	p := shardParams(l, dt, sh, opt, y.Ptr())
	p.Grad, p.DY = dx.Ptr(), dy.Ptr()
	if dx.Ptr()%16 != y.Ptr()%16 || dy.Ptr()%16 != y.Ptr()%16 {
		p.Vec = 0
	}
	p.ShOp = kernels.ShardSoftmax
	if op == softmax.OpLogSoftmaxBackward {
		p.ShOp = kernels.ShardLog
	}
	if p.Rows == 0 {
		return nil
	}
	f64 := dt == softmax.Float64
	rec, err := d.shardRec(s, 0, int(p.Rows), 1, 1, f64)
	if err != nil {
		return err
	}
	p.Rec, p.NRanks = uintptr(rec), 1
	if err := d.shardLaunch(kernels.ShardDot, dt, p, s); err != nil {
		return err
	}
	if err := ex.allReduce(rec, int(p.Rows), f64, s); err != nil {
		return fmt.Errorf("cuda: sharded backward: all-reduce of the row sums: %w", err)
	}
	return d.shardLaunch(kernels.ShardBwd, dt, p, s)
}

// shardLaunch launches one sharded kernel over p's rows: ShardThreads
// threads a block, as many blocks as fill the device's threads (fewer for
// fewer rows).
func (d *Device) shardLaunch(kind string, dt spec.DType, p kernels.XParams, s *Stream) error {
	nt := kernels.ShardThreads(p.V, dt)
	sym := kernels.ShardSymbol(kind, dt, nt)
	f, err := d.xentFunction(sym)
	if err != nil {
		return err
	}
	grid := min(p.Rows, int64(d.props.Multiprocessors*max(1, d.props.MaxThreadsPerSM/nt)))
	if err := d.ctx.Launch(f, [3]uint32{uint32(grid), 1, 1}, [3]uint32{uint32(nt), 1, 1}, 0, s.handle(), unsafe.Pointer(&p)); err != nil {
		return fmt.Errorf("cuda: launching %s grid %d block %d: %w", sym, grid, nt, err)
	}
	return nil
}

// shardXent runs a rank's sharded cross-entropy: xent_prep over the global
// classes (targets, the mean's denominators, W), shard_stats, the
// all-gather and shard_apply; or, for the backward (lseIn, ex nil),
// shard_apply alone from the saved lse.
func (d *Device) shardXent(ex exchange, logits Tensor, targets Targets, sh Shard, opt softmax.CrossEntropyOptions, out CrossEntropyOutput, lseIn *Tensor, s *Stream) error {
	c, err := d.checkXentLogitsOf(logits, opt, &sh)
	if err != nil {
		return err
	}
	if err := d.setTargets(&c, targets); err != nil {
		return err
	}
	if lseIn != nil {
		if c.p.LSEIn, err = d.setStat(&c, "lse", lseIn, c.rows); err != nil {
			return err
		}
	}
	if err := d.setXentOutputs(&c, logits, opt, out); err != nil {
		return err
	}
	if c.rows == 0 {
		return nil
	}
	f64 := c.dt == softmax.Float64
	nranks := 0
	if ex != nil {
		nranks = ex.Size()
	}
	n := c.rows * kernels.ShardRecord
	rec, err := d.xentInputs(&c, s, int64(n*nranks)*int64(recSize(f64)))
	if err != nil {
		return err
	}
	prep := c.p
	prep.V = c.p.VAll // the targets' range and W are the global classes'
	if err := d.xentLaunch(kernels.XentPrep, 1, kernels.XentOneBlock, 0, prep, s); err != nil {
		return err
	}
	if ex != nil {
		p := c.p
		p.Rec = uintptr(rec) + uintptr(ex.Rank()*n)*recSize(f64)
		if err := d.shardLaunch(kernels.ShardStats, c.dt, p, s); err != nil {
			return err
		}
		if err := ex.allGather(rec, n, f64, s); err != nil {
			return fmt.Errorf("cuda: sharded cross-entropy: all-gather of the row records: %w", err)
		}
		c.p.Rec, c.p.NRanks = uintptr(rec), int32(nranks)
	}
	if err := d.shardLaunch(kernels.ShardApply, c.dt, c.p, s); err != nil {
		return err
	}
	return d.xentFinish(&c, s)
}
