package cuda

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// Targets are class ids on the device, one per row: Len int32 values (int64
// with Int64) at byte Offset of Buf.
type Targets struct {
	Buf    *Buffer
	Offset int64
	Len    int
	Int64  bool
}

// Ptr returns the device address of the first target.
func (t Targets) Ptr() uintptr { return t.Buf.Ptr() + uintptr(t.Offset) }

func (t Targets) bytes() int64 {
	if t.Int64 {
		return 8 * int64(t.Len)
	}
	return 4 * int64(t.Len)
}

// UploadTargets copies host targets (I32 or I64) to a new device buffer.
func (d *Device) UploadTargets(t softmax.Targets) (Targets, error) {
	if t.I32 != nil && t.I64 != nil {
		return Targets{}, errs.Kind(errs.ErrBadTarget, "cuda: targets set both I32 and I64")
	}
	out := Targets{Len: t.Len(), Int64: t.I64 != nil}
	b, err := d.Alloc(max(out.bytes(), 8))
	if err != nil {
		return Targets{}, err
	}
	out.Buf = b
	var raw []byte
	if out.Int64 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.I64))), 8*len(t.I64))
	} else {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.I32))), 4*len(t.I32))
	}
	if err := b.Write(0, raw); err != nil {
		b.Free()
		return Targets{}, err
	}
	return out, nil
}

// CrossEntropyOutput says what Device.CrossEntropy writes; nil fields are
// not computed. Loss and LSE are device tensors of XentStatDType: Float32,
// Float64 for Float64 logits.
type CrossEntropyOutput struct {
	// Loss receives one value (mean, sum) or one per row (none).
	Loss *Tensor
	// LSE receives each row's log-sum-exp (for CrossEntropyBackward).
	LSE *Tensor
	// Grad receives d loss/d logits in the logits' dtype and shape, in the
	// pass that reads the logits; it may be the logits tensor itself.
	Grad *Tensor
	// GradOutput scales Grad (a scalar, or per row for reduction none).
	GradOutput softmax.GradOutput
}

// xentCall is a checked cross-entropy call.
type xentCall struct {
	rows, v int
	dt      spec.DType
	p       kernels.XParams
	weights []float32      // uploaded into the workspace
	grows   []float64      // per-row grad-output, uploaded in the math type
	reduce  bool           // run xent_final into p.Out
	cols    *plan.XentPlan // LogSumExp along a non-last axis: the column kernel, in place of the rows'
}

// checkXentLogits validates logits and options: rows × V, class axis last.
func (d *Device) checkXentLogits(logits Tensor, opt softmax.CrossEntropyOptions) (xentCall, error) {
	return d.checkXentLogitsOf(logits, opt, nil)
}

// checkXentLogitsOf is checkXentLogits for a rank's columns of sh (nil:
// whole rows): the options are checked against sh.V classes.
func (d *Device) checkXentLogitsOf(logits Tensor, opt softmax.CrossEntropyOptions, sh *Shard) (xentCall, error) {
	if err := d.checkOpen(); err != nil {
		return xentCall{}, err
	}
	dt := logits.DType
	switch {
	case !dt.Valid():
		return xentCall{}, errs.Kind(errs.ErrBadDType, "cuda: unknown dtype %v", dt)
	case len(logits.Shape) == 0:
		return xentCall{}, errs.Kind(errs.ErrBadShape, "cuda: cross-entropy logits need a class axis (shape [..., V]), got a scalar")
	}
	l, err := spec.Decompose(logits.Shape, -1)
	if err != nil {
		return xentCall{}, fmt.Errorf("cuda: %w", err)
	}
	if l.Axis == 0 && sh == nil {
		return xentCall{}, errs.Kind(errs.ErrBadShape, "cuda: cross-entropy over 0 classes is not served on the GPU (the CPU backend is)")
	}
	if err := d.checkDeviceTensor("logits", logits); err != nil {
		return xentCall{}, err
	}
	f32 := dt.String() // the options must fit float32, the arithmetic (not float64's)
	if dt == softmax.Float64 {
		f32 = ""
	}
	classes := l.Axis
	if sh != nil {
		if err := sh.check(l.Axis); err != nil {
			return xentCall{}, err
		}
		classes = sh.V
	}
	if err := opt.Check("cuda", classes, f32); err != nil {
		return xentCall{}, err
	}
	c := xentCall{rows: l.Outer, v: l.Axis, dt: dt, weights: opt.Weights}
	c.p = kernels.XParams{X: logits.Ptr(), Rows: int64(c.rows), V: int64(c.v), Ignore: opt.Ignored(),
		Scale: opt.ScaleOrOne(), Softcap: opt.Softcap, Eps: opt.LabelSmoothing, ZLoss: opt.ZLoss, GOut: 1, Vec: 1}
	if sh != nil {
		c.p.Lo, c.p.VAll, c.p.ShOp = int64(sh.Lo), int64(sh.V), kernels.ShardXent
	}
	if opt.Reduction == softmax.ReductionMean {
		c.p.Flags |= kernels.XFlagMean
	}
	if dt == softmax.Float64 {
		c.p.Flags |= kernels.XFlagF64
	}
	return c, nil
}

// checkDeviceTensor checks that t is a live tensor of this device.
func (d *Device) checkDeviceTensor(name string, t Tensor) error {
	switch {
	case t.Buf == nil:
		return fmt.Errorf("cuda: %s has no buffer (nil)", name)
	case t.Buf.dev != d:
		return fmt.Errorf("cuda: %s lives on another device", name)
	case t.Ptr()%uintptr(t.DType.Size()) != 0:
		return fmt.Errorf("cuda: misaligned pointer: %s at %#x is not %d-byte aligned for %v", name, t.Ptr(), t.DType.Size(), t.DType)
	}
	if err := t.Buf.span(t.Offset, t.Bytes()); err != nil {
		return fmt.Errorf("cuda: %s: %w", name, err)
	}
	return nil
}

// setTargets checks the targets against the rows.
func (d *Device) setTargets(c *xentCall, t Targets) error {
	switch {
	case t.Buf == nil:
		return errs.Kind(errs.ErrBadTarget, "cuda: targets have no buffer (nil)")
	case t.Buf.dev != d:
		return errs.Kind(errs.ErrBadTarget, "cuda: targets live on another device")
	case t.Len != c.rows:
		return errs.Kind(errs.ErrBadTarget, "cuda: %d targets for %d rows", t.Len, c.rows)
	}
	if err := t.Buf.span(t.Offset, t.bytes()); err != nil {
		return fmt.Errorf("cuda: targets: %w", err)
	}
	c.p.Tgt = t.Ptr()
	if t.Int64 {
		c.p.Flags |= kernels.XFlagT64
	}
	return nil
}

// setStat checks a per-row or reduced output (or saved input) of n
// elements of the call's XentStatDType.
func (d *Device) setStat(c *xentCall, name string, t *Tensor, n int) (uintptr, error) {
	if want := XentStatDType(c.dt); t.DType != want {
		return 0, errs.Kind(errs.ErrBadDType, "cuda: %s is %v, want %v for %v logits", name, t.DType, want, c.dt)
	}
	if t.Len() != n {
		return 0, errs.Kind(errs.ErrBadShape, "cuda: %s has %d elements, want %d", name, t.Len(), n)
	}
	if err := d.checkDeviceTensor(name, *t); err != nil {
		return 0, err
	}
	return t.Ptr(), nil
}

// setGrad checks the gradient tensor and grad-output.
func (d *Device) setGrad(c *xentCall, grad, logits Tensor, g softmax.GradOutput, opt softmax.CrossEntropyOptions) error {
	if grad.DType != logits.DType {
		return errs.Kind(errs.ErrBadDType, "cuda: grad is %v, logits %v", grad.DType, logits.DType)
	}
	if grad.Len() != logits.Len() || len(grad.Shape) != len(logits.Shape) {
		return errs.Kind(errs.ErrBadShape, "cuda: grad has shape %v, logits %v", grad.Shape, logits.Shape)
	}
	for i := range grad.Shape {
		if grad.Shape[i] != logits.Shape[i] {
			return errs.Kind(errs.ErrBadShape, "cuda: grad has shape %v, logits %v", grad.Shape, logits.Shape)
		}
	}
	if err := d.checkDeviceTensor("grad", grad); err != nil {
		return err
	}
	a, b, n := grad.Ptr(), logits.Ptr(), uintptr(grad.Bytes())
	if a != b && a < b+n && b < a+n {
		return errs.Kind(errs.ErrOverlap, "cuda: grad partially overlaps logits (only exact in-place use is allowed)")
	}
	if math.IsNaN(g.Scalar) || math.IsInf(g.Scalar, 0) {
		return errs.Kind(errs.ErrBadOption, "cuda: grad-output %v: want a finite number (0 means 1)", g.Scalar)
	}
	if g.Rows != nil {
		if opt.Reduction != softmax.ReductionNone {
			return errs.Kind(errs.ErrBadOption, "cuda: per-row grad-outputs need reduction none, not %v", opt.Reduction)
		}
		if len(g.Rows) != c.rows {
			return errs.Kind(errs.ErrBadShape, "cuda: %d per-row grad-outputs for %d rows", len(g.Rows), c.rows)
		}
		c.grows = g.Rows
	}
	c.p.Grad = grad.Ptr()
	c.p.GOut = 1
	if g.Scalar != 0 {
		c.p.GOut = g.Scalar
	}
	if a%16 != b%16 {
		c.p.Vec = 0 // the gradient's rows sit elsewhere in their packs: element stores
	}
	return nil
}

// CrossEntropy computes the cross-entropy of logits (rows × V, class axis
// last; f32, f16, bf16 or f64) against one target per row on stream s (nil: the
// default stream), with internal/xent's semantics (softmax.CrossEntropy's
// on the CPU), and writes what out asks for. The gradient is computed in the
// pass that reads the logits: rows of up to 128 KB (the planner's
// table, internal/plan/xent.tsv; plain calls' rows up to 256-320 KB) are
// read once; of longer rows the part past that is read twice, the second
// read mostly from L2; the gradient is written once.
//
// The call waits for its kernels: a target outside [0, V) that is not the
// ignore index is flagged by the kernels, which then write nothing, and
// returned as an ErrBadTarget naming the first such row.
func (d *Device) CrossEntropy(logits Tensor, targets Targets, opt softmax.CrossEntropyOptions, out CrossEntropyOutput, s *Stream) error {
	c, err := d.checkXentLogits(logits, opt)
	if err != nil {
		return err
	}
	if err := d.setTargets(&c, targets); err != nil {
		return err
	}
	if err := d.setXentOutputs(&c, logits, opt, out); err != nil {
		return err
	}
	return d.runXent(&c, s)
}

// setXentOutputs checks and sets what CrossEntropy writes.
func (d *Device) setXentOutputs(c *xentCall, logits Tensor, opt softmax.CrossEntropyOptions, out CrossEntropyOutput) (err error) {
	if out.LSE != nil {
		if c.p.LSE, err = d.setStat(c, "lse", out.LSE, c.rows); err != nil {
			return err
		}
	}
	if out.Loss != nil {
		if opt.Reduction == softmax.ReductionNone {
			if c.p.Loss, err = d.setStat(c, "loss", out.Loss, c.rows); err != nil {
				return err
			}
		} else {
			if c.p.Out, err = d.setStat(c, "loss", out.Loss, 1); err != nil {
				return err
			}
			c.reduce = true
		}
	}
	if out.Grad != nil {
		return d.setGrad(c, *out.Grad, logits, out.GradOutput, opt)
	}
	return nil
}

// CrossEntropyBackward writes into grad the gradient of CrossEntropy's loss
// from each row's saved log-sum-exp lse (XentStatDType, one per row, as
// CrossEntropyOutput.LSE returned it with the same options): one read of
// the logits, one write of the gradient. grad may be the logits tensor.
func (d *Device) CrossEntropyBackward(grad, logits Tensor, targets Targets, lse Tensor, opt softmax.CrossEntropyOptions, g softmax.GradOutput, s *Stream) error {
	c, err := d.checkXentLogits(logits, opt)
	if err != nil {
		return err
	}
	if err := d.setTargets(&c, targets); err != nil {
		return err
	}
	if c.p.LSEIn, err = d.setStat(&c, "lse", &lse, c.rows); err != nil {
		return err
	}
	if err := d.setGrad(&c, grad, logits, g, opt); err != nil {
		return err
	}
	return d.runXent(&c, s)
}

// TargetLogProbs writes log p[target] of each row (dst of XentStatDType,
// one per row; 0 for an ignored row) with the options' Scale and Softcap, without
// materialising the log-softmax. Other options are an ErrBadOption.
func (d *Device) TargetLogProbs(dst, logits Tensor, targets Targets, opt softmax.CrossEntropyOptions, s *Stream) error {
	if opt.LabelSmoothing != 0 || opt.Weights != nil || opt.ZLoss != 0 || opt.Reduction != softmax.ReductionMean {
		return errs.Kind(errs.ErrBadOption, "cuda: TargetLogProbs takes Scale, Softcap and IgnoreIndex only")
	}
	c, err := d.checkXentLogits(logits, opt)
	if err != nil {
		return err
	}
	if err := d.setTargets(&c, targets); err != nil {
		return err
	}
	if c.p.Loss, err = d.setStat(&c, "dst", &dst, c.rows); err != nil {
		return err
	}
	c.p.Flags = c.p.Flags&^kernels.XFlagMean | kernels.XFlagTLP
	return d.runXent(&c, s)
}

// LogSumExp writes log Σ exp(Scale·x) along opt.Axis of src (any axis;
// negative counts from the end) into dst (src's dtype; src's shape without
// the axis, or with it as size 1), on stream s. Arithmetic is float32
// (float64 for Float64). The last axis, or one followed only by axes of
// size 1, runs the rows kernels of CrossEntropy; another runs a column
// kernel (internal/plan.PlanXentCols).
func (d *Device) LogSumExp(dst, src Tensor, opt Options, s *Stream) error {
	if len(src.Shape) == 0 {
		return errs.Kind(errs.ErrBadShape, "cuda: log-sum-exp of a scalar")
	}
	l, err := spec.Decompose(src.Shape, opt.Axis)
	if err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	f32 := "the GPU kernels"
	if src.DType == softmax.Float64 {
		f32 = ""
	}
	if err := errs.CheckScale("cuda", opt.Scale, f32); err != nil {
		return err
	}
	if l.Axis == 0 {
		return errs.Kind(errs.ErrBadShape, "cuda: log-sum-exp over an empty axis is not served on the GPU (the CPU backend is)")
	}
	// The rows view: outer × axis, or (outer·axis) × inner for the
	// columns (checkXentLogits checks the buffer, dtype and options).
	view := src
	view.Shape = []int{l.Outer, l.Axis}
	if l.Inner > 1 {
		view.Shape = []int{l.Outer * l.Axis, l.Inner}
	}
	c, err := d.checkXentLogits(view, softmax.CrossEntropyOptions{Scale: opt.Scale})
	if err != nil {
		return err
	}
	if dst.DType != src.DType {
		return errs.Kind(errs.ErrBadDType, "cuda: dst is %v, src %v", dst.DType, src.DType)
	}
	ax := (opt.Axis + len(src.Shape)) % len(src.Shape)
	without := append(slices.Clone(src.Shape[:ax]), src.Shape[ax+1:]...)
	with1 := append(append(slices.Clone(src.Shape[:ax]), 1), src.Shape[ax+1:]...)
	if !slices.Equal(dst.Shape, without) && !slices.Equal(dst.Shape, with1) {
		return errs.Kind(errs.ErrBadShape, "cuda: dst has shape %v, want %v without axis %d (or with it as size 1)", dst.Shape, src.Shape, ax)
	}
	if err := d.checkDeviceTensor("dst", dst); err != nil {
		return err
	}
	c.p.LSE = dst.Ptr()
	c.p.Flags = kernels.XFlagNoTarget | kernels.XFlagLSENative
	if c.dt == softmax.Float64 {
		c.p.Flags |= kernels.XFlagF64
	}
	if l.Inner > 1 {
		pl, err := plan.PlanXentCols(plan.XentColsProblem{Rows: int64(l.Outer), V: int64(l.Axis), Inner: int64(l.Inner), DType: c.dt}, d.planDevice())
		if err != nil {
			return fmt.Errorf("cuda: %w", err)
		}
		c.rows, c.v, c.cols = l.Outer, l.Axis, &pl
		c.p.Rows, c.p.V, c.p.Inner = int64(l.Outer), int64(l.Axis), int64(l.Inner)
	}
	return d.runXent(&c, s)
}

// XentPlan returns the row kernel and launch the cross-entropy ops use for
// p on this device (the planner's table). A call is Plain when
// kernels.XentPlain holds (aligned logits and gradient, no softcap, weights
// or label smoothing, V a multiple of the 16-byte pack).
func (d *Device) XentPlan(p plan.XentProblem) (plan.XentPlan, error) {
	return plan.PlanXent(p, d.planDevice())
}

// xentWS lays out a call's per-row statistics in the stream's workspace:
// stats (3 doubles), bad (2 int64s), then per-row losses, weights and
// grad-outputs, each from a 16-byte boundary. Nothing proportional to the
// logits.
func (c *xentCall) wsLayout() (loss, w, grows, total int64) {
	up := func(n int64) int64 { return (n + 15) &^ 15 }
	es := int64(XentStatDType(c.dt).Size())
	off := int64(64)
	if c.reduce {
		loss, off = off, off+up(es*int64(c.rows))
	}
	if c.weights != nil {
		w, off = off, off+up(4*int64(len(c.weights)))
	}
	if c.grows != nil {
		grows, off = off, off+up(es*int64(c.rows))
	}
	return loss, w, grows, off
}

// runXent uploads the call's small inputs, launches xent_prep, the row
// kernel and (reductions) xent_final on s, waits, and reports a flagged
// target.
func (d *Device) runXent(c *xentCall, s *Stream) error {
	var pl plan.XentPlan
	var err error
	if c.cols != nil {
		pl = *c.cols
	} else if pl, err = d.XentPlan(plan.XentProblem{Rows: int64(c.rows), V: int64(c.v), DType: c.dt,
		Plain: kernels.XentPlain(&c.p, c.dt, c.weights != nil), LSE: c.p.Flags&kernels.XFlagNoTarget != 0}); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	if _, err := d.xentInputs(c, s, 0); err != nil {
		return err
	}
	if err := d.xentLaunch(kernels.XentPrep, 1, kernels.XentOneBlock, 0, c.p, s); err != nil {
		return err
	}
	if err := d.xentLaunch(pl.Symbol, pl.Grid, pl.Block, pl.Smem, c.p, s); err != nil {
		return err
	}
	return d.xentFinish(c, s)
}

// xentInputs lays out the call's workspace on s with extra bytes after it
// (returned), points c.p at it and uploads the weights and grad-outputs.
func (d *Device) xentInputs(c *xentCall, s *Stream, extra int64) (driver.DevicePtr, error) {
	lossOff, wOff, gOff, total := c.wsLayout()
	ws, err := d.workspaceFor(s, total+extra)
	if err != nil {
		return 0, err
	}
	base := uintptr(ws)
	c.p.Stats, c.p.Bad = base, base+24
	if c.reduce {
		c.p.Loss = base + uintptr(lossOff)
	}
	var wRaw, gRaw []byte
	if c.weights != nil {
		wRaw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c.weights))), 4*len(c.weights))
		c.p.W = base + uintptr(wOff)
	}
	if c.grows != nil {
		if c.dt == softmax.Float64 {
			gRaw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c.grows))), 8*len(c.grows))
		} else {
			g32 := make([]float32, len(c.grows))
			for i, g := range c.grows {
				g32[i] = float32(g)
			}
			gRaw = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(g32))), 4*len(g32))
		}
		c.p.GRows = base + uintptr(gOff)
	}
	for _, up := range []struct {
		off int64
		v   []byte
	}{{wOff, wRaw}, {gOff, gRaw}} {
		if len(up.v) == 0 {
			continue
		}
		if err := d.ctx.Do(func() error {
			return d.api.MemcpyHtoDAsync(ws+driver.DevicePtr(up.off), unsafe.Pointer(&up.v[0]), uint64(len(up.v)), s.handle())
		}); err != nil {
			return 0, fmt.Errorf("cuda: uploading cross-entropy inputs: %w", err)
		}
	}
	return ws + driver.DevicePtr(total), nil
}

// xentLaunch launches one xent.cu kernel with p on s.
func (d *Device) xentLaunch(sym string, grid, block, smem uint32, p kernels.XParams, s *Stream) error {
	f, err := d.xentFunction(sym)
	if err != nil {
		return err
	}
	if smem > 0 {
		if err := d.raiseSmem(d.xentModule(sym), f, sym, int(smem)); err != nil {
			return err
		}
	}
	if err := d.ctx.Launch(f, [3]uint32{grid, 1, 1}, [3]uint32{block, 1, 1}, smem, s.handle(), unsafe.Pointer(&p)); err != nil {
		return fmt.Errorf("cuda: launching %s grid %d block %d: %w", sym, grid, block, err)
	}
	return nil
}

// xentFinish launches xent_final for a reduction, waits for s and reports
// a target xent_prep flagged.
func (d *Device) xentFinish(c *xentCall, s *Stream) error {
	if c.reduce {
		if err := d.xentLaunch(kernels.XentFinal, 1, kernels.XentOneBlock, 0, c.p, s); err != nil {
			return err
		}
	}
	var bad [2]int64
	if err := d.ctx.Do(func() error {
		return d.api.MemcpyDtoHAsync(unsafe.Pointer(&bad[0]), driver.DevicePtr(c.p.Bad), 16, s.handle())
	}); err != nil {
		return fmt.Errorf("cuda: reading the target check: %w", err)
	}
	if err := d.ctx.SynchronizeStream(s.handle()); err != nil {
		return fmt.Errorf("cuda: cross-entropy kernels: %w", err)
	}
	if bad[0] >= 0 {
		v := int64(c.v)
		if c.p.VAll > 0 {
			v = c.p.VAll
		}
		return errs.Kind(errs.ErrBadTarget, "cuda: row %d: target %d outside [0, %d) and not the ignore index %d (nothing written)", bad[0], bad[1], v, c.p.Ignore)
	}
	return nil
}

// xentModule returns the module entry of one xent.cu kernel (created
// empty on first use; xentFunction loads it).
func (d *Device) xentModule(symbol string) *module {
	key := moduleKey{file: kernels.XentFile, symbol: symbol}
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.modules[key]
	if !ok {
		m = &module{fns: map[string]driver.Function{}, smem: map[string]int{}, maxT: map[string]int{}}
		d.modules[key] = m
	}
	return m
}

// xentFunction loads (compiling on first use, or from the disk cache) the
// xent.cu kernel symbol: one module a kernel, as the softmax strategies'.
func (d *Device) xentFunction(symbol string) (driver.Function, error) {
	m := d.xentModule(symbol)
	m.once.Do(func() { m.err = d.loadXent(m, symbol) })
	if m.err != nil {
		return 0, m.err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.fns[symbol]; ok {
		return f, nil
	}
	f, err := d.ctx.Function(m.handle, symbol)
	if err != nil {
		return 0, fmt.Errorf("cuda: kernel %s in %s: %w", symbol, kernels.XentFile, err)
	}
	m.fns[symbol] = f
	return f, nil
}

// loadXent compiles (or takes from the disk cache) and loads the module
// of one xent.cu kernel into m.
func (d *Device) loadXent(m *module, symbol string) error {
	src, hdrs, err := kernels.XentSource(symbol)
	if err != nil {
		return err
	}
	res, err := jit.Default().Get(jit.Request{Name: kernels.XentFile, Source: src, Headers: hdrs, Arch: d.props.Arch()})
	if err != nil {
		return fmt.Errorf("cuda: compiling %s from %s on %s: %w", symbol, kernels.XentFile, d.props.Arch(), err)
	}
	if m.handle, err = d.ctx.LoadModule(res.CUBIN); err != nil {
		return fmt.Errorf("cuda: loading %s: %w", symbol, err)
	}
	return nil
}

// XentStatDType is the dtype of CrossEntropy's per-row and reduced
// outputs (Loss, LSE; TargetLogProbs' dst; CrossEntropyBackward's saved
// lse) for logits of dt: the kernels' arithmetic, Float32, or Float64
// for Float64 logits.
func XentStatDType(dt softmax.DType) softmax.DType {
	if dt == softmax.Float64 {
		return softmax.Float64
	}
	return softmax.Float32
}
