// split_grid: few long rows over the whole GPU in one launch, each block's
// chunk cached in its shared memory across a grid-wide barrier. split_row
// reads every element twice (phase 2 re-reads its chunk, from DRAM once the
// rows in flight outgrow the L2); here one block per SM holds up to ~227 KB
// of its chunk in shared memory (29 MB over 132 SMs), so only the part that
// does not fit is read a second time, and that part is read last in phase 1
// and first (last tile first) in phase 2, so it comes back mostly from L2.
//
// The rows go in waves of rw = gridDim.x / split rows: block b takes chunk
// b % split of row w*rw + b / split in wave w. Per wave:
//   phase 1: the block reads its chunk: the first `cached` elements (whole
//            packs, as many as the shared memory holds) into shared memory,
//            the rest streamed, keeping the online (m, d) (backward: the
//            gradient sum); the block's partial goes to ws.
//   barrier: the row's split blocks (all resident: cooperative launch);
//            per row: the row's blocks only (see below); none with one block
//            a row (split == 1), which needs no partial but its own.
//   phase 2: the row's `split` partials are merged; the streamed part is
//            re-read (last tile first) and written; then the cached part is
//            written from shared memory, and as each cached pack is written
//            its slot is refilled with the same pack of the block's chunk in
//            the next wave: phase 1 of wave w+1 is fused into phase 2 of
//            wave w, so its DRAM reads overlap wave w's writes (one wave
//            alone reads everything, waits, then writes everything).
//
// The barrier is per row, not grid-wide: the split blocks of row slot lr
// (blocks lr*split .. lr*split + split-1, the same in every wave) meet at
// word Params.bar[lr], so a block waits for its own row's reads only, not
// for the slowest block of the grid (H200 harness, caches flushed, µs,
// grid -> row barrier: 4x1048576 f16 14.43 -> 13.79, 4x4194304 f16 29.18
// -> 28.16, 16x262144 f32 17.98 -> 17.44; through softmax bench, whose
// queued reps add ~1 µs to both, +0.3-1.8%, within its spread; bench/
// results/nvidia-h200-2026-11-22-ab-s20.txt). Each word must start with
// its low 31 bits zero (a zeroed allocation): the row's chunk 0 adds 2^31 -
// (split - 1), its other blocks 1, so each barrier adds exactly 2^31 and
// flips bit 31 once the row's blocks have arrived, leaving the low bits
// zero again for the next wave or launch of any split (the scheme CUDA's
// cooperative groups use for grid.sync, per row).
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, <= 1024
//   grid   (G, 1, 1), G >= split, every block resident at once (launch
//          with CU_LAUNCH_ATTRIBUTE_COOPERATIVE: the driver refuses a grid
//          that could deadlock); rw = G / split rows per wave, ceil(rows/rw)
//          waves; blocks past rw*split idle
//   smem   dynamic: a multiple of NIN*16 bytes, the cache (NIN = 1 forward,
//          2 backward); input k's cached packs at k*(smem/(16*NIN)) packs
//   ws     rows*split float pairs, double pairs for f64 (row r's partials
//          at r*split)
//   bar    rw u32 words (one per row of a wave), low 31 bits zero (see
//          above), private to the stream
//   params chunk (multiple of the pack with vec), split = blocks per row
//   symbol split_grid_{fwd,bwd}_{f32,f16,bf16,f64}[_waves]: _waves for more
//          than one wave (rows > rw); the plain kernels take one wave only
#include "common.cuh"

namespace smx {

#ifndef SMX_EMU
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

// The double pair of a float64 partial (ws of D2), as ld_cg_f2.
__device__ __forceinline__ D2 ld_cg_f2(const D2* p) {
  D2 v;
  asm volatile("ld.global.cg.v2.f64 {%0, %1}, [%2];" : "=d"(v.a), "=d"(v.b) : "l"(p) : "memory");
  return v;
}
#endif

// Waits until the n co-resident blocks meeting at bar have arrived; the
// caller is block c of them (0 <= c < n).
__device__ __forceinline__ void blocks_sync(u32* bar, int n, i64 c) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const u32 inc = c == 0 ? 0x80000000u - (u32)(n - 1) : 1u;
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
    typename Op::M b[NIN][P], o[P];
#pragma unroll
    for (int k = 0; k < NIN; ++k) unpack_conv(op, k, stash[k * sstride + i], b[k]);
    op.out_vals(b, 0, o, f);
    st_cs(op.dst() + off + i * P, Op::Store::pack(o));
  }
}

// stash_out fused with the next wave's first read: each cached pack i of the
// chunk at off is written out and its slot refilled with pack i of the chunk
// at noff (U packs of loads in flight per thread, as in pack_acc); returns
// the refill's partial.
template <class Op>
__device__ __forceinline__ typename Op::Acc stash_swap(const Op& op, V16* stash, i64 sstride, i64 off, i64 noff,
                                                       i64 np, int t, int nt, const typename Op::Fin& f) {
  typedef typename Op::D D;
  constexpr int P = D::P, U = Unroll<Op>::U, NIN = Op::NIN;
  typename Op::Acc a = Op::identity();
  typename Op::M comp = 0.f;
  const auto swap = [&](i64 i, const V16 (&r)[NIN]) {
    typename Op::M b[NIN][P], o[P];
#pragma unroll
    for (int k = 0; k < NIN; ++k) unpack_conv(op, k, stash[k * sstride + i], b[k]);
    op.out_vals(b, 0, o, f);
    st_cs(op.dst() + off + i * P, Op::Store::pack(o));
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      stash[k * sstride + i] = r[k];
      unpack_conv(op, k, r[k], b[k]);
    }
    op.push(a, comp, b);
  };
  i64 i = t;
  for (; i + (i64)(U - 1) * nt < np; i += (i64)U * nt) {
    V16 r[U][NIN];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) r[u][k] = ld16(op.src(k) + noff + (i + (i64)u * nt) * P);
#pragma unroll
    for (int u = 0; u < U; ++u) swap(i + (i64)u * nt, r[u]);
  }
  for (; i < np; i += nt) {
    V16 r[NIN];
#pragma unroll
    for (int k = 0; k < NIN; ++k) r[k] = ld16(op.src(k) + noff + i * P);
    swap(i, r);
  }
  return Op::fold(a, comp);
}

// Phase 1 of one chunk (n elements at off): np packs into the stash, the
// rest streamed.
template <class Op>
__device__ __forceinline__ typename Op::Acc chunk_acc(const Op& op, i64 off, i64 n, i64 np, bool vec, V16* stash,
                                                      i64 cap, int t, int nt) {
  constexpr int P = Op::D::P;
  if (!vec) return elem_acc(op, off, n, t, nt);
  return Op::merge(pack_acc<Op, true, true>(op, off, np * P, t, nt, stash, cap),
                   pack_acc<Op, false, true>(op, off + np * P, n - np * P, t, nt));
}

// WAVES: the wave loop; without it the launch must have every row in one
// wave (G >= rows*split), and the kernel is the one-wave body alone: the
// loop's registers (64 a thread, from ~50) had cost the one-wave launches
// ~1 µs each (H200, 4×1048576 f16 15.8 -> 16.7 µs, 1×2^24 f32 51.5 -> 52.7).
template <class Op, bool WAVES>
__device__ __forceinline__ void split_grid_kernel(const Params& p) {
  constexpr int P = Op::D::P;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, chunk = p.chunk;
  const int split = p.split, t = threadIdx.x, nt = blockDim.x;
  const bool vec = p.vec != 0;
  // One wave: rw = rows (the launch has G >= rows*split).
  const i64 rw = WAVES ? gridDim.x / split : rows, waves = WAVES ? (rows + rw - 1) / rw : 1;
  const i64 b = blockIdx.x, lr = b / split, c = b % split;
  // Every row has the same chunks, so n and np hold for every wave.
  const i64 n = lr < rw ? imax(0, imin(chunk, cols - c * chunk)) : 0;
  V16* const stash = static_cast<V16*>(dyn_smem());
  const i64 cap = dyn_smem_bytes() / (16 * Op::NIN);  // packs per input
  const i64 np = vec ? imin(n / P, cap) : 0;         // packs cached
  typename Op::Ws* const ws = reinterpret_cast<typename Op::Ws*>(p.ws);
  // One block a row: its partial is the whole row's, so it neither publishes
  // it nor waits at the barrier, and starts writing as soon as its own reads
  // are done instead of when the slowest block's are (H200, 128x128256 bf16
  // 29.9 -> 27.1 µs, 100x100000 f16 24.0 -> 21.2; bench/results/nvidia-h200-
  // 2026-11-22-ab-s14.txt).
  const bool alone = split == 1;
  // A block is on in wave w when it has a row there (on in w+1 implies on
  // in w, and a row slot's blocks are on or off together); only blocks that
  // are on meet at their row's barrier (there are none when alone).
  i64 row = lr;
  bool on = lr < rw && row < rows;
  typename Op::Acc a = on ? chunk_acc(op, row * cols + c * chunk, n, np, vec, stash, cap, t, nt) : Op::identity();
  for (i64 w = 0; w < waves; ++w, row += rw) {
    a = block_reduce<Op>(a);
    if (!alone && on) {
      if (t == 0) ws[row * split + c] = Op::to_ws(a);
      blocks_sync(p.bar + lr, split, c);
    }
    const bool next = WAVES && lr < rw && row + rw < rows;
    if (on) {
      const i64 off = row * cols + c * chunk, noff = off + rw * cols;
      if (!alone) {
        a = Op::identity();
        for (int k = t; k < split; k += nt) a = Op::merge(a, Op::from_ws(ld_cg_f2(ws + row * split + k)));
        a = block_reduce<Op>(a);
      }
      const typename Op::Fin f = op.finalize(a);
      if (vec) {
        pack_out_rev(op, off + np * P, n - np * P, t, nt, f);
        if (next) {
          a = Op::merge(stash_swap(op, stash, cap, off, noff, np, t, nt, f),
                        pack_acc(op, noff + np * P, n - np * P, t, nt));
        } else {
          stash_out(op, stash, cap, off, np, t, nt, f);
        }
      } else {
        elem_out_rev(op, off, n, t, nt, f);
        if (next) a = elem_acc(op, noff, n, t, nt);
      }
    }
    on = next;
  }
}

}  // namespace smx
