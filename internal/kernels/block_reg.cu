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

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(block_reg_fwd_f32_p1, 1024, smx::block_reg_kernel<smx::Fwd<smx::F32>, 1>)
SMX_KERNEL(block_reg_fwd_f32_p2, 1024, smx::block_reg_kernel<smx::Fwd<smx::F32>, 2>)
SMX_KERNEL(block_reg_fwd_f32_p4, 512, smx::block_reg_kernel<smx::Fwd<smx::F32>, 4>)
SMX_KERNEL(block_reg_bwd_f32_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::F32>, 1>)
SMX_KERNEL(block_reg_bwd_f32_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::F32>, 2>)
SMX_KERNEL(block_reg_bwd_f32_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::F32>, 4>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(block_reg_fwd_f16_p1, 1024, smx::block_reg_kernel<smx::Fwd<smx::F16>, 1>)
SMX_KERNEL(block_reg_fwd_f16_p2, 1024, smx::block_reg_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(block_reg_fwd_f16_p4, 512, smx::block_reg_kernel<smx::Fwd<smx::F16>, 4>)
SMX_KERNEL(block_reg_bwd_f16_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::F16>, 1>)
SMX_KERNEL(block_reg_bwd_f16_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::F16>, 2>)
SMX_KERNEL(block_reg_bwd_f16_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::F16>, 4>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(block_reg_fwd_bf16_p1, 1024, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 1>)
SMX_KERNEL(block_reg_fwd_bf16_p2, 1024, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(block_reg_fwd_bf16_p4, 512, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 4>)
SMX_KERNEL(block_reg_bwd_bf16_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 1>)
SMX_KERNEL(block_reg_bwd_bf16_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 2>)
SMX_KERNEL(block_reg_bwd_bf16_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 4>)
#endif
