package driver

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/errs"
)

func TestErrorFallbackNames(t *testing.T) {
	cases := []struct {
		op   string
		code int
		want string
	}{
		{"cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY"},
		{"cuInit", CUDA_ERROR_NO_DEVICE, "cuInit: CUDA_ERROR_NO_DEVICE"},
		{"cuLaunchKernel", 4242, "cuLaunchKernel: CUresult(4242)"},
		{"", 2, "CUDA_ERROR_OUT_OF_MEMORY"},
	}
	for _, c := range cases {
		e := NewError(c.op, c.code)
		if got := e.Error(); got != c.want {
			t.Errorf("NewError(%q, %d) = %q, want %q", c.op, c.code, got, c.want)
		}
		if e.Code != c.code || e.Op != c.op {
			t.Errorf("fields: %+v", e)
		}
	}
	// A nil API (no driver loaded) must not be dereferenced.
	var a *API
	if got := a.newError("cuX", 2).Error(); got != "cuX: CUDA_ERROR_OUT_OF_MEMORY" {
		t.Errorf("nil API: %q", got)
	}
}

func TestErrorFormattingWithDesc(t *testing.T) {
	e := &Error{Op: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY", Desc: "out of memory"}
	if got, want := e.Error(), "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestErrorHelpers(t *testing.T) {
	base := NewError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY)
	wrapped := fmt.Errorf("allocating workspace: %w", base)
	if !IsOutOfMemory(wrapped) {
		t.Error("IsOutOfMemory(wrapped) = false")
	}
	if !IsCode(wrapped, CUDA_ERROR_OUT_OF_MEMORY) || IsCode(wrapped, CUDA_ERROR_INVALID_VALUE) {
		t.Error("IsCode wrong")
	}
	if c, ok := ErrorCode(wrapped); !ok || c != 2 {
		t.Errorf("ErrorCode = %d, %v", c, ok)
	}
	if _, ok := ErrorCode(errors.New("x")); ok {
		t.Error("ErrorCode of a plain error")
	}
	if !errors.Is(wrapped, &Error{Code: CUDA_ERROR_OUT_OF_MEMORY}) {
		t.Error("errors.Is by code failed")
	}
	if errors.Is(wrapped, &Error{Code: CUDA_ERROR_NO_DEVICE}) {
		t.Error("errors.Is matched a different code")
	}
	var de *Error
	if !errors.As(wrapped, &de) || de.Op != "cuMemAlloc_v2" {
		t.Error("errors.As failed")
	}
	if !IsNoGPU(NewError("cuInit", CUDA_ERROR_NO_DEVICE)) || !IsNoGPU(NewError("cuInit", CUDA_ERROR_STUB_LIBRARY)) {
		t.Error("IsNoGPU false for NO_DEVICE / STUB_LIBRARY")
	}
	if IsNoGPU(base) {
		t.Error("IsNoGPU true for OOM")
	}
}

func TestNVRTCErrorFormatting(t *testing.T) {
	var n *NVRTC
	e := n.newError("nvrtcCompileProgram", NVRTC_ERROR_COMPILATION)
	e.Log = "k.cu(3): error: expected a \";\"\n\n1 error detected\n"
	got := e.Error()
	if !strings.HasPrefix(got, "nvrtcCompileProgram: NVRTC_ERROR_COMPILATION\nk.cu(3): error") {
		t.Errorf("got %q", got)
	}
	if got := n.newError("x", 77).Error(); got != "x: nvrtcResult(77)" {
		t.Errorf("unknown nvrtc code: %q", got)
	}
	if !errors.Is(fmt.Errorf("w: %w", e), &NVRTCError{Code: NVRTC_ERROR_COMPILATION}) {
		t.Error("errors.Is by code failed")
	}
}

func TestSymbolErrorMessage(t *testing.T) {
	e := &SymbolError{Library: "libcuda.so.1", Symbol: "cuLaunchKernelEx", Version: 11040}
	if got, want := e.Error(), "cuLaunchKernelEx: not available in libcuda.so.1 (version 11.4)"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	// A wrapper whose symbol is absent returns it instead of crashing.
	a := &API{path: "fake", version: 11040}
	if err := a.LaunchEx(0, LaunchConfig{}); !errors.As(err, new(*SymbolError)) {
		t.Errorf("LaunchEx on empty API: %v", err)
	}
	if _, err := a.MemAlloc(16); !errors.As(err, new(*SymbolError)) {
		t.Errorf("MemAlloc on empty API: %v", err)
	}
	if a.Has("cuLaunchKernelEx") || a.Has("nope") {
		t.Error("Has reports a missing symbol")
	}
}

// With the real driver library (present on machines with the NVIDIA driver
// installed, with or without a usable GPU), names and descriptions come from
// cuGetErrorName/cuGetErrorString, which work before cuInit.
func TestErrorNamesFromDriver(t *testing.T) {
	a, err := loadDriver(lookupFromOS(), "amd64")
	if err != nil {
		t.Skip("no CUDA driver library: " + err.Error())
	}
	e := a.newError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY)
	if e.Name != "CUDA_ERROR_OUT_OF_MEMORY" || e.Desc == "" {
		t.Errorf("driver names: %+v", e)
	}
	if got := e.Error(); !strings.HasPrefix(got, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (") {
		t.Errorf("message %q", got)
	}
	// A code the driver does not know falls back.
	if got := a.newError("cuX", 123456).Name; got != "CUresult(123456)" {
		t.Errorf("unknown code name %q", got)
	}
	for _, names := range drvSymNames {
		if !a.Has(names[0]) && !a.Has(names[len(names)-1]) {
			t.Logf("driver %s lacks %v", a.Path(), names)
		}
	}
}

// Missing libraries and deviceless drivers match the public sentinels.
func TestSentinels(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("opening: %w", err) }
	cases := []struct {
		err              error
		gpu, nvrtc, nccl bool
		desc             string
	}{
		{wrap(&NotFoundError{Library: libcudaName}), true, false, false, "no libcuda"},
		{wrap(&NotFoundError{Library: libnvrtc}), false, true, false, "no NVRTC"},
		{wrap(&NotFoundError{Library: libncclName}), false, false, true, "no NCCL"},
		{wrap(NewError("cuInit", CUDA_ERROR_NO_DEVICE)), true, false, false, "no device"},
		{wrap(NewError("cuInit", CUDA_ERROR_STUB_LIBRARY)), true, false, false, "stub library"},
		{wrap(NewError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY)), false, false, false, "out of memory"},
	}
	for _, c := range cases {
		if got := errors.Is(c.err, errs.ErrNoGPU); got != c.gpu {
			t.Errorf("%s: errors.Is(ErrNoGPU) = %v", c.desc, got)
		}
		if got := errors.Is(c.err, errs.ErrNoNVRTC); got != c.nvrtc {
			t.Errorf("%s: errors.Is(ErrNoNVRTC) = %v", c.desc, got)
		}
		if got := errors.Is(c.err, errs.ErrNoNCCL); got != c.nccl {
			t.Errorf("%s: errors.Is(ErrNoNCCL) = %v", c.desc, got)
		}
		if got := IsNoGPU(c.err); got != c.gpu {
			t.Errorf("%s: IsNoGPU = %v, disagreeing with errors.Is", c.desc, got)
		}
	}
	if !errors.Is(NewError("x", CUDA_ERROR_OUT_OF_MEMORY), &Error{Code: CUDA_ERROR_OUT_OF_MEMORY}) {
		t.Error("matching by code broke")
	}
}
