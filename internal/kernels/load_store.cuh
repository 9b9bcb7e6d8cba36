// load_store.cuh: load / store: 16-byte vector access with a masked scalar path
// and tail, dynamic shared memory, cp.async staging.
//
// One part of the shared device code: common.cuh includes the parts in
// order (each needs the ones before it); a strategy file includes common.cuh.
#pragma once

namespace smx {

// ---------------------------------------------------------------- load / store

#ifndef SMX_EMU  // dynamic shared memory
// Dynamic shared memory, 16-byte aligned, shared by every module's kernels.
__device__ __forceinline__ void* dyn_smem() {
  extern __shared__ V16 smx_dyn_smem[];
  return smx_dyn_smem;
}

#endif  // SMX_EMU

// Pack loads come in two halves so that several 16-byte loads can be in
// flight as raw registers before any is converted:
//   ld_raw  issues the 16-byte load of pack [col, col+P) when the vector path
//           applies (vec set and the pack whole) and stashes it if asked;
//   ld_cvt  turns it into P floats via op.conv (scale for Fwd), or, off the
//           vector path, loads element by element (and stashes), reading
//           Op::fill(i) at or past n.
// With STASH the raw elements are also copied to the same columns of `stash`
// (a shared-memory copy of the row).
template <class Op, bool STASH>
__device__ __forceinline__ void ld_raw(const typename Op::T* row, typename Op::T* stash, i64 col, i64 n, bool vec,
                                       V16& r) {
  if (vec && col + Op::D::P <= n) {
    r = *reinterpret_cast<const V16*>(row + col);
    if (STASH) *reinterpret_cast<V16*>(stash + col) = r;
  }
}

// The P floats of raw pack r of input i, through op.conv.
template <class Op>
__device__ __forceinline__ void unpack_conv(const Op& op, int i, const V16& r, typename Op::M* f) {
  Op::D::unpack(r, f);
#pragma unroll
  for (int e = 0; e < Op::D::P; ++e) f[e] = op.conv(i, f[e]);
}

template <class Op, bool STASH>
__device__ __forceinline__ void ld_cvt(const Op& op, int i, const V16& r, const typename Op::T* row,
                                       typename Op::T* stash, i64 col, i64 n, bool vec, typename Op::M* f) {
  typedef typename Op::D D;
  typedef typename D::T T;
  constexpr int P = D::P;
  if (vec && col + P <= n) {
    unpack_conv(op, i, r, f);
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e) {
      if (col + e < n) {
        T t = row[col + e];
        if (STASH) stash[col + e] = t;
        f[e] = op.conv(i, D::to_f(t));
      } else {
        f[e] = Op::fill(i);
      }
    }
  }
}

// Both halves at once.
template <class Op, bool STASH>
__device__ __forceinline__ void ld_pack(const Op& op, int i, const typename Op::T* row, typename Op::T* stash,
                                        i64 col, i64 n, bool vec, typename Op::M* f) {
  V16 r;
  ld_raw<Op, STASH>(row, stash, col, n, vec, r);
  ld_cvt<Op, STASH>(op, i, r, row, stash, col, n, vec, f);
}

#ifndef SMX_EMU  // inline-PTX loads, stores and asynchronous copies (sm_80+)
// r through an identity permute that ptxas cannot see through: Fwd::out_raw
// converts a raw pack again instead of ptxas merging that conversion with
// reduce_raw's (same register, same instruction) and keeping the converted
// values live across the block's barrier (the general build of the f16
// t256_p4 twin spilled 132 bytes so under nvcc 11.8; an empty asm leaves
// the PTX register as it was and changed nothing).
__device__ __forceinline__ V16 fresh(V16 r) {
#pragma unroll
  for (int i = 0; i < 4; ++i) asm volatile("prmt.b32 %0, %0, 0, 0x3210;" : "+r"(r.w[i]));
  return r;
}

// 16-byte global load. Spelled in PTX because a V16 dereferenced straight into
// unpack was split by the compiler into four 4-byte loads (SASS LDG.E x4 in
// cached_row's whole-pack path), a quarter of the bytes per load instruction.
__device__ __forceinline__ V16 ld16(const void* p) {
  V16 r;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.w[0]), "=r"(r.w[1]), "=r"(r.w[2]), "=r"(r.w[3])
               : "l"(p));
  return r;
}

// Streaming (evict-first) 16-byte global store: the output is not re-read, so
// it should not push the input out of L2 before a second pass re-reads it.
__device__ __forceinline__ void st_cs(void* p, const V16& r) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(r.w[0]), "r"(r.w[1]), "r"(r.w[2]),
               "r"(r.w[3])
               : "memory");
}

// Bytes of dynamic shared memory this launch was given.
__device__ __forceinline__ u32 dyn_smem_bytes() {
  u32 r;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
  return r;
}

// Shared-memory (CTA window) address of a generic pointer to shared memory.
__device__ __forceinline__ u32 smem_addr(const void* p) {
  u32 a;
  asm("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %1;\n\tcvt.u32.u64 %0, t;\n\t}" : "=r"(a) : "l"(p));
  return a;
}

// 16 bytes global -> shared, bypassing L1 (.cg): the data is read once.
__device__ __forceinline__ void cp_async16(void* sdst, const void* gsrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(sdst)), "l"(gsrc) : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until at most n of this thread's committed groups are pending.
__device__ __forceinline__ void cp_async_wait(int n) {
  switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  }
}

#endif  // SMX_EMU

// Elements from the 16-byte boundary at or before element offset at of q
// to q + at (0 when it sits on one; q is element-aligned, so this is below
// P): the lo of a row read from its pack boundary. Taken from the address,
// so tensors that all lie the same distance past a boundary (Params.vec ==
// 2 with unaligned pointers, plan.Problem.Skew) are read in packs as
// ragged rows of aligned ones are.
template <class D>
__device__ __forceinline__ int pack_lo(const typename D::T* q, i64 at) {
  const unsigned long long e = (unsigned long long)q / sizeof(typename D::T) + (unsigned long long)at;
  return (int)(e % D::P);
}

// A contiguous run staged in shared memory (strided_smem, flat_rows), or a
// ragged row's head (row_head): elements from element offset at of q to
// q's next 16-byte boundary (0 when it sits on one).
template <class D>
__device__ __forceinline__ int smem_head(const typename D::T* q, i64 at) {
  return (D::P - pack_lo<D>(q, at)) % D::P;
}

// Copies n elements from src into stash + shift, shift = (P - head) mod P
// so that src's 16-byte boundaries land on stash's: whole packs by
// cp.async, the head and tail element by element. The caller waits and
// synchronises.
template <class D>
__device__ __forceinline__ int smem_stage(const typename D::T* src, typename D::T* stash, int n) {
  constexpr int P = D::P;
  const int head = (int)imin(smem_head<D>(src, 0), n), shift = (P - head) % P;
  const int packs = (n - head) / P, tail = head + packs * P;
  typename D::T* const s = stash + shift;
  for (int k = threadIdx.x; k < packs; k += blockDim.x) cp_async16(s + head + k * P, src + head + k * P);
  for (int j = threadIdx.x; j < head; j += blockDim.x) s[j] = src[j];
  for (int j = tail + threadIdx.x; j < n; j += blockDim.x) s[j] = src[j];
  return shift;
}

// Stages elements [at, at + n) of every input of op in shared memory,
// input i in the region at base + i*region shifted to its 16-byte
// boundaries (smem_stage), and waits for the block's copies: s[i] is input
// i's first element there, shift[i] its shift.
template <class Op, class PT>
__device__ __forceinline__ void smem_stage_inputs(const Op& op, char* base, u32 region, i64 at, int n,
                                                  PT (&s)[Op::NIN], int (&shift)[Op::NIN]) {
  typedef typename Op::T T;
#pragma unroll
  for (int i = 0; i < Op::NIN; ++i) {
    T* const stash = reinterpret_cast<T*>(base + i * region);
    shift[i] = smem_stage<typename Op::D>(op.src(i) + at, stash, n);
    s[i] = stash + shift[i];
  }
  cp_async_commit();
  cp_async_wait(0);
  __syncthreads();
}

// Stores the P floats f as elements [col, col+P) of a row of length n,
// skipping columns at or past n. CS selects the streaming store hint.
template <class D, bool CS>
__device__ __forceinline__ void st_pack(typename D::T* row, i64 col, i64 n, bool vec, const typename D::M* f) {
  constexpr int P = D::P;
  if (vec && col + P <= n) {
    V16 r = D::pack(f);
    if (CS)
      st_cs(row + col, r);
    else
      *reinterpret_cast<V16*>(row + col) = r;
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (col + e < n) row[col + e] = D::from_f(f[e]);
  }
}

// st_pack for a row shifted back lo elements to its pack boundary
// (cached_row_general): columns before lo belong to the row before and
// are skipped; whole packs past them store 16 bytes at once when vec.
template <class D>
__device__ __forceinline__ void st_pack_from(typename D::T* row, i64 col, int lo, i64 n, bool vec,
                                             const typename D::M* f) {
  constexpr int P = D::P;
  if (vec && col >= lo && col + P <= n) {
    st_cs(row + col, D::pack(f));
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if (col + e >= lo && col + e < n) row[col + e] = D::from_f(f[e]);
  }
}

// st_pack_from for cached_row_masked: 32-bit columns, one compare an element.
template <class D>
__device__ __forceinline__ void st_pack_masked(typename D::T* row, int col, int lo, int n, const typename D::M* f) {
  constexpr int P = D::P;
  if (col >= lo && col + P <= n) {
    st_cs(row + col, D::pack(f));
  } else {
#pragma unroll
    for (int e = 0; e < P; ++e)
      if ((unsigned)(col + e - lo) < (unsigned)(n - lo)) row[col + e] = D::from_f(f[e]);
  }
}

}  // namespace smx
