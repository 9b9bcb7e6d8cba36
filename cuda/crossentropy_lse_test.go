package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/errs"
)

// LogSumExp along every axis (the column kernel for non-last ones, the
// rows kernels where only size-1 axes follow), every dtype, against the
// float64 CPU reference; masked (−inf) and NaN elements; dst with the axis
// dropped or kept as size 1.
func TestLogSumExpAxes(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		for si, c := range []struct {
			shape []int
			axes  []int
		}{
			{[]int{5, 7, 33}, []int{0, 1, 2, -2}},
			{[]int{3, 1000, 2}, []int{1}},
			{[]int{4, 50, 1, 1}, []int{1}},
			{[]int{2, 3, 4097}, []int{0, 1}},
			{[]int{1, 20000, 3}, []int{1}},
			{[]int{9, 1}, []int{0}},
		} {
			n := 1
			for _, s := range c.shape {
				n *= s
			}
			rng := rand.New(rand.NewPCG(uint64(si), 7))
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = 3 * rng.NormFloat64()
			}
			vals[1] = math.Inf(-1)
			if n > 40 {
				vals[40] = math.NaN()
			}
			x, _ := softmax.NewTensor(dt, c.shape...)
			if dt == softmax.Float64 {
				copy(x.F64, vals)
			} else {
				f := make([]float32, n)
				for i, v := range vals {
					f[i] = float32(v)
				}
				setF32(x, f)
			}
			x64 := x
			if dt != softmax.Float64 {
				x64 = toF64(x)
			}
			dx, err := d.Upload(x)
			if err != nil {
				t.Fatal(err)
			}
			for _, ax := range c.axes {
				name := fmt.Sprintf("%v %v axis %d", dt, c.shape, ax)
				a := (ax + len(c.shape)) % len(c.shape)
				out := append(slices.Clone(c.shape[:a]), c.shape[a+1:]...)
				if ax < 0 {
					out = append(append(slices.Clone(c.shape[:a]), 1), c.shape[a+1:]...)
				}
				want, _ := softmax.NewTensor(softmax.Float64, out...)
				if err := softmax.LogSumExp(want, x64, softmax.Options{Axis: ax, Scale: 0.7}); err != nil {
					t.Fatalf("%s: reference: %v", name, err)
				}
				dst, _ := d.NewTensor(dt, out...)
				dst.Buf.Fill(0, 0x7fc07fc0, dst.Buf.Size()/4, nil)
				if err := d.LogSumExp(dst, dx, Options{Axis: ax, Scale: 0.7}, nil); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				h, _ := softmax.NewTensor(dt, out...)
				if err := dst.CopyTo(h); err != nil {
					t.Fatal(err)
				}
				dst.Free()
				got := h
				if dt != softmax.Float64 {
					got = toF64(h)
				}
				tol := ceTol(dt)
				if dt == softmax.Float64 {
					tol = 1e-12
				}
				for i, w := range want.F64 {
					if !near(got.F64[i], w, tol*max(math.Abs(w), 1)) {
						t.Errorf("%s: lse[%d] = %v, want %v", name, i, got.F64[i], w)
						break
					}
				}
			}
			dx.Free()
		}
	}
	x, _ := d.NewTensor(softmax.Float32, 4, 5, 6)
	defer x.Free()
	y, _ := d.NewTensor(softmax.Float32, 4, 6)
	defer y.Free()
	for _, c := range []struct {
		dst  Tensor
		axis int
		kind error
	}{{y, 3, errs.ErrBadAxis}, {y, -4, errs.ErrBadAxis}, {y, 0, errs.ErrBadShape}, {y, 2, errs.ErrBadShape}} {
		if err := d.LogSumExp(c.dst, x, Options{Axis: c.axis}, nil); !errors.Is(err, c.kind) {
			t.Errorf("axis %d into %v: %v, want %v", c.axis, c.dst.Shape, err, c.kind)
		}
	}
	if err := d.LogSumExp(y, x, Options{Axis: 1}, nil); err != nil {
		t.Errorf("axis 1: %v", err)
	}
}
