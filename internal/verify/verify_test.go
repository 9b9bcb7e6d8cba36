package verify

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
)

// The backward scale bounds every gradient element, so the scaled metric is
// never stricter than a correct result allows, and a wrong element still
// shows up at its own size.
func TestBackwardScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	l := spec.Layout{Outer: 3, Axis: 7, Inner: 2}
	for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
		fwd := spec.Softmax
		if op == spec.LogSoftmaxBackward {
			fwd = spec.LogSoftmax
		}
		x := make([]float64, l.Len())
		dy := make([]float64, l.Len())
		for i := range x {
			x[i] = 30 * rng.NormFloat64() // nearly one-hot y: dx cancels
			dy[i] = rng.NormFloat64()
		}
		y, err := ref.Forward(fwd, l, x, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Backward(op, l, y, dy)
		if err != nil {
			t.Fatal(err)
		}
		sc := backwardScale(op, l, y, dy)
		for i := range want {
			if math.Abs(want[i]) > sc[i]*(1+1e-12) {
				t.Fatalf("%v: |dx[%d]| = %g exceeds its scale %g", op, i, math.Abs(want[i]), sc[i])
			}
		}
		got := append([]float64(nil), want...)
		if _, rel, err := compare(op, got, want, sc); err != nil || rel != 0 {
			t.Fatalf("%v: exact result: rel %g, err %v", op, rel, err)
		}
		// An error of 0.1% of the largest term must fail the f32 tolerance.
		k := 0
		for i := range sc {
			if sc[i] > sc[k] {
				k = i
			}
		}
		got[k] += 1e-3 * sc[k]
		if _, rel, _ := compare(op, got, want, sc); rel <= Tolerance(spec.Float32, op) {
			t.Errorf("%v: an error of 1e-3 of the largest term gives rel %g <= tol", op, rel)
		}
	}
}

// An in-place case hands the backend the aliased input as its output (the
// same memory, holding the input's values); one that aliases an input its
// op does not have is refused.
func TestAliasShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []Case{
		{Shape: []int{3, 5}, Axis: -1, DType: spec.Float32, Op: spec.SoftmaxBackward, Fill: Random, Alias: AliasY},
		{Shape: []int{3, 5}, Axis: -1, DType: spec.Float16, Op: spec.LogSoftmaxBackward, Fill: Random, Alias: AliasDY},
		{Shape: []int{3, 5}, Axis: -1, DType: spec.Float64, Op: spec.Softmax, Fill: Random, Alias: AliasX},
	} {
		k := map[Alias]int{AliasX: 0, AliasY: 0, AliasDY: 1}[c.Alias]
		called := false
		Run(c, rng, func(c Case, out Host, in []Host) error {
			called = true
			same := len(out.F32) > 0 && &out.F32[0] == &in[k].F32[0] || len(out.U16) > 0 && &out.U16[0] == &in[k].U16[0] ||
				len(out.F64) > 0 && &out.F64[0] == &in[k].F64[0]
			if !same {
				t.Errorf("%s: out is not input %d", c.Name(), k)
			}
			if v := load(out); math.IsNaN(v[0]) {
				t.Errorf("%s: out holds poison, not the input", c.Name())
			}
			return nil
		})
		if !called {
			t.Errorf("%s: backend not called", c.Name())
		}
	}
	bad := Case{Shape: []int{3}, Axis: -1, DType: spec.Float32, Op: spec.Softmax, Fill: Random, Alias: AliasDY}
	if r := Run(bad, rng, func(Case, Host, []Host) error { return nil }); r.Err == nil {
		t.Error("forward op aliased to dy: no error")
	}
}
