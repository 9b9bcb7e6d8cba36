package vec

import (
	"fmt"
	"os"
)

//go:generate go run ./asmgen -out kernels_amd64.s -stubs stubs_amd64.go -pkg vec
//go:generate go run ./neongen -out kernels_arm64.s -stubs stubs_arm64.go

// EnvKernels names the environment variable that picks the kernel set at
// start-up: "go", "avx2", "avx512" or "neon". A set the CPU cannot run, or any other
// value, is ignored and the fastest available set is used.
const EnvKernels = "SOFTMAX_CPU_KERNELS"

// kernelSet is one complete implementation of the kernel table.
type kernelSet struct {
	name                 string
	maxSum               func(x []float32, scale float32) (m, d float32)
	expScale             func(dst, x []float32, scale, m, mul float32)
	logOut               func(dst, x []float32, scale, sub float32)
	dot                  func(a, b []float32) float32
	sum                  func(a []float32) float32
	softmaxGrad          func(dx, y, dy []float32, s float32)
	logSoftmaxGrad       func(dx, y, dy []float32, s float32)
	onlineUpdate         func(m, d, x []float32, scale float32)
	expScaleLanes        func(dst, x, m, mul []float32, scale float32)
	logOutLanes          func(dst, x, sub []float32, scale float32)
	mulAdd               func(acc, a, b []float32)
	add                  func(acc, a []float32)
	softmaxGradLanes     func(dx, y, dy, s []float32)
	logSoftmaxGradLanes  func(dx, y, dy, s []float32)
	f16ToF32             func(dst []float32, src []uint16)
	f32ToF16             func(dst []uint16, src []float32)
	bf16ToF32            func(dst []float32, src []uint16)
	f32ToBF16            func(dst []uint16, src []float32)
	f32ToF16Stream       func(dst []uint16, src []float32)
	f32ToBF16Stream      func(dst []uint16, src []float32)
	maxOf                func(x []float32, scale float32) float32
	expSum               func(dst, x, next []float32, scale, m float32) float32
	normalize            func(dst, x []float32, k float32)
	normalizeStream      func(dst, x []float32, k float32)
	expScaleStream       func(dst, x []float32, scale, m, mul float32)
	fence                func()
	maxLanes             func(m, x []float32, scale float32)
	expSumLanes          func(dst, d, x, m, next []float32, scale float32)
	normalizeLanes       func(dst, x, k []float32)
	normalizeLanesStream func(dst, x, k []float32)
	expScaleLanesStream  func(dst, x, m, mul []float32, scale float32)
	expScaleLanesAhead   func(dst, x, m, mul, next []float32, scale float32) // nil: expScaleLanesStream
	expSumFlush          func(dst, x, next, out, in []float32, scale, m, k float32) float32
	expAddLanes          func(d, x, m, next []float32, scale float32)
	logNorm              func(dst, x []float32, scale, m, logd float32)
	logNormStream        func(dst, x []float32, scale, m, logd float32)
	logNormLanes         func(dst, x, m, logd []float32, scale float32)
	logNormLanesStream   func(dst, x, m, logd []float32, scale float32)
	recipLanes           func(dst, d []float32)
	logLanes             func(dst, d []float32)
	softcap              func(dst, dz, x []float32, capv, inv, s2 float32)
	f64                  *kernels64 // nil: the pure-Go twins (goSet64)
}

// goSet is the pure-Go twins.
var goSet = &kernelSet{
	name:                 "go",
	maxSum:               maxSumGeneric,
	expScale:             expScaleGeneric,
	logOut:               logOutGeneric,
	dot:                  dotGeneric,
	sum:                  sumGeneric,
	softmaxGrad:          softmaxGradGeneric,
	logSoftmaxGrad:       logSoftmaxGradGeneric,
	onlineUpdate:         onlineUpdateGeneric,
	expScaleLanes:        expScaleLanesGeneric,
	logOutLanes:          logOutLanesGeneric,
	mulAdd:               mulAddGeneric,
	add:                  addGeneric,
	softmaxGradLanes:     softmaxGradLanesGeneric,
	logSoftmaxGradLanes:  logSoftmaxGradLanesGeneric,
	f16ToF32:             f16ToF32Generic,
	f32ToF16:             f32ToF16Generic,
	bf16ToF32:            bf16ToF32Generic,
	f32ToBF16:            f32ToBF16Generic,
	f32ToF16Stream:       f32ToF16Generic,
	f32ToBF16Stream:      f32ToBF16Generic,
	maxOf:                maxOfGeneric,
	expSum:               expSumGeneric,
	normalize:            normalizeGeneric,
	normalizeStream:      normalizeGeneric, // Go has no non-temporal stores
	expScaleStream:       expScaleGeneric,
	fence:                func() {},
	maxLanes:             maxLanesGeneric,
	expSumLanes:          expSumLanesGeneric,
	normalizeLanes:       normalizeLanesGeneric,
	normalizeLanesStream: normalizeLanesGeneric,
	expScaleLanesStream:  expScaleLanesGeneric,
	expSumFlush:          expSumFlushGeneric,
	expAddLanes:          expAddLanesGeneric,
	logNorm:              logNormGeneric,
	logNormStream:        logNormGeneric,
	logNormLanes:         logNormLanesGeneric,
	logNormLanesStream:   logNormLanesGeneric,
	recipLanes:           recipLanesGeneric,
	logLanes:             logLanesGeneric,
	softcap:              softcapGeneric,
	f64:                  goSet64,
}

// sets lists the kernel sets this CPU can run, "go" first and the fastest
// last; asmSets (dispatch_amd64.go, dispatch_other.go) adds the assembly
// sets the CPU supports.
var sets = append([]*kernelSet{goSet}, asmSets()...)

func init() {
	best := sets[len(sets)-1]
	if want := os.Getenv(EnvKernels); want != "" {
		if s := findSet(want); s != nil {
			best = s
		}
	}
	best.install()
}

func findSet(name string) *kernelSet {
	for _, s := range sets {
		if s.name == name {
			return s
		}
	}
	return nil
}

// install makes s the kernel table.
func (s *kernelSet) install() {
	impl = s.name
	maxSum = s.maxSum
	expScale = s.expScale
	logOut = s.logOut
	dot = s.dot
	sum = s.sum
	softmaxGrad = s.softmaxGrad
	logSoftmaxGrad = s.logSoftmaxGrad
	onlineUpdate = s.onlineUpdate
	expScaleLanes = s.expScaleLanes
	logOutLanes = s.logOutLanes
	mulAdd = s.mulAdd
	add = s.add
	softmaxGradLanes = s.softmaxGradLanes
	logSoftmaxGradLanes = s.logSoftmaxGradLanes
	f16ToF32 = s.f16ToF32
	f32ToF16 = s.f32ToF16
	bf16ToF32 = s.bf16ToF32
	f32ToBF16 = s.f32ToBF16
	f32ToF16Stream = s.f32ToF16Stream
	f32ToBF16Stream = s.f32ToBF16Stream
	maxOf = s.maxOf
	expSum = s.expSum
	normalize = s.normalize
	normalizeStream = s.normalizeStream
	expScaleStream = s.expScaleStream
	fence = s.fence
	maxLanes = s.maxLanes
	expSumLanes = s.expSumLanes
	normalizeLanes = s.normalizeLanes
	normalizeLanesStream = s.normalizeLanesStream
	expScaleLanesStream = s.expScaleLanesStream
	expScaleLanesAhead = s.expScaleLanesAhead
	if expScaleLanesAhead == nil {
		stream := s.expScaleLanesStream
		expScaleLanesAhead = func(dst, x, m, mul, _ []float32, scale float32) { stream(dst, x, m, mul, scale) }
	}
	expSumFlush = s.expSumFlush
	expAddLanes = s.expAddLanes
	logNorm = s.logNorm
	logNormStream = s.logNormStream
	logNormLanes = s.logNormLanes
	logNormLanesStream = s.logNormLanesStream
	recipLanes = s.recipLanes
	softcap = s.softcap
	logLanes = s.logLanes
	if s.f64 != nil {
		k64 = *s.f64
	} else {
		k64 = *goSet64
	}
}

// Impls lists the kernel sets this CPU can run, "go" first and the fastest
// last. Without EnvKernels the last one is in use.
func Impls() []string {
	names := make([]string, len(sets))
	for i, s := range sets {
		names[i] = s.name
	}
	return names
}

// UseImpl switches every kernel to the named set (one of Impls) and returns
// the name of the previous one. It is meant for tests and benchmarks: it
// must not run concurrently with kernel calls.
func UseImpl(name string) (prev string, err error) {
	s := findSet(name)
	if s == nil {
		return impl, fmt.Errorf("vec: kernel set %q not available on this CPU (have %v)", name, Impls())
	}
	prev = impl
	s.install()
	return prev, nil
}
