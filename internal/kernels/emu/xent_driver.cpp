// Host emulator driver of the cross-entropy kernels (xent.cu): runs
// xent_prep, each row kernel and xent_final on random rows (special values
// in the first ones) for every dtype and a set of option combinations, and
// compares loss, lse and gradient with a float64 reference of
// internal/xent's semantics; then the sharded kernels (shard.cuh) on the
// same rows split over four ranks, and the sharded softmax family. See
// xent_run.sh.
#include "common.cuh"
#include "xent.cuh"
#include "xent_plain.cuh"  // XT
#include <cmath>
#include <map>
#include <string>
#include <vector>
#include <random>
#include <algorithm>
#include <cstring>
#define K(s) extern "C" void s(const smx::XParams);
#include "xtable.inc"
#undef K
namespace emu { void launch(void (*fn)(const smx::Params), dim3 grid, dim3 block, size_t smem, const smx::Params& p); }
static std::map<std::string, void (*)(const smx::XParams)> table = {
#define K(s) {#s, s},
#include "xtable.inc"
#undef K
};
static void (*g_xfn)(const smx::XParams);
static smx::XParams g_xp;
static void tramp(const smx::Params) { g_xfn(g_xp); }
static void launch(const std::string& sym, unsigned grid, unsigned block, const smx::XParams& p, size_t smem = 0) {
  auto it = table.find(sym);
  if (it == table.end()) { printf("no kernel %s\n", sym.c_str()); exit(2); }
  g_xfn = it->second; g_xp = p;
  smx::Params dummy{};
  emu::launch(tramp, dim3{grid, 1, 1}, dim3{block, 1, 1}, smem, dummy);
}
// dt: 0 f32, 1 f16, 2 bf16, 3 f64 (double storage and math).
static int esize(int dt) { return dt == 0 ? 4 : dt == 3 ? 8 : 2; }
static const char* dname(int dt) { return dt == 0 ? "f32" : dt == 1 ? "f16" : dt == 2 ? "bf16" : "f64"; }
static double ld(int dt, const char* b, long long i) {
  if (dt == 3) { double f; memcpy(&f, b + 8 * i, 8); return f; }
  if (dt == 0) { float f; memcpy(&f, b + 4 * i, 4); return f; }
  smx::u16 h; memcpy(&h, b + 2 * i, 2);
  return dt == 1 ? smx::h2f(h) : __uint_as_float(((unsigned)h) << 16);
}
static void st(int dt, char* b, long long i, double v) {
  if (dt == 3) { memcpy(b + 8 * i, &v, 8); return; }
  if (dt == 0) { float f = (float)v; memcpy(b + 4 * i, &f, 4); return; }
  smx::u16 h = dt == 1 ? smx::f2h((float)v) : smx::f2bf((float)v);
  memcpy(b + 2 * i, &h, 2);
}
struct Opt { const char* name; double eps, zl, cap, scale; bool w, mean, sum, grows, inplace, skew, bwd, tlp, lseonly, t64; long long ignore; };
static double closeness(double got, double ref, double tol, double mag) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0 : 1e9;
  if (std::isinf(ref) || std::isinf(got)) return ref == got ? 0 : 1e9;
  return fabs(got - ref) / (tol * (fabs(ref) + mag) + 1e-30);
}
int main() {
  std::mt19937_64 rng(73);
  std::normal_distribution<double> nd(0, 2);
  const Opt opts[] = {
    {"plain", 0, 0, 0, 1, false, true, false, false, false, false, false, false, false, false, -100},
    {"sum+skew", 0, 0, 0, 1, false, false, true, false, false, true, false, false, false, true, -100},
    {"none+grows", 0, 0, 0, 1, false, false, false, true, false, false, false, false, false, false, -100},
    {"eps", 0.1, 0, 0, 1, false, true, false, false, false, false, false, false, false, false, -100},
    {"weights", 0, 0, 0, 1, true, true, false, false, false, false, false, false, false, false, -100},
    {"zloss", 0, 1e-2, 0, 1, false, true, false, false, false, false, false, false, false, false, -100},
    {"softcap", 0, 0, 5, 1, false, true, false, false, false, false, false, false, false, false, -100},
    {"scale", 0, 0, 0, 0.5, false, true, false, false, false, false, false, false, false, false, 3},
    {"all+inplace", 0.2, 1e-3, 4, 1.5, true, true, false, false, true, true, false, false, false, true, -100},
    {"bwd", 0.1, 1e-3, 3, 0.7, true, false, false, true, false, false, true, false, false, false, -100},
    {"bwd+inplace", 0, 0, 0, 1, false, true, false, false, true, true, true, false, false, false, -100},
    {"tlp", 0, 0, 6, 0.8, false, false, false, false, false, false, false, true, false, false, -100},
    {"lse", 0, 0, 0, 1, false, false, false, false, false, true, false, false, true, false, -100},
    // Plain twins of the three above (the stash and tail kernels serve plain calls only).
    {"bwd+inplace+plain", 0, 0, 0, 1, false, true, false, false, true, false, true, false, false, false, -100},
    {"tlp+plain", 0, 0, 0, 0.8, false, false, false, false, false, false, false, true, false, false, -100},
    {"lse+plain", 0, 0, 0, 1, false, false, false, false, false, false, false, false, true, false, -100},
  };
  // 8 and 1000: whole packs (the plain kernels); 30000 and 70000 only for
  // the stash and tail kernels, whose rows pass their registers' part.
  const long long Vs[] = {1, 5, 8, 33, 781, 1000, 30000, 70000};
  const struct { int threads, packs, stash; bool tail; } rowk[] = {
      {128, 4, 0, false}, {256, 4, 0, false}, {256, 8, 0, false}, {512, 8, 0, false}, {1024, 8, 0, false},
      {1024, 8, 8, false}, {1024, 8, 12, false}, {1024, 8, 8, true}, {1024, 8, 12, true}, {1024, 0, 0, false},
      {512, 0, 0, false}};
  int ncase = 0, nfail = 0, nplain = 0, ngeneral = 0, ntail = 0, ntailpast = 0, nshard = 0;
  double worst[4] = {0, 0, 0, 0};
  for (int dt = 0; dt < 4; ++dt) {
  // Rows past the stash for the tail kernels (tail_lens): a few packs past
  // either cache, and a tail of two groups of XT packs a thread and a ragged
  // third past the larger.
  std::vector<long long> vs(std::begin(Vs), std::end(Vs));
  const long long P0 = 16 / esize(dt), c8 = 1024LL * 16 * P0, c12 = 1024LL * 20 * P0;
  const long long tail_lens[] = {c8 + 3 * P0, c12 + 3 * P0, c12 + (2 * smx::XT * 1024 + 37) * P0};
  vs.insert(vs.end(), std::begin(tail_lens), std::end(tail_lens));
  for (long long V : vs)
  for (const Opt& o : opts)
  for (auto rk : rowk) {
    const long long cap = (long long)rk.threads * (rk.packs + rk.stash) * (16 / esize(dt));
    if (rk.packs > 0 && !rk.tail && cap < V + 16 / esize(dt) && !(rk.stash > 0 && cap == V)) continue;
    const bool big = V >= 30000;
    if (big != (rk.stash > 0)) continue;
    const bool plain_opt = o.cap == 0 && !o.w && o.eps == 0 && !o.skew;
    if (rk.stash > 0 && (!plain_opt || (long long)rk.threads * rk.packs * (16 / esize(dt)) >= V)) continue;
    // The longest rows: the tail kernels alone, on the options that differ
    // in their passes (forward, backward in place, loss only, lse only).
    if (V > 70000 && (!rk.tail || (strcmp(o.name, "plain") && strcmp(o.name, "bwd+inplace+plain") &&
                                   strcmp(o.name, "tlp+plain") && strcmp(o.name, "lse+plain"))))
      continue;
    // Keep the run short: the smallest and largest cached kernels, and the
    // streaming one on two ragged V.
    if (rk.threads == 256 || (rk.threads == 512 && rk.packs == 8)) continue;
    if (rk.packs == 0 && V != 5 && V != 781 && V != 1000) continue;
    ++ncase;
    const long long rows = 9;
    const int es = esize(dt), P = 16 / es, G = 64;
    const long long n = rows * V;
    long long off = o.skew ? es : 0;
    std::vector<char> xb(n * es + 2 * G + 32), gb(n * es + 2 * G + 32, 0x7b);
    auto base = [&](std::vector<char>& v, long long k) { return (char*)((((uintptr_t)v.data() + G + 15) & ~(uintptr_t)15) + k); };
    char* X = base(xb, off);
    char* GR = o.inplace ? X : base(gb, off);
    std::vector<long long> tg(rows);
    std::vector<float> w(V);
    // Per-row buffers in the math type: float, double for f64 (XF_F64).
    const bool f64 = dt == 3;
    std::vector<double> grows(rows), lsein(rows), loss(rows + 1, NAN), lse(rows + 1, NAN), out(1, NAN);
    std::vector<float> grows32(rows), lsein32(rows), loss32(rows + 1, NAN), lse32(rows + 1, NAN), out32(1, NAN);
    for (auto& x : w) x = (float)std::uniform_real_distribution<double>(0, 2)(rng);
    for (long long r = 0; r < rows; ++r) {
      grows[r] = nd(rng);
      grows32[r] = (float)grows[r];
      tg[r] = (long long)(rng() % V);
      for (long long j = 0; j < V; ++j) st(dt, X, r * V + j, nd(rng));
    }
    // Special rows: ignored, a masked vocabulary, a NaN, all −inf but the target.
    tg[1] = o.ignore;
    if (V > 2) { for (long long j = 0; j < V; j += 2) st(dt, X, 2 * V + j, -INFINITY); tg[2] = 1; }
    if (V > 3 && !o.bwd) st(dt, X, 3 * V + V / 2, NAN);
    if (o.bwd) tg[4] = o.ignore;
    for (long long j = 0; j < V; ++j) if (j != tg[5]) st(dt, X, 5 * V + j, -INFINITY);
    if (rk.tail && V > cap) {
      // Targets at either end of the tail and at the cache's last element;
      // a row whose cached part is all −inf, one whose tail is, a NaN in a tail.
      tg[0] = V - 1;
      tg[6] = cap;
      tg[7] = cap - 1;
      for (long long j = 0; j < cap; ++j) st(dt, X, 6 * V + j, -INFINITY);
      for (long long j = cap; j < V; ++j) st(dt, X, 7 * V + j, -INFINITY);
      if (!o.bwd) st(dt, X, 8 * V + V - 2, NAN);
    }
    std::vector<double> xs(n);
    for (long long i = 0; i < n; ++i) xs[i] = ld(dt, X, i);
    // Reference.
    auto zf = [&](double x) { double c = o.cap > 0 ? o.cap * tanh(x / o.cap) : x; return c * o.scale; };
    std::vector<double> rl(rows), rlse(rows), rg(n), rc(n);
    double wsum = 0, cnt = 0, W = 0;
    for (long long j = 0; j < V; ++j) W += o.w ? w[j] : 1;
    for (long long r = 0; r < rows; ++r) if (tg[r] != o.ignore) { cnt++; wsum += o.w ? w[tg[r]] : 1; }
    double gscale = o.mean ? (cnt > 0 ? 1.0 / wsum : 0) : 1.0;
    for (long long r = 0; r < rows; ++r) {
      double m = -INFINITY, d = 0, dot = 0;
      for (long long j = 0; j < V; ++j) m = std::max(m, zf(xs[r * V + j]));
      bool poison = false;
      for (long long j = 0; j < V; ++j) { double z = zf(xs[r * V + j]); if (std::isnan(z) || z == INFINITY) poison = true; if (m > -INFINITY) d += exp(z - m); dot += (o.w ? w[j] : 1) * z; }
      double l = poison ? NAN : m == -INFINITY ? -INFINITY : m + log(d);
      rlse[r] = l;
      lsein[r] = f64 ? l : (float)l;
      lsein32[r] = (float)l;
      if (o.bwd) l = lsein[r];
      long long t = tg[r];
      bool ign = t == o.ignore;
      double wt = ign ? 0 : o.w ? w[t] : 1;
      if (ign) rl[r] = 0;
      else if (o.tlp) rl[r] = zf(xs[r * V + t]) - l;
      else { rl[r] = (1 - o.eps) * wt * (l - zf(xs[r * V + t])) + o.zl * l * l; if (o.eps) rl[r] += o.eps / V * (W * l - dot); }
      double g = gscale * (o.grows ? (f64 ? grows[r] : grows32[r]) : 1);
      for (long long j = 0; j < V; ++j) {
        if (ign) { rg[r * V + j] = 0; continue; }
        double x = xs[r * V + j], z = zf(x), p = exp(z - l);
        double gj = (1 - o.eps) * wt * (p - (j == t)) + 2 * o.zl * l * p;
        if (o.eps) gj += o.eps / V * (W * p - (o.w ? w[j] : 1));
        // Its terms' size: float rounding of each, not of their difference.
        double cj = (1 - o.eps) * wt * (p + (j == t)) + 2 * o.zl * fabs(l) * p;
        if (o.eps) cj += o.eps / V * (W * p + (o.w ? w[j] : 1));
        double f = g * o.scale;
        if (o.cap > 0) { double y = tanh(x / o.cap); f *= 1 - y * y; }
        rg[r * V + j] = gj * f;
        rc[r * V + j] = cj * fabs(f);
      }
    }
    // Device-side buffers.
    std::vector<int> t32(rows);
    for (long long r = 0; r < rows; ++r) t32[r] = (int)tg[r];
    std::vector<double> stats(3, NAN);
    std::vector<long long> bad(2, 7);
    std::vector<char> lsenat(rows * es + 16, 0);
    smx::XParams p{};
    p.x = X; p.grad = (o.tlp || o.lseonly) ? nullptr : GR;
    p.tgt = o.lseonly ? nullptr : o.t64 ? (const void*)tg.data() : (const void*)t32.data();
    p.w = o.w ? w.data() : nullptr;
    p.loss = o.lseonly || o.bwd ? nullptr : f64 ? (void*)loss.data() : (void*)loss32.data();
    p.lse = o.lseonly ? (void*)lsenat.data() : o.bwd ? nullptr : f64 ? (void*)lse.data() : (void*)lse32.data();
    p.lse_in = o.bwd ? (f64 ? (const void*)lsein.data() : (const void*)lsein32.data()) : nullptr;
    p.grows = o.grows ? (f64 ? (const void*)grows.data() : (const void*)grows32.data()) : nullptr;
    p.stats = stats.data(); p.bad = bad.data(); p.out = f64 ? (void*)out.data() : (void*)out32.data();
    p.rows = rows; p.v = V; p.ignore = o.ignore; p.scale = o.scale; p.softcap = o.cap; p.eps = o.eps;
    p.zloss = o.zl; p.gout = 1;
    p.flags = (o.t64 ? smx::XF_T64 : 0) | (o.mean ? smx::XF_MEAN : 0) | (o.lseonly ? smx::XF_NOTGT | smx::XF_LSE_NATIVE : 0) | (o.tlp ? smx::XF_TLP : 0) | (f64 ? smx::XF_F64 : 0);
    p.vec = 1;
    emu::in_lo[0] = X; emu::in_hi[0] = X + n * es; emu::in_lo[1] = nullptr; emu::bad_reads = 0;
    char sym[64];
    // The "_plain" twins serve the plain calls, the others the rest (kernels.XentPlain).
    const bool plain = o.cap == 0 && !o.w && o.eps == 0 && V % (16 / es) == 0 && ((uintptr_t)X & 15) == 0 && p.vec &&
                       (rk.packs > 0 || dt != 3);  // f64 streams have no plain twin
    char st[16] = "";
    if (rk.stash > 0) snprintf(st, sizeof st, "_s%d", rk.stash);
    snprintf(sym, sizeof sym, "xent_row_%s_t%d_p%d%s%s%s", dname(dt), rk.threads, rk.packs, st, rk.tail ? "_tail" : "",
             plain ? "_plain" : "");
    ++(plain ? nplain : ngeneral);
    if (rk.tail) { ++ntail; ntailpast += V > cap; }
    launch("xent_prep", 1, 1024, p);
    launch(sym, 4, rk.threads, p, (size_t)rk.threads * rk.stash * 16);  // 4 blocks over 9 rows: the grid-stride loop
    bool reduce = !o.lseonly && !o.bwd && !o.tlp && (o.mean || o.sum);
    if (reduce) launch("xent_final", 1, 1024, p);
    bool fail = bad[0] != -1 || emu::bad_reads != 0;
    if (!f64) {
      for (long long r = 0; r <= rows; ++r) { loss[r] = loss32[r]; lse[r] = lse32[r]; }
      out[0] = out32[0];
    }
    double tol = dt == 0 ? 2e-5 : dt == 1 ? 2e-3 : dt == 2 ? 1.6e-2 : 1e-12;
    const double stol = f64 ? 1e-12 : 2e-5;  // loss and lse
    double e = 0;
    std::string where;
    auto chk = [&](double got, double ref, double t, double mag, const char* what, long long i) {
      double c = closeness(got, ref, t, mag);
      if (c > e) { e = c; char b[96]; snprintf(b, sizeof b, "%s[%lld] got %g want %g", what, i, got, ref); where = b; }
    };
    double rsum = 0;
    for (long long r = 0; r < rows; ++r) rsum += rl[r];
    for (long long r = 0; r < rows; ++r) {
      if (o.lseonly) chk(ld(dt, lsenat.data(), r), rlse[r], tol, 1, "lse", r);
      else if (!o.bwd) { chk(lse[r], rlse[r], stol, 1, "lse", r); if (!reduce) chk(loss[r], rl[r], stol, 1, "loss", r); }
    }
    if (reduce) chk(out[0], o.mean ? rsum / wsum : rsum, stol, 1, "out", 0);
    if (p.grad) {
      // f16 subnormals are 2^-24 apart.
      const double atol = dt == 1 ? 6e-8 / tol : 1e-30;
      for (long long i = 0; i < n; ++i) chk(ld(dt, GR, i), rg[i], tol, rc[i] + atol, "grad", i);
      if (!o.inplace) {
        char* g0 = base(gb, off);
        for (char* c = g0 - G; c < g0; ++c) if (*c != 0x7b) { fail = true; where += " guard before"; break; }
        for (char* c = g0 + n * es; c < g0 + n * es + G; ++c) if (*c != 0x7b) { fail = true; where += " guard after"; break; }
      }
    }
    worst[dt] = std::max(worst[dt], e);
    if (e > 1 || fail) {
      ++nfail;
      printf("FAIL %s %s V=%lld %s: err %.3g at %s (bad %lld, bad reads %lld)\n", sym, o.name, V, dname(dt), e, where.c_str(), bad[0], emu::bad_reads);
    }
    // The same rows split over four ranks (shard.cuh): a third, none, the
    // rest but one, one (V of whole 8-element packs: cuts at multiples of 8,
    // so that the plain passes run); each rank's columns in a buffer of the
    // row's skew.
    // Every rank's records are in one buffer, so the ranks' all-gather is
    // the buffer itself; rank 0's loss and lse and every rank's gradient are
    // checked against the reference.
    if (rk.packs == 0 && rk.threads == 1024 && !o.tlp && !o.lseonly && V >= 5) {
      ++ncase; ++nshard;
      const long long c1 = V % 8 ? V / 3 : V / 2 / 8 * 8, c3 = V % 8 ? V - 1 : V - 8;
      const long long cut[] = {0, c1, c1, c3, V};
      const int NR = 4;
      std::vector<std::vector<char>> xr(NR), gr(NR);
      std::vector<char*> XR(NR), GRr(NR);
      std::vector<double> rec(NR * rows * 4, NAN), sloss(rows + 1, NAN), slse(rows + 1, NAN), sout(1, NAN);
      std::vector<float> rec32(NR * rows * 4, NAN), sloss32(rows + 1, NAN), slse32(rows + 1, NAN), sout32(1, NAN);
      std::vector<double> sstats(3, NAN);
      std::vector<long long> sbad(2, 7);
      for (int k = 0; k < NR; ++k) {
        const long long w = cut[k + 1] - cut[k];
        xr[k].assign(rows * w * es + 2 * G + 32, 0);
        gr[k].assign(rows * w * es + 2 * G + 32, 0x7b);
        XR[k] = base(xr[k], off);
        GRr[k] = o.inplace ? XR[k] : base(gr[k], off);
        for (long long r = 0; r < rows; ++r)
          for (long long j = 0; j < w; ++j) ::st(dt, XR[k], r * w + j, xs[r * V + cut[k] + j]);
      }
      smx::XParams q = p;
      q.grad = GRr[0]; q.loss = o.bwd ? nullptr : f64 ? (void*)sloss.data() : (void*)sloss32.data();
      q.lse = o.bwd ? nullptr : f64 ? (void*)slse.data() : (void*)slse32.data();
      q.out = f64 ? (void*)sout.data() : (void*)sout32.data();
      q.stats = sstats.data(); q.bad = sbad.data(); q.vall = V; q.op = smx::SH_XENT;
      q.flags &= ~smx::XF_NOTGT;
      launch("xent_prep", 1, 1024, q);
      char ssym[64];
      for (int pass = o.bwd ? 1 : 0; pass < 2; ++pass)
        for (int k = 0; k < NR; ++k) {
          smx::XParams pk = q;
          pk.x = XR[k]; pk.grad = GRr[k]; pk.v = cut[k + 1] - cut[k]; pk.lo = cut[k];
          if (k > 0) { pk.loss = nullptr; pk.lse = nullptr; }
          void* recb = f64 ? (void*)rec.data() : (void*)rec32.data();
          pk.rec = pass == 0 ? (char*)recb + (size_t)k * rows * 4 * (f64 ? 8 : 4) : recb;
          pk.nranks = o.bwd ? 0 : NR;
          emu::in_lo[0] = XR[k]; emu::in_hi[0] = XR[k] + rows * pk.v * es;
          snprintf(ssym, sizeof ssym, "shard_%s_%s_t128", pass == 0 ? "stats" : "apply", dname(dt));
          launch(ssym, 2, 128, pk);
        }
      if (reduce) launch("xent_final", 1, 1024, q);
      if (!f64) {
        for (long long r = 0; r <= rows; ++r) { sloss[r] = sloss32[r]; slse[r] = slse32[r]; }
        sout[0] = sout32[0];
      }
      e = 0;
      where.clear();
      for (long long r = 0; r < rows && !o.bwd; ++r) {
        chk(slse[r], rlse[r], stol, 1, "shard lse", r);
        if (!reduce) chk(sloss[r], rl[r], stol, 1, "shard loss", r);
      }
      if (reduce) chk(sout[0], o.mean ? rsum / wsum : rsum, stol, 1, "shard out", 0);
      const double atol = dt == 1 ? 6e-8 / tol : 1e-30;
      for (int k = 0; k < NR; ++k) {
        const long long w = cut[k + 1] - cut[k];
        for (long long r = 0; r < rows; ++r)
          for (long long j = 0; j < w; ++j) {
            const long long i = r * V + cut[k] + j;
            chk(ld(dt, GRr[k], r * w + j), rg[i], tol, rc[i] + atol, "shard grad", i);
          }
      }
      worst[dt] = std::max(worst[dt], e);
      if (e > 1 || sbad[0] != -1 || emu::bad_reads != 0) {
        ++nfail;
        printf("FAIL shard %s V=%lld %s: err %.3g at %s (bad %lld, bad reads %lld)\n", o.name, V, dname(dt), e, where.c_str(), sbad[0], emu::bad_reads);
      }
    }
  }
  }
  // Log-sum-exp along a middle axis (xent_lse_cols): rows × V × inner, a
  // NaN and a −inf in the first column, two blocks over more tiles.
  for (int dt = 0; dt < 4; ++dt) {
    const struct { long long rows, v, inner; } shapes[] = {{3, 7, 33}, {2, 100, 2}, {1, 5, 65}, {4, 1, 40}};
    for (auto sh : shapes) {
      ++ncase;
      const int es = esize(dt);
      const long long n = sh.rows * sh.v * sh.inner, m = sh.rows * sh.inner;
      std::vector<char> xb(n * es + 16), db(m * es + 64, 0x7b);
      char* X = xb.data();
      for (long long i = 0; i < n; ++i) st(dt, X, i, nd(rng));
      st(dt, X, 0, -INFINITY);
      if (sh.v > 1) st(dt, X, sh.inner, NAN);  // column 0 of row 0: NaN
      const double scale = 0.7;
      std::vector<double> stats(3, NAN);
      std::vector<long long> bad(2, 7);
      smx::XParams p{};
      p.x = X; p.lse = db.data(); p.stats = stats.data(); p.bad = bad.data();
      p.rows = sh.rows; p.v = sh.v; p.inner = sh.inner; p.scale = scale; p.ignore = -100;
      p.flags = smx::XF_NOTGT | smx::XF_LSE_NATIVE | (dt == 3 ? smx::XF_F64 : 0);
      emu::in_lo[0] = X; emu::in_hi[0] = X + n * es; emu::in_lo[1] = nullptr; emu::bad_reads = 0;
      char sym[64];
      snprintf(sym, sizeof sym, "xent_lse_cols_%s_t256", dname(dt));
      launch("xent_prep", 1, 1024, p);
      launch(sym, 2, 256, p);
      const double tol = dt == 0 ? 2e-5 : dt == 1 ? 2e-3 : dt == 2 ? 1.6e-2 : 1e-12;
      double e = 0;
      std::string where;
      for (long long r = 0; r < sh.rows; ++r)
        for (long long c = 0; c < sh.inner; ++c) {
          double mx = -INFINITY, d = 0;
          bool nan = false;
          for (long long a = 0; a < sh.v; ++a) { double z = ld(dt, X, (r * sh.v + a) * sh.inner + c) * scale; nan |= std::isnan(z); mx = std::max(mx, z); }
          for (long long a = 0; a < sh.v; ++a) d += mx == -INFINITY ? 0 : exp(ld(dt, X, (r * sh.v + a) * sh.inner + c) * scale - mx);
          const double ref = nan ? NAN : mx == -INFINITY ? -INFINITY : mx + log(d);
          const double got = ld(dt, db.data(), r * sh.inner + c), cl = closeness(got, ref, tol, 1);
          if (cl > e) { e = cl; char b[96]; snprintf(b, sizeof b, "lse[%lld][%lld] got %g want %g", r, c, got, ref); where = b; }
        }
      bool guard = false;
      for (long long i = m * es; i < (long long)db.size(); ++i) guard |= db[i] != 0x7b;
      worst[dt] = std::max(worst[dt], e);
      if (e > 1 || guard || emu::bad_reads != 0) {
        ++nfail;
        printf("FAIL %s %lldx%lldx%lld: err %.3g at %s (guard %d, bad reads %lld)\n", sym, sh.rows, sh.v, sh.inner, e, where.c_str(), guard, emu::bad_reads);
      }
    }
  }
  // The sharded softmax family (shard.cuh) over four ranks: softmax and
  // log-softmax (shard_stats, shard_apply), the log-sum-exp in the logits'
  // dtype, and both gradients (shard_dot, the ranks' sums added as the
  // all-reduce would, shard_bwd), against a float64 reference; rows skewed
  // or aligned, a row of −inf in the first rank's columns, a NaN.
  for (int dt = 0; dt < 4; ++dt)
    for (long long V : {5LL, 33LL, 781LL, 1000LL})
      for (int skew = 0; skew < 2; ++skew) {
        ++ncase; ++nshard;
        const long long rows = 5;
        const int es = esize(dt), G = 64;
        const bool f64 = dt == 3;
        const double scale = 0.7, tol = dt == 0 ? 2e-5 : dt == 1 ? 2e-3 : dt == 2 ? 1.6e-2 : 1e-12;
        const long long c1 = V % 8 ? V / 3 : V / 2 / 8 * 8, c3 = V % 8 ? V - 1 : V - 8;
        const long long cut[] = {0, c1, c1, c3, V};
        const int NR = 4;
        std::vector<double> xs(rows * V), dys(rows * V);
        for (auto& x : xs) x = nd(rng);
        for (auto& x : dys) x = nd(rng);
        for (long long j = cut[0]; j < cut[1]; ++j) xs[1 * V + j] = -INFINITY;
        if (V > 3) xs[3 * V + 2] = NAN;
        auto base = [&](std::vector<char>& v) { return (char*)((((uintptr_t)v.data() + G + 15) & ~(uintptr_t)15) + skew * es); };
        std::vector<std::vector<char>> xb(NR), yb(NR), db(NR), lb(NR);
        std::vector<double> rec(NR * rows * 4), sums(NR * rows);
        std::vector<float> rec32(NR * rows * 4), sums32(NR * rows);
        // The stored (rounded) inputs, as the reference reads them.
        std::vector<double> xr(rows * V), dyr(rows * V);
        for (int k = 0; k < NR; ++k) {
          const long long w = cut[k + 1] - cut[k];
          for (auto* b : {&xb[k], &yb[k], &db[k]}) b->assign(rows * w * es + 2 * G + 32, 0);
          lb[k].assign(rows * es + 16, 0);
          for (long long r = 0; r < rows; ++r)
            for (long long j = 0; j < w; ++j) {
              ::st(dt, base(xb[k]), r * w + j, xs[r * V + cut[k] + j]);
              ::st(dt, base(db[k]), r * w + j, dys[r * V + cut[k] + j]);
              xr[r * V + cut[k] + j] = ld(dt, base(xb[k]), r * w + j);
              dyr[r * V + cut[k] + j] = ld(dt, base(db[k]), r * w + j);
            }
        }
        double e = 0;
        std::string where;
        auto chk = [&](double got, double ref, double t, double mag, const char* what, long long i) {
          double c = closeness(got, ref, t, mag);
          if (c > e) { e = c; char b[96]; snprintf(b, sizeof b, "%s[%lld] got %g want %g", what, i, got, ref); where = b; }
        };
        for (int op = 0; op < 2; ++op) {  // SH_SOFTMAX, SH_LOG
          char sym[64];
          smx::XParams q{};
          q.rows = rows; q.vall = V; q.scale = scale; q.ignore = -1; q.gout = 1; q.vec = 1; q.op = op;
          q.flags = smx::XF_NOTGT | smx::XF_LSE_NATIVE | (f64 ? smx::XF_F64 : 0);
          void* recb = f64 ? (void*)rec.data() : (void*)rec32.data();
          for (int pass = 0; pass < 2; ++pass)
            for (int k = 0; k < NR; ++k) {
              smx::XParams pk = q;
              pk.v = cut[k + 1] - cut[k]; pk.lo = cut[k];
              pk.x = base(xb[k]); pk.grad = base(yb[k]); pk.lse = lb[k].data();
              pk.rec = pass == 0 ? (char*)recb + (size_t)k * rows * 4 * (f64 ? 8 : 4) : recb;
              pk.nranks = NR;
              emu::in_lo[0] = base(xb[k]); emu::in_hi[0] = base(xb[k]) + rows * pk.v * es; emu::in_lo[1] = nullptr;
              snprintf(sym, sizeof sym, "shard_%s_%s_t128", pass == 0 ? "stats" : "apply", dname(dt));
              launch(sym, 2, 128, pk);
            }
          // The gradient of this op from its reference output y (stored) and dy.
          std::vector<double> yref(rows * V), lse(rows);
          for (long long r = 0; r < rows; ++r) {
            double m = -INFINITY, d = 0;
            bool nan = false;
            for (long long j = 0; j < V; ++j) { nan |= std::isnan(xr[r * V + j]); m = std::max(m, xr[r * V + j] * scale); }
            for (long long j = 0; j < V; ++j) d += m == -INFINITY ? 0 : exp(xr[r * V + j] * scale - m);
            lse[r] = nan ? NAN : m == -INFINITY ? -INFINITY : m + log(d);
            for (long long j = 0; j < V; ++j) yref[r * V + j] = op ? xr[r * V + j] * scale - lse[r] : exp(xr[r * V + j] * scale - lse[r]);
          }
          for (int k = 0; k < NR; ++k) {
            const long long w = cut[k + 1] - cut[k];
            for (long long r = 0; r < rows; ++r) {
              if (k == 0) chk(ld(dt, lb[k].data(), r), lse[r], tol, 1, op ? "log lse" : "lse", r);
              for (long long j = 0; j < w; ++j) {
                const long long i = r * V + cut[k] + j;
                chk(ld(dt, base(yb[k]), r * w + j), yref[i], tol, op ? 1 : 0.01, op ? "log_softmax" : "softmax", i);
              }
            }
          }
          // Backward from the stored y (the rows without NaN: the gradient
          // of a NaN row is NaN either way).
          for (int k = 0; k < NR; ++k) {
            const long long w = cut[k + 1] - cut[k];
            for (long long r = 0; r < rows; ++r)
              for (long long j = 0; j < w; ++j) {
                const double y = r == 3 || r == 1 ? 0.5 : yref[r * V + cut[k] + j];
                ::st(dt, base(yb[k]), r * w + j, y);
              }
          }
          std::vector<double> yst(rows * V);
          for (int k = 0; k < NR; ++k) {
            const long long w = cut[k + 1] - cut[k];
            for (long long r = 0; r < rows; ++r)
              for (long long j = 0; j < w; ++j) yst[r * V + cut[k] + j] = ld(dt, base(yb[k]), r * w + j);
          }
          void* sb = f64 ? (void*)sums.data() : (void*)sums32.data();
          for (int k = 0; k < NR; ++k) {
            smx::XParams pk = q;
            pk.v = cut[k + 1] - cut[k]; pk.lo = cut[k];
            pk.x = base(yb[k]); pk.dy = base(db[k]); pk.grad = base(db[k]);  // dx over dy
            pk.rec = (char*)sb + (size_t)k * rows * (f64 ? 8 : 4);
            emu::in_lo[0] = base(yb[k]); emu::in_hi[0] = base(yb[k]) + rows * pk.v * es;
            emu::in_lo[1] = base(db[k]); emu::in_hi[1] = base(db[k]) + rows * pk.v * es;
            snprintf(sym, sizeof sym, "shard_dot_%s_t128", dname(dt));
            launch(sym, 2, 128, pk);
          }
          for (long long r = 0; r < rows; ++r) {  // the all-reduce: rank 0's slot holds the sum
            double a = 0;
            for (int k = 0; k < NR; ++k) a += f64 ? sums[k * rows + r] : sums32[k * rows + r];
            if (f64) sums[r] = a; else sums32[r] = (float)a;
          }
          for (int k = 0; k < NR; ++k) {
            smx::XParams pk = q;
            pk.v = cut[k + 1] - cut[k]; pk.lo = cut[k];
            pk.x = base(yb[k]); pk.dy = base(db[k]); pk.grad = base(db[k]);
            pk.rec = sb;
            emu::in_lo[0] = base(yb[k]); emu::in_hi[0] = base(yb[k]) + rows * pk.v * es;
            emu::in_lo[1] = base(db[k]); emu::in_hi[1] = base(db[k]) + rows * pk.v * es;
            snprintf(sym, sizeof sym, "shard_bwd_%s_t128", dname(dt));
            launch(sym, 2, 128, pk);
          }
          for (long long r = 0; r < rows; ++r) {
            double sm = 0, mag = 0;
            for (long long j = 0; j < V; ++j) { const double t = op ? dyr[r * V + j] : dyr[r * V + j] * yst[r * V + j]; sm += t; mag += fabs(t); }
            for (int k = 0; k < NR; ++k) {
              const long long w = cut[k + 1] - cut[k];
              for (long long j = 0; j < w; ++j) {
                const long long i = r * V + cut[k] + j;
                const double y = yst[i], dy = dyr[i];
                const double ref = op ? scale * (dy - exp(y) * sm) : scale * y * (dy - sm);
                const double c = op ? scale * (fabs(dy) + exp(y) * mag) : scale * fabs(y) * (fabs(dy) + mag);
                const double atol = dt == 1 ? 6e-8 / tol : 1e-6;  // f16 subnormals are 2^-24 apart
                chk(ld(dt, base(db[k]), r * w + j), ref, tol, c + atol, op ? "log_softmax_backward" : "softmax_backward", i);
              }
            }
          }
          // dy for the next op: restore it.
          for (int k = 0; k < NR; ++k) {
            const long long w = cut[k + 1] - cut[k];
            for (long long r = 0; r < rows; ++r)
              for (long long j = 0; j < w; ++j) ::st(dt, base(db[k]), r * w + j, dys[r * V + cut[k] + j]);
          }
        }
        worst[dt] = std::max(worst[dt], e);
        if (e > 1 || emu::bad_reads != 0) {
          ++nfail;
          printf("FAIL shard softmax V=%lld %s skew %d: err %.3g at %s (bad reads %lld)\n", V, dname(dt), skew, e, where.c_str(), emu::bad_reads);
        }
      }
  // A target outside [0, V): flagged, nothing written.
  {
    const long long rows = 5, V = 10;
    std::vector<float> X(rows * V, 1.f), G(rows * V, 7.f), loss(rows, 7.f);
    std::vector<int> t = {1, 2, -100, 10, -3};
    std::vector<double> stats(3);
    std::vector<long long> bad(2);
    smx::XParams p{};
    p.x = X.data(); p.grad = G.data(); p.tgt = t.data(); p.loss = loss.data(); p.stats = stats.data(); p.bad = bad.data();
    p.rows = rows; p.v = V; p.ignore = -100; p.scale = 1; p.gout = 1; p.vec = 1;
    emu::in_lo[0] = (const char*)X.data(); emu::in_hi[0] = (const char*)(X.data() + rows * V);
    launch("xent_prep", 1, 1024, p);
    launch("xent_row_f32_t128_p4", 2, 128, p);
    ++ncase;
    bool written = false;
    for (float g : G) written |= g != 7.f;
    for (float l : loss) written |= l != 7.f;
    if (bad[0] != 3 || bad[1] != 10 || written) { ++nfail; printf("FAIL bad target: flagged row %lld target %lld, written %d\n", bad[0], bad[1], written); }
  }
  printf("xent emulator: %d row-kernel launches plain, %d general; %d of a tail kernel, %d of them on rows past its cache; %d sharded cases\n",
         nplain, ngeneral, ntail, ntailpast, nshard);
  printf("xent emulator: %d cases, %d failed; worst err/tol f32 %.3g f16 %.3g bf16 %.3g f64 %.3g\n", ncase, nfail, worst[0], worst[1], worst[2], worst[3]);
  return nfail ? 1 : 0;
}
