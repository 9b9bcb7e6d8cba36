package kernels

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// TestFloat64Catalogue: the strategies marked F64 instantiate their kernels
// over smx::F64 (and a float64 module of any other strategy has none); the
// f32 instances are those of before (over smx::F32, whose math type is
// float); split partials of f64 take double pairs.
func TestFloat64Catalogue(t *testing.T) {
	n := 0
	for _, in := range All() {
		ks := in.Instances(spec.Float64)
		if !in.F64 {
			if len(ks) > 0 {
				t.Errorf("%s: %d f64 kernels without F64", in.Strategy, len(ks))
			}
			continue
		}
		if len(ks) == 0 || len(ks) != len(in.Symbols(spec.Float64)) {
			t.Errorf("%s: %d f64 kernels, %d symbols", in.Strategy, len(ks), len(in.Symbols(spec.Float64)))
		}
		for _, k := range ks {
			if !strings.Contains(k.Body, "smx::F64") || !strings.Contains(k.Symbol, "_f64") {
				t.Errorf("%s: %s", k.Symbol, k.Body)
			}
		}
		src, _, err := Source(in.File, DTypeMask(spec.Float64), false)
		if err != nil || strings.Count(src, "SMX_KERNEL(") != len(ks) {
			t.Errorf("%s: f64 source: %v", in.Strategy, err)
		}
		n++
	}
	if n < 6 {
		t.Errorf("%d strategies with f64 kernels", n)
	}
	if WsPairBytes(spec.Float64) != 16 || WsPairBytes(spec.Float32) != 8 {
		t.Error("workspace pair sizes")
	}
	b32 := StridedSmemBytes(spec.Softmax, spec.Float32, 10, 8, 1, 2)
	b64 := StridedSmemBytes(spec.Softmax, spec.Float64, 10, 8, 1, 2)
	if want := b32 + 10*8*4 + 8*3*8; b64 != want {
		t.Errorf("strided_smem f64 bytes %d, want %d (twice the elements, double pairs)", b64, want)
	}
}
