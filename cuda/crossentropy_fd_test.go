package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax"
)

// fdCase is one option set of the finite-difference check.
type fdCase struct {
	name string
	opt  softmax.CrossEntropyOptions
	g    softmax.GradOutput
}

// fdCases: the default and each option alone (strong enough that a
// missing term moves the gradient well past the check's tolerance), then
// all of them at once.
func fdCases(v int) []fdCase {
	w := make([]float32, v)
	for i := range w {
		w[i] = 0.2 + float32(i%5)*0.45
	}
	return []fdCase{
		{name: "default"},
		{name: "label smoothing", opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.3}},
		{name: "weights", opt: softmax.CrossEntropyOptions{Weights: w}},
		{name: "z-loss", opt: softmax.CrossEntropyOptions{ZLoss: 0.1}},
		{name: "softcap", opt: softmax.CrossEntropyOptions{Softcap: 3}},
		{name: "scale", opt: softmax.CrossEntropyOptions{Scale: 1.7}},
		{name: "ignore index", opt: softmax.CrossEntropyOptions{IgnoreIndex: softmax.Ignore(2)}},
		{name: "sum", opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionSum}, g: softmax.GradOutput{Scalar: -0.7}},
		{name: "none, per-row grad-outputs", opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone},
			g: softmax.GradOutput{Scalar: 1.5, Rows: []float64{0.5, -1, 2, 0.25, 1}}},
		{name: "all", opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.2, Weights: w, ZLoss: 0.05, Softcap: 4, Scale: 0.8,
			IgnoreIndex: softmax.Ignore(2)}, g: softmax.GradOutput{Scalar: 2}},
	}
}

// fdObjective is the scalar the gradient differentiates: the loss (mean,
// sum) times the grad-output, or Σ g·g_r·loss_r (none), computed on the
// device.
func fdObjective(t *testing.T, d *Device, x softmax.Tensor, tg Targets, c fdCase) float64 {
	t.Helper()
	dx, err := d.Upload(x)
	if err != nil {
		t.Fatal(err)
	}
	defer dx.Free()
	n := 1
	if c.opt.Reduction == softmax.ReductionNone {
		n = x.Shape[0]
	}
	sdt := XentStatDType(x.DType)
	loss, err := d.NewTensor(sdt, n)
	if err != nil {
		t.Fatal(err)
	}
	defer loss.Free()
	if err := d.CrossEntropy(dx, tg, c.opt, CrossEntropyOutput{Loss: &loss}, nil); err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	h, _ := softmax.NewTensor(sdt, n)
	if err := loss.CopyTo(h); err != nil {
		t.Fatal(err)
	}
	gs := c.g.Scalar
	if gs == 0 {
		gs = 1
	}
	s := 0.0
	for i := range n {
		l := float64(0)
		if sdt == softmax.Float64 {
			l = h.F64[i]
		} else {
			l = float64(h.F32[i])
		}
		if c.g.Rows != nil {
			l *= c.g.Rows[i]
		}
		s += gs * l
	}
	return s
}

// elem and setElem read and write element i of an f32 or f64 host tensor.
func elem(x softmax.Tensor, i int) float64 {
	if x.DType == softmax.Float64 {
		return x.F64[i]
	}
	return float64(x.F32[i])
}

// setElem stores v (rounded to the dtype) and returns the value stored.
func setElem(x softmax.Tensor, i int, v float64) float64 {
	if x.DType == softmax.Float64 {
		x.F64[i] = v
		return v
	}
	x.F32[i] = float32(v)
	return float64(x.F32[i])
}

// fdDerivative is d objective/d x_i by central differences at step h, with
// one Richardson step (error O(h⁴)) where the loss is float32: its
// rounding needs a step large enough to rise above it. Steps are the
// differences of the values actually stored.
func fdDerivative(t *testing.T, d *Device, x softmax.Tensor, tg Targets, c fdCase, i int, h float64) float64 {
	x0 := elem(x, i)
	central := func(h float64) float64 {
		hi := setElem(x, i, x0+h)
		fp := fdObjective(t, d, x, tg, c)
		lo := setElem(x, i, x0-h)
		fm := fdObjective(t, d, x, tg, c)
		setElem(x, i, x0)
		return (fp - fm) / (hi - lo)
	}
	if x.DType == softmax.Float64 {
		return central(h)
	}
	return (4*central(h/2) - central(h)) / 3
}

// The gradient CrossEntropy writes (and CrossEntropyBackward's from the
// saved lse) is the derivative of the loss it reports: central finite
// differences of the device's own loss, on small cases, for the default
// and each option. A masked (−inf) class has gradient 0 exactly.
func TestCrossEntropyFiniteDifferences(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	const rows, v = 5, 13
	for _, dt := range fdDTypes() {
		// Tolerance relative to the largest gradient: float32 losses carry
		// ~1e-6 relative rounding, which the steps divide; float64 ones
		// leave the O(h²) truncation.
		h, tol := 0.05, 5e-4
		if dt == softmax.Float64 {
			h, tol = 1e-4, 1e-8
		}
		for ci, c := range fdCases(v) {
			name := fmt.Sprintf("%v %s", dt, c.name)
			rng := rand.New(rand.NewPCG(uint64(ci), 17))
			x, _ := softmax.NewTensor(dt, rows, v)
			for i := range rows * v {
				setElem(x, i, 2*rng.NormFloat64())
			}
			masked := 3*v + 4 // with label smoothing and no softcap its loss is +inf: none
			if c.opt.LabelSmoothing != 0 && c.opt.Softcap == 0 {
				masked = -1
			} else {
				setElem(x, masked, math.Inf(-1))
			}
			tg := []int32{3, 2, 0, 12, 7} // row 1 is ignored where IgnoreIndex is 2
			dtg, err := d.UploadTargets(softmax.Targets{I32: tg})
			if err != nil {
				t.Fatal(err)
			}
			dx, err := d.Upload(x)
			if err != nil {
				t.Fatal(err)
			}
			grad, _ := d.NewTensor(dt, rows, v)
			bwd, _ := d.NewTensor(dt, rows, v)
			lse, _ := d.NewTensor(XentStatDType(dt), rows)
			err = d.CrossEntropy(dx, dtg, c.opt, CrossEntropyOutput{LSE: &lse, Grad: &grad, GradOutput: c.g}, nil)
			if err == nil {
				err = d.CrossEntropyBackward(bwd, dx, dtg, lse, c.opt, c.g, nil)
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			hg, _ := softmax.NewTensor(dt, rows, v)
			hb, _ := softmax.NewTensor(dt, rows, v)
			if err := grad.CopyTo(hg); err != nil {
				t.Fatal(err)
			}
			if err := bwd.CopyTo(hb); err != nil {
				t.Fatal(err)
			}
			for _, b := range []*Buffer{dx.Buf, grad.Buf, bwd.Buf, lse.Buf} {
				b.Free()
			}
			mx := 0.0
			for i := range rows * v {
				mx = max(mx, math.Abs(elem(hg, i)))
			}
			bad := 0
			for i := range rows * v {
				if testing.Short() && i%4 != 0 && i != masked {
					continue // under compute-sanitizer: every fourth element
				}
				g, gb := elem(hg, i), elem(hb, i)
				var want float64
				if i != masked {
					want = fdDerivative(t, d, x, dtg, c, i, h)
				}
				if math.Abs(g-want) > tol*mx || math.Abs(gb-want) > tol*mx || (i == masked && (g != 0 || gb != 0)) {
					if bad++; bad <= 3 {
						t.Errorf("%s: grad[%d][%d] = %v (backward %v), finite differences %v (largest %v)", name, i/v, i%v, g, gb, want, mx)
					}
				}
			}
			dtg.Buf.Free()
		}
	}
}

// fdDTypes are the dtypes whose perturbations the check can make finely
// enough: f32 and f64 (the 16-bit ones share f32's arithmetic).
func fdDTypes() []softmax.DType { return []softmax.DType{softmax.Float32, softmax.Float64} }
