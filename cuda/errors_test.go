package cuda

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
)

// A NaN or infinite scale is refused by every entry point that takes
// Options, before the device is touched (so no GPU is needed here).
func TestScaleNotFinite(t *testing.T) {
	var d Device
	x := Tensor{Shape: []int{2, 3}, DType: softmax.Float32}
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e39} {
		opt := Options{}
		opt.Scale = s
		_, planErr := d.Plan(softmax.OpSoftmax, softmax.Float32, x.Shape, opt)
		_, configsErr := d.Configs(softmax.OpSoftmax, softmax.Float32, x.Shape, opt, "block_reg")
		_, planForErr := d.PlanFor(softmax.OpSoftmax, opt, x, x)
		for name, err := range map[string]error{
			"Apply":         d.Apply(softmax.OpSoftmax, x, x, opt, nil),
			"ApplyBackward": d.ApplyBackward(softmax.OpSoftmaxBackward, x, x, x, opt, nil),
			"Plan":          planErr,
			"Configs":       configsErr,
			"PlanFor":       planForErr,
		} {
			if !errors.Is(err, softmax.ErrBadScale) {
				t.Errorf("%s with scale %v: %v, want ErrBadScale", name, s, err)
			}
		}
	}
}

func TestSentinelErrors(t *testing.T) {
	var d Device
	x := Tensor{Shape: []int{2, 3}, DType: softmax.Float32}
	if err := d.Apply(softmax.OpSoftmax, x, x, Options{Axis: 2}, nil); !errors.Is(err, softmax.ErrBadAxis) {
		t.Errorf("axis 2: %v", err)
	}
	bad := Tensor{Shape: []int{2, 3}, DType: softmax.DType(9)}
	if err := d.Apply(softmax.OpSoftmax, bad, bad, Options{}, nil); !errors.Is(err, softmax.ErrBadDType) || !strings.Contains(err.Error(), "dtype") {
		t.Errorf("unknown dtype on the GPU: %v", err)
	}
	if err := d.Apply(softmax.OpSoftmaxBackward, x, x, Options{}, nil); !errors.Is(err, softmax.ErrBadOp) {
		t.Errorf("backward op in Apply: %v", err)
	}
	if _, err := d.Plan(softmax.OpSoftmax, softmax.Float32, []int{-1, 3}, Options{}); !errors.Is(err, softmax.ErrBadShape) {
		t.Errorf("negative dimension: %v", err)
	}
	if _, err := Open(0); err != nil && driver.IsNoGPU(err) != errors.Is(err, softmax.ErrNoGPU) {
		t.Errorf("Open(0): %v: IsNoGPU and errors.Is(ErrNoGPU) disagree", err)
	}
}

// A shape whose bytes overflow is refused before the driver sees a size.
func TestNewTensorOverflow(t *testing.T) {
	var d Device
	if _, err := d.NewTensor(softmax.Float32, math.MaxInt/2); !errors.Is(err, softmax.ErrBadShape) {
		t.Errorf("NewTensor(Float32, MaxInt/2): %v, want ErrBadShape", err)
	}
}
