// Fiber scheduler of the host emulator: one ucontext per CUDA thread, blocks
// run one at a time, __syncthreads and warp shuffles as cooperative barriers
// (divergent barriers and deadlocks abort).
#include "emu.h"
#include "common.cuh"
#include <ucontext.h>
#include <vector>
#include <string>
namespace emu {
enum { RUN, BAR, WBAR, DONE };
struct Thread { ucontext_t ctx; dim3 t; int lin; int state; };
dim3 g_blockIdx, g_blockDim, g_gridDim;
Thread* cur;
void* dyn_smem_ptr;
unsigned dyn_smem_size;
static ucontext_t sched;
static std::vector<Thread> th;
static std::vector<char*> stacks;
static std::vector<double> slot;
static void (*g_fn)(const smx::Params);
static const smx::Params* g_p;
static const size_t STACK = 256 << 10;
dim3& tid() { return cur->t; }
static void yield() { swapcontext(&cur->ctx, &sched); }
void syncthreads() { cur->state = BAR; yield(); }
// Shuffles pass doubles (float values convert exactly both ways).
double shfl_xor(double v, int mask) {
  slot[cur->lin] = v;
  cur->state = WBAR; yield();
  int src = (cur->lin & ~31) | ((cur->lin & 31) ^ mask);
  double r = src < (int)th.size() ? slot[src] : NAN;
  cur->state = WBAR; yield();
  return r;
}
float shfl_xor(float v, int mask) { return (float)shfl_xor((double)v, mask); }
void trap() { fprintf(stderr, "__trap()\n"); abort(); }
const char* in_lo[2];
const char* in_hi[2];
long long bad_reads;
// Reads within guard_bytes of a tensor count as near it; others (shared
// memory, workspace) are not checked.
void check_read(const void* p, int bytes) {
  const char* q = static_cast<const char*>(p);
  for (int i = 0; i < 2; ++i) {
    if (!in_lo[i]) continue;
    const char* lo = (const char*)((uintptr_t)in_lo[i] & ~(uintptr_t)15);
    if (q + bytes <= lo - guard_bytes || q >= in_hi[i] + guard_bytes) continue;
    if (q < lo || q + bytes > in_hi[i]) ++bad_reads;
    return;
  }
}
static void tramp() { g_fn(*g_p); cur->state = DONE; swapcontext(&cur->ctx, &sched); }
void run_block(void (*fn)(const smx::Params), const smx::Params& p) {
  int n = g_blockDim.x * g_blockDim.y * g_blockDim.z;
  th.resize(n); slot.assign(n, 0.);
  while ((int)stacks.size() < n) stacks.push_back((char*)malloc(STACK));
  g_fn = fn; g_p = &p;
  for (int i = 0; i < n; ++i) {
    Thread& t = th[i];
    t.lin = i; t.state = RUN;
    t.t = dim3{(unsigned)(i % g_blockDim.x), (unsigned)((i / g_blockDim.x) % g_blockDim.y), (unsigned)(i / (g_blockDim.x * g_blockDim.y))};
    getcontext(&t.ctx);
    t.ctx.uc_stack.ss_sp = stacks[i]; t.ctx.uc_stack.ss_size = STACK; t.ctx.uc_link = nullptr;
    makecontext(&t.ctx, tramp, 0);
  }
  for (;;) {
    for (int i = 0; i < n; ++i)
      if (th[i].state == RUN) { cur = &th[i]; swapcontext(&sched, &th[i].ctx); }
    bool released = false, alldone = true;
    for (int w = 0; w < n; w += 32) {
      int e = std::min(n, w + 32); bool all = true, any = false;
      for (int i = w; i < e; ++i) { if (th[i].state == BAR) all = false; if (th[i].state == WBAR) any = true; }
      if (any && all) { for (int i = w; i < e; ++i) if (th[i].state == WBAR) th[i].state = RUN; released = true; }
      else if (any) { fprintf(stderr, "divergent warp barrier in warp %d\n", w / 32); abort(); }
    }
    if (released) continue;
    bool allbar = true;
    for (int i = 0; i < n; ++i) { if (th[i].state != DONE) alldone = false; if (th[i].state == RUN || th[i].state == WBAR) allbar = false; }
    if (alldone) return;
    if (allbar) { for (int i = 0; i < n; ++i) if (th[i].state == BAR) th[i].state = RUN; continue; }
    fprintf(stderr, "deadlock\n"); abort();
  }
}
void launch(void (*fn)(const smx::Params), dim3 grid, dim3 block, size_t smem, const smx::Params& p) {
  static std::vector<char> dyn;
  dyn.assign(smem + 16, (char)0xcd);
  dyn_smem_ptr = (void*)(((uintptr_t)dyn.data() + 15) & ~(uintptr_t)15);
  dyn_smem_size = (unsigned)smem;
  g_gridDim = grid; g_blockDim = block;
  for (unsigned z = 0; z < grid.z; ++z) for (unsigned y = 0; y < grid.y; ++y) for (unsigned x = 0; x < grid.x; ++x) {
    g_blockIdx = dim3{x, y, z};
    run_block(fn, p);
  }
}
}
