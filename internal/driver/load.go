package driver

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Environment variables that override library discovery. When set (to a
// non-empty path) only that file is tried: an explicit choice that fails
// should be reported, not silently replaced by another library.
const (
	EnvLibCUDA = "SOFTMAX_LIBCUDA"
	EnvNVRTC   = "SOFTMAX_NVRTC"
)

// NotFoundError reports that a shared library could not be loaded from any
// candidate location. The message lists everything that was tried, e.g.
//
//	no GPU: libcuda.so.1 not found (tried: libcuda.so.1, /usr/lib64/libcuda.so.1, ...)
type NotFoundError struct {
	Library string   // what was looked for: "libcuda.so.1", "libnvrtc" ("nvcuda.dll" or "nvrtc64" on Windows) or "libnccl.so.2"
	Tried   []string // candidates in the order they were tried
	Errs    []error  // the load error of each candidate, parallel to Tried
	Env     string   // the override variable, if it was set (then Tried has one entry)
	// Platform is the GOOS/GOARCH of a build that cannot load CUDA
	// libraries at all (no CUDA driver exists there); Tried is then empty.
	Platform string
}

// Error implements the error interface.
func (e *NotFoundError) Error() string {
	var b strings.Builder
	switch e.Library {
	case libcudaName:
		b.WriteString("no GPU: ")
	case libncclName:
		b.WriteString("no NCCL: ")
		if e.Platform != "" {
			fmt.Fprintf(&b, "NCCL is not available on %s (only on linux/amd64 and linux/arm64)", e.Platform)
			return b.String()
		}
	default:
		b.WriteString("no NVRTC: ")
	}
	if e.Platform != "" {
		fmt.Fprintf(&b, "CUDA is not supported on %s (the GPU backend is built for %s)", e.Platform, strings.Join(cudaPlatforms, ", "))
		return b.String()
	}
	b.WriteString(e.Library)
	b.WriteString(" not found")
	if e.Env != "" && len(e.Tried) == 1 {
		fmt.Fprintf(&b, " ($%s=%s", e.Env, e.Tried[0])
		if len(e.Errs) == 1 && e.Errs[0] != nil {
			fmt.Fprintf(&b, ": %v", e.Errs[0])
		}
		b.WriteString(")")
		return b.String()
	}
	b.WriteString(" (tried: ")
	b.WriteString(strings.Join(e.Tried, ", "))
	b.WriteString(")")
	switch e.Library {
	case libncclName:
		fmt.Fprintf(&b, "; install NCCL (libnccl2, or the nvidia-nccl wheel torch ships), or set $%s", EnvNCCL)
	case libcudaName:
	default:
		fmt.Fprintf(&b, "; install the CUDA toolkit or the nvidia-cuda-nvrtc wheel, or set $%s", EnvNVRTC)
	}
	return b.String()
}

// cudaPlatforms are the GOOS/GOARCH pairs whose builds load the CUDA
// libraries: those NVIDIA ships a CUDA driver for and purego (or, on
// Windows, the syscall package) can call into without cgo.
var cudaPlatforms = []string{"linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

// hostOS is runtime.GOOS: the search lists follow the platform the process
// runs on (a variable so that tests can ask for the other platform's list).
var hostOS = runtime.GOOS

// lookupFunc is os.LookupEnv; globFunc is filepath.Glob. Both are injected so
// that candidate lists can be computed in tests without touching the system.
type (
	lookupFunc func(string) (string, bool)
	globFunc   func(string) ([]string, error)
)

func envValue(lookup lookupFunc, key string) string {
	if lookup == nil {
		return ""
	}
	v, ok := lookup(key)
	if !ok {
		return ""
	}
	return strings.TrimSpace(v)
}

// multiarchDir is the Debian multiarch library directory for goarch.
func multiarchDir(goarch string) string {
	if goarch == "arm64" {
		return "/usr/lib/aarch64-linux-gnu"
	}
	return "/usr/lib/x86_64-linux-gnu"
}

// cudaTargetDir is the toolkit's per-target library directory for goarch.
func cudaTargetDir(goarch string) string {
	if goarch == "arm64" {
		return "targets/sbsa-linux/lib"
	}
	return "targets/x86_64-linux/lib"
}

// driverCandidates returns the places libcuda is looked for, in order:
// $SOFTMAX_LIBCUDA alone if set; else the soname (resolved by the dynamic
// loader through LD_LIBRARY_PATH and the ld.so cache), then the usual driver
// directories. The second result is the override variable when it was used.
// On Windows the list is windowsDriverCandidates'.
func driverCandidates(lookup lookupFunc, goarch string) ([]string, string) {
	if p := envValue(lookup, EnvLibCUDA); p != "" {
		return []string{p}, EnvLibCUDA
	}
	if hostOS == "windows" {
		return windowsDriverCandidates(), ""
	}
	dirs := []string{
		multiarchDir(goarch),
		multiarchDir(goarch) + "/nvidia/current",
		"/usr/lib64",
		"/usr/lib",
		"/usr/local/nvidia/lib64",
		"/usr/local/nvidia/lib",
		"/usr/lib/wsl/lib",
		"/run/opengl-driver/lib",
	}
	const soname = "libcuda.so.1"
	out := []string{soname}
	for _, d := range dirs {
		out = append(out, d+"/"+soname)
	}
	return dedupe(out), ""
}

// nvrtcMajors are the NVRTC major versions looked for, newest first.
var nvrtcMajors = []string{"13", "12"}

// majorOrder returns nvrtcMajors with preferMajor (if known) moved first.
// CUBINs from a newer major toolkit do not load on an older driver, so the
// NVRTC matching the driver's major version is preferred when it is known.
func majorOrder(preferMajor int) []string {
	out := append([]string(nil), nvrtcMajors...)
	p := fmt.Sprint(preferMajor)
	for i, m := range out {
		if m == p {
			copy(out[1:i+1], out[:i])
			out[0] = p
			break
		}
	}
	return out
}

// sitePackagePatterns are glob patterns for Python site-packages folders that
// may hold NVIDIA's NVRTC wheels (nvidia-cuda-nvrtc-cu12, nvidia-cuda-nvrtc
// for CUDA 13).
func sitePackagePatterns(lookup lookupFunc) []string {
	pats := []string{
		"/usr/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3*/site-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/opt/*/.venv/lib/python3*/site-packages",
	}
	if v := envValue(lookup, "VIRTUAL_ENV"); v != "" {
		pats = append(pats, path.Join(v, "lib/python3*/site-packages"))
	}
	if v := envValue(lookup, "CONDA_PREFIX"); v != "" {
		pats = append(pats, path.Join(v, "lib/python3*/site-packages"))
	}
	if h := envValue(lookup, "HOME"); h != "" {
		pats = append(pats, path.Join(h, ".local/lib/python3*/site-packages"))
	}
	return pats
}

// nvrtcCandidates returns the places NVRTC is looked for, in order:
// $SOFTMAX_NVRTC alone if set; else the sonames libnvrtc.so.13, .so.12 and
// libnvrtc.so; then the folders $CUDA_HOME/lib64, $CUDA_PATH/lib64,
// /usr/local/cuda/lib64, /usr/local/cuda/targets/<arch>/lib, every
// /usr/local/cuda-*/lib64 (newest version first), and the nvidia/cu13/lib
// and nvidia/cuda_nvrtc/lib folders of every Python site-packages directory
// found: libnvrtc.so.13 in all of them, then libnvrtc.so.12 in all of them,
// then any other libnvrtc.so* file (inFolders). When preferMajor is 12 (the
// driver is CUDA 12.x) the .so.12 names come before the .so.13 ones. glob
// expands the wildcard patterns (nil means no wildcard expansion).
// On Windows the list is windowsNVRTCCandidates'.
func nvrtcCandidates(lookup lookupFunc, glob globFunc, goarch string, preferMajor int) ([]string, string) {
	if p := envValue(lookup, EnvNVRTC); p != "" {
		return []string{p}, EnvNVRTC
	}
	if glob == nil {
		glob = func(string) ([]string, error) { return nil, nil }
	}
	if hostOS == "windows" {
		return windowsNVRTCCandidates(lookup, glob, goarch, preferMajor), ""
	}
	majors := majorOrder(preferMajor)
	var out []string
	for _, m := range majors {
		out = append(out, "libnvrtc.so."+m)
	}
	out = append(out, "libnvrtc.so")
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := envValue(lookup, env); v != "" {
			v = strings.TrimRight(v, "/")
			dirs = append(dirs, v+"/lib64", v+"/"+cudaTargetDir(goarch))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64", "/usr/local/cuda/"+cudaTargetDir(goarch))
	if m, _ := glob("/usr/local/cuda-*/lib64"); len(m) > 0 {
		for i := range m {
			m[i] = path.Dir(m[i])
		}
		newestFirst(m)
		for _, d := range m {
			dirs = append(dirs, d+"/lib64")
		}
	}
	for _, pat := range sitePackagePatterns(lookup) {
		sps, _ := glob(pat)
		sort.Strings(sps)
		for _, sp := range sps {
			dirs = append(dirs, sp+"/nvidia/cu13/lib", sp+"/nvidia/cuda_nvrtc/lib")
		}
	}
	out = append(out, inFolders(dirs, majors,
		func(dir, major string) string { return dir + "/libnvrtc.so." + major },
		glob, func(dir string) string { return dir + "/libnvrtc.so*" }, nil)...)
	return dedupe(out), ""
}

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// dlopenFirst tries the candidates in order and returns the first one that
// loads. Paths that do not exist are skipped cheaply (but still listed as
// tried); bare names go to the system loader's own search.
func dlopenFirst(library, env string, candidates []string) (string, uintptr, error) {
	if !canLoadCUDA {
		return "", 0, &NotFoundError{Library: library, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	}
	saveSignalActions() // before any CUDA library can touch a handler
	nf := &NotFoundError{Library: library, Env: env}
	for _, c := range candidates {
		nf.Tried = append(nf.Tried, c)
		if isPath(c) {
			if _, err := os.Stat(c); err != nil {
				nf.Errs = append(nf.Errs, err)
				continue
			}
		}
		h, err := openLibrary(c)
		if err == nil {
			return c, h, nil
		}
		nf.Errs = append(nf.Errs, err)
	}
	return "", 0, nf
}

// isPath reports whether a candidate names a file (rather than a soname or
// DLL name for the system loader to search for): it has a separator of
// either platform in it.
func isPath(c string) bool { return strings.ContainsAny(c, `/\`) }

// dlsym resolves name in handle, returning 0 when it is absent.
func dlsym(handle uintptr, name string) uintptr {
	if handle == 0 {
		return 0
	}
	return lookupSymbol(handle, name)
}

// DriverCandidates returns the driver library's search list for this
// process (for diagnostics, e.g. a "doctor" command); nil where CUDA cannot
// be loaded at all.
func DriverCandidates() []string {
	if !canLoadCUDA {
		return nil
	}
	c, _ := driverCandidates(os.LookupEnv, runtime.GOARCH)
	return c
}

// NVRTCCandidates returns the NVRTC search list for this process (for
// diagnostics); nil where CUDA cannot be loaded at all.
func NVRTCCandidates() []string {
	if !canLoadCUDA {
		return nil
	}
	c, _ := nvrtcCandidates(os.LookupEnv, filepath.Glob, runtime.GOARCH, driverMajor())
	return c
}
