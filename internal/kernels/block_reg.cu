// block_reg: one block per row, the row cached in registers (NP 16-byte packs
// per thread), one global read and one write: the Triton tutorial's kernel.
// Thread t owns packs k*nt + t, so every load instruction of a warp covers
// 512 contiguous bytes. Forward takes the block max, turns the cached values
// into exps in place and sums them (Fwd::reduce_cached), so each element
// costs one exp. The host launches one block per row: a finished block's SM
// slot is refilled by a fresh row at once, which on H200 ran 5-10% ahead of
// a grid-striding grid of resident blocks.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, cols <= nt*NP*P
//          (P = 4 f32, 8 f16/bf16); nt <= 1024 for p1/p2/p8, <= 512 for p4
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   none dynamic (static for the block reductions); workspace none
//   symbol block_reg_{fwd,bwd}_{f32,f16,bf16}_p{1,2,4}, block_reg_fwd_{dt}_p8
// Longest rows: 1024*8*P forward (32768 f32, 65536 f16/bf16), 1024*2*P
// backward. p8 is bounded to 64 registers (1024 threads): f32 holds its 32
// values without spilling; f16/bf16 p8 spills and is for rows nothing else
// in registers can hold.
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
SMX_KERNEL(block_reg_fwd_f32_p8, 1024, smx::block_reg_kernel<smx::Fwd<smx::F32>, 8>)
SMX_KERNEL(block_reg_bwd_f32_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::F32>, 1>)
SMX_KERNEL(block_reg_bwd_f32_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::F32>, 2>)
SMX_KERNEL(block_reg_bwd_f32_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::F32>, 4>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(block_reg_fwd_f16_p1, 1024, smx::block_reg_kernel<smx::Fwd<smx::F16>, 1>)
SMX_KERNEL(block_reg_fwd_f16_p2, 1024, smx::block_reg_kernel<smx::Fwd<smx::F16>, 2>)
SMX_KERNEL(block_reg_fwd_f16_p4, 512, smx::block_reg_kernel<smx::Fwd<smx::F16>, 4>)
SMX_KERNEL(block_reg_fwd_f16_p8, 1024, smx::block_reg_kernel<smx::Fwd<smx::F16>, 8>)
SMX_KERNEL(block_reg_bwd_f16_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::F16>, 1>)
SMX_KERNEL(block_reg_bwd_f16_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::F16>, 2>)
SMX_KERNEL(block_reg_bwd_f16_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::F16>, 4>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(block_reg_fwd_bf16_p1, 1024, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 1>)
SMX_KERNEL(block_reg_fwd_bf16_p2, 1024, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 2>)
SMX_KERNEL(block_reg_fwd_bf16_p4, 512, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 4>)
SMX_KERNEL(block_reg_fwd_bf16_p8, 1024, smx::block_reg_kernel<smx::Fwd<smx::BF16>, 8>)
SMX_KERNEL(block_reg_bwd_bf16_p1, 1024, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 1>)
SMX_KERNEL(block_reg_bwd_bf16_p2, 1024, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 2>)
SMX_KERNEL(block_reg_bwd_bf16_p4, 512, smx::block_reg_kernel<smx::Bwd<smx::BF16>, 4>)
#endif
