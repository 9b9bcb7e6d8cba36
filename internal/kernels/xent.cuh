// xent.cuh: the parameter block of the cross-entropy kernels (xent.cu),
// apart so that the host emulator's driver can fill it.
#pragma once

namespace smx {

// XParams mirrors kernels.XParams in Go (size 208, alignment 8). The
// per-row buffers (loss, lse, lse_in, grows) hold the math type M of the
// row kernel's dtype: float, double for F64 (XF_F64 tells the dtype-free
// xent_final); the option scalars are double, rounded to M once a kernel.
struct XParams {
  const void* x;       //   0 logits, rows × v
  void* grad;          //   8 gradient out (may be x), or null
  const void* tgt;     //  16 targets (int32, or int64 with XF_T64); null with XF_NOTGT
  const float* w;      //  24 class weights (v), or null
  void* loss;          //  32 per-row loss out (or log p[t] with XF_TLP), or null
  void* lse;           //  40 per-row lse out (M, or the logits' dtype with XF_LSE_NATIVE), or null
  const void* lse_in;  //  48 saved lse (backward), or null
  const void* grows;   //  56 per-row grad-output, or null
  double* stats;       //  64 [Σ w_t, count, W], written by xent_prep
  long long* bad;      //  72 [first bad row or -1, its target]
  void* out;           //  80 reduced loss (one M), xent_final
  long long rows;      //  88
  long long v;         //  96
  long long ignore;    // 104
  double scale;        // 112
  double softcap;      // 120 0: off
  double eps;          // 128 label smoothing
  double zloss;        // 136
  double gout;         // 144 scalar grad-output
  int flags;           // 152 XF_*
  int vec;             // 156 1: grad shares x's 16-byte skew (vector stores)
  long long inner;     // 160 xent_lse_cols: elements after the axis (rows × v × inner)
  // The shard_* kernels (shard.cuh): x holds this rank's columns [lo, lo + v) of vall.
  void* rec;           // 168 per-row records: this rank's (shard_stats), every rank's (the others)
  const void* dy;      // 176 shard_bwd: the output gradient (y in x, dx in grad)
  long long lo;        // 184 the rank's first global column
  long long vall;      // 192 the global class count
  int nranks;          // 200 records a row in rec
  int op;              // 204 SH_* (shard.cuh)
};
static_assert(sizeof(XParams) == 208, "XParams layout is mirrored in Go");

enum {
  XF_T64 = 1,         // targets are int64
  XF_MEAN = 2,        // reduction mean: gradient scale g/Σ w_t, final divides
  XF_NOTGT = 4,       // no targets: log-sum-exp only
  XF_TLP = 8,         // loss is log p[t]
  XF_LSE_NATIVE = 16, // lse stored in the logits' dtype
  XF_F64 = 32,        // float64 logits: the per-row buffers and out are double
};

// XParams.op of the shard_* kernels (shard.cuh).
enum {
  SH_SOFTMAX = 0,  // shard_apply: y = softmax; shard_bwd: softmax's gradient
  SH_LOG = 1,      // log-softmax (either)
  SH_XENT = 2,     // shard_apply: lse, loss, gradient as xent_row
};

constexpr int SH_REC = 4;  // values a shard record (m, d, z_t, dot)

// Per-thread statistics: online (m, d) and Σ w_j z_j.
template <class M>
struct XStat {
  M m, d, dot;
};

}  // namespace smx
