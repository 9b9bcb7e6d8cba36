// Host emulation of the CUDA subset the softmax kernels use: fibers per
// thread (ucontext), block barriers, warp shuffles, and C++ versions of the
// inline-PTX primitives that common.cuh excludes under SMX_EMU.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#define SMX_EMU 1
#define __device__
#define __global__
#define __forceinline__ inline
#define SMX_NOINLINE
#define __launch_bounds__(...)
#define __shared__ static
struct dim3 { unsigned x, y, z; };
namespace emu {
struct Thread;
extern dim3 g_blockIdx, g_blockDim, g_gridDim;
extern Thread* cur;
extern void* dyn_smem_ptr;
extern unsigned dyn_smem_size;
dim3& tid();
void syncthreads();
float shfl_xor(float v, int mask);
double shfl_xor(double v, int mask);
[[noreturn]] void trap();
// The running case's input tensors, [in_lo[i], in_hi[i]). A 16-byte read
// (ld16, cp_async16) near one must lie between the 16-byte boundary at or
// before its start and its end: on a GPU the allocation may end where the
// tensor does (compute-sanitizer's memcheck holds it to that), while the
// pack before a skewed tensor's start shares a 16-byte block with it, so
// its allocation. Reads that break this are counted in bad_reads.
// Guard bytes the driver leaves before and after each tensor: reads within
// them count as near the tensor.
constexpr int guard_bytes = 64;
extern const char* in_lo[2];
extern const char* in_hi[2];
extern long long bad_reads;
void check_read(const void* p, int bytes);
}
#define threadIdx (emu::tid())
#define blockIdx (emu::g_blockIdx)
#define blockDim (emu::g_blockDim)
#define gridDim (emu::g_gridDim)
inline void __syncthreads() { emu::syncthreads(); }
inline float __shfl_xor_sync(unsigned, float v, int m, int = 32) { return emu::shfl_xor(v, m); }
inline double __shfl_xor_sync(unsigned, double v, int m, int = 32) { return emu::shfl_xor(v, m); }
inline double __hiloint2double(int hi, int lo) { unsigned long long u = (unsigned long long)(unsigned)hi << 32 | (unsigned)lo; double d; memcpy(&d, &u, 8); return d; }
inline int __double2hiint(double d) { unsigned long long u; memcpy(&u, &d, 8); return (int)(u >> 32); }
inline int __double2loint(double d) { unsigned long long u; memcpy(&u, &d, 8); return (int)(unsigned)u; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline float __int_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; memcpy(&i, &f, 4); return i; }
inline void __trap() { emu::trap(); }
namespace smx {
typedef unsigned int u32;
typedef unsigned short u16;
struct V16;
inline float fmax2(float a, float b) { return fmaxf(a, b); }
inline float fmin2(float a, float b) { return fminf(a, b); }
inline double fmax2(double a, double b) { return fmax(a, b); }
inline double fmin2(double a, double b) { return fmin(a, b); }
inline float fma_rn(float a, float b, float c) { return fmaf(a, b, c); }
// ex2.approx (~2 ulp on the GPU) is emulated exactly.
inline float ex2(float x) { return exp2f(x); }
// ex2.approx.ftz: subnormal results flushed to zero.
inline float ex2_ftz(float x) {
  const float r = exp2f(x);
  return r < FLT_MIN ? 0.f : r;
}
inline float max_keep_nan(float x, float lo) { return x < lo ? lo : x; }
inline float min_keep_nan(float x, float hi) { return x > hi ? hi : x; }
inline float lg2(float x) { return log2f(x); }
inline float h2f(u16 h) { _Float16 v; memcpy(&v, &h, 2); return (float)v; }
inline u16 f2h(float f) { _Float16 v = (_Float16)f; u16 h; memcpy(&h, &v, 2); return h; }
inline float bf2f(u16 h) { return __uint_as_float(((u32)h) << 16); }
inline u16 f2bf(float f) {
  u32 u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u16)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (u16)(u >> 16);
}
inline u32 pack_h2(float lo, float hi) { return (u32)f2h(lo) | ((u32)f2h(hi) << 16); }
inline u32 pack_bf2(float lo, float hi) { return (u32)f2bf(lo) | ((u32)f2bf(hi) << 16); }
inline void unpack_h2(u32 w, float& lo, float& hi) { lo = h2f((u16)(w & 0xffff)); hi = h2f((u16)(w >> 16)); }
inline void* dyn_smem() { return emu::dyn_smem_ptr; }
// A template so that V16 (declared, defined later by common.cuh) is only
// needed complete where ld16 is used.
template <class V = V16>
inline V ld16(const void* p) {
  emu::check_read(p, 16);
  V r;
  memcpy(&r, p, sizeof r);
  return r;
}
inline void st_cs(void* p, const V16& r) { memcpy(p, &r, 16); }
template <class V = V16>
inline V fresh(V r) { return r; }
// cp.async emulated as a synchronous copy: every committed group has landed
// by the time a wait runs.
inline u32 dyn_smem_bytes() { return emu::dyn_smem_size; }
inline void cp_async16(void* sdst, const void* gsrc) {
  emu::check_read(gsrc, 16);
  memcpy(sdst, gsrc, 16);
}
inline void cp_async_commit() {}
inline void cp_async_wait(int) {}
}
