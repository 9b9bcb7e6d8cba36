package softmax

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/gofused/softmax/internal/cpu"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/memlimit"
	"github.com/gofused/softmax/internal/spec"
)

// Tensor is a contiguous (C order) host tensor whose dtype is chosen at run
// time. Exactly one data slice is used: F32 for Float32, U16 (raw bits) for
// Float16 and BFloat16, F64 for Float64.
type Tensor struct {
	Shape []int
	DType DType
	F32   []float32
	U16   []uint16
	F64   []float64
}

// NewTensor allocates a zeroed tensor of the given shape and dtype.
func NewTensor(dt DType, shape ...int) (Tensor, error) {
	n, err := spec.NumElements(shape)
	if err != nil {
		return Tensor{}, fmt.Errorf("softmax: %w", err)
	}
	if err := memlimit.Check("softmax: tensor", shape, n, dt.Size()); err != nil {
		return Tensor{}, err
	}
	t := Tensor{Shape: append([]int(nil), shape...), DType: dt}
	switch dt {
	case Float32:
		t.F32 = make([]float32, n)
	case Float16, BFloat16:
		t.U16 = make([]uint16, n)
	case Float64:
		t.F64 = make([]float64, n)
	default:
		return Tensor{}, errs.Kind(errs.ErrBadDType, "softmax: unknown dtype %v", dt)
	}
	return t, nil
}

// Len returns the number of elements held by the dtype's data slice.
func (t Tensor) Len() int {
	switch t.DType {
	case Float32:
		return len(t.F32)
	case Float64:
		return len(t.F64)
	}
	return len(t.U16)
}

// bytes returns the byte range of the data, for overlap checks.
func (t Tensor) bytes() (start uintptr, n uintptr) {
	if t.DType == Float64 {
		if len(t.F64) == 0 {
			return 0, 0
		}
		return uintptr(unsafe.Pointer(&t.F64[0])), uintptr(len(t.F64)) * 8
	}
	if t.DType == Float32 {
		if len(t.F32) == 0 {
			return 0, 0
		}
		return uintptr(unsafe.Pointer(&t.F32[0])), uintptr(len(t.F32)) * 4
	}
	if len(t.U16) == 0 {
		return 0, 0
	}
	return uintptr(unsafe.Pointer(&t.U16[0])), uintptr(len(t.U16)) * 2
}

// check validates one tensor against the call's shape.
func (t Tensor) check(name string, dt DType, shape []int, n int) error {
	if t.DType != dt {
		return errs.Kind(errs.ErrBadDType, "softmax: dtype mismatch: %s is %v, want %v", name, t.DType, dt)
	}
	if !slices.Equal(t.Shape, shape) {
		return errs.Kind(errs.ErrBadShape, "softmax: shape mismatch: %s has shape %v, want %v", name, t.Shape, shape)
	}
	if t.F32 != nil && t.DType != Float32 || t.F64 != nil && t.DType != Float64 ||
		t.U16 != nil && t.DType != Float16 && t.DType != BFloat16 {
		return errs.Kind(errs.ErrBadDType, "softmax: %s (%v) has data in the wrong slice (F32 for f32, U16 for f16/bf16, F64 for f64)", name, t.DType)
	}
	if l := t.Len(); l != n {
		if l == 0 {
			return errs.Kind(errs.ErrBadShape, "softmax: %s is nil or empty, shape %v needs %d elements", name, shape, n)
		}
		return errs.Kind(errs.ErrBadShape, "softmax: length mismatch: %s has %d elements, shape %v needs %d", name, l, shape, n)
	}
	return nil
}

func (t Tensor) buf() cpu.Buf { return cpu.Buf{DType: t.DType, F32: t.F32, U16: t.U16, F64: t.F64} }

// overlapErr reports partial overlap between an output and an input: the
// same memory exactly is in-place and allowed, anything else is an error.
func overlapErr(outName string, out Tensor, inName string, in Tensor) error {
	a, an := out.bytes()
	b, bn := in.bytes()
	if an == 0 || bn == 0 || (a == b && an == bn) {
		return nil
	}
	if a < b+bn && b < a+an {
		return errs.Kind(errs.ErrOverlap, "softmax: %s partially overlaps %s (only exact in-place use is allowed)", outName, inName)
	}
	return nil
}

// validate checks a call and returns its layout; tensors[0] is the output.
func validate(op Op, opt Options, names []string, tensors ...Tensor) (spec.Layout, error) {
	if !op.Valid() {
		return spec.Layout{}, errs.Kind(errs.ErrBadOp, "softmax: unknown op %v", op)
	}
	ref := tensors[len(tensors)-1]
	if !ref.DType.Valid() {
		return spec.Layout{}, errs.Kind(errs.ErrBadDType, "softmax: unknown dtype %v", ref.DType)
	}
	l, err := spec.Decompose(ref.Shape, opt.Axis)
	if err != nil {
		return l, fmt.Errorf("softmax: %w", err)
	}
	f32 := ""
	if ref.DType != Float64 {
		f32 = ref.DType.String()
	}
	if err := errs.CheckScale("softmax", opt.Scale, f32); err != nil {
		return l, err
	}
	n := 1
	if len(ref.Shape) > 0 {
		n = l.Len()
	}
	for i, t := range tensors {
		if err := t.check(names[i], ref.DType, ref.Shape, n); err != nil {
			return l, err
		}
	}
	for i := 1; i < len(tensors); i++ {
		if err := overlapErr(names[0], tensors[0], names[i], tensors[i]); err != nil {
			return l, err
		}
	}
	return l, nil
}

// Apply computes a forward op (OpSoftmax or OpLogSoftmax) of src into dst on
// the CPU. dst must have src's shape and dtype; it may be src itself.
func Apply(op Op, dst, src Tensor, opt Options) error {
	if op.Backward() {
		return errs.Kind(errs.ErrBadOp, "softmax: Apply takes a forward op, got %v (use ApplyBackward)", op)
	}
	l, err := validate(op, opt, []string{"dst", "src"}, dst, src)
	if err != nil {
		return err
	}
	cpu.Forward(op, l, opt.scale(), dst.buf(), src.buf())
	return nil
}

// ApplyBackward computes a gradient op (OpSoftmaxBackward or
// OpLogSoftmaxBackward) into dx from the forward output y and the incoming
// gradient dy, times opt.Scale (the gradient of the forward of Scale·x), on
// the CPU. dx may be y or dy itself; any other overlap is an error.
func ApplyBackward(op Op, dx, y, dy Tensor, opt Options) error {
	if !op.Backward() {
		return errs.Kind(errs.ErrBadOp, "softmax: ApplyBackward takes a backward op, got %v (use Apply)", op)
	}
	l, err := validate(op, opt, []string{"dx", "y", "dy"}, dx, y, dy)
	if err != nil {
		return err
	}
	cpu.Backward(op, l, opt.scale(), dx.buf(), y.buf(), dy.buf())
	return nil
}
