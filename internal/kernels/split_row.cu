// split_row: several blocks per row, for few rows of huge length (rows <
// SMs). The row is cut into `split` chunks of `chunk` elements (chunk a
// multiple of the 16-byte pack when the vector path is on).
//   phase 1: block (c, r) streams chunk c of row r, keeps the online (m, d)
//            (backward: the gradient sum) and writes it to ws[r*split + c].
//   phase 2: block (c, r) merges the row's `split` partials from ws (cheap:
//            every block redoes it, split is kept <= ~1024 by the planner),
//            then re-reads its chunk, last tile first, and writes the output.
//            Blocks take chunks and rows in reverse order (block (c, r) does
//            chunk split-1-c of row rows-1-r): phase 1's last wave left its
//            chunks in L2, and phase 2's first wave re-reads exactly those
//            (H200, 1x2^24 f32: 68.7 vs 72.3 us, copy ratio 0.557 vs 0.539).
// With the vector path both phases run the whole-pack bodies (pack_acc,
// pack_out_rev), else the element-wise ones: the generic streaming bodies'
// per-element fallback had cost 52-62 registers a thread, half occupancy
// (H200, previous binary against these bodies with the 256 KB chunks, same
// run: 4x1048576 f16 31.4 -> 20.3 us, 4x4194304 f16 45.6 -> 39.3, 1x10^8 f32
// 349.2 -> 338.7; bench/results/nvidia-h200-2026-11-22-splitrow-ab.txt).
//
// Launch contract (Inner == 1, rows = outer, cols = axis), both phases alike,
// phase 1 then phase 2 on the same stream:
//   block  (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (gx, gy, 1), gx <= split, gy <= min(rows, 65535); blocks
//          grid-stride over chunks (x) and rows (y)
//   smem   none dynamic; static 256 B
//   ws     rows*split float pairs (8 bytes each): forward (m, d), backward
//          (0, sum); fully written by phase 1, so it needs no clearing
//   params chunk, split
//   symbol split_row_{fwd,bwd}_{f32,f16,bf16}_phase{1,2}
#include "common.cuh"

namespace smx {

template <class Op>
__device__ __forceinline__ void split_row_phase1(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, chunk = p.chunk;
  const int split = p.split;
  const bool vec = p.vec != 0;
  F2* const ws = reinterpret_cast<F2*>(p.ws);
  for (i64 row = blockIdx.y; row < rows; row += gridDim.y)
    for (i64 c = blockIdx.x; c < split; c += gridDim.x) {
      const i64 c0 = c * chunk, n = imin(chunk, cols - c0);
      const typename Op::Acc a = block_reduce<Op>(read1_acc(op, row * cols + c0, n, vec));
      if (threadIdx.x == 0) ws[row * split + c] = Op::to_ws(a);
    }
}

template <class Op>
__device__ __forceinline__ void split_row_phase2(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, chunk = p.chunk;
  const int split = p.split;
  const bool vec = p.vec != 0;
  const F2* const ws = reinterpret_cast<const F2*>(p.ws);
  for (i64 rr = blockIdx.y; rr < rows; rr += gridDim.y)
    for (i64 cc = blockIdx.x; cc < split; cc += gridDim.x) {
      const i64 row = rows - 1 - rr, c = split - 1 - cc;
      typename Op::Acc a = Op::identity();
      for (int k = threadIdx.x; k < split; k += blockDim.x) a = Op::merge(a, Op::from_ws(ws[row * split + k]));
      a = block_reduce<Op>(a);
      const i64 c0 = c * chunk, n = imin(chunk, cols - c0);
      read2_out(op, row * cols + c0, n, vec, op.finalize(a));
    }
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(split_row_fwd_f32_phase1, 512, smx::split_row_phase1<smx::Fwd<smx::F32>>)
SMX_KERNEL(split_row_fwd_f32_phase2, 512, smx::split_row_phase2<smx::Fwd<smx::F32>>)
SMX_KERNEL(split_row_bwd_f32_phase1, 512, smx::split_row_phase1<smx::Bwd<smx::F32>>)
SMX_KERNEL(split_row_bwd_f32_phase2, 512, smx::split_row_phase2<smx::Bwd<smx::F32>>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(split_row_fwd_f16_phase1, 512, smx::split_row_phase1<smx::Fwd<smx::F16>>)
SMX_KERNEL(split_row_fwd_f16_phase2, 512, smx::split_row_phase2<smx::Fwd<smx::F16>>)
SMX_KERNEL(split_row_bwd_f16_phase1, 512, smx::split_row_phase1<smx::Bwd<smx::F16>>)
SMX_KERNEL(split_row_bwd_f16_phase2, 512, smx::split_row_phase2<smx::Bwd<smx::F16>>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(split_row_fwd_bf16_phase1, 512, smx::split_row_phase1<smx::Fwd<smx::BF16>>)
SMX_KERNEL(split_row_fwd_bf16_phase2, 512, smx::split_row_phase2<smx::Fwd<smx::BF16>>)
SMX_KERNEL(split_row_bwd_bf16_phase1, 512, smx::split_row_phase1<smx::Bwd<smx::BF16>>)
SMX_KERNEL(split_row_bwd_bf16_phase2, 512, smx::split_row_phase2<smx::Bwd<smx::BF16>>)
#endif
