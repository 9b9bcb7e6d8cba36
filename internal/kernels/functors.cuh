// functors.cuh: the Load and Store functors an op applies between storage
// and float math, as OneFlow's softmax.cuh does.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
//
// The dtype traits (dtypes.cuh) convert storage to float and back; a Load
// functor then maps an input's float to the op's math value (Fwd: the scale
// of softmax(scale·x); later a bias or a mask), and a Store functor is the
// storage an output's float goes to (later a fused cross-entropy gradient).
// The kernel bodies reach them only through their Op (Op::conv, Op::Store),
// so a new pre- or post-op is a functor and catalogue entries, not a new
// strategy file. They are inlined: the code is the one the bodies had with
// the conversions written in place.
#pragma once

namespace smx {

// DirectLoad reads every input as it is (Bwd: y and dy).
struct DirectLoad {
  __device__ __forceinline__ explicit DirectLoad(const Params&) {}
  template <class M>
  __device__ __forceinline__ M operator()(int, M v) const {
    return v;
  }
  // flips: the map reverses order (a max of raw values is the min of mapped
  // ones), which Fwd::reduce_raw must know.
  __device__ __forceinline__ bool flips() const { return false; }
};

// ScaleLoad forms scale·x on load; PLAIN (the plain-softmax build,
// SMX_PLAIN) folds the multiply away.
template <bool PLAIN>
struct ScaleLoad {
  float scale;
  double scale64;  // float64 math's (an f32 kernel never reads it)
  __device__ __forceinline__ explicit ScaleLoad(const Params& p)
      : scale(PLAIN ? 1.f : p.scale), scale64(PLAIN ? 1.0 : p.scale64) {}
  __device__ __forceinline__ float of(float) const { return scale; }
  __device__ __forceinline__ double of(double) const { return scale64; }
  template <class M>
  __device__ __forceinline__ M operator()(int, M v) const {
    return PLAIN ? v : v * of(M());
  }
  __device__ __forceinline__ bool flips() const { return !PLAIN && scale < 0.f; }
};

// DirectStore stores an output in the storage dtype D as it is: D's T, P,
// pack and from_f, which st_pack and the bodies' stores call through
// Op::Store.
template <class D>
struct DirectStore : D {};

}  // namespace smx
