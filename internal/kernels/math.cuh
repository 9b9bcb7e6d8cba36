// math.cuh: math: exp (accurate ex2.approx with a hi/lo split of log2 e, a
// cheaper one for 16-bit outputs), log, max, Kahan and pairwise sums.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- math

__device__ __forceinline__ i64 imin(i64 a, i64 b) { return a < b ? a : b; }
__device__ __forceinline__ i64 imax(i64 a, i64 b) { return a > b ? a : b; }
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float qnan() { return __int_as_float(0x7fffffff); }

#ifndef SMX_EMU  // inline-PTX math primitives
// max/min that ignore a NaN operand (like fmaxf); NaN propagates through sums.
__device__ __forceinline__ float fmax2(float a, float b) {
  float r;
  asm("max.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

__device__ __forceinline__ float fmin2(float a, float b) {
  float r;
  asm("min.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

__device__ __forceinline__ float fma_rn(float a, float b, float c) {
  float r;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
}

// 2^x, about 2 ulp, subnormal results kept (no .ftz).
__device__ __forceinline__ float ex2(float x) {
  float r;
  asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// Flushes subnormal results to zero: one MUFU.EX2, where the IEEE form
// adds a range test and two predicated multiplies around it.
__device__ __forceinline__ float ex2_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ float lg2(float x) {
  float r;
  asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// max(x, lo) and min(x, hi) that keep a NaN x (unlike fmax2): on sm_80+ one
// max.NaN / min.NaN each, where the compare-and-select they replace took two
// instructions (fexp's clamps were 4 of its 10).
__device__ __forceinline__ float max_keep_nan(float x, float lo) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(lo));
  return r;
#else
  return x < lo ? lo : x;
#endif
}

__device__ __forceinline__ float min_keep_nan(float x, float hi) {
#if __CUDA_ARCH__ >= 800
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(hi));
  return r;
#else
  return x > hi ? hi : x;
#endif
}

#endif  // SMX_EMU

constexpr float L2E = 1.44269502163f;  // log2(e) rounded to float

// exp(x) = 2^(x*log2 e) with the product split into t + r exactly
// (t rounded, r the FMA residual plus the low part of log2 e), so the
// argument rounding of x*log2e does not grow with |x|: relative error stays
// within ~3 ulp (ex2.approx's 2 ulp plus one multiply). x must be finite
// and at most 128 in magnitude (or NaN), so the residual stays finite: the
// callers below clamp it. Subnormal results are kept (no ftz).
__device__ __forceinline__ float fexp_clamped(float x) {
  const float L2E_LO = 1.925963033500e-08f;  // log2(e) - L2E
  const float LN2 = 0.693147180560f;
  float t = x * L2E;
  float r = fma_rn(x, L2E, -t);
  r = fma_rn(x, L2E_LO, r);
  return ex2(t) * fma_rn(r, LN2, 1.f);
}

// exp(x) for any x: clamped to [-128, 128] (NaN passes the clamps);
// exp(-inf) = 0, exp(+inf) = +inf, exp(NaN) = NaN.
__device__ __forceinline__ float fexp(float x) {
  return fexp_clamped(min_keep_nan(max_keep_nan(x, -128.f), 128.f));
}

// fexp for arguments that are never +inf nor above 2^127: a softmax
// exponent v - m with m the max over v (<= 0, or NaN). Such an argument
// needs no upper clamp: fexp's only stops +inf (and products x*log2 e that
// overflow) from turning the residual into NaN, and one instruction of
// eight per element matters in the instruction-bound kernels (strided_reg).
__device__ __forceinline__ float fexp_nonpos(float x) { return fexp_clamped(max_keep_nan(x, -128.f)); }

// 2^(t - ex2_bias) for t <= ex2_bias (or NaN), subnormal results kept, as
// ex2 gives 2^x: the FTZ ex2 of the biased exponent is normal down to
// 2^-126 before the exact power-of-two multiply takes it into the
// subnormals. Callers fold the bias into the FMA that forms t. ex2's IEEE
// form spends a compare and two predicated multiplies an element: 484 of
// the 2312 SASS instructions of bf16 block_hybrid t512_s8 (nvcc 11.8; 1904
// this way, f16's twin 1808), whose bf16 rows trailed block_smem by 6-12%.
// H100 A/B (-ab-s52.txt): 528x49152 bf16 47.8 -> 42.2 us, 330x100003 72.1
// -> 67.8, 132x49152 (split_grid) 16.2 -> 15.6. The biased t rounds by at
// most 2^-19 (its largest values are near 64) and fexp_shifted's 64 - sl by
// 2^-17 (|sl| < 93): at most 7e-6 relative in the exp, far below bf16's 2^-9.
constexpr float ex2_bias = 64.f;
__device__ __forceinline__ float ex2_biased(float t) { return ex2_ftz(t) * 0x1p-64f; }

// exp(x) with one rounding of x*log2(e) before ex2.approx: relative error
// about |x| * 2^-23 + 2 ulp, i.e. <= 3e-6 for the x >= -20 that carry weight
// in a softmax sum. Used only where the result is stored in 16 bits (f16/bf16
// softmax: outputs round at 2^-11 or 2^-8), where it halves the instructions
// per element of compute-bound passes. No clamp: ex2.approx takes -inf to +0
// and keeps NaN, and a softmax exponent is never above 0. FTZ (f16) flushes
// results below 2^-126 to zero, which no f16 output can tell apart (its
// least subnormal is 2^-24): four instructions an element fewer with the
// clamp (H200 harness, block_reg, L2 flushed: 2048x8192 f16 22.18 -> 21.60
// us, 2048x4096 f16 12.93 -> 12.54, 2048x2048 f16 8.54 -> 8.22; softmax
// bench, strided_reg, whose spills shrank: 64x1024x512 f16 axis 1 67.0 ->
// 60.9; -ab-s23.txt). bf16 has float's exponent range, subnormals
// included: ex2_biased keeps them at one multiply over the FTZ form.
template <bool FTZ>
__device__ __forceinline__ float fexp_fast(float x) {
  return FTZ ? ex2_ftz(x * L2E) : ex2_biased(fma_rn(x, L2E, ex2_bias));
}

// fexp_fast(v - s) as one FMA and ex2, given sl = s * L2E rounded: for
// 16-bit softmax outputs with |s| <= fexp_shift_max. The rounding of sl
// moves every exponent by at most |s| * log2(e) * 2^-24 <= 5.5e-6 (base 2),
// within fexp_fast's own bound; beyond it (huge inputs) callers take
// fexp_fast(v - s). One instruction an element fewer than the subtract and
// multiply.
constexpr float fexp_shift_max = 64.f;
template <bool FTZ>
__device__ __forceinline__ float fexp_shifted(float v, float sl) {
  return FTZ ? ex2_ftz(fma_rn(v, L2E, -sl)) : ex2_biased(fma_rn(v, L2E, ex2_bias - sl));
}

// Natural log from lg2.approx (abs error ~2^-22 in log2 units): used once per row.
__device__ __forceinline__ float flog(float x) { return lg2(x) * 0.693147180560f; }

// The -inf-safe max for exponent subtraction: 0 stands in for -inf.
__device__ __forceinline__ float safe(float m) { return m == neg_inf() ? 0.f : m; }

// 1 for finite v, NaN for +-inf: the contribution exp(v - v) of a new max.
__device__ __forceinline__ float one_or_nan(float v) { return (v - v) + 1.f; }

// Kahan-compensated s += x: c carries the rounding error still owed, and the
// sum is s - c. Long per-thread sequences (a thread streaming thousands of
// elements) would otherwise lose ~k*eps/2 relative accuracy over k terms.
// No -use_fast_math, so the compiler keeps the order of these operations.
__device__ __forceinline__ void kadd(float& s, float& c, float x) {
  const float y = x - c;
  const float t = s + y;
  c = (t - s) - y;
  s = t;
}

// ---------------------------------------------------------------- float64 math
// Twins of the float helpers above for double math (F64): CUDA's double
// exp and log (accurate to an ulp or two; exp(-inf) = 0, NaN kept), max
// and min ignoring a NaN operand as fmax2 does. Overloads, so the float
// code picks the float forms as before.
#ifndef SMX_EMU
__device__ __forceinline__ double fmax2(double a, double b) {
  double r;
  asm("max.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}

__device__ __forceinline__ double fmin2(double a, double b) {
  double r;
  asm("min.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
#endif  // SMX_EMU

__device__ __forceinline__ double fexp(double x) { return exp(x); }
__device__ __forceinline__ double fexp_nonpos(double x) { return exp(x); }
__device__ __forceinline__ double flog(double x) { return log(x); }
__device__ __forceinline__ double safe(double m) { return m == (double)neg_inf() ? 0. : m; }
__device__ __forceinline__ double one_or_nan(double v) { return (v - v) + 1.; }

__device__ __forceinline__ void kadd(double& s, double& c, double x) {
  const double y = x - c;
  const double t = s + y;
  c = (t - s) - y;
  s = t;
}

}  // namespace smx
