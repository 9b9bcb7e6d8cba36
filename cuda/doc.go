// Package cuda runs the softmax operations of package softmax on NVIDIA GPUs.
//
// No cgo and no CUDA toolkit at build time: the driver (libcuda.so.1) and
// NVRTC are opened at run time, the kernels (CUDA C embedded in the binary)
// are compiled for the device's exact architecture, each alone on its first
// use (0.6 s on average on an H100 host), and cached on disk. Open returns a
// clear error when either library is missing, so callers can fall back to
// the CPU backend.
//
// A Device holds the primary context of one GPU. Buffers are device memory
// (allocated here, or wrapped pointers of another library); a Tensor is a
// shape and dtype over a buffer; Streams order work, and a nil *Stream is
// the default stream. Every method may be called from any goroutine.
//
// Apply computes softmax or log_softmax of Options.Scale·x; ApplyBackward
// their gradients with respect to that x from the forward output y and the
// incoming gradient dy (the scale applied to dx). Outputs may be an input
// itself (dx may be y or dy); a partial overlap is an error.
//
// For each call a planner picks the kernel strategy and launch configuration
// from the shape, dtype and device properties (Options.Algo forces one;
// Options.Tuned consults the autotuning cache written by `softmax tune`).
// Plans and the driver's occupancy answers are cached per Device, so only
// a problem's first call pays for planning.
//
// CrossEntropy, CrossEntropyBackward, LogSumExp and TargetLogProbs are the
// fused losses. A Comm is one rank of an NCCL communicator (OpenComms,
// JoinComm; libnccl opened at run time too): its methods compute softmax,
// log-sum-exp, their gradients and cross-entropy over a class axis split
// across the ranks, one collective a call (docs/multi-gpu.md).
package cuda
