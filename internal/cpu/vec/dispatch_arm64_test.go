//go:build arm64 && !purego

package vec

import (
	"reflect"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestNEONDispatch checks which kernels the neon set installs: the NEON
// ones, the binary16 conversions only with FPHP and ASIMDHP (run it under
// qemu -cpu cortex-a53 to see the fallback), and the twins elsewhere.
func TestNEONDispatch(t *testing.T) {
	a := &cpu.ARM64
	t.Logf("ASIMD %v, FPHP %v, ASIMDHP %v", a.HasASIMD, a.HasFPHP, a.HasASIMDHP)
	s := findSet("neon")
	if s == nil {
		if a.HasASIMD {
			t.Fatal("no neon set on a CPU with ASIMD")
		}
		t.Skip("no ASIMD")
	}
	same := func(f, g any) bool { return reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer() }
	half := a.HasFPHP && a.HasASIMDHP
	for _, k := range []struct {
		name    string
		got     any
		neon    any
		twin    any
		useNEON bool
	}{
		{"maxSum", s.maxSum, maxSumNEON, maxSumGeneric, true},
		{"expSum", s.expSum, expSumNEON, expSumGeneric, true},
		{"bf16ToF32", s.bf16ToF32, bf16ToF32NEON, bf16ToF32Generic, true},
		{"f16ToF32", s.f16ToF32, f16ToF32NEON, f16ToF32Generic, half},
		{"f32ToF16", s.f32ToF16, f32ToF16NEON, f32ToF16Generic, half},
		{"f32ToF16Stream", s.f32ToF16Stream, f32ToF16NEON, f32ToF16Generic, half},
	} {
		want := k.twin
		if k.useNEON {
			want = k.neon
		}
		if !same(k.got, want) {
			t.Errorf("%s: not the expected kernel (NEON wanted: %v)", k.name, k.useNEON)
		}
	}
}
