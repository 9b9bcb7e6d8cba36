package cuda

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// Apply computes a forward op (softmax.OpSoftmax or OpLogSoftmax) of src
// into dst on stream s (nil: the default stream). dst may be src itself.
// The call returns once the kernels are queued.
func (d *Device) Apply(op softmax.Op, dst, src Tensor, opt Options, s *Stream) error {
	if op.Backward() {
		return errs.Kind(errs.ErrBadOp, "cuda: Apply takes a forward op, got %v (use ApplyBackward)", op)
	}
	l, err := d.checkTensors(op, opt, tensorNames(op), dst, src)
	if err != nil {
		return err
	}
	return d.run(op, l, dst.DType, opt, kernels.Params{X: src.Ptr(), Y: dst.Ptr(), Scale: opt.scale(), Scale64: opt.scale64()}, s)
}

// ApplyBackward computes a gradient op into dx from the forward output y
// and the incoming gradient dy, on stream s: the gradient with respect to
// x of the forward op on opt.Scale·x (see Options.Scale). dx may be y or
// dy itself; a partial overlap is softmax.ErrOverlap.
func (d *Device) ApplyBackward(op softmax.Op, dx, y, dy Tensor, opt Options, s *Stream) error {
	if !op.Backward() {
		return errs.Kind(errs.ErrBadOp, "cuda: ApplyBackward takes a backward op, got %v (use Apply)", op)
	}
	l, err := d.checkTensors(op, opt, tensorNames(op), dx, y, dy)
	if err != nil {
		return err
	}
	return d.run(op, l, dx.DType, opt, kernels.Params{X: y.Ptr(), DY: dy.Ptr(), Y: dx.Ptr(), Scale: opt.scale(), Scale64: opt.scale64()}, s)
}

// PlanFor returns the plan Apply (forward op: out = dst, in = src) or
// ApplyBackward (out = dx, in = y, dy) would run for these tensors, after
// the same checks: unlike Plan it sees their pointers, so a tensor that
// starts inside a 16-byte pack gets the plan for unaligned pointers.
func (d *Device) PlanFor(op softmax.Op, opt Options, out Tensor, in ...Tensor) (plan.Plan, error) {
	names := tensorNames(op)
	if len(in) != len(names)-1 {
		return plan.Plan{}, fmt.Errorf("cuda: PlanFor %v takes %d input tensors, got %d", op, len(names)-1, len(in))
	}
	ts := append([]Tensor{out}, in...)
	l, err := d.checkTensors(op, opt, names, ts...)
	if err != nil {
		return plan.Plan{}, err
	}
	ptrs := make([]uintptr, len(ts))
	for i, t := range ts {
		ptrs[i] = t.Ptr()
	}
	pl, err := d.plan(op, l, out.DType, opt, ptrs...)
	if err != nil {
		return plan.Plan{}, fmt.Errorf("cuda: %w", err)
	}
	pl.Launches = slices.Clone(pl.Launches) // the cache's copy stays as planned
	return pl, nil
}

// tensorNames names an op's tensors in errors, output first: Apply's dst
// and src, ApplyBackward's dx, y and dy.
func tensorNames(op softmax.Op) []string {
	if op.Backward() {
		return []string{"dx", "y", "dy"}
	}
	return []string{"dst", "src"}
}

// placement returns plan.Problem's Aligned and Skew for a launch's
// pointers (zero ones, the forward ops' dy, skipped): aligned when every
// one is 16-byte aligned (or none is given: Plan), else the bytes past a
// 16-byte boundary that every one of them lies, 0 when they differ.
func placement(ptrs ...uintptr) (aligned bool, skew int) {
	skew = -1
	for _, p := range ptrs {
		if p == 0 {
			continue
		}
		if r := int(p % 16); skew < 0 {
			skew = r
		} else if r != skew {
			return false, 0
		}
	}
	return skew <= 0, max(skew, 0)
}

// Plan returns the plan the device would use for op on a tensor of shape
// and dtype along opt.Axis with 16-byte aligned pointers.
func (d *Device) Plan(op softmax.Op, dt softmax.DType, shape []int, opt Options) (plan.Plan, error) {
	if err := errs.CheckScale("cuda", opt.Scale, "the GPU kernels"); err != nil {
		return plan.Plan{}, err
	}
	l, err := spec.Decompose(shape, opt.Axis)
	if err != nil {
		return plan.Plan{}, fmt.Errorf("cuda: %w", err)
	}
	pl, err := d.plan(op, l, dt, opt)
	pl.Launches = slices.Clone(pl.Launches) // the cache's copy stays as planned
	return pl, err
}

// Strategies lists the kernel strategies Options.Algo accepts.
func Strategies() []string { return plan.Strategies() }

// Configs lists the launch configurations of strategy for op on a tensor
// of shape and dt along opt.Axis, as Options.Algo names them
// ("block_reg/t256_p4"): the strategies whose kernel shape is a free
// choice (block_reg's block size, warp_row's lanes a row) have them; the
// others, and a strategy that cannot serve the problem, have none. Tune
// times them beside the strategies.
func (d *Device) Configs(op softmax.Op, dt softmax.DType, shape []int, opt Options, strategy string) ([]string, error) {
	if err := errs.CheckScale("cuda", opt.Scale, "the GPU kernels"); err != nil {
		return nil, err
	}
	l, err := spec.Decompose(shape, opt.Axis)
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	if err := checkDType(dt); err != nil {
		return nil, err
	}
	p := plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: op, Aligned: true}
	names, err := plan.Configs(p, d.planDevice(), strategy)
	if err != nil {
		return nil, fmt.Errorf("cuda: %w", err)
	}
	return names, nil
}

func (d *Device) planDevice() plan.Device {
	p := d.props
	return plan.Device{Name: p.Name, Major: p.Major, Minor: p.Minor, SMs: p.Multiprocessors, L2Bytes: p.L2CacheSize,
		SmemPerBlock: p.SharedMemPerBlock, SmemOptin: p.SharedMemPerBlockOptin, SmemPerSM: p.SharedMemPerSM,
		MaxThreadsPerSM: p.MaxThreadsPerSM, MaxThreadsPerBlock: p.MaxThreadsPerBlock, Cluster: p.ClusterLaunch,
		Cooperative: p.CooperativeLaunch}
}

// plainLaunch reports whether op with opt runs from the modules built for
// plain softmax (kernels.Source's plain; SMX_PLAIN in ops.cuh), where
// the strategy has them (kernels.Info.PlainBuild) and the plan does not
// ask for the general one (plan.Plan.General): a forward softmax, not
// log, with scale 1. Every other launch takes the general build.
func plainLaunch(op softmax.Op, opt Options) bool {
	return !op.Backward() && !op.Log() && opt.scale64() == 1 && !opt.general
}

// plan plans op for tensors at ptrs (none: 16-byte aligned ones).
func (d *Device) plan(op softmax.Op, l spec.Layout, dt spec.DType, opt Options, ptrs ...uintptr) (plan.Plan, error) {
	if err := checkDType(dt); err != nil {
		return plan.Plan{}, err
	}
	aligned, skew := placement(ptrs...)
	prob := plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: op, Aligned: aligned, Skew: skew}
	plain := plainLaunch(op, opt)
	if opt.planWith != nil {
		return opt.planWith(prob, d.planDevice(), d.occupancy(dt, plain))
	}
	build := func(algo string) (plan.Plan, error) {
		return d.plans.plan(planKey{prob, algo, plain}, func() (plan.Plan, error) {
			pl, err := plan.MakeWith(prob, d.planDevice(), d.queries(dt, plain), algo)
			if err == nil && plain && pl.General {
				// It runs from the general build: size it by that build's
				// occupancy. The choice of build does not depend on it.
				return plan.MakeWith(prob, d.planDevice(), d.queries(dt, false), algo)
			}
			return pl, err
		})
	}
	if opt.Tuned && (opt.Algo == "" || opt.Algo == "auto") {
		if pl, ok := defaultTuneCache.plan(prob, d.planDevice(), build); ok {
			return pl, nil
		}
	}
	return build(opt.Algo)
}

// run plans and queues the launches.
func (d *Device) run(op softmax.Op, l spec.Layout, dt spec.DType, opt Options, p kernels.Params, s *Stream) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	if l.Empty() {
		return nil
	}
	pl, err := d.plan(op, l, dt, opt, p.X, p.Y, p.DY)
	if err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	p.Outer, p.Axis, p.Inner = int64(l.Outer), int64(l.Axis), int64(l.Inner)
	p.Chunk, p.Split = pl.Chunk, int32(max(pl.Split, 1))
	if op.Log() {
		p.Log = 1
	}
	p.Vec = pl.Params.Vec
	if pl.Workspace > 0 {
		ws, err := d.workspaceFor(s, pl.Workspace)
		if err != nil {
			return err
		}
		p.WS = uintptr(ws)
	}
	if slices.ContainsFunc(pl.Launches, func(l plan.Launch) bool { return l.Cooperative }) {
		bar, err := d.barrierFor(s, pl.Barriers)
		if err != nil {
			return err
		}
		p.Bar = uintptr(bar)
	}
	plain := plainLaunch(op, opt) && !pl.General
	for _, ln := range pl.Launches {
		f, m, err := d.function(pl.File, dt, plain, ln.Symbol)
		if err != nil {
			return err
		}
		if ln.Smem > 0 {
			if err := d.raiseSmem(m, f, ln.Symbol, ln.Smem); err != nil {
				return err
			}
		}
		if lim, err := d.maxThreads(m, f, ln.Symbol); err == nil && int(ln.Block[0]*ln.Block[1]*ln.Block[2]) > lim {
			return fmt.Errorf("cuda: plan error: %s launched with %v threads, the compiled kernel allows %d", ln.Symbol, ln.Block, lim)
		}
		arg := unsafe.Pointer(&p)
		if ln.Cluster != [3]uint32{} || ln.Cooperative {
			err = d.ctx.LaunchEx(f, driver.LaunchConfig{Grid: ln.Grid, Block: ln.Block, SharedMem: uint32(ln.Smem),
				Stream: s.handle(), Cluster: ln.Cluster, Cooperative: ln.Cooperative}, arg)
		} else {
			err = d.ctx.Launch(f, ln.Grid, ln.Block, uint32(ln.Smem), s.handle(), arg)
		}
		if err != nil {
			return fmt.Errorf("cuda: launching %s grid %v block %v smem %d: %w", ln.Symbol, ln.Grid, ln.Block, ln.Smem, err)
		}
	}
	return nil
}

// ApplyHost runs a forward op on host tensors: upload, compute, download.
// Convenient for tools and tests; keep data on the device for speed.
func (d *Device) ApplyHost(op softmax.Op, dst, src softmax.Tensor, opt Options) error {
	return d.hostCall(op, opt, []softmax.Tensor{dst, src})
}

// ApplyBackwardHost runs a backward op on host tensors.
func (d *Device) ApplyBackwardHost(op softmax.Op, dx, y, dy softmax.Tensor, opt Options) error {
	return d.hostCall(op, opt, []softmax.Tensor{dx, y, dy})
}

func (d *Device) hostCall(op softmax.Op, opt Options, hs []softmax.Tensor) error {
	// Host-side validation first, with the CPU rules (same messages).
	for i, h := range hs[1:] {
		if h.DType != hs[0].DType || !slices.Equal(h.Shape, hs[0].Shape) || h.Len() != hs[0].Len() {
			return fmt.Errorf("cuda: host tensor %d does not match the output's dtype/shape/length", i+1)
		}
	}
	ts := make([]Tensor, len(hs))
	defer func() {
		for _, t := range ts {
			if t.Buf != nil {
				t.Free()
			}
		}
	}()
	for i, h := range hs {
		var err error
		if ts[i], err = d.Upload(h); err != nil {
			return err
		}
	}
	var err error
	if op.Backward() {
		err = d.ApplyBackward(op, ts[0], ts[1], ts[2], opt, nil)
	} else {
		err = d.Apply(op, ts[0], ts[1], opt, nil)
	}
	if err != nil {
		return err
	}
	return ts[0].CopyTo(hs[0])
}
