// strided: softmax along a non-last axis (Inner > 1; Inner == 1 works too).
// A block is a 2-D tile: TX = blockDim.x consecutive inner indices (so each
// warp's loads are contiguous: for TX < 32 a warp covers 32/TX consecutive j
// rows of TX elements, i.e. one contiguous run) times TY = blockDim.y threads
// splitting the axis. Each thread keeps an online (m, d) (backward: the
// gradient sum) over j = j0+ty, j0+ty+TY, ... with one exp per element, the
// TY partials are merged by a shared-memory tree, then a second sweep writes.
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
// Launch contract (outer, axis, inner):
//   block  (TX, TY, 1), TY a power of two, TX*TY <= 512, TX*TY a multiple
//          of 32 is best (not required)
//   grid   (gx, gy, 1), gx <= outer*ceil(inner/TX) (tiles, grid-stride),
//          gy = 1 for phase 0, gy = split (<= 65535) for split1/split2
//   smem   none dynamic; static 4 KB forward / 2 KB backward (the TY tree)
//   ws     (split kernels) outer*inner*split float pairs; split1 writes
//          every one, so it needs no clearing
//   params chunk (axis elements per chunk), split (split kernels only)
#include "common.cuh"

namespace smx {

template <class Op, int PHASE>
__device__ __forceinline__ void strided_kernel(const Params& p) {
  typedef typename Op::Acc Acc;
  constexpr int U = 4;  // loads in flight per thread and input
  const Op op(p);
  const i64 outer = p.outer, axis = p.axis, inner = p.inner;
  const int TX = blockDim.x, TY = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const i64 tpo = (inner + TX - 1) / TX, tiles = outer * tpo;
  const int split = PHASE ? p.split : 1;
  const int c = PHASE ? (int)blockIdx.y : 0;
  const i64 j0 = PHASE ? (i64)c * p.chunk : 0;
  const i64 j1 = PHASE ? imin(axis, j0 + p.chunk) : axis;
  F2* const ws = reinterpret_cast<F2*>(p.ws);
  __shared__ Acc red[512];
  for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const i64 o = tile / tpo;
    const i64 i = (tile - o * tpo) * TX + tx;
    const bool ok = i < inner;
    const i64 base = o * axis * inner + i;
    const i64 slice = o * inner + i;
    Acc a = Op::identity();
    if (ok) {
      if (PHASE == 2) {
        for (int k = ty; k < split; k += TY) a = Op::merge(a, Op::from_ws(ws[slice * split + k]));
      } else {
        for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
          float v0[U], v1[U];
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (j + (i64)u * TY < j1) load1(op, base + (j + (i64)u * TY) * inner, v0[u], v1[u]);
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (j + (i64)u * TY < j1) op.push1(a, v0[u], v1[u]);
        }
      }
    }
    if (TY > 1) {
      __syncthreads();  // the previous tile's readers of red are done
      red[ty * TX + tx] = a;
      for (int s = TY / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (ty < s) red[ty * TX + tx] = Op::merge(red[ty * TX + tx], red[(ty + s) * TX + tx]);
      }
      __syncthreads();
      a = red[tx];
    }
    if (PHASE == 1) {
      if (ok && ty == 0) ws[slice * split + c] = Op::to_ws(a);
      continue;
    }
    if (ok) {
      const typename Op::Fin f = op.finalize(a);
      typename Op::T* const out = op.dst();
      for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
        float v0[U], v1[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + (i64)u * TY < j1) load1(op, base + (j + (i64)u * TY) * inner, v0[u], v1[u]);
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + (i64)u * TY < j1) out[base + (j + (i64)u * TY) * inner] = Op::D::from_f(op.out1(v0[u], v1[u], f));
      }
    }
  }
}

}  // namespace smx

#define ST(DIR, OP, DT, D)                                                                  \
  SMX_KERNEL(strided_##DIR##_##DT, 512, smx::strided_kernel<smx::OP<smx::D>, 0>)          \
  SMX_KERNEL(strided_##DIR##_##DT##_split1, 512, smx::strided_kernel<smx::OP<smx::D>, 1>) \
  SMX_KERNEL(strided_##DIR##_##DT##_split2, 512, smx::strided_kernel<smx::OP<smx::D>, 2>)

SMX_F32(ST(fwd, Fwd, f32, F32) ST(bwd, Bwd, f32, F32))
SMX_F16(ST(fwd, Fwd, f16, F16) ST(bwd, Bwd, f16, F16))
SMX_BF16(ST(fwd, Fwd, bf16, BF16) ST(bwd, Bwd, bf16, BF16))
