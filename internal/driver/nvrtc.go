package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"unsafe"
)

type nvrtcSym int

const (
	nvSymVersion nvrtcSym = iota
	nvSymCreateProgram
	nvSymCompileProgram
	nvSymGetProgramLogSize
	nvSymGetProgramLog
	nvSymGetCUBINSize
	nvSymGetCUBIN
	nvSymDestroyProgram
	nvSymGetNumSupportedArchs
	nvSymGetSupportedArchs
	nvSymGetErrorString
	numNvrtcSyms
)

var nvrtcSymNames = [numNvrtcSyms]string{
	nvSymVersion:              "nvrtcVersion",
	nvSymCreateProgram:        "nvrtcCreateProgram",
	nvSymCompileProgram:       "nvrtcCompileProgram",
	nvSymGetProgramLogSize:    "nvrtcGetProgramLogSize",
	nvSymGetProgramLog:        "nvrtcGetProgramLog",
	nvSymGetCUBINSize:         "nvrtcGetCUBINSize",
	nvSymGetCUBIN:             "nvrtcGetCUBIN",
	nvSymDestroyProgram:       "nvrtcDestroyProgram",
	nvSymGetNumSupportedArchs: "nvrtcGetNumSupportedArchs",
	nvSymGetSupportedArchs:    "nvrtcGetSupportedArchs",
	nvSymGetErrorString:       "nvrtcGetErrorString",
}

// requiredNvrtc are the entry points without which NVRTC is unusable.
var requiredNvrtc = []nvrtcSym{
	nvSymVersion, nvSymCreateProgram, nvSymCompileProgram,
	nvSymGetProgramLogSize, nvSymGetProgramLog, nvSymDestroyProgram,
}

// NVRTC is a loaded NVRTC library. It is immutable and safe for concurrent
// use; NVRTC itself compiles distinct programs concurrently.
type NVRTC struct {
	path         string
	handle       uintptr
	fns          [numNvrtcSyms]uintptr
	major, minor int
}

var (
	nvrtcOnce sync.Once
	nvrtcLib  *NVRTC
	nvrtcErr  error
)

// OpenNVRTC loads NVRTC once per process and returns it, or the first error
// (a *NotFoundError when no candidate loads). NVRTC does not need a GPU.
//
// The search order is: $SOFTMAX_NVRTC (alone, when set); the sonames
// libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so; $CUDA_HOME and $CUDA_PATH;
// /usr/local/cuda; Python wheel folders (see NVRTCCandidates).
//
// When the driver can be opened, the NVRTC whose major version matches the
// driver's is preferred (a CUDA 13 CUBIN does not load on a CUDA 12 driver).
func OpenNVRTC() (*NVRTC, error) {
	nvrtcOnce.Do(func() {
		nvrtcLib, nvrtcErr = loadNVRTC(os.LookupEnv, filepath.Glob, runtime.GOARCH, driverMajor())
	})
	return nvrtcLib, nvrtcErr
}

// driverMajor is the CUDA major version of the driver, 0 when there is none.
func driverMajor() int {
	if a, err := Open(); err == nil {
		return a.Version() / 1000
	}
	return 0
}

func loadNVRTC(lookup lookupFunc, glob globFunc, goarch string, preferMajor int) (*NVRTC, error) {
	cands, env := nvrtcCandidates(lookup, glob, goarch, preferMajor)
	path, h, err := dlopenFirst(libnvrtc, env, cands)
	keepSignalStacks()
	if err != nil {
		return nil, err
	}
	n := &NVRTC{path: path, handle: h}
	for i, name := range nvrtcSymNames {
		n.fns[i] = dlsym(h, name)
	}
	for _, s := range requiredNvrtc {
		if n.fns[s] == 0 {
			return nil, fmt.Errorf("%s does not look like NVRTC: %w", path, n.missing(s))
		}
	}
	nvrtcLoaded(path)
	var major, minor int32
	if err := n.call(nvSymVersion, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))); err != nil {
		return nil, err
	}
	n.major, n.minor = int(major), int(minor)
	return n, nil
}

// Path returns the file or soname NVRTC was loaded from.
func (n *NVRTC) Path() string { return n.path }

// Version returns NVRTC's CUDA version (nvrtcVersion).
func (n *NVRTC) Version() (major, minor int) { return n.major, n.minor }

func (n *NVRTC) missing(s nvrtcSym) error {
	return &SymbolError{Library: n.path, Symbol: nvrtcSymNames[s], Version: 1000*n.major + 10*n.minor}
}

// call invokes an NVRTC entry point and converts its nvrtcResult; see
// API.call for the //go:uintptrescapes guarantee.
//
//go:uintptrescapes
func (n *NVRTC) call(s nvrtcSym, args ...uintptr) error {
	fn := n.fns[s]
	if fn == 0 {
		return n.missing(s)
	}
	r := callC(fn, args...)
	if code := int(int32(uint32(r))); code != NVRTC_SUCCESS {
		return n.newError(nvrtcSymNames[s], code)
	}
	return nil
}

func (n *NVRTC) newError(op string, code int) *NVRTCError {
	e := &NVRTCError{Op: op, Code: code}
	if n != nil && n.fns[nvSymGetErrorString] != 0 {
		// nvrtcGetErrorString returns a pointer to a static string.
		r := callC(n.fns[nvSymGetErrorString], uintptr(int32(code)))
		e.Name = goString(*(**byte)(unsafe.Pointer(&r)))
	}
	if e.Name == "" {
		e.Name = fallbackNVRTCName(code)
	}
	return e
}

// SupportedArchs returns the SM versions NVRTC can generate code for (e.g.
// 75, 80, 86, 89, 90, ...), via nvrtcGetSupportedArchs (CUDA 11.2+).
func (n *NVRTC) SupportedArchs() ([]int, error) {
	var cnt int32
	if err := n.call(nvSymGetNumSupportedArchs, uintptr(unsafe.Pointer(&cnt))); err != nil {
		return nil, err
	}
	if cnt <= 0 {
		return nil, nil
	}
	archs := make([]int32, cnt)
	if err := n.call(nvSymGetSupportedArchs, uintptr(unsafe.Pointer(&archs[0]))); err != nil {
		return nil, err
	}
	out := make([]int, len(archs))
	for i, a := range archs {
		out[i] = int(a)
	}
	return out, nil
}

// ArchFor returns the NVRTC architecture ("sm_XY") to compile for a device
// of compute capability major.minor: the device's own architecture if this
// NVRTC supports it, else the newest supported one with the same major and a
// lower minor (SASS runs on later minors of the same major). It fails when
// NVRTC is too old for the device.
func (n *NVRTC) ArchFor(major, minor int) (string, error) {
	archs, err := n.SupportedArchs()
	if err != nil {
		return "", err
	}
	a, ok := pickArch(archs, major, minor)
	if !ok {
		return "", fmt.Errorf("NVRTC %d.%d (%s) cannot generate code for sm_%d%d (supported: %v)",
			n.major, n.minor, n.path, major, minor, archs)
	}
	return a, nil
}

func pickArch(supported []int, major, minor int) (string, bool) {
	want := major*10 + minor
	best := -1
	for _, a := range supported {
		if a/10 == major && a <= want && a > best {
			best = a
		}
	}
	if best < 0 {
		return "", false
	}
	return fmt.Sprintf("sm_%d", best), true
}

// cStringArray converts ss to a C char*[] whose strings and array are pinned
// (the array is Go memory holding Go pointers). It returns nil for no
// strings.
func cStringArray(p *runtime.Pinner, ss []string) unsafe.Pointer {
	if len(ss) == 0 {
		return nil
	}
	ptrs := make([]*byte, len(ss))
	for i, s := range ss {
		b := cString(s)
		p.Pin(&b[0])
		ptrs[i] = &b[0]
	}
	p.Pin(&ptrs[0])
	return unsafe.Pointer(&ptrs[0])
}

// Compile compiles CUDA C++ source to a CUBIN. name is the program name used
// in diagnostics; headers maps include names (as written in #include "...")
// to their contents; opts are NVRTC options, which must select a real
// architecture (--gpu-architecture=sm_XY) for a CUBIN to be produced.
//
// The log (warnings, or errors) is returned in every case. On a compile
// failure err is an *NVRTCError whose message includes the log.
//
// All strings are passed to NVRTC as NUL-terminated byte slices that stay
// pinned for the duration of each call.
func (n *NVRTC) Compile(src, name string, headers map[string]string, opts []string) (cubin []byte, log string, err error) {
	if n.fns[nvSymGetCUBINSize] == 0 || n.fns[nvSymGetCUBIN] == 0 {
		return nil, "", n.missing(nvSymGetCUBIN)
	}
	names := make([]string, 0, len(headers))
	for k := range headers {
		names = append(names, k)
	}
	sort.Strings(names)
	contents := make([]string, len(names))
	for i, k := range names {
		contents[i] = headers[k]
	}

	var pin runtime.Pinner
	defer pin.Unpin()
	csrc := cString(src)
	cname := cString(name)
	hdrs := cStringArray(&pin, contents)
	incs := cStringArray(&pin, names)
	copts := cStringArray(&pin, opts)

	var prog uintptr
	if err := n.call(nvSymCreateProgram, uintptr(unsafe.Pointer(&prog)),
		uintptr(unsafe.Pointer(&csrc[0])), uintptr(unsafe.Pointer(&cname[0])),
		uintptr(int32(len(names))), uintptr(hdrs), uintptr(incs)); err != nil {
		return nil, "", err
	}
	// A closure (not a deferred call with evaluated arguments) keeps prog
	// referenced until the destroy call runs.
	defer func() { _ = n.call(nvSymDestroyProgram, uintptr(unsafe.Pointer(&prog))) }()

	compileErr := n.call(nvSymCompileProgram, prog, uintptr(int32(len(opts))), uintptr(copts))
	keepSignalStacks()
	log, logErr := n.programLog(prog)
	if compileErr != nil {
		var ne *NVRTCError
		if errors.As(compileErr, &ne) {
			ne.Log = log
			if name != "" {
				ne.Op += "(" + name + ")"
			}
		}
		return nil, log, compileErr
	}
	if logErr != nil {
		return nil, "", logErr
	}

	var size uintptr
	if err := n.call(nvSymGetCUBINSize, prog, uintptr(unsafe.Pointer(&size))); err != nil {
		return nil, log, err
	}
	if size == 0 {
		return nil, log, fmt.Errorf("nvrtcGetCUBINSize: empty CUBIN (is the architecture virtual? use --gpu-architecture=sm_XY)")
	}
	cubin = make([]byte, size)
	if err := n.call(nvSymGetCUBIN, prog, uintptr(unsafe.Pointer(&cubin[0]))); err != nil {
		return nil, log, err
	}
	return cubin, log, nil
}

// programLog fetches the program log without its trailing NUL.
func (n *NVRTC) programLog(prog uintptr) (string, error) {
	var size uintptr
	if err := n.call(nvSymGetProgramLogSize, prog, uintptr(unsafe.Pointer(&size))); err != nil {
		return "", err
	}
	if size <= 1 {
		return "", nil
	}
	buf := make([]byte, size)
	if err := n.call(nvSymGetProgramLog, prog, uintptr(unsafe.Pointer(&buf[0]))); err != nil {
		return "", err
	}
	for i, c := range buf {
		if c == 0 {
			buf = buf[:i]
			break
		}
	}
	return string(buf), nil
}

// Compile compiles with the process-wide NVRTC (OpenNVRTC); see
// NVRTC.Compile.
func Compile(src, name string, headers map[string]string, opts []string) (cubin []byte, log string, err error) {
	n, err := OpenNVRTC()
	if err != nil {
		return nil, "", err
	}
	return n.Compile(src, name, headers, opts)
}
