// naive: one thread per slice, the teaching baseline. Forward makes three
// sweeps over the slice (max, sum of exp, write), backward two (sum, write),
// with scalar loads; any layout (element (o, j, i) at (o*axis + j)*inner + i;
// for Inner == 1 adjacent threads walk adjacent rows, so loads do not
// coalesce: that is the point of the lesson).
//
// Launch contract:
//   block  (nt, 1, 1), nt <= 1024 (128 is typical)
//   grid   (g, 1, 1), g <= ceil(outer*inner / nt); threads grid-stride over slices
//   smem   none; workspace none
//   symbol naive_{fwd,bwd}_{f32,f16,bf16}
#include "common.cuh"

namespace smx {

template <class D>
__device__ __forceinline__ void naive_fwd(const Params& p) {
  const Fwd<D> op(p);
  const i64 axis = p.axis, inner = p.inner, slices = p.outer * p.inner;
  for (i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x; s < slices; s += (i64)gridDim.x * blockDim.x) {
    const i64 o = s / inner, i = s - o * inner;
    const typename D::T* x = op.x + o * axis * inner + i;
    typename D::T* y = op.y + o * axis * inner + i;
    float m = neg_inf();
    for (i64 j = 0; j < axis; ++j) m = fmax2(m, D::to_f(x[j * inner]) * op.scale);
    const float ms = safe(m);
    float d = 0.f, comp = 0.f;  // Kahan: long slices keep float32 accuracy
    for (i64 j = 0; j < axis; ++j) kadd(d, comp, fexp(D::to_f(x[j * inner]) * op.scale - ms));
    const typename Fwd<D>::Fin f = op.finalize(MD{m, d - comp});
    for (i64 j = 0; j < axis; ++j) y[j * inner] = D::from_f(op.out1(D::to_f(x[j * inner]) * op.scale, 0.f, f));
  }
}

template <class D>
__device__ __forceinline__ void naive_bwd(const Params& p) {
  const Bwd<D> op(p);
  const i64 axis = p.axis, inner = p.inner, slices = p.outer * p.inner;
  for (i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x; s < slices; s += (i64)gridDim.x * blockDim.x) {
    const i64 o = s / inner, i = s - o * inner;
    const i64 base = o * axis * inner + i;
    float sum = 0.f, comp = 0.f;
    for (i64 j = 0; j < axis; ++j) {
      float y, g;
      load1(op, base + j * inner, y, g);
      op.push1(sum, comp, y, g);
    }
    const typename Bwd<D>::Fin f = op.finalize(Bwd<D>::fold(sum, comp));
    for (i64 j = 0; j < axis; ++j) {
      float y, g;
      load1(op, base + j * inner, y, g);
      op.dx[base + j * inner] = D::from_f(op.out1(y, g, f));
    }
  }
}

}  // namespace smx

// Kernels (one extern "C" symbol each; the dtype blocks follow SMX_DTYPES).
#if SMX_DTYPES & 1
SMX_KERNEL(naive_fwd_f32, 1024, smx::naive_fwd<smx::F32>)
SMX_KERNEL(naive_bwd_f32, 1024, smx::naive_bwd<smx::F32>)
#endif
#if SMX_DTYPES & 2
SMX_KERNEL(naive_fwd_f16, 1024, smx::naive_fwd<smx::F16>)
SMX_KERNEL(naive_bwd_f16, 1024, smx::naive_bwd<smx::F16>)
#endif
#if SMX_DTYPES & 4
SMX_KERNEL(naive_fwd_bf16, 1024, smx::naive_fwd<smx::BF16>)
SMX_KERNEL(naive_bwd_bf16, 1024, smx::naive_bwd<smx::BF16>)
#endif
