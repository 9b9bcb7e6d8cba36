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
// The "_shift" twins (Params.vec == 2, for an Inner that is not a multiple
// of P or unaligned pointers) give every thread P slices as well, but
// interleaved: slice e of thread tx is inner index i0 + e*TX + tx, so each
// of its P scalar accesses per axis step is one contiguous run of the warp,
// and a tile moves as many bytes per step as the 16-byte path's.
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
//   strided_..._shift              each of them with interleaved slices
// where slice = o*inner + i.
//
// Launch contract (outer, axis, inner); VW = P with vec (1 or 2), else 1:
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
// time by get(); the interleaved path (IL) loads VW scalars a step, slice e
// at idx + e*es, where valid (bit e of mask).
template <class Op, int VW, int U, bool IL>
struct StridedSteps {
  static constexpr int NIN = Op::NIN;
  static constexpr bool RAW = VW > 1 && !IL;
  V16 raw[RAW ? U : 1][NIN];
  typedef typename Op::M M;
  M val[U][NIN][RAW ? 1 : VW];
  __device__ __forceinline__ void load(const Op& op, int u, i64 idx, i64 es, unsigned mask) {
    if constexpr (RAW) {
#pragma unroll
      for (int i = 0; i < NIN; ++i) raw[u][i] = *reinterpret_cast<const V16*>(op.src(i) + idx);
    } else {
#pragma unroll
      for (int e = 0; e < VW; ++e) {
        M v0 = 0.f, v1 = 0.f;
        if (!IL || (mask >> e & 1)) load1(op, idx + e * es, v0, v1);
        val[u][0][e] = v0;
        val[u][NIN - 1][e] = v1;
      }
    }
  }
  __device__ __forceinline__ void get(const Op& op, int u, M (&f)[NIN][VW]) const {
    if constexpr (RAW) {
#pragma unroll
      for (int i = 0; i < NIN; ++i) {
        Op::D::unpack(raw[u][i], f[i]);
#pragma unroll
        for (int e = 0; e < VW; ++e) f[i][e] = op.conv(i, f[i][e]);
      }
    } else {
#pragma unroll
      for (int i = 0; i < NIN; ++i)
#pragma unroll
        for (int e = 0; e < VW; ++e) f[i][e] = val[u][i][e];
    }
  }
};

// The body, with VW slices per thread: 1; the 16-byte pack P when
// Params.vec is 1 (Inner % P == 0, pointers aligned), P consecutive inner
// indices; or P interleaved ones (IL, the "_shift" twins), TX apart.
template <class Op, int PHASE, int VW, bool IL = false>
__device__ __forceinline__ void strided_body(const Params& p) {
  typedef typename Op::Acc Acc;
  typedef typename Op::D D;
  // Axis steps in flight per thread (memory-level parallelism): 8 scalar
  // loads, or 4 (forward) / 2 (backward, two inputs) steps of VW slices.
  constexpr int U = VW == 1 ? 8 : 4 / Op::NIN;
  const Op op(p);
  const i64 outer = p.outer, axis = p.axis, inner = p.inner;
  const int TX = blockDim.x, TY = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const i64 span = (i64)TX * VW;  // inner indices per tile
  const i64 es = IL ? TX : 1;     // inner distance between a thread's slices
  const i64 tpo = (inner + span - 1) / span, tiles = outer * tpo;
  const int split = PHASE ? p.split : 1;
  const int c = PHASE ? (int)blockIdx.y : 0;
  const i64 j0 = PHASE ? (i64)c * p.chunk : 0;
  const i64 j1 = PHASE ? imin(axis, j0 + p.chunk) : axis;
  typename Op::Ws* const ws = reinterpret_cast<typename Op::Ws*>(p.ws);
  __shared__ Acc red[1024];  // TX*TY*VW <= 1024
  for (i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const i64 o = tile / tpo;
    const i64 i = (tile - o * tpo) * span + (i64)tx * (IL ? 1 : VW);
    // Slices in range: all VW or none, but for IL (bit e: slice e).
    unsigned mask = 0;
#pragma unroll
    for (int e = 0; e < VW; ++e) mask |= (unsigned)(i + (IL ? e * es : 0) < inner) << e;
    const bool ok = mask & 1;
    const auto in = [&](int e) { return !IL || (mask >> e & 1); };  // within ok
    const i64 base = o * axis * inner + i;
    const i64 slice = o * inner + i;
    Acc a[VW];
#pragma unroll
    for (int e = 0; e < VW; ++e) a[e] = Op::identity();
    if (ok) {
      if (PHASE == 2) {
        for (int k = ty; k < split; k += TY)
#pragma unroll
          for (int e = 0; e < VW; ++e)
            if (in(e)) a[e] = Op::merge(a[e], Op::from_ws(ws[(slice + e * es) * split + k]));
      } else {
        typename Op::M comp[VW];
#pragma unroll
        for (int e = 0; e < VW; ++e) comp[e] = 0.f;
        for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
          StridedSteps<Op, VW, U, IL> st;
#pragma unroll
          for (int u = 0; u < U; ++u)
            if (j + (i64)u * TY < j1) st.load(op, u, base + (j + (i64)u * TY) * inner, es, mask);
#pragma unroll
          for (int u = 0; u < U; ++u) {
            if (j + (i64)u * TY < j1) {
              typename Op::M v[Op::NIN][VW];
              st.get(op, u, v);
#pragma unroll
              for (int e = 0; e < VW; ++e)
                if (in(e)) op.push1(a[e], comp[e], v[0][e], v[Op::NIN - 1][e]);
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
        for (int e = 0; e < VW; ++e)
          if (in(e)) ws[(slice + e * es) * split + c] = Op::to_ws(a[e]);
      continue;
    }
    if (ok) {
      typename Op::Fin f[VW];
#pragma unroll
      for (int e = 0; e < VW; ++e) f[e] = op.finalize(a[e]);
      typename Op::T* const out = op.dst();
      for (i64 j = j0 + ty; j < j1; j += (i64)TY * U) {
        StridedSteps<Op, VW, U, IL> st;
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (j + (i64)u * TY < j1) st.load(op, u, base + (j + (i64)u * TY) * inner, es, mask);
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const i64 jj = j + (i64)u * TY;
          if (jj < j1) {
            typename Op::M v[Op::NIN][VW];
            st.get(op, u, v);
            typename Op::M y[VW];
#pragma unroll
            for (int e = 0; e < VW; ++e) y[e] = op.out1(v[0][e], v[Op::NIN - 1][e], f[e]);
            if (VW == 1 || IL) {
#pragma unroll
              for (int e = 0; e < VW; ++e)
                if (in(e)) out[base + e * es + jj * inner] = Op::Store::from_f(y[e]);
            } else {
              *reinterpret_cast<V16*>(out + base + jj * inner) = Op::Store::pack(y);
            }
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

// The "_shift" twins: interleaved slices only.
template <class Op, int PHASE>
__device__ __forceinline__ void strided_shift_kernel(const Params& p) {
  strided_body<Op, PHASE, Op::D::P, true>(p);
}

}  // namespace smx
