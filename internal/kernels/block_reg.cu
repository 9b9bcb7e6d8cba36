// block_reg: one block per row, the row cached in registers (NP 16-byte packs
// per thread), one global read and one write: the Triton tutorial's kernel.
// Thread t owns packs k*nt + t, so every load instruction of a warp covers
// 512 contiguous bytes. Forward turns the cached values into exps in place
// and sums them (Fwd::reduce_cached: against each thread's own max in the
// f32 and f64 kernels and those of 512 threads or more, RowRed; against the block
// max in the others), so each element costs one exp. The host launches one block per row: a finished block's SM
// slot is refilled by a fresh row at once, which on H200 ran 5-10% ahead of
// a grid-striding grid of resident blocks.
//
// Forward kernels are compiled for one block size NT: the pack stride NT*16
// bytes is then an immediate offset of every load and store, one address
// register serves all NP packs and the bounds checks fold. With the block
// size a run-time value, ptxas kept a 64-bit address per pack and ran the
// same body 12-18% slower (H200 harness, 4096 rows: 8192 f32 86 vs 75 us,
// 12288 135 vs 117, 16384 169 vs 142, 32768 367 vs 310). Blocks are as
// small as the row allows at up to 32 values a thread (8 f32 packs, 4
// f16/bf16 packs): more rows in flight per SM, and shorter reductions (same
// harness: 1024 f32 64 x 4 12.1 us vs 256 x 1 16.2; 2048 f32 64 x 8 21.0 vs
// 256 x 2 24.0; 1024 f16 on 262144 rows 64 x 2 275 vs 128 x 1 346).
//
// A block of one warp (NT 32) reduces with shuffles alone, and its launch
// bound of 32 blocks per SM (64 registers a thread) keeps a full SM's worth
// of rows in flight. Against the 64-thread blocks (H200, softmax bench, L2
// flushed, three alternated rounds, µs; bench/results/nvidia-h200-2026-11-
// 22-ab-s15.txt): 4096×384 f32 8.37 vs 9.54, 4096×896 f32 12.18 vs 13.01,
// 4096×1024 f32 13.23 vs 13.94, 65536×1024 f16 69.6 vs 71.9, 524288×1024 f16
// 509.5 vs 530.9; ties on 65536×512 and 131072×1024 f32. In the harness of
// the same file, the warp with the block reduction (shared memory and two
// barriers) ran up to 7% behind (4096×1000 f16 9.8 vs 9.2 µs), and bounds
// of 16 or 24 blocks per SM (more registers, fewer warps) up to 8% behind
// (4096×896 f32 12.1 / 12.0 vs 11.2).
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   forward  block (NT, 1, 1) exactly, cols <= NT*NP*P (P = 4 f32, 8 f16/bf16;
//            "_shift" twins: the span, cols plus up to P-1, <= NT*NP*P, or
//            NT*NP*P + P-1 for the 16-bit ones of NP 2..5 but t1024_p5,
//            whose thread 0 holds the overhang)
//            symbol block_reg_fwd_{f32,f16,bf16}_t{NT}_p{NP}: NT 32 with NP
//            1..8 (f32) or 1..4 (f16/bf16: at most 32 values a thread), NT 64
//            with NP 1..8, NT 128/256/512/1024 with NP 3..8;
//            ..._t1024_p{5..8}_tail (any row; fastest for whole packs with
//            only the last one partial);
//            block_reg_fwd_{f16,bf16}_t{64_p2,64_p4,128_p4,128_p8}_exact:
//            cols == NT*NP*8 exactly, 16-byte aligned rows (Params.vec),
//            any other launch traps
//   backward block (nt, 1, 1), nt a multiple of 32, cols <= nt*NP*P,
//            nt <= 1024 for p1/p2, <= 512 for p4 (<= 384 for the f32 p4
//            "_shift" twin)
//            symbol block_reg_bwd_{f32,f16,bf16}_p{1,2,4}
//   grid     (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem     none dynamic (static for the block reductions); workspace none
// Longest rows: 1024*8*P forward (32768 f32, 65536 f16/bf16), 1024*2*P
// backward. NT 1024 bounds a thread to 64 registers: f32 holds its 32
// values without spilling; f16/bf16 t1024 with NP >= 6 spill (~75 B at p6,
// ~320 B at p7, ~580 B at p8, nvcc 11.8) and serve rows
// nothing else in registers can hold.
#include "common.cuh"

namespace smx {

// The row reduction of a block of NT threads with NP packs a thread:
// shuffles alone for one warp. The few-row kernels (NP <= 2) reduce their
// warp partials over NT / 32 lanes: they run one short row a block in a
// single wave, the reduction on the critical path (ncu, H200, caches
// flushed: 132x4096 f32 t512 p2 4.17 -> 4.05 us, 128x2048 f32 t512 p1 3.46
// -> 3.42). The others keep the 32-lane form: with it narrowed, ptxas
// reallocated their registers (f16 t64 p4 72 -> 104, t256 p6 74 -> 168) and
// 2048x2048 f16 went from 7.39 to 8.34 us (session 18, -ab-s18.txt).
// Block reductions take the exps against each thread's own max (BlockRed's
// LOCAL) for f32 (P 4) and blocks of 512 threads or more: 16-bit rows in
// smaller blocks lost 4-6% with it (-ab-s56.txt §1).
template <int NT, int NP, int P>
struct RowRed {
  typedef BlockRed<(NT > 32 && NP <= 2) ? NT / 32 : 32, P <= 4 || NT >= 512> type;
};
template <int NP, int P>
struct RowRed<32, NP, P> {
  typedef GroupRed<32> type;
};

// Which kernels call cached_row's general body instead of inlining it: the
// one-pack kernels of 128 threads or more. They run few short rows in one
// wave, where the kernel's entry is on the critical path; out of line, the
// full-row path starts with the loads (H200, softmax bench, alternated
// rounds: 128x1024 f16 t128_p1 5.21 -> 4.88 us against a 4.78 us copy;
// -ab-s27.txt). Made out of line in every kernel, the call moved ptxas's registers
// by up to +14 per thread (bf16 t512_p3 44 -> 58) and lost up to 2.3%
// (4096x896 f32; -ab-s26.txt section 4).
template <int NT, int NP>
struct Outline {
  static constexpr bool value = NT >= 128 && NP == 1;
};

// The last pack of a shifted row's span when the span passes its block's
// NP*nt packs (at most P-1 elements: the planner sizes the forward twins by
// the row, not the span, so a skewed row of 8192 f16 columns takes the
// block of an aligned one): thread 0 holds it beside its
// registers, as block_hybrid's threads hold their shared-memory packs
// (cached_row_full's `more`). With a row after it the pack loads whole; the
// last row's loads element by element, since its pack would end past the
// tensor. count is 0 in the other threads and in rows within the block.
template <class Op>
struct OverhangPack {
  typedef typename Op::D D;
  typedef typename Op::T T;
  static constexpr int P = D::P;
  const Op& op;
  i64 at;  // the pack's first element
  int count;
  bool whole;
  // Only the raw pack lives across the reduction (four registers); each
  // step converts it again.
  mutable V16 raw;

  __device__ __forceinline__ void issue() const {
    if (count <= 0) return;
    if (whole) {
      raw = ld16(op.src(0) + at);
    } else {
      T* const r = reinterpret_cast<T*>(&raw);
#pragma unroll
      for (int e = 0; e < P; ++e)
        if (e < count) r[e] = op.src(0)[at + e];
    }
  }

  // Input 0's values, Op::fill past the row.
  __device__ __forceinline__ void vals(float (&v)[1][P]) const {
    unpack_conv(op, 0, raw, v[0]);
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (e >= count) v[0][e] = Op::fill(0);
  }

  __device__ __forceinline__ float max(float m) const {
    if (count <= 0) return m;
    float v[1][P];
    vals(v);
#pragma unroll
    for (int e = 0; e < P; ++e) m = fmax2(m, v[0][e]);
    return m;
  }

  __device__ __forceinline__ void sum(float s, float (&ps)[P]) const {
    if (count <= 0) return;
    float v[1][P];
    vals(v);
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] += Op::ex(v[0][e] - s);
  }

  __device__ __forceinline__ void out(const typename Op::Fin& f) const {
    if (count <= 0) return;
    float v[1][P], o[P];
    vals(v);
    op.out_vals(v, 0, o, f);
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (e < count) op.dst()[at + e] = Op::Store::from_f(o[e]);
  }
};

// One body for every kernel: NT > 0 is the compile-time block size of the
// forward kernels (see the top), NT = 0 the run-time one of the backward
// kernels; TAIL kernels send rows of whole packs that fill every pack but
// the last to cached_row_full, other rows to the general body.
// SHIFT: the "_shift" twins for ragged rows: rows whose span reaches the
// threads' last packs through cached_row_full's masked form (whole-pack
// loads, the elements outside the row masked in the first and last packs;
// on the tensor's last row, whose last pack may end past the tensor, the
// threads' last packs element by element, END; where the span fills the
// block, the overhang twins load the pack past it element by element;
// spans one pack a thread shorter through the masked body of NP-1 packs,
// SHORT_SPAN), shorter spans through cached_row's general body. With the
// general body alone (partial packs element by element) skewed 4096×4096
// f32 ran at 0.69 of copy against 0.92 (H200, softmax bench --offset 1, -ab-s46.txt
// §1: 52.7 -> 39.7 µs; 2048×8192 f32 58.6 -> 44.5, 4096×32000 f32 411.1
// -> 315.8, aligned ragged 4096×4001 f32 61.1 -> 41.1, 65536×1024 f16
// 102.6 -> 87.2; backward 2048×8191 bf16 91.1 -> 47.9).
template <class Op, int NP, int NT = 0, bool TAIL = false, bool SHIFT = false>
__device__ __forceinline__ void block_reg_kernel(const Params& p) {
  typedef typename RowRed<NT, NP, Op::D::P>::type Red;
  constexpr int P = Op::D::P;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int nt = NT > 0 ? NT : blockDim.x;
  const bool vec = p.vec != 0;
  const bool tail = TAIL && vec && cols % P == 0 && cols > (i64)(NP - 1) * nt * P && cols < (i64)NP * nt * P;
  // The 16-bit t1024 twins of five packs or more keep the general body for
  // every row: at 64 registers the masked one spilled more (nvcc 11.8, f16
  // p5 0 -> 60 bytes, p8 352 -> 560).
  constexpr bool MASKED = SHIFT && !(NT == 1024 && P == 8 && NP >= 5);
  // The 16-bit forward masked twins of 2..5 packs a thread hold a span's
  // overhang past the block (OverhangPack; plan's blockRegOverhang). Held
  // in the others, its pack spilled under their bounds (nvcc 11.8: f32
  // t256_p8 24/44 bytes, f16 t256_p8 32/56, t64_p1 24/28); they are sized
  // by the span, as the backward ones are.
  constexpr bool OVERHANG = MASKED && !Op::BACKWARD && P == 8 && NP >= 2 && NP <= 5;
  // The last row through cached_row_full's END form, not the general body
  // (H100 A/B, -ab-s48.txt §2: aligned 4096×1001 f32 19.2 -> 15.8 µs, skewed
  // 64×8192 f32 9.0 -> 7.8), but in the 1024-thread twins and the 16-bit
  // backward ones, where it measured slower (skewed 1000×30000 f32 94.4 ->
  // 99.8, 65536×1024 f16 softmax_backward 141.7 -> 149.6).
  constexpr bool END_ROW = MASKED && NT != 1024 && !(Op::BACKWARD && P == 8);
  // Spans one pack a thread short of the block's: a row whose length is
  // within P-1 of (NP-1)*nt*P has spans on either side of it as its shift
  // varies, and the shorter ones took the general body. With the NP-1
  // masked body (H100, softmax bench, two alternated rounds, -ab-s49.txt
  // §1b): aligned 4096×16383 f32 t1024_p5_shift 218.6 -> 195.0 µs,
  // 2048×8191 t512_p5 58.2 -> 52.4, 4096×12287 154.9 -> 143.7, 4096×4095
  // t256_p5 53.1 -> 51.9. Only in the forward twins of 128 threads or more
  // sized by the span: the 16-bit overhang twins, sized by the row, never
  // see such a span, and in the one-warp and backward twins the second
  // body cost up to 14% on rows that never take it (§1a: 4096×1001 f32
  // t32_p8 15.8 -> 18.3, 4096×2047 f32 softmax_backward 40.1 -> 42.0).
  constexpr bool SHORT_SPAN = MASKED && !OVERHANG && !Op::BACKWARD && NT >= 128 && NP >= 2;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    if (tail) {
      cached_row_full<true, Op, NP, Red>(op, row * cols, cols, threadIdx.x, nt);
      continue;
    }
    const int lo = SHIFT ? pack_lo<typename Op::D>(op.src(0), row * cols) : 0;
    const i64 off = row * cols - lo, n = cols + lo, cap = (i64)NP * nt * P;
    if (END_ROW && vec && n > (i64)(NP - 1) * nt * P && row + 1 == rows && n < cap) {
      // The last row, whose span's last pack may end past the tensor.
      cached_row_full<true, Op, NP, Red, NoMoreValues, true, true>(op, off, n, threadIdx.x, nt, NoMoreValues(), lo);
    } else if (MASKED && vec && n > (i64)(NP - 1) * nt * P && (row + 1 < rows || n >= cap)) {
      // The span (lo elements before the row, up to P-1) reaches the
      // threads' last packs and ends in the tensor (a row follows it, or
      // the span fills the block, its overhang read element by element):
      // every pack loads 16 bytes and only the first and last mask
      // elements.
      if constexpr (OVERHANG) {
        const OverhangPack<Op> over{op, off + cap, threadIdx.x == 0 && n > cap ? (int)(n - cap) : 0, row + 1 < rows};
        cached_row_full<true, Op, NP, Red, OverhangPack<Op>, true>(op, off, n < cap ? n : cap, threadIdx.x, nt, over,
                                                                     lo);
      } else {
        cached_row_full<true, Op, NP, Red, NoMoreValues, true>(op, off, n, threadIdx.x, nt, NoMoreValues(), lo);
      }
    } else if (SHORT_SPAN && vec && n > (i64)(NP - 2) * nt * P && row + 1 < rows) {
      // A span one pack a thread short of the block's: the masked body of
      // NP-1 packs.
      cached_row_full<true, Op, (NP > 1 ? NP - 1 : 1), Red, NoMoreValues, true>(op, off, n, threadIdx.x, nt,
                                                                              NoMoreValues(), lo);
    } else {
      cached_row<Op, NP, Red, Outline<NT, NP>::value, SHIFT>(op, row * cols, cols, threadIdx.x, nt, vec);
    }
  }
}

// The "_exact" kernels: 16-bit forward rows of exactly NT*NP*8 elements
// (Params.axis) from 16-byte aligned rows (Params.vec), the other rows being
// a host bug. No other body shares the kernel, and each thread keeps its
// packs raw (Fwd::reduce_raw: NP*4 registers of 16-bit values, each exp
// taken twice), so that ptxas fits the launch bound's resident blocks
// without spilling (NVRTC 13: t64_p2 32 registers, t64_p4 and t128_p4 40,
// t128_p8 48, against 56-64 for the twins' whole-row kernels). A harness of
// minimal kernels (H200, 2048×8192 f16, events, L2 flushed) put the float
// cache at 4-5 blocks an SM at 21.3 µs and the raw one at 8-10 at 20.3-20.6,
// the copy at 20.8; the planner's rule is plan.blockRegExact.
template <class Op, int NP, int NT>
__device__ __forceinline__ void block_reg_exact_kernel(const Params& p) {
  typedef typename RowRed<NT, NP, Op::D::P>::type Red;
  constexpr int P = Op::D::P;
  constexpr i64 cols = (i64)NT * NP * P;
  static_assert(P == 8, "16-bit rows");
  const Op op(p);
  if (p.axis != cols || p.vec == 0) __trap();
  for (i64 row = blockIdx.x; row < p.outer; row += gridDim.x) {
    const i64 first = row * cols + (i64)threadIdx.x * P;
    V16 raw[NP];
#pragma unroll
    for (int k = 0; k < NP; ++k) raw[k] = ld16(op.src(0) + first + (i64)k * NT * P);
    float s;
    const typename Op::Fin f = op.template reduce_raw<Red>(raw, s);
    op.out_raw(raw, s, f, [&](int k, const float (&o)[P]) {
      st_cs(op.dst() + first + (i64)k * NT * P, Op::Store::pack(o));
    });
  }
}

}  // namespace smx
