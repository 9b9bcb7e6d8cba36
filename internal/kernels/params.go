package kernels

import "unsafe"

// Params mirrors smx::Params in common.cuh, the single by-value parameter of
// every kernel. The layout (offsets in the comment there, size 96, align 8)
// is checked by TestParamsLayout.
type Params struct {
	X     uintptr // forward: input; backward: forward output y
	Y     uintptr // forward: y; backward: dx
	Outer int64
	Axis  int64
	Scale float32 // softmax(Scale·x); backward multiplies dx by it
	Log   int32   // 1: log_softmax or its gradient
	Split int32   // chunks per slice; else 1
	Vec   int32   // 1: 16-byte vector path allowed
	DY    uintptr // backward: incoming gradient; else 0
	WS    uintptr // float workspace for split strategies; else 0
	Inner int64
	Chunk int64   // axis elements per split chunk; else 0
	Bar   uintptr // barrier words, one per row of a wave (split_grid); else 0
	// Scale64 is Scale in double, which float64 kernels use (float32(Scale)
	// would put a 1e-8 relative error into every logit).
	Scale64 float64
}

// ParamsSize is sizeof(smx::Params).
const ParamsSize = unsafe.Sizeof(Params{})
