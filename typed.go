package softmax

import (
	"unsafe"

	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/spec"
)

// tensorOf wraps a typed slice as a Tensor without copying.
func tensorOf[T Element](data []T, shape []int) Tensor {
	var zero T
	switch any(zero).(type) {
	case float32:
		return Tensor{Shape: shape, DType: Float32, F32: unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(data))), len(data))}
	case float64:
		return Tensor{Shape: shape, DType: Float64, F64: unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(data))), len(data))}
	case Half:
		return Tensor{Shape: shape, DType: Float16, U16: unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(data))), len(data))}
	default:
		return Tensor{Shape: shape, DType: BFloat16, U16: unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(data))), len(data))}
	}
}

// Forward computes op (OpSoftmax or OpLogSoftmax) of src, laid out in C
// order with the given shape, into dst. dst may be src itself.
func Forward[T Element](op Op, dst, src []T, shape []int, opt Options) error {
	if src == nil || dst == nil {
		if n, err := spec.NumElements(shape); err != nil || n != 0 {
			return errs.Kind(errs.ErrBadShape, "softmax: nil slice for shape %v", shape)
		}
	}
	return Apply(op, tensorOf(dst, shape), tensorOf(src, shape), opt)
}

// Backward computes a gradient op (OpSoftmaxBackward or
// OpLogSoftmaxBackward) into dx from the forward output y and the gradient
// dy, times opt.Scale: the gradient with respect to x of the forward call
// with the same opt. dx may be y or dy itself; any other overlap is an
// error.
func Backward[T Element](op Op, dx, y, dy []T, shape []int, opt Options) error {
	if dx == nil || y == nil || dy == nil {
		if n, err := spec.NumElements(shape); err != nil || n != 0 {
			return errs.Kind(errs.ErrBadShape, "softmax: nil slice for shape %v", shape)
		}
	}
	return ApplyBackward(op, tensorOf(dx, shape), tensorOf(y, shape), tensorOf(dy, shape), opt)
}

// Softmax writes softmax(src) along axis into dst.
func Softmax[T Element](dst, src []T, shape []int, axis int) error {
	return Forward(OpSoftmax, dst, src, shape, Options{Axis: axis})
}

// LogSoftmax writes log_softmax(src) along axis into dst.
func LogSoftmax[T Element](dst, src []T, shape []int, axis int) error {
	return Forward(OpLogSoftmax, dst, src, shape, Options{Axis: axis})
}
