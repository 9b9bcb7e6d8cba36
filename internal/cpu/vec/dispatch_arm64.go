//go:build arm64 && !purego

package vec

import "golang.org/x/sys/cpu"

// asmSets returns the "neon" set when the CPU has Advanced SIMD (every
// arm64 CPU Go runs on does). The binary16 conversions use FCVTL/FCVTN
// only where the CPU reports half-precision support (FPHP and ASIMDHP);
// elsewhere they stay pure Go. The set starts as a copy of the twins, so
// kernels without a NEON version (and any added later) run pure Go.
func asmSets() []*kernelSet {
	a := &cpu.ARM64
	if !a.HasASIMD {
		return nil
	}
	s := *goSet
	s.name = "neon"
	s.maxSum = maxSumNEON
	s.expScale = expScaleNEON
	s.logOut = logOutNEON
	s.dot = dotNEON
	s.sum = sumNEON
	s.softmaxGrad = softmaxGradNEON
	s.logSoftmaxGrad = logSoftmaxGradNEON
	s.onlineUpdate = onlineUpdateNEON
	s.expScaleLanes = expScaleLanesNEON
	s.logOutLanes = logOutLanesNEON
	s.mulAdd = mulAddNEON
	s.add = addNEON
	s.softmaxGradLanes = softmaxGradLanesNEON
	s.logSoftmaxGradLanes = logSoftmaxGradLanesNEON
	s.bf16ToF32 = bf16ToF32NEON
	s.f32ToBF16 = f32ToBF16NEON
	if a.HasFPHP && a.HasASIMDHP {
		s.f16ToF32 = f16ToF32NEON
		s.f32ToF16 = f32ToF16NEON
	}
	s.maxOf = maxOfNEON
	s.expSum = expSumNEON
	s.normalize = normalizeNEON
	s.maxLanes = maxLanesNEON
	s.expSumLanes = expSumLanesNEON
	s.normalizeLanes = normalizeLanesNEON
	s.logNorm = logNormNEON
	s.logNormLanes = logNormLanesNEON
	s.recipLanes = recipLanesNEON
	s.logLanes = logLanesNEON
	// NEON has no non-temporal vector store Go's assembler spells, and
	// arm64 cores do not read a line they fully overwrite in a burst as
	// eagerly as x86 ones: the Stream variants are the plain kernels, and
	// the fence has nothing to order.
	s.f32ToF16Stream = s.f32ToF16
	s.f32ToBF16Stream = s.f32ToBF16
	s.normalizeStream = s.normalize
	s.expScaleStream = s.expScale
	s.normalizeLanesStream = s.normalizeLanes
	s.expScaleLanesStream = s.expScaleLanes
	s.logNormStream = s.logNorm
	s.logNormLanesStream = s.logNormLanes
	s.expSumFlush = expSumFlushNEON
	s.expAddLanes = expAddLanesNEON
	return []*kernelSet{&s}
}

// expSumFlushNEON is expSumFlushGeneric with the NEON kernels.
func expSumFlushNEON(dst, x, next, out, in []float32, scale, m, k float32) float32 {
	s := expSumNEON(dst, x, next, scale, m)
	normalizeNEON(out, in, k)
	return s
}

// expAddLanesNEON is expAddLanesGeneric with the NEON expSumLanes, whose
// exps go to a buffer on the stack, 256 lanes at a time.
func expAddLanesNEON(d, x, m, next []float32, scale float32) {
	var tmp [256]float32
	for i := 0; i < len(d); i += len(tmp) {
		k := min(len(tmp), len(d)-i)
		var nx []float32
		if i < len(next) {
			nx = next[i:min(i+k, len(next))]
		}
		expSumLanesNEON(tmp[:k], d[i:i+k], x[i:i+k], m[i:i+k], nx, scale)
	}
}
