// xent_plain.cuh: the passes of xent.cu's plain rows (kernels.XentPlain:
// no softcap, weights or label smoothing; rows of whole 16-byte packs from
// aligned starts), cached in registers and shared memory or streamed.
//
// Included by xent.cu after xent.cuh.
#pragma once

namespace smx {

// The plain rows' passes (xent_row): whole packs, k*NT + t of a thread, at
// most npk a row (int: cached rows are far below 2^31 elements).

// exp of a plain row's exponent (<= 0 but for rounding, or NaN): for 16-bit
// logits fexp_fast (math.cuh: within 3e-6 relative where a term carries
// weight; their gradient rounds to 16 bits), fexp_nonpos for f32 and f64.
template <class D, class M>
__device__ __forceinline__ M xent_ex(M x) {
  if constexpr (D::FAST_EXP)
    return fexp_fast<D::FTZ_EXP>(x);
  else
    return fexp_nonpos(x);
}
template <class D, int NT, int PACKS>
__device__ __forceinline__ void xent_plain_load(const typename D::T* row, int npk, V16 (&cache)[PACKS]) {
#pragma unroll
  for (int k = 0; k < PACKS; ++k)
    if (k * NT + (int)threadIdx.x < npk) cache[k] = ld16(row + (k * NT + threadIdx.x) * D::P);
}

// A thread's packs of a plain cached row: N of them, pack k at index
// (K0 + k)*NT + t of the row, in registers (Regs) or in the shared-memory
// stash of the "_s" kernels (Stash: slot k*NT + t, only this thread's).
template <int N>
struct XRegs {
  V16 (&c)[N];
  __device__ __forceinline__ V16& operator[](int k) const { return c[k]; }
};
template <int NT>
struct XStash {
  V16* s;
  __device__ __forceinline__ V16& operator[](int k) const { return s[k * NT + threadIdx.x]; }
};

// The stash's packs, copied by cp.async behind the register loads.
template <class D, int NT, int K0, int NS>
__device__ __forceinline__ void xent_stash_load(const typename D::T* row, int npk, V16* stash) {
#pragma unroll
  for (int k = 0; k < NS; ++k) {
    const int q = (K0 + k) * NT + (int)threadIdx.x;
    if (q < npk) cp_async16(stash + k * NT + threadIdx.x, row + q * D::P);
  }
  cp_async_commit();
}

// The max of z = x·scale over the packs, from m. The thread holding the
// target's pack writes z_t to *zt (t < 0: none), so no thread waits on a
// load of x[t] before its row loads.
template <class D, int NT, int K0, int N, class Packs, class M = typename D::M>
__device__ __forceinline__ M xent_plain_max(M m, M scale, int npk, const Packs& c, int t, M* zt) {
  const int tq = t < 0 ? -1 : t / D::P, te = t - tq * D::P;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int q = (K0 + k) * NT + (int)threadIdx.x;
    if (q < npk) {
      M z[D::P];
      D::unpack(c[k], z);
#pragma unroll
      for (int e = 0; e < D::P; ++e) m = fmax2(m, z[e] * scale);
      if (q == tq) {
#pragma unroll
        for (int e = 0; e < D::P; ++e)
          if (e == te) *zt = z[e] * scale;
      }
    }
  }
  return m;
}

// The sum of exp(z − sm) over the packs, from d. Where the storage holds
// the math type (f32, f64), the exps replace the cached logits, and the
// gradient pass scales them (xent_plain_grad_kept).
template <class D>
__device__ __forceinline__ constexpr bool xent_keeps_exps() {
  return sizeof(typename D::T) == sizeof(typename D::M);
}

template <class D, int NT, int K0, int N, class Packs, class M = typename D::M>
__device__ __forceinline__ M xent_plain_sum(M d, M scale, M sm, int npk, const Packs& c) {
#pragma unroll
  for (int k = 0; k < N; ++k)
    if ((K0 + k) * NT + (int)threadIdx.x < npk) {
      M z[D::P];
      D::unpack(c[k], z);
#pragma unroll
      for (int e = 0; e < D::P; ++e) {
        z[e] = xent_ex<D>(z[e] * scale - sm);
        d += z[e];
      }
      if constexpr (xent_keeps_exps<D>()) c[k] = D::pack(z);
    }
  return d;
}

// Pack q of a plain row's gradient, g_j = scale·(A·exp(z_j − lse) −
// T·[j = t]): xent_grad_pack without the options (z_j − lse <= 0, or NaN),
// stored whole.
template <class D, class M = typename D::M>
__device__ __forceinline__ void xent_plain_grad_pack(M scale, M lse, M A, M T, int t, int q, const V16& raw,
                                                     typename D::T* gr) {
  M z[D::P], g[D::P];
  D::unpack(raw, z);
#pragma unroll
  for (int e = 0; e < D::P; ++e) {
    M o = A * xent_ex<D>(z[e] * scale - lse);
    if (q * D::P + e == t) o -= T;
    g[e] = o * scale;
  }
  st_cs(gr + q * D::P, D::pack(g));
}

// The plain cached rows' gradient from the exps xent_plain_sum kept:
// A·exp(z_j − lse) = e_j·(A/d), d the row's sum (a row of −inf or with a
// NaN or +inf: e_j/d is NaN, as exp(z_j − lse) is).
template <class D, int NT, int K0, int N, class Packs, class M = typename D::M>
__device__ __forceinline__ void xent_plain_grad_kept(M scale, M Ard, M T, int t, int npk, const Packs& c,
                                                     typename D::T* gr) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int q = (K0 + k) * NT + (int)threadIdx.x;
    if (q < npk) {
      M e[D::P];
      D::unpack(c[k], e);
#pragma unroll
      for (int i = 0; i < D::P; ++i) {
        M o = e[i] * Ard;
        if (q * D::P + i == t) o -= T;
        e[i] = o * scale;
      }
      st_cs(gr + q * D::P, D::pack(e));
    }
  }
}

// The plain cached rows' gradient from the logits (16-bit rows, and
// backward from a saved lse).
template <class D, int NT, int K0, int N, class Packs, class M = typename D::M>
__device__ __forceinline__ void xent_plain_grad(M scale, M lse, M A, M T, int t, int npk, const Packs& c,
                                                typename D::T* gr) {
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int q = (K0 + k) * NT + (int)threadIdx.x;
    if (q < npk) xent_plain_grad_pack<D>(scale, lse, A, T, t, q, c[k], gr);
  }
}

// Packs a thread loads before using them in the streaming kernels.
constexpr int XU = 4;

// The plain streamed rows' two passes: online (m, d) over XU packs at a
// time (one rescale a group), then the gradient from the second read.
// FAST takes xent_ex's exps (the sharded record pass: 16-bit rows stream
// at the memory's speed only so, -s71.txt call 5).
template <class D, int NT, bool FAST = false, class M = typename D::M>
__device__ __forceinline__ void xent_plain_stream(M scale, const typename D::T* row, int npk, XStat<M>& s) {
  constexpr int P = D::P;
  for (int q0 = threadIdx.x; q0 < npk; q0 += XU * NT) {
    V16 raw[XU];
#pragma unroll
    for (int u = 0; u < XU; ++u) {
      raw[u].w[0] = raw[u].w[1] = raw[u].w[2] = raw[u].w[3] = 0;  // masked below
      if (q0 + u * NT < npk) raw[u] = ld16(row + (q0 + u * NT) * P);
    }
    M z[XU][P], gm = s.m;
#pragma unroll
    for (int u = 0; u < XU; ++u) {
      D::unpack(raw[u], z[u]);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        z[u][e] = q0 + u * NT < npk ? z[u][e] * scale : (M)neg_inf();
        gm = fmax2(gm, z[u][e]);
      }
    }
    const M sg = safe(gm);
    M d = s.d * fexp_nonpos(s.m - sg);
#pragma unroll
    for (int u = 0; u < XU; ++u)
#pragma unroll
      for (int e = 0; e < P; ++e) d += FAST ? xent_ex<D>(z[u][e] - sg) : fexp_nonpos(z[u][e] - sg);
    s.m = gm;
    s.d = d;
  }
}

template <class D, int NT, class M = typename D::M>
__device__ __forceinline__ void xent_plain_stream_grad(M scale, M lse, M A, M T, int t, const typename D::T* row,
                                                       int npk, typename D::T* gr) {
  constexpr int P = D::P;
  for (int q0 = threadIdx.x; q0 < npk; q0 += XU * NT) {
    V16 raw[XU];
#pragma unroll
    for (int u = 0; u < XU; ++u)
      if (q0 + u * NT < npk) raw[u] = ld16(row + (q0 + u * NT) * P);
#pragma unroll
    for (int u = 0; u < XU; ++u) {
      const int q = q0 + u * NT;
      if (q < npk) xent_plain_grad_pack<D>(scale, lse, A, T, t, q, raw[u], gr);
    }
  }
}

// The "_tail" kernels: plain rows longer than the cache, whose packs
// from K0·NT on (thread t's k·NT + t, k >= K0, as the cache's) stream
// twice. XT packs a thread in flight beside the cache's registers (the
// stash's cp.async loads are in flight too).
constexpr int XT = 2;

// Pass one over the tail: online (m, d), one rescale a group, its exps as
// the cached part's (xent_ex). The thread holding the target's pack writes
// z_t to *zt (t < 0: none).
template <class D, int NT, int K0, class M = typename D::M>
__device__ __forceinline__ void xent_tail_stream(M scale, const typename D::T* row, int npk, int t, M* zt, M& m,
                                                 M& d) {
  constexpr int P = D::P;
  const int tq = t < 0 ? -1 : t / P, te = t - tq * P;
  for (int q0 = K0 * NT + (int)threadIdx.x; q0 < npk; q0 += XT * NT) {
    V16 raw[XT];
#pragma unroll
    for (int u = 0; u < XT; ++u) {
      raw[u].w[0] = raw[u].w[1] = raw[u].w[2] = raw[u].w[3] = 0;  // masked below
      if (q0 + u * NT < npk) raw[u] = ld16(row + (q0 + u * NT) * P);
    }
    M z[XT][P], gm = m;
#pragma unroll
    for (int u = 0; u < XT; ++u) {
      const int q = q0 + u * NT;
      D::unpack(raw[u], z[u]);
#pragma unroll
      for (int e = 0; e < P; ++e) {
        z[u][e] = q < npk ? z[u][e] * scale : (M)neg_inf();
        gm = fmax2(gm, z[u][e]);
        if (q == tq && e == te) *zt = z[u][e];
      }
    }
    const M sg = safe(gm);
    M dd = d * fexp_nonpos(m - sg);
#pragma unroll
    for (int u = 0; u < XT; ++u)
#pragma unroll
      for (int e = 0; e < P; ++e) dd += xent_ex<D>(z[u][e] - sg);
    m = gm;
    d = dd;
  }
}

// Pass two over the tail: its gradient from a second read, last group
// first, so the packs pass one read last (still in L2) come first.
template <class D, int NT, int K0, class M = typename D::M>
__device__ __forceinline__ void xent_tail_grad(M scale, M lse, M A, M T, int t, const typename D::T* row, int npk,
                                               typename D::T* gr) {
  constexpr int G = XT * NT, q1 = K0 * NT;
  if (npk <= q1) return;
  for (int q0 = q1 + (npk - 1 - q1) / G * G + (int)threadIdx.x; q0 >= q1; q0 -= G) {
    V16 raw[XT];
#pragma unroll
    for (int u = 0; u < XT; ++u)
      if (q0 + u * NT < npk) raw[u] = ld16(row + (q0 + u * NT) * D::P);
#pragma unroll
    for (int u = 0; u < XT; ++u) {
      const int q = q0 + u * NT;
      if (q < npk) xent_plain_grad_pack<D>(scale, lse, A, T, t, q, raw[u], gr);
    }
  }
}

}  // namespace smx
