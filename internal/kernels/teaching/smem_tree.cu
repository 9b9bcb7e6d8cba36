// smem_tree: one block per row, the classic shared-memory tree reduction.
// Each thread folds a strided subset of the row (scalar loads: thread t reads
// columns t, t+nt, ..., coalesced) into an online (m, d) (backward: the
// gradient sum); the nt partials are merged pairwise in dynamic shared memory
// (nt/2, nt/4, ... active threads, a barrier per level); a second sweep writes.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a power of two, 32 <= nt <= 1024
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   dynamic nt*8 bytes (one float pair per thread)
//   workspace none
//   symbol smem_tree_{fwd,bwd}_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

template <class Op>
__device__ __forceinline__ void smem_tree_kernel(const Params& p) {
  typedef typename Op::Acc Acc;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int t = threadIdx.x, nt = blockDim.x;
  Acc* const sm = static_cast<Acc*>(dyn_smem());
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    const i64 off = row * cols;
    Acc a = Op::identity();
    float comp = 0.f;
    for (i64 j = t; j < cols; j += nt) {
      float v0, v1;
      load1(op, off + j, v0, v1);
      op.push1(a, comp, v0, v1);
    }
    sm[t] = Op::fold(a, comp);
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
      if (t < s) sm[t] = Op::merge(sm[t], sm[t + s]);
      __syncthreads();
    }
    a = sm[0];
    __syncthreads();  // everyone has read sm[0] before the next row overwrites it
    const typename Op::Fin f = op.finalize(a);
    for (i64 j = t; j < cols; j += nt) {
      float v0, v1;
      load1(op, off + j, v0, v1);
      op.dst()[off + j] = Op::Store::from_f(op.out1(v0, v1, f));
    }
  }
}

}  // namespace smx
