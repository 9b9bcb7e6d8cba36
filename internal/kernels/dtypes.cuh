// dtypes.cuh: storage dtypes: F32 / F16 / BF16 traits, the scalar and 16-byte
// pack conversions between storage and float math.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

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

// Storage traits: T is the element type, M the math type its values are
// computed in (float, double for F64), P the elements per 16-byte pack.
struct F32 {
  typedef float T;
  typedef float M;
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
  typedef float M;
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
  typedef float M;
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

// float64: double storage and double math (exp and log in double), two
// elements a pack.
struct F64 {
  typedef double T;
  typedef double M;
  static constexpr int P = 2;
  static constexpr bool FAST_EXP = false;
  static constexpr bool FTZ_EXP = false;
  static __device__ __forceinline__ double to_f(T v) { return v; }
  static __device__ __forceinline__ T from_f(double v) { return v; }
  static __device__ __forceinline__ void unpack(const V16& r, double* f) {
    f[0] = __hiloint2double((int)r.w[1], (int)r.w[0]);
    f[1] = __hiloint2double((int)r.w[3], (int)r.w[2]);
  }
  static __device__ __forceinline__ V16 pack(const double* f) {
    V16 r;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      r.w[2 * k] = (u32)__double2loint(f[k]);
      r.w[2 * k + 1] = (u32)__double2hiint(f[k]);
    }
    return r;
  }
};

}  // namespace smx
