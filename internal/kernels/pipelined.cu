// pipelined: an occupancy-sized grid of workers (a warp, or a whole block)
// each walking rows worker, worker + workers, ... with its rows staged in a
// ring of S shared-memory slots filled by cp.async (sm_80+). While a worker
// reduces row k from shared memory and writes its output, rows k+1 .. k+S-1
// are already in flight, so the bytes in flight per SM no longer depend on
// how long a row's reduction stalls: the register- and smem-cached bodies
// (block_reg, block_smem, persistent) can only have the row being reduced
// (plus one prefetched) in flight, which leaves them latency-bound. One DRAM
// read and one (evict-first) write per element.
//
// Each thread copies exactly the 16-byte packs it later reads (packs t,
// t + nt, ... of the worker's nt threads), so a slot is never read by a
// thread other than the one that filled it: cp.async.wait_group alone makes
// the data visible, and refilling the slot read in the previous iteration
// needs no barrier. The only barriers are those of the block reduction
// (block workers).
//
//   pipelined_{fwd,bwd}_{dt}_w32  a warp per row, blockDim.x/32 rings per block
//   pipelined_{fwd,bwd}_{dt}_b    a block per row, one ring per block
//
// S is not a template parameter: it is the dynamic shared memory divided by
// the size of a slot (NIN * cols elements per ring slot, one ring per
// worker), clamped to [1, 8], so the host picks it through Launch.Smem.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   vec    must be 1: 16-byte aligned pointers and cols * esize % 16 == 0
//          (cp.async copies whole 16-byte packs; there is no scalar path)
//   block  (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (g, 1, 1), g = resident blocks per SM x SMs (capped by the rows)
//   smem   dynamic S * W * NIN * cols * esize bytes, W = nt/32 (w32) or 1
//          (b), 1 <= S <= 8; above 48 KB the host raises
//          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first
//   workspace none
#include "common.cuh"

namespace smx {

// The deepest ring: cp.async.wait_group takes an immediate, so common.cuh's
// cp_async_wait spells the waits out up to S - 1 = 7.
constexpr int kMaxStages = 8;

// Starts copying this thread's packs of every input of `row` into slot sl,
// then commits them as one group. A row past the end commits an empty
// group, so that every iteration commits exactly one group and the wait
// depth stays S - 1.
template <class Op>
__device__ __forceinline__ void pipe_issue(const Op& op, typename Op::T* sl, i64 row, i64 rows, i64 cols, int t,
                                           int nt) {
  constexpr int P = Op::D::P;
  if (row < rows) {
    const i64 off = row * cols;
#pragma unroll
    for (int i = 0; i < Op::NIN; ++i)
      for (i64 col = (i64)t * P; col < cols; col += (i64)nt * P) cp_async16(sl + i * cols + col, op.src(i) + off + col);
  }
  cp_async_commit();
}

// WARP: a warp is a worker (warp reduction, independent rings); otherwise
// the block is (block reduction).
template <class Op, bool WARP>
__device__ __forceinline__ void pipelined_kernel(const Params& p) {
  typedef typename Op::T T;
  typedef typename Op::D D;
  constexpr int P = D::P;
  const Op op(p);
  const i64 rows = p.outer, cols = p.axis;
  const int nt = WARP ? 32 : (int)blockDim.x;
  const int t = WARP ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
  const int per_block = WARP ? (int)(blockDim.x >> 5) : 1;
  const int local = WARP ? (int)(threadIdx.x >> 5) : 0;
  const i64 workers = (i64)gridDim.x * per_block;
  const i64 first = (i64)blockIdx.x * per_block + local;
  const i64 slot = Op::NIN * cols;  // elements per ring slot
  const i64 slot_bytes = slot * (i64)sizeof(T);
  const i64 fit = (i64)dyn_smem_bytes() / (slot_bytes * per_block);
  // A launch without room for one slot per worker breaks the contract;
  // returning leaves y unwritten rather than writing outside shared memory.
  if (fit < 1) return;
  const int S = (int)imin(fit, kMaxStages);
  T* const ring = static_cast<T*>(dyn_smem()) + (i64)local * S * slot;

  // Prologue: rows 0 .. S-2 of this worker in flight.
  for (int k = 0; k < S - 1; ++k) pipe_issue(op, ring + k * slot, first + k * workers, rows, cols, t, nt);
  int cur = 0;  // slot of row k
  for (i64 row = first; row < rows; row += workers) {
    // Row k + S - 1 goes to the slot row k - 1 used: this thread finished
    // reading its packs of that slot in the previous iteration, and no other
    // thread reads them.
    const int fill = cur == 0 ? S - 1 : cur - 1;
    pipe_issue(op, ring + fill * slot, row + (i64)(S - 1) * workers, rows, cols, t, nt);
    cp_async_wait(S - 1);  // row k's group has landed
    const T* const sl = ring + cur * slot;

    // Both sweeps take U packs per step: the smem loads of a step are
    // independent, and the online update rescales once per U packs, so the
    // per-row dependency chain (which bounds a worker's row rate) is U times
    // shorter than pack by pack. Packs at or past cols read nothing and
    // contribute Op::fill.
    constexpr int U = Unroll<Op>::U;  // 4 forward, 2 backward (two inputs)
    const i64 step = (i64)nt * P;
    typename Op::Acc a = Op::identity();
    float comp = 0.f;
    for (i64 c0 = (i64)t * P; c0 < cols; c0 += step * U) {
      float b[Op::NIN][U * P];
#pragma unroll
      for (int u = 0; u < U; ++u) load_vals_smem(op, b, u * P, c0 + u * step, cols, true, sl, cols);
      op.push(a, comp, b);
    }
    a = Op::fold(a, comp);
    if (WARP)
      a = group_reduce<Op, 32>(a);
    else
      a = block_reduce<Op>(a);
    const typename Op::Fin f = op.finalize(a);
    T* const out = op.dst() + row * cols;
    for (i64 c0 = (i64)t * P; c0 < cols; c0 += step * U) {
      // All U loads before the first store: the store's memory clobber
      // would otherwise keep the next pack's load behind it.
      float b[Op::NIN][U * P];
#pragma unroll
      for (int u = 0; u < U; ++u) load_vals_smem(op, b, u * P, c0 + u * step, cols, true, sl, cols);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const i64 col = c0 + u * step;
        if (col < cols) {
          float o[P];
          op.out_vals(b, u * P, o, f);
          st_pack<typename Op::Store, true>(out, col, cols, true, o);
        }
      }
    }
    cur = cur + 1 == S ? 0 : cur + 1;
  }
  // Only empty groups (rows past the end) can still be pending; draining
  // them keeps the exit free of outstanding copies into shared memory.
  cp_async_wait(0);
}

}  // namespace smx
