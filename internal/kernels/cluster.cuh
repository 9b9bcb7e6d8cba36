// cluster.cuh: cluster: thread-block-cluster / distributed shared memory PTX (sm_90+).
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- cluster (sm_90+)

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ u32 cluster_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ u32 cluster_size() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// Full cluster barrier: arrive has release, wait has acquire semantics, so
// shared-memory writes before it are visible to every block of the cluster.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// Loads the float pair at CTA-window address a in block `rank` of the cluster.
__device__ __forceinline__ F2 ld_cluster_f2(u32 a, u32 rank) {
  u32 r;
  F2 v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.a), "=f"(v.b) : "r"(r) : "memory");
  return v;
}

// ld_cluster_f2 for a double pair (float64 partials).
__device__ __forceinline__ D2 ld_cluster_d2(u32 a, u32 rank) {
  u32 r;
  D2 v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  asm volatile("ld.shared::cluster.v2.f64 {%0, %1}, [%2];" : "=d"(v.a), "=d"(v.b) : "r"(r) : "memory");
  return v;
}

// The pair of either kind at a, in block rank.
template <class W>
__device__ __forceinline__ W ld_cluster_pair(u32 a, u32 rank) {
  if constexpr (sizeof(W) == sizeof(D2))
    return ld_cluster_d2(a, rank);
  else
    return ld_cluster_f2(a, rank);
}

// st.async and barrier.cluster.arrive.relaxed need PTX ISA 8.1 (CUDA 12.1);
// an older NVRTC keeps cluster_sync around remote loads.
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 1))
#define SMX_CLUSTER_PUSH 1

// Partials exchanged over a cluster by push: each block stores its values
// straight into every block's slots with st.async, whose bytes count down
// the receiver's mbarrier, so a block waits on its own mbarrier alone. The
// pull form (cluster_sync, remote loads, cluster_sync: the remote reads
// must end before any block exits) costs two cluster barriers whose
// release ptxas compiles to a GPU-scope MEMBAR; in ncu (H200, strided_reg,
// 4096x65536 f32 axis 0) the MEMBAR's ERRBAR and the two barrier waits held
// about a tenth of all stall samples.
//   arm    every thread, once, before anything else: thread 0 initialises
//          the mbarrier; the cluster arrives (relaxed)
//   ready  every thread, before its first push: the cluster wait, so every
//          block's mbarrier is initialised (by now a wait that rarely
//          waits); then thread 0 arrives on its own mbarrier expecting
//          `bytes` incoming bytes
//   push   v into the F2 at `slot` (this block's copy of the array) of
//          block `rank`
//   wait   every thread that reads the slots: all `bytes` have landed
// The expect_tx arrive comes after the cluster wait rather than straight
// after the init: compute-sanitizer's racecheck reports an init and an
// arrive of one thread with no barrier between them as a shared-memory
// hazard (8 errors in strided_reg, 120 warnings in split_cluster over
// TestSanitize; a two-block toy kernel reproduces the report, and a
// __syncwarp between the two clears it there but not in strided_reg). Bytes
// that land before the expect_tx only take the tx-count below zero for a
// while: the phase cannot complete before thread 0's arrive. Timed against
// the old order on 12 strided_reg and split_cluster cases, four rounds
// alternated: geometric mean 1.000, every case within 1.1%.
struct ClusterPush {
  u32 bar, bytes;
  __device__ __forceinline__ void arm(unsigned long long* mbar, u32 incoming) {
    bar = smem_addr(mbar);
    bytes = incoming;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  }
  __device__ __forceinline__ void ready() const {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    if (threadIdx.x == 0)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  }
  __device__ __forceinline__ void push(const F2* slot, u32 rank, F2 v) const {
    u32 a, b;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_addr(slot)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(b) : "r"(bar), "r"(rank));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];" ::"r"(a), "f"(v.a),
                 "f"(v.b), "r"(b)
                 : "memory");
  }
  __device__ __forceinline__ void push(const D2* slot, u32 rank, D2 v) const {
    u32 a, b;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(a) : "r"(smem_addr(slot)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(b) : "r"(bar), "r"(rank));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];" ::"r"(a), "d"(v.a),
                 "d"(v.b), "r"(b)
                 : "memory");
  }
  __device__ __forceinline__ void wait() const {
    asm volatile(
        "{\n\t.reg .pred p;\n"
        "SMX_WAIT%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra SMX_WAIT%=;\n}" ::"r"(bar)
        : "memory");
  }
};
#endif
#endif

}  // namespace smx
