// strided_short: softmax along a short non-last axis (2 to 16 rows), each
// thread holding its slices' whole axis in registers: one read, one write,
// no shared memory and no barrier. strided spreads a slice over TY threads and merges their
// partials through a shared-memory tree, then reads the slice again; on
// axes of a few rows that left each thread one to three steps between two
// barriers, and 0.1-0.3 of copy speed.
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
// The axis length A is a compile-time constant, one kernel per length: with
// A a run-time bound on a fixed tile (rows past it guarded), ptxas kept
// loaded and converted values apart and predicated every address (nvcc 11.8
// sm_90, f32 forward, 16-row tile: 173 registers, against 85 for A = 16).
//
// An Inner that is not whole packs (or unaligned pointers) takes the
// "_shift" twins: 2 or 4 slices a thread, 32 apart, scalar accesses (see
// strided_short_shift_body).
//
//   strided_short_{fwd,bwd}_{dt}_a{A}   A = 2..16 forward, 2..8 backward
//                                      (A*NIN <= 16: at most 256 bytes of
//                                      raw packs a thread)
//   strided_short_..._shift            the twin of each
//
// Launch contract (outer, axis, inner), axis == A (the kernels trap
// otherwise):
//   block  (nt, 1, 1), nt a multiple of 32, nt <= 256
//   grid   (gx, 1, 1), grid-stride: over the Outer*Inner/P packs (Params.vec
//          == 1: Inner % P == 0 and 16-byte aligned pointers), or for the
//          twins (Params.vec == 2, any Inner) over warp tiles of 32*S
//          consecutive slices o*Inner + i, S = ShortTwinSlices
//   params chunk and split unused; smem none; ws none
#include "common.cuh"

namespace smx {

// Reduces N slices of A rows held as floats, v[i][k][e] = row k of slice e
// of input i: f gets the slices' constants, and forward v[0] becomes what
// the output scales: exp(v - m), or (LOG) v - m.
template <bool LOG, class Op, int A, int N>
__device__ __forceinline__ void short_reduce(const Op& op, float (&v)[Op::NIN][A][N], typename Op::Fin (&f)[N]) {
  constexpr int P = N;
  if constexpr (Op::BACKWARD) {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < A; ++k) s += op.term(v[0][k][e], v[1][k][e]);
      f[e] = op.finalize(s);
    }
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      float m = v[0][0][e];
#pragma unroll
      for (int k = 1; k < A; ++k) m = fmax2(m, v[0][k][e]);
      // s = m, or 0 for an all -inf slice (whose outputs come out NaN
      // either way), as in Fwd::reduce_cached.
      const float s = safe(m);
      float d = 0.f;
#pragma unroll
      for (int k = 0; k < A; ++k) {
        const float x = v[0][k][e] - s, y = Op::ex(x);
        v[0][k][e] = LOG ? x : y;
        d += y;
      }
      f[e] = op.finalize(MD{m, d});
    }
  }
}

// The output of element (k, e) of a reduced tile.
template <bool LOG, class Op, int A, int N>
__device__ __forceinline__ float short_out(const Op& op, const float (&v)[Op::NIN][A][N], int k, int e,
                                           const typename Op::Fin& f) {
  if constexpr (Op::BACKWARD)
    return op.out1(v[0][k][e], v[1][k][e], f);
  else
    return LOG ? v[0][k][e] - f.lse : v[0][k][e] * f.rd;
}

// Whether a tile stays packed: a 16-bit tile of more than 64 floats (forward
// past 8 rows, backward past 4) is held as its A raw 16-byte packs a input,
// half the registers, and each value is converted again at each use (see
// short_packed_tile). Float tiles, and 16-bit ones up to 64 floats, are
// converted once.
template <class Op, int A>
struct ShortPacked {
  static constexpr bool value = Op::D::P * A * Op::NIN > 64;
};

// Element e of raw pack r of input i, as the op reads it.
template <class Op>
__device__ __forceinline__ float short_elem(const Op& op, int i, const V16& r, int e) {
  return op.conv(i, Op::D::elem(r, e));
}

// Reduces the P slices of a tile held as raw packs, raw[i][k] = row k of
// input i, and stores the output rows at dst + k*inner. Forward takes the
// max, then the sum of exp(v - max), then recomputes exp(v - max) for the
// output (log_softmax: v - max - log sum): two exps an element, which the
// SFUs keep well under the memory time, against 64 more live registers
// (converted, a 16-row f16 tile is 128 floats). The arithmetic is that of
// short_reduce and short_out, value for value.
template <bool LOG, class Op, int A>
__device__ __forceinline__ void short_packed_tile(const Op& op, const V16 (&raw)[Op::NIN][A],
                                                  typename Op::T* dst, i64 inner) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  typename Op::Fin f[P];
#pragma unroll
  for (int e = 0; e < P; ++e) {
    if constexpr (Op::BACKWARD) {
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < A; ++k) s += op.term(short_elem(op, 0, raw[0][k], e), short_elem(op, 1, raw[1][k], e));
      f[e] = op.finalize(s);
    } else {
      float m = short_elem(op, 0, raw[0][0], e);
#pragma unroll
      for (int k = 1; k < A; ++k) m = fmax2(m, short_elem(op, 0, raw[0][k], e));
      const float s = safe(m);
      float d = 0.f;
#pragma unroll
      for (int k = 0; k < A; ++k) d += Op::ex(short_elem(op, 0, raw[0][k], e) - s);
      f[e] = op.finalize(MD{m, d});
    }
  }
#pragma unroll
  for (int k = 0; k < A; ++k) {
    float y[P];
#pragma unroll
    for (int e = 0; e < P; ++e) {
      if constexpr (Op::BACKWARD) {
        y[e] = op.out1(short_elem(op, 0, raw[0][k], e), short_elem(op, 1, raw[1][k], e), f[e]);
      } else {
        const float x = short_elem(op, 0, raw[0][k], e) - safe(f[e].m);
        y[e] = LOG ? x - f[e].lse : Op::ex(x) * f[e].rd;
      }
    }
    st_cs(dst + k * inner, D::pack(y));
  }
}

// The body, LOG a compile-time log_softmax flag: with the op picked per
// element, ptxas kept both exp(v - m) and v - m of every value live from the
// reduction to the output.
template <bool LOG, class Op, int A>
__device__ __forceinline__ void strided_short_body(const Params& p) {
  typedef typename Op::D D;
  constexpr int P = D::P, NIN = Op::NIN;
  const Op op(p);
  const i64 inner = p.inner, ppo = inner / P, packs = p.outer * ppo;
  typename Op::T* const out = op.dst();
  for (i64 it = (i64)blockIdx.x * blockDim.x + threadIdx.x; it < packs; it += (i64)gridDim.x * blockDim.x) {
    const i64 o = it / ppo;
    const i64 base = o * A * inner + (it - o * ppo) * P;
    V16 raw[NIN][A];
#pragma unroll
    for (int k = 0; k < A; ++k)
#pragma unroll
      for (int i = 0; i < NIN; ++i) raw[i][k] = ld16(op.src(i) + base + k * inner);
    if constexpr (ShortPacked<Op, A>::value) {
      short_packed_tile<LOG>(op, raw, out + base, inner);
      continue;
    }
    float v[NIN][A][P];
#pragma unroll
    for (int k = 0; k < A; ++k)
#pragma unroll
      for (int i = 0; i < NIN; ++i) unpack_conv(op, i, raw[i][k], v[i][k]);
    typename Op::Fin f[P];
    short_reduce<LOG>(op, v, f);
#pragma unroll
    for (int k = 0; k < A; ++k) {
      float y[P];
#pragma unroll
      for (int e = 0; e < P; ++e) y[e] = short_out<LOG>(op, v, k, e, f[e]);
      st_cs(out + base + k * inner, D::pack(y));
    }
  }
}

// The twins' slices a thread, whatever the dtype: 4, or 2 where 4 would
// hold more than 32 values (A*NIN > 8). Each slice's scalar accesses take a
// 64-bit address a row, so the twins need far more registers a value than
// the 16-byte kernels: with P slices (8 for f16/bf16) a thread ptxas gave
// the 16-bit forward twins 148-251 registers, one 256-thread block an SM
// (nvcc 11.8 sm_90), and 16384x4x500 f16 ran at 0.32 of copy; 4 slices of
// 9-16 f32 rows took 128-185.
template <class Op, int A>
struct ShortTwinSlices {
  static constexpr int value = A * Op::NIN <= 8 ? 4 : 2;
};

// The "_shift" twins' body (an Inner that is not whole packs, or unaligned
// pointers): the Outer x Inner slices, numbered s = o*Inner + i, go out in
// warp tiles of 32*P consecutive ones, lane l of a tile owning slices
// l, l + 32, ..., so each of a thread's P scalar accesses a row covers 32
// consecutive slices: runs of Inner elements, whatever Inner is (a tile per
// outer index left all but Inner lanes idle where Inner < 32*P: 8192x4x37
// bf16 took 18.2 us, 0.32 of copy). A slice's (o, i) is stepped from the
// previous one's with the quotient and remainder of 32 by Inner, and a
// thread's first from the last tile's with those of the grid's stride:
// two divisions a thread. ShortTwinSlices: a thread's slices.
template <bool LOG, class Op, int A>
__device__ __forceinline__ void strided_short_shift_body(const Params& p) {
  typedef typename Op::D D;
  typedef typename Op::T T;
  constexpr int P = ShortTwinSlices<Op, A>::value, NIN = Op::NIN;
  constexpr i64 W = 32 * P;
  const Op op(p);
  const i64 inner = p.inner, total = p.outer * inner;
  const int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
  const i64 first = ((i64)blockIdx.x * wpb + (threadIdx.x >> 5)) * W + lane;
  const i64 stride = (i64)gridDim.x * wpb * W;
  const i64 q32 = 32 / inner, r32 = 32 - q32 * inner;
  const i64 qs = stride / inner, rs = stride - qs * inner;
  i64 o0 = first / inner, i0 = first - o0 * inner;
  T* const out = op.dst();
  for (i64 s0 = first - lane; s0 < total; s0 += stride) {
    const int live = (int)imin(P, (total - (s0 + lane) + 31) / 32);  // slices e < live exist
    i64 off[P];  // element offset of row 0 of slice e
    {
      i64 o = o0, i = i0;
#pragma unroll
      for (int e = 0; e < P; ++e) {
        off[e] = o * A * inner + i;
        o += q32;
        i += r32;
        if (i >= inner) i -= inner, ++o;
      }
    }
    T raw[NIN][A][P];
#pragma unroll
    for (int k = 0; k < A; ++k)
#pragma unroll
      for (int i2 = 0; i2 < NIN; ++i2)
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (e < live) raw[i2][k][e] = op.src(i2)[off[e] + k * inner];
    float v[NIN][A][P];
#pragma unroll
    for (int k = 0; k < A; ++k)
#pragma unroll
      for (int i2 = 0; i2 < NIN; ++i2)
#pragma unroll
        for (int e = 0; e < P; ++e) v[i2][k][e] = e < live ? op.conv(i2, D::to_f(raw[i2][k][e])) : Op::fill(i2);
    typename Op::Fin f[P];
    short_reduce<LOG>(op, v, f);
#pragma unroll
    for (int k = 0; k < A; ++k)
#pragma unroll
      for (int e = 0; e < P; ++e)
        if (e < live) out[off[e] + k * inner] = D::from_f(short_out<LOG>(op, v, k, e, f[e]));
    o0 += qs;
    i0 += rs;
    if (i0 >= inner) i0 -= inner, ++o0;
  }
}

template <class Op, int A>
__device__ __forceinline__ void strided_short_kernel(const Params& p) {
  if (p.axis != A || p.vec != 1) __trap();  // a host bug: another variant, or no 16-byte path
  if (!Op::BACKWARD && p.log != 0)
    strided_short_body<true, Op, A>(p);
  else
    strided_short_body<false, Op, A>(p);
}

template <class Op, int A>
__device__ __forceinline__ void strided_short_shift_kernel(const Params& p) {
  if (p.axis != A || p.vec != 2) __trap();  // a host bug: another variant, or the 16-byte path
  if (!Op::BACKWARD && p.log != 0)
    strided_short_shift_body<true, Op, A>(p);
  else
    strided_short_shift_body<false, Op, A>(p);
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(strided_short_fwd_f32_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_fwd_f32_a2_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_fwd_f32_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_fwd_f32_a3_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_fwd_f32_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_fwd_f32_a4_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_fwd_f32_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_fwd_f32_a5_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_fwd_f32_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_fwd_f32_a6_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_fwd_f32_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_fwd_f32_a7_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_fwd_f32_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 8>)
SMX_KERNEL(strided_short_fwd_f32_a8_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 8>)
SMX_KERNEL(strided_short_fwd_f32_a9, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 9>)
SMX_KERNEL(strided_short_fwd_f32_a9_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 9>)
SMX_KERNEL(strided_short_fwd_f32_a10, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 10>)
SMX_KERNEL(strided_short_fwd_f32_a10_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 10>)
SMX_KERNEL(strided_short_fwd_f32_a11, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 11>)
SMX_KERNEL(strided_short_fwd_f32_a11_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 11>)
SMX_KERNEL(strided_short_fwd_f32_a12, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 12>)
SMX_KERNEL(strided_short_fwd_f32_a12_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 12>)
SMX_KERNEL(strided_short_fwd_f32_a13, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 13>)
SMX_KERNEL(strided_short_fwd_f32_a13_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 13>)
SMX_KERNEL(strided_short_fwd_f32_a14, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 14>)
SMX_KERNEL(strided_short_fwd_f32_a14_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 14>)
SMX_KERNEL(strided_short_fwd_f32_a15, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 15>)
SMX_KERNEL(strided_short_fwd_f32_a15_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 15>)
SMX_KERNEL(strided_short_fwd_f32_a16, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 16>)
SMX_KERNEL(strided_short_fwd_f32_a16_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F32>, 16>)
SMX_KERNEL(strided_short_bwd_f32_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_bwd_f32_a2_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_bwd_f32_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_bwd_f32_a3_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_bwd_f32_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_bwd_f32_a4_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_bwd_f32_a5, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_bwd_f32_a5_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_bwd_f32_a6, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_bwd_f32_a6_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_bwd_f32_a7, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_bwd_f32_a7_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_bwd_f32_a8, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 8>)
SMX_KERNEL(strided_short_bwd_f32_a8_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F32>, 8>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(strided_short_fwd_f16_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_fwd_f16_a2_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_fwd_f16_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_fwd_f16_a3_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_fwd_f16_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 4>)
SMX_KERNEL(strided_short_fwd_f16_a4_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 4>)
SMX_KERNEL(strided_short_fwd_f16_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 5>)
SMX_KERNEL(strided_short_fwd_f16_a5_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 5>)
SMX_KERNEL(strided_short_fwd_f16_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 6>)
SMX_KERNEL(strided_short_fwd_f16_a6_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 6>)
SMX_KERNEL(strided_short_fwd_f16_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 7>)
SMX_KERNEL(strided_short_fwd_f16_a7_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 7>)
SMX_KERNEL(strided_short_fwd_f16_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 8>)
SMX_KERNEL(strided_short_fwd_f16_a8_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 8>)
SMX_KERNEL(strided_short_fwd_f16_a9, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 9>)
SMX_KERNEL(strided_short_fwd_f16_a9_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 9>)
SMX_KERNEL(strided_short_fwd_f16_a10, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 10>)
SMX_KERNEL(strided_short_fwd_f16_a10_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 10>)
SMX_KERNEL(strided_short_fwd_f16_a11, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 11>)
SMX_KERNEL(strided_short_fwd_f16_a11_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 11>)
SMX_KERNEL(strided_short_fwd_f16_a12, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 12>)
SMX_KERNEL(strided_short_fwd_f16_a12_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 12>)
SMX_KERNEL(strided_short_fwd_f16_a13, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 13>)
SMX_KERNEL(strided_short_fwd_f16_a13_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 13>)
SMX_KERNEL(strided_short_fwd_f16_a14, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 14>)
SMX_KERNEL(strided_short_fwd_f16_a14_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 14>)
SMX_KERNEL(strided_short_fwd_f16_a15, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 15>)
SMX_KERNEL(strided_short_fwd_f16_a15_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 15>)
SMX_KERNEL(strided_short_fwd_f16_a16, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 16>)
SMX_KERNEL(strided_short_fwd_f16_a16_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::F16>, 16>)
SMX_KERNEL(strided_short_bwd_f16_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_bwd_f16_a2_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_bwd_f16_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_bwd_f16_a3_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_bwd_f16_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 4>)
SMX_KERNEL(strided_short_bwd_f16_a4_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 4>)
SMX_KERNEL(strided_short_bwd_f16_a5, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 5>)
SMX_KERNEL(strided_short_bwd_f16_a5_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 5>)
SMX_KERNEL(strided_short_bwd_f16_a6, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 6>)
SMX_KERNEL(strided_short_bwd_f16_a6_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 6>)
SMX_KERNEL(strided_short_bwd_f16_a7, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 7>)
SMX_KERNEL(strided_short_bwd_f16_a7_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 7>)
SMX_KERNEL(strided_short_bwd_f16_a8, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 8>)
SMX_KERNEL(strided_short_bwd_f16_a8_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::F16>, 8>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(strided_short_fwd_bf16_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_fwd_bf16_a2_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_fwd_bf16_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_fwd_bf16_a3_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_fwd_bf16_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 4>)
SMX_KERNEL(strided_short_fwd_bf16_a4_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 4>)
SMX_KERNEL(strided_short_fwd_bf16_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 5>)
SMX_KERNEL(strided_short_fwd_bf16_a5_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 5>)
SMX_KERNEL(strided_short_fwd_bf16_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 6>)
SMX_KERNEL(strided_short_fwd_bf16_a6_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 6>)
SMX_KERNEL(strided_short_fwd_bf16_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 7>)
SMX_KERNEL(strided_short_fwd_bf16_a7_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 7>)
SMX_KERNEL(strided_short_fwd_bf16_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 8>)
SMX_KERNEL(strided_short_fwd_bf16_a8_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 8>)
SMX_KERNEL(strided_short_fwd_bf16_a9, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 9>)
SMX_KERNEL(strided_short_fwd_bf16_a9_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 9>)
SMX_KERNEL(strided_short_fwd_bf16_a10, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 10>)
SMX_KERNEL(strided_short_fwd_bf16_a10_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 10>)
SMX_KERNEL(strided_short_fwd_bf16_a11, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 11>)
SMX_KERNEL(strided_short_fwd_bf16_a11_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 11>)
SMX_KERNEL(strided_short_fwd_bf16_a12, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 12>)
SMX_KERNEL(strided_short_fwd_bf16_a12_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 12>)
SMX_KERNEL(strided_short_fwd_bf16_a13, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 13>)
SMX_KERNEL(strided_short_fwd_bf16_a13_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 13>)
SMX_KERNEL(strided_short_fwd_bf16_a14, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 14>)
SMX_KERNEL(strided_short_fwd_bf16_a14_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 14>)
SMX_KERNEL(strided_short_fwd_bf16_a15, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 15>)
SMX_KERNEL(strided_short_fwd_bf16_a15_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 15>)
SMX_KERNEL(strided_short_fwd_bf16_a16, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 16>)
SMX_KERNEL(strided_short_fwd_bf16_a16_shift, 256, smx::strided_short_shift_kernel<smx::Fwd<smx::BF16>, 16>)
SMX_KERNEL(strided_short_bwd_bf16_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_bwd_bf16_a2_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_bwd_bf16_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_bwd_bf16_a3_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_bwd_bf16_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 4>)
SMX_KERNEL(strided_short_bwd_bf16_a4_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 4>)
SMX_KERNEL(strided_short_bwd_bf16_a5, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 5>)
SMX_KERNEL(strided_short_bwd_bf16_a5_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 5>)
SMX_KERNEL(strided_short_bwd_bf16_a6, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 6>)
SMX_KERNEL(strided_short_bwd_bf16_a6_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 6>)
SMX_KERNEL(strided_short_bwd_bf16_a7, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 7>)
SMX_KERNEL(strided_short_bwd_bf16_a7_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 7>)
SMX_KERNEL(strided_short_bwd_bf16_a8, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 8>)
SMX_KERNEL(strided_short_bwd_bf16_a8_shift, 256, smx::strided_short_shift_kernel<smx::Bwd<smx::BF16>, 8>)
#endif
