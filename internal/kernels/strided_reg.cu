// strided_reg: softmax along a non-last axis with the slices cached in
// registers, so global memory is read once and written once (strided reads
// every element twice, and on large tensors its second read misses the L2).
//
// A tile is C = G*P consecutive inner indices of one outer index (P = 16-byte
// pack: 4 f32, 8 f16/bf16) over the whole axis. Block `rank` of a cluster of
// K blocks caches axis rows [rank*R, rank*R + R) of the tile (R =
// Params.chunk): thread t is column group x = t % G and row ty = t / G of TY
// = nt/G, and holds NP packs, rows ty, ty + TY, ... Each warp load covers
// 32/G rows of G*16 contiguous bytes: 128 B at G = 8 (on H200 a copy with
// this access pattern ran at 0.9 of cudaMemcpy from 256 B runs, 0.8 at 128
// B).
//
// Forward: the lanes of a warp that own a column agree on their max m_w
// (shuffles), keep exp(v - m_w) (log_softmax: v - m_w) in place of v and
// sum it (shuffles); the warps' (m, d) pairs are merged over the warps
// (shared memory, a warp per column) and over the cluster (each block
// pushes its merged pairs into every block's slots: ClusterPush), and the
// output is one multiply (one add) per element. The push replaced a pull
// between two cluster barriers (H200, -ab-s28.txt, softmax bench: 4096x65536
// f32 axis 0 774.9 -> 672.6 us, 4096x4096 f32 axis 0 57.9 -> 51.0,
// 64x1024x512 f16 axis 1 60.3 -> 55.5, the last with no cluster: the
// padded warp partials alone). Per
// element that is one exp, against two exps and a Kahan sum in strided: the
// first version (online update, a second exp for the output, and a
// grid-stride loop whose state made ptxas spill the cached values) ran at
// 0.40-0.46 of copy speed on H200 where this one reaches 0.64-0.80 with one
// block per tile and 0.48-0.56 with clusters (whose blocks wait for each
// other at two barriers, with no other phase to overlap on their SMs).
// The kernel is bound by instructions as much as by memory (ncu, H200,
// 4096x65536 axis 0: 60% of issue slots used at 40% of DRAM peak): with a
// (m_t, d_t) pair per thread merged pairwise over lanes, warps and cluster
// (two exps a merge), the merges were a third of the instructions; a warp
// max per column and group_reduce's max-then-sum cut them (H200, same run,
// µs: 4096x65536 f32 954 -> 863, 4096x4096 f32 78.1 -> 71.7, 64x1024x512
// f16 axis 1 85.0 -> 75.3, 32x512x8192 f32 axis 1 398 -> 360). Three more
// instructions per element use went next: the scale multiply (a body of its
// own for scale 1, picked by the grid-wide Params.scale), the -inf select
// of threads whose packs are all in range (their own load loop; 16-bit
// max and sum loops kept the select: split in two they spilled 96-128 B),
// and fexp's upper clamp (fexp_nonpos: exponents v - m are never +inf).
// H200, L2 flushed before each rep, median µs: 4096x65536 f32 axis 0 865.6
// -> 775.6, 4096x4096 f32 axis 0 67.9 -> 61.9, 64x1024x512 f16 axis 1 73.1
// -> 66.3, 32x512x8192 f32 axis 1 313.2 -> 279.2, 4096x4096 bf16 axis 0
// 58.5 -> 54.7.
//
// f16/bf16 (RAW) keep their 64 values packed (8 packs, 32 registers) and
// convert them again for the output, one exp more per element: held as
// floats, half as many fit, so a block held 512 rows of a 64-column tile and
// axes of 1024 needed clusters (H200, 64x1024x512 f16 axis 1: 125.5 -> 88.1
// us; 64x512x4096 f16 371.8 -> 293.2; 4096x4096 bf16 axis 0 83.0 -> 71.9).
// Their output is exp(v - c), c = M + log D held per column, when |c| <=
// 1024; otherwise (huge inputs: M + log D would lose log D) exp((v - M) -
// log D) with the pair re-read from shared memory per column (16 constants
// in registers spilled 128 B).
//
// Backward (strided_reg_bwd_body): a thread holds NPB = 4 packs of y and 4
// of dy raw (the forward's registers, half its rows), sums its terms per
// column, and the sums merge as the forward's pairs do; dx from the held
// values.
//
//   strided_reg_{fwd,bwd}_{dt}_g{G}         G = 8, 16, 32
//   strided_reg_{fwd,bwd}_{dt}_g{G}_shift   the twin for any Inner and
//                                           alignment: thread x's P columns
//                                           are inner indices x, x+G, ... of
//                                           the tile, one scalar access each
//                                           (a warp access is a run of G
//                                           elements), held as the aligned
//                                           kernel holds its packs
//
// Launch contract (outer, axis, inner), Inner % P == 0 and 16-byte aligned
// pointers with Params.vec 1; the twins any, with Params.vec 2 and blocks
// of at most 512 threads (the kernels trap on the other vec):
//   cluster (K, 1, 1) with K > 1 (sm_90+, cuLaunchKernelEx), or none (K = 1)
//   block   (nt, 1, 1), nt a multiple of 32 and of G, with TY*NP >= R
//           (NP = 8 packs: 32 f32 or 64 f16/bf16 values a thread; backward
//           NPB = 4 packs of each input) and (nt/32)*C <=
//           4096 (nt <= 1024; 512 for f16/bf16 g32)
//   grid    (tiles*K, 1, 1), tiles = outer * ceil(inner / C): one tile per
//           cluster, no grid-stride loop (it held registers the cached
//           values needed: with it ptxas spilled 220 B a thread)
//   params  chunk = R (axis rows per block), split = K; K*R >= axis
//           (the kernel traps otherwise)
//   smem    static StridedRegShared<C>: NW*(C + 1) + C float pairs, NW =
//           min(32, 4096/C) (the per-warp partials, padded, and the
//           block's), plus KS*C pairs and an mbarrier with the push (KS = 8,
//           4 for C > 128; K <= KS, the kernel traps otherwise)
//   ws      none
#include "common.cuh"

namespace smx {

// 8 packs a thread for every dtype: 32 f32 values held as floats, or 64
// f16/bf16 values held raw (RAW below).
template <class D>
struct StridedRegPacks {
  static constexpr int NP = 8;
  // Backward: NPB packs of y and NPB of dy, as many registers.
  static constexpr int NPB = NP / 2;
  // 16-bit values stay packed in their 16-byte registers and are converted
  // again (a second exp) for the output: as floats they took two registers
  // each, so a block held half the axis rows and axes of 1024 and more
  // needed clusters.
  static constexpr bool RAW = D::P == 8;
};

#ifndef SMX_EMU
// A column's float pair (M, log D) from shared memory. asm volatile keeps
// each load next to its use in the output loop (volatile asm is not
// reordered with st_cs): loaded ahead, the 16 constants of a thread's 8
// columns stay live beside its 32 raw registers and ptxas spilled 128 B; a
// C++ volatile pointer reloads them too, but as 16 scalar loads a pack
// (64x1024x512 f16 axis 1: 107.3 us, against 88.1 with the constants held).
__device__ __forceinline__ F2 ld_f2_ordered(const F2* p) {
  F2 v;
  asm volatile("ld.v2.f32 {%0, %1}, [%2];" : "=f"(v.a), "=f"(v.b) : "l"(p) : "memory");
  return v;
}
#else
__device__ __forceinline__ F2 ld_f2_ordered(const F2* p) { return *p; }
#endif

// v scaled by the op's scale; UNIT: the scale is 1 (no multiply).
template <bool UNIT, class Op>
__device__ __forceinline__ float scaled(const Op& op, float v) {
  return UNIT ? v : op.conv(0, v);
}

// Element e of a raw 16-bit pack as a float (scaled), -inf when !in.
template <bool UNIT, class Op>
__device__ __forceinline__ float raw_elem(const Op& op, const V16& r, int e, bool in) {
  return in ? scaled<UNIT>(op, Op::D::elem(r, e)) : neg_inf();
}

// The warps a block may have for tiles of C columns.
template <int C>
struct StridedRegWarps {
  static constexpr int value = 4096 / C < 32 ? 4096 / C : 32;
};

// A block's shared memory for tiles of C columns. red's rows are padded by
// one pair (see the merge). KS is the largest cluster whose partials fit
// the slots within the 48 KB of static shared memory (the planner keeps to
// it: StridedRegMaxCluster in the catalogue).
template <int C>
struct StridedRegShared {
  static constexpr int RS = C + 1;
  static constexpr int KS = C <= 128 ? 8 : 4;
  F2 red[StridedRegWarps<C>::value * RS];  // [warp][column]: the warps' partials
  F2 part[C];                              // the block's column partials, then the merged ones
#ifdef SMX_CLUSTER_PUSH
  F2 slot[KS * C];  // [rank][column]: the cluster's blocks' partials, pushed
  unsigned long long mbar;
#endif
};

// Pack k of a "_shift" twin's thread (IL): its P columns, G inner indices
// apart, one scalar load each, arranged as a 16-byte pack would hold them so
// that the body treats both layouts alike; a column past Inner (bit e of
// cmask clear) reads nothing and holds 0, a finite value whose column is
// neither merged with another nor stored.
template <class D, int G>
__device__ __forceinline__ V16 ld_spread(const typename D::T* q, u32 cmask) {
  V16 r;
  if constexpr (D::P == 4) {
#pragma unroll
    for (int e = 0; e < 4; ++e) r.w[e] = cmask >> e & 1 ? __float_as_uint(q[e * G]) : 0u;
  } else {
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      const u32 lo = cmask >> (2 * w) & 1 ? (u32)q[2 * w * G] : 0u;
      const u32 hi = cmask >> (2 * w + 1) & 1 ? (u32)q[(2 * w + 1) * G] : 0u;
      r.w[w] = lo | hi << 16;
    }
  }
  return r;
}

// No cluster push (before sm_90, and the host emulator).
struct StridedRegNoPush {};

// Merges the warps' column partials in red (one per warp and column) into
// part[]: the block's, then with K > 1 the cluster's, as Op merges its
// accumulators (forward (m, d) pairs, backward plain sums). Ends before the
// barrier that publishes part[].
template <class Op, int C, class Push>
__device__ __forceinline__ void strided_reg_merge(StridedRegShared<C>& sh, Push& push, u32 K, u32 rank) {
  constexpr int RS = StridedRegShared<C>::RS;
  F2* const red = sh.red;
  F2* const part = sh.part;
  const int t = threadIdx.x, nt = blockDim.x, lane = t & 31, wid = t >> 5, nw = nt >> 5;
  // Warp v merges the warps' partials of columns v, v + nw, ... (red's
  // padded rows: at a stride of C pairs the lanes' loads of one column
  // fell in one bank pair, 8.2-way conflicts in ncu)
#ifdef SMX_CLUSTER_PUSH
  if (K > 1) {
    push.ready();
    for (int col = wid; col < C; col += nw) {
      const typename Op::Acc m = group_reduce<Op, 32>(lane < nw ? Op::from_ws(red[lane * RS + col]) : Op::identity());
      if ((u32)lane < K) push.push(&sh.slot[rank * C + col], lane, Op::to_ws(m));
    }
    push.wait();
    for (int col = wid; col < C; col += nw) {
      typename Op::Acc g = (u32)lane < K ? Op::from_ws(sh.slot[lane * C + col]) : Op::identity();
      g = group_reduce<Op, 32>(g);
      if (lane == 0) part[col] = Op::to_ws(g);
    }
  } else
#endif
  {
    for (int col = wid; col < C; col += nw) {
      const typename Op::Acc m = group_reduce<Op, 32>(lane < nw ? Op::from_ws(red[lane * RS + col]) : Op::identity());
      if (lane == 0) part[col] = Op::to_ws(m);
    }
#if __CUDA_ARCH__ >= 900 && !defined(SMX_CLUSTER_PUSH)
    if (K > 1) {
      cluster_sync();  // every block's part[] is published
      for (int col = wid; col < C; col += nw) {
        typename Op::Acc g = Op::identity();
        if ((u32)lane < K) g = Op::from_ws(ld_cluster_f2(smem_addr(&part[col]), lane));
        g = group_reduce<Op, 32>(g);
        if (lane == 0) red[col] = Op::to_ws(g);
      }
      cluster_sync();  // remote reads of part[] are done
      __syncthreads();
      for (int col = t; col < C; col += nt) part[col] = red[col];
    }
#endif
  }
}

// UNIT: Params.scale is 1. The body is instantiated for it apart (the
// kernel picks one by the grid-wide scale), so the common call spends no
// multiply on each use of an element. IL: the "_shift" twin (any Inner, any
// alignment): a thread's P columns are inner indices x, x + G, ... of the
// tile, one scalar access each, so that each warp access is a run of G
// consecutive elements; the aligned kernel's are P consecutive ones.
template <class D, int G, bool UNIT, bool IL>
__device__ __forceinline__ void strided_reg_body(const Params& p, StridedRegShared<G * D::P>& sh) {
  typedef Fwd<D> Op;
  typedef typename D::T T;
  constexpr int P = D::P, NP = StridedRegPacks<D>::NP, C = G * P;
  constexpr int NW = StridedRegWarps<C>::value, RS = StridedRegShared<C>::RS;
  F2* const red = sh.red;
  F2* const part = sh.part;
  const Op op(p);
  const i64 axis = p.axis, inner = p.inner, R = p.chunk;
  const int t = threadIdx.x, nt = blockDim.x, lane = t & 31, wid = t >> 5, nw = nt >> 5;
  const int x = t % G, ty = t / G, TY = nt / G;
#if __CUDA_ARCH__ >= 900
  const u32 K = cluster_size(), rank = cluster_rank();
#else
  const u32 K = 1, rank = 0;
#endif
  if ((i64)K * R < axis || (i64)TY * NP < R || nt % 32 != 0 || nw > NW || K > StridedRegShared<C>::KS) __trap();
#ifdef SMX_CLUSTER_PUSH
  ClusterPush push;
  if (K > 1) push.arm(&sh.mbar, K * C * (u32)sizeof(F2));  // K blocks' partials of C columns
#else
  StridedRegNoPush push;
#endif
  const i64 j0 = (i64)rank * R, j1 = imin(axis, j0 + R);
  const bool full = j0 + (i64)TY * NP <= j1;  // every pack of every thread in range
  const i64 tpo = (inner + C - 1) / C;
  const i64 tile = blockIdx.x / K, o = tile / tpo;
  const i64 i = (tile - o * tpo) * C + (IL ? (i64)x : (i64)x * P);
  const bool ok = i < inner;  // aligned (Inner % P == 0): all P columns or none
  u32 cmask = 0;              // IL: bit e set when column e (inner index i + e*G) is in range
  if constexpr (IL) {
#pragma unroll
    for (int e = 0; e < P; ++e) cmask |= (u32)(i + (i64)e * G < inner) << e;
  }
  const i64 first = (o * axis + j0 + ty) * inner + i;
  const i64 step = (i64)TY * inner;
  const bool keep_diff = p.log != 0;

  const auto load = [&](const T* q) {
    if constexpr (IL)
      return ld_spread<D, G>(q, cmask);
    else
      return ld16(q);
  };
  V16 raw[NP];
  if (ok) {
    const T* q = op.x + first;
    if (full) {
#pragma unroll
      for (int k = 0; k < NP; ++k) raw[k] = load(q + k * step);
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k)
        if (j0 + ty + (i64)k * TY < j1) raw[k] = load(q + k * step);
    }
  }
  constexpr bool RAW = StridedRegPacks<D>::RAW;
  u32 inmask = 0;  // RAW: bit k set when pack k holds rows of the block's range
  if constexpr (RAW) {
#pragma unroll
    for (int k = 0; k < NP; ++k)
      if (ok && (full || j0 + ty + (i64)k * TY < j1)) inmask |= 1u << k;
  }
  // Every pack of the thread holds rows of the block's range (the common
  // case): the loops below then skip the -inf select per element.
  const bool all_in = ok && full;
  float b[RAW ? 1 : NP][P];  // the values as floats (not kept when RAW)
  float mt[P];               // the thread's, then the warp's column maxima
#pragma unroll
  for (int e = 0; e < P; ++e) mt[e] = neg_inf();
  if constexpr (RAW) {
#pragma unroll
    for (int k = 0; k < NP; ++k)
#pragma unroll
      for (int e = 0; e < P; ++e) mt[e] = fmax2(mt[e], raw_elem<UNIT>(op, raw[k], e, inmask >> k & 1));
  } else if (all_in) {
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      D::unpack(raw[k], b[k]);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        b[k][e] = scaled<UNIT>(op, b[k][e]);
        mt[e] = fmax2(mt[e], b[k][e]);
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      const bool in = ok && (full || j0 + ty + (i64)k * TY < j1);
      D::unpack(raw[k], b[k]);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        b[k][e] = in ? scaled<UNIT>(op, b[k][e]) : neg_inf();
        mt[e] = fmax2(mt[e], b[k][e]);
      }
    }
  }
  // Per column: the max over the warp's lanes that own it (lanes l and l ^
  // (G*k): G divides 32), so their exps share one offset and their sums add
  // plainly; the warp's (m, d) is stored per warp.
#pragma unroll
  for (int e = 0; e < P; ++e)
#pragma unroll
    for (int sh = 16; sh >= G; sh >>= 1) mt[e] = fmax2(mt[e], __shfl_xor_sync(0xffffffffu, mt[e], sh));
#pragma unroll 8
  for (int e = 0; e < P; ++e) {
    const float m = mt[e], s = safe(m);
    float d = 0.f;
    if constexpr (RAW) {
#pragma unroll
      for (int k = 0; k < NP; ++k) d += Op::ex(raw_elem<UNIT>(op, raw[k], e, inmask >> k & 1) - s);
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        const float v = b[k][e] - s, ev = Op::ex(v);
        d += ev;
        b[k][e] = keep_diff ? v : ev;
      }
    }
#pragma unroll
    for (int sh = 16; sh >= G; sh >>= 1) d += __shfl_xor_sync(0xffffffffu, d, sh);
    if (lane < G) red[wid * RS + lane * P + e] = F2{m, d};
  }
  __syncthreads();
  strided_reg_merge<Op>(sh, push, K, rank);
  __syncthreads();  // part[] holds the merged column pairs
  if constexpr (RAW) {
    // (M, log D) per column, in place, read back per pack in the output
    // loop: held in registers, 16 constants a thread made ptxas spill 128 B.
    for (int col = t; col < C; col += nt) {
      const typename Op::Fin f = op.finalize(Op::from_ws(part[col]));
      part[col] = F2{f.m, f.lse};
    }
    __syncthreads();
  }
  if (!ok) return;
  // softmax: y = b * exp(m_w - M) / D, 0 where the warp saw only -inf (an
  // all -inf slice has D = 0, and 0 * inf gives the NaN PyTorch gives);
  // log_softmax: y = b + (s_w - M - log D).
  // RAW: y = exp((v - M) - log D) (log_softmax: (v - M) - log D) from the
  // raw values; v - M first, as M + log D would lose log D next to a huge M.
  // RAW, fast path: c = M + log D held per column when |c| <= 1024, where
  // rounding c costs at most 2^-14 in the exponent (far below 16-bit
  // output rounding); otherwise (huge inputs, -inf, NaN) every pack re-reads
  // (M, log D).
  float mul[P];
  bool fast = true;
#pragma unroll
  for (int e = 0; e < P; ++e) {
    if constexpr (RAW) {
      const F2 c = part[x * P + e];
      mul[e] = c.a + c.b;
      fast = fast && mul[e] <= 1024.f && mul[e] >= -1024.f;  // false for NaN
    } else {
      const typename Op::Fin f = op.finalize(Op::from_ws(part[x * P + e]));
      mul[e] = keep_diff ? safe(mt[e]) - f.m - f.lse : (mt[e] == neg_inf() ? 0.f : fexp_nonpos(mt[e] - f.m)) * f.rd;
    }
  }
  T* const out = op.y + first;
  const auto store = [&](T* q, const float(&y)[P]) {
    if constexpr (IL) {
#pragma unroll
      for (int e = 0; e < P; ++e)
        if (cmask >> e & 1) q[e * G] = Op::Store::from_f(y[e]);
    } else {
      st_cs(q, Op::Store::pack(y));
    }
  };
  if constexpr (RAW) {
    // Two whole loops, so that neither path's registers meet the other's.
    auto out_raw = [&](auto&& expo) {
#pragma unroll
      for (int k = 0; k < NP; ++k)
        if (inmask >> k & 1) {
          float y[P];
#pragma unroll
          for (int e = 0; e < P; ++e) {
            const float u = expo(e, scaled<UNIT>(op, D::elem(raw[k], e)));
            y[e] = keep_diff ? u : Op::ex(u);
          }
          store(out + k * step, y);
        }
    };
    if (fast)
      out_raw([&](int e, float v) { return v - mul[e]; });
    else
      out_raw([&](int e, float v) {
        const F2 c = ld_f2_ordered(part + x * P + e);
        return (v - c.a) - c.b;
      });
  } else {
#pragma unroll
    for (int k = 0; k < NP; ++k) {
      if (full || j0 + ty + (i64)k * TY < j1) {
        float y[P];
#pragma unroll
        for (int e = 0; e < P; ++e) y[e] = keep_diff ? b[k][e] + mul[e] : b[k][e] * mul[e];
        store(out + k * step, y);
      }
    }
  }
}

// IL: the "_shift" twin (Params.vec 2); the aligned kernel takes vec 1.
template <class D, int G, bool IL>
__device__ __forceinline__ void strided_reg_kernel(const Params& p) {
  __shared__ StridedRegShared<G * D::P> sh;
  if (p.vec != (IL ? 2 : 1)) __trap();
  if (p.scale == 1.f)
    strided_reg_body<D, G, true, IL>(p, sh);
  else
    strided_reg_body<D, G, false, IL>(p, sh);
}

// The backward body: the tile of y and of dy cached raw (NPB packs of each a
// thread, so a block holds half the forward's axis rows; a pack out of
// range holds zeros, whose terms add nothing), s = Σ term(y, dy) per column
// summed over the lanes, the warps and the cluster as the forward merges
// its pairs (strided_reg_merge), then dx = Bwd::out1 of the cached values:
// every Bwd formula (and its scale) is the op's own.
template <class D, int G, bool IL>
__device__ __forceinline__ void strided_reg_bwd_body(const Params& p, StridedRegShared<G * D::P>& sh) {
  typedef Bwd<D> Op;
  typedef typename D::T T;
  constexpr int P = D::P, NB = StridedRegPacks<D>::NPB, C = G * P;
  constexpr int NW = StridedRegWarps<C>::value, RS = StridedRegShared<C>::RS;
  const Op op(p);
  const i64 axis = p.axis, inner = p.inner, R = p.chunk;
  const int t = threadIdx.x, nt = blockDim.x, lane = t & 31, wid = t >> 5, nw = nt >> 5;
  const int x = t % G, ty = t / G, TY = nt / G;
#if __CUDA_ARCH__ >= 900
  const u32 K = cluster_size(), rank = cluster_rank();
#else
  const u32 K = 1, rank = 0;
#endif
  if ((i64)K * R < axis || (i64)TY * NB < R || nt % 32 != 0 || nw > NW || K > StridedRegShared<C>::KS) __trap();
#ifdef SMX_CLUSTER_PUSH
  ClusterPush push;
  if (K > 1) push.arm(&sh.mbar, K * C * (u32)sizeof(F2));  // K blocks' partials of C columns
#else
  StridedRegNoPush push;
#endif
  const i64 j0 = (i64)rank * R, j1 = imin(axis, j0 + R);
  const bool full = j0 + (i64)TY * NB <= j1;
  const i64 tpo = (inner + C - 1) / C;
  const i64 tile = blockIdx.x / K, o = tile / tpo;
  const i64 i = (tile - o * tpo) * C + (IL ? (i64)x : (i64)x * P);
  const bool ok = i < inner;
  u32 cmask = 0;
  if constexpr (IL) {
#pragma unroll
    for (int e = 0; e < P; ++e) cmask |= (u32)(i + (i64)e * G < inner) << e;
  }
  const i64 first = (o * axis + j0 + ty) * inner + i;
  const i64 step = (i64)TY * inner;
  const auto load = [&](const T* q) {
    if constexpr (IL)
      return ld_spread<D, G>(q, cmask);
    else
      return ld16(q);
  };
  const auto in = [&](int k) { return ok && (full || j0 + ty + (i64)k * TY < j1); };
  V16 ry[NB], rg[NB];
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    if (in(k)) {
      ry[k] = load(op.yv + first + k * step);
      rg[k] = load(op.dy + first + k * step);
    } else {
#pragma unroll
      for (int w = 0; w < 4; ++w) ry[k].w[w] = rg[k].w[w] = 0u;
    }
  }
  // The pack's values as floats (through the op's loads).
  const auto vals = [&](int k, float (&yv)[P], float (&gv)[P]) {
    D::unpack(ry[k], yv);
    D::unpack(rg[k], gv);
#pragma unroll
    for (int e = 0; e < P; ++e) {
      yv[e] = op.conv(0, yv[e]);
      gv[e] = op.conv(1, gv[e]);
    }
  };
  float s[P];
#pragma unroll
  for (int e = 0; e < P; ++e) s[e] = 0.f;
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    float yv[P], gv[P];
    vals(k, yv, gv);
#pragma unroll
    for (int e = 0; e < P; ++e) s[e] += op.term(yv[e], gv[e]);
  }
  // Per column: the sum over the warp's lanes that own it (lanes l and
  // l ^ (G*k)), stored per warp.
#pragma unroll
  for (int e = 0; e < P; ++e) {
#pragma unroll
    for (int sft = 16; sft >= G; sft >>= 1) s[e] += __shfl_xor_sync(0xffffffffu, s[e], sft);
    if (lane < G) sh.red[wid * RS + lane * P + e] = Op::to_ws(s[e]);
  }
  __syncthreads();
  strided_reg_merge<Op>(sh, push, K, rank);
  __syncthreads();  // part[] holds the column sums
  if (!ok) return;
  typename Op::Fin f[P];
#pragma unroll
  for (int e = 0; e < P; ++e) f[e] = op.finalize(Op::from_ws(sh.part[x * P + e]));
  T* const out = op.dx + first;
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    if (in(k)) {
      float yv[P], gv[P], d[P];
      vals(k, yv, gv);
#pragma unroll
      for (int e = 0; e < P; ++e) d[e] = op.out1(yv[e], gv[e], f[e]);
      if constexpr (IL) {
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (cmask >> e & 1) out[k * step + e * G] = Op::Store::from_f(d[e]);
      } else {
        st_cs(out + k * step, Op::Store::pack(d));
      }
    }
  }
}

// The backward kernel (both gradients; Params.log picks).
template <class D, int G, bool IL>
__device__ __forceinline__ void strided_reg_bwd_kernel(const Params& p) {
  __shared__ StridedRegShared<G * D::P> sh;
  if (p.vec != (IL ? 2 : 1)) __trap();
  strided_reg_bwd_body<D, G, IL>(p, sh);
}

}  // namespace smx
