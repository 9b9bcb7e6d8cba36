// block_smem: one block per row, the row cached in dynamic shared memory in
// its storage dtype (backward caches y and dy), so rows up to the opt-in
// limit (227 KB per block on Hopper: 58K f32 / 116K f16 elements forward)
// are read from global memory once. Pass 1 loads 16-byte packs, stashes them
// in shared memory and keeps the online (m, d) per thread; after the block
// merge, pass 2 reads the stash (each thread re-reads exactly the packs it
// wrote, so no barrier is needed between the passes) and writes the output.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   dynamic NIN * roundup(cols*esize, 16) bytes (NIN = 1 forward, 2
//          backward); above 48 KB the host must first raise
//          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. Static: 256 B.
//   workspace none
//   symbol block_smem_{fwd,bwd}_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

// SHIFT: the "_shift" twins for ragged rows (Params.vec == 2).
template <class Op, bool SHIFT = false>
__device__ __forceinline__ void block_smem_kernel(const Params& p) {
  typedef typename Op::T T;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const bool vec = p.vec != 0;
  const i64 stride = pack_round<typename Op::D>(cols);
  T* const sm = static_cast<T*>(dyn_smem());
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    // A ragged row (SHIFT) streams from its first 16-byte
    // boundary; its head, fewer than P elements, goes element by element.
    const i64 head = SHIFT ? row_head<typename Op::D>(op.src(0), row * cols, cols) : 0;
    const i64 off = row * cols + head, n = cols - head;
    typename Op::Acc a = stream_acc<Op, true>(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride, head);
    // The reduction's barriers also order this row's stash writes after the
    // previous row's stash reads.
    a = block_reduce<Op>(a);
    smem_out(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride, op.finalize(a), head);
  }
}

}  // namespace smx
