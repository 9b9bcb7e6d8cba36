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
