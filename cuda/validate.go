package cuda

import (
	"fmt"
	"slices"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// Options tune a device operation.
type Options struct {
	// Axis is the softmax dimension; negative counts from the end.
	Axis int
	// Scale multiplies the input first (softmax(Scale·x)); 0 means 1.
	// Backward ops give the gradient with respect to that x, so they
	// multiply dx by it: Scale·y·(dy − Σ dy·y), Scale·(dy − exp(y)·Σ dy)
	// for log_softmax. It is a float64 like softmax.Options.Scale; the
	// float32, float16 and bfloat16 kernels compute in float32 and use
	// float32(Scale), the float64 ones use it as given.
	Scale float64
	// Algo forces a kernel strategy by name (see Strategies), optionally
	// at one of its launch configurations, "block_reg/t256_p4" (see
	// Device.Configs); "" or "auto"
	// lets the planner choose.
	Algo string
	// Tuned makes the planner prefer the autotuning cache's winner for the
	// shape class, when `softmax tune` has stored one for this device.
	Tuned bool

	// planWith, when set (this package's tests and benchmarks), plans in
	// place of the planner's rules, e.g. a split_grid wave size.
	planWith func(plan.Problem, plan.Device, plan.Occupancy) (plan.Plan, error)
	// general, when set (this package's tests), runs plain softmax
	// launches from the general build, as every other launch runs.
	general bool
}

func (o Options) scale() float32 {
	if o.Scale == 0 {
		return 1
	}
	return float32(o.Scale)
}

// scale64 is the scale float64 kernels use (Params.Scale64).
func (o Options) scale64() float64 {
	if o.Scale == 0 {
		return 1
	}
	return o.Scale
}

// checkDType returns an error for a dtype the device cannot compute: an
// unknown one. Float64 runs the kernels' double-math builds (the
// strategies kernels.Info.F64 marks).
func checkDType(dt softmax.DType) error {
	if !dt.Valid() {
		return errs.Kind(errs.ErrBadDType, "cuda: unknown dtype %v", dt)
	}
	return nil
}

// checkTensors validates a call's tensors (outputs first) against each
// other and returns the layout. Nothing is launched on error.
func (d *Device) checkTensors(op softmax.Op, opt Options, names []string, ts ...Tensor) (spec.Layout, error) {
	if !op.Valid() {
		return spec.Layout{}, errs.Kind(errs.ErrBadOp, "cuda: unknown op %v", op)
	}
	ref := ts[len(ts)-1]
	if err := checkDType(ref.DType); err != nil {
		return spec.Layout{}, err
	}
	l, err := spec.Decompose(ref.Shape, opt.Axis)
	if err != nil {
		return l, fmt.Errorf("cuda: %w", err)
	}
	if err := errs.CheckScale("cuda", opt.Scale, "the GPU kernels"); err != nil {
		return l, err
	}
	for i, t := range ts {
		switch {
		case t.Buf == nil:
			return l, fmt.Errorf("cuda: %s has no buffer (nil)", names[i])
		case t.Buf.dev != d:
			return l, fmt.Errorf("cuda: %s lives on another device", names[i])
		case t.DType != ref.DType:
			return l, errs.Kind(errs.ErrBadDType, "cuda: dtype mismatch: %s is %v, want %v", names[i], t.DType, ref.DType)
		case !slices.Equal(t.Shape, ref.Shape):
			return l, errs.Kind(errs.ErrBadShape, "cuda: shape mismatch: %s has shape %v, want %v", names[i], t.Shape, ref.Shape)
		case t.Ptr()%uintptr(t.DType.Size()) != 0:
			return l, fmt.Errorf("cuda: misaligned pointer: %s at %#x is not %d-byte aligned for %v", names[i], t.Ptr(), t.DType.Size(), t.DType)
		}
		if err := t.Buf.span(t.Offset, t.Bytes()); err != nil {
			return l, fmt.Errorf("cuda: %s: %w", names[i], err)
		}
	}
	// Exact aliasing (dx == y or dx == dy, dst == src) is safe in every
	// strategy: an output element depends only on its own inputs and its
	// slice's reduction, and each kernel reads a slice's inputs for the
	// reduction before it writes any of its outputs (registers or shared
	// memory behind a barrier, a grid or cluster sync, or a second kernel),
	// re-reading an element only in the thread that then writes it. Shown
	// per strategy by TestBackwardAlias. A partial overlap would let one
	// slice's outputs land on another's inputs: refused.
	out := ts[0]
	for i := 1; i < len(ts); i++ {
		a, b := out.Ptr(), ts[i].Ptr()
		n := uintptr(out.Bytes())
		if n == 0 || a == b {
			continue
		}
		if a < b+n && b < a+n {
			return l, errs.Kind(errs.ErrOverlap, "cuda: %s partially overlaps %s (only exact in-place use is allowed)", names[0], names[i])
		}
	}
	return l, nil
}
