// reduce.cuh: reductions: sub-warp group, warp and block reductions of any op accumulator.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- reductions

template <class A>
struct IsMD {
  static constexpr bool value = false;
};
template <class M>
struct IsMD<MDT<M>> {
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
    typedef decltype(a.m) M;
    M m = a.m;
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) m = fmax2(m, __shfl_xor_sync(0xffffffffu, m, o));
    M d = a.d * fexp_nonpos(a.m - safe(m));
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) d += __shfl_xor_sync(0xffffffffu, d, o);
    return typename Op::Acc{m, d};
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
template <class M>
struct LeadBarrier<RedMaxOf<M>> {
  static constexpr bool value = false;
};
template <class M>
struct LeadBarrier<RedSumOf<M>> {
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

}  // namespace smx
