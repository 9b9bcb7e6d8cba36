package softmax

import "github.com/gofused/softmax/internal/errs"

// Sentinel errors. Every error of this package and of package cuda that
// falls in one of these classes wraps it, so callers can test the class
// with errors.Is; the message itself names the problem.
var (
	// ErrBadShape: a negative dimension, an element count that overflows,
	// or a tensor whose shape or length does not match the call's.
	ErrBadShape = errs.ErrBadShape
	// ErrBadAxis: an axis out of range for the shape.
	ErrBadAxis = errs.ErrBadAxis
	// ErrBadDType: an unknown dtype, tensors of different dtypes, or a
	// dtype the backend cannot compute.
	ErrBadDType = errs.ErrBadDType
	// ErrBadOp: an unknown op, or a forward op where a backward one is
	// wanted (or the reverse).
	ErrBadOp = errs.ErrBadOp
	// ErrBadScale: Options.Scale is NaN or ±Inf.
	ErrBadScale = errs.ErrBadScale
	// ErrOverlap: an output partially overlaps an input (exact in-place
	// use is allowed).
	ErrOverlap = errs.ErrOverlap
	// ErrTooLarge: a shape whose bytes exceed the memory this process can
	// have (the cgroup limit, else physical memory; the environment
	// variable SOFTMAX_MEMORY_LIMIT, in bytes, overrides both).
	ErrTooLarge = errs.ErrTooLarge
	// ErrNoGPU: no usable CUDA driver or device (package cuda).
	ErrNoGPU = errs.ErrNoGPU
	// ErrNoNVRTC: the NVRTC library, which compiles the GPU kernels, is
	// not installed (package cuda).
	ErrNoNVRTC = errs.ErrNoNVRTC
	// ErrNoNCCL: the NCCL library, needed by multi-GPU calls, is not
	// installed, or the platform has none.
	ErrNoNCCL = errs.ErrNoNCCL
	// ErrBadTarget: a cross-entropy target outside [0, V) that is not the
	// ignore index, or a target list whose length is not the row count.
	ErrBadTarget = errs.ErrBadTarget
	// ErrBadOption: a cross-entropy option out of its domain (label
	// smoothing outside [0, 1], a non-finite or negative coefficient,
	// weights of the wrong length, an unknown reduction).
	ErrBadOption = errs.ErrBadOption
)
