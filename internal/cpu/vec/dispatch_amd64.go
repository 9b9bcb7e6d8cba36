//go:build amd64 && !purego

package vec

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// asmSets returns the assembly kernel sets this CPU supports, slowest first:
// "avx2" needs AVX2 and FMA (and F16C for the binary16 conversions, which
// otherwise stay pure Go); "avx512" also needs AVX-512 F, BW and VL, F16C
// and BMI2 (tail masks).
func asmSets() []*kernelSet {
	x := &cpu.X86
	var out []*kernelSet
	if !x.HasAVX2 || !x.HasFMA {
		return nil
	}
	avx2 := &kernelSet{
		name:                 "avx2",
		maxSum:               maxSumAVX2,
		expScale:             expScaleAVX2,
		logOut:               logOutAVX2,
		dot:                  dotAVX2,
		sum:                  sumAVX2,
		softmaxGrad:          softmaxGradAVX2,
		logSoftmaxGrad:       logSoftmaxGradAVX2,
		onlineUpdate:         onlineUpdateAVX2,
		expScaleLanes:        expScaleLanesAVX2,
		logOutLanes:          logOutLanesAVX2,
		mulAdd:               mulAddAVX2,
		add:                  addAVX2,
		softmaxGradLanes:     softmaxGradLanesAVX2,
		logSoftmaxGradLanes:  logSoftmaxGradLanesAVX2,
		f16ToF32:             f16ToF32Generic,
		f32ToF16:             f32ToF16Generic,
		bf16ToF32:            bf16ToF32AVX2,
		f32ToBF16:            f32ToBF16AVX2,
		f32ToF16Stream:       f32ToF16Generic,
		f32ToBF16Stream:      f32ToBF16StreamAVX2,
		maxOf:                maxOfAVX2,
		expSum:               expSumAVX2,
		normalize:            normalizeAVX2,
		normalizeStream:      normalizeStreamAVX2,
		expScaleStream:       expScaleStreamAVX2,
		fence:                fenceAVX2,
		maxLanes:             maxLanesAVX2,
		expSumLanes:          expSumLanesAVX2,
		normalizeLanes:       normalizeLanesAVX2,
		normalizeLanesStream: normalizeLanesStreamAVX2,
		expScaleLanesStream:  expScaleLanesStreamAVX2,
		expScaleLanesAhead:   expScaleLanesAheadAVX2,
		expAddLanes:          expAddLanesAVX2,
		expSumFlush:          expSumFlushSplitAVX2,
		logNorm:              logNormAVX2,
		logNormStream:        logNormStreamAVX2,
		logNormLanes:         logNormLanesAVX2,
		logNormLanesStream:   logNormLanesStreamAVX2,
		recipLanes:           recipLanesAVX2,
		logLanes:             logLanesAVX2,
		softcap:              softcapAVX2,
		f64:                  avx2F64,
	}
	if x.HasF16C {
		avx2.f16ToF32 = f16ToF32AVX2
		avx2.f32ToF16 = f32ToF16AVX2
		avx2.f32ToF16Stream = f32ToF16StreamAVX2
	}
	out = append(out, avx2)
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasF16C && x.HasBMI2 {
		out = append(out, &kernelSet{
			name:                 "avx512",
			maxSum:               maxSumAVX512,
			expScale:             expScaleAVX512,
			logOut:               logOutAVX512,
			dot:                  dotAVX512,
			sum:                  sumAVX512,
			softmaxGrad:          softmaxGradAVX512,
			logSoftmaxGrad:       logSoftmaxGradAVX512,
			onlineUpdate:         onlineUpdateAVX512,
			expScaleLanes:        expScaleLanesAVX512,
			logOutLanes:          logOutLanesAVX512,
			mulAdd:               mulAddAVX512,
			add:                  addAVX512,
			softmaxGradLanes:     softmaxGradLanesAVX512,
			logSoftmaxGradLanes:  logSoftmaxGradLanesAVX512,
			f16ToF32:             f16ToF32AVX512,
			f32ToF16:             f32ToF16AVX512,
			bf16ToF32:            bf16ToF32AVX512,
			f32ToBF16:            f32ToBF16AVX512,
			f32ToF16Stream:       f32ToF16StreamAVX512,
			f32ToBF16Stream:      f32ToBF16StreamAVX512,
			maxOf:                maxOfAVX512,
			expSum:               expSumAVX512,
			normalize:            normalizeAVX512,
			normalizeStream:      normalizeStreamAVX512,
			expScaleStream:       expScaleStreamAVX512,
			fence:                fenceAVX512,
			maxLanes:             maxLanesAVX512,
			expSumLanes:          expSumLanesAVX512,
			normalizeLanes:       normalizeLanesAVX512,
			normalizeLanesStream: normalizeLanesStreamAVX512,
			expScaleLanesStream:  expScaleLanesStreamAVX512,
			expScaleLanesAhead:   expScaleLanesAheadAVX512,
			expAddLanes:          expAddLanesAVX512,
			expSumFlush:          expSumFlushSplitAVX512,
			logNorm:              logNormAVX512,
			logNormStream:        logNormStreamAVX512,
			logNormLanes:         logNormLanesAVX512,
			logNormLanesStream:   logNormLanesStreamAVX512,
			recipLanes:           recipLanesAVX512,
			logLanes:             logLanesAVX512,
			softcap:              softcapAVX512,
			f64:                  avx512F64,
		})
	}
	return out
}

// alignHead returns how many elements of dst come before its first
// align-byte boundary (at most len(dst)): the non-temporal kernels store
// whole aligned vectors, so the wrappers below run those elements through
// the plain kernel.
func alignHead[T float32 | uint16 | float64](dst []T, align uintptr) int {
	if len(dst) == 0 {
		return 0
	}
	size := unsafe.Sizeof(dst[0])
	head := int((align - uintptr(unsafe.Pointer(&dst[0]))%align) % align / size)
	return min(head, len(dst))
}

// bySet returns the AVX-512 or AVX2 kernel of a pair, whichever set is in
// use, and that set's vector width in bytes (the alignment of its
// non-temporal stores); ok is false for the "go" set.
func bySet[F any](avx512, avx2 F) (kern F, width uintptr, ok bool) {
	switch impl {
	case "avx512":
		return avx512, 64, true
	case "avx2":
		return avx2, 32, true
	}
	return kern, 0, false
}

// stream16 runs a 16-bit stream conversion: the elements before dst's first
// 32-byte boundary through plain, the rest through nt, which stores whole
// aligned vectors.
func stream16(dst []uint16, src []float32, plain, nt func([]uint16, []float32)) {
	h := alignHead(dst, 32)
	plain(dst[:h], src[:h])
	nt(dst[h:], src[h:])
}

func f32ToF16StreamAVX2(dst []uint16, src []float32) {
	stream16(dst, src, f32ToF16AVX2, f32ToF16NTAVX2)
}

func f32ToF16StreamAVX512(dst []uint16, src []float32) {
	stream16(dst, src, f32ToF16AVX512, f32ToF16NTAVX512)
}

func f32ToBF16StreamAVX2(dst []uint16, src []float32) {
	stream16(dst, src, f32ToBF16AVX2, f32ToBF16NTAVX2)
}

func f32ToBF16StreamAVX512(dst []uint16, src []float32) {
	stream16(dst, src, f32ToBF16AVX512, f32ToBF16NTAVX512)
}

func normalizeStreamAVX2(dst, x []float32, k float32) {
	h := alignHead(dst, 32)
	normalizeAVX2(dst[:h], x[:h], k)
	normalizeNTAVX2(dst[h:], x[h:], k)
}

func normalizeStreamAVX512(dst, x []float32, k float32) {
	h := alignHead(dst, 64)
	normalizeAVX512(dst[:h], x[:h], k)
	normalizeNTAVX512(dst[h:], x[h:], k)
}

func expScaleStreamAVX2(dst, x []float32, scale, m, mul float32) {
	h := alignHead(dst, 32)
	expScaleAVX2(dst[:h], x[:h], scale, m, mul)
	expScaleNTAVX2(dst[h:], x[h:], scale, m, mul)
}

func expScaleStreamAVX512(dst, x []float32, scale, m, mul float32) {
	h := alignHead(dst, 64)
	expScaleAVX512(dst[:h], x[:h], scale, m, mul)
	expScaleNTAVX512(dst[h:], x[h:], scale, m, mul)
}

func normalizeLanesStreamAVX2(dst, x, k []float32) {
	h := alignHead(dst, 32)
	normalizeLanesAVX2(dst[:h], x[:h], k[:h])
	normalizeLanesNTAVX2(dst[h:], x[h:], k[h:])
}

func normalizeLanesStreamAVX512(dst, x, k []float32) {
	h := alignHead(dst, 64)
	normalizeLanesAVX512(dst[:h], x[:h], k[:h])
	normalizeLanesNTAVX512(dst[h:], x[h:], k[h:])
}

func expScaleLanesStreamAVX2(dst, x, m, mul []float32, scale float32) {
	expScaleLanesAheadAVX2(dst, x, m, mul, nil, scale)
}

func expScaleLanesAheadAVX2(dst, x, m, mul, next []float32, scale float32) {
	h := alignHead(dst, 32)
	expScaleLanesAVX2(dst[:h], x[:h], m[:h], mul[:h], scale)
	expMulLanesNTAVX2(dst[h:], x[h:], m[h:], mul[h:], next, scale)
}

func expScaleLanesStreamAVX512(dst, x, m, mul []float32, scale float32) {
	expScaleLanesAheadAVX512(dst, x, m, mul, nil, scale)
}

func expScaleLanesAheadAVX512(dst, x, m, mul, next []float32, scale float32) {
	h := alignHead(dst, 64)
	expScaleLanesAVX512(dst[:h], x[:h], m[:h], mul[:h], scale)
	expMulLanesNTAVX512(dst[h:], x[h:], m[h:], mul[h:], next, scale)
}

func logNormStreamAVX2(dst, x []float32, scale, m, logd float32) {
	h := alignHead(dst, 32)
	logNormAVX2(dst[:h], x[:h], scale, m, logd)
	logNormNTAVX2(dst[h:], x[h:], scale, m, logd)
}

func logNormLanesStreamAVX2(dst, x, m, logd []float32, scale float32) {
	h := alignHead(dst, 32)
	logNormLanesAVX2(dst[:h], x[:h], m[:h], logd[:h], scale)
	logNormLanesNTAVX2(dst[h:], x[h:], m[h:], logd[h:], scale)
}

func logNormStreamAVX512(dst, x []float32, scale, m, logd float32) {
	h := alignHead(dst, 64)
	logNormAVX512(dst[:h], x[:h], scale, m, logd)
	logNormNTAVX512(dst[h:], x[h:], scale, m, logd)
}

func logNormLanesStreamAVX512(dst, x, m, logd []float32, scale float32) {
	h := alignHead(dst, 64)
	logNormLanesAVX512(dst[:h], x[:h], m[:h], logd[:h], scale)
	logNormLanesNTAVX512(dst[h:], x[h:], m[h:], logd[h:], scale)
}

func expSumFlushSplitAVX2(dst, x, next, out, in []float32, scale, m, k float32) float32 {
	h := alignHead(out, 32)
	normalizeAVX2(out[:h], in[:h], k)
	s, done := expSumFlushAVX2(dst, x, next, out[h:], in[h:], scale, m, k)
	normalizeStreamAVX2(out[h+done:], in[h+done:], k)
	return s
}

func expSumFlushSplitAVX512(dst, x, next, out, in []float32, scale, m, k float32) float32 {
	h := alignHead(out, 64)
	normalizeAVX512(out[:h], in[:h], k)
	s, done := expSumFlushAVX512(dst, x, next, out[h:], in[h:], scale, m, k)
	normalizeStreamAVX512(out[h+done:], in[h+done:], k)
	return s
}

// The float64 kernels of the assembly sets.
var (
	avx2F64 = &kernels64{
		maxOf:               maxOf64AVX2,
		expSum:              expSum64AVX2,
		expSumFlush:         expSumFlushSplit64AVX2,
		expScale:            expScale64AVX2,
		expScaleStream:      expScaleStream64AVX2,
		normalize:           normalize64AVX2,
		normalizeStream:     normalizeStream64AVX2,
		logNorm:             logNorm64AVX2,
		logNormStream:       logNormStream64AVX2,
		dot:                 dot64AVX2,
		sum:                 sum64AVX2,
		softmaxGrad:         softmaxGrad64AVX2,
		logSoftmaxGrad:      logSoftmaxGrad64AVX2,
		maxLanes:            maxLanes64AVX2,
		expSumLanes:         expSumLanes64AVX2,
		expScaleLanes:       expScaleLanes64AVX2,
		normalizeLanes:      normalizeLanes64AVX2,
		logNormLanes:        logNormLanes64AVX2,
		mulAdd:              mulAdd64AVX2,
		add:                 add64AVX2,
		softmaxGradLanes:    softmaxGradLanes64AVX2,
		logSoftmaxGradLanes: logSoftmaxGradLanes64AVX2,
		logLanes:            logLanes64AVX2,
	}
	avx512F64 = &kernels64{
		maxOf:               maxOf64AVX512,
		expSum:              expSum64AVX512,
		expSumFlush:         expSumFlushSplit64AVX512,
		expScale:            expScale64AVX512,
		expScaleStream:      expScaleStream64AVX512,
		normalize:           normalize64AVX512,
		normalizeStream:     normalizeStream64AVX512,
		logNorm:             logNorm64AVX512,
		logNormStream:       logNormStream64AVX512,
		dot:                 dot64AVX512,
		sum:                 sum64AVX512,
		softmaxGrad:         softmaxGrad64AVX512,
		logSoftmaxGrad:      logSoftmaxGrad64AVX512,
		maxLanes:            maxLanes64AVX512,
		expSumLanes:         expSumLanes64AVX512,
		expScaleLanes:       expScaleLanes64AVX512,
		normalizeLanes:      normalizeLanes64AVX512,
		logNormLanes:        logNormLanes64AVX512,
		mulAdd:              mulAdd64AVX512,
		add:                 add64AVX512,
		softmaxGradLanes:    softmaxGradLanes64AVX512,
		logSoftmaxGradLanes: logSoftmaxGradLanes64AVX512,
		logLanes:            logLanes64AVX512,
	}
)

func normalizeStream64AVX2(dst, x []float64, k float64) {
	h := alignHead(dst, 32)
	normalize64AVX2(dst[:h], x[:h], k)
	normalizeNT64AVX2(dst[h:], x[h:], k)
}

func normalizeStream64AVX512(dst, x []float64, k float64) {
	h := alignHead(dst, 64)
	normalize64AVX512(dst[:h], x[:h], k)
	normalizeNT64AVX512(dst[h:], x[h:], k)
}

func expScaleStream64AVX2(dst, x []float64, scale, m, mul float64) {
	h := alignHead(dst, 32)
	expScale64AVX2(dst[:h], x[:h], scale, m, mul)
	expScaleNT64AVX2(dst[h:], x[h:], scale, m, mul)
}

func expScaleStream64AVX512(dst, x []float64, scale, m, mul float64) {
	h := alignHead(dst, 64)
	expScale64AVX512(dst[:h], x[:h], scale, m, mul)
	expScaleNT64AVX512(dst[h:], x[h:], scale, m, mul)
}

func logNormStream64AVX2(dst, x []float64, scale, m, logd float64) {
	h := alignHead(dst, 32)
	logNorm64AVX2(dst[:h], x[:h], scale, m, logd)
	logNormNT64AVX2(dst[h:], x[h:], scale, m, logd)
}

func logNormStream64AVX512(dst, x []float64, scale, m, logd float64) {
	h := alignHead(dst, 64)
	logNorm64AVX512(dst[:h], x[:h], scale, m, logd)
	logNormNT64AVX512(dst[h:], x[h:], scale, m, logd)
}

func expSumFlushSplit64AVX2(dst, x, next, out, in []float64, scale, m, k float64) float64 {
	h := alignHead(out, 32)
	normalize64AVX2(out[:h], in[:h], k)
	s, done := expSumFlush64AVX2(dst, x, next, out[h:], in[h:], scale, m, k)
	normalizeStream64AVX2(out[h+done:], in[h+done:], k)
	return s
}

func expSumFlushSplit64AVX512(dst, x, next, out, in []float64, scale, m, k float64) float64 {
	h := alignHead(out, 64)
	normalize64AVX512(out[:h], in[:h], k)
	s, done := expSumFlush64AVX512(dst, x, next, out[h:], in[h:], scale, m, k)
	normalizeStream64AVX512(out[h+done:], in[h+done:], k)
	return s
}
