// strided_narrow: softmax along a non-last axis whose Inner is narrow (a
// power of two from 2 up to 8 packs), read as each outer index's contiguous
// block of Axis x Inner elements. strided gives a thread one slice and
// steps it down the axis, Inner elements apart (100000x64x4 f32: 0.15 of
// copy, behind torch); strided_reg's tiles are 8-32 packs wide, so a
// narrower Inner leaves most of their lanes idle.
//
// Here a group of GW warps (Params.split) owns one outer index and reads
// its block as one run of 16-byte packs: warp w of the group takes the
// run's w-th chunk of 32*H packs (H, the kernel's compile-time count), lane
// l its packs l, l + 32, ..., so each load instruction of a warp is 512
// contiguous bytes and a thread's packs sit at compile-time offsets from
// one pointer. Because Inner divides 32*P, each of a thread's P elements
// keeps one column (inner index) through all its packs: element e of lane
// l is column (l*P + e) mod Inner. A slice's reduction is then the
// thread's own H values, an in-thread fold where a pack holds several rows
// (Inner < P), shuffles over the lanes holding the same columns (L =
// Inner/P lanes of distinct columns, xor offsets L..16), and with GW > 1 a
// merge of the warps' partials through shared memory. One read, one exp an
// element (forward), no second pass.
//
// "_shift" twins (Params.vec 2) take any alignment and blocks that are not
// whole packs (Axis*Inner not a multiple of P): the same body with P scalar
// accesses per pack, each guarded by the block's end.
//
//   strided_narrow_{fwd,bwd}_{dt}_h{H}[_shift]   H = 1, 2, 4, 8 packs a
//                                               thread, H*P*NIN <= 64
//                                               floats (16-bit backward to
//                                               4)
//
// Launch contract (outer, axis, inner):
//   inner a power of two from 2 to 8 packs (32 f32, 64 f16/bf16); the
//          block's packs ceil(axis*inner/P) <= 32*GW*H
//   block  (256, 1, 1): 256/(32*GW) groups, one outer index each
//   grid   (g, 1, 1), grid-stride over outer indices in steps of the groups
//          of the grid
//   params split = GW (1, 2, 4 or 8 warps a group); vec 1 (16-byte aligned
//          pointers, axis*inner a multiple of P) or 2 (the twins)
//   smem   static only (GW > 1); ws none
#include "common.cuh"

namespace smx {

// The widest Inner, in floats, whose partials a group's warps share: 8
// packs of 16-bit values (32 f32).
constexpr int NarrowMaxCols = 64;
constexpr int NarrowThreads = 256;

// Folds a thread's P partials over the elements of one column: with Inner
// < P a pack holds P/Inner rows, element e being column e mod Inner. Every
// element of a column ends with the same bits (the merges are commutative).
template <class R, int P>
__device__ __forceinline__ void narrow_fold(typename R::Acc (&a)[P], int inner) {
#pragma unroll
  for (int s = 1; s < P; s <<= 1) {
    if (s < inner) continue;
    typename R::Acc t[P];
#pragma unroll
    for (int e = 0; e < P; ++e) t[e] = R::merge(a[e], a[e ^ s]);
#pragma unroll
    for (int e = 0; e < P; ++e) a[e] = t[e];
  }
}

// Reduces a thread's P per-column partials over its group: the fold, the
// lanes of a warp that hold the same columns (xor offsets from L = Inner/P
// up), then with gw > 1 the group's warps through red[warp][column]. With
// gw > 1 it is a barrier of the whole block: every thread calls it (the
// loop over outer indices runs the same trips in all of them), and a
// buffer is written again only after a later barrier, so no thread still
// reads it.
template <class R, int P>
__device__ __forceinline__ void narrow_reduce(typename R::Acc (&a)[P], int inner, int gw,
                                              typename R::Acc (*red)[NarrowMaxCols]) {
  narrow_fold<R, P>(a, inner);
  const int L = inner > P ? inner / P : 1;
#pragma unroll
  for (int s = 16; s >= 1; s >>= 1) {
    if (s < L) break;
#pragma unroll
    for (int e = 0; e < P; ++e) a[e] = R::merge(a[e], __shfl_xor_sync(0xffffffffu, a[e], s));
  }
  if (gw == 1) return;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, first = warp - warp % gw;
#pragma unroll
  for (int e = 0; e < P; ++e)
    if (lane * P + e < inner) red[warp][lane * P + e] = a[e];
  __syncthreads();
#pragma unroll
  for (int e = 0; e < P; ++e) {
    const int col = (lane * P + e) & (inner - 1);
    typename R::Acc v = red[first][col];
    for (int w = 1; w < gw; ++w) v = R::merge(v, red[first + w][col]);
    a[e] = v;
  }
}

// The group partials' buffers: forward uses both each trip (max, sum),
// backward alternates them trip by trip.
template <class M>
using NarrowRedOf = M[2][NarrowThreads / 32][NarrowMaxCols];

// The body: LOG a compile-time log_softmax flag (as in strided_short),
// TWIN the scalar path. Groups past the last outer index take part in the
// barriers with nothing loaded (every value Op::fill) and store nothing.
template <bool LOG, class Op, int H, bool TWIN>
__device__ __forceinline__ void strided_narrow_body(const Params& p, NarrowRedOf<typename Op::M>& red) {
  typedef typename Op::D D;
  typedef typename Op::M M;
  typedef typename Op::T ET;
  constexpr int P = D::P, NIN = Op::NIN;
  const Op op(p);
  const int inner = (int)p.inner, gw = p.split, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int groups = blockDim.x / (32 * gw), g = warp / gw;
  // Element offset of the thread's first pack in the block: warp wg of the
  // group reads packs [32*H*wg, 32*H*(wg + 1)), lane l packs l, l + 32, ...,
  // so a thread's packs are 32*P elements apart (a compile-time offset from
  // one pointer; with GW*32 apart, ptxas kept an address a pack).
  const int at0 = ((warp - g * gw) * 32 * H + lane) * P;
  const i64 n = p.axis * p.inner;  // elements of an outer index's block (< 2^31: the contract's packs)
  constexpr int STEP = 32 * P;
  int trip = 0;
  for (i64 o0 = (i64)blockIdx.x * groups; o0 < p.outer; o0 += (i64)gridDim.x * groups, ++trip) {
    const i64 o = o0 + g;
    const bool live = o < p.outer;
    // The thread's elements left in the block from at0 (<= 0: none).
    const int rem = live ? (int)(n - at0) : 0;
    const i64 base = (live ? o : 0) * n + at0;
    // Packs past the block read nothing but are still set (to 0, then
    // Op::fill): left unset in a grid-stride loop, ptxas kept the previous
    // trip's values live across it (f32 h16: 876 bytes of spills at 128
    // registers, 172 set).
    M v[NIN][H][P];
    if constexpr (TWIN) {
      ET raw[NIN][H][P];
#pragma unroll
      for (int k = 0; k < H; ++k)
#pragma unroll
        for (int e = 0; e < P; ++e)
#pragma unroll
          for (int i = 0; i < NIN; ++i)
            raw[i][k][e] = k * STEP + e < rem ? op.src(i)[base + k * STEP + e] : ET{};
#pragma unroll
      for (int k = 0; k < H; ++k)
#pragma unroll
        for (int e = 0; e < P; ++e)
#pragma unroll
          for (int i = 0; i < NIN; ++i)
            v[i][k][e] = k * STEP + e < rem ? op.conv(i, D::to_f(raw[i][k][e])) : Op::fill(i);
    } else {
      V16 raw[NIN][H];
#pragma unroll
      for (int k = 0; k < H; ++k)
#pragma unroll
        for (int i = 0; i < NIN; ++i)
          raw[i][k] = k * STEP < rem ? ld16(op.src(i) + base + k * STEP) : V16{};
#pragma unroll
      for (int k = 0; k < H; ++k)
#pragma unroll
        for (int i = 0; i < NIN; ++i) {
          unpack_conv(op, i, raw[i][k], v[i][k]);
          if (k * STEP >= rem)
#pragma unroll
            for (int e = 0; e < P; ++e) v[i][k][e] = Op::fill(i);
        }
    }
    typename Op::Fin f[P];
    if constexpr (Op::BACKWARD) {
      M s[P];
#pragma unroll
      for (int e = 0; e < P; ++e) {
        s[e] = 0.f;
#pragma unroll
        for (int k = 0; k < H; ++k) s[e] += op.term(v[0][k][e], v[1][k][e]);
      }
      narrow_reduce<RedSumOf<M>, P>(s, inner, gw, red[trip & 1]);
#pragma unroll
      for (int e = 0; e < P; ++e) f[e] = op.finalize(s[e]);
    } else {
      M m[P], d[P];
#pragma unroll
      for (int e = 0; e < P; ++e) {
        m[e] = v[0][0][e];
#pragma unroll
        for (int k = 1; k < H; ++k) m[e] = fmax2(m[e], v[0][k][e]);
      }
      narrow_reduce<RedMaxOf<M>, P>(m, inner, gw, red[0]);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        // safe: an all -inf slice subtracts 0 (its outputs are NaN anyway).
        const M sm = safe(m[e]);
        d[e] = 0.f;
#pragma unroll
        for (int k = 0; k < H; ++k) {
          const M x = v[0][k][e] - sm, y = Op::ex(x);
          v[0][k][e] = LOG ? x : y;
          d[e] += y;
        }
      }
      narrow_reduce<RedSumOf<M>, P>(d, inner, gw, red[1]);
#pragma unroll
      for (int e = 0; e < P; ++e) f[e] = op.finalize(typename Op::Acc{m[e], d[e]});
    }
    ET* const out = op.dst() + base;
#pragma unroll
    for (int k = 0; k < H; ++k) {
      M y[P];
#pragma unroll
      for (int e = 0; e < P; ++e) {
        if constexpr (Op::BACKWARD)
          y[e] = op.out1(v[0][k][e], v[1][k][e], f[e]);
        else
          y[e] = LOG ? v[0][k][e] - f[e].lse : v[0][k][e] * f[e].rd;
      }
      if constexpr (TWIN) {
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (k * STEP + e < rem) out[k * STEP + e] = Op::Store::from_f(y[e]);
      } else if (k * STEP < rem) {
        st_cs(out + k * STEP, Op::Store::pack(y));
      }
    }
  }
}

template <class Op, int H, bool TWIN>
__device__ __forceinline__ void strided_narrow_kernel(const Params& p) {
  // Host bugs: the other path's kernel, a group size or Inner outside the
  // contract, or a block longer than the group holds.
  constexpr int P = Op::D::P;
  const int gw = p.split;
  const i64 n = p.axis * p.inner;
  if (p.vec != (TWIN ? 2 : 1) || (gw != 1 && gw != 2 && gw != 4 && gw != 8) || blockDim.x != NarrowThreads ||
      p.inner < 2 || p.inner > 8 * P || (p.inner & (p.inner - 1)) != 0 || (!TWIN && n % P != 0) ||
      (n + P - 1) / P > (i64)32 * gw * H)
    __trap();
  static_assert(8 * P <= NarrowMaxCols, "a group's partials hold 8 packs of columns");
  __shared__ NarrowRedOf<typename Op::M> red;
  constexpr bool CAN_LOG = !Op::BACKWARD;
  if (CAN_LOG && p.log != 0)
    strided_narrow_body<CAN_LOG, Op, H, TWIN>(p, red);
  else
    strided_narrow_body<false, Op, H, TWIN>(p, red);
}

}  // namespace smx
