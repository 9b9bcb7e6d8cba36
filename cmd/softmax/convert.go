package main

import (
	"fmt"
	"math"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/npy"
)

// computeDType is the dtype apply computes an input of dtype in when
// --dtype does not say: the input's own.
func computeDType(in npy.DType) (spec.DType, error) {
	switch in {
	case npy.F32:
		return spec.Float32, nil
	case npy.F16:
		return spec.Float16, nil
	case npy.F64:
		return spec.Float64, nil
	}
	return 0, fmt.Errorf("unsupported input dtype %v", in)
}

// overflowError is a finite input value that the compute dtype cannot
// hold: exit status 1, naming the element and its value.
func overflowError(what string, shape []int, i int, v float64, dt spec.DType) error {
	largest := map[spec.DType]string{spec.Float32: "3.4028235e+38", spec.Float16: "65504", spec.BFloat16: "3.3895314e+38"}[dt]
	return fmt.Errorf("--dtype %v: element %v of %s = %v overflows %v (largest finite %s); NaN and ±inf pass through, finite values must fit",
		dt, unravel(i, shape), what, v, dt, largest)
}

// unravel turns a C-order offset into an index of shape.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			idx[d] = i % shape[d]
			i /= shape[d]
		}
	}
	return idx
}

// toTensor converts an array to a tensor of the compute dtype, reusing the
// array's data when the dtypes agree. A finite value that overflows the
// compute dtype is an error naming it (what names the input).
func toTensor(a *npy.Array, dt spec.DType, what string) (softmax.Tensor, error) {
	t := softmax.Tensor{Shape: a.Shape, DType: dt}
	switch {
	case a.DType == npy.F32 && dt == spec.Float32:
		t.F32 = a.F32
		return t, nil
	case a.DType == npy.F16 && dt == spec.Float16:
		t.U16 = a.F16
		return t, nil
	case a.DType == npy.F64 && dt == spec.Float64:
		t.F64 = a.F64
		return t, nil
	case dt == spec.Float64: // widening: exact
		t.F64 = make([]float64, len(a.F32)+len(a.F16))
		for i, v := range a.AsF32() {
			t.F64[i] = float64(v)
		}
		return t, nil
	}
	// Everything else goes through float32, checked at each narrowing.
	var f []float32
	switch a.DType {
	case npy.F32:
		f = a.F32
	case npy.F16:
		f = make([]float32, len(a.F16))
		vec.F16ToF32(f, a.F16)
	case npy.F64:
		f = make([]float32, len(a.F64))
		for i, v := range a.F64 {
			f[i] = float32(v)
			if math.IsInf(float64(f[i]), 0) && !math.IsInf(v, 0) {
				return t, overflowError(what, a.Shape, i, v, spec.Float32)
			}
		}
	default:
		return t, fmt.Errorf("unsupported input dtype %v", a.DType)
	}
	value := func(i int) float64 {
		if a.DType == npy.F64 {
			return a.F64[i]
		}
		return float64(f[i])
	}
	switch dt {
	case spec.Float32:
		t.F32 = f // a new slice: the same dtypes returned above
	case spec.Float16, spec.BFloat16:
		t.U16 = make([]uint16, len(f))
		inf := uint16(0x7f80) // bf16 exponent all ones
		if dt == spec.Float16 {
			vec.F32ToF16(t.U16, f)
			inf = 0x7c00
		} else {
			vec.F32ToBF16(t.U16, f)
		}
		for i, h := range t.U16 {
			if h&0x7fff == inf && !math.IsInf(float64(f[i]), 0) {
				return t, overflowError(what, a.Shape, i, value(i), dt)
			}
		}
	default:
		return t, fmt.Errorf("--dtype %v: not a compute dtype", dt)
	}
	return t, nil
}

// fromTensor converts a tensor back to an array of the given npy dtype,
// reusing its data when the dtypes agree.
func fromTensor(t softmax.Tensor, dt npy.DType, shape []int) *npy.Array {
	switch {
	case dt == npy.F16 && t.DType == spec.Float16:
		return npy.NewF16(shape, t.U16)
	case dt == npy.F64 && t.DType == spec.Float64:
		return npy.NewF64(shape, t.F64)
	}
	f := t.F32
	switch t.DType {
	case spec.Float64: // results of a float32 or float16 input computed in f64
		f = make([]float32, len(t.F64))
		for i, v := range t.F64 {
			f[i] = float32(v)
		}
	case spec.Float16:
		f = make([]float32, len(t.U16))
		vec.F16ToF32(f, t.U16)
	case spec.BFloat16:
		f = make([]float32, len(t.U16))
		vec.BF16ToF32(f, t.U16)
	}
	switch dt {
	case npy.F64:
		d := make([]float64, len(f))
		for i, v := range f {
			d[i] = float64(v)
		}
		return npy.NewF64(shape, d)
	case npy.F16:
		h := make([]uint16, len(f))
		vec.F32ToF16(h, f)
		return npy.NewF16(shape, h)
	}
	return npy.NewF32(shape, f)
}

// applyBytes is the most apply holds at once for each element: the input
// alone when the dtypes agree (computed in place, written from the same
// memory), else the input, the compute tensor, a float32 staging copy and
// the output.
func applyBytes(in npy.DType, dt spec.DType) int {
	if same := map[npy.DType]spec.DType{npy.F32: spec.Float32, npy.F16: spec.Float16, npy.F64: spec.Float64}[in] == dt; same {
		return in.Size()
	}
	return in.Size() + dt.Size() + 4 + in.Size()
}
