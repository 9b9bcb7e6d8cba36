// block_reg: one block per row, the row cached in registers (NP 16-byte packs
// per thread), one global read and one write. Thread t owns packs k*nt + t,
// so every load instruction of a warp covers 512 contiguous bytes.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, cols <= nt*NP*P
//          (P = 4 f32, 8 f16/bf16); nt <= 1024 for p1/p2, <= 512 for p4
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   none dynamic (256 B static for the block reduction); workspace none
//   symbol block_reg_{fwd,bwd}_{f32,f16,bf16}_p{1,2,4}
// Longest rows: 1024*2*P = 2048*P (8192 f32, 16384 f16/bf16).
#include "common.cuh"

namespace smx {

template <class Op, int NP>
__device__ __forceinline__ void block_reg_kernel(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const bool vec = p.vec != 0;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x)
    cached_row<Op, NP, BlockRed>(op, row * cols, cols, threadIdx.x, blockDim.x, vec);
}

}  // namespace smx

#define BR(DIR, OP, DT, D)                                                          \
  SMX_KERNEL(block_reg_##DIR##_##DT##_p1, 1024, smx::block_reg_kernel<smx::OP<smx::D>, 1>) \
  SMX_KERNEL(block_reg_##DIR##_##DT##_p2, 1024, smx::block_reg_kernel<smx::OP<smx::D>, 2>) \
  SMX_KERNEL(block_reg_##DIR##_##DT##_p4, 512, smx::block_reg_kernel<smx::OP<smx::D>, 4>)

SMX_F32(BR(fwd, Fwd, f32, F32) BR(bwd, Bwd, f32, F32))
SMX_F16(BR(fwd, Fwd, f16, F16) BR(bwd, Bwd, f16, F16))
SMX_BF16(BR(fwd, Fwd, bf16, BF16) BR(bwd, Bwd, bf16, BF16))
