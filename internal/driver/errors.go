package driver

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofused/softmax/internal/errs"
)

// Well-known CUresult codes (cuda.h, enum cudaError_enum). The names follow
// the C header so they can be looked up in the CUDA documentation.
const (
	CUDA_SUCCESS                              = 0
	CUDA_ERROR_INVALID_VALUE                  = 1
	CUDA_ERROR_OUT_OF_MEMORY                  = 2
	CUDA_ERROR_NOT_INITIALIZED                = 3
	CUDA_ERROR_DEINITIALIZED                  = 4
	CUDA_ERROR_STUB_LIBRARY                   = 34
	CUDA_ERROR_INSUFFICIENT_DRIVER            = 35
	CUDA_ERROR_DEVICE_UNAVAILABLE             = 46
	CUDA_ERROR_NO_DEVICE                      = 100
	CUDA_ERROR_INVALID_DEVICE                 = 101
	CUDA_ERROR_INVALID_IMAGE                  = 200
	CUDA_ERROR_INVALID_CONTEXT                = 201
	CUDA_ERROR_NO_BINARY_FOR_GPU              = 209
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION        = 222
	CUDA_ERROR_INVALID_HANDLE                 = 400
	CUDA_ERROR_NOT_FOUND                      = 500
	CUDA_ERROR_NOT_READY                      = 600
	CUDA_ERROR_ILLEGAL_ADDRESS                = 700
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES        = 701
	CUDA_ERROR_LAUNCH_TIMEOUT                 = 702
	CUDA_ERROR_MISALIGNED_ADDRESS             = 716
	CUDA_ERROR_LAUNCH_FAILED                  = 719
	CUDA_ERROR_NOT_PERMITTED                  = 800
	CUDA_ERROR_NOT_SUPPORTED                  = 801
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH         = 803
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804
	CUDA_ERROR_INVALID_CLUSTER_SIZE           = 912
	CUDA_ERROR_UNKNOWN                        = 999
)

// nvrtcResult codes (nvrtc.h).
const (
	NVRTC_SUCCESS                                     = 0
	NVRTC_ERROR_OUT_OF_MEMORY                         = 1
	NVRTC_ERROR_PROGRAM_CREATION_FAILURE              = 2
	NVRTC_ERROR_INVALID_INPUT                         = 3
	NVRTC_ERROR_INVALID_PROGRAM                       = 4
	NVRTC_ERROR_INVALID_OPTION                        = 5
	NVRTC_ERROR_COMPILATION                           = 6
	NVRTC_ERROR_BUILTIN_OPERATION_FAILURE             = 7
	NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8
	NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION   = 9
	NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID             = 10
	NVRTC_ERROR_INTERNAL_ERROR                        = 11
)

// cuResultNames is the fallback used when cuGetErrorName is not available
// (no driver loaded, or the driver does not know the code).
var cuResultNames = map[int]string{
	CUDA_SUCCESS:                              "CUDA_SUCCESS",
	CUDA_ERROR_INVALID_VALUE:                  "CUDA_ERROR_INVALID_VALUE",
	CUDA_ERROR_OUT_OF_MEMORY:                  "CUDA_ERROR_OUT_OF_MEMORY",
	CUDA_ERROR_NOT_INITIALIZED:                "CUDA_ERROR_NOT_INITIALIZED",
	CUDA_ERROR_DEINITIALIZED:                  "CUDA_ERROR_DEINITIALIZED",
	CUDA_ERROR_STUB_LIBRARY:                   "CUDA_ERROR_STUB_LIBRARY",
	CUDA_ERROR_INSUFFICIENT_DRIVER:            "CUDA_ERROR_INSUFFICIENT_DRIVER",
	CUDA_ERROR_DEVICE_UNAVAILABLE:             "CUDA_ERROR_DEVICE_UNAVAILABLE",
	CUDA_ERROR_NO_DEVICE:                      "CUDA_ERROR_NO_DEVICE",
	CUDA_ERROR_INVALID_DEVICE:                 "CUDA_ERROR_INVALID_DEVICE",
	CUDA_ERROR_INVALID_IMAGE:                  "CUDA_ERROR_INVALID_IMAGE",
	CUDA_ERROR_INVALID_CONTEXT:                "CUDA_ERROR_INVALID_CONTEXT",
	CUDA_ERROR_NO_BINARY_FOR_GPU:              "CUDA_ERROR_NO_BINARY_FOR_GPU",
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION:        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	CUDA_ERROR_INVALID_HANDLE:                 "CUDA_ERROR_INVALID_HANDLE",
	CUDA_ERROR_NOT_FOUND:                      "CUDA_ERROR_NOT_FOUND",
	CUDA_ERROR_NOT_READY:                      "CUDA_ERROR_NOT_READY",
	CUDA_ERROR_ILLEGAL_ADDRESS:                "CUDA_ERROR_ILLEGAL_ADDRESS",
	CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	CUDA_ERROR_LAUNCH_TIMEOUT:                 "CUDA_ERROR_LAUNCH_TIMEOUT",
	CUDA_ERROR_MISALIGNED_ADDRESS:             "CUDA_ERROR_MISALIGNED_ADDRESS",
	CUDA_ERROR_LAUNCH_FAILED:                  "CUDA_ERROR_LAUNCH_FAILED",
	CUDA_ERROR_NOT_PERMITTED:                  "CUDA_ERROR_NOT_PERMITTED",
	CUDA_ERROR_NOT_SUPPORTED:                  "CUDA_ERROR_NOT_SUPPORTED",
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:         "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
	CUDA_ERROR_INVALID_CLUSTER_SIZE:           "CUDA_ERROR_INVALID_CLUSTER_SIZE",
	CUDA_ERROR_UNKNOWN:                        "CUDA_ERROR_UNKNOWN",
}

var nvrtcResultNames = map[int]string{
	NVRTC_SUCCESS:                                     "NVRTC_SUCCESS",
	NVRTC_ERROR_OUT_OF_MEMORY:                         "NVRTC_ERROR_OUT_OF_MEMORY",
	NVRTC_ERROR_PROGRAM_CREATION_FAILURE:              "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
	NVRTC_ERROR_INVALID_INPUT:                         "NVRTC_ERROR_INVALID_INPUT",
	NVRTC_ERROR_INVALID_PROGRAM:                       "NVRTC_ERROR_INVALID_PROGRAM",
	NVRTC_ERROR_INVALID_OPTION:                        "NVRTC_ERROR_INVALID_OPTION",
	NVRTC_ERROR_COMPILATION:                           "NVRTC_ERROR_COMPILATION",
	NVRTC_ERROR_BUILTIN_OPERATION_FAILURE:             "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
	NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION: "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
	NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION:   "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
	NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID:             "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
	NVRTC_ERROR_INTERNAL_ERROR:                        "NVRTC_ERROR_INTERNAL_ERROR",
}

// Error is a failed CUDA driver call: a CUresult other than CUDA_SUCCESS.
//
// Its message reads like "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of
// memory)". Name and Desc come from cuGetErrorName and cuGetErrorString when
// the driver is loaded, otherwise from a built-in table ("CUresult(N)" for a
// code the table does not know, with Desc empty).
type Error struct {
	Op   string // the driver entry point, e.g. "cuMemAlloc_v2"
	Code int    // the CUresult value
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Desc string // e.g. "out of memory"; may be empty
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Name)
	if e.Desc != "" {
		b.WriteString(" (")
		b.WriteString(e.Desc)
		b.WriteString(")")
	}
	return b.String()
}

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &driver.Error{Code: driver.CUDA_ERROR_OUT_OF_MEMORY}) works,
// or softmax.ErrNoGPU for the codes IsNoGPU accepts (no device, a stub
// library).
func (e *Error) Is(target error) bool {
	if target == errs.ErrNoGPU {
		return e.Code == CUDA_ERROR_NO_DEVICE || e.Code == CUDA_ERROR_STUB_LIBRARY
	}
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Is matches softmax.ErrNoGPU when the driver library is missing,
// softmax.ErrNoNCCL when NCCL is and softmax.ErrNoNVRTC when NVRTC is.
func (e *NotFoundError) Is(target error) bool {
	switch e.Library {
	case libcudaName:
		return target == errs.ErrNoGPU
	case libncclName:
		return target == errs.ErrNoNCCL
	}
	return target == errs.ErrNoNVRTC
}

// NewError builds an *Error for a CUresult without consulting the driver
// (names come from the built-in table). It is meant for tests and for
// layers that synthesise driver errors.
func NewError(op string, code int) *Error {
	return (*API)(nil).newError(op, code)
}

// fallbackCUName returns the built-in name of a CUresult.
func fallbackCUName(code int) string {
	if n, ok := cuResultNames[code]; ok {
		return n
	}
	return fmt.Sprintf("CUresult(%d)", code)
}

// NVRTCError is a failed NVRTC call. For nvrtcCompileProgram, Log holds the
// compiler output and is appended to the message.
type NVRTCError struct {
	Op   string // e.g. "nvrtcCompileProgram"
	Code int    // the nvrtcResult value
	Name string // from nvrtcGetErrorString, e.g. "NVRTC_ERROR_COMPILATION"
	Log  string // program log, if any
}

// Error implements the error interface.
func (e *NVRTCError) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Name)
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString("\n")
		b.WriteString(log)
	}
	return b.String()
}

// Is reports whether target is an *NVRTCError with the same Code.
func (e *NVRTCError) Is(target error) bool {
	t, ok := target.(*NVRTCError)
	return ok && t.Code == e.Code
}

func fallbackNVRTCName(code int) string {
	if n, ok := nvrtcResultNames[code]; ok {
		return n
	}
	return fmt.Sprintf("nvrtcResult(%d)", code)
}

// SymbolError reports a driver or NVRTC entry point that the loaded library
// does not export (for example cuLaunchKernelEx on a driver older than CUDA
// 11.8). It is returned by the wrapper that needs the symbol, when called.
type SymbolError struct {
	Library string // path or soname of the loaded library
	Symbol  string // the missing entry point
	Version int    // driver or NVRTC version (1000*major + 10*minor), 0 if unknown
}

// Error implements the error interface.
func (e *SymbolError) Error() string {
	if e.Version > 0 {
		return fmt.Sprintf("%s: not available in %s (version %d.%d)", e.Symbol, e.Library, e.Version/1000, e.Version%1000/10)
	}
	return fmt.Sprintf("%s: not available in %s", e.Symbol, e.Library)
}

// ErrorCode returns the CUresult carried by err (anywhere in its chain) and
// true, or 0 and false when err is not a driver *Error.
func ErrorCode(err error) (int, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// IsCode reports whether err is a driver *Error with the given CUresult.
func IsCode(err error, code int) bool {
	c, ok := ErrorCode(err)
	return ok && c == code
}

// IsOutOfMemory reports whether err is CUDA_ERROR_OUT_OF_MEMORY.
func IsOutOfMemory(err error) bool { return IsCode(err, CUDA_ERROR_OUT_OF_MEMORY) }

// IsNotFound reports whether err is a *NotFoundError (libcuda or NVRTC is
// not installed).
func IsNotFound(err error) bool {
	var e *NotFoundError
	return errors.As(err, &e)
}

// IsNoGPU reports whether err means "there is no usable GPU here": the
// driver library is missing, is a stub, or finds no device.
func IsNoGPU(err error) bool {
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nf.Library == libcudaName
	}
	return IsCode(err, CUDA_ERROR_NO_DEVICE) || IsCode(err, CUDA_ERROR_STUB_LIBRARY)
}
