package ref

import (
	"math"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func check(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i]) {
			t.Errorf("%s[%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

// Hand-computed values: softmax([1,2,3]) = e^k / (e + e^2 + e^3).
func TestForwardHandComputed(t *testing.T) {
	e1, e2, e3 := math.E, math.E*math.E, math.E*math.E*math.E
	s := e1 + e2 + e3
	l := spec.Layout{Outer: 1, Axis: 3, Inner: 1}
	y, err := Forward(spec.Softmax, l, []float64{1, 2, 3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "softmax", y, []float64{e1 / s, e2 / s, e3 / s})

	y, _ = Forward(spec.LogSoftmax, l, []float64{1, 2, 3}, 1)
	check(t, "log_softmax", y, []float64{1 - math.Log(s), 2 - math.Log(s), 3 - math.Log(s)})

	// scale 2 on [0, 0.5]: softmax([0, 1]) = [1/(1+e), e/(1+e)].
	y, _ = Forward(spec.Softmax, spec.Layout{Outer: 1, Axis: 2, Inner: 1}, []float64{0, 0.5}, 2)
	check(t, "scaled", y, []float64{1 / (1 + math.E), math.E / (1 + math.E)})
}

// A strided axis: shape [2,2] along axis 0 pairs (x00, x10) and (x01, x11).
func TestForwardStrided(t *testing.T) {
	l := spec.Layout{Outer: 1, Axis: 2, Inner: 2}
	y, _ := Forward(spec.Softmax, l, []float64{0, 5, math.Log(3), 5}, 1)
	check(t, "axis0", y, []float64{0.25, 0.5, 0.75, 0.5})
}

func TestForwardEdges(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	l := spec.Layout{Outer: 1, Axis: 3, Inner: 1}
	cases := []struct {
		name    string
		x, want []float64
		op      spec.Op
	}{
		{"neg inf gives 0", []float64{math.Inf(-1), 0, 0}, []float64{0, 0.5, 0.5}, spec.Softmax},
		{"neg inf log", []float64{math.Inf(-1), 0, 0}, []float64{math.Inf(-1), -math.Ln2, -math.Ln2}, spec.LogSoftmax},
		{"all neg inf", []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}, []float64{nan, nan, nan}, spec.Softmax},
		{"nan", []float64{1, nan, 2}, []float64{nan, nan, nan}, spec.Softmax},
		{"pos inf", []float64{1, inf, 2}, []float64{nan, nan, nan}, spec.Softmax},
		{"huge", []float64{1e300, 1e300, -1e300}, []float64{0.5, 0.5, 0}, spec.Softmax},
	}
	for _, c := range cases {
		y, err := Forward(c.op, l, c.x, 1)
		if err != nil {
			t.Fatal(err)
		}
		check(t, c.name, y, c.want)
	}
}

func TestBackwardHandComputed(t *testing.T) {
	l := spec.Layout{Outer: 1, Axis: 2, Inner: 1}
	// y = [0.25, 0.75], dy = [1, 2]: Σ dy·y = 1.75 → dx = [0.25·(−0.75), 0.75·0.25].
	dx, err := Backward(spec.SoftmaxBackward, l, []float64{0.25, 0.75}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	check(t, "softmax_backward", dx, []float64{-0.1875, 0.1875})
	// log-softmax: y = log([0.25, 0.75]), Σ dy = 3 → dx = dy − p·3.
	dx, _ = Backward(spec.LogSoftmaxBackward, l, []float64{math.Log(0.25), math.Log(0.75)}, []float64{1, 2})
	check(t, "log_softmax_backward", dx, []float64{0.25, -0.25})
}

func TestErrors(t *testing.T) {
	l := spec.Layout{Outer: 1, Axis: 2, Inner: 1}
	if _, err := Forward(spec.SoftmaxBackward, l, []float64{1, 2}, 1); err == nil {
		t.Error("Forward accepted a backward op")
	}
	if _, err := Forward(spec.Softmax, l, []float64{1}, 1); err == nil {
		t.Error("Forward accepted a short slice")
	}
	if _, err := Backward(spec.Softmax, l, []float64{1, 2}, []float64{1, 2}); err == nil {
		t.Error("Backward accepted a forward op")
	}
}
