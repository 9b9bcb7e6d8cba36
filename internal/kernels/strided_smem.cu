// strided_smem: softmax along a non-last axis, each outer index's
// contiguous Axis x Inner block staged in dynamic shared memory. It serves
// the layouts the register strategies leave to strided: an Inner that is
// not whole packs (3000x49x129 f16, 2000x63x333 bf16 log_softmax), narrow
// Inner that is not a power of two, and backward past strided_short's rows.
// strided reads each element twice, one scalar a thread per step (0.15 of
// copy on 3000x49x129 f16, behind torch).
//
// A block owns one outer index at a time. The block's elements are one
// contiguous run whatever Inner is, so it moves with 16-byte cp.async
// copies: each input's copy sits in shared memory shifted so that its
// global 16-byte boundaries fall on shared ones, the elements before the
// first boundary and after the last going one by one. Then every slice
// (column c of the block) is reduced from shared memory: a thread takes
// one column, or with Inner under the block size rg = threads/Inner
// threads share a column's rows and merge their partials through shared
// memory. The output is written as a flat run of the block, 16 bytes a
// store, each element finding its column as its offset mod Inner. One
// read, one write; the exp is taken twice an element (once for the sum,
// once for the output), the shared-memory copy read three times.
//
//   strided_smem_{fwd,bwd}_{dt}   one kernel a direction and dtype; any
//                                 alignment of the (element-aligned)
//                                 pointers, any Axis and Inner the shared
//                                 memory holds
//
// Launch contract (outer, axis, inner):
//   block  (nt, 1, 1), nt a multiple of 32, <= 512
//   grid   (g, 1, 1), grid-stride over outer indices
//   smem   dynamic NIN * roundup((axis*inner + P)*esize, 16) + inner*8 (16 f64)
//          bytes (StridedSmemBytes in catalog.go); above 48 KB the host
//          raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first.
//          Static: a float pair a thread (the row groups' partials).
//   params split, chunk, vec unused; ws none
#include "common.cuh"

namespace smx {

constexpr int StridedSmemMaxThreads = 512;

// One column's partial over rows g, g + rg, ... of the staged block(s):
// forward (m, d) with d the sum of exp(v - m), backward the gradient sum.
template <class Op>
__device__ __forceinline__ typename Op::Acc smem_column(const Op& op, const typename Op::T* const (&s)[Op::NIN],
                                                        int col, int g, int rg, int axis, int inner) {
  typedef typename Op::D D;
  if constexpr (Op::BACKWARD) {
    typename Op::M a = 0.f;
#pragma unroll 4
    for (int r = g; r < axis; r += rg) {
      const int at = r * inner + col;
      a += op.term(D::to_f(s[0][at]), D::to_f(s[1][at]));
    }
    return a;
  } else {
    typename Op::M m = neg_inf();
#pragma unroll 4
    for (int r = g; r < axis; r += rg) m = fmax2(m, op.conv(0, D::to_f(s[0][r * inner + col])));
    // safe: a part of all -inf adds 0 (merged with finite parts, it must
    // not be NaN; alone, its slice's outputs are NaN through m).
    const typename Op::M sm = safe(m);
    typename Op::M d = 0.f;
#pragma unroll 4
    for (int r = g; r < axis; r += rg) d += Op::ex(op.conv(0, D::to_f(s[0][r * inner + col])) - sm);
    return typename Op::Acc{m, d};
  }
}

// A column's constants for the output: forward (m, 1/d) or (m, log d),
// backward (s, 0).
template <class Op>
__device__ __forceinline__ typename Op::Ws smem_fin(const Op& op, typename Op::Acc a) {
  if constexpr (Op::BACKWARD) {
    return typename Op::Ws{a, 0.f};
  } else {
    const typename Op::Fin f = op.finalize(a);
    return typename Op::Ws{f.m, f.log ? f.lse : f.rd};
  }
}

// Output of one element from its inputs v0, v1 and its column's constants.
template <class Op>
__device__ __forceinline__ typename Op::M smem_out1(const Op& op, typename Op::M v0, typename Op::M v1, typename Op::Ws f) {
  if constexpr (Op::BACKWARD) {
    return op.out1(v0, v1, typename Op::Fin{f.a, op.log});
  } else {
    return op.log ? (v0 - f.a) - f.b : Op::ex(v0 - f.a) * f.b;
  }
}

// Output element j of the block, alone (the run's head and tail).
template <class Op>
__device__ __forceinline__ void smem_out_scalar(const Op& op, const typename Op::T* const (&s)[Op::NIN],
                                                typename Op::T* dst, const typename Op::Ws* fin, int j, int n, int inner) {
  typename Op::M v[Op::NIN];
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) v[i] = op.conv(i, Op::D::to_f(s[i][j]));
  dst[j] = Op::Store::from_f(smem_out1(op, v[0], v[Op::NIN - 1], fin[j / n * inner + j % inner]));
}

// TILES: several outer indices a block (Params.chunk > 1), whose output
// pass finds each element's column by outer index as well; with one, the
// kernel keeps fewer registers (16-bit forward 37 against 50: an SM holds
// more blocks, 10-20% faster on blocks of 12-42 KB).
template <class Op, bool TILES>
__device__ __forceinline__ void strided_smem_kernel(const Params& p) {
  typedef typename Op::D D;
  typedef typename D::T T;
  constexpr int P = D::P, NIN = Op::NIN;
  const Op op(p);
  const int axis = (int)p.axis, inner = (int)p.inner, n = axis * inner, tb = (int)p.chunk, rg = p.split;
  // Host bugs: a block size, tile or row-group count outside the contract,
  // or shared memory short of the tile's copies, the column constants and
  // the row groups' partials.
  const int tmax = tb * n;
  const u32 region = (u32)((tmax + P) * (int)sizeof(T) + 15) / 16 * 16;
  if (blockDim.x % 32 != 0 || blockDim.x > StridedSmemMaxThreads || tb < 1 || (!TILES && tb != 1) || rg < 1 || rg > axis ||
      p.axis * p.inner * p.chunk > (i64)1 << 30 ||
      NIN * region + (u32)(tb * inner) * (u32)sizeof(typename Op::Ws) * (rg > 1 ? 1 + rg : 1) > dyn_smem_bytes())
    __trap();
  char* const base = static_cast<char*>(dyn_smem());
  typename Op::Ws* const fin = reinterpret_cast<typename Op::Ws*>(base + NIN * region);
  typename Op::Ws* const part = fin + tb * inner;
  const int nt = blockDim.x, t = threadIdx.x;
  for (i64 o0 = (i64)blockIdx.x * tb; o0 < p.outer; o0 += (i64)gridDim.x * tb) {
    const int nb = (int)imin(tb, p.outer - o0), tn = nb * n, cols = nb * inner, items = cols * rg;
    const i64 at = o0 * (i64)n;
    const T* s[NIN];
    int shift[NIN];
    smem_stage_inputs(op, base, region, at, tn, s, shift);
    // Column q = b*inner + c of the tile is outer index o0 + b, inner index
    // c; item it takes its rows g, g + rg, ... (g = it / cols).
    if (rg == 1) {
      // A column a thread, its rows one apart: constant steps the compiler
      // unrolls (with rg a run-time step, wide Inner ran 6-12% slower).
      for (int q = t; q < cols; q += nt) {
        const int b = TILES ? q / inner : 0;
        fin[q] = smem_fin(op, smem_column(op, s, b * n + (q - b * inner), 0, 1, axis, inner));
      }
    } else {
      for (int it = t; it < items; it += nt) {
        const int q = it % cols, b = TILES ? q / inner : 0;
        part[it] = Op::to_ws(smem_column(op, s, b * n + (q - b * inner), it / cols, rg, axis, inner));
      }
      __syncthreads();
      for (int q = t; q < cols; q += nt) {
        typename Op::Acc a = Op::from_ws(part[q]);
        for (int g = 1; g < rg; ++g) a = Op::merge(a, Op::from_ws(part[g * cols + q]));
        fin[q] = smem_fin(op, a);
      }
    }
    __syncthreads();
    // The output as one flat run: its elements before the first 16-byte
    // boundary one by one, then packs, then the tail.
    T* const dst = op.dst() + at;
    const int head = (int)imin(smem_head<D>(dst, 0), tn), packs = (tn - head) / P, tail = head + packs * P;
    // Each input's copy is pack-aligned where the output's packs are when
    // its shift equals the output's: then a pack is one 16-byte read.
    bool same = true;
#pragma unroll
    for (int i = 0; i < NIN; ++i) same = same && shift[i] == (P - head) % P;
    for (int k = t; k < packs; k += nt) {
      const int j0 = head + k * P;
      typename Op::M v[NIN][P];
      if (same) {
#pragma unroll
        for (int i = 0; i < NIN; ++i) {
          D::unpack(*reinterpret_cast<const V16*>(s[i] + j0), v[i]);
#pragma unroll
          for (int e = 0; e < P; ++e) v[i][e] = op.conv(i, v[i][e]);
        }
      } else {
#pragma unroll
        for (int i = 0; i < NIN; ++i)
#pragma unroll
          for (int e = 0; e < P; ++e) v[i][e] = op.conv(i, D::to_f(s[i][j0 + e]));
      }
      // Element j's column is (j / n)*inner + j % inner: the first by
      // division, the next ones stepping its inner index and row.
      typename Op::M y[P];
      if constexpr (TILES) {
        const int row = j0 / inner, b = row / axis;
        int c = j0 - row * inner, r = row - b * axis, q = b * inner + c;
#pragma unroll
        for (int e = 0; e < P; ++e) {
          y[e] = smem_out1(op, v[0][e], v[NIN - 1][e], fin[q]);
          ++c;
          ++q;
          if (c == inner) {
            c = 0;
            if (++r == axis)
              r = 0;  // the next outer index: its first column is q
            else
              q -= inner;
          }
        }
      } else {
        int c = j0 % inner;
#pragma unroll
        for (int e = 0; e < P; ++e) {
          y[e] = smem_out1(op, v[0][e], v[NIN - 1][e], fin[c]);
          c = c + 1 == inner ? 0 : c + 1;
        }
      }
      st_cs(dst + j0, Op::Store::pack(y));
    }
    for (int j = t; j < head; j += nt) smem_out_scalar(op, s, dst, fin, j, n, inner);
    for (int j = tail + t; j < tn; j += nt) smem_out_scalar(op, s, dst, fin, j, n, inner);
    // The next tile's copies overwrite what this one's output reads.
    __syncthreads();
  }
}

}  // namespace smx
