package main

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/cuda"
)

func TestPrecompileUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"precompile", "--device", "cpu"}, "precompiling needs a GPU"},
		{[]string{"precompile", "--device", "gpu"}, "unknown device"},
		{[]string{"precompile", "--dtype", "f64"}, `unknown dtype "f64"`},
		{[]string{"precompile", "--dtype", "f32,"}, `unknown dtype ""`},
		{[]string{"precompile", "extra"}, "unexpected argument"},
	} {
		r := runCLI(t, tt.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "softmax: precompile: ") || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("softmax %v: exit %d, stderr %q; want 2 and a message containing %q", tt.args, r.code, r.stderr, tt.msg)
		}
	}
	r := runCLI(t, "help", "precompile")
	if r.code != 0 || !strings.Contains(r.stdout, "--dtype") || !strings.Contains(r.stdout, "SOFTMAX_CACHE_DIR") {
		t.Errorf("help precompile: exit %d\n%s", r.code, r.stdout)
	}
}

func TestPrecompileWithoutGPU(t *testing.T) {
	if n, err := cuda.DeviceCount(); err == nil && n > 0 {
		t.Skip("a GPU is present")
	}
	r := runCLI(t, "precompile")
	if r.code != 1 || !strings.Contains(r.stderr, "cuda backend unavailable") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
