package cuda

import (
	"strings"
	"testing"

	"github.com/gofused/softmax"
)

// TestFloat64Refused: the GPU has no float64 kernels yet, so every entry
// point refuses Float64 with an error naming the dtype, instead of
// computing it as something else.
func TestFloat64Refused(t *testing.T) {
	names := func(err error) bool { return err != nil && strings.Contains(err.Error(), "f64") }
	if err := checkDType(softmax.Float64); !names(err) {
		t.Fatalf("checkDType(Float64) = %v, want an error naming f64", err)
	}
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16} {
		if err := checkDType(dt); err != nil {
			t.Errorf("checkDType(%v) = %v", dt, err)
		}
	}
	d := openOrSkip(t)
	if _, err := d.NewTensor(softmax.Float64, 4, 8); !names(err) {
		t.Errorf("NewTensor(Float64) = %v, want an error naming f64", err)
	}
	if _, err := d.Plan(softmax.OpSoftmax, softmax.Float64, []int{4, 8}, Options{Axis: -1}); !names(err) {
		t.Errorf("Plan(Float64) = %v, want an error naming f64", err)
	}
	x, _ := softmax.NewTensor(softmax.Float64, 4, 8)
	y, _ := softmax.NewTensor(softmax.Float64, 4, 8)
	if err := d.ApplyHost(softmax.OpSoftmax, y, x, Options{Axis: -1}); !names(err) {
		t.Errorf("ApplyHost(Float64) = %v, want an error naming f64", err)
	}
}
