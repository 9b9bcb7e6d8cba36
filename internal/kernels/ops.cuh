// ops.cuh: the ops, Fwd<D> (softmax / log_softmax, scale fused on load,
// (m,d) accumulator with the -inf-safe merge) and Bwd<D> (both gradients),
// over the storage traits D and the Load / Store functors.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- ops

// Sum of Q values by pairwise (tree) addition: error grows with log2 Q.
template <int Q, class M>
__device__ __forceinline__ M pairwise_sum(M (&v)[Q]) {
#pragma unroll
  for (int w = 1; w < Q; w *= 2)
#pragma unroll
    for (int q = 0; q + w < Q; q += 2 * w) v[q] += v[q + w];
  return v[0];
}

// (m, d): running max and sum of exp(v - m), in math type M (MD: float).
template <class M>
struct MDT {
  M m, d;
};
typedef MDT<float> MD;

// Folds (m2, d2) into (m, d), -inf-safe.
template <class M>
__device__ __forceinline__ MDT<M> md_merge(MDT<M> a, MDT<M> b) {
  M m = fmax2(a.m, b.m);
  M s = safe(m);
  MDT<M> r;
  r.m = m;
  r.d = a.d * fexp_nonpos(a.m - s) + b.d * fexp_nonpos(b.m - s);
  return r;
}

// Plain max / sum reductions of math type M as ops (the register-cached
// forward body and the teaching kernels: RedMax, RedSum).
template <class M>
struct RedMaxOf {
  typedef M Acc;
  static __device__ __forceinline__ Acc identity() { return neg_inf(); }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return fmax2(a, b); }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
};

template <class M>
struct RedSumOf {
  typedef M Acc;
  static __device__ __forceinline__ Acc identity() { return 0.f; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return a + b; }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
};
typedef RedMaxOf<float> RedMax;
typedef RedSumOf<float> RedSum;

// The values of a row held beyond the registers of cached_row_full (none
// here; block_hybrid's shared-memory part): issue() starts loading them
// right after the register loads are issued, max and sum join
// Fwd::reduce_cached, and out(f) writes them after the register part.
struct NoMoreValues {
  __device__ __forceinline__ void issue() const {}
  template <class M>
  __device__ __forceinline__ M max(M m) const {
    return m;
  }
  template <int P, class M>
  __device__ __forceinline__ void sum(M, M (&)[P]) const {}
  template <class Fin>
  __device__ __forceinline__ void out(const Fin&) const {}
};

// SMX_PLAIN: the module serves plain softmax launches only (forward, scale
// 1, not log), so its forward kernels fold the scale and the op away: no
// multiply on each load, no select between exp and log per element, and
// 16-bit rows take fexp_shifted. H200, softmax bench --algo auto, four
// alternated rounds, median µs (-ab-s24.txt): split_grid 4x4194304 f16
// 29.79 -> 29.28, 128x128256 bf16 27.27 -> 26.90; block_reg 2048x8192 f16
// 22.91 -> 22.61, 8192x1024 bf16 13.82 -> 13.62, 4096x1024 f32 12.98 ->
// 12.76, the other block_reg cases within 1% either way (128x1024 f16 5.29
// -> 5.41 in overlapping rounds). The host compiles a module of each kind
// on first use and picks one per launch (cuda: plainLaunch), for the
// strategies listed with a plain build (kernels.Info.PlainBuild). As twin
// bodies in one kernel, picked by the launch's parameters, ptxas gave the
// pair far more registers than either alone (NVRTC 13: f16 t64_p4 64 ->
// 128, f32 t512_p8 60 -> 73).
#ifndef SMX_PLAIN
#define SMX_PLAIN 0
#endif

// Fwd is the forward op: one input x (scaled on load: Load_), accumulator
// (m, d), outputs stored through Store_ (functors.cuh). PLAIN_: a plain
// softmax (see SMX_PLAIN).
template <class D_, bool PLAIN_ = (SMX_PLAIN != 0), class Load_ = ScaleLoad<PLAIN_>, class Store_ = DirectStore<D_>>
struct Fwd {
  typedef D_ D;
  typedef Store_ Store;
  typedef typename D::T T;
  typedef typename D::M M;  // math type: float, double for F64
  typedef MDT<M> Acc;
  typedef typename WsPair<M>::type Ws;
  typedef RedMaxOf<M> RMax;
  typedef RedSumOf<M> RSum;
  static constexpr int NIN = 1;
  static constexpr bool BACKWARD = false;
  static constexpr bool PLAIN = PLAIN_;
  // Per-slice constants after the reduction. crd and clse scale the values
  // reduce_cached left in registers (out_cached): rd and lse, or where the
  // thread's exps were taken against its own max (Red::LOCAL_FIRST), rd and lse
  // moved to that max. out_vals takes m, rd and lse.
  struct Fin {
    M m, rd, lse;
    int log;
    M crd, clse;
  };

  const T* x;
  T* y;
  Load_ load;  // where the scale was: the op's layout is unchanged
  int log;

  __device__ __forceinline__ explicit Fwd(const Params& p)
      : x(static_cast<const T*>(p.x)), y(static_cast<T*>(p.y)), load(p), log(PLAIN ? 0 : p.log) {
    if (PLAIN && (p.scale != 1.f || p.log != 0)) __trap();  // a host bug: the launch needs the general module
  }

  __device__ __forceinline__ const T* src(int) const { return x; }
  // Whether the statistics pass reads input i (Bwd: log_softmax's needs dy alone).
  __device__ __forceinline__ bool stat_reads(int) const { return true; }
  __device__ __forceinline__ T* dst() const { return y; }
  __device__ __forceinline__ M conv(int i, M v) const { return load(i, v); }
  static __device__ __forceinline__ M fill(int) { return neg_inf(); }

  // exp of an element's exponent (v - m <= 0, or NaN; never +inf): the
  // cheap form for 16-bit storage, the accurate one for float32.
  static __device__ __forceinline__ M ex(M v) {
    if constexpr (D::FAST_EXP)
      return fexp_fast<D::FTZ_EXP>(v);
    else
      return fexp_nonpos(v);
  }

  static __device__ __forceinline__ Acc identity() { return Acc{neg_inf(), 0.f}; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return md_merge(a, b); }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int lane_mask) {
    Acc r;
    r.m = __shfl_xor_sync(0xffffffffu, a.m, lane_mask);
    r.d = __shfl_xor_sync(0xffffffffu, a.d, lane_mask);
    return r;
  }
  static __device__ __forceinline__ Ws to_ws(Acc a) { return Ws{a.m, a.d}; }
  static __device__ __forceinline__ Acc from_ws(Ws f) { return Acc{f.a, f.b}; }

  // A row cached in registers, N values per thread, Red reducing over the
  // row's threads: the row max, then one exp per element, then the sum. b
  // is rewritten in place for out_cached: exp(v - m) for softmax (so the
  // output only scales), v - m for log_softmax. Two plain float
  // reductions cost far fewer instructions than one reduction of (m, d)
  // pairs, whose every merge step takes two exps: with a few packs per
  // thread that merge was most of a thread's work (block_reg on 4096^2 f32
  // went from 0.59 to 0.91 of copy speed on H200 with this body).
  // Values the thread holds elsewhere (block_hybrid's shared-memory part)
  // join through `more`: more.max(m) folds them into the thread's max and
  // more.sum(s, ps) adds their exp(v - s) to the partial sums.
  //
  // Red::LOCAL_FIRST (block reductions): each thread takes its exps against
  // its own max m_t as soon as its loads land, then the block max M, then
  // the block sum of its sum times w = exp(m_t - M); the cached values are
  // scaled by w / S (log_softmax: shifted by (M - m_t) + log S). With the
  // block max first, every thread's exps waited at the barrier for the
  // block's last load: in a one-wave launch (a 1024-thread block an SM) 32
  // exps a thread, about 1 µs of MUFU work an SM, between the last read and
  // the first write. H100, softmax bench, three alternated rounds
  // (nvidia-h100-2026-11-25-ab-s56.txt §1-3): block_reg 128x32000 f32
  // log_softmax 19.04 -> 18.03 µs, 64x32000 f32 14.00 -> 13.34; many rows
  // too, 4096x2048 f32 28.53 -> 26.73 (H200 22.16 -> 21.21). 16-bit rows in
  // blocks under 512 threads lost 4-6% (2048x2048 f16 11.04 -> 11.63): their
  // exps are the cheap ex2 form, so block_reg's RowRed and block_hybrid keep
  // the max first there.
  template <class Red, int N, class More = NoMoreValues>
  __device__ __forceinline__ Fin reduce_cached(M (&b)[NIN][N], const More& more = More()) const {
    constexpr int P = D::P;
    M m = neg_inf();
#pragma unroll
    for (int k = 0; k < N; ++k) m = fmax2(m, b[0][k]);
    m = more.max(m);
    if constexpr (!Red::LOCAL_FIRST) m = Red::template run<RMax>(m);
    const M s = safe(m);
    M ps[P];
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] = 0.f;
    // log_softmax keeps v - s, which is v - m except where m = -inf (then
    // s = 0, and -inf - lse = NaN matches (v - m) - lse). A select rather
    // than a branch per op: two paths held different values live across
    // the reduction and made ptxas spill the p8 body at 64 registers.
    const bool keep_diff = !PLAIN && log != 0;
    if (PLAIN && D::FAST_EXP && s >= -fexp_shift_max && s <= fexp_shift_max) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < N; ++k) {
        b[0][k] = fexp_shifted<D::FTZ_EXP>(b[0][k], sl);
        ps[k % P] += b[0][k];
      }
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const M v = b[0][k] - s, e = ex(v);
        b[0][k] = keep_diff ? v : e;
        ps[k % P] += e;
      }
    }
    more.sum(s, ps);
    return row_sum<Red>(m, s, ps);
  }

  // The end of reduce_cached and reduce_raw: the row's Fin from the
  // thread's max m (the row max unless Red::LOCAL_FIRST), its shift
  // s = safe(m) and its partial sums ps of exps against s (summed in
  // place). With Red::LOCAL_FIRST, the row max, then the thread's sum moved
  // to it: w = exp(m_t - M) is 0 for a thread of -inf values (and for every
  // thread of a row of -inf, whose sum 0 then makes the outputs NaN as
  // torch's are).
  template <class Red, int P>
  __device__ __forceinline__ Fin row_sum(M m, M s, M (&ps)[P]) const {
    if constexpr (!Red::LOCAL_FIRST) {
      return finalize(Acc{m, Red::template run<RSum>(pairwise_sum<P>(ps))});
    } else {
      const M rm = Red::template run<RMax>(m), rs = safe(rm);
      const M w = fexp_nonpos(m - rs);
      Fin f = finalize(Acc{rm, Red::template run<RSum>(pairwise_sum<P>(ps) * w)});
      f.crd = w * f.rd;
      f.clse = (rs - s) + f.lse;
      return f;
    }
  }

  // reduce_cached for a row held as raw packs (block_reg's "_exact"
  // kernels), so that a thread keeps NP*4 registers of 16-bit values
  // instead of NP*8 floats: the max over the packed words (D::max2, NaN
  // ignored as fmax2 does; the min for a negative scale), then each pack
  // converted and its exps summed; out_raw converts and takes the exps
  // again. With the max over converted values, ptxas kept those values from
  // the max to the exps, spilled, across the block's barrier. Sets s to the
  // thread's exponent shift: the row max's, or with Red::LOCAL_FIRST the
  // thread's own, as in reduce_cached.
  template <class Red, int NP>
  __device__ __forceinline__ Fin reduce_raw(const V16 (&raw)[NP], float& s) const {
    constexpr int P = D::P;
    u32 w = raw[0].w[0];
    if (load.flips()) {
#pragma unroll
      for (int k = 0; k < NP * 4; ++k) w = D::min2(w, raw[k / 4].w[k % 4]);
    } else {
#pragma unroll
      for (int k = 0; k < NP * 4; ++k) w = D::max2(w, raw[k / 4].w[k % 4]);
    }
    float lo, hi;
    D::unpack2(w, lo, hi);
    float m = conv(0, load.flips() ? fmin2(lo, hi) : fmax2(lo, hi));
    if constexpr (!Red::LOCAL_FIRST) m = Red::template run<RedMax>(m);
    s = safe(m);
    float ps[P];
#pragma unroll
    for (int e = 0; e < P; ++e) ps[e] = 0.f;
    if (raw_shifted(s)) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        float v[P];
        unpack_conv(*this, 0, raw[k], v);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += fexp_shifted<D::FTZ_EXP>(v[e], sl);
      }
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        float v[P];
        unpack_conv(*this, 0, raw[k], v);
#pragma unroll
        for (int e = 0; e < P; ++e) ps[e] += ex(v[e] - s);
      }
    }
    return row_sum<Red>(m, s, ps);
  }

  // Whether reduce_raw and out_raw take the exps as fexp_shifted against s
  // (reduce_cached's fast form), else as ex(v - s).
  __device__ __forceinline__ bool raw_shifted(float s) const {
    return PLAIN && D::FAST_EXP && s >= -fexp_shift_max && s <= fexp_shift_max;
  }

  // The outputs of a row reduced by reduce_raw (shift s), pack by pack:
  // st(k, o) stores pack k. Every build takes fresh(): without it nvcc
  // 11.8 spilled the plain bf16 twins (t128_p8 560 bytes), NVRTC 13 not.
  template <int NP, class Store>
  __device__ __forceinline__ void out_raw(const V16 (&raw)[NP], float s, const Fin& f, const Store& st) const {
    constexpr int P = D::P;
    float o[P];
    if (f.log) {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = (o[e] - s) - f.clse;
        st(k, o);
      }
    } else if (raw_shifted(s)) {
      const float sl = s * L2E;
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = fexp_shifted<D::FTZ_EXP>(o[e], sl) * f.crd;
        st(k, o);
      }
    } else {
#pragma unroll
      for (int k = 0; k < NP; ++k) {
        unpack_conv(*this, 0, fresh(raw[k]), o);
#pragma unroll
        for (int e = 0; e < P; ++e) o[e] = ex(o[e] - s) * f.crd;
        st(k, o);
      }
    }
  }

  // o[e] = output for element k0 + e of a row reduced by reduce_cached.
  template <int N, int K>
  __device__ __forceinline__ void out_cached(const M (&b)[NIN][N], int k0, M (&o)[K], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = b[0][k0 + e] - f.clse;
    } else {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = b[0][k0 + e] * f.crd;
    }
  }

  // Online update with N values at once (one rescale per call); c is the
  // caller's Kahan compensation of a.d, rescaled along with it.
  template <int N>
  __device__ __forceinline__ void push(Acc& a, M& c, const M (&b)[NIN][N]) const {
    M pm = b[0][0];
#pragma unroll
    for (int k = 1; k < N; ++k) pm = fmax2(pm, b[0][k]);
    const M m = fmax2(a.m, pm);
    const M s = safe(m);
    const M f = fexp_nonpos(a.m - s);
    M local = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) local += ex(b[0][k] - s);
    a.d *= f;
    c *= f;
    kadd(a.d, c, local);
    a.m = m;
  }

  // Online update with one value: one exp unless the max moves.
  __device__ __forceinline__ void push1(Acc& a, M& c, M v, M) const {
    if (v > a.m) {
      const M f = fexp_nonpos(a.m - v);
      a.d *= f;
      c *= f;
      kadd(a.d, c, one_or_nan(v));
      a.m = v;
    } else {
      kadd(a.d, c, ex(v - safe(a.m)));
    }
  }

  // Applies the Kahan compensation: the accumulator to merge and reduce.
  static __device__ __forceinline__ Acc fold(Acc a, M c) { return Acc{a.m, a.d - c}; }

  __device__ __forceinline__ Fin finalize(Acc a) const {
    Fin f;
    f.m = a.m;
    f.rd = 1.f / a.d;
    f.lse = flog(a.d);
    f.log = log;
    f.crd = f.rd;
    f.clse = f.lse;
    return f;
  }

  __device__ __forceinline__ M out1(M v, M, const Fin& f) const {
    return f.log ? (v - f.m) - f.lse : ex(v - f.m) * f.rd;
  }

  // o[e] = output for cached values b[.][k0 + e], e < K.
  template <int N, int K>
  __device__ __forceinline__ void out_vals(const M (&b)[NIN][N], int k0, M (&o)[K], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = (b[0][k0 + e] - f.m) - f.lse;
    } else {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = ex(b[0][k0 + e] - f.m) * f.rd;
    }
  }
};

// Bwd is the backward op: inputs y (forward output) and dy, accumulator
// s = sum(dy*y) (softmax) or sum(dy) (log_softmax), and the forward scale c
// (the gradient of softmax(c·x) with respect to x; Params.scale, 1 if none):
//   softmax:     dx = c*y*(dy - s)
//   log_softmax: dx = c*(dy - exp(y)*s)
// Every backward output goes through out1 or out_vals, which apply c (one
// multiply an element).
// Its inputs go through Load_ (an empty base: the op's layout is
// unchanged), its output through Store_.
template <class D_, class Load_ = DirectLoad, class Store_ = DirectStore<D_>>
struct Bwd : private Load_ {
  typedef D_ D;
  typedef Store_ Store;
  typedef typename D::T T;
  typedef typename D::M M;  // math type: float, double for F64
  typedef M Acc;
  typedef typename WsPair<M>::type Ws;
  static constexpr int NIN = 2;
  static constexpr bool BACKWARD = true;
  struct Fin {
    M s;
    int log;
  };

  const T* yv;
  const T* dy;
  T* dx;
  int log;
  M sc;  // the forward scale c

  __device__ __forceinline__ explicit Bwd(const Params& p)
      : Load_(p),
        yv(static_cast<const T*>(p.x)),
        dy(static_cast<const T*>(p.dy)),
        dx(static_cast<T*>(p.y)),
        log(p.log),
        sc(scale_of<M>(p)) {}

  __device__ __forceinline__ const T* src(int i) const { return i == 0 ? yv : dy; }
  // Σ dy (log_softmax) reads no y: the two-read bodies skip it in their
  // first read (a fifth of a long row's traffic).
  __device__ __forceinline__ bool stat_reads(int i) const { return i == 1 || !log; }
  __device__ __forceinline__ T* dst() const { return dx; }
  __device__ __forceinline__ M conv(int i, M v) const { return Load_::operator()(i, v); }
  static __device__ __forceinline__ M fill(int) { return 0.f; }

  static __device__ __forceinline__ Acc identity() { return 0.f; }
  static __device__ __forceinline__ Acc merge(Acc a, Acc b) { return a + b; }
  static __device__ __forceinline__ Acc shfl_xor(Acc a, int lane_mask) {
    return __shfl_xor_sync(0xffffffffu, a, lane_mask);
  }
  static __device__ __forceinline__ Ws to_ws(Acc a) { return Ws{0.f, a}; }
  static __device__ __forceinline__ Acc from_ws(Ws f) { return f.b; }

  // One gradient term.
  __device__ __forceinline__ M term(M yy, M g) const { return log ? g : g * yy; }

  // A row cached in registers (see Fwd::reduce_cached): the sum of its
  // terms, per pack, pairwise across packs, then over the row's threads.
  template <class Red, int N>
  __device__ __forceinline__ Fin reduce_cached(M (&b)[NIN][N], const NoMoreValues& = NoMoreValues()) const {
    constexpr int P = D::P, Q = N / P;
    M ps[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      ps[q] = 0.f;
#pragma unroll
      for (int e = 0; e < P; ++e) ps[q] += term(b[0][q * P + e], b[1][q * P + e]);
    }
    return finalize(Red::template run<Bwd>(pairwise_sum<Q>(ps)));
  }

  template <int N, int K>
  __device__ __forceinline__ void out_cached(const M (&b)[NIN][N], int k0, M (&o)[K], const Fin& f) const {
    out_vals(b, k0, o, f);
  }

  template <int N>
  __device__ __forceinline__ void push(Acc& a, M& c, const M (&b)[NIN][N]) const {
    M local = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) local += term(b[0][k], b[1][k]);
    kadd(a, c, local);
  }

  __device__ __forceinline__ void push1(Acc& a, M& c, M yy, M g) const { kadd(a, c, term(yy, g)); }

  static __device__ __forceinline__ Acc fold(Acc a, M c) { return a - c; }

  __device__ __forceinline__ Fin finalize(Acc a) const { return Fin{a, log}; }

  __device__ __forceinline__ M out1(M yy, M g, const Fin& f) const {
    return sc * (f.log ? g - fexp(yy) * f.s : yy * (g - f.s));
  }

  template <int N, int K>
  __device__ __forceinline__ void out_vals(const M (&b)[NIN][N], int k0, M (&o)[K], const Fin& f) const {
    if (f.log) {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = sc * (b[1][k0 + e] - fexp(b[0][k0 + e]) * f.s);
    } else {
#pragma unroll
      for (int e = 0; e < K; ++e) o[e] = sc * b[0][k0 + e] * (b[1][k0 + e] - f.s);
    }
  }
};

// Loads pack [col, col+P) of every input of op (row at element offset off,
// length n) into b[i][k0 .. k0+P), converted (and scaled for Fwd).
template <class Op, int N>
__device__ __forceinline__ void load_vals(const Op& op, typename Op::M (&b)[Op::NIN][N], int k0, i64 off, i64 col, i64 n,
                                          bool vec) {
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) ld_pack<Op, false>(op, i, op.src(i) + off, nullptr, col, n, vec, &b[i][k0]);
}

// Re-reads a pack of a row copy in shared memory (input i at stash + i*stride).
template <class Op, int N>
__device__ __forceinline__ void load_vals_smem(const Op& op, typename Op::M (&b)[Op::NIN][N], int k0, i64 col, i64 n, bool vec,
                                               const typename Op::T* stash, i64 stride) {
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) ld_pack<Op, false>(op, i, stash + i * stride, nullptr, col, n, vec, &b[i][k0]);
}

// Loads one element of every input at element index idx.
template <class Op>
__device__ __forceinline__ void load1(const Op& op, i64 idx, typename Op::M& v0, typename Op::M& v1) {
  typedef typename Op::D D;
  v0 = op.conv(0, D::to_f(op.src(0)[idx]));
  v1 = Op::NIN > 1 ? op.conv(1, D::to_f(op.src(Op::NIN - 1)[idx])) : v0;
}

}  // namespace smx
