package main

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/cuda"
)

func TestPrecompileUsageErrors(t *testing.T) {
	expectUsageErrors(t, "precompile", []usageCase{
		{[]string{"precompile", "--device", "cpu"}, "precompiling needs a GPU"},
		{[]string{"precompile", "--device", "gpu"}, "unknown device"},
		{[]string{"precompile", "--dtype", "f8"}, `unknown dtype "f8"`},
		{[]string{"precompile", "--dtype", "f32,"}, `unknown dtype ""`},
		{[]string{"precompile", "extra"}, "unexpected argument"},
	})
	expectHelp(t, "precompile", "--dtype", "SOFTMAX_CACHE_DIR")
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
