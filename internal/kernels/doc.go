// Package kernels holds the CUDA C sources of the softmax kernel family and
// their Go catalogue. The sources are embedded (//go:embed *.cu *.cuh) and
// compiled at run time by NVRTC, with the headers (common.cuh and the parts
// it includes, split by purpose) passed in the header map: each kernel alone
// for one dtype (KernelSource, what package cuda loads), or a whole file for
// one or more dtypes (Strategy.Program, or Source with a DTypeMask). A .cu
// file defines device function templates only; the catalogue generates the
// kernels a compilation needs (Info.Instances: symbol, __launch_bounds__ and
// template instance, appended as SMX_KERNEL(name, bounds, body) lines). Every
// kernel is an extern "C" symbol named
// <strategy>_<fwd|bwd>_<f32|f16|bf16|f64>[_<variant>] and takes one parameter: a
// Params struct by value (kernelParams[0] = &params).
//
// Adding a kernel variant is a Variant in the strategy's list (variants.go)
// and, where its register budget was measured, a case of its bounds
// function (bounds.go); adding a pre- or post-op is a Load or Store functor
// (functors.cuh) and the op's instances. A new storage dtype is a traits
// struct (dtypes.cuh: its storage type T, math type M, pack P), its bit in
// Source's mask (gpuDTypes) and bounds; the ops and bodies compute in the
// traits' M (float for f32/f16/bf16, double for F64), and a strategy whose
// file is templated so says so in the catalogue (Info.F64 for float64).
//
// # Semantics
//
// softmax(scale·x) and log_softmax(scale·x) along the axis of an
// Outer × Axis × Inner view (element (o,j,i) at (o·Axis + j)·Inner + i),
// and their gradients (dx = y·(dy − Σdy·y), dx = dy − exp(y)·Σdy; scale
// does not apply). Storage f32/f16/bf16, arithmetic f32; storage f64,
// arithmetic f64 (exp and log CUDA's double ones). The scale is
// applied on load; the max is subtracted (no overflow); −inf entries give 0
// / −inf; an all −inf slice, or one holding NaN or +inf, gives NaN
// everywhere. The online (m, d) merge substitutes 0 for a −inf running
// max in the exponent so valid slices never see exp(−inf − −inf).
// exp is ex2.approx with log2 e split hi/lo (≈3 ulp, subnormals kept), the
// per-thread sums that run over many elements are Kahan-compensated and the
// cached ones pairwise, so f32 results stay within ~1e-6 of a float64
// reference of the same float32 products (scale·x and v − max are rounded
// to float32 as in PyTorch).
//
// # Strategies and launch contracts
//
// naive, smem_tree, block_vec and persistent are the teaching kernels (the
// seeds' steps, sources under teaching/, Info.Teaching): forceable with
// --algo and tested like the others, but not in Production, the planner's
// set.
//
// rows = Outer and cols = Axis for the row strategies (Inner == 1); nt is
// the block size; P = 16/esize elements per 16-byte pack; NIN = 1 forward,
// 2 backward. Unless noted, blocks grid-stride over rows (any grid of at
// most 2^31−1 blocks is correct), there is no workspace and no dynamic
// shared memory.
//
//	naive          naive_{fwd,bwd}_{dt}; any layout; block (nt) any size,
//	               grid ≥ 1, threads grid-stride over the Outer·Inner slices.
//	smem_tree      smem_tree_{fwd,bwd}_{dt}; rows; nt a power of two in
//	               [32, 1024]; dynamic smem nt·8 bytes.
//	block_vec      block_vec_fwd_{dt} (forward only); rows; nt multiple of 32
//	               ≤ 1024; exp written to y, normalized in place.
//	warp_row       warp_row_{fwd,bwd}_{dt}_w{W}_p{NP}; rows with cols ≤
//	               W·NP·P; block exactly (128); 128/W rows per block step.
//	               W ∈ {1,2,4,8,16} with NP = 1 (forward also NP = 2),
//	               W = 32 with NP ∈ {1,2,4,8} (backward NP ≤ 4).
//	block_reg      forward block_reg_fwd_{dt}_t{NT}_p{NP}: block exactly
//	               (NT), NT = 32 (one warp, shuffle reductions) with NP ∈
//	               1..8 for f32 and 1..4 for f16/bf16, NT = 64 with NP ∈ 1..8,
//	               128, 256, 512 and 1024 with NP ∈ 3..8, and
//	               t1024_p{5..8}_tail for rows of whole
//	               packs ending in the last pack; backward block_reg_bwd_{dt}_p{1,2,4}: nt
//	               multiple of 32, ≤ 1024 (p1, p2) or ≤ 512 (p4; ≤ 384 for
//	               its "_shift" twins, the f32 one's launch bound); rows with
//	               cols ≤ threads·NP·P; grid one block per row.
//	block_smem     block_smem_{fwd,bwd}_{dt}; rows; nt multiple of 32 ≤ 512;
//	               dynamic smem NIN·roundup(cols·esize, 16) (raise
//	               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES above 48 KB).
//	online_2pass   online_2pass_{fwd,bwd}_{dt}; rows of any length; nt multiple
//	               of 32 ≤ 512.
//	split_row      split_row_{fwd,bwd}_{dt}_phase{1,2}, launched in that order
//	               with the same grid and block (x: ≤ Split blocks a row;
//	               y: rows, ≤ 65535; both grid-stride); nt multiple of 32 ≤
//	               512; a row's Split blocks stream it as one virtual block
//	               of Split·nt threads (Split·nt < 2^31); workspace
//	               rows·Split float pairs (8 bytes), written entirely by
//	               phase 1 (no clearing needed).
//	split_cluster  split_cluster_{fwd,bwd}_{dt} (sm_90+); cluster (C,1,1),
//	               C ≤ 8 (≤ 16 non-portable), launched with cuLaunchKernelEx;
//	               grid (C, ≤ 65535 rows, 1); nt multiple of 32 ≤ 1024;
//	               Params.Chunk per block (multiple of P), Split = C,
//	               C·Chunk ≥ cols (traps otherwise); dynamic smem
//	               NIN·roundup(Chunk·esize, 16) + SplitClusterSlotBytes(dt)
//	               (a one-row cluster's pushed partials).
//	split_grid     split_grid_{fwd,bwd}_{dt}[_waves] (sm_70+); one 1-D launch
//	               with CU_LAUNCH_ATTRIBUTE_COOPERATIVE (every block
//	               resident), grid G ≥ Split blocks: rows in waves of
//	               G/Split (the rest of the blocks idle);
//	               the plain kernels need one wave (G ≥ rows·Split), _waves
//	               takes any; nt multiple of 32 ≤ 1024; Params.Chunk per block
//	               (multiple of P when Vec), Split blocks per row; dynamic
//	               smem a multiple of NIN·16 bytes, the chunk's cache; Params.Bar
//	               G/Split barrier words (one per row of a wave) private to
//	               the stream, their low 31 bits zero (each barrier of a
//	               row's blocks adds 2^31 to its word); workspace
//	               rows·Split float pairs.
//	strided        strided_{fwd,bwd}_{dt}: block (TX, TY) with TY a power of two,
//	               TX·TY ≤ 256 and TX·TY·VW ≤ 1024, VW = P when Params.Vec
//	               (Inner % P == 0, aligned pointers: P slices per thread,
//	               16-byte accesses) else 1; grid x ≤ tiles =
//	               Outer·ceil(Inner/(TX·VW)), grid-stride. Split along the
//	               axis: _split1 then _split2, same grid with y = Split ≤ 65535
//	               chunks of Params.Chunk axis elements; workspace
//	               Outer·Inner·Split float pairs. The _shift twins of
//	               each (Params.Vec = 2, any Inner and alignment) take
//	               VW = P slices a thread, TX apart, scalar accesses.
//	strided_reg    strided_reg_{fwd,bwd}_{dt}_g{G}, G ∈ {8,16,32}:
//	               Inner % P == 0 and aligned pointers (Params.Vec = 1); the
//	               _shift twins (Params.Vec = 2) any Inner and alignment,
//	               thread x's P columns at inner indices x, x+G, ... of the
//	               tile, one scalar access each, blocks of at most 512
//	               threads (StridedRegShiftThreads); a
//	               tile of G·P inner indices over the axis, block b caching
//	               axis rows [rank·Chunk, rank·Chunk + Chunk) of tile b/K,
//	               8 packs a thread (32 f32 values as floats, 64
//	               f16/bf16 values packed; backward 4 packs of y and 4
//	               of dy, raw: StridedRegBwdPacks); block (nt),
//	               nt a multiple of 32, (nt/G)·NP ≥ Chunk, (nt/32)·G·P ≤
//	               4096; grid (tiles·K) exactly, one tile per cluster;
//	               cluster (K,1,1) for K > 1 (sm_90+), Split = K, K·Chunk ≥
//	               Axis (traps otherwise).
//	strided_short  strided_short_{fwd,bwd}_{dt}_a{A}: Params.Axis == A
//	               (2..16 forward, 2..8 backward, every dtype);
//	               strided_short_{fwd,bwd}_{dt}_p{H}: lane pairs, Axis
//	               2H-1 or 2H (H 9..16 forward, 5..8 backward); _q{H}:
//	               four lanes, Axis 4H-3..4H (H 9..12 forward, 5..8
//	               backward); traps otherwise. block (nt) ≤ 256, nt a
//	               multiple of 32, grid-stride. Vec = 1 (Inner % P == 0,
//	               aligned pointers): a 16-byte pack of P slices a thread
//	               (T lanes 32/T apart for p{H}, q{H}) over Outer·Inner/P
//	               packs;
//	               the _shift twins (Vec = 2, any Inner and alignment): 4
//	               slices a lane (2 where rows-a-lane·NIN > 8), 32/lanes
//	               apart, warps over consecutive slices o·Inner + i across
//	               outer indices.
//	strided_narrow strided_narrow_{fwd,bwd}_{dt}_h{H}, H ∈ {1,2,4,8}
//	               packs a thread (16-bit backward to 4): Inner a power of
//	               two from 2 to 8 packs; Split = GW ∈ {1,2,4,8} warps an
//	               outer index, ceil(Axis·Inner/P) ≤ 32·GW·H; block (256)
//	               exactly, 256/(32·GW) outer indices a block, grid-stride
//	               over Outer; Vec = 1 (aligned pointers, Axis·Inner a
//	               multiple of P) or 2 (the _shift twins, scalar accesses,
//	               any alignment); traps otherwise.
//	strided_smem   strided_smem_{fwd,bwd}_{dt}[_tiles]: any Inner and
//	               alignment; a block a tile of Chunk consecutive outer
//	               indices (Chunk > 1 only in the _tiles kernels), grid-
//	               stride over tiles; block nt ≤ 512, a multiple of 32;
//	               Split = row groups a column (1..Axis); dynamic shared
//	               memory StridedSmemBytes (the tile's copies, shifted to
//	               the 16-byte boundaries, then its columns' constants and
//	               the row groups' partials); Vec unused; traps otherwise.
//	flat_rows      flat_rows_{fwd,bwd}_{dt}_w{W}_n{N}, W ∈ {4,8,16,32}
//	               lanes a row, N ∈ {4,5,6,8,10,12,16} values a lane;
//	               rows (Inner = 1) of ≤ W·N columns, any alignment; a
//	               block a tile of Chunk consecutive rows, grid-stride
//	               over tiles; block nt ≤ 256, a multiple of 32; dynamic
//	               shared memory FlatRowsBytes (the tile's copies, shifted
//	               to the 16-byte boundaries); Vec unused; traps otherwise.
//	persistent     persistent_{fwd,bwd}_{dt}_{w32_p{NP}|b_p{NP}|2pass}; rows;
//	               grid = occupancy × SMs; w32: block ≤ 256, one warp per row,
//	               cols ≤ 32·NP·P; b: nt ≤ 512, cols ≤ nt·NP·P; 2pass: any
//	               cols, nt ≤ 512. NP ∈ {1,2,4} forward, {1,2} backward.
//
// Params.Vec = 1 selects the 16-byte path; the host may set it only when
// x, y (and dy) are 16-byte aligned and every row (or chunk) start is too:
// cols·esize a multiple of 16 or a single row (row strategies), Inner a
// multiple of P (strided). Partial packs at a row's end take a scalar tail.
// With Vec = 0 the same kernels use scalar accesses.
//
// # Resources (nvcc 11.8 ptxas, sm_90; resources/<arch>.tsv has every kernel)
//
// Spills on sm_90: block_reg fwd t1024 p5..p8 and the p5..p8 "_tail"
// kernels for f16/bf16 (4-836 B: up to 64 values at the 64 registers of a
// 1024-thread bound) and bf16 t512 p5 (8 B), none picked automatically
// (16-bit threads take at most 4 packs); the f16/bf16 block_hybrid kernels
// of 8-12 shared-memory packs (4-28 B), the
// f16/bf16 pipelined kernels (12-28 B) and the strided_reg kernels (f16/bf16
// 4-8 B: 64 packed values at the 64 registers of a 1024-thread bound; f32 g8
// and g16 8 B since the select-free load loop for threads whose packs are
// all in range; that loop was timed only together with the other cuts of
// the same change, not against a spill-free build); the ragged-row twins
// of block_reg's 16-bit t1024 p6..p8 (44-360 B; reachable only for fewer
// rows than SMs of over 16K 16-bit columns) and of block_smem's 16-bit
// kernels (16-20 B), split_grid_bwd_bf16_waves (4 B) and the 16-bit
// strided_short p11 and q10 kernels (4-16 B at 80 or 128 registers,
// ptxas's choice with no register bound); strided_reg's "_shift" twins
// (f32 16-36 B; f16/bf16 176-188 B: 64 scalar loads in flight, a register
// each until packed, at the 64 registers of two 512-thread blocks an SM,
// which ran 5-27% faster than one block at 128 registers and no spill);
// bf16 warp_row forward w2..w16 p2 (8 B at their 40-register bound, 12
// blocks of 128 an SM: at 55-68 registers they ran slower than one pack a
// lane).
// Registers per thread
// for f32 / f16 (bf16 as f16 within a few registers), static shared memory
// in bytes:
//
//	warp_row fwd   w1..w16 p1 31-35/38-42, w1..w16 p2 39-40 (bound 40), w32 p1 34/42, p2 45/61, p4 71/93, p8 128/128; 0
//	warp_row bwd   w1..w16 32-54, w32 p1 34/48, p2 54/72, p4 71/104; 0
//	block_reg      fwd t32 31-64 / 38-64 (bound 64), t64..t1024 32-79 / 36-128 (p ≤ 4: ≤ 72); bwd p1 30/41, p2 46/60, p4 78/118; 256 / 128 (t32: 0)
//	block_smem     fwd 58/64, bwd 64/64; 256 / 128
//	online_2pass   fwd 60/46, bwd 64/64; 256 / 128
//	split_row      fwd 32/56-62, bwd 32-48/64; 256 / 128
//	split_cluster  fwd 54/52, bwd 54/63 (NVRTC 13, with the push: fwd 60/64, bwd 64/64); 272 / 144
//	split_grid     fwd 60/51, bwd 62/54, _waves 60-64; 256 / 128
//	strided        f32 57-76, f16 56-100 (_shift twins f32 72-80, 16-bit 97-128, bounded); 16384 fwd / 8192 bwd
//	strided_reg    64; 8704-34944 (nvcc 11.8, pulled partials); 10760-43144 with the pushed partials' slots (NVRTC 13)
//	strided_short  a{A}: fwd f32 34-95, 16-bit 40-93 (packed tiles, 9-16 rows, 91-225); bwd f32 32-79, 16-bit 44-84 (packed, 5-8 rows, 80-150); p{H}: fwd f32 64-122, 16-bit 128-254, bwd f32 59-80, 16-bit 91-163; q{H}: fwd f32 78-97, 16-bit 128-227, bwd f32 61-80, 16-bit 93-164; _shift twins 60-128; 0
//	strided_narrow h1/h2 54-64, h4 78-80, h8 (and 16-bit bwd h4) 116-128, twins alike (bounds: 4, 3, 2 blocks of 256 an SM); 4096
//	strided_smem   31-40 (f32 _tiles backward 64); 0 (its shared memory is dynamic)
//	flat_rows      fwd 23-54, bwd 32-64; 0 (its shared memory is dynamic)
//	persistent     32-102
//	naive 32, smem_tree 20-22, block_vec 46/62
//
// resources.sh regenerates the per-architecture tables with NVRTC; the
// TestNvccCompiles test (SMX_NVCC=1) compiles every file for sm_80 and sm_90
// and fails on sm_90 spills other than the documented ones above (sm_80 has
// 4-12 byte spills in three strided kernels, and 44 bytes in
// strided_narrow's 16-bit forward h4 and h8 kernels, none on sm_90). It took 521 s under nvcc 11.8
// with strided_short's 84 kernels (252 since session 34), near go test's
// default 10-minute limit: run it with -timeout 20m.
//
// # CPU check without a GPU
//
// emu/run.sh compiles the generated sources (WriteSources) as host C++ (emu/emu.h supplies CUDA
// builtins and the inline-PTX primitives, which the headers fence with
// SMX_EMU; threads are fibers, blocks run one at a time) and runs the
// planner's launches for ~8200 cases (every strategy but split_cluster and
// split_grid, every dtype, op and alignment, special values, grid-stride
// loops) against a float64 reference: 0 failures at 2e-6 (f32) / 2e-3 (f16)
// / 1.6e-2 (bf16) / 1e-13 (f64, element-wise), with the f32 reference
// forming scale·x and v − max in float32. SMX_EMU_DTYPE=f64 (the
// environment of TestEmuCases) writes the f64 cases alone. It then builds the strategies with a plain-softmax build
// (block_reg) again with SMX_PLAIN=1 and runs them on the forward softmax
// cases at scale 1 (177 cases, slice maxima on both sides of
// fexp_shift_max).
//
// NVRTC note: NVRTC 11.8 crashes (unbounded recursion) compiling these
// sources with -lineinfo when an inlined device function containing a
// division, rcp or ex2.approx sits on another line than its call; without
// -lineinfo they compile. Newer NVRTC releases are not known to have the
// problem; drop -lineinfo if nvrtcCompileProgram ever overflows its stack.
package kernels
