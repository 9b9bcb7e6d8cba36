// split_row: several blocks per row, for few rows of huge length (rows <
// SMs). The row's `split` blocks stream it as one virtual block of
// split*nt threads (block c's thread t is virtual thread c*nt + t): each
// step of U packs a thread covers U*split*nt consecutive packs of the row,
// so the blocks in flight read one moving window, as a copy does, instead
// of split separate chunks.
//   phase 1: block (c, r) streams its packs of row r, keeps the online
//            (m, d) (backward: the gradient sum) and writes it to
//            ws[r*split + c].
//   phase 2: block (c, r) merges the row's `split` partials from ws (cheap:
//            every block redoes it, split is kept <= ~1024 by the planner),
//            then re-reads the same packs, last step first, and writes the
//            output: phase 1's last steps are still in L2.
// Contiguous chunks (block c reading elements [c*chunk, (c+1)*chunk), as
// this kernel did before) kept 528-2112 streams open at once; on H200 a
// plain two-pass harness ran 1x10^8 f32 at 310.7 us that way against 299.4
// interleaved, and split_row went from 327.3 to 306.9 us (1x4*10^7 f32
// 162.8 -> 130.8, 1x2^24 f32 softmax_backward 92.4 -> 87.4; bench/results/
// nvidia-h200-2026-11-22-ab-s17.txt). Its phase 2 now takes 56-64
// registers (40 before), which still leaves the two blocks per SM the
// planner launches.
// With the vector path both phases run the whole-pack bodies (pack_acc,
// pack_out_rev), else the element-wise ones: the generic streaming bodies'
// per-element fallback had cost 52-62 registers a thread, half occupancy
// (H200, 4x1048576 f16 31.4 -> 20.3 us, 4x4194304 f16 45.6 -> 39.3;
// bench/results/nvidia-h200-2026-11-22-splitrow-ab.txt).
//
// Launch contract (Inner == 1, rows = outer, cols = axis), both phases alike,
// phase 1 then phase 2 on the same stream:
//   block  (nt, 1, 1), nt a multiple of 32, <= 512, the same in both phases
//   grid   (gx, gy, 1), gx <= split, gy <= min(rows, 65535); blocks
//          grid-stride over virtual blocks (x) and rows (y)
//   smem   none dynamic; static 256 B
//   ws     rows*split float pairs (8 bytes each): forward (m, d), backward
//          (0, sum); fully written by phase 1, so it needs no clearing
//   params split (split*nt <= 2^31)
//   symbol split_row_{fwd,bwd}_{f32,f16,bf16}_phase{1,2}
#include "common.cuh"

namespace smx {

template <class Op>
__device__ __forceinline__ void split_row_phase1(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int split = p.split;
  const bool vec = p.vec != 0;
  typename Op::Ws* const ws = reinterpret_cast<typename Op::Ws*>(p.ws);
  for (i64 row = blockIdx.y; row < rows; row += gridDim.y)
    for (int c = blockIdx.x; c < split; c += gridDim.x) {
      // Block c's thread t is thread c*nt + t of a virtual block of split*nt.
      const int nt = blockDim.x;
      const typename Op::Acc a =
          block_reduce<Op>(read1_acc(op, row * cols, cols, vec, c * nt + (int)threadIdx.x, split * nt));
      if (threadIdx.x == 0) ws[row * split + c] = Op::to_ws(a);
    }
}

template <class Op>
__device__ __forceinline__ void split_row_phase2(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int split = p.split, nt = blockDim.x;
  const bool vec = p.vec != 0;
  const typename Op::Ws* const ws = reinterpret_cast<const typename Op::Ws*>(p.ws);
  for (i64 rr = blockIdx.y; rr < rows; rr += gridDim.y)
    for (int c = blockIdx.x; c < split; c += gridDim.x) {
      // Rows last first: with more rows than the grid's y, phase 1's last
      // rows are the ones still in L2.
      const i64 row = rows - 1 - rr;
      typename Op::Acc a = Op::identity();
      for (int k = threadIdx.x; k < split; k += nt) a = Op::merge(a, Op::from_ws(ws[row * split + k]));
      a = block_reduce<Op>(a);
      read2_out(op, row * cols, cols, vec, c * nt + (int)threadIdx.x, split * nt, op.finalize(a));
    }
}

}  // namespace smx
