package softmax

import (
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/spec"
	"github.com/x448/float16"
)

// DType is the storage type of tensor elements; arithmetic is float32,
// except for Float64, which computes in float64.
//
// DType is shared by every backend (an alias of an internal type, so go doc
// lists its methods here):
//
//	func (d DType) String() string // f32, f16, bf16, f64: the CLI's and ParseDType's names
//	func (d DType) Size() int      // bytes per element: 4, 2, 2, 8 (0 if not Valid)
//	func (d DType) Valid() bool    // one of the constants below
type DType = spec.DType

// Storage dtypes.
const (
	Float32  = spec.Float32
	Float16  = spec.Float16
	BFloat16 = spec.BFloat16
	// Float64 is stored and computed in float64, on the CPU only for now
	// (package cuda rejects it).
	Float64 = spec.Float64
)

// Op is the operation computed along the axis.
//
// Op is shared by every backend (an alias of an internal type, so go doc
// lists its methods here):
//
//	func (o Op) String() string // softmax, log_softmax, softmax_backward, log_softmax_backward
//	func (o Op) Backward() bool // a gradient op: inputs y and dy, output dx
//	func (o Op) Log() bool      // log_softmax or its gradient
//	func (o Op) Valid() bool    // one of the constants below
type Op = spec.Op

// Operations. Backward ops take the forward output y and the gradient dy
// and give the gradient with respect to x of the forward of s·x.
const (
	OpSoftmax            = spec.Softmax            // y = exp(s·x − max) / Σ exp(s·x − max)
	OpLogSoftmax         = spec.LogSoftmax         // y = s·x − max − log Σ exp(s·x − max)
	OpSoftmaxBackward    = spec.SoftmaxBackward    // dx = s·y·(dy − Σ dy·y)
	OpLogSoftmaxBackward = spec.LogSoftmaxBackward // dx = s·(dy − exp(y)·Σ dy)
)

// ParseDType parses f32/float32, f16/float16/half, bf16/bfloat16,
// f64/float64/double.
// An unknown name is an ErrBadDType.
func ParseDType(s string) (DType, error) {
	d, err := spec.ParseDType(s)
	return d, errs.Wrap(errs.ErrBadDType, err)
}

// ParseOp parses softmax, log_softmax, softmax_backward, log_softmax_backward.
// An unknown name is an ErrBadOp.
func ParseOp(s string) (Op, error) {
	o, err := spec.ParseOp(s)
	return o, errs.Wrap(errs.ErrBadOp, err)
}

// Half is an IEEE 754 binary16 value (github.com/x448/float16).
type Half = float16.Float16

// BFloat16Value is a bfloat16 value: the top 16 bits of a float32.
type BFloat16Value uint16

// BFloat16From rounds f to the nearest bfloat16 (ties to even; NaN stays NaN).
func BFloat16From(f float32) BFloat16Value { return BFloat16Value(vec.FloatToBF16(f)) }

// Float32 returns the value as a float32 (exact).
func (b BFloat16Value) Float32() float32 { return vec.BF16ToFloat(uint16(b)) }

// HalfFrom rounds f to the nearest binary16 (ties to even; beyond the
// largest half, ±Inf; NaN stays NaN), as the f16 kernels store results.
func HalfFrom(f float32) Half { return float16.Frombits(vec.FloatToHalf(f)) }

// Element is a storage element type accepted by the typed functions.
type Element interface {
	float32 | Half | BFloat16Value | float64
}

// Options tune an operation.
type Options struct {
	// Axis is the softmax dimension; negative values count from the end
	// (−1 is the last axis).
	Axis int
	// Scale multiplies the input before softmax (a fused temperature:
	// softmax(Scale·x)). Zero means 1. Backward ops multiply dx by it, so
	// that they give the gradient of softmax(Scale·x) with respect to x
	// (pass the forward call's Options). It is a float64 so that Float64
	// tensors get it unrounded (1/√d, say); the float32-arithmetic dtypes
	// use float32(Scale), which is exact for any float32 value.
	Scale float64
}

func (o Options) scale() float64 {
	if o.Scale == 0 {
		return 1
	}
	return o.Scale
}

// FloatToHalfBits rounds f to the nearest binary16 and returns its bits.
func FloatToHalfBits(f float32) uint16 { return vec.FloatToHalf(f) }
