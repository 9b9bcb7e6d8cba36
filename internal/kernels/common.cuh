// common.cuh: the one header shared by every softmax strategy module.
//
// Compiled at run time by NVRTC (CUDA 13, --std=c++17 -default-device) and
// offline by nvcc for checks. It includes only its own parts (the header map
// Source hands NVRTC): NVRTC has no standard headers here, so conversions,
// exp/log and cluster access are spelled with inline PTX and compiler
// builtins only. The inline-PTX primitives sit in "#ifndef SMX_EMU" blocks:
// an offline host emulator (not part of the build) defines SMX_EMU and
// supplies C++ versions of exactly those functions.
//
// Contents, by file
//   common.cuh      Params, the single by-value kernel parameter (mirrored by
//                   kernels.Params in Go); SMX_KERNEL, the macro that emits one
//                   extern "C" __global__ symbol (the Go catalogue appends one
//                   line of it per kernel a compilation needs)
//   math.cuh        accurate fast exp (ex2.approx with a hi/lo split of log2 e),
//                   a cheaper exp for 16-bit outputs, log, max, Kahan and
//                   pairwise sums
//   dtypes.cuh      F32 / F16 / BF16 storage traits: scalar and 16-byte pack
//                   conversions between storage and float math
//   functors.cuh    Load (storage float -> math value: scale) and Store
//                   (output float -> storage) functors of the ops
//   load_store.cuh  16-byte vector access with a masked scalar path and tail
//   ops.cuh         Fwd<D> (softmax / log_softmax, scale fused on load, (m,d)
//                   accumulator with the -inf-safe merge) and Bwd<D> (both
//                   gradients)
//   reduce.cuh      sub-warp group, warp and block reductions of any op
//                   accumulator
//   cluster.cuh     thread-block-cluster / distributed shared memory PTX (sm_90+)
//   bodies.cuh      row bodies used by more than one strategy (register-cached
//                   row, streaming two-pass row)
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
// A bound of two numbers is written SMX_BOUNDS(threads, blocks), so that it
// stays one macro argument.
#define SMX_BOUNDS(...) __VA_ARGS__
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
//       32    4 scale  softmax(scale*x); backward: dx times scale
//       36    4 log    1: log_softmax (or its gradient)
//       40    4 split  chunks per slice (split strategies), else 1
//       44    4 vec    1: 16-byte vector path allowed (pointers 16-byte aligned
//                      and every row / chunk start a multiple of 16 bytes)
//       48    8 dy     incoming gradient (backward only, else null)
//       56    8 ws     workspace for split strategies (a float pair a partial,
//                      a double pair for float64: WsPair)
//       64    8 inner  element (o,j,i) lives at (o*axis + j)*inner + i
//       72    8 chunk  axis elements per split chunk (split strategies), else 0
//       80    8 bar    grid-barrier word (split_grid), else null
//       88    8 scale64 scale in double, for float64 math
//   size 96, alignment 8
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
  double scale64;
};

static_assert(sizeof(Params) == 96, "Params layout is mirrored in Go");

// The scale in math type M: float for the 32- and 16-bit dtypes, double
// (Params.scale64) for float64.
template <class M>
__device__ __forceinline__ M scale_of(const Params& p) {
  return p.scale;
}
template <>
__device__ __forceinline__ double scale_of<double>(const Params& p) {
  return p.scale64;
}

// 16 bytes of raw storage, the unit of vector loads and stores.
struct alignas(16) V16 {
  u32 w[4];
};

// A float pair as stored in the split workspace.
struct alignas(8) F2 {
  float a, b;
};

// A double pair: F2 for float64 math (the workspace holds 16 bytes a
// partial).
struct alignas(16) D2 {
  double a, b;
};

// The workspace pair of math type M: F2 for float, D2 for double.
template <class M>
struct WsPair {
  typedef F2 type;
};
template <>
struct WsPair<double> {
  typedef D2 type;
};

}  // namespace smx

#include "math.cuh"
#include "dtypes.cuh"
#include "functors.cuh"
#include "load_store.cuh"
#include "ops.cuh"
#include "reduce.cuh"
#include "cluster.cuh"
#include "bodies.cuh"
