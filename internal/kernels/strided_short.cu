// strided_short: softmax along a short non-last axis (2 to 16 rows) whose
// Inner is a whole number of 16-byte packs, each thread holding P slices'
// whole axis in registers: one read, one write, no shared memory and no
// barrier. strided spreads a slice over TY threads and merges their
// partials through a shared-memory tree, then reads the slice again; on
// axes of a few rows that left each thread one to three steps between two
// barriers, and 0.1-0.3 of copy speed.
//
// Thread it of the grid owns pack it of the Outer x Inner/P packs (P = 4
// f32, 8 f16/bf16 consecutive inner indices, so a warp's loads are runs of
// consecutive packs) along all A axis rows: A 16-byte loads, all issued
// before the first is used, then per slice the max, exp(v - max) kept in
// place (log_softmax: v - max), their sum, and A 16-byte stores of the
// output (a multiply; log: a subtract). Backward holds y and dy.
//
// The axis length A is a compile-time constant, one kernel per length: with
// A a run-time bound on a fixed tile (rows past it guarded), ptxas kept
// loaded and converted values apart and predicated every address (nvcc 11.8
// sm_90, f32 forward, 16-row tile: 173 registers, against 85 for A = 16).
//
//   strided_short_{fwd,bwd}_{dt}_a{A}   A = 2..16 f32 forward, 2..8 f16/bf16
//                                      forward and f32 backward, 2..4
//                                      f16/bf16 backward (at most 64 floats
//                                      a thread: A*P*NIN <= 64)
//
// Launch contract (outer, axis, inner), axis == A, Inner % P == 0 and
// 16-byte aligned pointers (Params.vec == 1; the kernel traps otherwise):
//   block  (nt, 1, 1), nt <= 256
//   grid   (gx, 1, 1), grid-stride over the Outer*Inner/P packs
//   params chunk and split unused; smem none; ws none
#include "common.cuh"

namespace smx {

// Reduces P slices of A rows held as floats, v[i][k][e] = row k of slice e
// of input i: f gets the slices' constants, and forward v[0] becomes what
// the output scales: exp(v - m), or (LOG) v - m.
template <bool LOG, class Op, int A>
__device__ __forceinline__ void short_reduce(const Op& op, float (&v)[Op::NIN][A][Op::D::P],
                                             typename Op::Fin (&f)[Op::D::P]) {
  constexpr int P = Op::D::P;
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
      for (int e = 0; e < P; ++e) {
        if constexpr (Op::BACKWARD)
          y[e] = op.out1(v[0][k][e], v[1][k][e], f[e]);
        else
          y[e] = LOG ? v[0][k][e] - f[e].lse : v[0][k][e] * f[e].rd;
      }
      st_cs(out + base + k * inner, D::pack(y));
    }
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

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(strided_short_fwd_f32_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_fwd_f32_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_fwd_f32_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_fwd_f32_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_fwd_f32_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_fwd_f32_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_fwd_f32_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 8>)
SMX_KERNEL(strided_short_fwd_f32_a9, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 9>)
SMX_KERNEL(strided_short_fwd_f32_a10, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 10>)
SMX_KERNEL(strided_short_fwd_f32_a11, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 11>)
SMX_KERNEL(strided_short_fwd_f32_a12, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 12>)
SMX_KERNEL(strided_short_fwd_f32_a13, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 13>)
SMX_KERNEL(strided_short_fwd_f32_a14, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 14>)
SMX_KERNEL(strided_short_fwd_f32_a15, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 15>)
SMX_KERNEL(strided_short_fwd_f32_a16, 256, smx::strided_short_kernel<smx::Fwd<smx::F32>, 16>)
SMX_KERNEL(strided_short_bwd_f32_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 2>)
SMX_KERNEL(strided_short_bwd_f32_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 3>)
SMX_KERNEL(strided_short_bwd_f32_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 4>)
SMX_KERNEL(strided_short_bwd_f32_a5, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 5>)
SMX_KERNEL(strided_short_bwd_f32_a6, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 6>)
SMX_KERNEL(strided_short_bwd_f32_a7, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 7>)
SMX_KERNEL(strided_short_bwd_f32_a8, 256, smx::strided_short_kernel<smx::Bwd<smx::F32>, 8>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(strided_short_fwd_f16_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_fwd_f16_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_fwd_f16_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 4>)
SMX_KERNEL(strided_short_fwd_f16_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 5>)
SMX_KERNEL(strided_short_fwd_f16_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 6>)
SMX_KERNEL(strided_short_fwd_f16_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 7>)
SMX_KERNEL(strided_short_fwd_f16_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::F16>, 8>)
SMX_KERNEL(strided_short_bwd_f16_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 2>)
SMX_KERNEL(strided_short_bwd_f16_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 3>)
SMX_KERNEL(strided_short_bwd_f16_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::F16>, 4>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(strided_short_fwd_bf16_a2, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_fwd_bf16_a3, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_fwd_bf16_a4, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 4>)
SMX_KERNEL(strided_short_fwd_bf16_a5, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 5>)
SMX_KERNEL(strided_short_fwd_bf16_a6, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 6>)
SMX_KERNEL(strided_short_fwd_bf16_a7, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 7>)
SMX_KERNEL(strided_short_fwd_bf16_a8, 256, smx::strided_short_kernel<smx::Fwd<smx::BF16>, 8>)
SMX_KERNEL(strided_short_bwd_bf16_a2, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 2>)
SMX_KERNEL(strided_short_bwd_bf16_a3, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 3>)
SMX_KERNEL(strided_short_bwd_bf16_a4, 256, smx::strided_short_kernel<smx::Bwd<smx::BF16>, 4>)
#endif
