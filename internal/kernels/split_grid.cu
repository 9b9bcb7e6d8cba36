// split_grid: few long rows over the whole GPU in one launch, each block's
// chunk cached in its shared memory across a grid-wide barrier. split_row
// reads every element twice (phase 2 re-reads its chunk, from DRAM once the
// rows in flight outgrow the L2); here one block per SM holds up to ~227 KB
// of its chunk in shared memory (29 MB over 132 SMs), so only the part that
// does not fit is read a second time, and that part is read last in phase 1
// and first (last tile first) in phase 2, so it comes back mostly from L2.
//   phase 1: block b = (row, c) reads chunk c of row: the first `cached`
//            elements (whole packs, as many as the shared memory holds) into
//            shared memory, the rest streamed, keeping the online (m, d)
//            (backward: the gradient sum); the block's partial goes to
//            ws[b].
//   barrier: every block of the grid (all resident: cooperative launch).
//   phase 2: the row's `split` partials are merged; the streamed part is
//            re-read (last tile first) and written; then the cached part is
//            written from shared memory.
//
// The barrier word (Params.bar) must start with its low 31 bits zero (a
// zeroed allocation): block 0 adds 2^31 - (gridDim.x - 1), every other block
// 1, so each launch adds exactly 2^31 and flips bit 31 once every block has
// arrived, leaving the low bits zero again for the next launch of any grid
// size (the scheme CUDA's cooperative groups use for grid.sync).
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, <= 1024
//   grid   (G, 1, 1), G >= rows*split, every block resident at once (launch
//          with CU_LAUNCH_ATTRIBUTE_COOPERATIVE: the driver refuses a grid
//          that could deadlock); blocks past rows*split only join the barrier
//   smem   dynamic: a multiple of NIN*16 bytes, the cache (NIN = 1 forward,
//          2 backward); input k's cached packs at k*(smem/(16*NIN)) packs
//   ws     rows*split float pairs, fully written before the barrier
//   bar    one u32, low 31 bits zero (see above), private to the stream
//   params chunk (multiple of the pack with vec), split = blocks per row
//   symbol split_grid_{fwd,bwd}_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

#ifndef SMX_EMU
__device__ __forceinline__ u32 dyn_smem_size() {
  u32 r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

__device__ __forceinline__ u32 atom_add_release(u32* p, u32 v) {
  u32 old;
  asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

__device__ __forceinline__ u32 ld_acquire(const u32* p) {
  u32 v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// A partial written by another block before the barrier: read at L2 (.cg),
// never from a stale L1 line.
__device__ __forceinline__ F2 ld_cg_f2(const F2* p) {
  F2 v;
  asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(v.a), "=f"(v.b) : "l"(p) : "memory");
  return v;
}
#endif

// Waits until every block of the (1-D, co-resident) grid has arrived.
__device__ __forceinline__ void grid_sync(u32* bar) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 inc = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
    const u32 old = atom_add_release(bar, inc);
    while (((old ^ ld_acquire(bar)) & 0x80000000u) == 0) {
    }
  }
  __syncthreads();
}

// Writes the output of the np packs cached raw in stash (input k at
// stash + k*sstride) as packs [0, np) of the slice at global offset off.
template <class Op>
__device__ __forceinline__ void stash_out(const Op& op, const V16* stash, i64 sstride, i64 off, i64 np, int t, int nt,
                                          const typename Op::Fin& f) {
  typedef typename Op::D D;
  constexpr int P = D::P, NIN = Op::NIN;
  for (i64 i = t; i < np; i += nt) {
    float b[NIN][P], o[P];
#pragma unroll
    for (int k = 0; k < NIN; ++k) unpack_conv(op, k, stash[k * sstride + i], b[k]);
    op.out_vals(b, 0, o, f);
    st_cs(op.dst() + off + i * P, D::pack(o));
  }
}

template <class Op>
__device__ __forceinline__ void split_grid_kernel(const Params& p) {
  constexpr int P = Op::D::P;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, chunk = p.chunk;
  const int split = p.split, t = threadIdx.x, nt = blockDim.x;
  const bool vec = p.vec != 0;
  const i64 b = blockIdx.x, row = b / split, c = b % split;
  const bool active = row < rows;
  const i64 off = row * cols + c * chunk;
  const i64 n = active ? imax(0, imin(chunk, cols - c * chunk)) : 0;
  V16* const stash = static_cast<V16*>(dyn_smem());
  const i64 cap = dyn_smem_size() / (16 * Op::NIN);  // packs per input
  const i64 np = vec ? imin(n / P, cap) : 0;         // packs cached
  typename Op::Acc a;
  if (vec)
    a = Op::merge(pack_acc<Op, true>(op, off, np * P, t, nt, stash, cap),
                  pack_acc(op, off + np * P, n - np * P, t, nt));
  else
    a = elem_acc(op, off, n, t, nt);
  a = block_reduce<Op>(a);
  F2* const ws = reinterpret_cast<F2*>(p.ws);
  if (t == 0 && active) ws[b] = Op::to_ws(a);
  grid_sync(p.bar);
  if (!active) return;
  a = Op::identity();
  for (int k = t; k < split; k += nt) a = Op::merge(a, Op::from_ws(ld_cg_f2(ws + row * split + k)));
  const typename Op::Fin f = op.finalize(block_reduce<Op>(a));
  if (vec) {
    pack_out_rev(op, off + np * P, n - np * P, t, nt, f);
    stash_out(op, stash, cap, off, np, t, nt, f);
  } else {
    elem_out_rev(op, off, n, t, nt, f);
  }
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(split_grid_fwd_f32, 1024, smx::split_grid_kernel<smx::Fwd<smx::F32>>)
SMX_KERNEL(split_grid_bwd_f32, 1024, smx::split_grid_kernel<smx::Bwd<smx::F32>>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(split_grid_fwd_f16, 1024, smx::split_grid_kernel<smx::Fwd<smx::F16>>)
SMX_KERNEL(split_grid_bwd_f16, 1024, smx::split_grid_kernel<smx::Bwd<smx::F16>>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(split_grid_fwd_bf16, 1024, smx::split_grid_kernel<smx::Fwd<smx::BF16>>)
SMX_KERNEL(split_grid_bwd_bf16, 1024, smx::split_grid_kernel<smx::Bwd<smx::BF16>>)
#endif
