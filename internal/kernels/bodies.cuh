// bodies.cuh: row bodies used by more than one strategy (register-cached row,
// streaming two-pass row, shared-memory stash).
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- shared bodies

// v where 0 <= d < len, else fill: an element's mask in integer bit
// operations, with no predicate register (cached_row_full's SHIFT form
// says why).
__device__ __forceinline__ float keep_inside(float v, float fill, int d, int len) {
  const u32 out = (u32)((d | (len - 1 - d)) >> 31);  // all ones outside [0, len), 0 inside
  return __uint_as_float((__float_as_uint(v) & ~out) | (__float_as_uint(fill) & out));
}

// keep_inside for double math (F64), as a select.
__device__ __forceinline__ double keep_inside(double v, double fill, int d, int len) {
  return (unsigned)d < (unsigned)len ? v : fill;
}

// The pack of elements j..j+P-1 of q, element by element, each index
// clamped to last: no predicate, and no read past element last.
template <class D>
__device__ __forceinline__ V16 ld_clamped(const typename D::T* q, int j, int last) {
  V16 r;
  typename D::T* const e = reinterpret_cast<typename D::T*>(&r);
#pragma unroll
  for (int k = 0; k < D::P; ++k) e[k] = q[j + k < last ? j + k : last];
  return r;
}

// cached_row for a row of whole packs that fills every pack (vec, n ==
// NP*nt*P) or, with TAIL, every pack but the last (n > (NP-1)*nt*P): no
// bounds check but on the last pack with TAIL. With one check per pack,
// ptxas ran out of predicate registers (7) at NP = 8 and converted the first
// pack, waiting for its load, before issuing the others (SASS: later loads
// reusing the first one's registers); here every load is issued before any
// is used. cached_row takes the full case; TAIL has kernels of its own
// (block_reg "_tail"): compiled into every kernel, its path raised the
// registers of the full-row kernels (NVRTC 13: block_reg t512 p8 f32 64 ->
// 69, one resident block instead of two, 4096×16384 0.94 -> 0.79 of copy).
// `more` holds the rest of a row longer than the registers (block_hybrid).
// SHIFT (with TAIL): a ragged row shifted back lo < P elements to its pack
// boundary (off) whose last pack ends inside the tensor (a row follows it,
// or the span ends at the block's last pack), n its span: the first and
// last packs mask the elements outside [lo, n) in registers and store
// through st_pack_masked, so only those two packs compare elements
// (block_reg's "_shift" twins). END (with SHIFT): the tensor's last row,
// whose span's last pack may end past the tensor: the threads' last packs
// load element by element, indices clamped to the row's last element.
// Through the general body instead, whose per-pack branches issue one load
// after another, that one row ran ~3 µs after the rest (ncu, H100, 4096×1001
// f32 t32_p8_shift: elapsed 24.0k cycles against 14.3k SM-active ones,
// where the aligned 4096×1000 had 19.0k against 14.5k; -ab-s48.txt §1).
template <bool TAIL, class Op, int NP, class Red, class More = NoMoreValues, bool SHIFT = false, bool END = false>
__device__ __forceinline__ void cached_row_full(const Op& op, i64 off, i64 n, int t, int nt,
                                                const More& more = More(), int lo = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  static_assert(!SHIFT || TAIL, "a shifted row ends inside its last pack");
  static_assert(!END || SHIFT, "END is the last row of a shifted span");
  const bool last_in = !TAIL || (i64)((NP - 1) * nt + t) * P < n;
  // Pack k of thread t sits k*nt*P elements past the thread's first: one
  // base address and constant offsets (nt is a compile-time constant in
  // the forward kernels) keep the loads back to back. With an address
  // computed per pack, ptxas put block_hybrid's cp.async wait (more.max)
  // after 2 of the 8 register loads, so the other 6 went out only once the
  // shared-memory part had landed: two DRAM round trips a row (H200,
  // softmax bench, 4096×20480 f32 172.8 -> 169.5 µs, 4096×28672 240.2 ->
  // 236.4, 1024×65536 bf16 88.0 -> 85.2; block_reg within 1-2% either
  // way, as much as the untouched warp_row moved).
  const i64 first = off + (i64)t * P;
  // SHIFT: every thread loads its last pack, a thread without one
  // re-reading the span's last pack (no predicate), and the edge packs
  // mask in integer operations (keep_inside), as cached_row_masked does.
  // As compares, 2*P of them a thread beside last_in, ptxas ran short of
  // its 7 predicate registers and issued the last load only after the
  // other packs' maximum: a second DRAM round trip a row (SASS of f32
  // t32_p8 and t64_p8 under nvcc 11.8 and 13; H100 A/B, -ab-s48.txt §2:
  // skewed 16384×600 bf16 softmax_backward 31.3 -> 28.4 µs, 65536×1024
  // f16 155.0 -> 141.7, 1000×30000 f32 98.6 -> 94.4).
  V16 raw[Op::NIN][NP];
#pragma unroll
  for (int k = 0; k < NP; ++k)
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      if (SHIFT && k == NP - 1) {
        if constexpr (END) {
          raw[i][k] = ld_clamped<D>(op.src(i) + off, ((NP - 1) * nt + t) * P, (int)n - 1);
        } else {
          const int last = (int)((n - 1) / P), pk = (NP - 1) * nt + t < last ? (NP - 1) * nt + t : last;
          raw[i][k] = ld16(op.src(i) + off + (i64)pk * P);
        }
      } else if (k < NP - 1 || last_in) {
        raw[i][k] = ld16(op.src(i) + first + (i64)k * nt * P);
      }
  more.issue();
  typename Op::M b[Op::NIN][NP * P];
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      if (k < NP - 1 || last_in || SHIFT) {
        D::unpack(raw[i][k], &b[i][k * P]);
        const bool edge = SHIFT && (k == 0 || k == NP - 1);
        const int col = (k * nt + t) * P;
#pragma unroll
        for (int e = 0; e < P; ++e) {
          const typename Op::M v = op.conv(i, b[i][k * P + e]);
          b[i][k * P + e] = edge ? keep_inside(v, Op::fill(i), col + e - lo, (int)n - lo) : v;
        }
      } else {
#pragma unroll
        for (int e = 0; e < P; ++e) b[i][k * P + e] = Op::fill(i);
      }
    }
  const typename Op::Fin f = op.template reduce_cached<Red>(b, more);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    if (k < NP - 1 || last_in) {
      typename Op::M o[P];
      op.out_cached(b, k * P, o, f);
      if (SHIFT && (k == 0 || k == NP - 1))
        st_pack_masked<typename Op::Store>(op.dst() + off, (k * nt + t) * P, lo, (int)n, o);
      else
        st_cs(op.dst() + first + (i64)k * nt * P, Op::Store::pack(o));
    }
  }
  more.out(f);
}

// One row (or one sub-warp group's row) cached in registers: NP packs per
// thread, thread t of nt owns packs (k*nt + t), k < NP, so consecutive threads
// touch consecutive 16-byte packs. This is the body for any row length and
// alignment; cached_row sends rows that fill every pack to cached_row_full. One global read, one write. Covers rows of
// up to nt*NP*P elements. n == 0 means "no row" (the thread still takes part
// in the reduction, as Red requires).
//
// SHIFT (vec set): a ragged row shifted back lo < P elements to its pack
// boundary, so that every whole pack loads and stores 16 bytes at a time;
// its first lo elements belong to the row before and are read as Op::fill
// and not written (see cached_row).
template <class Op, int NP, class Red, bool SHIFT = false>
__device__ __forceinline__ void cached_row_general(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                                   int lo = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  typename Op::M b[Op::NIN][NP * P];
  // Rows of whole packs take 16-byte loads and stores only: without the
  // element-wise tail path, whose registers would otherwise be reserved
  // across all NP loads in flight. (vec alone does not imply whole packs:
  // a single row may end inside one.)
  const bool whole = !SHIFT && vec && n % P == 0;
  if (whole) {
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const i64 col = (i64)(k * nt + t) * P;
#pragma unroll
      for (int i = 0; i < Op::NIN; ++i) {
        if (col < n) {
          D::unpack(ld16(op.src(i) + off + col), &b[i][k * P]);
#pragma unroll
          for (int e = 0; e < P; ++e) b[i][k * P + e] = op.conv(i, b[i][k * P + e]);
        } else {
#pragma unroll
          for (int e = 0; e < P; ++e) b[i][k * P + e] = Op::fill(i);
        }
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < NP; ++k) load_vals(op, b, k * P, off, (i64)(k * nt + t) * P, n, vec);
    if (SHIFT && lo > 0 && t == 0)  // pack 0 of thread 0 holds the shifted-in elements
#pragma unroll
      for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (e < lo) b[i][e] = Op::fill(i);
  }
  const typename Op::Fin f = op.template reduce_cached<Red>(b);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const i64 col = (i64)(k * nt + t) * P;
    if (col < n) {
      typename Op::M o[P];
      op.out_cached(b, k * P, o, f);
      if (whole)
        st_cs(op.dst() + off + col, Op::Store::pack(o));
      else if (SHIFT)
        st_pack_from<typename Op::Store>(op.dst() + off, col, lo, n, vec, o);
      else
        st_pack<typename Op::Store, true>(op.dst() + off, col, n, false, o);
    }
  }
}

// The general body as a call, for kernels whose entry is on the critical
// path (block_reg's Outline has the measurements). Inlined, it sits between
// the entry and the first load as ~5 KB of code to jump over. The Op is
// copied: its fields become argument registers rather than a stack object
// whose address is passed.
template <class Op, int NP, class Red, bool SHIFT>
__device__ SMX_NOINLINE void cached_row_general_call(const Op op, i64 off, i64 n, int t, int nt, bool vec, int lo) {
  cached_row_general<Op, NP, Red, SHIFT>(op, off, n, t, nt, vec, lo);
}

// A ragged row (SHIFT) whose packs all lie inside the tensor: off is the
// pack boundary at or before the row, lo the elements before the row, n the
// row's length plus lo (a row of at least P-1 elements with a row after
// it, so the last pack read ends inside the tensor; warp_row's caller).
// Every pack loads 16 bytes at once, a pack past the row's last re-reads
// the last one (an address inside the row, so no predicate per pack), and
// elements outside [lo, n) become Op::fill in registers: all NP loads are
// issued before any is used, where the general body converts a partial pack
// element by element. Partial packs store element by element (st_pack_masked).
// Columns are 32-bit (a row the registers hold is far below 2^31) and the
// inside test is one unsigned compare, j - lo < n - lo: with 64-bit columns
// and two compares an element, the backward twins were bound by issue, not
// memory (ncu, H200, 65536×270 bf16 w32_p2_shift: SM 81% busy, DRAM 31%;
// -ab-s42.txt §6).
template <class Op, int NP, class Red>
__device__ __forceinline__ void cached_row_masked(const Op& op, i64 off, i64 n, int lo, int t, int nt) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  const int len = (int)n, last = len > 0 ? (len - 1) / P : 0;
  const unsigned inside = (unsigned)(len - lo);
  V16 raw[Op::NIN][NP];
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const int pk = k * nt + t < last ? k * nt + t : last;
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i) raw[i][k] = ld16(op.src(i) + off + pk * P);
  }
  typename Op::M b[Op::NIN][NP * P];
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i)
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      D::unpack(raw[i][k], &b[i][k * P]);
      const int col = (k * nt + t) * P;
#pragma unroll
      for (int e = 0; e < P; ++e)
        b[i][k * P + e] = (unsigned)(col + e - lo) < inside ? op.conv(i, b[i][k * P + e]) : Op::fill(i);
    }
  const typename Op::Fin f = op.template reduce_cached<Red>(b);
#pragma unroll
  for (int k = 0; k < NP; ++k) {
    const int col = (k * nt + t) * P;
    if (col < len) {
      typename Op::M o[P];
      op.out_cached(b, k * P, o, f);
      st_pack_masked<typename Op::Store>(op.dst() + off, col, lo, len, o);
    }
  }
}

// cached_row: rows of whole packs that fill every pack take cached_row_full,
// others the general body, inlined or (OUTLINE) called. With SHIFT (the
// "_shift" kernels, Params.vec == 2: aligned pointers and cols not a
// multiple of P, or pointers that all lie the same distance past a pack
// boundary) a ragged row is taken from the pack boundary at or before its
// start, lo = pack_lo elements early, so that its packs load and store 16
// bytes at a time instead of element by element; the planner sizes
// NP*nt*P for the span (plan's shiftedSpan), or for the row where the
// kernel holds the overhang (block_reg's OverhangPack).
template <class Op, int NP, class Red, bool OUTLINE = false, bool SHIFT = false>
__device__ __forceinline__ void cached_row(const Op& op, i64 off, i64 n, int t, int nt, bool vec) {
  const int lo = SHIFT ? pack_lo<typename Op::D>(op.src(0), off) : 0;
  if (!SHIFT && vec && n == (i64)NP * nt * Op::D::P)
    cached_row_full<false, Op, NP, Red>(op, off, n, t, nt);
  else if (OUTLINE)
    cached_row_general_call<Op, NP, Red, SHIFT>(op, off - lo, n + lo, t, nt, vec, lo);
  else
    cached_row_general<Op, NP, Red, SHIFT>(op, off - lo, n + lo, t, nt, vec, lo);
}

// 16-byte loads in flight per thread in the streaming bodies: 4 (4 packs of
// x forward, 2 packs each of y and dy backward). They are held raw (4
// registers each) and converted one pack at a time, so the float expansion
// of f16/bf16 does not multiply register pressure.
template <class Op>
struct Unroll {
  static constexpr int U = 4 / Op::NIN;
};

// Element i of input k in math type (scaled for Fwd): the element-wise loads
// of the two-read bodies below.
template <class Op>
__device__ __forceinline__ typename Op::M ld_elem(const Op& op, int k, i64 i) {
  return op.conv(k, Op::D::to_f(op.src(k)[i]));
}

// Ragged rows (Params.vec == 2: 16-byte aligned pointers and cols not a
// multiple of P, or pointers that all lie the same distance past a pack
// boundary) start inside a pack. The streaming bodies take such a row as
// its head, the elements before its first 16-byte boundary (fewer than
// P), then the vector path from that boundary on; row_head is the head's
// length for the row at element offset off of q, length n.
template <class D>
__device__ __forceinline__ i64 row_head(const typename D::T* q, i64 off, i64 n) {
  const i64 h = smem_head<D>(q, off);
  return h < n ? h : n;
}

// Folds the head elements [off - head, off) into a thread's accumulator;
// thread t of nt takes elements t, t+nt, ... (head < P, so at most one).
template <class Op>
__device__ __forceinline__ void push_head(const Op& op, typename Op::Acc& a, typename Op::M& comp, i64 off, i64 head,
                                          int t, int nt) {
  if (head <= 0) return;
  for (i64 e = t; e < head; e += nt)
    op.push1(a, comp, ld_elem(op, 0, off - head + e), Op::NIN > 1 ? ld_elem(op, Op::NIN - 1, off - head + e) : 0.f);
}

// Writes the output of the head elements [off - head, off) from global
// memory.
template <class Op>
__device__ __forceinline__ void out_head(const Op& op, i64 off, i64 head, int t, int nt, const typename Op::Fin& f) {
  constexpr int NIN = Op::NIN;
  if (head <= 0) return;
  for (i64 e = t; e < head; e += nt) {
    const i64 i = off - head + e;
    op.dst()[i] = Op::Store::from_f(op.out1(ld_elem(op, 0, i), NIN > 1 ? ld_elem(op, NIN - 1, i) : 0.f, f));
  }
}

// Streams packs [c0 + u*step], u < UNROLL, of the row at `off` (length n) of
// every input: issues the loads (stashing into stash + i*sstride when STASH),
// then calls fn(u, b) with each pack converted to floats b[NIN][P].
template <class Op, bool STASH, class Fn>
__device__ __forceinline__ void stream_step(const Op& op, i64 off, i64 c0, i64 step, i64 n, bool vec,
                                            typename Op::T* stash, i64 sstride, Fn&& fn) {
  constexpr int P = Op::D::P;
  constexpr int UNROLL = Unroll<Op>::U;
  V16 r[Op::NIN][UNROLL] = {};
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      ld_raw<Op, STASH>(op.src(i) + off, stash + i * sstride, c0 + u * step, n, vec, r[i][u]);
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    typename Op::M b[Op::NIN][P];
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      ld_cvt<Op, STASH>(op, i, r[i][u], op.src(i) + off, stash + i * sstride, c0 + u * step, n, vec, b[i]);
    fn(u, b);
  }
}

// Streaming accumulation over elements [0, n) of the row at offset off:
// thread t of nt reads packs t, t+nt, ..., UNROLL in flight, online merge per
// pack. Returns the thread's partial accumulator. With STASH the row is also
// copied to shared memory (input i at stash + i*sstride).
template <class Op, bool STASH>
__device__ __forceinline__ typename Op::Acc stream_acc(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                                       typename Op::T* stash = nullptr, i64 sstride = 0,
                                                       i64 head = 0) {
  constexpr int P = Op::D::P;
  constexpr int UNROLL = Unroll<Op>::U;
  typename Op::Acc a = Op::identity();
  typename Op::M comp = 0.f;
  const i64 step = (i64)nt * P;
  for (i64 c0 = (i64)t * P; c0 < n; c0 += step * UNROLL)
    stream_step<Op, STASH>(op, off, c0, step, n, vec, stash, sstride,
                           [&](int, const typename Op::M(&b)[Op::NIN][P]) { op.push(a, comp, b); });
  push_head(op, a, comp, off, head, t, nt);
  return Op::fold(a, comp);
}

// One pack of pack_acc's step: input k's pack is r[k][u], pack j of the
// slice; stashed raw (with STASH), then folded into (a, comp).
template <bool STASH, class Op, int U>
__device__ __forceinline__ void fold_pack(const Op& op, typename Op::Acc& a, typename Op::M& comp,
                                          const V16 (&r)[Op::NIN][U], int u, V16* stash, i64 sstride, i64 j) {
  typename Op::M b[Op::NIN][Op::D::P];
#pragma unroll
  for (int k = 0; k < Op::NIN; ++k) {
    if (STASH) stash[k * sstride + j] = r[k][u];
    unpack_conv(op, k, r[k][u], b[k]);
  }
  op.push(a, comp, b);
}

// Two-read bodies (split_row, row_2pass): pack_acc streams the first read,
// pack_out_rev the second, for the vector path (every input's pack
// [col, col+P) 16-byte aligned at off + col); elem_acc / elem_out_rev serve
// the rest. Kept apart from stream_acc, whose per-element fallback inside the
// pack loop had cost split_row 52-62 registers a thread and half its
// occupancy (H200, 1x2^24 f32: phase 1 29-35 us vs 25 for a plain kernel).
// The U packs of a full step load unguarded; the last partial step loads
// pack by pack (or, with BATCH_TAIL, all its packs before using any); the
// n % P elements past the last pack go element by element.
// With STASH every pack read is also kept raw in shared memory: input k's
// pack i at stash[k*sstride + i] (split_grid caches its chunk there).
template <class Op, bool STASH = false, bool BATCH_TAIL = false>
__device__ __forceinline__ typename Op::Acc pack_acc(const Op& op, i64 off, i64 n, int t, int nt,
                                                     V16* stash = nullptr, i64 sstride = 0, i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P, U = Unroll<Op>::U, NIN = Op::NIN;
  const i64 np = n / P;
  typename Op::Acc a = Op::identity();
  typename Op::M comp = 0.f;
  i64 i = t;
  for (; i + (i64)(U - 1) * nt < np; i += (i64)U * nt) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k)
        r[k][u] = STASH || op.stat_reads(k) ? ld16(op.src(k) + off + (i + (i64)u * nt) * P) : V16{};
#pragma unroll
    for (int u = 0; u < U; ++u) fold_pack<STASH>(op, a, comp, r, u, stash, sstride, i + (i64)u * nt);
  }
  for (; i < np && !BATCH_TAIL; i += nt) {
    typename Op::M b[NIN][P];
#pragma unroll
    for (int k = 0; k < NIN; ++k) {
      const V16 r = STASH || op.stat_reads(k) ? ld16(op.src(k) + off + i * P) : V16{};
      if (STASH) stash[k * sstride + i] = r;
      unpack_conv(op, k, r, b[k]);
    }
    op.push(a, comp, b);
  }
  // BATCH_TAIL: the last partial step (fewer than U packs left for this
  // thread) issues all of its loads before using any, like a full step.
  // Loaded and used one at a time, each pack costs a memory round trip of
  // its own, and split_grid's chunks are only a few steps a thread (H200,
  // softmax bench, three alternated rounds: 4x1048576 f16 16.1 -> 15.7 us,
  // 2x4194304 f32 29.8 -> 29.1, 4x16777216 f16 100.1 -> 98.9). The
  // streaming bodies keep the pack-by-pack tail: their rows are thousands of
  // steps a thread, and the batched one took split_row's phase 1 from 32 to
  // 50-52 registers (nvcc 11.8).
  if (BATCH_TAIL && i < np) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (i + (i64)u * nt < np)
#pragma unroll
        for (int k = 0; k < NIN; ++k) r[k][u] = ld16(op.src(k) + off + (i + (i64)u * nt) * P);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (i + (i64)u * nt >= np) break;
      fold_pack<STASH>(op, a, comp, r, u, stash, sstride, i + (i64)u * nt);
    }
  }
  for (i64 e = np * P + t; e < n; e += nt)
    op.push1(a, comp, ld_elem(op, 0, off + e), NIN > 1 ? ld_elem(op, NIN - 1, off + e) : 0.f);
  push_head(op, a, comp, off, head, t, nt);
  return Op::fold(a, comp);
}

// pack_acc's output twin, evict-first 16-byte stores, the steps of U*nt
// packs last first: the first read leaves the slice's end in L2 (least
// recently used goes first), so starting the second read there turns most of
// its misses into hits whenever the slices in flight nearly fit the L2,
// instead of evicting the end while re-fetching the start.
template <class Op>
__device__ __forceinline__ void pack_out_rev(const Op& op, i64 off, i64 n, int t, int nt, const typename Op::Fin& f,
                                             i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P, U = Unroll<Op>::U, NIN = Op::NIN;
  const i64 np = n / P, step = (i64)U * nt;
  out_head(op, off, head, t, nt, f);
  for (i64 e = np * P + t; e < n; e += nt)
    op.dst()[off + e] = Op::Store::from_f(op.out1(ld_elem(op, 0, off + e), NIN > 1 ? ld_elem(op, NIN - 1, off + e) : 0.f, f));
  for (i64 s = np > 0 ? (np - 1) / step * step : 0; s >= 0; s -= step) {
    V16 r[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 pk = s + t + (i64)u * nt;
        if (pk < np) r[k][u] = ld16(op.src(k) + off + pk * P);
      }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 pk = s + t + (i64)u * nt;
      if (pk < np) {
        typename Op::M b[NIN][P], o[P];
#pragma unroll
        for (int k = 0; k < NIN; ++k) unpack_conv(op, k, r[k][u], b[k]);
        op.out_vals(b, 0, o, f);
        st_cs(op.dst() + off + pk * P, Op::Store::pack(o));
      }
    }
  }
}

// Element-by-element twins of pack_acc / pack_out_rev for slices off the
// vector path (misaligned pointers, or rows that do not start on a pack):
// 4 loads of each input in flight per thread, few registers, so that the
// kernel that also holds the pack path keeps that path's occupancy.
template <class Op>
__device__ __forceinline__ typename Op::Acc elem_acc(const Op& op, i64 off, i64 n, int t, int nt) {
  constexpr int U = 4, NIN = Op::NIN;
  typename Op::Acc a = Op::identity();
  typename Op::M comp = 0.f;
  for (i64 e0 = t; e0 < n; e0 += (i64)U * nt) {
    typename Op::M b[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 e = e0 + (i64)u * nt;
        b[k][u] = e < n ? ld_elem(op, k, off + e) : Op::fill(k);
      }
    op.push(a, comp, b);
  }
  return Op::fold(a, comp);
}

template <class Op>
__device__ __forceinline__ void elem_out_rev(const Op& op, i64 off, i64 n, int t, int nt, const typename Op::Fin& f) {
  typedef typename Op::D D;
  constexpr int U = 4, NIN = Op::NIN;
  const i64 step = (i64)U * nt;
  for (i64 s = n > 0 ? (n - 1) / step * step : 0; s >= 0; s -= step) {
    typename Op::M b[NIN][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int k = 0; k < NIN; ++k) {
        const i64 e = s + t + (i64)u * nt;
        b[k][u] = e < n ? ld_elem(op, k, off + e) : 0.f;
      }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const i64 e = s + t + (i64)u * nt;
      if (e < n) op.dst()[off + e] = Op::Store::from_f(op.out1(b[0][u], NIN > 1 ? b[NIN - 1][u] : 0.f, f));
    }
  }
}

// Thread t of nt's first read of [0, n) at off (its partial) and its
// second read that writes the output, by the pack or the element bodies.
// With head > 0 (vec only) the slice starts head elements before off, the
// first 16-byte boundary (see row_head).
template <class Op>
__device__ __forceinline__ typename Op::Acc read1_acc(const Op& op, i64 off, i64 n, bool vec, int t, int nt,
                                                      i64 head = 0) {
  return vec ? pack_acc(op, off, n, t, nt, nullptr, 0, head) : elem_acc(op, off, n, t, nt);
}

template <class Op>
__device__ __forceinline__ void read2_out(const Op& op, i64 off, i64 n, bool vec, int t, int nt,
                                          const typename Op::Fin& f, i64 head = 0) {
  if (vec)
    pack_out_rev(op, off, n, t, nt, f, head);
  else
    elem_out_rev(op, off, n, t, nt, f);
}

// Writes the output of [0, n) from the shared-memory copy (input i at
// sm + i*stride), packs t, t+nt, ... of the row at global offset off.
// head > 0: the head elements before off are written from global memory
// (stream_acc read them there; see row_head).
template <class Op>
__device__ __forceinline__ void smem_out(const Op& op, i64 off, i64 n, int t, int nt, bool vec,
                                         const typename Op::T* sm, i64 stride, const typename Op::Fin& f,
                                         i64 head = 0) {
  typedef typename Op::D D;
  constexpr int P = D::P;
  out_head(op, off, head, t, nt, f);
  for (i64 col = (i64)t * P; col < n; col += (i64)nt * P) {
    typename Op::M b[Op::NIN][P];
    load_vals_smem(op, b, 0, col, n, vec, sm, stride);
    typename Op::M o[P];
    op.out_vals(b, 0, o, f);
    st_pack<typename Op::Store, false>(op.dst() + off, col, n, vec, o);
  }
}

// A whole row by one block in two reads: online (m,d) (or the gradient sum)
// over 16-byte packs, block merge, then a second read (mostly from L2) that
// writes the output. Any row length.
// SHIFT: a ragged row (Params.vec == 2) takes the vector path from its first
// 16-byte boundary, its head element by element (row_head).
template <class Op, bool SHIFT = false>
__device__ __forceinline__ void row_2pass(const Op& op, i64 off, i64 n, bool vec) {
  const i64 head = SHIFT ? row_head<typename Op::D>(op.src(0), off, n) : 0;
  typename Op::Acc a = block_reduce<Op>(read1_acc(op, off + head, n - head, vec, threadIdx.x, blockDim.x, head));
  read2_out(op, off + head, n - head, vec, threadIdx.x, blockDim.x, op.finalize(a), head);
}

// Rounds n elements of type T up to a whole number of 16-byte packs.
template <class D>
__device__ __forceinline__ i64 pack_round(i64 n) {
  return (n + D::P - 1) / D::P * D::P;
}

}  // namespace smx
