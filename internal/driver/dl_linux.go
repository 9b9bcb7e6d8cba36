//go:build linux && !android && (amd64 || arm64)

package driver

import "github.com/ebitengine/purego"

// The library names that NotFoundError reports.
const (
	libcudaName = "libcuda.so.1"
	libnvrtc    = "libnvrtc"
)

// canLoadCUDA: this build loads the CUDA libraries.
const canLoadCUDA = true

// openLibrary dlopens a shared library: a soname (searched by the dynamic
// loader) or a path.
func openLibrary(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

// lookupSymbol resolves name in a loaded library, 0 when it is absent.
func lookupSymbol(handle uintptr, name string) uintptr {
	p, err := purego.Dlsym(handle, name)
	if err != nil {
		return 0
	}
	return p
}

// callC calls the C function at fn with integer and pointer arguments and
// returns its integer result. Like syscall.SyscallN it is
// //go:uintptrescapes: a pointer converted to uintptr in its argument list
// is moved to the heap and kept alive until the call returns.
//
//go:uintptrescapes
func callC(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// nvrtcLoaded: the dynamic loader finds NVRTC's builtins library beside it
// by itself here.
func nvrtcLoaded(string) {}
