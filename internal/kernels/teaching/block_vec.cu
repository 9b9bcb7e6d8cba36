// block_vec: one block per row with 16-byte vector loads and a scalar tail
// (the float4 step of the tutorial), forward only. Three sweeps:
//   1. read x, block max m;
//   2. read x, write e = exp(v - m) (log_softmax: v - m) to y, block sum d;
//   3. re-read y, normalize in place: y *= 1/d (log_softmax: y -= log d).
// Sweep 3 reads y back in the storage dtype, so f16/bf16 results are rounded
// twice (at most ~1 extra ulp); the other strategies round once.
//
// Launch contract (Inner == 1, rows = outer, cols = axis):
//   block  (nt, 1, 1), nt a multiple of 32, <= 1024 (512 or 1024 by row length)
//   grid   (g, 1, 1), g <= min(rows, 2^31-1); blocks grid-stride over rows
//   smem   none dynamic; static 128 B; workspace none
//   symbol block_vec_fwd_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

// Loads a stored intermediate back (no scale, fill 0).
template <class D_>
struct Plain {
  typedef D_ D;
  typedef typename D::T T;
  typedef float M;  // the math type of ld_pack's values
  __device__ __forceinline__ float conv(int, float v) const { return v; }
  static __device__ __forceinline__ float fill(int) { return 0.f; }
};

template <class D>
__device__ __forceinline__ void block_vec_fwd(const Params& p) {
  typedef typename D::T T;
  constexpr int P = D::P;
  typedef Fwd<D> Op;
  const Op op(p);
  const Plain<D> plain;
  const i64 rows = p.outer, cols = p.axis;
  const bool vec = p.vec != 0;
  const int t = threadIdx.x, nt = blockDim.x;
  const i64 step = (i64)nt * P;
  for (i64 row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = op.x + row * cols;
    T* y = op.y + row * cols;
    float m = neg_inf();
    for (i64 col = (i64)t * P; col < cols; col += step) {
      float f[P];
      ld_pack<Fwd<D>, false>(op, 0, x, nullptr, col, cols, vec, f);
#pragma unroll
      for (int e = 0; e < P; ++e) m = fmax2(m, f[e]);
    }
    m = block_reduce<RedMax>(m);
    const float ms = safe(m);
    const float poison = m - m;  // NaN when m is +-inf: the slice is NaN
    float d = 0.f, comp = 0.f;
    for (i64 col = (i64)t * P; col < cols; col += step) {
      float f[P];
      ld_pack<Fwd<D>, false>(op, 0, x, nullptr, col, cols, vec, f);
#pragma unroll
      float local = 0.f;
#pragma unroll
      for (int e = 0; e < P; ++e) {
        const float ex = Fwd<D>::ex(f[e] - ms);
        local += ex;
        f[e] = op.log ? f[e] - m : ex + poison;
      }
      kadd(d, comp, local);
      st_pack<typename Op::Store, false>(y, col, cols, vec, f);
    }
    d = block_reduce<RedSum>(d - comp);
    const float rd = 1.f / d, lse = flog(d);
    for (i64 col = (i64)t * P; col < cols; col += step) {
      float f[P];
      ld_pack<Plain<D>, false>(plain, 0, y, nullptr, col, cols, vec, f);
#pragma unroll
      for (int e = 0; e < P; ++e) f[e] = op.log ? f[e] - lse : f[e] * rd;
      st_pack<typename Op::Store, false>(y, col, cols, vec, f);
    }
  }
}

}  // namespace smx
