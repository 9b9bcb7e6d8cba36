// shard.cuh: softmax, log-sum-exp and cross-entropy over a class axis split
// across ranks (issue 77; the arithmetic is internal/shard's). Each rank's x
// holds rows × v: columns [lo, lo + v) of vall. Included at the end of
// xent.cu, whose helpers it uses; the kernels take XParams.
//
//   shard_stats  a rank's record of each row over its columns, 4 math-type
//                values (m, d, z_t, dot): the max of z, Σ exp(z − m), the
//                target's z when this rank owns it (else 0) and Σ w_j z_j
//                (label smoothing), into rec (rows × 4).
//   (the ranks all-gather the records: rec becomes nranks × rows × 4)
//   shard_apply  merges a row's nranks records (max, rescaled sums; z_t and
//                dot add, only the owner's z_t being nonzero) and writes
//                what op asks: softmax or log-softmax into grad, or the
//                cross-entropy's lse, loss and gradient (xent_row's with
//                v = vall, the weights indexed globally).
//   shard_dot    a rank's Σ dy·y (softmax) or Σ dy (log-softmax) of each
//                row into rec (rows); the ranks all-reduce it (sum);
//   shard_bwd    dx = s·y·(dy − Σ) or s·(dy − exp(y)·Σ) from it.
// A block a row (grid-stride), the row streamed from its 16-byte boundary
// as xent_row's streaming kernels (XU packs in flight).
#pragma once

namespace smx {

// The options with the weights moved to this rank's columns (w[col] is the
// weight of global column lo + col).
template <class M>
__device__ __forceinline__ XOpt<M> shard_opt(const XParams& p) {
  XOpt<M> o(p);
  if (o.w) o.w += p.lo;
  return o;
}

// Plain calls (kernels.XentPlain's test: no softcap, weights or label
// smoothing, rows of whole packs from aligned starts, vector stores) take
// xent_row's plain streaming passes, float math only as there.
template <class D>
__device__ __forceinline__ bool shard_plain(const XParams& p) {
  return sizeof(typename D::M) == 4 && p.softcap == 0 && !p.w && p.eps == 0 && p.v % D::P == 0 && p.vec &&
         p.v < (1LL << 30) && (reinterpret_cast<unsigned long long>(p.x) & 15) == 0;
}

template <class D, int NT>
__device__ __forceinline__ void shard_stats(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int P = D::P;
  __shared__ M sh_a[32], sh_b[32], sh_c[32];
  if (p.bad && p.bad[0] >= 0) return;  // a bad target: write nothing
  const XOpt<M> o = shard_opt<M>(p);
  const long long v = p.v;
  const bool plain = shard_plain<D>(p);
  M* rec = static_cast<M*>(p.rec);
  for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
    __syncthreads();  // the previous row's reads of the shared arrays
    const T* xr = static_cast<const T*>(p.x) + r * v;
    const int lead = (int)((reinterpret_cast<unsigned long long>(xr) & 15) / sizeof(T));
    const long long npk = (lead + v + P - 1) / P;
    XStat<M> s{(M)neg_inf(), 0, 0};
    if (plain) {
      xent_plain_stream<D, NT, true>(o.scale, xr, (int)npk, s);
    } else {
      xent_stream<D, NT>(xr - lead, lead, v, npk, [&](long long q, const V16& raw) {
        M z[P];
        bool in[P];
        xent_unpack<D>(o, raw, q * P - lead, v, z, in);
        xent_acc<D>(o, s, z, in, q * P - lead);
      });
    }
    const M m = xblock_max<NT>(s.m, sh_a);
    const M d = xblock_sum<NT>(s.d * fexp_nonpos(s.m - safe(m)), sh_b);
    const M dot = o.eps != 0 ? xblock_sum<NT>(s.dot, sh_c) : (M)0;
    if (threadIdx.x == 0) {
      const long long tg = xent_target(p, r), t = tg - p.lo;
      M zt = 0;
      if (tg != p.ignore && t >= 0 && t < v) {
        M xt = D::to_f(xr[t]);
        if (o.cap > 0) xt = xent_softcap(xt, o.cap);
        zt = xt * o.scale;
      }
      M* out = rec + r * SH_REC;
      out[0] = m;
      out[1] = d;
      out[2] = zt;
      out[3] = dot;
    }
  }
}

// A row's merged statistics: the max, the sum of exps against it, z_t
// (0 when no rank owns the target) and Σ w_j z_j.
template <class M>
struct ShRow {
  M m, d, zt, dot;
};

template <class M>
__device__ __forceinline__ ShRow<M> shard_merge(const XParams& p, long long r) {
  const M* rec = static_cast<const M*>(p.rec);
  const long long stride = p.rows * SH_REC;
  ShRow<M> g{(M)neg_inf(), 0, 0, 0};
  for (int k = 0; k < p.nranks; ++k) g.m = fmax2(g.m, rec[k * stride + r * SH_REC]);
  for (int k = 0; k < p.nranks; ++k) {
    const M* e = rec + k * stride + r * SH_REC;
    g.d += e[1] * fexp_nonpos(e[0] - safe(g.m));
    g.zt += e[2];
    g.dot += e[3];
  }
  return g;
}

template <class D, int NT>
__device__ __forceinline__ void shard_apply(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int P = D::P;
  if (p.bad && p.bad[0] >= 0) return;
  const XOpt<M> o = shard_opt<M>(p);
  const long long v = p.v;
  const bool plain = shard_plain<D>(p);
  for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
    const ShRow<M> g = shard_merge<M>(p, r);
    const M lse = g.m == (M)__int_as_float(0x7f800000) ? (M)qnan() : g.m + flog(g.d);
    const T* xr = static_cast<const T*>(p.x) + r * v;
    T* yr = p.grad ? static_cast<T*>(p.grad) + r * v : nullptr;
    const int lead = (int)((reinterpret_cast<unsigned long long>(xr) & 15) / sizeof(T));
    const long long npk = (lead + v + P - 1) / P;
    if (p.op != SH_XENT) {
      if (threadIdx.x == 0 && p.lse) {
        if (p.flags & XF_LSE_NATIVE)
          static_cast<T*>(p.lse)[r] = D::from_f(lse);
        else
          static_cast<M*>(p.lse)[r] = lse;
      }
      if (!yr) continue;
      // Softmax as the single-GPU kernels: exp(z − m)/d.
      const M sm = safe(g.m), inv = (M)1 / g.d;
      const bool lg = p.op == SH_LOG;
      if (plain) {
        xent_stream<D, NT>(xr, 0, v, npk, [&](long long q, const V16& raw) {
          M z[P];
          D::unpack(raw, z);
#pragma unroll
          for (int e = 0; e < P; ++e) z[e] = lg ? z[e] * o.scale - lse : xent_ex<D>(z[e] * o.scale - sm) * inv;
          st_cs(yr + q * P, D::pack(z));
        });
        continue;
      }
      xent_stream<D, NT>(xr - lead, lead, v, npk, [&](long long q, const V16& raw) {
        M z[P];
        bool in[P];
        xent_unpack<D>(o, raw, q * P - lead, v, z, in);
#pragma unroll
        for (int e = 0; e < P; ++e) z[e] = lg ? z[e] - lse : fexp(z[e] - sm) * inv;
        xent_store<D>(p, yr, q * P - lead, v, z);
      });
      continue;
    }
    const long long tg = xent_target(p, r), t = tg - p.lo;
    const bool ign = tg == p.ignore;
    const M wt = ign ? (M)0 : (p.w ? (M)p.w[tg] : (M)1);
    if (threadIdx.x == 0) {
      if (p.lse) static_cast<M*>(p.lse)[r] = lse;
      if (p.loss) static_cast<M*>(p.loss)[r] = ign ? (M)0 : xent_loss(p, o, wt, lse, g.zt, g.dot, p.vall);
    }
    if (!yr) continue;
    if (ign) {
      __syncthreads();  // in place: every thread's reads of the row
      xent_zero<D, NT>(yr, v);
      continue;
    }
    const M l = p.lse_in ? static_cast<const M*>(p.lse_in)[r] : lse;  // the backward's saved lse
    const XGrad<M> k = xent_grad_consts(p, o, r, wt, l, p.vall);
    if (plain) {
      xent_plain_stream_grad<D, NT>(o.scale, l, k.A, k.T, t >= 0 && t < v ? (int)t : -1, xr, (int)npk, yr);
      continue;
    }
    xent_stream<D, NT>(xr - lead, lead, v, npk, [&](long long q, const V16& raw) {
      M z[P], gr[P];
      bool in[P];
      xent_unpack<D>(o, raw, q * P - lead, v, z, in);
      xent_grad_pack<D>(o, z, in, q * P - lead, t, l, k.A, k.C, k.T, gr);
      xent_store<D>(p, yr, q * P - lead, v, gr);
    });
  }
}

// The softmax backward's row sums over this rank's columns: y in x, dy in
// dy (same 16-byte skew when p.vec, else element by element).
template <class D, int NT>
__device__ __forceinline__ void shard_dot(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int P = D::P;
  __shared__ M sh[32];
  const long long v = p.v;
  const bool lg = p.op == SH_LOG;
  for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
    __syncthreads();
    const T* yr = static_cast<const T*>(p.x) + r * v;
    const T* dyr = static_cast<const T*>(p.dy) + r * v;
    M s = 0;
    if (p.vec) {
      const int lead = (int)((reinterpret_cast<unsigned long long>(yr) & 15) / sizeof(T));
      const long long npk = (lead + v + P - 1) / P;
      xent_stream<D, NT>(dyr - lead, lead, v, npk, [&](long long q, const V16& raw) {
        M dy[P], y[P];
        D::unpack(raw, dy);
        if (!lg) D::unpack(xent_load<D>(yr - lead, q, lead, v), y);
        const long long col = q * P - lead;  // a pack's elements outside the row are its neighbours'
#pragma unroll
        for (int e = 0; e < P; ++e)
          if (col + e >= 0 && col + e < v) s += lg ? dy[e] : dy[e] * y[e];
      });
    } else {
      for (long long j = threadIdx.x; j < v; j += NT) s += (M)D::to_f(dyr[j]) * (lg ? (M)1 : (M)D::to_f(yr[j]));
    }
    s = xblock_sum<NT>(s, sh);
    if (threadIdx.x == 0) static_cast<M*>(p.rec)[r] = s;
  }
}

template <class D, int NT>
__device__ __forceinline__ void shard_bwd(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int P = D::P;
  const long long v = p.v;
  const bool lg = p.op == SH_LOG;
  const M sc = (M)p.scale;
  for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
    const M s = static_cast<const M*>(p.rec)[r];
    const T* yr = static_cast<const T*>(p.x) + r * v;
    const T* dyr = static_cast<const T*>(p.dy) + r * v;
    T* dxr = static_cast<T*>(p.grad) + r * v;
    auto dx = [&](M y, M dy) { return lg ? sc * (dy - fexp(y) * s) : sc * y * (dy - s); };
    if (p.vec) {
      const int lead = (int)((reinterpret_cast<unsigned long long>(yr) & 15) / sizeof(T));
      const long long npk = (lead + v + P - 1) / P;
      xent_stream<D, NT>(yr - lead, lead, v, npk, [&](long long q, const V16& raw) {
        M y[P], dy[P];
        D::unpack(raw, y);
        D::unpack(xent_load<D>(dyr - lead, q, lead, v), dy);
#pragma unroll
        for (int e = 0; e < P; ++e) y[e] = dx(y[e], dy[e]);
        xent_store<D>(p, dxr, q * P - lead, v, y);
      });
    } else {
      for (long long j = threadIdx.x; j < v; j += NT) dxr[j] = D::from_f(dx((M)D::to_f(yr[j]), (M)D::to_f(dyr[j])));
    }
  }
}

}  // namespace smx
