// Package softmax computes softmax, log-softmax and their gradients along any
// axis of an N-d tensor, with PyTorch's softmax(scale·x, dim) semantics, as
// fast as the hardware allows.
//
// CrossEntropy fuses torch's F.cross_entropy (with z-loss, softcap and
// scale) and its gradient into one pass over the logits;
// CrossEntropyBackward, TargetLogProbs and LogSumExp complete it.
//
// This package is the CPU backend and the shared vocabulary: dtypes
// (float32, float16, bfloat16 storage with float32 arithmetic; float64
// storage and arithmetic, on the CPU only so far), ops, options and the
// Tensor type. It runs on every machine, in parallel across GOMAXPROCS
// goroutines with SIMD kernels where the CPU has them. The cuda package runs
// the same operations on NVIDIA GPUs.
//
// Semantics, for every backend:
//   - the max of each slice is subtracted first, so finite inputs never overflow;
//   - −∞ entries give 0 (log-softmax: −∞); a slice of only −∞ gives NaN;
//   - a NaN or +∞ anywhere in a slice makes the whole slice NaN;
//   - zero-size tensors and zero-length axes are valid no-ops;
//   - backward ops apply the scale too: dx = s·y·(dy − Σ dy·y) for softmax,
//     dx = s·(dy − exp(y)·Σ dy) for log-softmax, the gradient of the
//     forward of s·x with respect to x;
//   - dst may be src itself, and dx may be y or dy itself (in place); any
//     other overlap is an error.
//
// Every bad call returns an error naming the problem, and nothing is written;
// errors.Is tells its class (ErrBadShape, ErrBadAxis, ErrBadDType, ErrBadOp,
// ErrBadScale, ErrOverlap, ErrTooLarge, ErrBadTarget, ErrBadOption; from package cuda also ErrNoGPU and
// ErrNoNVRTC).
package softmax
