// online_2pass: one block per row, any row length. Pass 1 streams the row in
// 16-byte packs (UNROLL packs in flight per thread) keeping a per-thread
// online (m, d) (backward: the sum of dy*y or dy), then one block merge.
// Pass 2 re-reads the row (served mostly by L2 for rows in flight) and
// writes the output with evict-first stores.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   none dynamic; workspace none
//   symbol online_2pass_{fwd,bwd}_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

// SHIFT: the "_shift" twins for ragged rows (row_2pass).
template <class Op, bool SHIFT = false>
__device__ __forceinline__ void online_2pass_kernel(const Params& p) {
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const bool vec = p.vec != 0;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) row_2pass<Op, SHIFT>(op, row * cols, cols, vec);
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
// Backward holds two inputs in flight: ask for two 512-thread blocks per SM.
#define O2_BWD_BOUNDS 512, 2

#if SMX_DTYPES & 1
SMX_KERNEL(online_2pass_fwd_f32, 512, smx::online_2pass_kernel<smx::Fwd<smx::F32>>)
SMX_KERNEL(online_2pass_fwd_f32_shift, 512, smx::online_2pass_kernel<smx::Fwd<smx::F32>, true>)
SMX_KERNEL(online_2pass_bwd_f32, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::F32>>)
SMX_KERNEL(online_2pass_bwd_f32_shift, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::F32>, true>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(online_2pass_fwd_f16, 512, smx::online_2pass_kernel<smx::Fwd<smx::F16>>)
SMX_KERNEL(online_2pass_fwd_f16_shift, 512, smx::online_2pass_kernel<smx::Fwd<smx::F16>, true>)
SMX_KERNEL(online_2pass_bwd_f16, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::F16>>)
SMX_KERNEL(online_2pass_bwd_f16_shift, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::F16>, true>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(online_2pass_fwd_bf16, 512, smx::online_2pass_kernel<smx::Fwd<smx::BF16>>)
SMX_KERNEL(online_2pass_fwd_bf16_shift, 512, smx::online_2pass_kernel<smx::Fwd<smx::BF16>, true>)
SMX_KERNEL(online_2pass_bwd_bf16, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::BF16>>)
SMX_KERNEL(online_2pass_bwd_bf16_shift, O2_BWD_BOUNDS, smx::online_2pass_kernel<smx::Bwd<smx::BF16>, true>)
#endif
