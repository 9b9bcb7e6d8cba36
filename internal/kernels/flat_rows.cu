// flat_rows: short last-axis rows of any length, a tile of consecutive rows
// a block. A tile is one contiguous run of memory whatever the row length,
// so it moves as 16-byte packs both ways: staged in shared memory by
// cp.async (shifted so that its global 16-byte boundaries fall on shared
// ones, the elements before the first and after the last one by one), each
// row reduced there by a group of W lanes holding its elements in
// registers, its outputs written back over its input in shared memory, then
// the tile stored as one flat run of 16-byte stores. warp_row reads a
// ragged row (one not a whole number of packs, or not starting on a pack
// boundary) from the pack boundary before it, so every row's first and last
// packs are read twice and stored element by element; on ragged rows its
// twins ran at 0.63-0.86 of copy, bound by issue. H200, softmax bench, µs,
// warp_row against flat_rows (-ab-s43.txt §5): 350785×126 bf16 65.4 vs
// 54.1, its softmax_backward 105.8 vs 71.8. Values a lane are a template
// constant: as a run-time count, with the slots past it skipped by
// warp-uniform branches, 350785×126 bf16 ran at 73-88 (§3).
//
//   flat_rows_{fwd,bwd}_{dt}_w{W}_n{N}   W lanes a row (4, 8, 16, 32), N
//                                        values a lane (4, 5, 6, 8, 10, 12,
//                                        16): rows of up to W*N columns
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32 (and of W), <= 256
//   grid   (g, 1, 1), grid-stride over tiles
//   params chunk = rows a tile (>= 1); cols <= W*N; any element-aligned
//          pointers (vec unused); split unused; ws none
//   smem   dynamic NIN * roundup((chunk*cols + P)*esize, 16) bytes
//          (FlatRowsBytes in catalog.go); above 48 KB the host raises
//          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first
#include "common.cuh"

namespace smx {

constexpr int FlatRowsMaxThreads = 256;

// A row's constants from its group's values b: forward the max,
// then one exp an element (b becomes exp(v - m), or v - m for
// log_softmax, as Fwd::reduce_cached leaves it for out_cached), backward
// the gradient sum. Two partial sums, so that consecutive adds do not wait
// on each other.
template <class Op, int W, int N>
__device__ __forceinline__ typename Op::Fin flat_reduce(const Op& op, float (&b)[Op::NIN][N]) {
  if constexpr (Op::BACKWARD) {
    float a0 = 0.f, a1 = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      if (k % 2 == 0)
        a0 += op.term(b[0][k], b[1][k]);
      else
        a1 += op.term(b[0][k], b[1][k]);
    }
    return op.finalize(GroupRed<W>::template run<Op>(a0 + a1));
  } else {
    float m = neg_inf();
#pragma unroll
    for (int k = 0; k < N; ++k) {
      m = fmax2(m, b[0][k]);
    }
    m = GroupRed<W>::template run<RedMax>(m);
    const float s = safe(m);
    const bool keep_diff = !Op::PLAIN && op.log != 0;
    float d0 = 0.f, d1 = 0.f;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const float v = b[0][k] - s, e = Op::ex(v);
      b[0][k] = keep_diff ? v : e;
      if (k % 2 == 0)
        d0 += e;
      else
        d1 += e;
    }
    return op.finalize(MD{m, GroupRed<W>::template run<RedSum>(d0 + d1)});
  }
}

template <class Op, int W, int N>
__device__ __forceinline__ void flat_rows_kernel(const Params& p) {
  typedef typename Op::D D;
  typedef typename D::T T;
  constexpr int P = D::P, NIN = Op::NIN;
  const Op op(p);
  const int cols = (int)p.axis, tr = (int)p.chunk;
  const u32 region = (u32)(((i64)tr * cols + P) * (i64)sizeof(T) + 15) / 16 * 16;
  // Host bugs: a block, tile or row outside the contract, or shared memory
  // short of the tile's copies.
  if (blockDim.x % 32 != 0 || blockDim.x > FlatRowsMaxThreads || p.inner != 1 || p.axis < 1 || p.axis > W * N ||
      p.chunk < 1 || p.chunk * p.axis > ((i64)1 << 24) || NIN * region > dyn_smem_bytes())
    __trap();
  char* const base = static_cast<char*>(dyn_smem());
  const int nt = blockDim.x, t = threadIdx.x, groups = nt / W, g = t / W, lane = t % W;
  for (i64 r0 = (i64)blockIdx.x * tr; r0 < p.outer; r0 += (i64)gridDim.x * tr) {
    const int nr = (int)imin(tr, p.outer - r0), tn = nr * cols;
    const i64 at = r0 * (i64)cols;
    T* s[NIN];
    int shift[NIN];
    smem_stage_inputs(op, base, region, at, tn, s, shift);
    // A group a row; every lane of a warp runs the same iterations (the
    // group reductions shuffle), a group past the tile with no columns.
    for (int rb = 0; rb < nr; rb += groups) {
      const int r = rb + g, rc = r < nr ? cols : 0, ro = r * cols;
      float b[NIN][N];
      // Lane value k is column k*W + lane: a group's lanes read consecutive
      // elements, without bank conflicts among them (between a warp's
      // groups there can be: the planner weighs them, flatRowsLanes).
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int j = k * W + lane;
#pragma unroll
        for (int i = 0; i < NIN; ++i) b[i][k] = j < rc ? op.conv(i, D::to_f(s[i][ro + j])) : Op::fill(i);
      }
      const typename Op::Fin f = flat_reduce<Op, W, N>(op, b);
      // Each element is read only by its own lane, before this: the output
      // overwrites the first input's copy in place.
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int j = k * W + lane;
        float o[1];
        op.out_cached(b, k, o, f);
        if (j < rc) s[0][ro + j] = Op::Store::from_f(o[0]);
      }
    }
    __syncthreads();
    // The tile's output as one flat run: its elements before the first
    // 16-byte boundary one by one, then packs, then the tail. Where the
    // output's boundaries fall on the copy's (the same alignment as the
    // first input: always, for aligned tensors) a pack is one 16-byte read.
    T* const dst = op.dst() + at;
    const int head = (int)imin(smem_head<D>(dst, 0), tn), packs = (tn - head) / P, tail = head + packs * P;
    const T* const out = s[0];
    if (shift[0] == (P - head) % P) {
      for (int k = t; k < packs; k += nt) st_cs(dst + head + k * P, *reinterpret_cast<const V16*>(out + head + k * P));
    } else {
      for (int k = t; k < packs; k += nt) {
        V16 v;
        T* const vt = reinterpret_cast<T*>(&v);
#pragma unroll
        for (int e = 0; e < P; ++e) vt[e] = out[head + k * P + e];
        st_cs(dst + head + k * P, v);
      }
    }
    for (int j = t; j < head; j += nt) dst[j] = out[j];
    for (int j = tail + t; j < tn; j += nt) dst[j] = out[j];
    // The next tile's copies overwrite what this one's stores read.
    __syncthreads();
  }
}

}  // namespace smx
