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
