package softmax

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Each class of bad call wraps its sentinel, whatever the entry point.
func TestSentinelErrors(t *testing.T) {
	x := []float32{1, 2, 3, 4, 5, 6}
	y := make([]float32, 6)
	src := Tensor{Shape: []int{2, 3}, DType: Float32, F32: x}
	dst := Tensor{Shape: []int{2, 3}, DType: Float32, F32: y}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"axis", Softmax(y, x, []int{2, 3}, 2), ErrBadAxis},
		{"negative dim", Softmax(y, x, []int{-2, 3}, 0), ErrBadShape},
		{"length", Softmax(y, x, []int{2, 2}, 0), ErrBadShape},
		{"shape mismatch", Apply(OpSoftmax, Tensor{Shape: []int{3, 2}, DType: Float32, F32: y}, src, Options{}), ErrBadShape},
		{"dtype mismatch", Apply(OpSoftmax, Tensor{Shape: []int{2, 3}, DType: Float16, U16: make([]uint16, 6)}, src, Options{}), ErrBadDType},
		{"unknown dtype", Apply(OpSoftmax, dst, Tensor{Shape: []int{2, 3}, DType: DType(99)}, Options{}), ErrBadDType},
		{"unknown op", Apply(Op(99), dst, src, Options{}), ErrBadOp},
		{"backward op in Apply", Apply(OpSoftmaxBackward, dst, src, Options{}), ErrBadOp},
		{"parse dtype", second(ParseDType("f8")), ErrBadDType},
		{"parse op", second(ParseOp("softer")), ErrBadOp},
		{"overlap", Forward(OpSoftmax, x[1:5], x[:4], []int{4}, Options{}), ErrOverlap},
		{"wrong slice", Apply(OpSoftmax, dst, Tensor{Shape: []int{2, 3}, DType: Float32, F64: make([]float64, 6)}, Options{}), ErrBadDType},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v is not %v", tt.name, tt.err, tt.want)
		}
	}
}

// A NaN or infinite scale is an error in every entry point, before
// anything is written.
func TestScaleNotFinite(t *testing.T) {
	x := []float32{1, 2, 3}
	for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		y := []float32{7, 7, 7}
		opt := Options{Axis: -1}
		opt.Scale = s
		errs := map[string]error{
			"Forward":       Forward(OpSoftmax, y, x, []int{3}, opt),
			"Apply":         Apply(OpLogSoftmax, Tensor{Shape: []int{3}, F32: y}, Tensor{Shape: []int{3}, F32: x}, opt),
			"Backward":      Backward(OpSoftmaxBackward, y, x, x, []int{3}, opt),
			"ApplyBackward": ApplyBackward(OpLogSoftmaxBackward, Tensor{Shape: []int{3}, F32: y}, Tensor{Shape: []int{3}, F32: x}, Tensor{Shape: []int{3}, F32: x}, opt),
		}
		for name, err := range errs {
			if !errors.Is(err, ErrBadScale) || !strings.Contains(err.Error(), "scale") {
				t.Errorf("%s with scale %v: %v, want ErrBadScale", name, s, err)
			}
		}
		if y[0] != 7 || y[1] != 7 || y[2] != 7 {
			t.Errorf("scale %v: the output was written: %v", s, y)
		}
	}
}

// A finite float64 scale beyond float32's range would be ±Inf in the
// float32 arithmetic of f32, f16 and bf16; float64 tensors take it.
func TestScaleBeyondFloat32(t *testing.T) {
	x32, y32 := []float32{1, 2}, make([]float32, 2)
	if err := Forward(OpSoftmax, y32, x32, []int{2}, Options{Scale: 1e39}); !errors.Is(err, ErrBadScale) || !strings.Contains(err.Error(), "f32") {
		t.Errorf("f32 with scale 1e39: %v, want ErrBadScale naming f32", err)
	}
	x64, y64 := []float64{1e-39, 0}, make([]float64, 2)
	if err := Forward(OpSoftmax, y64, x64, []int{2}, Options{Scale: 1e39}); err != nil {
		t.Errorf("f64 with scale 1e39: %v", err)
	}
}

func TestNewTensorTooLarge(t *testing.T) {
	t.Setenv("SOFTMAX_MEMORY_LIMIT", "1000000")
	_, err := NewTensor(Float32, 1e6, 1e6)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("NewTensor(Float32, 1e6, 1e6): %v, want ErrTooLarge", err)
	}
	for _, want := range []string{"[1000000 1000000]", "4000000000000 bytes", "SOFTMAX_MEMORY_LIMIT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	if _, err := NewTensor(BFloat16, 1000, 500); err != nil {
		t.Errorf("1000000 bytes within the limit: %v", err)
	}
	if _, err := NewTensor(Float32, math.MaxInt/2, 3); !errors.Is(err, ErrBadShape) {
		t.Errorf("overflowing element count: %v, want ErrBadShape", err)
	}
	if _, err := NewTensor(Float32, math.MaxInt/4+1); !errors.Is(err, ErrBadShape) {
		t.Errorf("overflowing byte count: %v, want ErrBadShape", err)
	}
}

func TestHalfFrom(t *testing.T) {
	for _, f := range []float32{0, 1, -2.5, 65504, 1e-8, float32(math.Inf(-1))} {
		if got, want := HalfFrom(f), FloatToHalfBits(f); got.Bits() != want {
			t.Errorf("HalfFrom(%v) = %#04x, want %#04x", f, got.Bits(), want)
		}
	}
	if h := HalfFrom(70000); !h.IsInf(1) {
		t.Errorf("HalfFrom(70000) = %v, want +Inf (beyond the largest half)", h)
	}
	if h := HalfFrom(float32(math.NaN())); !h.IsNaN() {
		t.Errorf("HalfFrom(NaN) = %v", h)
	}
	if got := HalfFrom(0.1).Float32(); math.Abs(float64(got)-0.1) > 1e-4 {
		t.Errorf("HalfFrom(0.1) = %v", got)
	}
}

func second[T any](_ T, err error) error { return err }

// go doc shows an alias's comment, not its methods: types.go lists them in
// the comments of DType and Op, and this test keeps the lists complete.
func TestAliasMethodsDocumented(t *testing.T) {
	src, err := os.ReadFile("types.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(Float32), reflect.TypeOf(OpSoftmax)} {
		recv := map[string]string{"DType": "d", "Op": "o"}[typ.Name()]
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			want := fmt.Sprintf("//\tfunc (%s %s) %s(", recv, typ.Name(), m.Name)
			if !strings.Contains(string(src), want) {
				t.Errorf("the comment of %s does not list its method %s (%q)", typ.Name(), m.Name, want)
			}
		}
	}
}
