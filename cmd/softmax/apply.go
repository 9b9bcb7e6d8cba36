package main

import (
	"fmt"
	"math"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/npy"
)

const applySynopsis = `softmax apply --in X.npy --out Y.npy [--axis -1] [--op softmax|log_softmax] [--scale S] [--dtype f32|f16|bf16] [--device auto|cpu|cuda|cuda:N] [--tuned]

Reads a float32, float64 or float16 .npy file, computes the op along the
axis and writes a .npy file of the input's dtype and shape. --dtype picks
the storage precision of the computation (default: the input's; float64
computes in f32): the input is rounded to it, the op runs, and the result
is converted back to the input's dtype. The output is written atomically:
on any error no output file appears. --tuned lets a GPU backend use the
winners that softmax tune stored (the CPU has nothing to tune: a note says so).`

func runApply(e *env, args []string) error {
	fs := flagSet("apply")
	in := fs.String("in", "", "input `X.npy` (float32, float64 or float16)")
	out := fs.String("out", "", "output `Y.npy` (the input's dtype and shape)")
	axis := fs.Int("axis", -1, "the softmax `axis`; negative counts from the end")
	opName := fs.String("op", "softmax", "`op`: softmax or log_softmax")
	scale := fs.Float64("scale", 1, "compute softmax(`S`·x) (a fused temperature)")
	dtName := fs.String("dtype", "", "compute storage `dtype`: f32, f16 or bf16 (default: the input's; float64 computes in f32)")
	device := fs.String("device", "auto", "`device`: auto, cpu, cuda or cuda:N")
	tuned := fs.Bool("tuned", false, "use the autotuning cache written by softmax tune (GPU backends)")
	if err := parseFlags(e, fs, applySynopsis, args); err != nil {
		return err
	}
	if *in == "" {
		return usagef("--in is required")
	}
	if *out == "" {
		return usagef("--out is required")
	}
	op, err := spec.ParseOp(*opName)
	if err != nil {
		return usagef("--op: %v", err)
	}
	if op.Backward() {
		return usagef("--op %v: apply computes softmax or log_softmax (backward ops need y and dy)", op)
	}
	if *scale == 0 || math.IsNaN(*scale) || math.IsInf(*scale, 0) || math.Abs(*scale) > math.MaxFloat32 {
		return usagef("--scale %v: want a finite, nonzero float32", *scale)
	}
	var compute spec.DType
	haveDType := *dtName != ""
	if haveDType {
		if compute, err = spec.ParseDType(*dtName); err != nil {
			return usagef("--dtype: %v", err)
		}
	}
	if _, _, err := bench.ParseDevice(*device); err != nil {
		return usagef("--device: %v", err)
	}

	b, err := bench.Open(*device)
	if err != nil {
		return err
	}
	defer b.Close()
	if *tuned {
		useTuned(e, "apply", b)
	}
	arr, err := npy.ReadFile(*in)
	if err != nil {
		return err // npy's errors name the file
	}
	if _, err := spec.Decompose(arr.Shape, *axis); err != nil {
		return usagef("--axis: %v", err)
	}
	if !haveDType {
		compute = spec.Float32
		if arr.DType == npy.F16 {
			compute = spec.Float16
		}
	}

	t, err := toTensor(arr, compute)
	if err != nil {
		return err
	}
	// In place: dst is src (allowed by every backend).
	if err := b.Apply(op, t, t, softmax.Options{Axis: *axis, Scale: *scale}); err != nil {
		return fmt.Errorf("%s on %s: %w", op, b.Name(), err)
	}
	res := fromTensor(t, arr.DType, arr.Shape)
	if err := npy.WriteFile(*out, res); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return nil
}

// toTensor converts an array to a tensor of the compute dtype.
func toTensor(a *npy.Array, dt spec.DType) (softmax.Tensor, error) {
	t, err := softmax.NewTensor(dt, a.Shape...)
	if err != nil {
		return t, err
	}
	if dt == spec.Float16 && a.DType == npy.F16 {
		copy(t.U16, a.F16)
		return t, nil
	}
	var f []float32
	switch {
	case dt == spec.Float32:
		f = t.F32
	default:
		f = make([]float32, t.Len())
	}
	switch a.DType {
	case npy.F32:
		copy(f, a.F32)
	case npy.F64:
		for i, v := range a.F64 {
			f[i] = float32(v)
		}
	case npy.F16:
		vec.F16ToF32(f, a.F16)
	default:
		return t, fmt.Errorf("unsupported input dtype %v", a.DType)
	}
	switch dt {
	case spec.Float16:
		vec.F32ToF16(t.U16, f)
	case spec.BFloat16:
		vec.F32ToBF16(t.U16, f)
	}
	return t, nil
}

// fromTensor converts a tensor back to an array of the given npy dtype.
func fromTensor(t softmax.Tensor, dt npy.DType, shape []int) *npy.Array {
	if dt == npy.F16 && t.DType == spec.Float16 {
		return npy.NewF16(shape, t.U16)
	}
	f := t.F32
	switch t.DType {
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
