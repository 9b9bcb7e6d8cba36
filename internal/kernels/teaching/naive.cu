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
  typedef Fwd<D> Op;
  const Op op(p);
  const i64 axis = p.axis, inner = p.inner, slices = p.outer * p.inner;
  for (i64 s = (i64)blockIdx.x * blockDim.x + threadIdx.x; s < slices; s += (i64)gridDim.x * blockDim.x) {
    const i64 o = s / inner, i = s - o * inner;
    const typename D::T* x = op.x + o * axis * inner + i;
    typename D::T* y = op.y + o * axis * inner + i;
    float m = neg_inf();
    for (i64 j = 0; j < axis; ++j) m = fmax2(m, op.conv(0, D::to_f(x[j * inner])));
    const float ms = safe(m);
    float d = 0.f, comp = 0.f;  // Kahan: long slices keep float32 accuracy
    for (i64 j = 0; j < axis; ++j) kadd(d, comp, fexp(op.conv(0, D::to_f(x[j * inner])) - ms));
    const typename Fwd<D>::Fin f = op.finalize(MD{m, d - comp});
    for (i64 j = 0; j < axis; ++j) y[j * inner] = Op::Store::from_f(op.out1(op.conv(0, D::to_f(x[j * inner])), 0.f, f));
  }
}

template <class D>
__device__ __forceinline__ void naive_bwd(const Params& p) {
  typedef Bwd<D> Op;
  const Op op(p);
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
      op.dx[base + j * inner] = Op::Store::from_f(op.out1(y, g, f));
    }
  }
}

}  // namespace smx
