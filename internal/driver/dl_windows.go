//go:build windows && (amd64 || arm64)

package driver

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// The library names that NotFoundError reports.
const (
	libcudaName = "nvcuda.dll"
	libnvrtc    = "nvrtc64"
)

// canLoadCUDA: this build loads the CUDA libraries.
const canLoadCUDA = true

// openLibrary loads a DLL. The driver's name is looked for in System32
// alone (where its installer puts it: no planted copy in the current
// folder can stand in); NVRTC's names go through the system's standard
// search (the executable's folder, System32, PATH, where the toolkit's
// installer adds its bin folder); a path is made absolute, as the loader
// requires, and loaded with its own folder searched for its dependencies.
func openLibrary(name string) (uintptr, error) {
	var flags uintptr
	switch {
	case isPath(name):
		abs, err := filepath.Abs(name)
		if err != nil {
			return 0, err
		}
		name = abs
		flags = windows.LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | windows.LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
	case strings.EqualFold(name, libcudaName):
		flags = windows.LOAD_LIBRARY_SEARCH_SYSTEM32
	}
	h, err := windows.LoadLibraryEx(name, 0, flags)
	return uintptr(h), err
}

// lookupSymbol resolves name in a loaded DLL, 0 when it is absent.
func lookupSymbol(handle uintptr, name string) uintptr {
	p, err := windows.GetProcAddress(windows.Handle(handle), name)
	if err != nil {
		return 0
	}
	return p
}

// callC calls the C function at fn with integer and pointer arguments and
// returns its integer result (one calling convention on 64-bit Windows, so
// the syscall package's SyscallN serves; purego is not needed). Like
// SyscallN it is //go:uintptrescapes: a pointer converted to uintptr in its
// argument list is moved to the heap and kept alive until the call returns.
//
//go:uintptrescapes
func callC(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := syscall.SyscallN(fn, args...)
	return r
}

// nvrtcLoaded makes the folder of an NVRTC loaded by path searchable for
// the DLL it loads by name later (nvrtc-builtins64_*.dll, beside it): the
// folder is added to the process's DLL directories and to PATH, as
// NVIDIA's cuda.pathfinder does for NVRTC. A bare name was found through
// the standard search, which finds the builtins the same way.
func nvrtcLoaded(path string) {
	if !isPath(path) {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	dir := filepath.Dir(abs)
	if p, err := windows.UTF16PtrFromString(dir); err == nil {
		windows.AddDllDirectory(p) // best effort: PATH below covers its failure
	}
	cur := os.Getenv("PATH")
	for _, d := range filepath.SplitList(cur) {
		if strings.EqualFold(filepath.Clean(d), filepath.Clean(dir)) {
			return
		}
	}
	if cur == "" {
		os.Setenv("PATH", dir)
		return
	}
	os.Setenv("PATH", cur+string(os.PathListSeparator)+dir)
}
