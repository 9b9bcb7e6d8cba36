package kernels

// The __launch_bounds__ of the kernel families whose register budgets were
// measured, kernel by kernel (Instance). A bound's second number is the
// blocks an SM the kernel must fit, so ptxas holds it to
// 65536 / (threads × blocks) registers a thread.

import "fmt"

// warpRowBlocks: 128 threads, at least 4 blocks an SM (<= 128 registers)
// unless listed here.
//   - Two packs a lane in sub-warp groups (w1..w16 _p2: two rows or more a
//     warp) at <= 40 registers, 12 blocks an SM like the one-pack kernels:
//     under (128, 4) NVRTC 13 gave them 55-68 registers and 8 blocks, and
//     rows of 50 f32 / 100 bf16 columns ran 5-100% slower than one pack a
//     lane (H200, -ab-s39.txt §2); at (128, 12) bf16 w2..w16 _p2 spill 8
//     bytes (nvcc 11.8).
//   - Three packs a lane: f32 at 12 (40 registers, no spills); f16/bf16
//     twins at 10, 48 registers; their whole-pack kernels spilled 8-24
//     bytes there, so they take 8: 63-64 registers, 49-51 in the plain
//     build (nvcc 11.8, sm_90; -ab-s41.txt §1).
//   - Backward two-pack groups (w1..w16 _p2) and the 16-bit masked w32_p2
//     twins: f32 at 10, 40-47 registers (12 spilled 8 bytes in the twins);
//     f16/bf16 at 6, 62-75 (nvcc 11.8, no spills; the twins took 79-80
//     before cached_row_masked's 32-bit columns).
func warpRowBlocks(c kcase) int {
	w, p := c.v.Lanes, c.v.Packs
	switch {
	case p == 1:
		return 4
	case !c.backward && w < 32 && (p == 2 || c.wide()):
		return 12
	case !c.backward && w < 32 && c.shift:
		return 10
	case !c.backward && w < 32:
		return 8
	case c.backward && p == 2 && (w < 32 || c.shift && !c.wide()):
		if c.wide() {
			return 10
		}
		return 6
	}
	return 4
}

// blockRegInstance: forward kernels for one block size (NT threads × NP
// packs), backward for any block up to their bound.
//   - One-warp blocks: at least 32 blocks an SM (at most 64 registers).
//   - f32 t512 p3/p4 ask for three blocks an SM (40 registers; 52 and 43
//     without): the planner takes them over t256 p6..p8 where that raises
//     the resident threads and the rows make 7 waves (plan.blockRegWide).
//     H200 harness, 4096 rows, L2 flushed, µs: 6144 f32 t256_p6 54.9 ->
//     t512_p3 at (512, 3) 53.8 (at 512 alone, two blocks an SM: 61.0), 7168
//     t256_p7 62.8 -> t512_p4 62.1, 8192 t256_p8 71.6 -> 70.8
//     (bench/results/nvidia-h200-2026-11-22-ab-s22.txt).
//   - The "_exact" kernels (16-bit only, see block_reg_exact_kernel): 32
//     64-thread blocks an SM (the SM's limit), 24 and 12 of four packs at
//     64 and 128 threads, 10 of 128 × 8 packs.
//   - Forward "_shift" twins: blockRegShiftBlocks.
//   - Backward f32 twins: the one-pack twin at 32 registers (1024, 2), as
//     before the masked body: at NVRTC 13's 46, 65536×1024 f32
//     softmax_backward (skewed, 288 threads a block) ran 228.6 µs against
//     211.2 (H200, -ab-s46.txt §1); at 32, with 16 bytes spilled under
//     NVRTC 13, 192.8 (§3). The four-pack twins get blocks of at most 384
//     threads from the planner (Variant.ShiftMaxThreads: spans to 1536
//     packs; the two-pack twins take longer ones); f32's runs at (384, 2)
//     (nvcc 11.8 and NVRTC 13: 80 registers instead of 98/100, no spill),
//     so that a span past 1024 packs (288..384 threads) keeps two blocks
//     and one of 256 threads three. The 16-bit ones keep their 512 bound:
//     at (384, 2) they spilled 212 bytes, and bounded by 384 alone they
//     took 168 registers (128 at 512: two blocks of 256 threads, the most
//     the planner gives them).
func blockRegInstance(c kcase) (string, int, int) {
	v := c.v
	if c.backward {
		b := body("smx::block_reg_kernel", c.op(), v.Packs)
		if c.shift {
			b = body("smx::block_reg_kernel", c.op(), v.Packs, 0, false, true)
		}
		switch {
		case c.shift && c.wide() && v.Packs == 1:
			return b, 1024, 2
		case c.shift && c.wide() && v.Packs == 4:
			return b, 384, 2
		}
		return b, 0, 0
	}
	nt := v.FixedBlock
	switch {
	case v.Exact:
		return body("smx::block_reg_exact_kernel", c.op(), v.Packs, nt), nt, blockRegExactBlocks[[2]int{nt, v.Packs}]
	case v.Tail:
		return body("smx::block_reg_kernel", c.op(), v.Packs, nt, true), nt, 0
	case nt == 32:
		return body("smx::block_reg_kernel", withShift2(c, c.op(), v.Packs, nt)...), 32, 32
	case c.shift:
		return body("smx::block_reg_kernel", c.op(), v.Packs, nt, false, true), nt, blockRegShiftBlocks(c)
	case c.wide() && nt == 512 && (v.Packs == 3 || v.Packs == 4):
		return body("smx::block_reg_kernel", c.op(), v.Packs, nt), nt, 3
	}
	return body("smx::block_reg_kernel", c.op(), v.Packs, nt), nt, 0
}

// withShift2 appends block_reg's (TAIL, SHIFT) = (false, true) for a twin.
func withShift2(c kcase, args ...any) []any {
	if c.shift {
		return append(args, false, true)
	}
	return args
}

// blockRegExactBlocks is the blocks an SM of the "_exact" kernels by
// {threads, packs}.
var blockRegExactBlocks = map[[2]int]int{{64, 2}: 32, {64, 4}: 24, {128, 4}: 12, {128, 8}: 10}

// blockRegShift lists, by dtype and block size, the blocks an SM of the
// forward "_shift" twins of 1, 2, ... packs (0 or past the list: the
// thread count alone bounds them, 64 registers at 1024 threads). Each asks
// for the blocks an SM its whole-pack twin reaches (its nvcc 11.8 registers
// rounded up to 8), one fewer where that spilled; unbounded, the masked body
// beside the general one took up to 2.8x the registers (f32 t256_p8 63 ->
// 175, t512_p8 63 -> 69: one resident block instead of two).
var blockRegShift = map[string]map[int][]int{
	"f32": {
		64:   {25, 25, 24, 18, 18, 16, 14, 12},
		128:  {12, 12, 12, 10, 9, 8, 8, 8},
		256:  {8, 8, 6, 5, 5, 4, 4, 4},
		512:  {4, 4, 3, 3, 2, 2, 2, 2},
		1024: {2, 2},
	},
	"f16": {
		64:   {25, 20, 16, 16, 10, 12, 8, 8},
		128:  {12, 10, 8, 8, 7, 6, 4, 4},
		256:  {6, 5, 4, 4, 3, 3, 2, 2},
		512:  {3, 2, 2, 2},
		1024: {2},
	},
	"bf16": {
		64:   {25, 20, 16, 14, 10, 12, 8, 9},
		128:  {12, 10, 8, 7, 6, 6, 4, 4},
		256:  {6, 5, 4, 3, 3, 3, 2, 2},
		512:  {3, 2, 2, 2},
		1024: {2},
	},
}

func blockRegShiftBlocks(c kcase) int {
	l := blockRegShift[c.dt.String()][c.v.FixedBlock]
	if c.v.Packs <= len(l) {
		return l[c.v.Packs-1]
	}
	return 0
}

// blockHybridInstance: at most 64 registers a thread, two 512-thread blocks
// an SM or one of 1024.
func blockHybridInstance(c kcase) (string, int, int) {
	nt := c.v.FixedBlock
	if c.backward {
		return body("smx::block_hybrid_bwd_kernel", c.op(), nt, c.v.SmemPacks), nt, 1
	}
	return body("smx::block_hybrid_kernel", withShift(c, c.op(), nt, c.v.SmemPacks)...), nt, 1024 / nt
}

// stridedInstance: "", "split1", "split2" are strided_kernel<Op, 0..2>.
// The twins' bounds hold them to the aligned kernels' blocks an SM (3 f32,
// 2 f16/bf16; nvcc 11.8 sm_90, no spills): unbounded, their VW scalars a
// step took 102 registers (f32) and 190-198 (16-bit) forward, one block an
// SM for the 16-bit ones.
func stridedInstance(c kcase) (string, int, int) {
	k := 0
	fmt.Sscanf(c.v.Name, "split%d", &k)
	if !c.shift {
		return body("smx::strided_kernel", c.op(), k), 0, 0
	}
	blocks := 2
	if c.wide() {
		blocks = 3
	}
	return body("smx::strided_shift_kernel", c.op(), k), 0, blocks
}

// stridedRegInstance: the twins' bound, every dtype: 512 threads, two blocks
// an SM (64 registers). A 16-bit twin's 64 scalar loads in flight take a
// register each until packed, beside its 32 packed ones: at 64 registers
// ptxas spills 176-188 B a thread (nvcc 11.8 sm_90), yet it ran faster than
// at 128 registers and one block an SM (H200, -ab-s35.txt §2, µs:
// 500×64×1001 f16 101.3 vs 121.5, 3986×12487 f16 axis 0 205.4 vs 261.2,
// 2000×63×333 bf16 log_softmax 201.4 vs 274.1; 4000×60×37 bf16 78.4 vs
// 74.1).
func stridedRegInstance(c kcase) (string, int, int) {
	var g int
	fmt.Sscanf(c.v.Name, "g%d", &g)
	fn := "smx::strided_reg_kernel"
	if c.backward {
		fn = "smx::strided_reg_bwd_kernel"
	}
	b := body(fn, c.d(), g, c.shift)
	if c.shift {
		return b, StridedRegShiftThreads, 2
	}
	return b, 0, 0
}

// stridedNarrowInstance: 256 threads; the bounds are the most blocks an SM
// at which ptxas spilled nothing (nvcc 11.8 sm_90): four for 1-2 packs a
// thread, three for 4, two for 8 and for 16-bit backward's 4 (64 floats).
// A thread of 16 f32 packs spilled 172 bytes at two blocks, so f32 stops at
// 8 (GW warps instead).
func stridedNarrowInstance(c kcase) (string, int, int) {
	h := c.v.Packs
	blocks := 4
	switch {
	case h == 8 || h == 4 && c.backward && !c.wide():
		blocks = 2
	case h == 4:
		blocks = 3
	}
	return body("smx::strided_narrow_kernel", c.op(), h, c.shift), 0, blocks
}
