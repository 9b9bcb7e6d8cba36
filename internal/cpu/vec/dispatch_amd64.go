//go:build amd64 && !purego

package vec

import "golang.org/x/sys/cpu"

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
		name:                "avx2",
		maxSum:              maxSumAVX2,
		expScale:            expScaleAVX2,
		logOut:              logOutAVX2,
		dot:                 dotAVX2,
		sum:                 sumAVX2,
		softmaxGrad:         softmaxGradAVX2,
		logSoftmaxGrad:      logSoftmaxGradAVX2,
		onlineUpdate:        onlineUpdateAVX2,
		expScaleLanes:       expScaleLanesAVX2,
		logOutLanes:         logOutLanesAVX2,
		mulAdd:              mulAddAVX2,
		add:                 addAVX2,
		softmaxGradLanes:    softmaxGradLanesAVX2,
		logSoftmaxGradLanes: logSoftmaxGradLanesAVX2,
		f16ToF32:            f16ToF32Generic,
		f32ToF16:            f32ToF16Generic,
		bf16ToF32:           bf16ToF32AVX2,
		f32ToBF16:           f32ToBF16AVX2,
	}
	if x.HasF16C {
		avx2.f16ToF32 = f16ToF32AVX2
		avx2.f32ToF16 = f32ToF16AVX2
	}
	out = append(out, avx2)
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512VL && x.HasF16C && x.HasBMI2 {
		out = append(out, &kernelSet{
			name:                "avx512",
			maxSum:              maxSumAVX512,
			expScale:            expScaleAVX512,
			logOut:              logOutAVX512,
			dot:                 dotAVX512,
			sum:                 sumAVX512,
			softmaxGrad:         softmaxGradAVX512,
			logSoftmaxGrad:      logSoftmaxGradAVX512,
			onlineUpdate:        onlineUpdateAVX512,
			expScaleLanes:       expScaleLanesAVX512,
			logOutLanes:         logOutLanesAVX512,
			mulAdd:              mulAddAVX512,
			add:                 addAVX512,
			softmaxGradLanes:    softmaxGradLanesAVX512,
			logSoftmaxGradLanes: logSoftmaxGradLanesAVX512,
			f16ToF32:            f16ToF32AVX512,
			f32ToF16:            f32ToF16AVX512,
			bf16ToF32:           bf16ToF32AVX512,
			f32ToBF16:           f32ToBF16AVX512,
		})
	}
	return out
}
