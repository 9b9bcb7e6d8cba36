// Package npy reads and writes NumPy .npy files holding float32, float64
// or float16 arrays, and int32 or int64 ones (class ids).
//
// It is the bridge between this module and NumPy: inputs prepared with
// numpy.save can be loaded with [ReadFile], and results written with
// [WriteFile] can be loaded with numpy.load.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, little- and big-endian
// data ('<f4', '>f4', '<f8', '>f8', '<f2', '>f2', '<i4', '>i4', '<i8',
// '>i8') and both C and Fortran
// order. The returned [Array] always holds native values in C (row-major)
// order. Writing always produces C-order, little-endian
// data in format version 1.0, or 2.0 when the header is too large for 1.0,
// with the same header layout and padding that NumPy itself writes.
//
// Errors are wrapped with context and can be tested with [errors.Is]
// against the exported sentinel errors such as [ErrBadMagic],
// [ErrTruncated] and [ErrUnsupportedDType].
package npy

import (
	"errors"
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/errs"
	"github.com/x448/float16"
)

// Sentinel errors. Errors returned by this package wrap one of these, so
// callers can test them with errors.Is.
var (
	// ErrBadMagic means the input does not start with the .npy magic
	// string "\x93NUMPY".
	ErrBadMagic = errors.New("npy: bad magic (not a .npy file)")

	// ErrUnsupportedVersion means the file's format version is not
	// 1.0, 2.0 or 3.0.
	ErrUnsupportedVersion = errors.New("npy: unsupported format version")

	// ErrTruncated means the input ended before the header or the array
	// data was complete.
	ErrTruncated = errors.New("npy: truncated input")

	// ErrMalformedHeader means the header is not a valid dictionary literal
	// with exactly the keys 'descr', 'fortran_order' and 'shape'.
	ErrMalformedHeader = errors.New("npy: malformed header")

	// ErrBadShape means a shape has a negative dimension, or its element
	// count (or byte size) overflows.
	ErrBadShape = errors.New("npy: invalid shape")

	// ErrUnsupportedDType means the array's dtype is not one of float32,
	// float64, float16, int32 or int64 (for example an unsigned, complex,
	// boolean, object or structured dtype).
	ErrUnsupportedDType = errors.New("npy: unsupported dtype")

	// ErrTooLarge means the array's bytes exceed the memory this process
	// can have (see package softmax's ErrTooLarge, the same value): a
	// header claiming more is refused before its data is read, from files
	// and pipes alike.
	ErrTooLarge = errs.ErrTooLarge

	// ErrInvalidArray means an Array passed to Write or WriteFile is
	// inconsistent: its data slice does not match its DType or its length
	// does not match the product of its Shape.
	ErrInvalidArray = errors.New("npy: invalid array")
)

// DType identifies the element type of an [Array].
// The zero value is not a valid DType.
type DType int

// Supported element types.
const (
	// F32 is IEEE 754 binary32 (NumPy '<f4', float32).
	F32 DType = iota + 1
	// F64 is IEEE 754 binary64 (NumPy '<f8', float64).
	F64
	// F16 is IEEE 754 binary16 (NumPy '<f2', float16), stored as raw bits.
	F16
	// I32 is a 32-bit signed integer (NumPy '<i4', int32): class ids.
	I32
	// I64 is a 64-bit signed integer (NumPy '<i8', int64): class ids.
	I64
)

// String returns the NumPy descr string of the dtype as this package writes
// it: "<f4", "<f8" or "<f2". Invalid values give "DType(n)".
func (d DType) String() string {
	switch d {
	case F32:
		return "<f4"
	case F64:
		return "<f8"
	case F16:
		return "<f2"
	case I32:
		return "<i4"
	case I64:
		return "<i8"
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// Size returns the size of one element in bytes (4, 8 or 2), or 0 for an
// invalid DType.
func (d DType) Size() int {
	switch d {
	case F32:
		return 4
	case F64:
		return 8
	case F16:
		return 2
	case I32:
		return 4
	case I64:
		return 8
	}
	return 0
}

// Array is an n-dimensional array in C (row-major) order.
//
// Exactly one of the data slices is used, the one matching DType; the
// others must be empty. Its length must equal the product of Shape (1 for
// a scalar, whose Shape is empty). F16 holds raw IEEE 754 half-precision
// bit patterns.
type Array struct {
	// Shape lists the dimensions, outermost first. An empty Shape is a
	// 0-d (scalar) array holding one element.
	Shape []int
	// DType is the element type and selects which data slice is used.
	DType DType
	// F32 holds the elements when DType is F32.
	F32 []float32
	// F64 holds the elements when DType is F64.
	F64 []float64
	// F16 holds the raw binary16 bits of the elements when DType is F16.
	F16 []uint16
	// I32 holds the elements when DType is I32.
	I32 []int32
	// I64 holds the elements when DType is I64.
	I64 []int64
}

// NewF32 returns a float32 array with the given shape and data. The shape
// is copied; data is used without copying.
func NewF32(shape []int, data []float32) *Array {
	return &Array{Shape: cloneInts(shape), DType: F32, F32: data}
}

// NewF64 returns a float64 array with the given shape and data. The shape
// is copied; data is used without copying.
func NewF64(shape []int, data []float64) *Array {
	return &Array{Shape: cloneInts(shape), DType: F64, F64: data}
}

// NewF16 returns a float16 array with the given shape and raw binary16
// data. The shape is copied; data is used without copying.
func NewF16(shape []int, data []uint16) *Array {
	return &Array{Shape: cloneInts(shape), DType: F16, F16: data}
}

func cloneInts(s []int) []int {
	return append(make([]int, 0, len(s)), s...)
}

// Len returns the number of elements implied by Shape: the product of the
// dimensions, 1 for a scalar. It returns -1 if a dimension is negative or
// the product overflows int.
func (a *Array) Len() int {
	n, err := numElements(a.Shape)
	if err != nil {
		return -1
	}
	return n
}

// AsF32 returns the elements as float32 values. For an F32 array it
// returns a.F32 itself (not a copy); F64 values are rounded to float32 and
// F16 values are widened exactly, into a new slice.
func (a *Array) AsF32() []float32 {
	switch a.DType {
	case F32:
		return a.F32
	case F64:
		out := make([]float32, len(a.F64))
		for i, v := range a.F64 {
			out[i] = float32(v)
		}
		return out
	case F16:
		out := make([]float32, len(a.F16))
		for i, v := range a.F16 {
			out[i] = float16.Frombits(v).Float32()
		}
		return out
	}
	return nil
}

// numElements returns the product of shape, checking for negative
// dimensions and overflow.
func numElements(shape []int) (int, error) {
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%w: dimension %d is negative (%d)", ErrBadShape, i, d)
		}
	}
	for _, d := range shape {
		if d == 0 {
			return 0, nil
		}
	}
	n := 1
	for _, d := range shape {
		if n > math.MaxInt/d {
			return 0, fmt.Errorf("%w: element count of %v overflows", ErrBadShape, shape)
		}
		n *= d
	}
	return n, nil
}

// byteSize returns n*itemsize, or an error if it overflows int.
func byteSize(n, itemsize int, shape []int) (int, error) {
	if itemsize != 0 && n > math.MaxInt/itemsize {
		return 0, fmt.Errorf("%w: byte size of %v overflows", ErrBadShape, shape)
	}
	return n * itemsize, nil
}

// validate checks that a is consistent and returns its element count.
func (a *Array) validate() (int, error) {
	if a == nil {
		return 0, fmt.Errorf("%w: nil array", ErrInvalidArray)
	}
	n, err := numElements(a.Shape)
	if err != nil {
		return 0, err
	}
	if _, err := byteSize(n, a.DType.Size(), a.Shape); err != nil {
		return 0, err
	}
	var got int
	all := len(a.F32) + len(a.F64) + len(a.F16) + len(a.I32) + len(a.I64)
	switch a.DType {
	case F32:
		got = len(a.F32)
	case F64:
		got = len(a.F64)
	case F16:
		got = len(a.F16)
	case I32:
		got = len(a.I32)
	case I64:
		got = len(a.I64)
	default:
		return 0, fmt.Errorf("%w: %v", ErrUnsupportedDType, a.DType)
	}
	if others := all - got; others != 0 {
		return 0, fmt.Errorf("%w: dtype is %v but a data slice for another dtype is set", ErrInvalidArray, a.DType)
	}
	if got != n {
		return 0, fmt.Errorf("%w: shape %v needs %d elements, %v data has %d", ErrInvalidArray, a.Shape, n, a.DType, got)
	}
	return n, nil
}
