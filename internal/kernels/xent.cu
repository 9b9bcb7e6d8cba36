// xent.cu: fused cross-entropy (issue 73): loss, per-row log-sum-exp and the
// gradient d loss/d logits in the pass that reads the logits; its backward
// from a saved lse; log p[target]; and the log-sum-exp of rows.
//
// Semantics are internal/xent's (torch's F.cross_entropy plus scale, z-loss
// and softcap): z = scale·cap·tanh(x/cap); lse = log Σ exp z;
// loss = (1−ε)·w_t·(lse − z_t) + ε/V·(W·lse − Σ w_j z_j) + zl·lse²;
// d loss/d z_j = g·(A·p_j − C·w_j − T·[j = t]) (xent.RowGrad), times dz/dx.
// Arithmetic is float32 whatever the storage, float64 for f64 (the math
// type D::M; the option scalars arrive as doubles and are rounded to it).
//
// Three kernels a call, in one stream:
//   xent_prep   one block: checks the targets (the first row whose target is
//               outside [0, V) and not the ignore index goes to bad[0], its
//               target to bad[1]), sums Σ w_t and the count of the rows not
//               ignored and W = Σ_j w_j into stats.
//   xent_row    a block a row (grid-stride over rows): with PACKS > 0 the
//               row's 16-byte packs are cached in registers (PACKS a
//               thread), so the logits are read once and the gradient
//               written once; PACKS = 0 streams the row twice (statistics,
//               then the gradient), the second read mostly from L2; the
//               "_tail" kernels (plain calls) cache a longer row's first
//               part and stream only the rest twice.
//               Nothing is written when prep flagged a bad target.
//   xent_final  one block: the reduced loss from the per-row losses.
// LogSumExp along another axis than the last runs xent_prep (no targets)
// and xent_lse_cols, which reads columns.
// Rows are read from the 16-byte boundary at or before their start (as the
// "_shift" kernels of bodies.cuh), so ragged V keeps 16-byte loads; a pack
// that would cross the row's end is read element by element. Indexing is
// 64-bit throughout.
#include "common.cuh"
#include "xent.cuh"
#include "xent_plain.cuh"

// XENT_KERNEL(name, bounds, body): the extern "C" kernel taking one
// smx::XParams by value (SMX_KERNEL's twin for this file's parameter).
#define XENT_KERNEL(NAME, BOUNDS, ...)                                                 \
  extern "C" __global__ void __launch_bounds__(BOUNDS) NAME(const smx::XParams p) { \
    __VA_ARGS__(p);                                                                    \
  }

namespace smx {

__device__ __forceinline__ long long xent_target(const XParams& p, long long r) {
  if (p.flags & XF_NOTGT) return p.ignore;
  return (p.flags & XF_T64) ? static_cast<const long long*>(p.tgt)[r] : (long long)static_cast<const int*>(p.tgt)[r];
}

// cap·tanh(x/cap): Cephes' tanhf polynomial for small arguments, else
// 1 − 2/(exp(2y)+1) (internal/cpu's softcap32): ±inf give ±cap.
__device__ __forceinline__ float xent_softcap(float x, float cap) {
  float y = x / cap;
  if (y > -0.625f && y < 0.625f) {
    const float z = y * y;
    y += ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z + 1.33314422036e-1f) * z -
          3.33332819422e-1f) *
         z * y;
  } else {
    y = 1.f - 2.f / (fexp(2.f * y) + 1.f);
  }
  return cap * y;
}

// The float64 twin: CUDA's tanh (an ulp or two), as internal/cpu's
// math.Tanh.
__device__ __forceinline__ double xent_softcap(double x, double cap) { return cap * tanh(x / cap); }

// The options in the math type M of a row kernel, rounded once.
template <class M>
struct XOpt {
  M scale, cap, eps, zloss;
  const float* w;
  __device__ __forceinline__ explicit XOpt(const XParams& p)
      : scale((M)p.scale), cap((M)p.softcap), eps((M)p.eps), zloss((M)p.zloss), w(p.w) {}
};

// Block reductions over NT threads (a multiple of 32) in float or double;
// sh holds 32 values.
// Each caller passes its own array; a row's reductions run in a fixed
// order, and the loop over rows starts each row with a barrier.
template <int NT, class M>
__device__ __forceinline__ M xblock_max(M v, M* sh) {
  constexpr int NW = NT / 32;
  for (int o = 16; o > 0; o >>= 1) v = fmax2(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  v = (M)neg_inf();
#pragma unroll
  for (int k = 0; k < NW; ++k) v = fmax2(v, sh[k]);
  return v;
}

template <int NT, class M>
__device__ __forceinline__ M xblock_sum(M v, M* sh) {
  constexpr int NW = NT / 32;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  v = 0;
#pragma unroll
  for (int k = 0; k < NW; ++k) v += sh[k];
  return v;
}

// The block's (max, sum of exps against it) from each thread's (m, d), d
// its sum of exps against safe(m): a warp's max, its sum moved to it, then
// warp 0 merges the warps' pairs the same way. Two barriers, as xblock_max
// and xblock_sum take, but every thread's exps run before the first
// (LOCAL_FIRST in ops.cuh says why). -inf, NaN and +inf as md_merge.
template <int NT, class M>
__device__ __forceinline__ void xblock_md(M& m, M& d, M* sha, M* shb) {
  constexpr int NW = NT / 32;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  M wm = m;
  for (int o = 16; o > 0; o >>= 1) wm = fmax2(wm, __shfl_xor_sync(0xffffffffu, wm, o));
  M wd = d * fexp_nonpos(m - safe(wm));
  for (int o = 16; o > 0; o >>= 1) wd += __shfl_xor_sync(0xffffffffu, wd, o);
  if (lane == 0) {
    sha[w] = wm;
    shb[w] = wd;
  }
  __syncthreads();
  if (w == 0) {
    const M bm = lane < NW ? sha[lane] : (M)neg_inf(), bd = lane < NW ? shb[lane] : (M)0;
    M mm = bm;
    for (int o = 16; o > 0; o >>= 1) mm = fmax2(mm, __shfl_xor_sync(0xffffffffu, mm, o));
    M dd = bd * fexp_nonpos(bm - safe(mm));
    for (int o = 16; o > 0; o >>= 1) dd += __shfl_xor_sync(0xffffffffu, dd, o);
    if (lane == 0) {
      sha[0] = mm;
      shb[0] = dd;
    }
  }
  __syncthreads();
  m = sha[0];
  d = shb[0];
}

// Loads pack q of a row (from its 16-byte boundary lead elements before
// the row) as raw storage: 16 bytes at once unless the pack crosses the
// row's end, which is read element by element (the allocation may end
// there). Elements outside the row are left 0 (masked by xent_unpack).
template <class D>
__device__ __forceinline__ V16 xent_load(const typename D::T* base, long long q, int lead, long long v) {
  typedef typename D::T T;
  constexpr int P = D::P;
  const long long col = q * P - lead;
  if (col + P <= v) return ld16(base + q * P);
  V16 r;
  r.w[0] = r.w[1] = r.w[2] = r.w[3] = 0;
  T* e = reinterpret_cast<T*>(&r);
#pragma unroll
  for (int i = 0; i < P; ++i)
    if (col + i >= 0 && col + i < v) e[i] = base[q * P + i];
  return r;
}

// Unpacks a pack to z = scale·softcap(x); elements outside the row are −inf
// and in[e] false.
template <class D, class M = typename D::M>
__device__ __forceinline__ void xent_unpack(const XOpt<M>& o, const V16& r, long long col, long long v, M* z,
                                            bool* in) {
  constexpr int P = D::P;
  D::unpack(r, z);
#pragma unroll
  for (int e = 0; e < P; ++e) {
    in[e] = col + e >= 0 && col + e < v;
    M x = z[e];
    if (o.cap > 0) x = xent_softcap(x, o.cap);
    z[e] = in[e] ? x * o.scale : (M)neg_inf();
  }
}

template <class D, class M = typename D::M>
__device__ __forceinline__ void xent_acc(const XOpt<M>& o, XStat<M>& s, const M* z, const bool* in, long long col) {
  constexpr int P = D::P;
  M pm = s.m;
#pragma unroll
  for (int e = 0; e < P; ++e) pm = fmax2(pm, z[e]);
  M d = s.d * fexp_nonpos(s.m - safe(pm));
#pragma unroll
  for (int e = 0; e < P; ++e)
    if (in[e]) d += fexp_nonpos(z[e] - safe(pm));
  s.m = pm;
  s.d = d;
  if (o.eps != 0) {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (in[e]) s.dot += (o.w ? (M)o.w[col + e] : (M)1) * z[e];
  }
}

// The gradient of one pack into g (math type M), from z and the row constants.
template <class D, class M = typename D::M>
__device__ __forceinline__ void xent_grad_pack(const XOpt<M>& op, const M* z, const bool* in, long long col,
                                               long long t, M lse, M A, M C, M T, M* g) {
  constexpr int P = D::P;
#pragma unroll
  for (int e = 0; e < P; ++e) {
    M o = A * fexp(z[e] - lse);
    if (C != 0) o -= C * (op.w && in[e] ? (M)op.w[col + e] : (M)1);
    if (col + e == t) o -= T;
    o *= op.scale;
    if (op.cap > 0) {
      const M y = z[e] / (op.scale * op.cap);  // tanh(x/cap)
      o *= 1 - y * y;
    }
    g[e] = in[e] ? o : (M)0;
  }
}

// A row's loss (xent.Options.Loss) from its lse, z_t, Σ w_j z_j and the
// target's weight wt; v is the class count ε/V divides by.
template <class M>
__device__ __forceinline__ M xent_loss(const XParams& p, const XOpt<M>& o, M wt, M lse, M zt, M dot, long long v) {
  M l = (1 - o.eps) * wt * (lse - zt) + o.zloss * lse * lse;
  if (o.eps != 0) l += o.eps / (M)v * ((M)p.stats[2] * lse - dot);
  return l;
}

// A row's gradient constants (xent.Options.Grad): d loss/d z_j =
// A·p_j − C·w_j − T·[j = t].
template <class M>
struct XGrad {
  M A, C, T;
};

template <class M>
__device__ __forceinline__ XGrad<M> xent_grad_consts(const XParams& p, const XOpt<M>& o, long long r, M wt, M lse,
                                                     long long v) {
  M gs = (M)p.gout;
  if (p.flags & XF_MEAN) gs = p.stats[1] > 0 ? (M)(p.gout / p.stats[0]) : (M)0;
  if (p.grows) gs *= static_cast<const M*>(p.grows)[r];
  M A = (1 - o.eps) * wt + 2 * o.zloss * lse, C = 0;
  if (o.eps != 0) {
    A += o.eps / (M)v * (M)p.stats[2];
    C = gs * o.eps / (M)v;
  }
  return XGrad<M>{A * gs, C, gs * (1 - o.eps) * wt};
}

// Stores pack q of a gradient row gr (same skew as x when vec: whole packs
// inside the row go 16 bytes at once).
template <class D>
__device__ __forceinline__ void xent_store(const XParams& p, typename D::T* gr, long long col, long long v,
                                           const typename D::M* g) {
  constexpr int P = D::P;
  if (p.vec && col >= 0 && col + P <= v) {
    st_cs(gr + col, D::pack(g));
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (col + e >= 0 && col + e < v) gr[col + e] = D::from_f(g[e]);
  }
}

// Streams a row's packs from base (its 16-byte boundary, lead elements
// before the row), XU a thread in flight, calling f(q, raw) for each of
// this thread's packs.
template <class D, int NT, class F>
__device__ __forceinline__ void xent_stream(const typename D::T* base, int lead, long long v, long long npk, F f) {
  for (long long q0 = threadIdx.x; q0 < npk; q0 += XU * NT) {
    V16 raw[XU];
#pragma unroll
    for (int u = 0; u < XU; ++u)
      if (q0 + u * NT < npk) raw[u] = xent_load<D>(base, q0 + u * NT, lead, v);
#pragma unroll
    for (int u = 0; u < XU; ++u) {
      const long long q = q0 + u * NT;
      if (q < npk) f(q, raw[u]);
    }
  }
}

// Zeroes a gradient row (ignored rows).
template <class D, int NT>
__device__ __forceinline__ void xent_zero(typename D::T* gr, long long v) {
  for (long long j = threadIdx.x; j < v; j += NT) gr[j] = D::from_f(0);
}

// One block a row; PACKS > 0 caches the row in registers (the planner
// launches it only for rows of at most NT·PACKS packs from their 16-byte
// boundary), PACKS = 0 streams it. PLAIN kernels ("_plain") serve only
// plain calls (kernels.XentPlain: no softcap, weights or label smoothing,
// rows of whole packs from aligned starts) and the others none: compiled
// apart, the plain passes keep the registers the options would take.
// NS > 0 (plain only, the "_s" kernels): NS more packs a thread in dynamic
// shared memory (NS·NT·16 bytes), for rows longer than the registers hold.
// TAIL (plain only, the "_tail" kernels): the packs past the cache stream
// twice (xent_tail_stream, xent_tail_grad), so rows of any length keep
// their first NT·(PACKS + NS) packs on chip.
template <class D, int NT, int PACKS, bool PLAIN = false, int NS = 0, bool TAIL = false>
__device__ __forceinline__ void xent_row(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int P = D::P;
  static_assert(NS == 0 || (PLAIN && PACKS > 0), "a stash extends a plain register cache");
  static_assert(!TAIL || (PLAIN && PACKS > 0), "a tail follows a plain register cache");
  constexpr int KT = PACKS + NS;  // a tail kernel's first streamed pack of a thread
  V16* const stash = NS > 0 ? static_cast<V16*>(dyn_smem()) : nullptr;
  V16 cache[PACKS > 0 ? PACKS : 1];
  const XRegs<(PACKS > 0 ? PACKS : 1)> regs{cache};
  const XStash<NT> st{stash};
  __shared__ M sh_a[32], sh_b[32], sh_c[32], sh_row[2];
  if (p.bad[0] >= 0) return;  // a bad target: write nothing
  const XOpt<M> o(p);
  const long long v = p.v;
  const T* x = static_cast<const T*>(p.x);
  T* grad = static_cast<T*>(p.grad);
  M* loss = static_cast<M*>(p.loss);
  const M* lse_in = static_cast<const M*>(p.lse_in);
  if (PLAIN && !(o.cap == 0 && !o.w && o.eps == 0 && v % P == 0 && p.vec && v < (1LL << 30) &&
                 (reinterpret_cast<unsigned long long>(x) & 15) == 0))
    __trap();  // a host bug: the call needs the general kernel
  // The next row's target loads during this row: the ignore test waits on it.
  long long t_next = blockIdx.x < p.rows ? xent_target(p, blockIdx.x) : 0;
  for (long long r = blockIdx.x; r < p.rows; r += gridDim.x) {
    __syncthreads();  // the previous row's reads of the shared arrays
    const long long t = t_next;
    if (r + gridDim.x < p.rows) t_next = xent_target(p, r + gridDim.x);
    const bool ign = t == p.ignore;
    const T* xr = x + r * v;
    T* gr = grad ? grad + r * v : nullptr;
    if (ign && !p.lse) {
      if (threadIdx.x == 0 && loss) loss[r] = 0;
      if (gr) xent_zero<D, NT>(gr, v);
      continue;
    }
    const int lead = (int)((reinterpret_cast<unsigned long long>(xr) & 15) / sizeof(T));
    const T* base = xr - lead;
    const long long npk = (lead + v + P - 1) / P;
    // Plain rows (no softcap, weights or label smoothing; every row of whole
    // packs from an aligned start): the cached kernels' passes without the
    // per-element options, masks and 64-bit column tests (xent_row_plain).
    constexpr bool plain = PLAIN;
    // Plain cached rows take z_t from the register cache (xent_plain_max).
    const bool zt_cached = plain && PACKS > 0 && !lse_in;
    if (threadIdx.x == 0 && !zt_cached) {
      M zt = 0;
      if (!ign) {
        M xt = D::to_f(xr[t]);
        if (o.cap > 0) xt = xent_softcap(xt, o.cap);
        zt = xt * o.scale;
      }
      sh_row[0] = zt;
    }
    M lse, Ard = 0;  // Ard: w/d for xent_plain_grad_kept (times A there)
    // Plain cached rows take their exps against each thread's own max and
    // reduce (max, sum) pairs (xblock_md); w moves a thread's exps to the
    // row max.
    constexpr bool local_first = plain && PACKS > 0;
    M w = 1;
    if (lse_in) {
      lse = lse_in[r];
      __syncthreads();  // sh_row
    } else {
      XStat<M> s{(M)neg_inf(), 0, 0};
      M m, dl;  // the row max; the thread's sum of exps against it
      if constexpr (PACKS > 0) {
        if (plain) {
          const int tt = ign ? -1 : (int)t;
          xent_plain_load<D, NT, PACKS>(base, (int)npk, cache);
          if constexpr (NS > 0) xent_stash_load<D, NT, PACKS, NS>(base, (int)npk, stash);
          M tm = (M)neg_inf(), td = 0;  // the tail's (m, d), while the cache's loads are in flight
          if constexpr (TAIL) xent_tail_stream<D, NT, KT>(o.scale, base, (int)npk, tt, &sh_row[0], tm, td);
          M mt = xent_plain_max<D, NT, 0, PACKS>((M)neg_inf(), o.scale, (int)npk, regs, tt, &sh_row[0]);
          if constexpr (NS > 0) {
            cp_async_wait(0);  // this thread's stash slots (no other thread reads them)
            mt = xent_plain_max<D, NT, PACKS, NS>(mt, o.scale, (int)npk, st, tt, &sh_row[0]);
          }
          dl = xent_plain_sum<D, NT, 0, PACKS>((M)0, o.scale, safe(mt), (int)npk, regs);
          if constexpr (NS > 0) dl = xent_plain_sum<D, NT, PACKS, NS>(dl, o.scale, safe(mt), (int)npk, st);
          m = mt;
          if constexpr (TAIL) {  // the thread's (max, sum) over the cache and its tail
            m = fmax2(mt, tm);
            dl = dl * fexp_nonpos(mt - safe(m)) + td * fexp_nonpos(tm - safe(m));
          }
          xblock_md<NT>(m, dl, sh_a, sh_b);  // m, dl: the row's
          w = fexp_nonpos(mt - safe(m));
        } else {
          // Cached rows: the thread's max, the block's, then one exp an
          // element against it (no per-pack rescale of an online sum).
#pragma unroll
          for (int k = 0; k < PACKS; ++k) {
            const long long q = (long long)k * NT + threadIdx.x;
            if (q < npk) cache[k] = xent_load<D>(base, q, lead, v);
          }
#pragma unroll
          for (int k = 0; k < PACKS; ++k) {
            const long long q = (long long)k * NT + threadIdx.x;
            if (q < npk) {
              M z[P];
              bool in[P];
              xent_unpack<D>(o, cache[k], q * P - lead, v, z, in);
#pragma unroll
              for (int e = 0; e < P; ++e) s.m = fmax2(s.m, z[e]);
            }
          }
          m = xblock_max<NT>(s.m, sh_a);
          const M sm = safe(m);
          dl = 0;
#pragma unroll
          for (int k = 0; k < PACKS; ++k) {
            const long long q = (long long)k * NT + threadIdx.x;
            if (q < npk) {
              M z[P];
              bool in[P];
              xent_unpack<D>(o, cache[k], q * P - lead, v, z, in);
#pragma unroll
              for (int e = 0; e < P; ++e)
                if (in[e]) dl += fexp_nonpos(z[e] - sm);
              if (o.eps != 0) {
#pragma unroll
                for (int e = 0; e < P; ++e)
                  if (in[e]) s.dot += (o.w ? (M)o.w[q * P - lead + e] : (M)1) * z[e];
              }
            }
          }
        }
      } else {
        // XU packs a thread in flight: enough bytes for the latency with
        // one 1024-thread block an SM.
        if (plain && sizeof(M) == 4) {  // f64: the general pass measured faster (-s68-c7.txt)
          xent_plain_stream<D, NT>(o.scale, base, (int)npk, s);
        } else {
          xent_stream<D, NT>(base, lead, v, npk, [&](long long q, const V16& raw) {
            M z[P];
            bool in[P];
            xent_unpack<D>(o, raw, q * P - lead, v, z, in);
            xent_acc<D>(o, s, z, in, q * P - lead);
          });
        }
        m = xblock_max<NT>(s.m, sh_a);
        dl = s.d * fexp_nonpos(s.m - safe(m));
      }
      const M d = local_first ? dl : xblock_sum<NT>(dl, sh_b);
      Ard = w / d;
      lse = m == (M)__int_as_float(0x7f800000) ? (M)qnan() : m + flog(d);
      if (o.eps != 0) s.dot = xblock_sum<NT>(s.dot, sh_c);
      if (threadIdx.x == 0) {
        if (p.lse) {
          if (p.flags & XF_LSE_NATIVE)
            static_cast<T*>(p.lse)[r] = D::from_f(lse);
          else
            static_cast<M*>(p.lse)[r] = lse;
        }
        if (loss) {
          M l = 0;
          if (ign) {
          } else if (p.flags & XF_TLP) {
            l = sh_row[0] - lse;
          } else {
            l = xent_loss(p, o, o.w ? (M)o.w[t] : (M)1, lse, sh_row[0], s.dot, v);
          }
          loss[r] = l;
        }
      }
    }
    if (!gr) continue;
    if (ign) {
      __syncthreads();  // every thread's reads of the row (in place)
      xent_zero<D, NT>(gr, v);
      continue;
    }
    const XGrad<M> k = xent_grad_consts(p, o, r, o.w ? (M)o.w[t] : (M)1, lse, v);
    const M A = k.A, C = k.C, Tt = k.T;
    if constexpr (PACKS > 0) {
      if (plain) {
        // The tail first (forward): the packs pass one read last are in L2.
        if constexpr (TAIL)
          if (!lse_in) xent_tail_grad<D, NT, KT>(o.scale, lse, A, Tt, (int)t, base, (int)npk, gr);
        if (lse_in) {  // backward: not cached yet
          xent_plain_load<D, NT, PACKS>(base, (int)npk, cache);
          if constexpr (NS > 0) xent_stash_load<D, NT, PACKS, NS>(base, (int)npk, stash);
          xent_plain_grad<D, NT, 0, PACKS>(o.scale, lse, A, Tt, (int)t, (int)npk, regs, gr);
          if constexpr (NS > 0) {
            cp_async_wait(0);
            xent_plain_grad<D, NT, PACKS, NS>(o.scale, lse, A, Tt, (int)t, (int)npk, st, gr);
          }
          if constexpr (TAIL) xent_tail_grad<D, NT, KT>(o.scale, lse, A, Tt, (int)t, base, (int)npk, gr);
        } else if constexpr (xent_keeps_exps<D>()) {
          xent_plain_grad_kept<D, NT, 0, PACKS>(o.scale, A * Ard, Tt, (int)t, (int)npk, regs, gr);
          if constexpr (NS > 0) xent_plain_grad_kept<D, NT, PACKS, NS>(o.scale, A * Ard, Tt, (int)t, (int)npk, st, gr);
        } else {
          xent_plain_grad<D, NT, 0, PACKS>(o.scale, lse, A, Tt, (int)t, (int)npk, regs, gr);
          if constexpr (NS > 0) xent_plain_grad<D, NT, PACKS, NS>(o.scale, lse, A, Tt, (int)t, (int)npk, st, gr);
        }
      } else {
        if (lse_in) {  // backward: the row is not cached yet
#pragma unroll
          for (int k = 0; k < PACKS; ++k) {
            const long long q = (long long)k * NT + threadIdx.x;
            if (q < npk) cache[k] = xent_load<D>(base, q, lead, v);
          }
        }
#pragma unroll
        for (int k = 0; k < PACKS; ++k) {
          const long long q = (long long)k * NT + threadIdx.x;
          if (q < npk) {
            M z[P], g[P];
            bool in[P];
            xent_unpack<D>(o, cache[k], q * P - lead, v, z, in);
            xent_grad_pack<D>(o, z, in, q * P - lead, t, lse, A, C, Tt, g);
            xent_store<D>(p, gr, q * P - lead, v, g);
          }
        }
      }
    } else {
      if (!lse_in) __syncthreads();  // in place: every read of pass one first
      if (plain && sizeof(M) == 4) {
        xent_plain_stream_grad<D, NT>(o.scale, lse, A, Tt, (int)t, base, (int)npk, gr);
        continue;
      }
      xent_stream<D, NT>(base, lead, v, npk, [&](long long q, const V16& raw) {
        M z[P], g[P];
        bool in[P];
        xent_unpack<D>(o, raw, q * P - lead, v, z, in);
        xent_grad_pack<D>(o, z, in, q * P - lead, t, lse, A, C, Tt, g);
        xent_store<D>(p, gr, q * P - lead, v, g);
      });
    }
  }
}

// The log-sum-exp along a non-last axis: x is rows × v (the axis) × inner,
// lse rows × inner in x's dtype. A block takes tiles of 32 consecutive
// columns of one row (grid-stride): lane tx a column, the NT/32 warps
// stride along the axis (each warp's loads 32 consecutive elements), then
// warp 0 combines their online (m, d) from shared memory. Same NaN and
// ±inf rules as xent_row.
template <class D, int NT>
__device__ __forceinline__ void xent_lse_cols(const XParams& p) {
  typedef typename D::T T;
  typedef typename D::M M;
  constexpr int NY = NT / 32;
  __shared__ M sh_m[NY][32], sh_d[NY][32];
  const M scale = (M)p.scale;
  const T* x = static_cast<const T*>(p.x);
  T* dst = static_cast<T*>(p.lse);
  const long long inner = p.inner, per = (inner + 31) / 32, tiles = p.rows * per;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  for (long long k = blockIdx.x; k < tiles; k += gridDim.x) {
    const long long r = k / per, c = (k % per) * 32 + tx;
    M m = (M)neg_inf(), d = 0;
    if (c < inner) {
      const T* col = x + r * p.v * inner + c;
      for (long long a = ty; a < p.v; a += NY) {
        const M z = (M)D::to_f(col[a * inner]) * scale;
        const M nm = fmax2(m, z);
        d = d * fexp_nonpos(m - safe(nm)) + fexp_nonpos(z - safe(nm));
        m = nm;
      }
    }
    __syncthreads();  // the previous tile's reads of sh_m, sh_d
    sh_m[ty][tx] = m;
    sh_d[ty][tx] = d;
    __syncthreads();
    if (ty == 0 && c < inner) {
      M mm = (M)neg_inf(), dd = 0;
#pragma unroll
      for (int y = 0; y < NY; ++y) mm = fmax2(mm, sh_m[y][tx]);
#pragma unroll
      for (int y = 0; y < NY; ++y) dd += sh_d[y][tx] * fexp_nonpos(sh_m[y][tx] - safe(mm));
      dst[r * inner + c] = D::from_f(mm == (M)__int_as_float(0x7f800000) ? (M)qnan() : mm + flog(dd));
    }
  }
}

// One block of 1024 threads: target checks and the mean's denominators.
__device__ __forceinline__ void xent_prep(const XParams& p) {
  constexpr int NT = 1024;
  __shared__ double sh_w[NT], sh_n[NT], sh_W[NT];
  __shared__ long long sh_bad[NT];
  double w = 0, n = 0, W = 0;
  long long bad = -1;
  for (long long r = threadIdx.x; r < p.rows; r += NT) {
    const long long t = xent_target(p, r);
    if (t == p.ignore) continue;
    if (t < 0 || t >= p.v) {
      if (bad < 0) bad = r;
      continue;
    }
    n += 1;
    w += p.w ? (double)p.w[t] : 1.0;
  }
  if (p.w) {
    for (long long j = threadIdx.x; j < p.v; j += NT) W += p.w[j];
  } else if (threadIdx.x == 0) {
    W = (double)p.v;
  }
  sh_w[threadIdx.x] = w;
  sh_n[threadIdx.x] = n;
  sh_W[threadIdx.x] = W;
  sh_bad[threadIdx.x] = bad;
  __syncthreads();
  for (int s = NT / 2; s > 0; s >>= 1) {
    if ((int)threadIdx.x < s) {
      sh_w[threadIdx.x] += sh_w[threadIdx.x + s];
      sh_n[threadIdx.x] += sh_n[threadIdx.x + s];
      sh_W[threadIdx.x] += sh_W[threadIdx.x + s];
      const long long o = sh_bad[threadIdx.x + s];
      if (o >= 0 && (sh_bad[threadIdx.x] < 0 || o < sh_bad[threadIdx.x])) sh_bad[threadIdx.x] = o;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    p.stats[0] = sh_w[0];
    p.stats[1] = sh_n[0];
    p.stats[2] = sh_W[0];
    p.bad[0] = sh_bad[0];
    p.bad[1] = sh_bad[0] >= 0 ? xent_target(p, sh_bad[0]) : 0;
  }
}

// One block of 1024 threads: out = Σ loss (sum), or / Σ w_t (mean; NaN when
// every row is ignored), summed in double in a fixed order; float per-row
// losses and out, double with XF_F64.
__device__ __forceinline__ void xent_final(const XParams& p) {
  constexpr int NT = 1024;
  __shared__ double sh[NT];
  if (p.bad[0] >= 0) return;
  const bool f64 = p.flags & XF_F64;
  double s = 0;
  for (long long r = threadIdx.x; r < p.rows; r += NT)
    s += f64 ? static_cast<const double*>(p.loss)[r] : (double)static_cast<const float*>(p.loss)[r];
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int k = NT / 2; k > 0; k >>= 1) {
    if ((int)threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    double out = sh[0];
    if (p.flags & XF_MEAN) out = p.stats[1] > 0 ? out / p.stats[0] : (double)qnan();
    if (f64)
      *static_cast<double*>(p.out) = out;
    else
      *static_cast<float*>(p.out) = (float)out;
  }
}

}  // namespace smx

#include "shard.cuh"
