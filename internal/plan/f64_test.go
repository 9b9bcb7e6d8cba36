package plan

import (
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// TestFloat64Plans: float64 problems, last axis and not, aligned or not,
// beyond 2^31 elements, plan on every device model with a strategy that has
// f64 kernels (Info.F64) and a workspace of double pairs; forcing a
// strategy without them is refused.
func TestFloat64Plans(t *testing.T) {
	shapes := [][3]int64{{4096, 4096, 1}, {4096, 32768, 1}, {4096, 1001, 1}, {64, 50257, 1}, {8, 1 << 20, 1},
		{1, 1 << 26, 1}, {100000, 10, 1}, {32768, 65537, 1}, {64, 1024, 64}, {32, 7, 1000}, {1, 32768, 65537}, {3, 1 << 30, 1}}
	for name, dev := range Models {
		for _, sh := range shapes {
			for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
				for _, al := range []bool{true, false} {
					p := Problem{Outer: sh[0], Axis: sh[1], Inner: sh[2], DType: spec.Float64, Op: op, Aligned: al}
					pl, err := Make(p, dev, nil, "")
					if err != nil {
						t.Errorf("%s %v %v aligned %v: %v", name, sh, op, al, err)
						continue
					}
					if !kernels.Strategy(pl.Strategy).Info().F64 {
						t.Errorf("%s %v %v: %s has no f64 kernels", name, sh, op, pl.Strategy)
					}
					if pl.Workspace%16 != 0 {
						t.Errorf("%s %v %v: %s workspace %d bytes, not double pairs", name, sh, op, pl.Strategy, pl.Workspace)
					}
				}
			}
		}
	}
	p := Problem{Outer: 64, Axis: 1024, Inner: 64, DType: spec.Float64, Op: spec.Softmax, Aligned: true}
	if _, err := Make(p, Models["h200"], nil, "strided_reg"); err == nil {
		t.Error("strided_reg forced on f64: planned, want a refusal (no f64 kernels)")
	}
}
