// Package spec holds the vocabulary shared by every backend of gofused/softmax:
// storage dtypes, operations, and the outer × axis × inner view of a tensor
// that all kernels work on. The public package re-exports these names.
package spec

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/errs"
)

// DType is the storage type of tensor elements. Arithmetic is float32 for
// Float32, Float16 and BFloat16, and float64 for Float64.
type DType int

// Storage dtypes.
const (
	Float32 DType = iota
	Float16
	BFloat16
	Float64
)

// Size returns the size in bytes of one element.
func (d DType) Size() int {
	switch d {
	case Float32:
		return 4
	case Float16, BFloat16:
		return 2
	case Float64:
		return 8
	}
	return 0
}

// Valid reports whether d is one of the known dtypes.
func (d DType) Valid() bool { return d >= Float32 && d <= Float64 }

// String returns the short name used by the CLI and the kernel catalogue: f32, f16, bf16, f64.
func (d DType) String() string {
	switch d {
	case Float32:
		return "f32"
	case Float16:
		return "f16"
	case BFloat16:
		return "bf16"
	case Float64:
		return "f64"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// ParseDType accepts f32/float32, f16/float16/half, bf16/bfloat16,
// f64/float64/double.
func ParseDType(s string) (DType, error) {
	switch s {
	case "f32", "float32":
		return Float32, nil
	case "f16", "float16", "half":
		return Float16, nil
	case "bf16", "bfloat16":
		return BFloat16, nil
	case "f64", "float64", "double":
		return Float64, nil
	}
	return 0, fmt.Errorf("unknown dtype %q (want f32, f16, bf16 or f64)", s)
}

// Op is the operation computed along the axis.
type Op int

// Operations. The backward ops take the forward output y and the incoming
// gradient dy and produce dx.
const (
	Softmax            Op = iota // y = exp(s·x − max) / Σ exp(s·x − max)
	LogSoftmax                   // y = s·x − max − log Σ exp(s·x − max)
	SoftmaxBackward              // dx = s·y·(dy − Σ dy·y), s the scale
	LogSoftmaxBackward           // dx = s·(dy − exp(y)·Σ dy)
)

// Valid reports whether o is one of the known ops.
func (o Op) Valid() bool { return o >= Softmax && o <= LogSoftmaxBackward }

// Backward reports whether o is a gradient op (two inputs: y and dy).
func (o Op) Backward() bool { return o == SoftmaxBackward || o == LogSoftmaxBackward }

// Log reports whether o is the log-softmax op or its gradient.
func (o Op) Log() bool { return o == LogSoftmax || o == LogSoftmaxBackward }

// String returns the CLI name of the op.
func (o Op) String() string {
	switch o {
	case Softmax:
		return "softmax"
	case LogSoftmax:
		return "log_softmax"
	case SoftmaxBackward:
		return "softmax_backward"
	case LogSoftmaxBackward:
		return "log_softmax_backward"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// ParseOp accepts the names printed by Op.String.
func ParseOp(s string) (Op, error) {
	for o := Softmax; o <= LogSoftmaxBackward; o++ {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown op %q (want softmax, log_softmax, softmax_backward or log_softmax_backward)", s)
}

// Layout is the view every kernel works on: Outer independent blocks, each of
// Axis slices of Inner contiguous elements. Element (o, j, i) lives at
// o·Axis·Inner + j·Inner + i, and softmax runs over j. Inner == 1 is the
// common "last axis" case where each slice is a contiguous row.
type Layout struct {
	Outer, Axis, Inner int
}

// Slices returns the number of independent softmax slices (Outer·Inner).
func (l Layout) Slices() int { return l.Outer * l.Inner }

// Len returns the total element count.
func (l Layout) Len() int { return l.Outer * l.Axis * l.Inner }

// Empty reports whether the tensor has no elements (a valid no-op).
func (l Layout) Empty() bool { return l.Outer == 0 || l.Axis == 0 || l.Inner == 0 }

// Decompose validates shape and axis (negative counts from the end, as in
// PyTorch) and returns the Outer × Axis × Inner layout. A scalar (empty
// shape) is treated as shape [1] with axis 0 or -1.
func Decompose(shape []int, axis int) (Layout, error) {
	if len(shape) == 0 {
		if axis != 0 && axis != -1 {
			return Layout{}, errs.Kind(errs.ErrBadAxis, "axis %d out of range for a scalar (want 0 or -1)", axis)
		}
		return Layout{1, 1, 1}, nil
	}
	n := len(shape)
	if axis < -n || axis >= n {
		return Layout{}, errs.Kind(errs.ErrBadAxis, "axis %d out of range for %d-d shape %v (want %d..%d)", axis, n, shape, -n, n-1)
	}
	if axis < 0 {
		axis += n
	}
	total := 1
	for i, d := range shape {
		if d < 0 {
			return Layout{}, errs.Kind(errs.ErrBadShape, "shape %v has negative dimension %d at index %d", shape, d, i)
		}
		if d != 0 && total > math.MaxInt/d {
			return Layout{}, errs.Kind(errs.ErrBadShape, "shape %v overflows int element count", shape)
		}
		total *= d
	}
	l := Layout{Outer: 1, Axis: shape[axis], Inner: 1}
	for _, d := range shape[:axis] {
		l.Outer *= d
	}
	for _, d := range shape[axis+1:] {
		l.Inner *= d
	}
	return l, nil
}

// NumElements returns the product of shape, or an error for a negative dimension or overflow.
func NumElements(shape []int) (int, error) {
	l, err := Decompose(shape, 0)
	if len(shape) == 0 {
		return 1, err
	}
	return l.Len(), err
}
