package bench

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gofused/softmax/internal/cpu/vec"
)

// EnvCPUKernels is the environment variable that picks the CPU kernel set
// (go, avx2 or avx512) at start-up; it is read by package vec.
const EnvCPUKernels = vec.EnvKernels

// cpuKernelNames are all CPU kernel set names, slowest first.
var cpuKernelNames = []string{"go", "avx2", "avx512"}

// cpuKernelSets returns the kernel sets this CPU can run, "go" first and
// the fastest last.
func cpuKernelSets() []string { return vec.Impls() }

// useCPUKernels makes name the kernel set in use and returns a function
// that restores the previous one. A set this CPU cannot run is an
// ErrUnsupported error. It must not run concurrently with softmax calls.
func useCPUKernels(name string) (restore func(), err error) {
	if name == vec.Impl() {
		return func() {}, nil
	}
	if !slices.Contains(cpuKernelSets(), name) {
		if slices.Contains(cpuKernelNames, name) {
			return nil, fmt.Errorf("%w: cpu kernel set %q needs instructions this CPU lacks (have %s)",
				ErrUnsupported, name, strings.Join(cpuKernelSets(), ", "))
		}
		return nil, fmt.Errorf("unknown cpu algo %q (want auto, all or one of %s)", name, strings.Join(cpuKernelSets(), ", "))
	}
	prev, err := vec.UseImpl(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return func() { vec.UseImpl(prev) }, nil
}

// kernelLine describes the CPU kernel set for `softmax info`.
func kernelLine() string {
	s := vec.Impl() + " (available: " + strings.Join(cpuKernelSets(), ", ")
	if v := os.Getenv(EnvCPUKernels); v != "" {
		s += fmt.Sprintf("; $%s=%s", EnvCPUKernels, v)
	}
	return s + ")"
}
