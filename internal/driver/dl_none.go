//go:build !(((linux && !android) || windows) && (amd64 || arm64))

package driver

import "errors"

// The library names that NotFoundError reports.
const (
	libcudaName = "libcuda.so.1"
	libnvrtc    = "libnvrtc"
)

// canLoadCUDA: there is no CUDA driver for this GOOS/GOARCH (or no way to
// call one without cgo), so every open reports a *NotFoundError naming the
// platform, and the library and CLI run on the CPU.
const canLoadCUDA = false

// openLibrary is never reached (dlopenFirst returns first).
func openLibrary(string) (uintptr, error) {
	return 0, errors.New("driver: CUDA libraries cannot be loaded on this platform")
}

// lookupSymbol finds nothing: no library is ever loaded.
func lookupSymbol(uintptr, string) uintptr { return 0 }

// callC is never reached: every entry point is unresolved, and the callers
// check that before calling. It returns a non-zero code, which both APIs
// read as a failure.
func callC(uintptr, ...uintptr) uintptr { return ^uintptr(0) }

// nvrtcLoaded is never reached.
func nvrtcLoaded(string) {}
