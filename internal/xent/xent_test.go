package xent

import (
	"errors"
	"math"
	"testing"

	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/shard"
)

func TestReductionNames(t *testing.T) {
	for r := Mean; r <= None; r++ {
		if got, err := ParseReduction(r.String()); err != nil || got != r {
			t.Errorf("ParseReduction(%q) = %v, %v", r.String(), got, err)
		}
	}
	if _, err := ParseReduction("avg"); !errors.Is(err, errs.ErrBadOption) {
		t.Errorf("ParseReduction(avg): %v", err)
	}
}

// The zero Options are torch's defaults; Ignore(0) ignores class 0.
func TestDefaults(t *testing.T) {
	var o Options
	if o.Ignored() != -100 || o.ScaleOrOne() != 1 || o.Reduction != Mean {
		t.Errorf("zero Options: ignore %d scale %v reduction %v", o.Ignored(), o.ScaleOrOne(), o.Reduction)
	}
	if (Options{IgnoreIndex: Ignore(0)}).Ignored() != 0 {
		t.Error("Ignore(0) is not 0")
	}
}

func TestCheckTargets(t *testing.T) {
	o := Options{Weights: []float32{1, 2, 3}}
	s, err := CheckTargets("x", Targets{I32: []int32{2, -100, 0}}, 3, 3, o)
	if err != nil || s.Counted != 2 || s.WeightSum != 4 {
		t.Errorf("summary %+v, %v; want 2 rows, weight 4", s, err)
	}
	if o.Reduce(8, s) != 2 || o.GradScale(1, s) != 0.25 {
		t.Errorf("mean of 8 over weight 4: %v, grad scale %v", o.Reduce(8, s), o.GradScale(1, s))
	}
	if _, err := CheckTargets("x", Targets{I64: []int64{3}}, 1, 3, o); !errors.Is(err, errs.ErrBadTarget) {
		t.Errorf("target 3 of 3 classes: %v", err)
	}
	if !math.IsNaN(o.Reduce(0, Summary{})) || o.GradScale(1, Summary{}) != 0 {
		t.Error("a mean over no rows is not NaN with no gradient")
	}
}

// Grad's coefficients expand shard.Grad.
func TestGradExpandsShard(t *testing.T) {
	o := Options{LabelSmoothing: 0.1, ZLoss: 0.01}
	const v, lse, wt, wsum, gout = 5, 1.7, 0.5, 4.0, 0.3
	g := o.Grad(lse, wt, wsum, v, gout)
	for _, x := range []float64{-1, 0.5, 1.2} {
		for _, target := range []bool{false, true} {
			wj := 0.8
			p := math.Exp(x - lse)
			got := g.A*p - g.C*wj
			if target {
				got -= g.T
			}
			want := shard.Grad(x, lse, target, wj, wt, wsum, 0.1, v, 0.01, gout)
			if math.Abs(got-want) > 1e-15 {
				t.Errorf("x %v target %v: %v, shard.Grad %v", x, target, got, want)
			}
		}
	}
}
