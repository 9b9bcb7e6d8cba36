// persistent: a grid sized by the host to exactly fill the GPU (occupancy
// API blocks per SM x SMs) whose blocks loop over rows, so there is no tail
// of short-lived blocks and each worker can prefetch: the register-cached
// bodies load row r + stride into a second register buffer before reducing
// and writing row r, overlapping the next row's DRAM latency with this row's
// reduction and stores.
//
//   persistent_{fwd,bwd}_{dt}_w32_p{NP}  one warp per row (rows <= 32*NP*P),
//                                        blockDim.x/32 rows per block step
//   persistent_{fwd,bwd}_{dt}_b_p{NP}    one block per row (rows <= nt*NP*P)
//   persistent_{fwd,bwd}_{dt}_2pass      one block per row, any length (the
//                                        online_2pass body; no prefetch)
//   NP in {1, 2, 4} forward, {1, 2} backward (two inputs double-buffered).
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  w32: (nt, 1, 1), nt a multiple of 32, <= 256
//          b / 2pass: (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (g, 1, 1) with g = active blocks per SM (occupancy API for the
//          symbol, block and smem) x SMs, capped by the work available
//   smem   none dynamic; workspace none
#include "common.cuh"

namespace smx {

// Rows first, first+step, ... each cached in registers by a group of nt
// threads (t is this thread's index in the group), with the next row's
// packs loaded before the current row is reduced. All threads of a group
// run the same iterations (Red may need the whole warp or block).
template <class Op, int NP, class Red>
__device__ __forceinline__ void persistent_rows(const Op& op, i64 first, i64 step, i64 rows, i64 cols, int t, int nt,
                                                bool vec) {
  typedef typename Op::D D;
  constexpr int P = D::P, N = NP * P;
  float nxt[Op::NIN][N];
  {
    const bool ok = first < rows;
#pragma unroll
    for (int k = 0; k < NP; ++k)
      load_vals(op, nxt, k * P, ok ? first * cols : 0, (i64)(k * nt + t) * P, ok ? cols : 0, vec);
  }
  for (i64 row = first; row < rows; row += step) {
    float cur[Op::NIN][N];
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
      for (int k = 0; k < N; ++k) cur[i][k] = nxt[i][k];
    const i64 nr = row + step;
    const bool ok = nr < rows;
#pragma unroll
    for (int k = 0; k < NP; ++k)
      load_vals(op, nxt, k * P, ok ? nr * cols : 0, (i64)(k * nt + t) * P, ok ? cols : 0, vec);
    const typename Op::Fin f = op.template reduce_cached<Red>(cur);
    const i64 off = row * cols;
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const i64 col = (i64)(k * nt + t) * P;
      if (col < cols) {
        float o[P];
        op.out_cached(cur, k * P, o, f);
        st_pack<typename Op::Store, true>(op.dst() + off, col, cols, vec, o);
      }
    }
  }
}

template <class Op, int NP>
__device__ __forceinline__ void persistent_warp(const Params& p) {
  const Op op(p);
  const i64 wpb = blockDim.x >> 5;
  const i64 first = (i64)blockIdx.x * wpb + (threadIdx.x >> 5);
  persistent_rows<Op, NP, GroupRed<32>>(op, first, (i64)gridDim.x * wpb, p.outer, p.axis, threadIdx.x & 31, 32,
                                        p.vec != 0);
}

template <class Op, int NP>
__device__ __forceinline__ void persistent_block(const Params& p) {
  const Op op(p);
  persistent_rows<Op, NP, BlockRed<>>(op, blockIdx.x, gridDim.x, p.outer, p.axis, threadIdx.x, blockDim.x, p.vec != 0);
}

template <class Op>
__device__ __forceinline__ void persistent_2pass(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const bool vec = p.vec != 0;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) row_2pass(op, row * cols, cols, vec);
}

}  // namespace smx
