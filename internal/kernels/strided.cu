// strided: softmax along a non-last axis (Inner > 1; Inner == 1 works too).
// A block is a 2-D tile: TX = blockDim.x threads across consecutive inner
// indices (so each warp's loads are contiguous: for TX < 32 a warp covers
// 32/TX consecutive j rows of the tile, i.e. one contiguous run) times
// TY = blockDim.y threads splitting the axis. Each thread keeps an online
// (m, d) (backward: the gradient sum) over j = j0+ty, j0+ty+TY, ... with one
// exp per element and several axis steps in flight, the TY partials are
// merged by a shared-memory tree, then a second sweep writes.
// With Params.vec (Inner % P == 0 and 16-byte aligned pointers) every thread
// owns P consecutive inner indices (P slices) and moves them with one
// 16-byte load or store per axis step; otherwise one index, scalar accesses.
// (strided_reg.cu reads each element once where the tile fits registers.)
//
//   strided_{fwd,bwd}_{dt}         whole axis per block (phase 0)
//   strided_{fwd,bwd}_{dt}_split1  split along the axis for long Axis with
//                                  few slices: block (tile, c) writes the
//                                  partial of chunk c of each of its slices
//                                  to ws[slice*split + c]
//   strided_{fwd,bwd}_{dt}_split2  block (tile, c) merges the slice's split
//                                  partials (the TY threads share the work,
//                                  tree-merged) and writes chunk c
// where slice = o*inner + i.
//
// Launch contract (outer, axis, inner); VW = P with vec, else 1:
//   block  (TX, TY, 1), TY a power of two, TX*TY <= 256, TX*TY*VW <= 1024
//   grid   (gx, gy, 1), gx <= tiles = outer*ceil(inner/(TX*VW)) (grid-stride),
//          gy = 1 for phase 0, gy = split (<= 65535) for split1/split2
//   smem   none dynamic; static 8 KB forward / 4 KB backward (the TY tree)
//   ws     (split kernels) outer*inner*split float pairs; split1 writes
//          every one, so it needs no clearing
//   params chunk (axis elements per chunk), split (split kernels only), vec
#include "common.cuh"

namespace smx {

// Axis steps of one thread: U loads in flight per input, held raw for the
// vector path (4 registers per 16-byte pack) and converted one step at a
// time by get().
template <class Op, int VW, int U>
struct StridedSteps {
  static constexpr int NIN = Op::NIN;
  V16 raw[U][NIN];           // VW > 1
  float val[U][NIN];         // VW == 1
  __device__ __forceinline__ void load(const Op& op, int u, i64 idx) {
    if constexpr (VW == 1) {
      float v0, v1;
      load1(op, idx, v0, v1);
      val[u][0] = v0;
      val[u][NIN - 1] = v1;
    } else {
#pragma unroll
      for (int i = 0; i < NIN; ++i) raw[u][i] = *reinterpret_cast<const V16*>(op.src(i) + idx);
    }
  }
  __device__ __forceinline__ void get(const Op& op, int u, float (&f)[NIN][VW]) const {
    if constexpr (VW == 1) {
#pragma unroll
      for (int i = 0; i < NIN; ++i) f[i][0] = val[u][i];
    } else {
#pragma unroll
      for (int i = 0; i < NIN; ++i) {
        Op::D::unpack(raw[u][i], f[i]);
#pragma unroll
        for (int e = 0; e < VW; ++e) f[i][e] = op.conv(i, f[i][e]);
      }
    }
  }
};

// The body, with VW consecutive inner indices (slices) per thread: 1, or the
// 16-byte pack P when Params.vec is set (Inner % P == 0, pointers aligned).
template <class Op, int PHASE, int VW>
__device__ __forceinline__ void strided_body(const Params& p) {
  typedef typename Op::Acc Acc;
  typedef typename Op::D D;
  // Axis steps in flight per thread (memory-level parallelism): 8 scalar
  // loads, or 4 (forward) / 2 (backward, two inputs) 16-byte loads.
  constexpr int U = VW == 1 ? 8 : 4 / Op::NIN;
  const Op op(p);
  const i64 outer = p.outer, axis = p.axis, inner = p.inner;
  const int TX = blockDim.x, TY = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const i64 span = (i64)TX * VW;  // inner indices per tile
  const i64 tpo = (inner + span - 1) / span, tiles = outer * tpo;
  const int split = PHASE ? p.split : 1;
  const int c = PHASE ? (int)blockIdx.y : 0;
  const i64 j0 = PHASE ? (i64)c * p.chunk : 0;
  const i64 j1 = PHASE ? imin(axis, j0 + p.chunk) : axis;
  F2* const ws = reinterpret_cast<F2*>(p.ws);
  __shared__ Acc red[1024];  // TX*TY*VW <= 1024
  for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const i64 o = tile / tpo;
    const i64 i = (tile - o * tpo) * span + (i64)tx * VW;
    const bool ok = i < inner;  // VW > 1: Inner % VW == 0, so all VW or none
    const i64 base = o * axis * inner + i;
    const i64 slice = o * inner + i;
    Acc a[VW];
#pragma unroll
    for (int e = 0; e < VW; ++e) a[e] = Op::identity();
    if (ok) {
      if (PHASE == 2) {
        for (int k = ty; k < split; k += TY)
#pragma unroll
          for (int e = 0; e < VW; ++e) a[e] = Op::merge(a[e], Op::from_ws(ws[(slice + e) * split + k]));
      } else {
        float comp[VW];
#pragma unroll
        for (int e = 0; e < VW; ++e) comp[e] = 0.f;
        for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
          StridedSteps<Op, VW, U> st;
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (j + (i64)u * TY < j1) st.load(op, u, base + (j + (i64)u * TY) * inner);
#pragma unroll
          for (int u = 0; u < U; ++u) {
            if (j + (i64)u * TY < j1) {
              float v[Op::NIN][VW];
              st.get(op, u, v);
#pragma unroll
              for (int e = 0; e < VW; ++e) op.push1(a[e], comp[e], v[0][e], v[Op::NIN - 1][e]);
            }
          }
        }
#pragma unroll
        for (int e = 0; e < VW; ++e) a[e] = Op::fold(a[e], comp[e]);
      }
    }
    if (TY > 1) {
      __syncthreads();  // the previous tile's readers of red are done
      const int me = (ty * TX + tx) * VW;
#pragma unroll
      for (int e = 0; e < VW; ++e) red[me + e] = a[e];
      for (int s = TY / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (ty < s) {
          const int other = ((ty + s) * TX + tx) * VW;
#pragma unroll
          for (int e = 0; e < VW; ++e) red[me + e] = Op::merge(red[me + e], red[other + e]);
        }
      }
      __syncthreads();
#pragma unroll
      for (int e = 0; e < VW; ++e) a[e] = red[tx * VW + e];
    }
    if (PHASE == 1) {
      if (ok && ty == 0)
#pragma unroll
        for (int e = 0; e < VW; ++e) ws[(slice + e) * split + c] = Op::to_ws(a[e]);
      continue;
    }
    if (ok) {
      typename Op::Fin f[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) f[e] = op.finalize(a[e]);
      typename Op::T* const out = op.dst();
      for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
        StridedSteps<Op, VW, U> st;
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + (i64)u * TY < j1) st.load(op, u, base + (j + (i64)u * TY) * inner);
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const i64 jj = j + (i64)u * TY;
          if (jj < j1) {
            float v[Op::NIN][VW];
            st.get(op, u, v);
            float y[VW];
#pragma unroll
            for (int e = 0; e < VW; ++e) y[e] = op.out1(v[0][e], v[Op::NIN - 1][e], f[e]);
            if (VW == 1)
              out[base + jj * inner] = D::from_f(y[0]);
            else
              *reinterpret_cast<V16*>(out + base + jj * inner) = D::pack(y);
          }
        }
      }
    }
  }
}

template <class Op, int PHASE>
__device__ __forceinline__ void strided_kernel(const Params& p) {
  if (p.vec)
    strided_body<Op, PHASE, Op::D::P>(p);
  else
    strided_body<Op, PHASE, 1>(p);
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(strided_fwd_f32, 256, smx::strided_kernel<smx::Fwd<smx::F32>, 0>)
SMX_KERNEL(strided_fwd_f32_split1, 256, smx::strided_kernel<smx::Fwd<smx::F32>, 1>)
SMX_KERNEL(strided_fwd_f32_split2, 256, smx::strided_kernel<smx::Fwd<smx::F32>, 2>)
SMX_KERNEL(strided_bwd_f32, 256, smx::strided_kernel<smx::Bwd<smx::F32>, 0>)
SMX_KERNEL(strided_bwd_f32_split1, 256, smx::strided_kernel<smx::Bwd<smx::F32>, 1>)
SMX_KERNEL(strided_bwd_f32_split2, 256, smx::strided_kernel<smx::Bwd<smx::F32>, 2>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(strided_fwd_f16, 256, smx::strided_kernel<smx::Fwd<smx::F16>, 0>)
SMX_KERNEL(strided_fwd_f16_split1, 256, smx::strided_kernel<smx::Fwd<smx::F16>, 1>)
SMX_KERNEL(strided_fwd_f16_split2, 256, smx::strided_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(strided_bwd_f16, 256, smx::strided_kernel<smx::Bwd<smx::F16>, 0>)
SMX_KERNEL(strided_bwd_f16_split1, 256, smx::strided_kernel<smx::Bwd<smx::F16>, 1>)
SMX_KERNEL(strided_bwd_f16_split2, 256, smx::strided_kernel<smx::Bwd<smx::F16>, 2>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(strided_fwd_bf16, 256, smx::strided_kernel<smx::Fwd<smx::BF16>, 0>)
SMX_KERNEL(strided_fwd_bf16_split1, 256, smx::strided_kernel<smx::Fwd<smx::BF16>, 1>)
SMX_KERNEL(strided_fwd_bf16_split2, 256, smx::strided_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(strided_bwd_bf16, 256, smx::strided_kernel<smx::Bwd<smx::BF16>, 0>)
SMX_KERNEL(strided_bwd_bf16_split1, 256, smx::strided_kernel<smx::Bwd<smx::BF16>, 1>)
SMX_KERNEL(strided_bwd_bf16_split2, 256, smx::strided_kernel<smx::Bwd<smx::BF16>, 2>)
#endif
