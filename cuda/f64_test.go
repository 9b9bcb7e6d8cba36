package cuda

import (
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// TestFloat64Accepted: every valid dtype, float64 included, passes the
// device's dtype check, an unknown one is refused; and float64 has kernels
// for the last axis (rows) and for non-last axes, so every layout plans.
func TestFloat64Accepted(t *testing.T) {
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		if err := checkDType(dt); err != nil {
			t.Errorf("checkDType(%v) = %v", dt, err)
		}
	}
	if err := checkDType(softmax.DType(9)); err == nil {
		t.Error("checkDType(DType(9)) = nil, want an error")
	}
	rows, strided := false, false
	for _, in := range kernels.Production() {
		if len(in.Symbols(spec.Float64)) == 0 {
			continue
		}
		if in.RowsOnly {
			rows = true
		} else {
			strided = true
		}
	}
	if !rows || !strided {
		t.Errorf("f64 kernels: rows %v, non-last axes %v; want both", rows, strided)
	}
}
