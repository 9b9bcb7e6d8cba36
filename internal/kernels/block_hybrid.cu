// block_hybrid: one block per row, the row cached partly in registers and
// partly in dynamic shared memory, one global read and one write (forward;
// the backward kernels, y and dy cached alike, are block_hybrid_bwd_kernel
// at the end of this file).
//
// block_reg holds a row in registers at up to 32 values a thread, so rows
// beyond 512 threads' worth (16384 f32) take 1024-thread blocks, and a
// 1024-thread block of more than 32 registers a thread is alone on its SM:
// while it reduces and writes, nothing on that SM reads. Here NT threads
// keep 32 values each in registers (8 f32 / 4 f16-bf16 packs, as block_reg;
// 16 doubles, 8 packs, for f64)
// and NS more packs each in shared memory, filled by cp.async issued with
// the register loads. With NT = 512 two blocks (two rows) stay
// resident per SM; NT = 1024 holds rows no register cache can (up to
// 81920 f32 / 131072 f16-bf16 with 192 KB of shared memory), one per SM,
// for batches of fewer rows than SMs that would otherwise read every row
// twice. The shared-memory part is kept raw and converted again for the
// sum and for the output (two exps per element there; writing the exps
// back measured no faster, twice: 4096×20480 f32 168.4 vs 168.5 µs and
// 4096×24576 202.4 vs 202.9 in the session-16 harness). H200 harness,
// 4096 rows f32, µs, same run, block_reg t1024 vs NT = 512: 20480 195.1 vs
// 171.2, 24576 218.1 vs 203.8, 32768 273.1 vs 269.5.
//
// Launch contract (Inner == 1, rows = outer, cols = axis), forward:
//   block  (NT, 1, 1) exactly, NT = 512 or 1024
//   rows   whole 16-byte packs (vec, cols % P == 0) that fill the register
//          part: R*NT*P < cols <= (R+NS)*NT*P, R*P = 32
//          (P = 4 f32, 8 f16/bf16), 16 (P = 2 f64)
//   smem   dynamic NS*NT*16 bytes (the host opts into it)
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   symbol block_hybrid_fwd_{f32,f16,bf16,f64}_t{NT}_s{NS}, NS = 1..12;
//          "_shift" twins: ragged rows (Params.Vec = VecShift), the limits
//          applying to the span (cols plus up to P-1 elements before the
//          row back to its pack boundary) but cols > R*NT*P
#include "common.cuh"

namespace smx {

// The shared-memory part of a row for cached_row_full: thread t's packs
// (R + k)*NT + t, k < NS, stashed at stash[k*NT + t]. Each thread reads
// only the slots it copied, so no barrier guards the stash (and the next
// row's copies are issued after this thread's last read of it).
// SHIFT (the "_shift" twins): off and n are a ragged row's span from its
// pack boundary; the pack holding the span's end reads its elements past
// the span as Op::fill and stores only those inside it. In the tensor's
// last row (end) that pack may end past the tensor, so it is loaded
// element by element (ld_clamped) and stored to the stash by the thread:
// compute-sanitizer's memcheck counted a cp.async with a source size below
// 16 (the bytes inside the tensor) as a 16-byte read past the allocation.
template <class Op, int R, int NS, int NT, bool SHIFT = false>
struct StashedPacks {
  typedef typename Op::D D;
  static constexpr int P = D::P;
  const Op& op;
  V16* stash;
  i64 off, n;
  int t;
  bool end;

  // Slot k is (R + k)*NT*P elements past the thread's first element:
  // constant offsets from one base address.
  static __device__ __forceinline__ constexpr i64 skip(int k) { return (i64)(R + k) * NT * P; }
  __device__ __forceinline__ i64 first() const { return off + (i64)t * P; }
  __device__ __forceinline__ bool live(int k) const { return skip(k) < n - (i64)t * P; }

  // Elements of slot k inside the span (all of them but in the pack
  // holding the span's end).
  __device__ __forceinline__ int inside(int k) const { return (int)(n - skip(k) - (i64)t * P); }

  typedef typename Op::M M;

  __device__ __forceinline__ void vals(int k, M (&v)[1][P]) const {
    unpack_conv(op, 0, stash[k * NT + t], v[0]);
    if constexpr (SHIFT) {
#pragma unroll
      for (int e = 0; e < P; ++e) v[0][e] = keep_inside(v[0][e], Op::fill(0), e, inside(k));
    }
  }

  // Issued with the register loads; max() waits for them after the
  // register part's max.
  __device__ __forceinline__ void issue() const {
#pragma unroll
    for (int k = 0; k < NS; ++k)
      if (live(k)) {
        if (SHIFT && end && inside(k) < P)
          stash[k * NT + t] = ld_clamped<D>(op.src(0) + off, (int)(skip(k) + (i64)t * P), (int)n - 1);
        else
          cp_async16(stash + k * NT + t, op.src(0) + first() + skip(k));
      }
    cp_async_commit();
  }

  // Runs after the register part's max.
  __device__ __forceinline__ M max(M m) const {
    cp_async_wait(0);
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      if (live(k)) {
        M v[1][P];
        vals(k, v);
#pragma unroll
        for (int e = 0; e < P; ++e) m = fmax2(m, v[0][e]);
      }
    }
    return m;
  }

  __device__ __forceinline__ void sum(M s, M (&ps)[P]) const {
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      if (live(k)) {
        M v[1][P];
        vals(k, v);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += Op::ex(v[0][e] - s);
      }
    }
  }

  __device__ __forceinline__ void out(const typename Op::Fin& f) const {
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      if (live(k)) {
        M v[1][P], o[P];
        vals(k, v);
        op.out_vals(v, 0, o, f);
        if (SHIFT && inside(k) < P)
          st_pack_masked<typename Op::Store>(op.dst() + first() + skip(k), 0, 0, inside(k), o);
        else
          st_cs(op.dst() + first() + skip(k), Op::Store::pack(o));
      }
    }
  }
};

// The register part is cached_row_full's (its R packs are always full).
// SHIFT: the "_shift" twins for ragged rows (Params.Vec = VecShift), each
// row read from the pack boundary before it: the register part in
// cached_row_full's masked form (the elements before the row masked in its
// first pack; the row is longer than the register part, so its last packs
// are whole), the shared part masked past the row (StashedPacks).
template <class Op, int NT, int NS, bool SHIFT = false>
__device__ __forceinline__ void block_hybrid_kernel(const Params& p) {
  // Register packs a thread: 32 values of f32 and 16-bit rows, 16 doubles
  // of f64 (f32's registers); kernels.HybridRegValues on the host.
  constexpr int R = 32 / (Op::D::P < 4 ? 4 : Op::D::P);
  typedef StashedPacks<Op, R, NS, NT, SHIFT> Part;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  V16* const stash = static_cast<V16*>(dyn_smem());
  // The block max first (BlockRed's LOCAL off): a thread's max waits for
  // its shared-memory part anyway, and exps against each thread's own max
  // ran level here (4096x28672 f32 319.2 -> 320.1 µs, -ab-s56.txt §1).
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    if constexpr (SHIFT) {
      const int lo = pack_lo<typename Op::D>(op.src(0), row * cols);
      const i64 off = row * cols - lo, n = cols + lo;
      const Part part{op, stash, off, n, (int)threadIdx.x, row == rows - 1};
      cached_row_full<true, Op, R, BlockRed<NT / 32, false>, Part, true>(op, off, n, threadIdx.x, NT, part, lo);
    } else {
      const Part part{op, stash, row * cols, cols, (int)threadIdx.x};
      cached_row_full<false, Op, R, BlockRed<NT / 32, false>>(op, row * cols, cols, threadIdx.x, NT, part);
    }
  }
}

}  // namespace smx

namespace smx {

// block_hybrid's backward: a block per row holding y and dy, RB packs of
// each a thread in registers (kernels.HybridRegValues(bwd) values) and NS
// more of each in dynamic shared memory (slot (i*NS + k)*NT + t, copied by
// cp.async with the register loads), so each is read once and dx written
// once: rows whose y and dy fit an SM (f32 up to 40960 columns) but not
// block_reg's registers. Whole packs (vec) only: no "_shift" twins. As in
// the forward, a thread reads only the slots it copied.
//   block  (NT, 1, 1) exactly, NT = 1024
//   rows   RB*NT*P < cols <= (RB+NS)*NT*P, cols % P == 0 (NS = 0: cols
//          == RB*NT*P, the registers alone)
//   smem   dynamic 2*NS*NT*16 bytes
//   symbol block_hybrid_bwd_{f32,f16,bf16,f64}_t{NT}_s{NS}, NS = 0..6
template <class Op, int NT, int NS>
__device__ __forceinline__ void block_hybrid_bwd_kernel(const Params& p) {
  typedef typename Op::D D;
  typedef typename Op::M M;
  constexpr int P = D::P, RB = (sizeof(M) == 8 ? 8 : 16) / P;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis, npk = cols / P;
  V16* const stash = static_cast<V16*>(dyn_smem());
  const int t = threadIdx.x;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    const i64 off = row * cols;
    V16 raw[2][RB];
#pragma unroll
    for (int k = 0; k < RB; ++k)
#pragma unroll
      for (int i = 0; i < 2; ++i) raw[i][k] = ld16(op.src(i) + off + (i64)(k * NT + t) * P);
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      const i64 q = (i64)(RB + k) * NT + t;
      if (q < npk)
#pragma unroll
        for (int i = 0; i < 2; ++i) cp_async16(stash + (i * NS + k) * NT + t, op.src(i) + off + q * P);
    }
    cp_async_commit();
    M b[2][RB * P], ps[P];
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] = 0;
#pragma unroll
    for (int k = 0; k < RB; ++k) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        D::unpack(raw[i][k], &b[i][k * P]);
#pragma unroll
        for (int e = 0; e < P; ++e) b[i][k * P + e] = op.conv(i, b[i][k * P + e]);
      }
#pragma unroll
      for (int e = 0; e < P; ++e) ps[e] += op.term(b[0][k * P + e], b[1][k * P + e]);
    }
    cp_async_wait(0);
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      if ((i64)(RB + k) * NT + t < npk) {
        M v[2][P];
#pragma unroll
        for (int i = 0; i < 2; ++i) unpack_conv(op, i, stash[(i * NS + k) * NT + t], v[i]);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += op.term(v[0][e], v[1][e]);
      }
    }
    const typename Op::Fin f = op.finalize(block_reduce<Op, NT / 32>(pairwise_sum<P>(ps)));
#pragma unroll
    for (int k = 0; k < RB; ++k) {
      M o[P];
      op.out_vals(b, k * P, o, f);
      st_cs(op.dst() + off + (i64)(k * NT + t) * P, Op::Store::pack(o));
    }
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      const i64 q = (i64)(RB + k) * NT + t;
      if (q < npk) {
        M v[2][P], o[P];
#pragma unroll
        for (int i = 0; i < 2; ++i) unpack_conv(op, i, stash[(i * NS + k) * NT + t], v[i]);
        op.out_vals(v, 0, o, f);
        st_cs(op.dst() + off + q * P, Op::Store::pack(o));
      }
    }
  }
}

}  // namespace smx
