// Package ref is the float64 scalar reference every backend is tested
// against. It is written for clarity, not speed: three plain passes per
// slice in float64, following PyTorch's softmax(scale·x, dim) semantics.
package ref

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/spec"
)

// Forward computes op (Softmax or LogSoftmax) of scale·x along the layout's
// axis into a new slice. x is in the layout's order (see spec.Layout).
func Forward(op spec.Op, l spec.Layout, x []float64, scale float64) ([]float64, error) {
	if op != spec.Softmax && op != spec.LogSoftmax {
		return nil, fmt.Errorf("ref.Forward: op %v is not a forward op", op)
	}
	if len(x) != l.Len() {
		return nil, fmt.Errorf("ref.Forward: len(x) = %d, layout has %d elements", len(x), l.Len())
	}
	y := make([]float64, len(x))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			m := math.Inf(-1)
			for j := 0; j < l.Axis; j++ {
				m = maxNaN(m, scale*x[at(j)])
			}
			var d float64
			for j := 0; j < l.Axis; j++ {
				d += math.Exp(scale*x[at(j)] - m)
			}
			for j := 0; j < l.Axis; j++ {
				if op == spec.LogSoftmax {
					y[at(j)] = scale*x[at(j)] - m - math.Log(d)
				} else {
					y[at(j)] = math.Exp(scale*x[at(j)]-m) / d
				}
			}
		}
	}
	return y, nil
}

// Backward computes the gradient op (SoftmaxBackward or LogSoftmaxBackward)
// from the forward output y and the incoming gradient dy:
// softmax dx = y·(dy − Σ dy·y); log-softmax dx = dy − exp(y)·Σ dy.
func Backward(op spec.Op, l spec.Layout, y, dy []float64) ([]float64, error) {
	if !op.Backward() {
		return nil, fmt.Errorf("ref.Backward: op %v is not a backward op", op)
	}
	if len(y) != l.Len() || len(dy) != l.Len() {
		return nil, fmt.Errorf("ref.Backward: len(y) = %d, len(dy) = %d, layout has %d elements", len(y), len(dy), l.Len())
	}
	dx := make([]float64, len(y))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			var s float64
			for j := 0; j < l.Axis; j++ {
				if op == spec.SoftmaxBackward {
					s += dy[at(j)] * y[at(j)]
				} else {
					s += dy[at(j)]
				}
			}
			for j := 0; j < l.Axis; j++ {
				k := at(j)
				if op == spec.SoftmaxBackward {
					dx[k] = y[k] * (dy[k] - s)
				} else {
					dx[k] = dy[k] - math.Exp(y[k])*s
				}
			}
		}
	}
	return dx, nil
}

// maxNaN is max that propagates NaN, as torch.max does.
func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}
