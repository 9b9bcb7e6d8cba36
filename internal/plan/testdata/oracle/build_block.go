package oracle

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// blockRegMinThreads: backward block_reg takes the most packs per thread
// that still leaves a block of at least this many threads. On H200 (4096
// rows, f32, harness runs of the same body) 256 threads × 4 packs ran 4096
// columns at 0.97 of copy speed, 128 × 8 at 0.95, 512 × 2 at 0.95; 8192
// columns ran 256 × 8 at 0.99 vs 512 × 4 at 0.94: fewer, fuller threads
// issue fewer instructions per element, and 256 threads keep enough warps
// per row.
const blockRegMinThreads = 256

// blockRegShape picks block_reg's variant and block size.
func (c *ctx) blockRegShape() (v kernels.Variant, nt int64, err error) {
	in := kernels.BlockReg.Info()
	ok := false
	if c.bwd {
		v, nt, ok = c.blockRegRuntimeBlock(in.Variants(true))
	} else {
		v, ok = c.blockRegFixedBlock(in)
		nt = int64(v.FixedBlock)
	}
	if !ok {
		return v, 0, fmt.Errorf("rows of %d elements exceed its register cache (%d)", c.p.Axis, in.MaxCols(c.p.Op, c.dt))
	}
	return v, nt, nil
}

// blockRegFixedBlock picks a forward kernel (compile-time block size): the
// first variant (block sizes ascending, then packs) whose block covers the
// row at <= kernels.BlockRegValues values a thread (6144 f32: 256 × 6; 1024
// f32: 32 × 8, one warp), else the first that covers it (16-bit rows beyond 1024
// threads × 4 packs: more packs, with spills, never chosen automatically);
// f32 rows of 6..8 packs at 256 threads may then widen (blockRegWide).
// Rows of whole packs that end inside the last pack take the variant's
// "_tail" kernel where there is one (4096×32000 f32: 0.82 -> 0.93 of copy
// on H200).
func (c *ctx) blockRegFixedBlock(in kernels.Info) (kernels.Variant, bool) {
	packs := c.packs()
	v, ok := c.blockRegFixedFor(in, packs)
	if !ok {
		return v, false
	}
	if c.ragged() && c.es == 2 {
		// sized by the row where the twin holds the span's overhang
		if w, ok := c.blockRegFixedFor(in, ceilDiv(c.p.Axis, c.P)); ok && blockRegOverhang(w) {
			v = w
		}
	}
	if ev, ok := c.blockRegExact(in, v); ok {
		return ev, true
	}
	nt := int64(v.FixedBlock)
	if c.vec() && c.p.Axis%c.P == 0 && packs > nt*int64(v.Packs-1) && packs < nt*int64(v.Packs) {
		if tv, ok := in.Variant(false, v.Name+"_tail"); ok {
			v = tv
		}
	}
	return v, true
}

// blockRegExact trades blockRegFixedBlock's pick v for the catalogue's
// "_exact" twin of as many packs as the row (block_reg.cu: a kernel with
// no other body, the row held raw at NP*4 registers a thread, each exp
// taken twice, bounded to more resident blocks) for 16-bit forward rows
// from aligned pointers that fill v's block of four packs a thread
// exactly, when the twin's blocks, one a row, fill more threads than v's
// resident blocks hold over the SMs. The
// twins of 2048 and 4096 columns keep v's block and raise its blocks an SM
// (NVRTC 13: 18 → 24 at 64 threads, 9 → 12 at 128); those of 1024 and 8192
// columns halve it (t32_p4 → t64_p2 at 32 blocks an SM, t256_p4 at 4 →
// t128_p8 at 10), so they need twice the rows: with 600 rows of 8192 f16
// the twin's SMs held half the threads and ran 9% behind (9.92 → 10.86 µs).
// H200, softmax bench, three alternated rounds of 30 reps, median µs, main
// → this rule (nvidia-h200-2026-11-25-ab-s58.txt §3-4): 2048×8192 f16
// 22.37 → 21.62 (0.94 → 0.97 of copy), bf16 22.72 → 21.65, 4096×8192 f16
// 39.04 → 37.79, log_softmax 38.09 → 37.22, 2048×4096 f16 13.89 → 13.42,
// 4096×4096 bf16 22.61 → 22.05, 8192×2048 f16 21.87 → 21.36, 8192×1024
// bf16 13.41 → 13.09, 1600×8192 bf16 19.33 → 18.45, 1200×8192 f16 15.86 →
// 15.62; 524288×1024 and 65536×1024 f16 within 0.3%. Rows that leave the
// twin no more threads keep v: 2048×2048 f16 forced to its twin went 9.30
// → 9.54 (§2). ncu (caches flushed): 2048×8192 f16 t256_p4 17.5 µs, its
// t128_p8 twin 16.9.
func (c *ctx) blockRegExact(in kernels.Info, v kernels.Variant) (kernels.Variant, bool) {
	packs := c.packs()
	if !c.forwardWholeRows() || c.es != 2 || int64(v.FixedBlock*v.Packs) != packs || int64(v.Packs)*c.P != kernels.BlockRegValues {
		return v, false
	}
	for _, ev := range in.Variants(false) {
		if !ev.Exact || int64(ev.FixedBlock*ev.Packs) != packs {
			continue
		}
		blocks := c.occupancy("block_reg.cu", c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
		if c.p.Outer*int64(ev.FixedBlock) <= int64(blocks)*int64(v.FixedBlock)*int64(c.d.SMs) {
			return v, false
		}
		return ev, true
	}
	return v, false
}

// blockRegFixedFor is blockRegFixedBlock's pick for rows of the given
// packs, before the tail kernels.
func (c *ctx) blockRegFixedFor(in kernels.Info, packs int64) (kernels.Variant, bool) {
	if v, ok := c.blockRegFewRows(in, packs); ok {
		return v, true
	}
	v, ok := c.blockRegSmallest(in, packs)
	if !ok {
		return v, false
	}
	return c.blockRegWide(in, v), true
}

// blockRegOverhang reports a forward "_shift" twin that holds a ragged
// row's span past its block in thread 0 (block_reg.cu's OverhangPack: the
// 16-bit twins of 2..5 packs a thread but t1024_p5), so that it is sized
// by the row: a skewed row of 8192 f16 columns (1025 packs of span) takes
// the aligned row's 256 × 4 packs, not 512 × 3.
func blockRegOverhang(v kernels.Variant) bool {
	return v.Packs >= 2 && v.Packs <= 5 && !(v.FixedBlock == 1024 && v.Packs == 5)
}

// blockRegSmallest is blockRegFixedBlock's default pick before the tail kernels:
// the smallest block holding the row in <= kernels.BlockRegValues values a
// thread, else the first that holds it at all.
func (c *ctx) blockRegSmallest(in kernels.Info, packs int64) (kernels.Variant, bool) {
	var spill kernels.Variant
	for _, cand := range in.Variants(false) {
		if cand.Tail || cand.Exact || !cand.Serves(c.dt) || int64(cand.FixedBlock*cand.Packs) < packs {
			continue
		}
		if int64(cand.Packs)*c.P <= kernels.BlockRegValues {
			return cand, true
		}
		if spill.Name == "" {
			spill = cand
		}
	}
	return spill, spill.Name != ""
}

// blockRegWide trades the default f32 pick of 256 threads × 6..8 packs
// (rows of 1281..2048 packs) for 512 threads × 3..4 packs, the kernels
// bounded to three blocks an SM, when the occupancy query says that keeps
// more threads resident (on H200: 5 or 4 blocks of 256 against 3 of 512)
// and the rows make at least blockRegWideWaves waves of the wide blocks.
// H200, softmax bench (L2 flushed, 30 reps, median of three alternated
// rounds), µs, default → wide: 4096 rows of 6144 f32 54.96 → 54.57, 7168
// 62.86 → 62.37, 8192 71.52 → 70.59; 3072×6144 43.02 → 42.30, 3072×8192
// 55.28 → 54.86. Fewer rows lose: 2560×6144 36.30 → 37.60, 2048×8192 38.91
// → 39.22, 1000×7168 19.74 → 20.14. Not below 6 packs: 5120 f32 t256_p5
// (6 blocks an SM, as many threads) ran 45.9 against t512_p3's 48.8 in the
// harness; not 16-bit rows: 2048×8192 f16 t256_p4 22.3 against t512_p2 at
// (512, 4) 22.9 (bench/results/nvidia-h200-2026-11-22-ab-s22.txt).
func (c *ctx) blockRegWide(in kernels.Info, v kernels.Variant) kernels.Variant {
	if c.es != 4 || v.FixedBlock != 256 || v.Packs < 6 {
		return v
	}
	const nt = 512
	w, ok := in.Variant(false, fmt.Sprintf("t%d_p%d", nt, ceilDiv(c.packs(), nt)))
	if !ok {
		return v
	}
	blocks := func(v kernels.Variant) int {
		return c.occupancy("block_reg.cu", c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
	}
	nw := blocks(w)
	if nw*nt > blocks(v)*v.FixedBlock && c.p.Outer >= blockRegWideWaves*int64(nw)*int64(c.d.SMs) {
		return w
	}
	return v
}

// blockRegWideWaves: the fewest waves of wide blocks blockRegWide takes
// (H200, 3 blocks an SM: 3072 rows, 7.8 waves, gained; 2560, 6.5 waves,
// lost).
const blockRegWideWaves = 7

// blockRegFewRows picks the forward kernel for few rows: when every row's
// block is resident at once (rows <= blockRegFewRowsPerSM·SMs and rows·nt
// <= SMs·1024), a block's time is its latency: its loads, then the max, the
// exps and the sum its threads run one value after another. There one pack
// a thread wins, up to 512 threads (then the fewest packs at 512 threads
// that hold the row in <= 32 values; else the default pick). Kernel times
// by ncu (H200, median of 10 launches, caches flushed, .devbin few3.cu;
// bench/results/nvidia-h200-2026-11-22-ab-s17.txt), µs, default pick →
// this rule's:
//
//	128×1024 f16  t32_p4 3.36 → t128_p1 3.22    528×1024 f16   3.76 → 3.55
//	128×1024 f32  t32_p8 3.92 → t256_p1 3.39    128×2048 f32   t64_p8 4.19 → t512_p1 3.52
//	100×4096 f16  t128_p4 3.94 → t512_p1 3.57   132×4096 f32   t128_p8 4.86 → t512_p2 4.21
//	64×8192 f32   t256_p8 4.93 → t512_p4 4.64
//
// Through softmax bench (events, 100 reps, three alternated rounds, medians
// in µs): 128×1024 f32 5.70 → 5.28, 128×2048 f32 6.16 → 5.60, 100×4096 f16
// 5.87 → 5.49, 256×2048 bf16 5.87 → 5.60, 128×1024 and 528×1024 f16 level.
// 1024-thread blocks gained nothing on 16-bit rows (ncu 4×16384 f16 t512_p4
// 4.59, t1024_p2 4.54; 32×8192 f16 t256_p4 4.05, t1024_p1 3.95) and lost a
// little through the events (4×16384 f16 6.30 → 6.43), hence the 512 cap.
// Rows that one warp holds at <= 16 values keep it: a block's barriers cost
// more than the warp's serial work saves (128×512 f32: t32_p4 3.17 against
// t128_p1 3.30).
func (c *ctx) blockRegFewRows(in kernels.Info, packs int64) (kernels.Variant, bool) {
	if c.p.Outer > blockRegFewRowsPerSM*int64(c.d.SMs) || packs*c.P <= 32*16 {
		return kernels.Variant{}, false
	}
	nt, np := max(nextPow2(packs), 64), int64(1)
	if nt > blockRegFewMaxThreads {
		nt, np = blockRegFewMaxThreads, ceilDiv(packs, blockRegFewMaxThreads)
	}
	if np*c.P > kernels.BlockRegValues || c.p.Outer*nt > int64(c.d.SMs)*1024 {
		return kernels.Variant{}, false
	}
	return in.Variant(false, fmt.Sprintf("t%d_p%d", nt, np))
}

// blockRegFewRowsPerSM bounds the rows blockRegFewRows takes (measured up
// to 528×1024 f16 on 132 SMs; 4096×1024 f16 ran slower with 128-thread
// blocks than with one warp a row in the session-16 harness: 11.8 against
// 9.4 µs).
const blockRegFewRowsPerSM = 4

// blockRegFewMaxThreads caps blockRegFewRows' blocks (see there).
const blockRegFewMaxThreads = 512

// blockRegRuntimeBlock picks a backward kernel (run-time block size): the
// largest NP whose block has >= blockRegMinThreads threads (rows too short
// for that: the smallest NP), within each variant's launch bound.
func (c *ctx) blockRegRuntimeBlock(vs []kernels.Variant) (v kernels.Variant, nt int64, ok bool) {
	packs := c.packs()
	shift := c.shifts(kernels.BlockReg)
	for _, cand := range vs { // packs ascending
		n := max(roundUp(ceilDiv(packs, int64(cand.Packs)), 32), 32)
		limit := cand.MaxThreads
		if shift && cand.ShiftMaxThreads > 0 {
			limit = cand.ShiftMaxThreads
		}
		if n <= int64(limit) && (!ok || n >= blockRegMinThreads) {
			v, nt, ok = cand, n, true
		}
	}
	return v, nt, ok
}

// block_reg: a block per row holding the row in registers, one block per
// row (the kernel grid-strides only past the grid limit).
func (c *ctx) blockReg() (Plan, error) {
	shape := c.blockRegShape
	if c.config != "" {
		shape = c.blockRegConfig
	}
	v, nt, err := shape()
	if err != nil {
		return Plan{}, err
	}
	sym := c.sym(kernels.BlockReg, v.Name)
	grid := max(1, min(c.p.Outer, maxGridX))
	return c.plan1(kernels.BlockReg, c.vec(), Launch{Symbol: sym, Grid: block1(grid), Block: block1(nt)},
		fmt.Sprintf("%d threads × %d packs per row, a block per row", nt, v.Packs)), nil
}

// hybridVariant returns the block_hybrid kernel of nt threads that holds
// the row, if one does: the row must overfill the block's registers
// (kernels.BlockRegValues a thread) and fit its largest shared part (a
// ragged row's span, in the "_shift" twins).
func (c *ctx) hybridVariant(nt int) (kernels.Variant, bool) {
	regs := int64(nt) * kernels.BlockRegValues
	if c.p.Axis <= regs {
		return kernels.Variant{}, false
	}
	ns := ceilDiv(c.span()-regs, int64(nt)*c.P)
	return kernels.BlockHybrid.Info().Variant(false, fmt.Sprintf("t%d_s%d", nt, ns))
}

// blockHybridVariant picks block_hybrid's kernel: 512 threads (two rows
// per SM) when they hold the row, 1024 for longer rows; with fewer rows
// than SMs every row has an SM to itself, so the larger block that holds
// the row is taken.
func (c *ctx) blockHybridVariant() (kernels.Variant, error) {
	few := c.p.Outer < int64(c.d.SMs)
	var v kernels.Variant
	for _, nt := range kernels.BlockHybridThreads {
		if cand, ok := c.hybridVariant(nt); ok {
			v = cand
			if !few {
				break
			}
		}
	}
	if v.Name == "" {
		lo := int64(kernels.BlockHybridThreads[0]) * kernels.BlockRegValues
		if c.p.Axis <= lo {
			return v, fmt.Errorf("rows of %d elements fit its registers alone (%d): block_reg holds them", c.p.Axis, lo)
		}
		return v, fmt.Errorf("rows of %d elements exceed its cache (%d)", c.p.Axis, kernels.BlockHybrid.Info().MaxCols(c.p.Op, c.dt))
	}
	return v, nil
}

// block_hybrid: a block per row, kernels.BlockRegValues values a thread in
// registers and the rest of the row in shared memory (SmemPacks 16-byte
// packs a thread).
func (c *ctx) blockHybrid() (Plan, error) {
	if !(c.vec() && c.p.Axis%c.P == 0) && !c.ragged() {
		return Plan{}, fmt.Errorf("it needs rows of whole 16-byte packs from aligned pointers, or rows its twins read from their pack boundary (cols %d, %d per pack): cp.async copies whole packs", c.p.Axis, c.P)
	}
	v, err := c.blockHybridVariant()
	if err != nil {
		return Plan{}, err
	}
	nt, sym, smem, occ, err := c.hybridFits(v)
	if err != nil {
		return Plan{}, err
	}
	grid := max(1, min(c.p.Outer, maxGridX))
	return c.plan1(kernels.BlockHybrid, true, Launch{Symbol: sym, Grid: block1(grid), Block: block1(int64(nt)), Smem: int(smem)},
		fmt.Sprintf("%d threads × %d values in registers + %d packs in %d bytes of shared memory per row, %d blocks/SM", nt, kernels.BlockRegValues, v.SmemPacks, smem, occ)), nil
}

// hybridFits returns block_hybrid variant v's block size, symbol, dynamic
// shared memory (SmemPacks 16-byte packs a thread) and resident blocks per
// SM (fits).
func (c *ctx) hybridFits(v kernels.Variant) (nt int, sym string, smem int64, perSM int, err error) {
	nt, sym = v.FixedBlock, c.sym(kernels.BlockHybrid, v.Name)
	smem = int64(v.SmemPacks * nt * 16)
	perSM, err = c.fits(kernels.BlockHybrid.Info().File, sym, nt, smem)
	return nt, sym, smem, perSM, err
}

// staticSmem is a kernel's static shared memory (256 B if unknown).
func staticSmem(d Device, sym string) int {
	if _, s, ok := resourceTable(d).Kernel(sym); ok {
		return s
	}
	return 256
}

// fits checks a dynamic shared memory request against the device and the
// occupancy query; it returns the resident blocks per SM.
func (c *ctx) fits(file, sym string, threads int, smem int64) (int, error) {
	if smem+int64(staticSmem(c.d, sym)) > int64(c.d.SmemOptin) {
		return 0, fmt.Errorf("it needs %d bytes of shared memory per block (+%d static), the device allows %d", smem, staticSmem(c.d, sym), c.d.SmemOptin)
	}
	if c.occ != nil {
		if n, err := c.occ(file, sym, threads, int(smem)); err == nil {
			if n <= 0 {
				return 0, fmt.Errorf("the occupancy query gives 0 blocks per SM for %d threads and %d bytes of shared memory", threads, smem)
			}
			return n, nil
		}
	}
	n := estimate(c.d, sym, threads, int(smem))
	if n <= 0 {
		return 0, fmt.Errorf("no block of %d threads with %d bytes of shared memory fits an SM", threads, smem)
	}
	return n, nil
}

// block_smem: the row (backward: y and dy) cached in dynamic shared memory.
func (c *ctx) blockSmem() (Plan, error) {
	nt, sym, smem := c.blockSmemShape()
	occ, err := c.fits("block_smem.cu", sym, int(nt), smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.BlockSmem, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: int(smem)},
		fmt.Sprintf("%d threads, %d bytes of shared memory per row, %d blocks/SM", nt, smem, occ)), nil
}

// blockSmemShape is block_smem's threads, symbol and dynamic shared memory.
func (c *ctx) blockSmemShape() (int64, string, int64) {
	nt := clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512)
	return nt, c.sym(kernels.BlockSmem, ""), kernels.SmemBytes(kernels.BlockSmem, c.p.Op, c.dt, c.p.Axis, int(nt))
}

// blockSmemOccupancy is the resident block_smem blocks per SM for the problem.
func (c *ctx) blockSmemOccupancy() (int, error) {
	nt, sym, smem := c.blockSmemShape()
	return c.fits("block_smem.cu", sym, int(nt), smem)
}

// online_2pass: a block per row, any length.
func (c *ctx) online2Pass() (Plan, error) {
	nt := clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512)
	sym := c.sym(kernels.Online2Pass, "")
	occ := c.occupancy("online_2pass.cu", sym, int(nt), 0)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.Online2Pass, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("%d threads per row", nt)), nil
}
