package cuda

import (
	"errors"
	"math"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
)

// A NaN or infinite scale is refused by every entry point that takes
// Options, before the device is touched (so no GPU is needed here).
func TestScaleNotFinite(t *testing.T) {
	var d Device
	x := Tensor{Shape: []int{2, 3}, DType: softmax.Float32}
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		opt := Options{}
		setScale(&opt.Scale, s)
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

// setScale sets a Scale field whether it is a float32 or a float64.
func setScale[F float32 | float64](p *F, s float64) { *p = F(s) }
