// strided_short: softmax along a short non-last axis (2 to 48 rows, 32
// backward), each thread, lane pair or four lanes holding its slices' whole
// axis in registers: one read, one write, no shared memory and no barrier. strided
// spreads a slice over TY threads and merges their partials through a
// shared-memory tree, then reads the slice again; on axes of a few rows
// that left each thread one to three steps between two barriers, and
// 0.1-0.3 of copy speed.
//
// Thread it of the grid owns pack it of the Outer x Inner/P packs (P = 4
// f32, 8 f16/bf16 consecutive inner indices, so a warp's loads are runs of
// consecutive packs) along all A axis rows: A 16-byte loads, all issued
// before the first is used, then per slice the max, exp(v - max) kept in
// place (log_softmax: v - max), their sum, and A 16-byte stores of the
// output (a multiply; log: a subtract). Backward holds y and dy. A 16-bit
// tile past 64 floats stays in its raw packs and is converted at each use
// (ShortPacked), so every dtype has the same axis range.
//
// Past 16 rows (8 backward) two lanes 16 apart share each pack, each
// holding H = ceil(axis/2) rows of it, and one shuffle merges their max and
// their sum (ShortLanes); past 32 rows (16 backward) four lanes 8 apart, H
// = ceil(axis/4), two shuffles. 17-48 rows sat between this kernel's
// one-lane limit and strided_reg's 48 rows, on strided at 0.09-0.49 of
// copy; at 48 rows four lanes also beat strided_reg (-ab-s34.txt §3).
//
// The rows a lane holds are a compile-time constant, one kernel per count:
// with A a run-time bound on a fixed tile (rows past it guarded), ptxas
// kept loaded and converted values apart and predicated every address
// (nvcc 11.8 sm_90, f32 forward, 16-row tile: 173 registers, against 85 for
// A = 16). A kernel of T lanes serves the T axis lengths that round up to
// its H: the last lane's rows past the axis read its last row again and
// count as Op::fill, one select each (ShortPart).
//
// An Inner that is not whole packs (or unaligned pointers) takes the
// "_shift" twins: 2 or 4 slices a lane, 32/T apart, scalar accesses (see
// strided_short_shift_body).
//
//   strided_short_{fwd,bwd}_{dt}_a{A}   A = 2..16 forward, 2..8 backward
//                                      (A*NIN <= 16: at most 256 bytes of
//                                      raw packs a thread)
//   strided_short_{fwd,bwd}_{dt}_p{H}   lane pairs: axis 2H-1 or 2H, H =
//                                      9..16 forward, 5..8 backward
//   strided_short_{fwd,bwd}_{dt}_q{H}   four lanes: axis 4H-3..4H, H =
//                                      9..12 forward, 5..8 backward
//   strided_short_..._shift            the twin of each
//
// Launch contract (outer, axis, inner), axis == A, 2H-1..2H or 4H-3..4H
// (the kernels trap otherwise):
//   block  (nt, 1, 1), nt a multiple of 32, nt <= 256
//   grid   (gx, 1, 1), grid-stride: over the Outer*Inner/P packs, T lanes a
//          pack (Params.vec == 1: Inner % P == 0 and 16-byte aligned
//          pointers), or for the twins (Params.vec == 2, any Inner) over
//          warp tiles of (32/T)*S consecutive slices o*Inner + i, S =
//          ShortTwinSlices; T = 1 (a{A}), 2 (p{H}) or 4 (q{H})
//   params chunk and split unused; smem none; ws none
#include "common.cuh"

namespace smx {

// The merge of a slice's partials over the T lanes that hold it, 32/T
// apart: every lane of the group gets the same bits (a + b == b + a, and
// with four lanes (a + b) + (c + d) == (c + d) + (a + b)).
template <int T>
struct ShortLanes {
  template <class M>
  static __device__ __forceinline__ M max(M v) {
    if constexpr (T == 4) v = fmax2(v, __shfl_xor_sync(0xffffffffu, v, 8));
    if constexpr (T >= 2) v = fmax2(v, __shfl_xor_sync(0xffffffffu, v, 16));
    return v;
  }
  template <class M>
  static __device__ __forceinline__ M sum(M v) {
    if constexpr (T == 4) v += __shfl_xor_sync(0xffffffffu, v, 8);
    if constexpr (T >= 2) v += __shfl_xor_sync(0xffffffffu, v, 16);
    return v;
  }
};

// A lane's share of its slices' rows: T lanes 32/T apart hold a slice, part
// q of them rows [q*H, q*H + rows). rows is H but on the last part of an
// axis short of T*H, which lacks up to T - 1 rows: only those rows need a
// run-time test, the others are the lane's at compile time.
template <int T, int H>
struct ShortPart {
  static constexpr int L = 32 / T;  // lanes of distinct slices in a warp
  int q, rows;
  __device__ __forceinline__ explicit ShortPart(int axis)
      : q(T == 1 ? 0 : (int)(threadIdx.x / L) & (T - 1)), rows(T == 1 ? H : (axis - q * H < H ? axis - q * H : H)) {}
  __device__ __forceinline__ bool has(int k) const { return k < H - (T - 1) || k < rows; }
  // The row to load for k: k, or (a row the lane lacks) its last one again.
  __device__ __forceinline__ int load_row(int k) const { return has(k) ? k : rows - 1; }
};

// Reduces N slices of H rows held as floats, v[i][k][e] = row k of slice e
// of input i, over the T lanes holding the slices: f gets the slices'
// constants, and forward v[0] becomes what the output scales: exp(v - m),
// or (LOG) v - m. Rows a lane lacks hold Op::fill.
template <bool LOG, class Op, int T, int H, int N>
__device__ __forceinline__ void short_reduce(const Op& op, typename Op::M (&v)[Op::NIN][H][N], typename Op::Fin (&f)[N]) {
  constexpr int P = N;
  if constexpr (Op::BACKWARD) {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      typename Op::M s = 0.f;
#pragma unroll
      for (int k = 0; k < H; ++k) s += op.term(v[0][k][e], v[1][k][e]);
      f[e] = op.finalize(ShortLanes<T>::sum(s));
    }
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      typename Op::M m = v[0][0][e];
#pragma unroll
      for (int k = 1; k < H; ++k) m = fmax2(m, v[0][k][e]);
      m = ShortLanes<T>::max(m);
      // s = m, or 0 for an all -inf slice (whose outputs come out NaN
      // either way), as in Fwd::reduce_cached.
      const typename Op::M s = safe(m);
      typename Op::M d = 0.f;
#pragma unroll
      for (int k = 0; k < H; ++k) {
        const typename Op::M x = v[0][k][e] - s, y = Op::ex(x);
        v[0][k][e] = LOG ? x : y;
        d += y;
      }
      f[e] = op.finalize(typename Op::Acc{m, ShortLanes<T>::sum(d)});
    }
  }
}

// The output of element (k, e) of a reduced tile.
template <bool LOG, class Op, int H, int N>
__device__ __forceinline__ typename Op::M short_out(const Op& op, const typename Op::M (&v)[Op::NIN][H][N], int k, int e,
                                           const typename Op::Fin& f) {
  if constexpr (Op::BACKWARD)
    return op.out1(v[0][k][e], v[1][k][e], f);
  else
    return LOG ? v[0][k][e] - f.lse : v[0][k][e] * f.rd;
}

// Whether a tile stays packed: a 16-bit tile of more than 64 floats (forward
// past 8 rows a lane, backward past 4) is held as its H raw 16-byte packs an
// input, half the registers, and each value is converted again at each use
// (see short_packed_tile). Float tiles, and 16-bit ones up to 64 floats,
// are converted once.
template <class Op, int H>
struct ShortPacked {
  static constexpr bool value = Op::D::P * H * Op::NIN > 64;
};

// Element e of raw row r of input i, as the op reads it; Op::fill for a
// row the lane lacks (has false).
template <class Op>
__device__ __forceinline__ float short_elem(const Op& op, int i, const V16& r, int e, bool has) {
  const float v = op.conv(i, Op::D::elem(r, e));
  return has ? v : Op::fill(i);
}

// Reduces the P slices of a tile held as raw packs, raw[i][k] = row k of
// input i (over the T lanes holding the slices), and stores the output rows
// at dst + k*inner (the rows the lane has) when `store`. Forward takes
// the max, then the sum of exp(v - max), then recomputes exp(v - max) for
// the output (log_softmax: v - max - log sum): two exps an element, which
// the SFUs keep well under the memory time, against 64 more live registers
// (converted, a 16-row f16 tile is 128 floats). The arithmetic is that of
// short_reduce and short_out, value for value.
template <bool LOG, class Op, int T, int H>
__device__ __forceinline__ void short_packed_tile(const Op& op, const V16 (&raw)[Op::NIN][H],
                                                  const ShortPart<T, H>& part, typename Op::T* dst, i64 inner,
                                                  bool store) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  typename Op::Fin f[P];
#pragma unroll
  for (int e = 0; e < P; ++e) {
    if constexpr (Op::BACKWARD) {
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < H; ++k)
        s += op.term(short_elem(op, 0, raw[0][k], e, part.has(k)), short_elem(op, 1, raw[1][k], e, part.has(k)));
      f[e] = op.finalize(ShortLanes<T>::sum(s));
    } else {
      float m = short_elem(op, 0, raw[0][0], e, true);  // every part has row 0
#pragma unroll
      for (int k = 1; k < H; ++k) m = fmax2(m, short_elem(op, 0, raw[0][k], e, part.has(k)));
      m = ShortLanes<T>::max(m);
      const float s = safe(m);
      float d = 0.f;
#pragma unroll
      for (int k = 0; k < H; ++k) d += Op::ex(short_elem(op, 0, raw[0][k], e, part.has(k)) - s);
      f[e] = op.finalize(MD{m, ShortLanes<T>::sum(d)});
    }
  }
  if (!store) return;
#pragma unroll
  for (int k = 0; k < H; ++k) {
    float y[P];
#pragma unroll
    for (int e = 0; e < P; ++e) {
      if constexpr (Op::BACKWARD) {
        y[e] = op.out1(short_elem(op, 0, raw[0][k], e, true), short_elem(op, 1, raw[1][k], e, true), f[e]);
      } else {
        const float x = short_elem(op, 0, raw[0][k], e, true) - safe(f[e].m);
        y[e] = LOG ? x - f[e].lse : Op::ex(x) * f[e].rd;
      }
    }
    if (part.has(k)) st_cs(dst + k * inner, Op::Store::pack(y));
  }
}

// Whether the launch's axis is one a kernel of H rows a lane over T lanes
// serves: T*H - (T - 1) .. T*H rows (T = 1: H).
template <int T, int H>
__device__ __forceinline__ bool short_axis_ok(const Params& p) {
  return p.axis <= T * H && p.axis >= T * H - (T - 1);
}

// The body, LOG a compile-time log_softmax flag: with the op picked per
// element, ptxas kept both exp(v - m) and v - m of every value live from the
// reduction to the output. T lanes 32/T apart share a pack (ShortPart), so
// each 32/T-lane part of a warp loads a run of 512/T bytes of one row;
// lanes past the last pack take the last pack (their loads stay in bounds
// and the group's shuffles stay whole) and store nothing. Rows the last
// part lacks read its last row again and count as Op::fill.
template <bool LOG, class Op, int T, int H>
__device__ __forceinline__ void strided_short_body(const Params& p) {
  typedef typename Op::D D;
  constexpr int P = D::P, NIN = Op::NIN;
  const Op op(p);
  const int axis = T == 1 ? H : p.axis;
  const i64 inner = p.inner, ppo = inner / P, packs = p.outer * ppo;
  constexpr int L = ShortPart<T, H>::L;
  const ShortPart<T, H> part(axis);
  const int sub = T == 1 ? 0 : threadIdx.x & (L - 1);
  const i64 gt = (i64)blockIdx.x * blockDim.x + threadIdx.x;
  const i64 first = T == 1 ? gt : (gt >> 5) * L + sub, step = (i64)gridDim.x * blockDim.x / T;
  typename Op::T* const out = op.dst();
  for (i64 w = first - sub; w < packs; w += step) {
    const i64 it = T == 1 ? w : imin(w + sub, packs - 1);
    const bool store = T == 1 || w + sub < packs;
    const i64 o = it / ppo;
    const i64 base = o * axis * inner + (it - o * ppo) * P + (i64)part.q * H * inner;
    V16 raw[NIN][H];
#pragma unroll
    for (int k = 0; k < H; ++k)
#pragma unroll
      for (int i = 0; i < NIN; ++i)
        raw[i][k] = ld16(op.src(i) + base + part.load_row(k) * inner);
    if constexpr (ShortPacked<Op, H>::value) {
      short_packed_tile<LOG>(op, raw, part, out + base, inner, store);
      continue;
    }
    typename Op::M v[NIN][H][P];
#pragma unroll
    for (int k = 0; k < H; ++k)
#pragma unroll
      for (int i = 0; i < NIN; ++i) {
        unpack_conv(op, i, raw[i][k], v[i][k]);
        if (!part.has(k))
#pragma unroll
          for (int e = 0; e < P; ++e) v[i][k][e] = Op::fill(i);
      }
    typename Op::Fin f[P];
    short_reduce<LOG, Op, T>(op, v, f);
    if (!store) continue;
#pragma unroll
    for (int k = 0; k < H; ++k) {
      typename Op::M y[P];
#pragma unroll
      for (int e = 0; e < P; ++e) y[e] = short_out<LOG>(op, v, k, e, f[e]);
      if (part.has(k)) st_cs(out + base + k * inner, Op::Store::pack(y));
    }
  }
}

// The twins' slices a thread, whatever the dtype: 4, or 2 where 4 would
// hold more than 32 values (H*NIN > 8). Each slice's scalar accesses take a
// 64-bit address a row, so the twins need far more registers a value than
// the 16-byte kernels: with P slices (8 for f16/bf16) a thread ptxas gave
// the 16-bit forward twins 148-251 registers, one 256-thread block an SM
// (nvcc 11.8 sm_90), and 16384x4x500 f16 ran at 0.32 of copy; 4 slices of
// 9-16 f32 rows took 128-185.
template <class Op, int H>
struct ShortTwinSlices {
  static constexpr int value = H * Op::NIN <= 8 ? 4 : 2;
};

// The "_shift" twins' body (an Inner that is not whole packs, or unaligned
// pointers): the Outer x Inner slices, numbered s = o*Inner + i, go out in
// warp tiles of L*S consecutive ones (L = 32/T lanes of distinct slices),
// lane l of a tile owning slices l % L, l % L + L, ..., so each of a
// thread's S scalar accesses a row covers L consecutive slices: runs of
// Inner elements, whatever Inner is (a tile per outer index left all but
// Inner lanes idle where Inner < 32*S: 8192x4x37 bf16 took 18.2 us, 0.32 of
// copy). A slice's (o, i) is stepped from the previous one's with the
// quotient and remainder of L by Inner, and a thread's first from the last
// tile's with those of the grid's stride: two divisions a thread. T lanes
// split the rows as in strided_short_body; a lane's missing slices and rows
// load nothing and count as Op::fill. S: ShortTwinSlices.
template <bool LOG, class Op, int T, int H>
__device__ __forceinline__ void strided_short_shift_body(const Params& p) {
  typedef typename Op::D D;
  typedef typename Op::T ET;
  constexpr int S = ShortTwinSlices<Op, H>::value, NIN = Op::NIN, L = ShortPart<T, H>::L;
  constexpr i64 W = L * S;
  const Op op(p);
  const int axis = T == 1 ? H : p.axis;
  const i64 inner = p.inner, total = p.outer * inner;
  const ShortPart<T, H> part(axis);
  const int sub = threadIdx.x & (L - 1), wpb = blockDim.x >> 5;
  const i64 first = ((i64)blockIdx.x * wpb + (threadIdx.x >> 5)) * W + sub;
  const i64 stride = (i64)gridDim.x * wpb * W;
  const i64 qL = L / inner, rL = L - qL * inner;
  const i64 qs = stride / inner, rs = stride - qs * inner;
  i64 o0 = first / inner, i0 = first - o0 * inner;
  ET* const out = op.dst();
  for (i64 s0 = first - sub; s0 < total; s0 += stride) {
    const int live = (int)imin(S, (total - (s0 + sub) + L - 1) / L);  // slices e < live exist (maybe none)
    i64 off[S];  // element offset of the lane's row 0 of slice e
    {
      i64 o = o0, i = i0;
#pragma unroll
      for (int e = 0; e < S; ++e) {
        off[e] = o * axis * inner + i + (i64)part.q * H * inner;
        o += qL;
        i += rL;
        if (i >= inner) i -= inner, ++o;
      }
    }
    ET raw[NIN][H][S];
#pragma unroll
    for (int k = 0; k < H; ++k)
#pragma unroll
      for (int i2 = 0; i2 < NIN; ++i2)
#pragma unroll
        for (int e = 0; e < S; ++e)
          if (e < live && part.has(k)) raw[i2][k][e] = op.src(i2)[off[e] + k * inner];
    typename Op::M v[NIN][H][S];
#pragma unroll
    for (int k = 0; k < H; ++k)
#pragma unroll
      for (int i2 = 0; i2 < NIN; ++i2)
#pragma unroll
        for (int e = 0; e < S; ++e)
          v[i2][k][e] = e < live && part.has(k) ? op.conv(i2, D::to_f(raw[i2][k][e])) : Op::fill(i2);
    typename Op::Fin f[S];
    short_reduce<LOG, Op, T>(op, v, f);
#pragma unroll
    for (int k = 0; k < H; ++k)
#pragma unroll
      for (int e = 0; e < S; ++e)
        if (e < live && part.has(k)) out[off[e] + k * inner] = Op::Store::from_f(short_out<LOG>(op, v, k, e, f[e]));
    o0 += qs;
    i0 += rs;
    if (i0 >= inner) i0 -= inner, ++o0;
  }
}

// The kernels: TWIN picks the body (Params.vec 1: 16-byte packs; 2: the
// twin), LOG is dispatched once here for both.
template <class Op, int T, int H, bool TWIN>
__device__ __forceinline__ void strided_short_kernel(const Params& p) {
  // A host bug: another axis's kernel, or the other path's (the check
  // here, ahead of the bodies, costs the twins no registers; inside them
  // it took up to 15 more).
  if (!short_axis_ok<T, H>(p) || p.vec != (TWIN ? 2 : 1)) __trap();
  constexpr bool CAN_LOG = !Op::BACKWARD;
  if (CAN_LOG && p.log != 0) {
    if constexpr (TWIN)
      strided_short_shift_body<CAN_LOG, Op, T, H>(p);
    else
      strided_short_body<CAN_LOG, Op, T, H>(p);
  } else {
    if constexpr (TWIN)
      strided_short_shift_body<false, Op, T, H>(p);
    else
      strided_short_body<false, Op, T, H>(p);
  }
}

}  // namespace smx
