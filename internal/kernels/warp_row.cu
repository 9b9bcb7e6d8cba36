// warp_row: a sub-warp group of W lanes (1, 2, 4, 8, 16 or 32) per row, the
// row cached in registers (NP 16-byte packs per lane), several rows per block.
// For short rows: cols <= W*NP*P (P = 4 for f32, 8 for f16/bf16), i.e. up to
// 1024 f32 / 2048 f16 columns with W = 32, NP = 8 (backward: NP <= 4). Reductions are butterfly
// shuffles inside the group; no shared memory, no __syncthreads.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (128, 1, 1)  -> 128/W rows per block iteration
//   grid   (g, 1, 1), g <= ceil(rows / (128/W)); blocks grid-stride over row groups
//   smem   none; workspace none
//   symbol warp_row_{fwd,bwd}_{f32,f16,bf16}_w{W}_p{NP}
//   variants: w1_p1 w2_p1 w4_p1 w8_p1 w16_p1 w32_p1 w32_p2 w32_p4,
//             w1_p2 w2_p2 w4_p2 w8_p2 w16_p2 (a row in half as many lanes,
//             two packs each: twice the rows a warp, one shuffle chain for
//             all of them), and forward only w32_p8 and
//             w8_p3 w16_p3, f16/bf16 w4_p3 (rows of
//             17-24, 33-48 and 9-12 packs in fewer lanes than a power of
//             two: 350785x126 bf16 over 8 lanes, not 16)
#include "common.cuh"

namespace smx {

// SHIFT: the "_shift" twins for ragged rows: forward ones of one to three
// packs a lane through cached_row_masked but on the last block iteration,
// the others (backward, four and eight packs) through cached_row.
template <class Op, int W, int NP, bool SHIFT = false>
__device__ __forceinline__ void warp_row_kernel(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int groups = blockDim.x / W;
  const int g = threadIdx.x / W, lane = threadIdx.x % W;
  const bool vec = p.vec != 0;
  // Ragged forward rows of one to three packs a lane: measured
  // (-ab-s39.txt §2, -ab-s41.txt §1; the three-pack twins at 48 registers
  // without spills); backward ones of one or two (-ab-s42.txt §2-3:
  // 200000×100 f16 57.2 -> 42.0 us, 65536×300 f16 63.2 -> 45.4, with
  // 16-bit w32_p2_shift bounded to (128, 6), 92 registers under (128, 4)). In
  // the longer kernels the masked body raised registers (nvcc 11.8: f32
  // forward w32_p4 72 -> 79) and was not timed; they keep the general body.
  constexpr bool MASKED = SHIFT && NP <= (Op::NIN == 1 ? 3 : 2);
  // Every thread of the block runs the same iterations (shuffles need the
  // whole warp); rows past the end take part with n = 0.
  for (i64 base = (i64)blockIdx.x * groups; base < rows; base += (i64)gridDim.x * groups) {
    const i64 row = base + g;
    const bool ok = row < rows;
    if (MASKED && vec && base + groups < rows) {
      // Every row of this block iteration has a row after it, so its
      // packs end inside the tensor (cached_row_masked); the last
      // iteration takes the general body.
      const i64 off = row * cols;
      const int lo = pack_lo<typename Op::D>(op.src(0), off);
      cached_row_masked<Op, NP, GroupRed<W>>(op, off - lo, cols + lo, lo, lane, W);
    } else {
      cached_row<Op, NP, GroupRed<W>, false, SHIFT>(op, ok ? row * cols : 0, ok ? cols : 0, lane, W, vec);
    }
  }
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
// 128 threads, at least 4 blocks per SM (<= 128 registers). Forward has
// w32_p8 (1024 f32 / 2048 f16 columns); backward caches two inputs, so its
// longest variant is w32_p4 (512 f32 / 1024 f16 columns).
#define WR_BOUNDS 128, 4
// The two-pack sub-warp groups (w1..w16 _p2: two rows or more a warp) at
// <= 40 registers, 12 blocks an SM like the one-pack kernels: under
// (128, 4) NVRTC 13 gave them 55-68 registers and 8 blocks, and rows of
// 50 f32 / 100 bf16 columns ran 5-100% slower than one pack a lane
// (H200, -ab-s39.txt §2); at (128, 12) bf16 w2..w16 _p2 spill 8 bytes
// (nvcc 11.8).
#define WR_SUB_BOUNDS 128, 12
// Three packs a lane: f32 at WR_SUB_BOUNDS (40 registers, no spills);
// f16/bf16 twins at (128, 10), 48 registers; their whole-pack kernels
// spilled 8-24 bytes there, so they take (128, 8): 63-64 registers, 49-51
// in the plain build (nvcc 11.8, sm_90; -ab-s41.txt §1).
#define WR_P3_BOUNDS 128, 8
#define WR_P3_SHIFT_BOUNDS 128, 10
// Backward two-pack groups (w1..w16 _p2) and the 16-bit masked w32_p2
// twins: f32 at (128, 10), 40-47 registers ((128, 12) spilled 8 bytes in
// the twins); f16/bf16 at (128, 6), 62-75 (nvcc 11.8, no spills; the twins
// took 79-80 before cached_row_masked's 32-bit columns).
#define WR_BWD_SUB_BOUNDS 128, 10
#define WR_BWD_SUB16_BOUNDS 128, 6

#if SMX_DTYPES & 1
SMX_KERNEL(warp_row_fwd_f32_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 1, 1>)
SMX_KERNEL(warp_row_fwd_f32_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 1, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 2, 1>)
SMX_KERNEL(warp_row_fwd_f32_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 2, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 4, 1>)
SMX_KERNEL(warp_row_fwd_f32_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 4, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 1>)
SMX_KERNEL(warp_row_fwd_f32_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 1>)
SMX_KERNEL(warp_row_fwd_f32_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 1>)
SMX_KERNEL(warp_row_fwd_f32_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 1, true>)
SMX_KERNEL(warp_row_fwd_f32_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 2>)
SMX_KERNEL(warp_row_fwd_f32_w32_p2_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 4>)
SMX_KERNEL(warp_row_fwd_f32_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 4, true>)
SMX_KERNEL(warp_row_fwd_f32_w32_p8, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 8>)
SMX_KERNEL(warp_row_fwd_f32_w32_p8_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 32, 8, true>)
SMX_KERNEL(warp_row_fwd_f32_w1_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 1, 2>)
SMX_KERNEL(warp_row_fwd_f32_w1_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 1, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w2_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 2, 2>)
SMX_KERNEL(warp_row_fwd_f32_w2_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 2, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w4_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 4, 2>)
SMX_KERNEL(warp_row_fwd_f32_w4_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 4, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w8_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 2>)
SMX_KERNEL(warp_row_fwd_f32_w8_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w16_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 2>)
SMX_KERNEL(warp_row_fwd_f32_w16_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 2, true>)
SMX_KERNEL(warp_row_fwd_f32_w8_p3, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 3>)
SMX_KERNEL(warp_row_fwd_f32_w8_p3_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 8, 3, true>)
SMX_KERNEL(warp_row_fwd_f32_w16_p3, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 3>)
SMX_KERNEL(warp_row_fwd_f32_w16_p3_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F32>, 16, 3, true>)
SMX_KERNEL(warp_row_bwd_f32_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 1, 1>)
SMX_KERNEL(warp_row_bwd_f32_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 1, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 2, 1>)
SMX_KERNEL(warp_row_bwd_f32_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 2, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 4, 1>)
SMX_KERNEL(warp_row_bwd_f32_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 4, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 8, 1>)
SMX_KERNEL(warp_row_bwd_f32_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 8, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 16, 1>)
SMX_KERNEL(warp_row_bwd_f32_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 16, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 1>)
SMX_KERNEL(warp_row_bwd_f32_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 1, true>)
SMX_KERNEL(warp_row_bwd_f32_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 2>)
SMX_KERNEL(warp_row_bwd_f32_w32_p2_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 2, true>)
SMX_KERNEL(warp_row_bwd_f32_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 4>)
SMX_KERNEL(warp_row_bwd_f32_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 32, 4, true>)
SMX_KERNEL(warp_row_bwd_f32_w1_p2, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 1, 2>)
SMX_KERNEL(warp_row_bwd_f32_w1_p2_shift, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 1, 2, true>)
SMX_KERNEL(warp_row_bwd_f32_w2_p2, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 2, 2>)
SMX_KERNEL(warp_row_bwd_f32_w2_p2_shift, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 2, 2, true>)
SMX_KERNEL(warp_row_bwd_f32_w4_p2, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 4, 2>)
SMX_KERNEL(warp_row_bwd_f32_w4_p2_shift, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 4, 2, true>)
SMX_KERNEL(warp_row_bwd_f32_w8_p2, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 8, 2>)
SMX_KERNEL(warp_row_bwd_f32_w8_p2_shift, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 8, 2, true>)
SMX_KERNEL(warp_row_bwd_f32_w16_p2, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 16, 2>)
SMX_KERNEL(warp_row_bwd_f32_w16_p2_shift, WR_BWD_SUB_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F32>, 16, 2, true>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(warp_row_fwd_f16_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 1, 1>)
SMX_KERNEL(warp_row_fwd_f16_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 1, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 2, 1>)
SMX_KERNEL(warp_row_fwd_f16_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 2, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 1>)
SMX_KERNEL(warp_row_fwd_f16_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 1>)
SMX_KERNEL(warp_row_fwd_f16_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 1>)
SMX_KERNEL(warp_row_fwd_f16_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 1>)
SMX_KERNEL(warp_row_fwd_f16_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 1, true>)
SMX_KERNEL(warp_row_fwd_f16_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 2>)
SMX_KERNEL(warp_row_fwd_f16_w32_p2_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 4>)
SMX_KERNEL(warp_row_fwd_f16_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 4, true>)
SMX_KERNEL(warp_row_fwd_f16_w32_p8, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 8>)
SMX_KERNEL(warp_row_fwd_f16_w32_p8_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 32, 8, true>)
SMX_KERNEL(warp_row_fwd_f16_w1_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 1, 2>)
SMX_KERNEL(warp_row_fwd_f16_w1_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 1, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w2_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 2, 2>)
SMX_KERNEL(warp_row_fwd_f16_w2_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 2, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w4_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 2>)
SMX_KERNEL(warp_row_fwd_f16_w4_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w8_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 2>)
SMX_KERNEL(warp_row_fwd_f16_w8_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w16_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 2>)
SMX_KERNEL(warp_row_fwd_f16_w16_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 2, true>)
SMX_KERNEL(warp_row_fwd_f16_w4_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 3>)
SMX_KERNEL(warp_row_fwd_f16_w4_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 4, 3, true>)
SMX_KERNEL(warp_row_fwd_f16_w8_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 3>)
SMX_KERNEL(warp_row_fwd_f16_w8_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 8, 3, true>)
SMX_KERNEL(warp_row_fwd_f16_w16_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 3>)
SMX_KERNEL(warp_row_fwd_f16_w16_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::F16>, 16, 3, true>)
SMX_KERNEL(warp_row_bwd_f16_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 1, 1>)
SMX_KERNEL(warp_row_bwd_f16_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 1, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 2, 1>)
SMX_KERNEL(warp_row_bwd_f16_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 2, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 4, 1>)
SMX_KERNEL(warp_row_bwd_f16_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 4, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 8, 1>)
SMX_KERNEL(warp_row_bwd_f16_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 8, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 16, 1>)
SMX_KERNEL(warp_row_bwd_f16_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 16, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 1>)
SMX_KERNEL(warp_row_bwd_f16_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 1, true>)
SMX_KERNEL(warp_row_bwd_f16_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 2>)
SMX_KERNEL(warp_row_bwd_f16_w32_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 2, true>)
SMX_KERNEL(warp_row_bwd_f16_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 4>)
SMX_KERNEL(warp_row_bwd_f16_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 32, 4, true>)
SMX_KERNEL(warp_row_bwd_f16_w1_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 1, 2>)
SMX_KERNEL(warp_row_bwd_f16_w1_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 1, 2, true>)
SMX_KERNEL(warp_row_bwd_f16_w2_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 2, 2>)
SMX_KERNEL(warp_row_bwd_f16_w2_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 2, 2, true>)
SMX_KERNEL(warp_row_bwd_f16_w4_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 4, 2>)
SMX_KERNEL(warp_row_bwd_f16_w4_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 4, 2, true>)
SMX_KERNEL(warp_row_bwd_f16_w8_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 8, 2>)
SMX_KERNEL(warp_row_bwd_f16_w8_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 8, 2, true>)
SMX_KERNEL(warp_row_bwd_f16_w16_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 16, 2>)
SMX_KERNEL(warp_row_bwd_f16_w16_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::F16>, 16, 2, true>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(warp_row_fwd_bf16_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 1, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 1, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 2, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 2, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 1>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 1, true>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p2_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 4>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 4, true>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p8, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 8>)
SMX_KERNEL(warp_row_fwd_bf16_w32_p8_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 32, 8, true>)
SMX_KERNEL(warp_row_fwd_bf16_w1_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 1, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w1_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 1, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w2_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 2, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w2_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 2, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p2, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 2>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p2_shift, WR_SUB_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 2, true>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 3>)
SMX_KERNEL(warp_row_fwd_bf16_w4_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 4, 3, true>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 3>)
SMX_KERNEL(warp_row_fwd_bf16_w8_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 8, 3, true>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p3, WR_P3_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 3>)
SMX_KERNEL(warp_row_fwd_bf16_w16_p3_shift, WR_P3_SHIFT_BOUNDS, smx::warp_row_kernel<smx::Fwd<smx::BF16>, 16, 3, true>)
SMX_KERNEL(warp_row_bwd_bf16_w1_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 1, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w1_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 1, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w2_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 2, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w2_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 2, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w4_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 4, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w4_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 4, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w8_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 8, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w8_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 8, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w16_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 16, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w16_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 16, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p1, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 1>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p1_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 1, true>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p2, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 2, true>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p4, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 4>)
SMX_KERNEL(warp_row_bwd_bf16_w32_p4_shift, WR_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 32, 4, true>)
SMX_KERNEL(warp_row_bwd_bf16_w1_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 1, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w1_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 1, 2, true>)
SMX_KERNEL(warp_row_bwd_bf16_w2_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 2, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w2_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 2, 2, true>)
SMX_KERNEL(warp_row_bwd_bf16_w4_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 4, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w4_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 4, 2, true>)
SMX_KERNEL(warp_row_bwd_bf16_w8_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 8, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w8_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 8, 2, true>)
SMX_KERNEL(warp_row_bwd_bf16_w16_p2, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 16, 2>)
SMX_KERNEL(warp_row_bwd_bf16_w16_p2_shift, WR_BWD_SUB16_BOUNDS, smx::warp_row_kernel<smx::Bwd<smx::BF16>, 16, 2, true>)
#endif
