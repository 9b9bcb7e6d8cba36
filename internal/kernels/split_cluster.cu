// split_cluster (sm_90+): one thread-block cluster of C blocks per row, in a
// single launch. Block `rank` of the cluster caches chunk `rank` of the row
// (chunk elements) in dynamic shared memory in the storage dtype, computes
// its (m, d) (backward: gradient sum), and publishes it in shared memory.
// After a cluster barrier every warp reads all C partials over distributed
// shared memory (mapa + ld.shared::cluster), merges them, and after a second
// barrier (no block may reuse or free its partial while others read it) the
// block writes its chunk from the shared-memory copy. The row is read from
// global memory exactly once.
//
// A cluster with one row (gridDim.y >= rows: what the planner launches)
// pushes its partials instead (ClusterPush, as strided_reg does): each block
// st.async-stores its partial into every block's slots, behind the dynamic
// chunk copy, and waits on its own mbarrier; no cluster barrier but the
// relaxed one that arms the mbarriers, whose wait comes after the block's
// reduction. The row loop (more rows than clusters, or an NVRTC below 12.1)
// keeps the two barriers.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   cluster (C, 1, 1), C <= 8 portable, <= 16 with
//           CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED; launched with
//           cuLaunchKernelEx and CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (no
//           __cluster_dims__ in the source)
//   block   (nt, 1, 1), nt a multiple of 32, <= 1024
//   grid    (C, gy, 1), gy <= min(rows, 65535); clusters grid-stride over rows
//   smem    dynamic NIN * roundup(chunk*esize, 16) bytes (NIN = 1 forward, 2
//           backward), then SplitClusterSlots (kernels.SplitClusterSlotBytes),
//           via CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES above 48 KB;
//           static ~264 B
//   params  chunk (multiple of the pack), split = C; requires C*chunk >= cols
//           (the kernel traps otherwise, e.g. when launched without clusters)
//   ws      none
//   symbol  split_cluster_{fwd,bwd}_{f32,f16,bf16,f64}
// On architectures below sm_90 the kernels compile to a trap.
#include "common.cuh"

namespace smx {

// The pushed partials of a one-row cluster, after the chunk copies in
// dynamic shared memory; 16 slots, the largest cluster. Its 144 bytes (272
// with double pairs; kernels.SplitClusterSlotBytes) are in every launch's dynamic size, so
// the static size in the resource table (resources/<arch>.tsv) stays
// the kernel's.
template <class W>
struct SplitClusterSlots {
  unsigned long long mbar;
  unsigned long long pad;
  W slot[16];
};

template <class Op>
__device__ __forceinline__ void split_cluster_kernel(const Params& p) {
#if __CUDA_ARCH__ >= 900
  typedef typename Op::T T;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, chunk = p.chunk;
  const bool vec = p.vec != 0;
  const u32 rank = cluster_rank(), csize = cluster_size();
  if ((i64)csize * chunk < cols || csize > 16) __trap();
  const i64 stride = pack_round<typename Op::D>(chunk);
  T* const sm = static_cast<T*>(dyn_smem());
  typedef typename Op::Ws W;
  __shared__ W part;
  const u32 part_addr = smem_addr(&part);
  const int lane = threadIdx.x & 31;
#ifdef SMX_CLUSTER_PUSH
  if (gridDim.y >= rows) {
    SplitClusterSlots<W>& sl = *reinterpret_cast<SplitClusterSlots<W>*>(sm + Op::NIN * stride);
    ClusterPush push;
    push.arm(&sl.mbar, csize * (u32)sizeof(W));
    const i64 row = blockIdx.y;  // the same for the whole cluster
    if (row >= rows) {
      push.ready();  // the arm's arrive wants its wait
      return;
    }
    const i64 c0 = (i64)rank * chunk;
    const i64 n = imax(0, imin(chunk, cols - c0));
    const i64 off = row * cols + c0;
    typename Op::Acc a = stream_acc<Op, true>(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride);
    a = block_reduce<Op>(a);
    push.ready();
    if (threadIdx.x < csize) push.push(&sl.slot[rank], threadIdx.x, Op::to_ws(a));
    push.wait();
    typename Op::Acc g = Op::identity();
    if ((u32)lane < csize) g = Op::from_ws(sl.slot[lane]);
    g = group_reduce<Op, 32>(g);
    smem_out(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride, op.finalize(g));
    return;
  }
#endif
  for (i64 row = blockIdx.y; row < rows; row += gridDim.y) {
    const i64 c0 = (i64)rank * chunk;
    const i64 n = imax(0, imin(chunk, cols - c0));
    const i64 off = row * cols + c0;
    typename Op::Acc a = stream_acc<Op, true>(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride);
    a = block_reduce<Op>(a);
    if (threadIdx.x == 0) part = Op::to_ws(a);
    cluster_sync();
    typename Op::Acc g = Op::identity();
    if ((u32)lane < csize) g = Op::from_ws(ld_cluster_pair<W>(part_addr, lane));
    g = group_reduce<Op, 32>(g);
    cluster_sync();
    smem_out(op, off, n, threadIdx.x, blockDim.x, vec, sm, stride, op.finalize(g));
  }
#else
  __trap();
#endif
}

}  // namespace smx
