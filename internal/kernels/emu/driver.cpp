// Host emulator driver: reads the cases written by the planner test
// (TestEmuCases), runs each plan's launches on the emulated kernels with
// random inputs (special values in the first slices) and compares with a
// float64 reference of the same float32 semantics. See run.sh.
#include "common.cuh"
#include <map>
#include <string>
#include <vector>
#include <random>
#include <fstream>
#include <sstream>
#include <iostream>
#include <algorithm>
#define K(s) extern "C" void s(const smx::Params);
#include "table.inc"
#undef K
namespace emu { void launch(void (*fn)(const smx::Params), dim3 grid, dim3 block, size_t smem, const smx::Params& p); }
static std::map<std::string, void (*)(const smx::Params)> table = {
#define K(s) {#s, s},
#include "table.inc"
#undef K
};
static int esize(const std::string& dt) { return dt == "f64" ? 8 : dt == "f32" ? 4 : 2; }
static double ld(const std::string& dt, const char* b, long long i) {
  if (dt == "f64") { double f; memcpy(&f, b + 8 * i, 8); return f; }
  if (dt == "f32") { float f; memcpy(&f, b + 4 * i, 4); return f; }
  smx::u16 h; memcpy(&h, b + 2 * i, 2);
  if (dt == "f16") return smx::h2f(h);
  return __uint_as_float(((unsigned)h) << 16);
}
static void st(const std::string& dt, char* b, long long i, double v) {
  if (dt == "f64") { memcpy(b + 8 * i, &v, 8); return; }
  if (dt == "f32") { float f = (float)v; memcpy(b + 4 * i, &f, 4); return; }
  smx::u16 h = dt == "f16" ? smx::f2h((float)v) : smx::f2bf((float)v);
  memcpy(b + 2 * i, &h, 2);
}
int main(int argc, char** argv) {
  std::ifstream in(argc > 1 ? argv[1] : "cases.txt");
  // "plain": this binary holds the SMX_PLAIN builds; run only the cases a
  // plain launch serves (forward softmax, scale 1) whose kernels it has.
  const bool plain = argc > 2 && std::string(argv[2]) == "plain";
  std::string line;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> nd(0, 3);
  int ncase = 0, nfail = 0;
  std::map<std::string, double> worst;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string tag, strat, dt;
    int op; long long outer, axis, inner, chunk, split, vec, lg, ws, nl, aligned;
    ss >> tag >> strat >> dt >> op >> outer >> axis >> inner >> chunk >> split >> vec >> lg >> ws >> nl >> aligned;
    // The case's scale (0 or absent: the driver's choice below) and, for
    // backward, whether dx is an input (0 none, 1 dx = dy, 2 dx = y).
    double cscale = 0;
    int calias = 0;
    if (!(ss >> cscale)) cscale = 0;
    if (!(ss >> calias)) calias = 0;
    struct L { std::string sym; unsigned g[3], b[3]; long long smem; };
    std::vector<L> ls(nl);
    for (auto& l : ls) {
      std::getline(in, line); std::istringstream s2(line); std::string t2;
      s2 >> t2 >> l.sym >> l.g[0] >> l.g[1] >> l.g[2] >> l.b[0] >> l.b[1] >> l.b[2] >> l.smem;
    }
    bool bwd = op >= 2, islog = (op & 1) != 0;
    if (plain && (bwd || islog || std::any_of(ls.begin(), ls.end(), [](const L& l) { return !table.count(l.sym); }))) continue;
    ++ncase;
    int es = esize(dt);
    long long n = outer * axis * inner, slices = outer * inner;
    // aligned: 1 every tensor on a 16-byte boundary, 0 every tensor one
    // element past one (plan.Problem.Skew), 2 the inputs one element past
    // and y on one.
    long long off = aligned == 1 ? 0 : es, offY = aligned == 0 ? es : 0;
    const int G = emu::guard_bytes;
    std::vector<char> xb(n * es + 2 * G + 16), dyb(n * es + 2 * G + 16), yb(n * es + 2 * G + 16, 0x7b);
    auto base = [&](std::vector<char>& v, long long o) { return (char*)((((uintptr_t)v.data() + G + 15) & ~(uintptr_t)15) + o); };
    if (!bwd || off != offY) calias = 0;
    std::vector<char>& yhold = calias == 1 ? dyb : calias == 2 ? xb : yb;
    char *X = base(xb, off), *DY = base(dyb, off), *Y = base(yhold, calias ? off : offY);
    auto idx = [&](long long s, long long j) { long long o = s / inner, i = s % inner; return (o * axis + j) * inner + i; };
    // Forward cases alternate scale 0.75 and 1 (kernels may take a path of
    // their own for 1, e.g. strided_reg's UNIT body); backward ones take the
    // case's (the gradient of softmax(scale*x): dx carries the factor).
    double scale = plain ? 1.0 : cscale != 0 ? cscale : bwd || ncase % 2 == 0 ? 1.0 : 0.75;
    // Inputs.
    for (long long s = 0; s < slices; ++s) {
      std::vector<double> xv(axis);
      for (long long j = 0; j < axis; ++j) xv[j] = nd(rng);
      if (slices >= 6 && !bwd) {
        if (s == 0) for (auto& v : xv) v = -INFINITY;
        if (s == 1) xv[axis / 2] = NAN;
        if (s == 2) xv[axis - 1] = INFINITY;
        if (s == 3) for (long long j = 0; j < axis; j += 2) xv[j] = -INFINITY;
        if (s == 4) for (long long j = 0; j < axis; ++j) xv[j] = 1000 + xv[j];
        // Maxima past fexp_shift_max (64) below zero too: the plain build's
        // 16-bit rows then leave fexp_shifted for the general exp.
        if (s == 5) for (long long j = 0; j < axis; ++j) xv[j] = xv[j] - 100;
      }
      if (!bwd) { for (long long j = 0; j < axis; ++j) st(dt, X, idx(s, j), xv[j]); continue; }
      // backward: y = forward output of xv, dy random
      double m = -INFINITY, d = 0;
      for (auto v : xv) m = std::max(m, v);
      for (auto v : xv) d += exp(v - m);
      for (long long j = 0; j < axis; ++j) {
        double y = islog ? xv[j] - m - log(d) : exp(xv[j] - m) / d;
        st(dt, X, idx(s, j), y);
        st(dt, DY, idx(s, j), (slices >= 6 && s == 1 && j == axis / 3) ? NAN : nd(rng));
      }
    }
    // The reference, before the launch: an aliased dx overwrites an input.
    std::vector<double> REF(n), COND(n, 0.0);
    for (long long s = 0; s < slices; ++s) {
      std::vector<double> ref(axis), cond(axis, 0.0);
      if (!bwd) {
        std::vector<double> v(axis);
        bool poison = false;
        for (long long j = 0; j < axis; ++j) { v[j] = dt == "f64" ? ld(dt, X, idx(s, j)) * scale : (double)((float)ld(dt, X, idx(s, j)) * (float)scale); if (std::isnan(v[j]) || v[j] == INFINITY) poison = true; }
        double m = -INFINITY; for (auto a : v) m = std::max(m, a);
        if (m == -INFINITY) poison = true;
        double d = 0; if (!poison) for (auto a : v) d += exp(a - m);
        for (long long j = 0; j < axis; ++j) ref[j] = poison ? NAN : islog ? v[j] - m - log(d) : exp(v[j] - m) / d;
      } else {
        double sum = 0, asum = 0;
        for (long long j = 0; j < axis; ++j) { double y = ld(dt, X, idx(s, j)), g = ld(dt, DY, idx(s, j)); sum += islog ? g : g * y; asum += fabs(islog ? g : g * y); }
        for (long long j = 0; j < axis; ++j) { double y = ld(dt, X, idx(s, j)), g = ld(dt, DY, idx(s, j)); ref[j] = scale * (islog ? g - exp(y) * sum : y * (g - sum));
          cond[j] = fabs(scale) * (islog ? fabs(g) + exp(y) * asum : fabs(y) * (fabs(g) + asum)); }
      }
      for (long long j = 0; j < axis; ++j) { REF[idx(s, j)] = ref[j]; COND[idx(s, j)] = cond[j]; }
    }
    std::vector<double> wsb(ws / 8 + 4, NAN);  // 16-byte aligned for f64's double pairs
    smx::Params p{X, Y, outer, axis, (float)scale, (int)lg, (int)split, (int)vec, bwd ? DY : nullptr, (float*)wsb.data(), inner, chunk, nullptr, scale};
    bool bad = false;
    std::vector<char> gbefore((char*)(((uintptr_t)yhold.data() + G + 15) & ~(uintptr_t)15) - G, Y), gafter(Y + n * es, Y + n * es + G);
    emu::in_lo[0] = X; emu::in_hi[0] = X + n * es;
    emu::in_lo[1] = bwd ? DY : nullptr; emu::in_hi[1] = bwd ? DY + n * es : nullptr;
    emu::bad_reads = 0;
    for (auto& l : ls) {
      auto it = table.find(l.sym);
      if (it == table.end()) { printf("no kernel %s\n", l.sym.c_str()); bad = true; break; }
      emu::launch(it->second, dim3{l.g[0], l.g[1], l.g[2]}, dim3{l.b[0], l.b[1], l.b[2]}, l.smem, p);
    }
    if (emu::bad_reads) { bad = true; printf("  %lld 16-byte reads outside an input tensor\n", emu::bad_reads); }
    // Guards: the bytes around dx as they were before the launch.
    char* const g0 = (char*)(((uintptr_t)yhold.data() + G + 15) & ~(uintptr_t)15) - G;
    for (char* g = g0; g < Y; ++g) if (*g != gbefore[g - g0]) { bad = true; printf("  guard before clobbered\n"); break; }
    for (char* g = Y + n * es; g < Y + n * es + G; ++g) if (*g != gafter[g - (Y + n * es)]) { bad = true; printf("  guard after clobbered\n"); break; }
    double tol = dt == "f64" ? 1e-13 : dt == "f32" ? 2e-6 : dt == "f16" ? 2e-3 : 1.6e-2;
    double atol = dt == "f16" ? 1e-7 : 1e-38;
    double werr = 0; std::string wwhere;
    for (long long s = 0; s < slices; ++s) {
      std::vector<double> ref(axis), cond(axis, 0.0);
      for (long long j = 0; j < axis; ++j) { ref[j] = REF[idx(s, j)]; cond[j] = COND[idx(s, j)]; }
      double smax = 0; for (auto r : ref) if (std::isfinite(r)) smax = std::max(smax, fabs(r));
      for (long long j = 0; j < axis; ++j) {
        double got = ld(dt, Y, idx(s, j)), r = ref[j];
        double e;
        if (std::isnan(r) || std::isnan(got)) e = (std::isnan(r) && std::isnan(got)) ? 0 : 1e9;
        else if (std::isinf(r) || std::isinf(got)) e = (r == got) ? 0 : 1e9;
        else {
          double lim = !bwd && !islog ? tol * fabs(r) + atol : !bwd ? tol * (fabs(r) + 1) : tol * (fabs(r) + cond[j]) + atol;
          e = fabs(got - r) / lim;
        }
        if (e > werr) { werr = e; std::ostringstream w; w << "slice " << s << " j " << j << " got " << got << " ref " << r; wwhere = w.str(); }
      }
    }
    std::string key = strat + " " + dt + (bwd ? " bwd" : " fwd");
    worst[key] = std::max(worst[key], werr);
    if (werr > 1 || bad) {
      ++nfail;
      if (nfail < 40) printf("FAIL %s (err %.3g): %s | %s\n", line.c_str(), werr, wwhere.c_str(), tag.c_str());
      printf("  case: %s %s op%d %lldx%lldx%lld chunk %lld split %lld vec %lld aligned %lld scale %g alias %d: %s\n", strat.c_str(), dt.c_str(), op, outer, axis, inner, chunk, split, vec, aligned, scale, calias, ls.empty() ? "" : ls[0].sym.c_str());
    }
  }
  printf("%s%d cases, %d failures\n", plain ? "plain build: " : "", ncase, nfail);
  for (auto& w : worst) printf("  worst %-28s %.3g\n", w.first.c_str(), w.second);
  return nfail != 0;
}
