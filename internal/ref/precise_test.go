package ref

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// relNorm returns ‖got − want‖ / ‖want‖.
func relNorm(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		num += (got[i] - want[i]) * (got[i] - want[i])
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

// TestBigExpLog: the math/big exp and log agree with math.Exp and math.Log
// (each within 1 ulp) and with each other at 200 bits.
func TestBigExpLog(t *testing.T) {
	for _, x := range []float64{-700, -30.5, -1, -1e-9, 0, 1e-12, 0.5, 1, 2.25, 80, 709} {
		e := bigExp(new(big.Float).SetPrec(200).SetFloat64(x), 200)
		got, _ := e.Float64()
		if w := math.Exp(x); math.Abs(got-w) > 1.5*ulp(w) {
			t.Errorf("bigExp(%v) = %v, math.Exp %v", x, got, w)
		}
		if x > 0 {
			back, _ := bigLog(e, 200).Float64()
			if math.Abs(back-x) > 1e-15*math.Max(1, x) {
				t.Errorf("bigLog(bigExp(%v)) = %v", x, back)
			}
		}
	}
}

func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

// TestCompensatedAgainstBig: on small random cases the compensated float64
// references are within a few ulp of math/big at 200 bits, far inside the
// 1e-13 that the float64 backends are held to (the plain reference's
// naive sums are checked beside them).
func TestCompensatedAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	worst := map[string]float64{}
	for trial := 0; trial < 20; trial++ {
		l := spec.Layout{Outer: 1 + rng.IntN(3), Axis: 1 + rng.IntN(300), Inner: 1 + rng.IntN(3)}
		x, dy := make([]float64, l.Len()), make([]float64, l.Len())
		for i := range x {
			x[i], dy[i] = 10*rng.NormFloat64(), rng.NormFloat64()
		}
		scale := 0.7
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			want, err := ForwardBig(op, l, x, scale, 200)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := ForwardCompensated(op, l, x, scale)
			if r := relNorm(got, want); r > 1e-15 {
				t.Errorf("%v %v: compensated rel %.3g", op, l, r)
			} else {
				worst[op.String()] = max(worst[op.String()], r)
			}
			y := got
			bop := spec.SoftmaxBackward
			if op == spec.LogSoftmax {
				bop = spec.LogSoftmaxBackward
			}
			bw, err := BackwardBig(bop, l, y, dy, 200)
			if err != nil {
				t.Fatal(err)
			}
			bg, _ := BackwardCompensated(bop, l, y, dy)
			// dx cancels (Σ y·dy against dy): measure against the terms.
			var num, den float64
			for i := range bg {
				num += (bg[i] - bw[i]) * (bg[i] - bw[i])
				den += (math.Abs(y[i]*dy[i]) + math.Abs(dy[i])) * (math.Abs(y[i]*dy[i]) + math.Abs(dy[i]))
			}
			if r := math.Sqrt(num / den); r > 1e-15 {
				t.Errorf("%v %v: compensated rel %.3g", bop, l, r)
			} else {
				worst[bop.String()] = max(worst[bop.String()], r)
			}
		}
	}
	t.Logf("worst relative norm against math/big: %v", worst)
}

// TestCompensatedEdges: −∞, NaN and +∞ follow the plain reference.
func TestCompensatedEdges(t *testing.T) {
	inf := math.Inf(1)
	l := spec.Layout{Outer: 4, Axis: 3, Inner: 1}
	x := []float64{1, -inf, 2, -inf, -inf, -inf, 0, math.NaN(), 1, inf, 1, 2}
	for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
		a, _ := Forward(op, l, x, 1)
		b, _ := ForwardCompensated(op, l, x, 1)
		for i := range a {
			if math.IsNaN(a[i]) != math.IsNaN(b[i]) || !math.IsNaN(a[i]) && math.Abs(a[i]-b[i]) > 1e-15*math.Max(1, math.Abs(a[i])) {
				t.Errorf("%v[%d]: compensated %v, plain %v", op, i, b[i], a[i])
			}
		}
	}
	if _, err := ForwardCompensated(spec.SoftmaxBackward, l, x, 1); err == nil {
		t.Error("ForwardCompensated took a backward op")
	}
	if _, err := BackwardCompensated(spec.Softmax, l, x, x); err == nil {
		t.Error("BackwardCompensated took a forward op")
	}
	if _, err := ForwardBig(spec.Softmax, l, x[:3], 1, 100); err == nil {
		t.Error("ForwardBig took a short x")
	}
}
