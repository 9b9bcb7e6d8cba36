package driver

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// NVRTC needs no GPU, so these tests run wherever the library is installed.
func nvrtcOrSkip(t *testing.T) *NVRTC {
	t.Helper()
	n, err := OpenNVRTC()
	if err != nil {
		t.Skip("no NVRTC: " + err.Error())
	}
	return n
}

// testArch picks an architecture this NVRTC supports.
func testArch(t *testing.T, n *NVRTC) string {
	archs, err := n.SupportedArchs()
	if err != nil || len(archs) == 0 {
		return "sm_80"
	}
	for _, a := range archs {
		if a == 80 {
			return "sm_80"
		}
	}
	return fmt.Sprintf("sm_%d", archs[len(archs)-1])
}

const testKernelSrc = `
#include "scale.h"
extern "C" __global__ void scale(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= SCALE;
}
`

func TestNVRTCCompile(t *testing.T) {
	n := nvrtcOrSkip(t)
	major, minor := n.Version()
	t.Logf("NVRTC %d.%d from %s", major, minor, n.Path())
	opts := []string{"--gpu-architecture=" + testArch(t, n), "-default-device", "--std=c++17", "-lineinfo"}
	cubin, log, err := n.Compile(testKernelSrc, "scale.cu", map[string]string{"scale.h": "#define SCALE 2.0f\n"}, opts)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, log)
	}
	if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
		t.Fatalf("CUBIN is not an ELF image: % x", cubin[:min(16, len(cubin))])
	}
	if !bytes.Contains(cubin, []byte("scale")) {
		t.Error("CUBIN lacks the kernel symbol")
	}
	// The package-level helper uses the same library.
	if c2, _, err := Compile(testKernelSrc, "scale.cu", map[string]string{"scale.h": "#define SCALE 2.0f\n"}, opts); err != nil || len(c2) == 0 {
		t.Errorf("Compile: %v", err)
	}
}

func TestNVRTCCompileErrorHasLog(t *testing.T) {
	n := nvrtcOrSkip(t)
	src := "extern \"C\" __global__ void k() { int x = undefined_identifier_xyz; }\n"
	_, log, err := n.Compile(src, "bad.cu", nil, []string{"--gpu-architecture=" + testArch(t, n)})
	var ne *NVRTCError
	if !errors.As(err, &ne) {
		t.Fatalf("want *NVRTCError, got %T %v", err, err)
	}
	if ne.Code != NVRTC_ERROR_COMPILATION || ne.Name != "NVRTC_ERROR_COMPILATION" {
		t.Errorf("code/name = %d %q", ne.Code, ne.Name)
	}
	if !strings.Contains(log, "undefined_identifier_xyz") || !strings.Contains(err.Error(), "undefined_identifier_xyz") {
		t.Errorf("log not in error:\nlog=%q\nerr=%q", log, err)
	}
	if !strings.Contains(err.Error(), "bad.cu") {
		t.Errorf("program name missing from %q", err)
	}

	// A missing header is a compile error too, not a crash.
	_, _, err = n.Compile(testKernelSrc, "noheader.cu", nil, []string{"--gpu-architecture=" + testArch(t, n)})
	if !errors.As(err, &ne) {
		t.Errorf("missing header: %v", err)
	}

	// An invalid option.
	_, _, err = n.Compile(testKernelSrc, "opt.cu", map[string]string{"scale.h": "#define SCALE 1.0f\n"}, []string{"--no-such-option-xyz"})
	if !errors.As(err, &ne) || ne.Code != NVRTC_ERROR_INVALID_OPTION {
		t.Errorf("invalid option: %v", err)
	}
}

func TestNVRTCConcurrentCompiles(t *testing.T) {
	n := nvrtcOrSkip(t)
	arch := testArch(t, n)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hdr := map[string]string{"scale.h": fmt.Sprintf("#define SCALE %d.0f\n", i+1)}
			cubin, log, err := n.Compile(testKernelSrc, fmt.Sprintf("k%d.cu", i), hdr, []string{"--gpu-architecture=" + arch})
			if err != nil {
				errs <- fmt.Errorf("%v\n%s", err, log)
				return
			}
			if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
				errs <- fmt.Errorf("goroutine %d: bad CUBIN", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPickArch(t *testing.T) {
	sup := []int{75, 80, 86, 87, 89, 90, 100, 120}
	cases := []struct {
		major, minor int
		want         string
		ok           bool
	}{
		{9, 0, "sm_90", true},
		{8, 6, "sm_86", true},
		{8, 8, "sm_87", true},
		{12, 1, "sm_120", true},
		{10, 3, "sm_100", true},
		{7, 0, "", false},
		{11, 0, "", false},
	}
	for _, c := range cases {
		got, ok := pickArch(sup, c.major, c.minor)
		if got != c.want || ok != c.ok {
			t.Errorf("pickArch(%d.%d) = %q, %v; want %q, %v", c.major, c.minor, got, ok, c.want, c.ok)
		}
	}
	n := nvrtcOrSkip(t)
	if a, err := n.ArchFor(8, 0); err != nil || a != "sm_80" {
		t.Errorf("ArchFor(8,0) = %q, %v", a, err)
	}
	if _, err := n.ArchFor(99, 0); err == nil || !strings.Contains(err.Error(), "sm_990") {
		t.Errorf("ArchFor(99,0) = %v", err)
	}
}
