// common.cuh: the one header shared by every softmax strategy module.
//
// Compiled at run time by NVRTC (CUDA 13, --std=c++17 -default-device) and
// offline by nvcc for checks. It includes nothing: NVRTC has no standard
// headers here, so conversions, exp/log and cluster access are spelled with
// inline PTX and compiler builtins only. The inline-PTX primitives sit in
// "#ifndef SMX_EMU" blocks: an offline host emulator (not part of the build)
// defines SMX_EMU and supplies C++ versions of exactly those functions.
//
// Contents
//   * Params      the single by-value kernel parameter (mirrored by kernels.Params in Go)
//   * math        accurate fast exp (ex2.approx with a hi/lo split of log2 e), a
//                 cheaper exp for 16-bit outputs, log,
//                 max, Kahan and pairwise sums
//   * dtypes      F32 / F16 / BF16 traits: scalar and 16-byte pack conversions
//   * load/store  16-byte vector access with a masked scalar path and tail
//   * ops         Fwd<D> (softmax / log_softmax, scale fused on load, (m,d)
//                 accumulator with the -inf-safe merge) and Bwd<D> (both gradients)
//   * reductions  sub-warp group, warp and block reductions of any op accumulator
//   * cluster     thread-block-cluster / distributed shared memory PTX (sm_90+)
//   * bodies      row bodies used by more than one strategy (register-cached
//                 row, streaming two-pass row)
//   * SMX_KERNEL  the macro that emits one extern "C" __global__ symbol
//
// Numerics (PyTorch semantics for softmax(scale*x, dim)):
//   v = scale*x is formed on load; m = max v; d = sum exp(v - m).
//   softmax y = exp(v - m) / d; log_softmax y = (v - m) - log d.
//   When the running max is -inf the exponent uses 0 in its place (safe()),
//   so exp(-inf - -inf) never poisons a valid slice; the final output uses the
//   true m, so an all -inf slice gives exp(NaN) = NaN everywhere.
//   NaN: fmaxf drops NaN, but exp(NaN - m) = NaN enters d and every output
//   divides by (or subtracts log of) d, so the whole slice is NaN.
//   +inf: m = +inf and exp(+inf - +inf) = NaN enters d: NaN slice.
//   Long per-thread sums are Kahan-compensated (kadd), cached ones pairwise.
//   f16/bf16 softmax computes the element exps with fexp_fast (~1e-6
//   relative, far below 16-bit output rounding): one multiply and ex2
//   instead of fexp's eight instructions, which matters where a pass is
//   bound by instructions per element (phase 1 of split_row on 4x2^25 f16:
//   126.8 -> 99.1 us on H200); for f16 it flushes exps below 2^-126 to
//   zero, which no f16 output can hold.
#pragma once

// SMX_DTYPES selects which dtypes a module instantiates (bit 0 f32, bit 1
// f16, bit 2 bf16): each .cu lists its kernels in "#if SMX_DTYPES & bit"
// blocks. The Go side prepends "#define SMX_DTYPES n" to compile a module
// for a single dtype; by default every dtype is instantiated.
#ifndef SMX_DTYPES
#define SMX_DTYPES 7
#endif

// SMX_NOINLINE keeps a device function out of line. The emulator defines it
// empty: GCC's own headers use the __noinline__ spelling in attributes.
#ifndef SMX_NOINLINE
#define SMX_NOINLINE __noinline__
#endif

// SMX_KERNEL(name, bounds, body) defines the extern "C" kernel `name` taking
// one smx::Params by value and running body(p), with __launch_bounds__(bounds)
// (bounds is "max threads" or "max threads, min blocks per SM"). body is a
// device function template instance; commas in its template arguments are
// fine.
#define SMX_KERNEL(NAME, BOUNDS, ...)                                          \
  extern "C" __global__ void __launch_bounds__(BOUNDS) NAME(const smx::Params p) { \
    __VA_ARGS__(p);                                                            \
  }

namespace smx {

typedef long long i64;
typedef unsigned int u32;
typedef unsigned short u16;

// Params is the single by-value parameter of every kernel. The fields a
// forward launch reads (x, y, outer, axis, scale, log, vec) come first, so
// they share one 64-byte line of the constant bank: with dy and ws between
// them, a one-wave block_reg kernel waited on three dependent constant
// fetches before its first load (ncu, H200, 128x1024 f16; -ab-s26.txt).
//
//   offset size field
//        0    8 x      input for forward; forward output y for backward
//        8    8 y      output: forward y, or backward dx
//       16    8 outer
//       24    8 axis   softmax runs over this index
//       32    4 scale  forward only: softmax(scale*x)
//       36    4 log    1: log_softmax (or its gradient)
//       40    4 split  chunks per slice (split strategies), else 1
//       44    4 vec    1: 16-byte vector path allowed (pointers 16-byte aligned
//                      and every row / chunk start a multiple of 16 bytes)
//       48    8 dy     incoming gradient (backward only, else null)
//       56    8 ws     float workspace for split strategies (float2 per partial)
//       64    8 inner  element (o,j,i) lives at (o*axis + j)*inner + i
//       72    8 chunk  axis elements per split chunk (split strategies), else 0
//       80    8 bar    grid-barrier word (split_grid), else null
//   size 88, alignment 8
struct Params {
  const void* x;
  void* y;
  long long outer;
  long long axis;
  float scale;
  int log;
  int split;
  int vec;
  const void* dy;
  float* ws;
  long long inner;
  long long chunk;
  u32* bar;
};

static_assert(sizeof(Params) == 88, "Params layout is mirrored in Go");

// 16 bytes of raw storage, the unit of vector loads and stores.
struct alignas(16) V16 {
  u32 w[4];
};

// A float pair as stored in the split workspace.
struct alignas(8) F2 {
  float a, b;
};

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

// ---------------------------------------------------------------- dtypes

#ifndef SMX_EMU  // inline-PTX conversions
__device__ __forceinline__ float h2f(u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}

__device__ __forceinline__ u16 f2h(float f) {
  u16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}

__device__ __forceinline__ float bf2f(u16 h) { return __uint_as_float(((u32)h) << 16); }

__device__ __forceinline__ u16 f2bf(float f) {
#if __CUDA_ARCH__ >= 800
  u16 h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  u32 u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);                                        // round to nearest even
  return (u16)(u >> 16);
#endif
}

// Packs two floats into one 32-bit word of two halves (lo in the low half).
__device__ __forceinline__ u32 pack_h2(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  u32 w;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
#else
  return (u32)f2h(lo) | ((u32)f2h(hi) << 16);
#endif
}

__device__ __forceinline__ u32 pack_bf2(float lo, float hi) {
#if __CUDA_ARCH__ >= 800
  u32 w;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
#else
  return (u32)f2bf(lo) | ((u32)f2bf(hi) << 16);
#endif
}

__device__ __forceinline__ void unpack_h2(u32 w, float& lo, float& hi) {
  asm("{\n\t.reg .f16 l, h;\n\tmov.b32 {l, h}, %2;\n\tcvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, h;\n\t}"
      : "=f"(lo), "=f"(hi)
      : "r"(w));
}

#endif  // SMX_EMU

// The two halves of a word of two bf16 values (lo in the low half).
__device__ __forceinline__ void unpack_bf2(u32 w, float& lo, float& hi) {
  lo = __uint_as_float(w << 16);
  hi = __uint_as_float(w & 0xffff0000u);
}

// Elementwise max (MAX) or min of two words of two 16-bit values (BF: bf16,
// else f16), a NaN element ignored as fmax2 ignores it: one max.f16x2
// (bf16x2) on sm_80+.
template <bool BF, bool MAX>
__device__ __forceinline__ u32 w2_extreme(u32 a, u32 b) {
#if !defined(SMX_EMU) && __CUDA_ARCH__ >= 800
  u32 r;
  if (BF && MAX)
    asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else if (BF)
    asm("min.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else if (MAX)
    asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  else
    asm("min.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  float a0, a1, b0, b1;
  if (BF) {
    unpack_bf2(a, a0, a1);
    unpack_bf2(b, b0, b1);
  } else {
    unpack_h2(a, a0, a1);
    unpack_h2(b, b0, b1);
  }
  const float lo = MAX ? fmax2(a0, b0) : fmin2(a0, b0), hi = MAX ? fmax2(a1, b1) : fmin2(a1, b1);
  return BF ? pack_bf2(lo, hi) : pack_h2(lo, hi);
#endif
}

// Storage traits: T is the element type, P the elements per 16-byte pack.
struct F32 {
  typedef float T;
  static constexpr int P = 4;
  static constexpr bool FAST_EXP = false;  // outputs keep float precision
  static constexpr bool FTZ_EXP = false;
  static __device__ __forceinline__ float to_f(T v) { return v; }
  static __device__ __forceinline__ T from_f(float v) { return v; }
  static __device__ __forceinline__ void unpack(const V16& r, float* f) {
#pragma unroll
    for (int k = 0; k < 4; ++k) f[k] = __uint_as_float(r.w[k]);
  }
  static __device__ __forceinline__ V16 pack(const float* f) {
    V16 r;
#pragma unroll
    for (int k = 0; k < 4; ++k) r.w[k] = __float_as_uint(f[k]);
    return r;
  }
};

struct F16 {
  typedef u16 T;
  static constexpr int P = 8;
  static constexpr bool FAST_EXP = true;  // see fexp_fast
  static constexpr bool FTZ_EXP = true;
  static __device__ __forceinline__ float to_f(T v) { return h2f(v); }
  static __device__ __forceinline__ T from_f(float v) { return f2h(v); }
  // Element e of a raw pack.
  static __device__ __forceinline__ float elem(const V16& r, int e) { return h2f((u16)(r.w[e >> 1] >> (16 * (e & 1)))); }
  static __device__ __forceinline__ void unpack(const V16& r, float* f) {
#pragma unroll
    for (int k = 0; k < 4; ++k) unpack_h2(r.w[k], f[2 * k], f[2 * k + 1]);
  }
  // One word of a raw pack (Fwd::reduce_raw).
  static __device__ __forceinline__ void unpack2(u32 w, float& lo, float& hi) { unpack_h2(w, lo, hi); }
  static __device__ __forceinline__ u32 max2(u32 a, u32 b) { return w2_extreme<false, true>(a, b); }
  static __device__ __forceinline__ u32 min2(u32 a, u32 b) { return w2_extreme<false, false>(a, b); }
  static __device__ __forceinline__ V16 pack(const float* f) {
    V16 r;
#pragma unroll
    for (int k = 0; k < 4; ++k) r.w[k] = pack_h2(f[2 * k], f[2 * k + 1]);
    return r;
  }
};

struct BF16 {
  typedef u16 T;
  static constexpr int P = 8;
  static constexpr bool FAST_EXP = true;
  static constexpr bool FTZ_EXP = false;
  static __device__ __forceinline__ float to_f(T v) { return bf2f(v); }
  static __device__ __forceinline__ T from_f(float v) { return f2bf(v); }
  // Element e of a raw pack, straight from its 32-bit word. Opaque (asm
  // volatile) so that the compiler re-extracts it at each use instead of
  // keeping all the converted values of a register-cached tile live
  // (strided_reg: 300 B of spills a thread otherwise).
  static __device__ __forceinline__ float elem(const V16& r, int e) {
    u32 v = r.w[e >> 1];
#ifndef SMX_EMU
    if (e & 1)
      asm volatile("and.b32 %0, %0, 0xffff0000;" : "+r"(v));
    else
      asm volatile("shl.b32 %0, %0, 16;" : "+r"(v));
#else
    v = e & 1 ? v & 0xffff0000u : v << 16;
#endif
    return __uint_as_float(v);
  }
  static __device__ __forceinline__ void unpack(const V16& r, float* f) {
#pragma unroll
    for (int k = 0; k < 4; ++k) unpack_bf2(r.w[k], f[2 * k], f[2 * k + 1]);
  }
  // One word of a raw pack (Fwd::reduce_raw).
  static __device__ __forceinline__ void unpack2(u32 w, float& lo, float& hi) { unpack_bf2(w, lo, hi); }
  static __device__ __forceinline__ u32 max2(u32 a, u32 b) { return w2_extreme<true, true>(a, b); }
  static __device__ __forceinline__ u32 min2(u32 a, u32 b) { return w2_extreme<true, false>(a, b); }
  static __device__ __forceinline__ V16 pack(const float* f) {
    V16 r;
#pragma unroll
    for (int k = 0; k < 4; ++k) r.w[k] = pack_bf2(f[2 * k], f[2 * k + 1]);
    return r;
  }
};

// ---------------------------------------------------------------- load / store

#ifndef SMX_EMU  // dynamic shared memory
// Dynamic shared memory, 16-byte aligned, shared by every module's kernels.
__device__ __forceinline__ void* dyn_smem() {
  extern __shared__ V16 smx_dyn_smem[];
  return smx_dyn_smem;
}

#endif  // SMX_EMU

// Pack loads come in two halves so that several 16-byte loads can be in
// flight as raw registers before any is converted:
//   ld_raw  issues the 16-byte load of pack [col, col+P) when the vector path
//           applies (vec set and the pack whole) and stashes it if asked;
//   ld_cvt  turns it into P floats via op.conv (scale for Fwd), or, off the
//           vector path, loads element by element (and stashes), reading
//           Op::fill(i) at or past n.
// With STASH the raw elements are also copied to the same columns of `stash`
// (a shared-memory copy of the row).
template <class Op, bool STASH>
__device__ __forceinline__ void ld_raw(const typename Op::T* row, typename Op::T* stash, i64 col, i64 n, bool vec,
                                       V16& r) {
  if (vec && col + Op::D::P <= n) {
    r = *reinterpret_cast<const V16*>(row + col);
    if (STASH) *reinterpret_cast<V16*>(stash + col) = r;
  }
}

// The P floats of raw pack r of input i, through op.conv.
template <class Op>
__device__ __forceinline__ void unpack_conv(const Op& op, int i, const V16& r, float* f) {
  Op::D::unpack(r, f);
#pragma unroll
  for (int e = 0; e < Op::D::P; ++e) f[e] = op.conv(i, f[e]);
}

template <class Op, bool STASH>
__device__ __forceinline__ void ld_cvt(const Op& op, int i, const V16& r, const typename Op::T* row,
                                       typename Op::T* stash, i64 col, i64 n, bool vec, float* f) {
  typedef typename Op::D D;
  typedef typename D::T T;
  constexpr int P = D::P;
  if (vec && col + P <= n) {
    unpack_conv(op, i, r, f);
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      if (col + e < n) {
        T t = row[col + e];
        if (STASH) stash[col + e] = t;
        f[e] = op.conv(i, D::to_f(t));
      } else {
        f[e] = Op::fill(i);
      }
    }
  }
}

// Both halves at once.
template <class Op, bool STASH>
__device__ __forceinline__ void ld_pack(const Op& op, int i, const typename Op::T* row, typename Op::T* stash,
                                        i64 col, i64 n, bool vec, float* f) {
  V16 r;
  ld_raw<Op, STASH>(row, stash, col, n, vec, r);
  ld_cvt<Op, STASH>(op, i, r, row, stash, col, n, vec, f);
}

#ifndef SMX_EMU  // inline-PTX loads, stores and asynchronous copies (sm_80+)
// r through an identity permute that ptxas cannot see through: Fwd::out_raw
// converts a raw pack again instead of ptxas merging that conversion with
// reduce_raw's (same register, same instruction) and keeping the converted
// values live across the block's barrier (the general build of the f16
// t256_p4 twin spilled 132 bytes so under nvcc 11.8; an empty asm leaves
// the PTX register as it was and changed nothing).
__device__ __forceinline__ V16 fresh(V16 r) {
#pragma unroll
  for (int i = 0; i < 4; ++i) asm volatile("prmt.b32 %0, %0, 0, 0x3210;" : "+r"(r.w[i]));
  return r;
}

// 16-byte global load. Spelled in PTX because a V16 dereferenced straight into
// unpack was split by the compiler into four 4-byte loads (SASS LDG.E x4 in
// cached_row's whole-pack path), a quarter of the bytes per load instruction.
__device__ __forceinline__ V16 ld16(const void* p) {
  V16 r;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.w[0]), "=r"(r.w[1]), "=r"(r.w[2]), "=r"(r.w[3])
               : "l"(p));
  return r;
}

// Streaming (evict-first) 16-byte global store: the output is not re-read, so
// it should not push the input out of L2 before a second pass re-reads it.
__device__ __forceinline__ void st_cs(void* p, const V16& r) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(r.w[0]), "r"(r.w[1]), "r"(r.w[2]),
               "r"(r.w[3])
               : "memory");
}

// Bytes of dynamic shared memory this launch was given.
__device__ __forceinline__ u32 dyn_smem_bytes() {
  u32 r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

// Shared-memory (CTA window) address of a generic pointer to shared memory.
__device__ __forceinline__ u32 smem_addr(const void* p) {
  u32 a;
  asm("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(a) : "l"(p));
  return a;
}

// 16 bytes global -> shared, bypassing L1 (.cg): the data is read once.
__device__ __forceinline__ void cp_async16(void* sdst, const void* gsrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(sdst)), "l"(gsrc) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until at most n of this thread's committed groups are pending.
__device__ __forceinline__ void cp_async_wait(int n) {
  switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  }
}

#endif  // SMX_EMU

// Elements from the 16-byte boundary at or before element offset at of q
// to q + at (0 when it sits on one; q is element-aligned, so this is below
// P): the lo of a row read from its pack boundary. Taken from the address,
// so tensors that all lie the same distance past a boundary (Params.vec ==
// 2 with unaligned pointers, plan.Problem.Skew) are read in packs as
// ragged rows of aligned ones are.
template <class D>
__device__ __forceinline__ int pack_lo(const typename D::T* q, i64 at) {
  const unsigned long long e = (unsigned long long)q / sizeof(typename D::T) + (unsigned long long)at;
  return (int)(e % D::P);
}

// A contiguous run staged in shared memory (strided_smem, flat_rows), or a
// ragged row's head (row_head): elements from element offset at of q to
// q's next 16-byte boundary (0 when it sits on one).
template <class D>
__device__ __forceinline__ int smem_head(const typename D::T* q, i64 at) {
  return (D::P - pack_lo<D>(q, at)) % D::P;
}

// Copies n elements from src into stash + shift, shift = (P - head) mod P
// so that src's 16-byte boundaries land on stash's: whole packs by
// cp.async, the head and tail element by element. The caller waits and
// synchronises.
template <class D>
__device__ __forceinline__ int smem_stage(const typename D::T* src, typename D::T* stash, int n) {
  constexpr int P = D::P;
  const int head = (int)imin(smem_head<D>(src, 0), n), shift = (P - head) % P;
  const int packs = (n - head) / P, tail = head + packs * P;
  typename D::T* const s = stash + shift;
  for (int k = threadIdx.x; k < packs; k += blockDim.x) cp_async16(s + head + k * P, src + head + k * P);
  for (int j = threadIdx.x; j < head; j += blockDim.x) s[j] = src[j];
  for (int j = tail + threadIdx.x; j < n; j += blockDim.x) s[j] = src[j];
  return shift;
}

// Stages elements [at, at + n) of every input of op in shared memory,
// input i in the region at base + i*region shifted to its 16-byte
// boundaries (smem_stage), and waits for the block's copies: s[i] is input
// i's first element there, shift[i] its shift.
template <class Op, class PT>
__device__ __forceinline__ void smem_stage_inputs(const Op& op, char* base, u32 region, i64 at, int n,
                                                  PT (&s)[Op::NIN], int (&shift)[Op::NIN]) {
  typedef typename Op::T T;
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) {
    T* const stash = reinterpret_cast<T*>(base + i * region);
    shift[i] = smem_stage<typename Op::D>(op.src(i) + at, stash, n);
    s[i] = stash + shift[i];
  }
  cp_async_commit();
  cp_async_wait(0);
  __syncthreads();
}

// Stores the P floats f as elements [col, col+P) of a row of length n,
// skipping columns at or past n. CS selects the streaming store hint.
template <class D, bool CS>
__device__ __forceinline__ void st_pack(typename D::T* row, i64 col, i64 n, bool vec, const float* f) {
  constexpr int P = D::P;
  if (vec && col + P <= n) {
    V16 r = D::pack(f);
    if (CS)
      st_cs(row + col, r);
    else
      *reinterpret_cast<V16*>(row + col) = r;
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (col + e < n) row[col + e] = D::from_f(f[e]);
  }
}

// st_pack for a row shifted back lo elements to its pack boundary
// (cached_row_general): columns before lo belong to the row before and
// are skipped; whole packs past them store 16 bytes at once when vec.
template <class D>
__device__ __forceinline__ void st_pack_from(typename D::T* row, i64 col, int lo, i64 n, bool vec, const float* f) {
  constexpr int P = D::P;
  if (vec && col >= lo && col + P <= n) {
    st_cs(row + col, D::pack(f));
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (col + e >= lo && col + e < n) row[col + e] = D::from_f(f[e]);
  }
}

// st_pack_from for cached_row_masked: 32-bit columns, one compare an element.
template <class D>
__device__ __forceinline__ void st_pack_masked(typename D::T* row, int col, int lo, int n, const float* f) {
  constexpr int P = D::P;
  if (col >= lo && col + P <= n) {
    st_cs(row + col, D::pack(f));
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if ((unsigned)(col + e - lo) < (unsigned)(n - lo)) row[col + e] = D::from_f(f[e]);
  }
}

// ---------------------------------------------------------------- ops

// Sum of Q values by pairwise (tree) addition: error grows with log2 Q.
template <int Q>
__device__ __forceinline__ float pairwise_sum(float (&v)[Q]) {
#pragma unroll
  for (int w = 1; w < Q; w *= 2)
#pragma unroll
    for (int q = 0; q + w < Q; q += 2 * w) v[q] += v[q + w];
  return v[0];
}

// (m, d): running max and sum of exp(v - m).
struct MD {
  float m, d;
};

// Folds (m2, d2) into (m, d), -inf-safe.
__device__ __forceinline__ MD md_merge(MD a, MD b) {
  float m = fmax2(a.m, b.m);
  float s = safe(m);
  MD r;
  r.m = m;
  r.d = a.d * fexp_nonpos(a.m - s) + b.d * fexp_nonpos(b.m - s);
  return r;
}

// Plain float max / sum reductions as ops (the register-cached forward body
// and the teaching kernels).
struct RedMax {
  typedef float Acc;
  static __device__ __forceinline__ Acc identity() { return neg_inf(); }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return fmax2(a, b); }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
};

struct RedSum {
  typedef float Acc;
  static __device__ __forceinline__ Acc identity() { return 0.f; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return a + b; }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
};

// The values of a row held beyond the registers of cached_row_full (none
// here; block_hybrid's shared-memory part): issue() starts loading them
// right after the register loads are issued, max and sum join
// Fwd::reduce_cached, and out(f) writes them after the register part.
struct NoMoreValues {
  __device__ __forceinline__ void issue() const {}
  __device__ __forceinline__ float max(float m) const { return m; }
  template <int P>
  __device__ __forceinline__ void sum(float, float (&)[P]) const {}
  template <class Fin>
  __device__ __forceinline__ void out(const Fin&) const {}
};

// SMX_PLAIN: the module serves plain softmax launches only (forward, scale
// 1, not log), so its forward kernels fold the scale and the op away: no
// multiply on each load, no select between exp and log per element, and
// 16-bit rows take fexp_shifted. H200, softmax bench --algo auto, four
// alternated rounds, median µs (-ab-s24.txt): split_grid 4x4194304 f16
// 29.79 -> 29.28, 128x128256 bf16 27.27 -> 26.90; block_reg 2048x8192 f16
// 22.91 -> 22.61, 8192x1024 bf16 13.82 -> 13.62, 4096x1024 f32 12.98 ->
// 12.76, the other block_reg cases within 1% either way (128x1024 f16 5.29
// -> 5.41 in overlapping rounds). The host compiles a module of each kind
// on first use and picks one per launch (cuda: plainLaunch), for the
// strategies listed with a plain build (kernels.Info.PlainBuild). As twin
// bodies in one kernel, picked by the launch's parameters, ptxas gave the
// pair far more registers than either alone (NVRTC 13: f16 t64_p4 64 ->
// 128, f32 t512_p8 60 -> 73).
#ifndef SMX_PLAIN
#define SMX_PLAIN 0
#endif

// Fwd is the forward op: one input x (scaled on load), accumulator (m, d).
// PLAIN_: a plain softmax (see SMX_PLAIN).
template <class D_, bool PLAIN_ = (SMX_PLAIN != 0)>
struct Fwd {
  typedef D_ D;
  typedef typename D::T T;
  static constexpr int NIN = 1;
  static constexpr bool BACKWARD = false;
  static constexpr bool PLAIN = PLAIN_;
  typedef MD Acc;
  // Per-slice constants after the reduction. crd and clse scale the values
  // reduce_cached left in registers (out_cached): rd and lse, or where the
  // thread's exps were taken against its own max (Red::LOCAL_FIRST), rd and lse
  // moved to that max. out_vals takes m, rd and lse.
  struct Fin {
    float m, rd, lse;
    int log;
    float crd, clse;
  };

  const T* x;
  T* y;
  float scale;
  int log;

  __device__ __forceinline__ explicit Fwd(const Params& p)
      : x(static_cast<const T*>(p.x)), y(static_cast<T*>(p.y)), scale(PLAIN ? 1.f : p.scale), log(PLAIN ? 0 : p.log) {
    if (PLAIN && (p.scale != 1.f || p.log != 0)) __trap();  // a host bug: the launch needs the general module
  }

  __device__ __forceinline__ const T* src(int) const { return x; }
  __device__ __forceinline__ T* dst() const { return y; }
  __device__ __forceinline__ float conv(int, float v) const { return PLAIN ? v : v * scale; }
  static __device__ __forceinline__ float fill(int) { return neg_inf(); }

  // exp of an element's exponent (v - m <= 0, or NaN; never +inf): the
  // cheap form for 16-bit storage, the accurate one for float32.
  static __device__ __forceinline__ float ex(float v) { return D::FAST_EXP ? fexp_fast<D::FTZ_EXP>(v) : fexp_nonpos(v); }

  static __device__ __forceinline__ Acc identity() { return MD{neg_inf(), 0.f}; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return md_merge(a, b); }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int lane_mask) {
    Acc r;
    r.m = __shfl_xor_sync(0xffffffffu, a.m, lane_mask);
    r.d = __shfl_xor_sync(0xffffffffu, a.d, lane_mask);
    return r;
  }
  static __device__ __forceinline__ F2 to_ws(Acc a) { return F2{a.m, a.d}; }
  static __device__ __forceinline__ Acc from_ws(F2 f) { return MD{f.a, f.b}; }

  // A row cached in registers, N values per thread, Red reducing over the
  // row's threads: the row max, then one exp per element, then the sum. b
  // is rewritten in place for out_cached: exp(v - m) for softmax (so the
  // output only scales), v - m for log_softmax. Two plain float
  // reductions cost far fewer instructions than one reduction of (m, d)
  // pairs, whose every merge step takes two exps: with a few packs per
  // thread that merge was most of a thread's work (block_reg on 4096^2 f32
  // went from 0.59 to 0.91 of copy speed on H200 with this body).
  // Values the thread holds elsewhere (block_hybrid's shared-memory part)
  // join through `more`: more.max(m) folds them into the thread's max and
  // more.sum(s, ps) adds their exp(v - s) to the partial sums.
  //
  // Red::LOCAL_FIRST (block reductions): each thread takes its exps against
  // its own max m_t as soon as its loads land, then the block max M, then
  // the block sum of its sum times w = exp(m_t - M); the cached values are
  // scaled by w / S (log_softmax: shifted by (M - m_t) + log S). With the
  // block max first, every thread's exps waited at the barrier for the
  // block's last load: in a one-wave launch (a 1024-thread block an SM) 32
  // exps a thread, about 1 µs of MUFU work an SM, between the last read and
  // the first write. H100, softmax bench, three alternated rounds
  // (nvidia-h100-2026-11-25-ab-s56.txt §1-3): block_reg 128x32000 f32
  // log_softmax 19.04 -> 18.03 µs, 64x32000 f32 14.00 -> 13.34; many rows
  // too, 4096x2048 f32 28.53 -> 26.73 (H200 22.16 -> 21.21). 16-bit rows in
  // blocks under 512 threads lost 4-6% (2048x2048 f16 11.04 -> 11.63): their
  // exps are the cheap ex2 form, so block_reg's RowRed and block_hybrid keep
  // the max first there.
  template <class Red, int N, class More = NoMoreValues>
  __device__ __forceinline__ Fin reduce_cached(float (&b)[NIN][N], const More& more = More()) const {
    constexpr int P = D::P;
    float m = neg_inf();
#pragma unroll
    for (int k = 0; k < N; ++k) m = fmax2(m, b[0][k]);
    m = more.max(m);
    if constexpr (!Red::LOCAL_FIRST) m = Red::template run<RedMax>(m);
    const float s = safe(m);
    float ps[P];
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] = 0.f;
    // log_softmax keeps v - s, which is v - m except where m = -inf (then
    // s = 0, and -inf - lse = NaN matches (v - m) - lse). A select rather
    // than a branch per op: two paths held different values live across
    // the reduction and made ptxas spill the p8 body at 64 registers.
    const bool keep_diff = !PLAIN && log != 0;
    if (PLAIN && D::FAST_EXP && s >= -fexp_shift_max && s <= fexp_shift_max) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < N; ++k) {
        b[0][k] = fexp_shifted<D::FTZ_EXP>(b[0][k], sl);
        ps[k % P] += b[0][k];
      }
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const float v = b[0][k] - s, e = ex(v);
        b[0][k] = keep_diff ? v : e;
        ps[k % P] += e;
      }
    }
    more.sum(s, ps);
    return row_sum<Red>(m, s, ps);
  }

  // The end of reduce_cached and reduce_raw: the row's Fin from the
  // thread's max m (the row max unless Red::LOCAL_FIRST), its shift
  // s = safe(m) and its partial sums ps of exps against s (summed in
  // place). With Red::LOCAL_FIRST, the row max, then the thread's sum moved
  // to it: w = exp(m_t - M) is 0 for a thread of -inf values (and for every
  // thread of a row of -inf, whose sum 0 then makes the outputs NaN as
  // torch's are).
  template <class Red, int P>
  __device__ __forceinline__ Fin row_sum(float m, float s, float (&ps)[P]) const {
    if constexpr (!Red::LOCAL_FIRST) {
      return finalize(MD{m, Red::template run<RedSum>(pairwise_sum<P>(ps))});
    } else {
      const float rm = Red::template run<RedMax>(m), rs = safe(rm);
      const float w = fexp_nonpos(m - rs);
      Fin f = finalize(MD{rm, Red::template run<RedSum>(pairwise_sum<P>(ps) * w)});
      f.crd = w * f.rd;
      f.clse = (rs - s) + f.lse;
      return f;
    }
  }

  // reduce_cached for a row held as raw packs (block_reg's "_exact"
  // kernels), so that a thread keeps NP*4 registers of 16-bit values
  // instead of NP*8 floats: the max over the packed words (D::max2, NaN
  // ignored as fmax2 does; the min for a negative scale), then each pack
  // converted and its exps summed; out_raw converts and takes the exps
  // again. With the max over converted values, ptxas kept those values from
  // the max to the exps, spilled, across the block's barrier. Sets s to the
  // thread's exponent shift: the row max's, or with Red::LOCAL_FIRST the
  // thread's own, as in reduce_cached.
  template <class Red, int NP>
  __device__ __forceinline__ Fin reduce_raw(const V16 (&raw)[NP], float& s) const {
    constexpr int P = D::P;
    u32 w = raw[0].w[0];
    if (!PLAIN && scale < 0.f) {
#pragma unroll
      for (int k = 0; k < NP * 4; ++k) w = D::min2(w, raw[k / 4].w[k % 4]);
    } else {
#pragma unroll
      for (int k = 0; k < NP * 4; ++k) w = D::max2(w, raw[k / 4].w[k % 4]);
    }
    float lo, hi;
    D::unpack2(w, lo, hi);
    float m = conv(0, !PLAIN && scale < 0.f ? fmin2(lo, hi) : fmax2(lo, hi));
    if constexpr (!Red::LOCAL_FIRST) m = Red::template run<RedMax>(m);
    s = safe(m);
    float ps[P];
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] = 0.f;
    if (raw_shifted(s)) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        float v[P];
        unpack_conv(*this, 0, raw[k], v);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += fexp_shifted<D::FTZ_EXP>(v[e], sl);
      }
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        float v[P];
        unpack_conv(*this, 0, raw[k], v);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += ex(v[e] - s);
      }
    }
    return row_sum<Red>(m, s, ps);
  }

  // Whether reduce_raw and out_raw take the exps as fexp_shifted against s
  // (reduce_cached's fast form), else as ex(v - s).
  __device__ __forceinline__ bool raw_shifted(float s) const {
    return PLAIN && D::FAST_EXP && s >= -fexp_shift_max && s <= fexp_shift_max;
  }

  // The outputs of a row reduced by reduce_raw (shift s), pack by pack:
  // st(k, o) stores pack k. Every build takes fresh(): without it nvcc
  // 11.8 spilled the plain bf16 twins (t128_p8 560 bytes), NVRTC 13 not.
  template <int NP, class Store>
  __device__ __forceinline__ void out_raw(const V16 (&raw)[NP], float s, const Fin& f, const Store& st) const {
    constexpr int P = D::P;
    float o[P];
    if (f.log) {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = (o[e] - s) - f.clse;
        st(k, o);
      }
    } else if (raw_shifted(s)) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = fexp_shifted<D::FTZ_EXP>(o[e], sl) * f.crd;
        st(k, o);
      }
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = ex(o[e] - s) * f.crd;
        st(k, o);
      }
    }
  }

  // o[e] = output for element k0 + e of a row reduced by reduce_cached.
  template <int N, int M>
  __device__ __forceinline__ void out_cached(const float (&b)[NIN][N], int k0, float (&o)[M], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = b[0][k0 + e] - f.clse;
    } else {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = b[0][k0 + e] * f.crd;
    }
  }

  // Online update with N values at once (one rescale per call); c is the
  // caller's Kahan compensation of a.d, rescaled along with it.
  template <int N>
  __device__ __forceinline__ void push(Acc& a, float& c, const float (&b)[NIN][N]) const {
    float pm = b[0][0];
#pragma unroll
    for (int k = 1; k < N; ++k) pm = fmax2(pm, b[0][k]);
    const float m = fmax2(a.m, pm);
    const float s = safe(m);
    const float f = fexp_nonpos(a.m - s);
    float local = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) local += ex(b[0][k] - s);
    a.d *= f;
    c *= f;
    kadd(a.d, c, local);
    a.m = m;
  }

  // Online update with one value: one exp unless the max moves.
  __device__ __forceinline__ void push1(Acc& a, float& c, float v, float) const {
    if (v > a.m) {
      const float f = fexp_nonpos(a.m - v);
      a.d *= f;
      c *= f;
      kadd(a.d, c, one_or_nan(v));
      a.m = v;
    } else {
      kadd(a.d, c, ex(v - safe(a.m)));
    }
  }

  // Applies the Kahan compensation: the accumulator to merge and reduce.
  static __device__ __forceinline__ Acc fold(Acc a, float c) { return MD{a.m, a.d - c}; }

  __device__ __forceinline__ Fin finalize(Acc a) const {
    Fin f;
    f.m = a.m;
    f.rd = 1.f / a.d;
    f.lse = flog(a.d);
    f.log = log;
    f.crd = f.rd;
    f.clse = f.lse;
    return f;
  }

  __device__ __forceinline__ float out1(float v, float, const Fin& f) const {
    return f.log ? (v - f.m) - f.lse : ex(v - f.m) * f.rd;
  }

  // o[e] = output for cached values b[.][k0 + e], e < M.
  template <int N, int M>
  __device__ __forceinline__ void out_vals(const float (&b)[NIN][N], int k0, float (&o)[M], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = (b[0][k0 + e] - f.m) - f.lse;
    } else {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = ex(b[0][k0 + e] - f.m) * f.rd;
    }
  }
};

// Bwd is the backward op: inputs y (forward output) and dy, accumulator
// s = sum(dy*y) (softmax) or sum(dy) (log_softmax).
//   softmax:     dx = y*(dy - s)
//   log_softmax: dx = dy - exp(y)*s
template <class D_>
struct Bwd {
  typedef D_ D;
  typedef typename D::T T;
  static constexpr int NIN = 2;
  static constexpr bool BACKWARD = true;
  typedef float Acc;
  struct Fin {
    float s;
    int log;
  };

  const T* yv;
  const T* dy;
  T* dx;
  int log;

  __device__ __forceinline__ explicit Bwd(const Params& p)
      : yv(static_cast<const T*>(p.x)), dy(static_cast<const T*>(p.dy)), dx(static_cast<T*>(p.y)), log(p.log) {}

  __device__ __forceinline__ const T* src(int i) const { return i == 0 ? yv : dy; }
  __device__ __forceinline__ T* dst() const { return dx; }
  __device__ __forceinline__ float conv(int, float v) const { return v; }
  static __device__ __forceinline__ float fill(int) { return 0.f; }

  static __device__ __forceinline__ Acc identity() { return 0.f; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return a + b; }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int lane_mask) {
    return __shfl_xor_sync(0xffffffffu, a, lane_mask);
  }
  static __device__ __forceinline__ F2 to_ws(Acc a) { return F2{0.f, a}; }
  static __device__ __forceinline__ Acc from_ws(F2 f) { return f.b; }

  // One gradient term.
  __device__ __forceinline__ float term(float yy, float g) const { return log ? g : g * yy; }

  // A row cached in registers (see Fwd::reduce_cached): the sum of its
  // terms, per pack, pairwise across packs, then over the row's threads.
  template <class Red, int N>
  __device__ __forceinline__ Fin reduce_cached(float (&b)[NIN][N], const NoMoreValues& = NoMoreValues()) const {
    constexpr int P = D::P, Q = N / P;
    float ps[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      ps[q] = 0.f;
#pragma unroll
      for (int e = 0; e < P; ++e) ps[q] += term(b[0][q * P + e], b[1][q * P + e]);
    }
    return finalize(Red::template run<Bwd>(pairwise_sum<Q>(ps)));
  }

  template <int N, int M>
  __device__ __forceinline__ void out_cached(const float (&b)[NIN][N], int k0, float (&o)[M], const Fin& f) const {
    out_vals(b, k0, o, f);
  }

  template <int N>
  __device__ __forceinline__ void push(Acc& a, float& c, const float (&b)[NIN][N]) const {
    float local = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) local += term(b[0][k], b[1][k]);
    kadd(a, c, local);
  }

  __device__ __forceinline__ void push1(Acc& a, float& c, float yy, float g) const { kadd(a, c, term(yy, g)); }

  static __device__ __forceinline__ Acc fold(Acc a, float c) { return a - c; }

  __device__ __forceinline__ Fin finalize(Acc a) const { return Fin{a, log}; }

  __device__ __forceinline__ float out1(float yy, float g, const Fin& f) const {
    return f.log ? g - fexp(yy) * f.s : yy * (g - f.s);
  }

  template <int N, int M>
  __device__ __forceinline__ void out_vals(const float (&b)[NIN][N], int k0, float (&o)[M], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = b[1][k0 + e] - fexp(b[0][k0 + e]) * f.s;
    } else {
#pragma unroll
      for (int e = 0; e < M; ++e) o[e] = b[0][k0 + e] * (b[1][k0 + e] - f.s);
    }
  }
};

// Loads pack [col, col+P) of every input of op (row at element offset off,
// length n) into b[i][k0 .. k0+P), converted (and scaled for Fwd).
template <class Op, int N>
__device__ __forceinline__ void load_vals(const Op& op, float (&b)[Op::NIN][N], int k0, i64 off, i64 col, i64 n,
                                          bool vec) {
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) ld_pack<Op, false>(op, i, op.src(i) + off, nullptr, col, n, vec, &b[i][k0]);
}

// Re-reads a pack of a row copy in shared memory (input i at stash + i*stride).
template <class Op, int N>
__device__ __forceinline__ void load_vals_smem(const Op& op, float (&b)[Op::NIN][N], int k0, i64 col, i64 n, bool vec,
                                               const typename Op::T* stash, i64 stride) {
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) ld_pack<Op, false>(op, i, stash + i * stride, nullptr, col, n, vec, &b[i][k0]);
}

// Loads one element of every input at element index idx.
template <class Op>
__device__ __forceinline__ void load1(const Op& op, i64 idx, float& v0, float& v1) {
  typedef typename Op::D D;
  v0 = op.conv(0, D::to_f(op.src(0)[idx]));
  v1 = Op::NIN > 1 ? op.conv(1, D::to_f(op.src(Op::NIN - 1)[idx])) : v0;
}

// ---------------------------------------------------------------- reductions

template <class A>
struct IsMD {
  static constexpr bool value = false;
};
template <>
struct IsMD<MD> {
  static constexpr bool value = true;
};

// Butterfly reduction within aligned groups of W lanes (W a power of two
// <= 32); every lane of the warp must call it. All lanes get the result.
// (m, d) pairs take the group max first, then rescale each lane's d to it
// once and add: one exp a lane, where merging pairwise took two a level (ten
// for 32 lanes; in strided_reg those merges were a third of the
// instructions).
// The result is md_merge's, -inf, NaN and +inf included: an all -inf group
// gives (-inf, 0), and a NaN d or an inf - inf exponent makes d NaN.
template <class Op, int W>
__device__ __forceinline__ typename Op::Acc group_reduce(typename Op::Acc a) {
  if constexpr (IsMD<typename Op::Acc>::value) {
    float m = a.m;
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) m = fmax2(m, __shfl_xor_sync(0xffffffffu, m, o));
    float d = a.d * fexp_nonpos(a.m - safe(m));
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) d += __shfl_xor_sync(0xffffffffu, d, o);
    return MD{m, d};
  } else {
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) a = Op::merge(a, Op::shfl_xor(a, o));
    return a;
  }
}

// Whether block_reduce<Op> needs its leading barrier. RedMax and RedSum are
// only ever used as a pair, max then sum, once per row (Fwd::reduce_cached,
// block_vec): each has its own shared array, and the barrier of the other
// separates one row's reads of an array from the next row's writes to it.
template <class Op>
struct LeadBarrier {
  static constexpr bool value = true;
};
template <>
struct LeadBarrier<RedMax> {
  static constexpr bool value = false;
};
template <>
struct LeadBarrier<RedSum> {
  static constexpr bool value = false;
};

// Block-wide reduction; blockDim.x must be a multiple of 32 (1-D blocks).
// Every thread gets the result. Safe to call repeatedly (leading barrier,
// see LeadBarrier). NW, a power of two, bounds the block's warps: the warp
// partials are reduced over groups of NW lanes, lane l reading partial
// l mod NW, so a block of known size (block_reg's NT) spends log2(NW)
// shuffle steps on them instead of five.
template <class Op, int NW = 32>
__device__ __forceinline__ typename Op::Acc block_reduce(typename Op::Acc a) {
  static_assert(NW >= 1 && NW <= 32 && (NW & (NW - 1)) == 0, "NW: a power of two up to 32");
  typedef typename Op::Acc Acc;
  __shared__ Acc smx_red[32];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  a = group_reduce<Op, 32>(a);
  if (LeadBarrier<Op>::value) __syncthreads();
  if (lane == 0) smx_red[wid] = a;
  __syncthreads();
  const int k = lane & (NW - 1);
  a = k < nw ? smx_red[k] : Op::identity();
  return group_reduce<Op, NW>(a);
}

// Reduction policies for the shared row bodies.
template <int W>
struct GroupRed {
  // Fwd::reduce_cached takes the max first: a warp's values land together.
  static constexpr bool LOCAL_FIRST = false;
  template <class Op>
  static __device__ __forceinline__ typename Op::Acc run(typename Op::Acc a) {
    return group_reduce<Op, W>(a);
  }
};

// NW bounds the block's warps (see block_reduce). LOCAL: Fwd::reduce_cached
// takes each thread's exps against its own max, before the block's
// barriers (see there).
template <int NW = 32, bool LOCAL = true>
struct BlockRed {
  static constexpr bool LOCAL_FIRST = LOCAL;
  template <class Op>
  static __device__ __forceinline__ typename Op::Acc run(typename Op::Acc a) {
    return block_reduce<Op, NW>(a);
  }
};

// ---------------------------------------------------------------- cluster (sm_90+)

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ u32 cluster_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ u32 cluster_size() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// Full cluster barrier: arrive has release, wait has acquire semantics, so
// shared-memory writes before it are visible to every block of the cluster.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// Loads the float pair at CTA-window address a in block `rank` of the cluster.
__device__ __forceinline__ F2 ld_cluster_f2(u32 a, u32 rank) {
  u32 r;
  F2 v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.a), "=f"(v.b) : "r"(r) : "memory");
  return v;
}

// st.async and barrier.cluster.arrive.relaxed need PTX ISA 8.1 (CUDA 12.1);
// an older NVRTC keeps cluster_sync around remote loads.
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define SMX_CLUSTER_PUSH 1

// Partials exchanged over a cluster by push: each block stores its values
// straight into every block's slots with st.async, whose bytes count down
// the receiver's mbarrier, so a block waits on its own mbarrier alone. The
// pull form (cluster_sync, remote loads, cluster_sync: the remote reads
// must end before any block exits) costs two cluster barriers whose
// release ptxas compiles to a GPU-scope MEMBAR; in ncu (H200, strided_reg,
// 4096x65536 f32 axis 0) the MEMBAR's ERRBAR and the two barrier waits held
// about a tenth of all stall samples.
//   arm    every thread, once, before anything else: thread 0 initialises
//          the mbarrier; the cluster arrives (relaxed)
//   ready  every thread, before its first push: the cluster wait, so every
//          block's mbarrier is initialised (by now a wait that rarely
//          waits); then thread 0 arrives on its own mbarrier expecting
//          `bytes` incoming bytes
//   push   v into the F2 at `slot` (this block's copy of the array) of
//          block `rank`
//   wait   every thread that reads the slots: all `bytes` have landed
// The expect_tx arrive comes after the cluster wait rather than straight
// after the init: compute-sanitizer's racecheck reports an init and an
// arrive of one thread with no barrier between them as a shared-memory
// hazard (8 errors in strided_reg, 120 warnings in split_cluster over
// TestSanitize; a two-block toy kernel reproduces the report, and a
// __syncwarp between the two clears it there but not in strided_reg). Bytes
// that land before the expect_tx only take the tx-count below zero for a
// while: the phase cannot complete before thread 0's arrive. Timed against
// the old order on 12 strided_reg and split_cluster cases, four rounds
// alternated: geometric mean 1.000, every case within 1.1%.
struct ClusterPush {
  u32 bar, bytes;
  __device__ __forceinline__ void arm(unsigned long long* mbar, u32 incoming) {
    bar = smem_addr(mbar);
    bytes = incoming;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }
  __device__ __forceinline__ void ready() const {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    if (threadIdx.x == 0)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  }
  __device__ __forceinline__ void push(const F2* slot, u32 rank, F2 v) const {
    u32 a, b;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_addr(slot)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(b) : "r"(bar), "r"(rank));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(a), "f"(v.a),
                 "f"(v.b), "r"(b)
                 : "memory");
  }
  __device__ __forceinline__ void wait() const {
    asm volatile(
        "{\n\t.reg .pred p;\n"
        "SMX_WAIT%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra SMX_WAIT%=;\n}" ::"r"(bar)
        : "memory");
  }
};
#endif
#endif

// ---------------------------------------------------------------- shared bodies

// v where 0 <= d < len, else fill: an element's mask in integer bit
// operations, with no predicate register (cached_row_full's SHIFT form
// says why).
__device__ __forceinline__ float keep_inside(float v, float fill, int d, int len) {
  const u32 out = (u32)((d | (len - 1 - d)) >> 31);  // all ones outside [0, len), 0 inside
  return __uint_as_float((__float_as_uint(v) & ~out) | (__float_as_uint(fill) & out));
}

// The pack of elements j..j+P-1 of q, element by element, each index
// clamped to last: no predicate, and no read past element last.
template <class D>
__device__ __forceinline__ V16 ld_clamped(const typename D::T* q, int j, int last) {
  V16 r;
  typename D::T* const e = reinterpret_cast<typename D::T*>(&r);
#pragma unroll
  for (int k = 0; k < D::P; ++k) e[k] = q[j + k < last ? j + k : last];
  return r;
}

// cached_row for a row of whole packs that fills every pack (vec, n ==
// NP*nt*P) or, with TAIL, every pack but the last (n > (NP-1)*nt*P): no
// bounds check but on the last pack with TAIL. With one check per pack,
// ptxas ran out of predicate registers (7) at NP = 8 and converted the first
// pack, waiting for its load, before issuing the others (SASS: later loads
// reusing the first one's registers); here every load is issued before any
// is used. cached_row takes the full case; TAIL has kernels of its own
// (block_reg "_tail"): compiled into every kernel, its path raised the
// registers of the full-row kernels (NVRTC 13: block_reg t512 p8 f32 64 ->
// 69, one resident block instead of two, 4096×16384 0.94 -> 0.79 of copy).
// `more` holds the rest of a row longer than the registers (block_hybrid).
// SHIFT (with TAIL): a ragged row shifted back lo < P elements to its pack
// boundary (off) whose last pack ends inside the tensor (a row follows it,
// or the span ends at the block's last pack), n its span: the first and
// last packs mask the elements outside [lo, n) in registers and store
// through st_pack_masked, so only those two packs compare elements
// (block_reg's "_shift" twins). END (with SHIFT): the tensor's last row,
// whose span's last pack may end past the tensor: the threads' last packs
// load element by element, indices clamped to the row's last element.
// Through the general body instead, whose per-pack branches issue one load
// after another, that one row ran ~3 µs after the rest (ncu, H100, 4096×1001
// f32 t32_p8_shift: elapsed 24.0k cycles against 14.3k SM-active ones,
// where the aligned 4096×1000 had 19.0k against 14.5k; -ab-s48.txt §1).
template <bool TAIL, class Op, int NP, class Red, class More = NoMoreValues, bool SHIFT = false, bool END = false>
__device__ __forceinline__ void cached_row_full(const Op& op, i64 off, i64 n, int t, int nt,
                                                const More& more = More(), int lo = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  static_assert(!SHIFT || TAIL, "a shifted row ends inside its last pack");
  static_assert(!END || SHIFT, "END is the last row of a shifted span");
  const bool last_in = !TAIL || (i64)((NP - 1) * nt + t) * P < n;
  // Pack k of thread t sits k*nt*P elements past the thread's first: one
  // base address and constant offsets (nt is a compile-time constant in
  // the forward kernels) keep the loads back to back. With an address
  // computed per pack, ptxas put block_hybrid's cp.async wait (more.max)
  // after 2 of the 8 register loads, so the other 6 went out only once the
  // shared-memory part had landed: two DRAM round trips a row (H200,
  // softmax bench, 4096×20480 f32 172.8 -> 169.5 µs, 4096×28672 240.2 ->
  // 236.4, 1024×65536 bf16 88.0 -> 85.2; block_reg within 1-2% either
  // way, as much as the untouched warp_row moved).
  const i64 first = off + (i64)t * P;
  // SHIFT: every thread loads its last pack, a thread without one
  // re-reading the span's last pack (no predicate), and the edge packs
  // mask in integer operations (keep_inside), as cached_row_masked does.
  // As compares, 2*P of them a thread beside last_in, ptxas ran short of
  // its 7 predicate registers and issued the last load only after the
  // other packs' maximum: a second DRAM round trip a row (SASS of f32
  // t32_p8 and t64_p8 under nvcc 11.8 and 13; H100 A/B, -ab-s48.txt §2:
  // skewed 16384×600 bf16 softmax_backward 31.3 -> 28.4 µs, 65536×1024
  // f16 155.0 -> 141.7, 1000×30000 f32 98.6 -> 94.4).
  V16 raw[Op::NIN][NP];
#pragma unroll
  for (int k = 0; k < NP; ++k)
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      if (SHIFT && k == NP - 1) {
        if constexpr (END) {
          raw[i][k] = ld_clamped<D>(op.src(i) + off, ((NP - 1) * nt + t) * P, (int)n - 1);
        } else {
          const int last = (int)((n - 1) / P), pk = (NP - 1) * nt + t < last ? (NP - 1) * nt + t : last;
          raw[i][k] = ld16(op.src(i) + off + (i64)pk * P);
        }
      } else if (k < NP - 1 || last_in) {
        raw[i][k] = ld16(op.src(i) + first + (i64)k * nt * P);
      }
  more.issue();
  float b[Op::NIN][NP * P];
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      if (k < NP - 1 || last_in || SHIFT) {
        D::unpack(raw[i][k], &b[i][k * P]);
        const bool edge = SHIFT && (k == 0 || k == NP - 1);
        const int col = (k * nt + t) * P;
#pragma unroll
        for (int e = 0; e < P; ++e) {
          const float v = op.conv(i, b[i][k * P + e]);
          b[i][k * P + e] = edge ? keep_inside(v, Op::fill(i), col + e - lo, (int)n - lo) : v;
        }
      } else {
#pragma unroll
        for (int e = 0; e < P; ++e) b[i][k * P + e] = Op::fill(i);
      }
    }
  const typename Op::Fin f = op.template reduce_cached<Red>(b, more);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    if (k < NP - 1 || last_in) {
      float o[P];
      op.out_cached(b, k * P, o, f);
      if (SHIFT && (k == 0 || k == NP - 1))
        st_pack_masked<D>(op.dst() + off, (k * nt + t) * P, lo, (int)n, o);
      else
        st_cs(op.dst() + first + (i64)k * nt * P, D::pack(o));
    }
  }
  more.out(f);
}

// One row (or one sub-warp group's row) cached in registers: NP packs per
// thread, thread t of nt owns packs (k*nt + t), k < NP, so consecutive threads
// touch consecutive 16-byte packs. This is the body for any row length and
// alignment; cached_row sends rows that fill every pack to cached_row_full. One global read, one write. Covers rows of
// up to nt*NP*P elements. n == 0 means "no row" (the thread still takes part
// in the reduction, as Red requires).
//
// SHIFT (vec set): a ragged row shifted back lo < P elements to its pack
// boundary, so that every whole pack loads and stores 16 bytes at a time;
// its first lo elements belong to the row before and are read as Op::fill
// and not written (see cached_row).
template <class Op, int NP, class Red, bool SHIFT = false>
__device__ __forceinline__ void cached_row_general(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                                   int lo = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  float b[Op::NIN][NP * P];
  // Rows of whole packs take 16-byte loads and stores only: without the
  // element-wise tail path, whose registers would otherwise be reserved
  // across all NP loads in flight. (vec alone does not imply whole packs:
  // a single row may end inside one.)
  const bool whole = !SHIFT && vec && n % P == 0;
  if (whole) {
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const i64 col = (i64)(k * nt + t) * P;
#pragma unroll
      for (int i = 0; i < Op::NIN; ++i) {
        if (col < n) {
          D::unpack(ld16(op.src(i) + off + col), &b[i][k * P]);
#pragma unroll
          for (int e = 0; e < P; ++e) b[i][k * P + e] = op.conv(i, b[i][k * P + e]);
        } else {
#pragma unroll
          for (int e = 0; e < P; ++e) b[i][k * P + e] = Op::fill(i);
        }
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < NP; ++k) load_vals(op, b, k * P, off, (i64)(k * nt + t) * P, n, vec);
    if (SHIFT && lo > 0 && t == 0)  // pack 0 of thread 0 holds the shifted-in elements
#pragma unroll
      for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (e < lo) b[i][e] = Op::fill(i);
  }
  const typename Op::Fin f = op.template reduce_cached<Red>(b);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const i64 col = (i64)(k * nt + t) * P;
    if (col < n) {
      float o[P];
      op.out_cached(b, k * P, o, f);
      if (whole)
        st_cs(op.dst() + off + col, D::pack(o));
      else if (SHIFT)
        st_pack_from<D>(op.dst() + off, col, lo, n, vec, o);
      else
        st_pack<D, true>(op.dst() + off, col, n, false, o);
    }
  }
}

// The general body as a call, for kernels whose entry is on the critical
// path (block_reg's Outline has the measurements). Inlined, it sits between
// the entry and the first load as ~5 KB of code to jump over. The Op is
// copied: its fields become argument registers rather than a stack object
// whose address is passed.
template <class Op, int NP, class Red, bool SHIFT>
__device__ SMX_NOINLINE void cached_row_general_call(const Op op, i64 off, i64 n, int t, int nt, bool vec, int lo) {
  cached_row_general<Op, NP, Red, SHIFT>(op, off, n, t, nt, vec, lo);
}

// A ragged row (SHIFT) whose packs all lie inside the tensor: off is the
// pack boundary at or before the row, lo the elements before the row, n the
// row's length plus lo (a row of at least P-1 elements with a row after
// it, so the last pack read ends inside the tensor; warp_row's caller).
// Every pack loads 16 bytes at once, a pack past the row's last re-reads
// the last one (an address inside the row, so no predicate per pack), and
// elements outside [lo, n) become Op::fill in registers: all NP loads are
// issued before any is used, where the general body converts a partial pack
// element by element. Partial packs store element by element (st_pack_masked).
// Columns are 32-bit (a row the registers hold is far below 2^31) and the
// inside test is one unsigned compare, j - lo < n - lo: with 64-bit columns
// and two compares an element, the backward twins were bound by issue, not
// memory (ncu, H200, 65536×270 bf16 w32_p2_shift: SM 81% busy, DRAM 31%;
// -ab-s42.txt §6).
template <class Op, int NP, class Red>
__device__ __forceinline__ void cached_row_masked(const Op& op, i64 off, i64 n, int lo, int t, int nt) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  const int len = (int)n, last = len > 0 ? (len - 1) / P : 0;
  const unsigned inside = (unsigned)(len - lo);
  V16 raw[Op::NIN][NP];
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const int pk = k * nt + t < last ? k * nt + t : last;
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i) raw[i][k] = ld16(op.src(i) + off + pk * P);
  }
  float b[Op::NIN][NP * P];
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      D::unpack(raw[i][k], &b[i][k * P]);
      const int col = (k * nt + t) * P;
#pragma unroll
      for (int e = 0; e < P; ++e)
        b[i][k * P + e] = (unsigned)(col + e - lo) < inside ? op.conv(i, b[i][k * P + e]) : Op::fill(i);
    }
  const typename Op::Fin f = op.template reduce_cached<Red>(b);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const int col = (k * nt + t) * P;
    if (col < len) {
      float o[P];
      op.out_cached(b, k * P, o, f);
      st_pack_masked<D>(op.dst() + off, col, lo, len, o);
    }
  }
}

// cached_row: rows of whole packs that fill every pack take cached_row_full,
// others the general body, inlined or (OUTLINE) called. With SHIFT (the
// "_shift" kernels, Params.vec == 2: aligned pointers and cols not a
// multiple of P, or pointers that all lie the same distance past a pack
// boundary) a ragged row is taken from the pack boundary at or before its
// start, lo = pack_lo elements early, so that its packs load and store 16
// bytes at a time instead of element by element; the planner sizes
// NP*nt*P for the span (plan's shiftedSpan), or for the row where the
// kernel holds the overhang (block_reg's OverhangPack).
template <class Op, int NP, class Red, bool OUTLINE = false, bool SHIFT = false>
__device__ __forceinline__ void cached_row(const Op& op, i64 off, i64 n, int t, int nt, bool vec) {
  const int lo = SHIFT ? pack_lo<typename Op::D>(op.src(0), off) : 0;
  if (!SHIFT && vec && n == (i64)NP * nt * Op::D::P)
    cached_row_full<false, Op, NP, Red>(op, off, n, t, nt);
  else if (OUTLINE)
    cached_row_general_call<Op, NP, Red, SHIFT>(op, off - lo, n + lo, t, nt, vec, lo);
  else
    cached_row_general<Op, NP, Red, SHIFT>(op, off - lo, n + lo, t, nt, vec, lo);
}

// 16-byte loads in flight per thread in the streaming bodies: 4 (4 packs of
// x forward, 2 packs each of y and dy backward). They are held raw (4
// registers each) and converted one pack at a time, so the float expansion
// of f16/bf16 does not multiply register pressure.
template <class Op>
struct Unroll {
  static constexpr int U = 4 / Op::NIN;
};

// Element i of input k as a float (scaled for Fwd): the element-wise loads
// of the two-read bodies below.
template <class Op>
__device__ __forceinline__ float ld_elem(const Op& op, int k, i64 i) {
  return op.conv(k, Op::D::to_f(op.src(k)[i]));
}

// Ragged rows (Params.vec == 2: 16-byte aligned pointers and cols not a
// multiple of P, or pointers that all lie the same distance past a pack
// boundary) start inside a pack. The streaming bodies take such a row as
// its head, the elements before its first 16-byte boundary (fewer than
// P), then the vector path from that boundary on; row_head is the head's
// length for the row at element offset off of q, length n.
template <class D>
__device__ __forceinline__ i64 row_head(const typename D::T* q, i64 off, i64 n) {
  const i64 h = smem_head<D>(q, off);
  return h < n ? h : n;
}

// Folds the head elements [off - head, off) into a thread's accumulator;
// thread t of nt takes elements t, t+nt, ... (head < P, so at most one).
template <class Op>
__device__ __forceinline__ void push_head(const Op& op, typename Op::Acc& a, float& comp, i64 off, i64 head, int t,
                                          int nt) {
  if (head <= 0) return;
  for (i64 e = t; e < head; e += nt)
    op.push1(a, comp, ld_elem(op, 0, off - head + e), Op::NIN > 1 ? ld_elem(op, Op::NIN - 1, off - head + e) : 0.f);
}

// Writes the output of the head elements [off - head, off) from global
// memory.
template <class Op>
__device__ __forceinline__ void out_head(const Op& op, i64 off, i64 head, int t, int nt, const typename Op::Fin& f) {
  constexpr int NIN = Op::NIN;
  if (head <= 0) return;
  for (i64 e = t; e < head; e += nt) {
    const i64 i = off - head + e;
    op.dst()[i] = Op::D::from_f(op.out1(ld_elem(op, 0, i), NIN > 1 ? ld_elem(op, NIN - 1, i) : 0.f, f));
  }
}

// Streams packs [c0 + u*step], u < UNROLL, of the row at `off` (length n) of
// every input: issues the loads (stashing into stash + i*sstride when STASH),
// then calls fn(u, b) with each pack converted to floats b[NIN][P].
template <class Op, bool STASH, class Fn>
__device__ __forceinline__ void stream_step(const Op& op, i64 off, i64 c0, i64 step, i64 n, bool vec,
                                            typename Op::T* stash, i64 sstride, Fn&& fn) {
  constexpr int P = Op::D::P;
  constexpr int UNROLL = Unroll<Op>::U;
  V16 r[Op::NIN][UNROLL] = {};
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      ld_raw<Op, STASH>(op.src(i) + off, stash + i * sstride, c0 + u * step, n, vec, r[i][u]);
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    float b[Op::NIN][P];
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      ld_cvt<Op, STASH>(op, i, r[i][u], op.src(i) + off, stash + i * sstride, c0 + u * step, n, vec, b[i]);
    fn(u, b);
  }
}

// Streaming accumulation over elements [0, n) of the row at offset off:
// thread t of nt reads packs t, t+nt, ..., UNROLL in flight, online merge per
// pack. Returns the thread's partial accumulator. With STASH the row is also
// copied to shared memory (input i at stash + i*sstride).
template <class Op, bool STASH>
__device__ __forceinline__ typename Op::Acc stream_acc(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                                       typename Op::T* stash = nullptr, i64 sstride = 0,
                                                       i64 head = 0) {
  constexpr int P = Op::D::P;
  constexpr int UNROLL = Unroll<Op>::U;
  typename Op::Acc a = Op::identity();
  float comp = 0.f;
  const i64 step = (i64)nt * P;
  for (i64 c0 = (i64)t * P; c0 < n; c0 += step * UNROLL)
    stream_step<Op, STASH>(op, off, c0, step, n, vec, stash, sstride,
                           [&](int, const float(&b)[Op::NIN][P]) { op.push(a, comp, b); });
  push_head(op, a, comp, off, head, t, nt);
  return Op::fold(a, comp);
}

// One pack of pack_acc's step: input k's pack is r[k][u], pack j of the
// slice; stashed raw (with STASH), then folded into (a, comp).
template <bool STASH, class Op, int U>
__device__ __forceinline__ void fold_pack(const Op& op, typename Op::Acc& a, float& comp,
                                          const V16 (&r)[Op::NIN][U], int u, V16* stash, i64 sstride, i64 j) {
  float b[Op::NIN][Op::D::P];
#pragma unroll
  for (int k = 0; k < Op::NIN; ++k) {
    if (STASH) stash[k * sstride + j] = r[k][u];
    unpack_conv(op, k, r[k][u], b[k]);
  }
  op.push(a, comp, b);
}

// Two-read bodies (split_row, row_2pass): pack_acc streams the first read,
// pack_out_rev the second, for the vector path (every input's pack
// [col, col+P) 16-byte aligned at off + col); elem_acc / elem_out_rev serve
// the rest. Kept apart from stream_acc, whose per-element fallback inside the
// pack loop had cost split_row 52-62 registers a thread and half its
// occupancy (H200, 1x2^24 f32: phase 1 29-35 us vs 25 for a plain kernel).
// The U packs of a full step load unguarded; the last partial step loads
// pack by pack (or, with BATCH_TAIL, all its packs before using any); the
// n % P elements past the last pack go element by element.
// With STASH every pack read is also kept raw in shared memory: input k's
// pack i at stash[k*sstride + i] (split_grid caches its chunk there).
template <class Op, bool STASH = false, bool BATCH_TAIL = false>
__device__ __forceinline__ typename Op::Acc pack_acc(const Op& op, i64 off, i64 n, int t, int nt,
                                                     V16* stash = nullptr, i64 sstride = 0, i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P, U = Unroll<Op>::U, NIN = Op::NIN;
  const i64 np = n / P;
  typename Op::Acc a = Op::identity();
  float comp = 0.f;
  i64 i = t;
  for (; i + (i64)(U - 1) * nt < np; i += (i64)U * nt) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) r[k][u] = ld16(op.src(k) + off + (i + (i64)u * nt) * P);
#pragma unroll
    for (int u = 0; u < U; ++u) fold_pack<STASH>(op, a, comp, r, u, stash, sstride, i + (i64)u * nt);
  }
  for (; i < np && !BATCH_TAIL; i += nt) {
    float b[NIN][P];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      const V16 r = ld16(op.src(k) + off + i * P);
      if (STASH) stash[k * sstride + i] = r;
      unpack_conv(op, k, r, b[k]);
    }
    op.push(a, comp, b);
  }
  // BATCH_TAIL: the last partial step (fewer than U packs left for this
  // thread) issues all of its loads before using any, like a full step.
  // Loaded and used one at a time, each pack costs a memory round trip of
  // its own, and split_grid's chunks are only a few steps a thread (H200,
  // softmax bench, three alternated rounds: 4x1048576 f16 16.1 -> 15.7 us,
  // 2x4194304 f32 29.8 -> 29.1, 4x16777216 f16 100.1 -> 98.9). The
  // streaming bodies keep the pack-by-pack tail: their rows are thousands of
  // steps a thread, and the batched one took split_row's phase 1 from 32 to
  // 50-52 registers (nvcc 11.8).
  if (BATCH_TAIL && i < np) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i + (i64)u * nt < np)
#pragma unroll
        for (int k = 0; k < NIN; ++k) r[k][u] = ld16(op.src(k) + off + (i + (i64)u * nt) * P);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (i + (i64)u * nt >= np) break;
      fold_pack<STASH>(op, a, comp, r, u, stash, sstride, i + (i64)u * nt);
    }
  }
  for (i64 e = np * P + t; e < n; e += nt)
    op.push1(a, comp, ld_elem(op, 0, off + e), NIN > 1 ? ld_elem(op, NIN - 1, off + e) : 0.f);
  push_head(op, a, comp, off, head, t, nt);
  return Op::fold(a, comp);
}

// pack_acc's output twin, evict-first 16-byte stores, the steps of U*nt
// packs last first: the first read leaves the slice's end in L2 (least
// recently used goes first), so starting the second read there turns most of
// its misses into hits whenever the slices in flight nearly fit the L2,
// instead of evicting the end while re-fetching the start.
template <class Op>
__device__ __forceinline__ void pack_out_rev(const Op& op, i64 off, i64 n, int t, int nt, const typename Op::Fin& f,
                                             i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P, U = Unroll<Op>::U, NIN = Op::NIN;
  const i64 np = n / P, step = (i64)U * nt;
  out_head(op, off, head, t, nt, f);
  for (i64 e = np * P + t; e < n; e += nt)
    op.dst()[off + e] = D::from_f(op.out1(ld_elem(op, 0, off + e), NIN > 1 ? ld_elem(op, NIN - 1, off + e) : 0.f, f));
  for (i64 s = np > 0 ? (np - 1) / step * step : 0; s >= 0; s -= step) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 pk = s + t + (i64)u * nt;
        if (pk < np) r[k][u] = ld16(op.src(k) + off + pk * P);
      }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 pk = s + t + (i64)u * nt;
      if (pk < np) {
        float b[NIN][P], o[P];
#pragma unroll
        for (int k = 0; k < NIN; ++k) unpack_conv(op, k, r[k][u], b[k]);
        op.out_vals(b, 0, o, f);
        st_cs(op.dst() + off + pk * P, D::pack(o));
      }
    }
  }
}

// Element-by-element twins of pack_acc / pack_out_rev for slices off the
// vector path (misaligned pointers, or rows that do not start on a pack):
// 4 loads of each input in flight per thread, few registers, so that the
// kernel that also holds the pack path keeps that path's occupancy.
template <class Op>
__device__ __forceinline__ typename Op::Acc elem_acc(const Op& op, i64 off, i64 n, int t, int nt) {
  constexpr int U = 4, NIN = Op::NIN;
  typename Op::Acc a = Op::identity();
  float comp = 0.f;
  for (i64 e0 = t; e0 < n; e0 += (i64)U * nt) {
    float b[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 e = e0 + (i64)u * nt;
        b[k][u] = e < n ? ld_elem(op, k, off + e) : Op::fill(k);
      }
    op.push(a, comp, b);
  }
  return Op::fold(a, comp);
}

template <class Op>
__device__ __forceinline__ void elem_out_rev(const Op& op, i64 off, i64 n, int t, int nt, const typename Op::Fin& f) {
  typedef typename Op::D D;
  constexpr int U = 4, NIN = Op::NIN;
  const i64 step = (i64)U * nt;
  for (i64 s = n > 0 ? (n - 1) / step * step : 0; s >= 0; s -= step) {
    float b[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 e = s + t + (i64)u * nt;
        b[k][u] = e < n ? ld_elem(op, k, off + e) : 0.f;
      }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 e = s + t + (i64)u * nt;
      if (e < n) op.dst()[off + e] = D::from_f(op.out1(b[0][u], NIN > 1 ? b[NIN - 1][u] : 0.f, f));
    }
  }
}

// Thread t of nt's first read of [0, n) at off (its partial) and its
// second read that writes the output, by the pack or the element bodies.
// With head > 0 (vec only) the slice starts head elements before off, the
// first 16-byte boundary (see row_head).
template <class Op>
__device__ __forceinline__ typename Op::Acc read1_acc(const Op& op, i64 off, i64 n, bool vec, int t, int nt,
                                                      i64 head = 0) {
  return vec ? pack_acc(op, off, n, t, nt, nullptr, 0, head) : elem_acc(op, off, n, t, nt);
}

template <class Op>
__device__ __forceinline__ void read2_out(const Op& op, i64 off, i64 n, bool vec, int t, int nt,
                                          const typename Op::Fin& f, i64 head = 0) {
  if (vec)
    pack_out_rev(op, off, n, t, nt, f, head);
  else
    elem_out_rev(op, off, n, t, nt, f);
}

// Writes the output of [0, n) from the shared-memory copy (input i at
// sm + i*stride), packs t, t+nt, ... of the row at global offset off.
// head > 0: the head elements before off are written from global memory
// (stream_acc read them there; see row_head).
template <class Op>
__device__ __forceinline__ void smem_out(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                         const typename Op::T* sm, i64 stride, const typename Op::Fin& f,
                                         i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  out_head(op, off, head, t, nt, f);
  for (i64 col = (i64)t * P; col < n; col += (i64)nt * P) {
    float b[Op::NIN][P];
    load_vals_smem(op, b, 0, col, n, vec, sm, stride);
    float o[P];
    op.out_vals(b, 0, o, f);
    st_pack<D, false>(op.dst() + off, col, n, vec, o);
  }
}

// A whole row by one block in two reads: online (m,d) (or the gradient sum)
// over 16-byte packs, block merge, then a second read (mostly from L2) that
// writes the output. Any row length.
// SHIFT: a ragged row (Params.vec == 2) takes the vector path from its first
// 16-byte boundary, its head element by element (row_head).
template <class Op, bool SHIFT = false>
__device__ __forceinline__ void row_2pass(const Op& op, i64 off, i64 n, bool vec) {
  const i64 head = SHIFT ? row_head<typename Op::D>(op.src(0), off, n) : 0;
  typename Op::Acc a = block_reduce<Op>(read1_acc(op, off + head, n - head, vec, threadIdx.x, blockDim.x, head));
  read2_out(op, off + head, n - head, vec, threadIdx.x, blockDim.x, op.finalize(a), head);
}

// Rounds n elements of type T up to a whole number of 16-byte packs.
template <class D>
__device__ __forceinline__ i64 pack_round(i64 n) {
  return (n + D::P - 1) / D::P * D::P;
}

}  // namespace smx
