package oracle

import (
	"fmt"
	"math"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// check says why strategy s cannot serve the problem, if it cannot
// whatever its configuration.
func (c *ctx) check(s kernels.Strategy) error {
	in, ok := kernels.Lookup(string(s))
	if !ok {
		return fmt.Errorf("unknown strategy %q", s)
	}
	if len(in.Variants(c.bwd)) == 0 {
		return fmt.Errorf("it has no %s kernels", c.direction())
	}
	if in.RowsOnly && c.p.Inner != 1 {
		return fmt.Errorf("it needs the softmax axis to be the last (Inner = 1, have %d)", c.p.Inner)
	}
	if in.MinMajor > 0 && c.d.Major < in.MinMajor {
		return fmt.Errorf("it needs compute capability %d.0 or newer (device %d.%d)", in.MinMajor, c.d.Major, c.d.Minor)
	}
	return nil
}

// direction names the problem's kernels' direction in errors.
func (c *ctx) direction() string {
	if c.bwd {
		return "backward"
	}
	return "forward"
}

// build plans strategy s for the problem, or says why it cannot.
func (c *ctx) build(s kernels.Strategy) (Plan, error) {
	if err := c.check(s); err != nil {
		return Plan{}, err
	}
	if _, ok := configLists[s]; c.config != "" && !ok {
		return Plan{}, fmt.Errorf("it has no launch configurations to choose from (%q; block_reg and warp_row have)", c.config)
	}
	switch s {
	case kernels.Naive:
		return c.naive()
	case kernels.SmemTree:
		return c.smemTree()
	case kernels.BlockVec:
		return c.blockVec()
	case kernels.WarpRow:
		return c.warpRow()
	case kernels.BlockReg:
		return c.blockReg()
	case kernels.BlockHybrid:
		return c.blockHybrid()
	case kernels.BlockSmem:
		return c.blockSmem()
	case kernels.Online2Pass:
		return c.online2Pass()
	case kernels.SplitRow:
		return c.splitRow()
	case kernels.SplitCluster:
		return c.splitCluster()
	case kernels.SplitGrid:
		return c.splitGrid()
	case kernels.Strided:
		return c.strided()
	case kernels.StridedReg:
		return c.stridedReg()
	case kernels.StridedShort:
		return c.stridedShort()
	case kernels.StridedNarrow:
		return c.stridedNarrow()
	case kernels.StridedSmem:
		return c.stridedSmem()
	case kernels.FlatRows:
		return c.flatRows()
	case kernels.Persistent:
		return c.persistent()
	case kernels.Pipelined:
		return c.pipelined()
	}
	return Plan{}, fmt.Errorf("no planner for %q", s)
}

func block1(n int64) [3]uint32 { return [3]uint32{uint32(n), 1, 1} }

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// packs is the number of 16-byte packs a row occupies (span: a ragged row
// read from the pack boundary before it may take one more).
func (c *ctx) packs() int64 { return ceilDiv(c.span(), c.P) }

// naive: one thread per slice, any layout.
func (c *ctx) naive() (Plan, error) {
	const nt = 128
	sym := c.sym(kernels.Naive, "")
	slices := c.p.Outer * c.p.Inner
	occ := c.occupancy("naive.cu", sym, nt, 0)
	grid := c.capGrid(ceilDiv(slices, nt), occ, gridWaves, maxGridX)
	return c.plan1(kernels.Naive, false, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		"one thread per slice (teaching baseline)"), nil
}

// smem_tree: block per row, power-of-two block, one float pair per thread.
func (c *ctx) smemTree() (Plan, error) {
	nt := clamp(nextPow2(ceilDiv(c.p.Axis, 8)), 32, 512)
	sym := c.sym(kernels.SmemTree, "")
	smem := int(kernels.SmemBytes(kernels.SmemTree, c.p.Op, c.dt, c.p.Axis, int(nt)))
	occ := c.occupancy("smem_tree.cu", sym, int(nt), smem)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.SmemTree, false, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: smem},
		fmt.Sprintf("block per row, %d-thread shared-memory tree", nt)), nil
}

// block_vec: block per row, about 4 packs per thread.
func (c *ctx) blockVec() (Plan, error) {
	nt := clamp(nextPow2(ceilDiv(c.packs(), 4)), 128, 1024)
	sym := c.sym(kernels.BlockVec, "")
	occ := c.occupancy("block_vec.cu", sym, int(nt), 0)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.BlockVec, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("block per row, %d threads, 16-byte loads", nt)), nil
}

// warpShape returns warp_row's lanes per row and packs per lane.
func (c *ctx) warpShape() (w, np int64, err error) {
	// A ragged row's twin reads it from the pack boundary before it: up
	// to P-1 elements more than the row (warpSpan).
	span := c.warpSpan()
	packs := ceilDiv(span, c.P)
	if m := kernels.WarpRow.Info().MaxCols(c.p.Op, c.dt); span > m {
		if span > c.p.Axis {
			return 0, 0, fmt.Errorf("ragged rows of %d elements, %d read from the pack boundary before each, exceed its register cache (%d)", c.p.Axis, span, m)
		}
		return 0, 0, fmt.Errorf("rows of %d elements exceed its register cache (%d)", c.p.Axis, m)
	}
	if w, ok := c.threePacks(packs); ok {
		return w, 3, nil
	}
	if packs <= 32 {
		w := nextPow2(packs)
		if c.halfGroups(packs) {
			return w / 2, 2, nil
		}
		return w, 1, nil
	}
	return 32, nextPow2(ceilDiv(packs, 32)), nil
}

// halfGroups: forward rows of 2..32 packs on the 16-byte paths (whole
// packs, or ragged rows through the "_shift" twins) take half as many
// lanes with two packs each (w*_p2): twice the rows a warp, each warp's
// shuffle chain shared by all of them, and fewer instructions an element.
// H200, softmax bench --algo warp_row, three rounds alternated, median µs
// one pack against two (-ab-s39.txt §2): 32768×96 f32 13.44 vs 11.97,
// 131072×128 f32 42.19 vs 37.94, 39424×77 f32 15.87 vs 14.61, 50000×120
// f32 20.21 vs 17.71, 262144×32 f32 23.23 vs 21.58, 524288×16 f32 23.10
// vs 21.66, 131072×200 bf16 46.16 vs 40.57, 65536×40 f16 9.71 vs 8.67,
// 100000×24 bf16 8.69 vs 7.71; even at 32768×64 f16 (7.39 vs 7.42) and
// 16384×8 f32. Rows read element by element (ragged rows that warpRagged
// leaves, or misaligned) keep one pack: their two packs of
// predicated element loads went out one after the other (100000×50 f32
// 20.34 vs 21.39, 200000×100 bf16 48.0 vs 111.4, 4096×60 bf16 5.18 vs
// 6.26). So do 16-bit rows of 9..15 whole packs, which would take 8-lane
// groups with a pack left empty: 65536×120 f16 15.38 vs 16.38 (log_softmax
// 15.20 vs 16.32, bf16 15.49 vs 16.45), 65536×96 f16 log_softmax 14.24 vs
// 14.43, where 16 packs (65536×128 bf16 14.61 vs 13.57), 3-5 (100000×24
// bf16 8.66 vs 7.71, 65536×40 f16 9.74 vs 8.67) and 17-32 (131072×200
// bf16 46.32 vs 40.42) gain (§3-4). Backward rows follow bwdHalfGroups.
// Where three packs a lane make a smaller group
// (threePackLanes: 17-24 and 33-48 packs, 16-bit 9-12) they take the row
// before either shape here.
//
// The 16-bit twins differ (§5 of -ab-s40.txt, µs one pack vs two): from 9
// to 15 packs two packs a lane lead, 200000×100 bf16 41.10 vs 35.97,
// 131072×100 f16 27.30 vs 24.56, 200000×75 f16 37.42 vs 32.80, 200000×66
// bf16 41.04 vs 35.87, 287954×101 bf16 log_softmax 59.22 vs 53.04; up to 4
// packs one pack does, 151094×19 f16 17.74 vs 11.15, 267867×21 bf16 29.52
// vs 15.79, 315712×17 f16 25.42 vs 16.50, 200000×25 f16 23.31 vs 13.68.
func (c *ctx) halfGroups(packs int64) bool {
	wholePacks := c.warpWholePacks()
	if packs < 2 || !c.warpPackPath() {
		return false
	}
	if c.bwd {
		return c.bwdHalfGroups(packs, wholePacks)
	}
	switch {
	case c.P == 4:
		return true
	case wholePacks:
		return packs < 9 || packs > 15
	default: // 16-bit twins
		return packs > 4
	}
}

// bwdHalfGroups: backward rows on the 16-byte paths take two packs a lane
// from 17 packs, where one pack a lane takes all 32; f16 ragged rows from
// 9 span packs. H200, softmax bench --algo auto, two rounds alternated,
// median µs, one pack against two (-ab-s42.txt §2): 32768×96 f32 15.96 vs
// 15.26, 65536×128 f32 31.00 vs 30.19, 39424×77 f32 16.90 vs 16.28,
// 131072×100 f32 46.14 vs 45.06, 65536×200 f16 28.72 vs 27.29, 100000×192
// bf16 38.98 vs 34.83, 131072×200 bf16 49.58 vs 46.71, 200000×100 f16
// 42.96 vs 41.49, 131072×100 f16 30.81 vs 29.26, 200000×123 f16 64.97 vs
// 61.48. Shorter rows tied or lost (65536×32 f32 12.10 vs 12.31, 65536×64
// f16 11.70 vs 12.02, 100000×24 f16 9.41 vs 9.82, 16384×8 f32 4.90 vs
// 5.06), and so did bf16 ragged rows (350785×126 109.22 vs 126.89,
// 200000×100 42.60 vs 44.50, its log_softmax_backward 47.29 vs 50.40,
// 200000×60 27.47 vs 28.57).
func (c *ctx) bwdHalfGroups(packs int64, wholePacks bool) bool {
	switch {
	case wholePacks || c.P == 4:
		return packs > 16
	case c.dt == spec.Float16:
		return packs > 8
	}
	return false
}

// threePacks: forward rows on the 16-byte paths (whole packs, or ragged
// rows through the twins) whose packs fit three a lane in a group smaller
// than the power-of-two shapes hold them in take w*_p3 (threePackLanes).
func (c *ctx) threePacks(packs int64) (int64, bool) {
	if c.bwd || !c.warpPackPath() {
		return 0, false
	}
	return c.threePackLanes(packs)
}

// warpWholePacks reports rows of whole 16-byte packs on the vector path
// (vec() also admits a single ragged row).
func (c *ctx) warpWholePacks() bool { return c.vec() && c.p.Axis%c.P == 0 }

// warpPackPath reports rows warp_row reads in 16-byte packs: whole packs,
// or ragged rows through its twins (warpRagged).
func (c *ctx) warpPackPath() bool { return c.warpWholePacks() || c.shifts(kernels.WarpRow) }

// threePackLanes returns the lanes w of a three-pack group for a row of
// packs where it beats the power-of-two shapes: 17-24 packs over 8 lanes
// and 33-48 over 16; for f16/bf16 also 9-12 over 4: whole packs, ragged
// bf16 rows, and ragged f16 rows whose span is 9 packs or would cross to
// twice the lanes with two packs (warpRagged). H200, softmax bench --algo
// auto, three rounds alternated, median µs, HEAD against three packs
// (-ab-s41.txt §1-3): 350785×126 bf16 111.36 vs 80.42 (16 lanes × 2 packs
// before), 200000×123 f16 56.32 vs 43.74, 100000×192 bf16 29.97 vs 24.35,
// 65536×384 bf16 38.88 vs 29.98 (32 × 2), 65536×300 f16 38.00 vs 29.85,
// 39424×77 f32 14.42 vs 12.62 (32 lanes element by element), 65536×160 f32
// 29.68 vs 26.66, 74862×59 bf16 16.59 vs 14.03 (8 lanes element by
// element), 65536×96 f16 13.31 vs 11.97 (16 × 1), 200000×68 bf16 35.50 vs
// 25.89 (8 × 2), 200000×84 bf16 35.82 vs 28.42, 200000×66 f16 32.54 vs
// 27.22 (200000×65 f16 32.48 vs 30.02). Against the two-pack twin, f16 rows
// of 10-12 span packs lost: 200000×89 f16 33.42 vs 39.12, 200000×79 33.09
// vs 36.37, 200000×75 33.31 vs 36.08, 200000×71 33.06 vs 34.26, 50000×90
// log_softmax 12.98 vs 14.48 (200000×92 gained, 32.98 vs 31.62), where bf16
// gained or tied (200000×74 35.95 vs 31.79, 200000×75 35.57 vs 34.83,
// 200000×90 35.87 vs 35.90). On f32 rows of 9-12 packs four lanes went
// either way (100000×44 15.63 vs 16.27, 131072×48 18.43 vs 17.82, 200000×31
// 21.28 vs 21.94), and two lanes for 5-6 packs lost but where the row fills
// them (200000×20 f32 14.62 vs 15.54, 65536×27 f16 9.57 vs 11.89; 100000×48
// f16 10.37 vs 9.97): neither is built.
func (c *ctx) threePackLanes(packs int64) (int64, bool) {
	w := nextPow2(ceilDiv(packs, 3))
	if w < 4 || w > 16 || 3*w >= nextPow2(packs) {
		return 0, false
	}
	if w == 4 {
		crosses := nextPow2(packs) > nextPow2(ceilDiv(c.p.Axis, c.P))
		if c.P == 4 || c.p.Axis%c.P != 0 && !crosses && packs > 9 && c.dt != spec.BFloat16 {
			return 0, false
		}
	}
	return w, true
}

// warp_row: W lanes per row, NP packs per lane, 128-thread blocks.
//
// Plain softmax launches take the plain build (kernels.Info.PlainBuild),
// except 16-bit rows read element by element over 4 lanes or more
// (Plan.General). H200, softmax bench --algo auto, three rounds
// alternated, median µs, general build vs plain (-ab-s40.txt §2-3): f32
// gains on every path, 32768×160 18.42 vs 17.12, 32768×199 22.14 vs
// 21.02, 100000×50 20.80 vs 19.81, 1000000×10 38.24 vs 34.75, 65536×33
// 13.89 vs 13.10; 16-bit packed rows too, 37824×197 f16 17.15 vs 16.43,
// 65536×120 bf16 15.62 vs 14.74, 65536×72 f16 13.89 vs 12.59, and
// element-wise ones over two lanes, 1000000×10 f16 26.40 vs 23.68; over
// more lanes they lost, 200000×100 f16 49.01 vs 60.27, bf16 47.86 vs
// 54.78, 131072×100 f16 34.75 vs 42.02, 200000×60 bf16 34.72 vs 38.54,
// 65536×27 f16 9.63 vs 10.25, 100000×50 f16 16.21 vs 16.88.
func (c *ctx) warpRow() (Plan, error) {
	shape := c.warpShape
	if c.config != "" {
		shape = c.warpRowConfig
	}
	w, np, err := shape()
	if err != nil {
		return Plan{}, err
	}
	const nt = 128
	sym := c.sym(kernels.WarpRow, fmt.Sprintf("w%d_p%d", w, np))
	occ := c.occupancy("warp_row.cu", sym, nt, 0)
	grid := c.capGrid(ceilDiv(c.p.Outer, nt/w), occ, gridWaves, maxGridX)
	pl := c.plan1(kernels.WarpRow, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("%d lanes × %d packs per row, %d rows per block", w, np, nt/w))
	pl.General = c.es == 2 && pl.Params.Vec == kernels.VecOff && w >= 4
	return pl, nil
}

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

// split_row: split blocks per row streaming it as one virtual block,
// partials in the workspace, two launches.
func (c *ctx) splitRow() (Plan, error) {
	const nt = 512
	rows, cols := c.p.Outer, c.p.Axis
	// splitRowBlocksPerSM blocks on every SM in all, but at least two packs
	// a thread.
	split := min(ceilDiv(splitRowBlocksPerSM*int64(c.d.SMs), rows), ceilDiv(cols, nt*c.P*2))
	split = clamp(split, 1, maxSplitRow)
	grid := [3]uint32{uint32(min(split, maxGridX)), uint32(min(rows, maxGridY)), 1}
	pl := Plan{Strategy: string(kernels.SplitRow), File: "split_row.cu", Split: int(split), Vec: c.vec(),
		Workspace: rows * split * 8,
		Launches: []Launch{
			{Symbol: c.sym(kernels.SplitRow, "phase1"), Grid: grid, Block: block1(nt)},
			{Symbol: c.sym(kernels.SplitRow, "phase2"), Grid: grid, Block: block1(nt)},
		},
		Reason: fmt.Sprintf("%d blocks of %d threads per row, interleaved", split, nt)}
	return c.finish(pl), nil
}

// splitGridThreads is split_grid's block: one block of 1024 threads per SM
// (its shared memory is the cache; 512-thread blocks, two per SM with half
// the cache each, were 5-40% slower in the H200 harness).
const splitGridThreads = 1024

// splitGridCachedThreads: the block size of a forward one-wave split_grid
// whose chunks are cached whole. H200, µs by block size 1024 / 512 / 256,
// L2 flushed, median of 30 over three alternated rounds (bench/results/
// nvidia-h200-2026-11-22-ab-s14.txt): chunks cached whole 4×262144 f16
// 10.6 / 10.1 / 11.4, 1×524288 f32 10.5 / 9.9 / 10.9, 4×1048576 f16 15.7 /
// 15.5 / 17.6, 16×262144 f32 19.2 / 18.5 / 20.1; chunks partly streamed
// (read twice) keep 1024: 4×4194304 f16 29.9 / 32.2 / 41.5, 1×2^24 f32
// 51.2 / 53.3 / 65.3, 128×128256 bf16 26.9 / 30.6 / 39.6.
const splitGridCachedThreads = 512

// splitGridSize is split_grid's grid and per-block cache (splitGridGrid).
type splitGridSize struct {
	g, smemMax int64
	err        error
}

// splitGridGrid returns split_grid's grid (one block per SM with the whole
// opt-in shared memory) and the most shared memory a block may cache.
func (c *ctx) splitGridGrid() (g, smemMax int64, err error) {
	if c.grid == nil {
		g, smemMax, err := c.splitGridGridQuery()
		c.grid = &splitGridSize{g, smemMax, err}
	}
	return c.grid.g, c.grid.smemMax, c.grid.err
}

func (c *ctx) splitGridGridQuery() (g, smemMax int64, err error) {
	if !c.d.Cooperative {
		return 0, 0, fmt.Errorf("the device or driver does not support cooperative launch")
	}
	// Both kernels (one wave, waves) must fit the same grid.
	syms := [2]string{c.sym(kernels.SplitGrid, ""), c.sym(kernels.SplitGrid, "waves")}
	unit := 16 * c.nin
	smemMax = (int64(c.d.SmemOptin-max(staticSmem(c.d, syms[0]), staticSmem(c.d, syms[1]))) - 1024) / unit * unit
	perSM := math.MaxInt
	for _, sym := range syms {
		n, err := c.fits("split_grid.cu", sym, splitGridThreads, smemMax)
		if err != nil {
			return 0, 0, err
		}
		perSM = min(perSM, n)
	}
	return int64(perSM) * int64(c.d.SMs), smemMax, nil
}

// splitGridShape returns split_grid's blocks per row, chunk, dynamic shared
// memory and grid for waves of rw rows (0: splitGridWaveRows): every
// resident block takes an equal chunk of one row of a wave, as much of it
// as fits cached in shared memory (whole packs; none off the vector path).
// The kernel derives rw back as grid / split, which can exceed the rw asked
// for when the chunks round up (fewer blocks per row).
func (c *ctx) splitGridShape(rw int64) (split, chunk, smem int64, grid int, err error) {
	g, smemMax, err := c.splitGridGrid()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if rw == 0 {
		rw = c.splitGridWaveRows(g, smemMax)
	}
	if rw < 1 || rw > g {
		return 0, 0, 0, 0, fmt.Errorf("waves of %d rows: it takes 1 to %d (at most one row per resident block)", rw, g)
	}
	split = g / rw
	chunk = roundUp(ceilDiv(c.p.Axis, split), c.P)
	split = ceilDiv(c.p.Axis, chunk)
	if c.vec() {
		smem = min(smemMax, roundUp(chunk*c.es, 16)*c.nin)
	}
	return split, chunk, smem, int(g), nil
}

// splitGridWaveRows is the rule's rows per wave of split_grid on a grid of
// g blocks caching up to smemMax bytes each: all the rows at once while
// their inputs are at most gridWaveQuarters/4 times the grid's cache, else
// as few waves as keep each under that, the rows shared out evenly; never
// more rows than blocks.
func (c *ctx) splitGridWaveRows(g, smemMax int64) int64 {
	waves := max(1, ceilDiv(c.p.Outer*c.p.Axis*c.es*c.nin, c.splitGridWaveBytes(g, smemMax)))
	return min(ceilDiv(c.p.Outer, waves), g)
}

// splitGridWaveBytes is the most input bytes a split_grid wave takes.
func (c *ctx) splitGridWaveBytes(g, smemMax int64) int64 {
	return gridWaveQuarters * g * smemMax / 4
}

// split_grid: every SM's block takes a chunk of a row, cached in shared
// memory across a barrier of the row's blocks; one launch.
func (c *ctx) splitGrid() (Plan, error) {
	return c.splitGridWaves(0)
}

// splitGridWaves plans split_grid with waves of rw rows (0: the rule's).
func (c *ctx) splitGridWaves(rw int64) (Plan, error) {
	split, chunk, smem, grid, err := c.splitGridShape(rw)
	if err != nil {
		return Plan{}, err
	}
	rw = int64(grid) / split // what the kernel derives
	waves, variant := ceilDiv(c.p.Outer, rw), ""
	if waves > 1 {
		variant = "waves"
	}
	cached := min(chunk*c.es, smem/c.nin)
	threads := int64(splitGridThreads)
	if waves == 1 && !c.bwd && c.vec() && cached == chunk*c.es {
		threads = splitGridCachedThreads
	}
	l := Launch{Symbol: c.sym(kernels.SplitGrid, variant), Grid: block1(int64(grid)), Block: block1(threads),
		Smem: int(smem), Cooperative: true}
	pl := Plan{Strategy: string(kernels.SplitGrid), File: "split_grid.cu", Split: int(split), Chunk: chunk, Vec: c.vec(),
		Workspace: c.p.Outer * split * 8, Barriers: rw, Launches: []Launch{l},
		Reason: fmt.Sprintf("%d blocks of %d threads per row, %d elements each, %d bytes of each cached in shared memory, rows in waves of %d (%d)",
			split, threads, chunk, cached, rw, waves)}
	return c.finish(pl), nil
}

// SplitGrid plans split_grid with waves of rowsPerWave rows in place of the
// rule's choice, for sweeps of the wave size (cuda's
// BenchmarkSplitGridWaves) and tests of the wave loop.
func SplitGrid(p Problem, d Device, occ Occupancy, rowsPerWave int64) (Plan, error) {
	c, err := newCtx(p, d, occ)
	if err != nil {
		return Plan{}, err
	}
	if err := c.check(kernels.SplitGrid); err != nil {
		return Plan{}, err
	}
	return c.splitGridWaves(rowsPerWave)
}

// clusterSize returns the cluster size split_cluster would use: the largest
// power of two <= MaxClusterSize that leaves each block at least 256
// elements (at least 2), if the device runs clusters and the chunk fits
// shared memory.
func (c *ctx) clusterSize() (int64, bool) {
	if c.d.Major < 9 || !c.d.Cluster || c.p.Inner != 1 {
		return 0, false
	}
	cs := int64(2)
	for cs*2 <= int64(c.d.MaxClusterSize) && ceilDiv(c.p.Axis, cs*2) >= 256 {
		cs *= 2
	}
	chunk := roundUp(ceilDiv(c.p.Axis, cs), c.P)
	smem := kernels.SmemBytes(kernels.SplitCluster, c.p.Op, c.dt, chunk, 0)
	if smem+int64(staticSmem(c.d, c.sym(kernels.SplitCluster, ""))) > int64(c.d.SmemOptin) {
		return 0, false
	}
	return cs, true
}

// clusterShape returns split_cluster's block: the cluster size
// (clusterSize), each block's chunk of the row, its threads (8 packs a
// thread, 128-1024), kernel symbol and dynamic shared memory.
func (c *ctx) clusterShape() (cs, chunk, nt int64, sym string, smem int64, ok bool) {
	if cs, ok = c.clusterSize(); !ok {
		return 0, 0, 0, "", 0, false
	}
	chunk = roundUp(ceilDiv(c.p.Axis, cs), c.P)
	nt = clamp(roundUp(ceilDiv(ceilDiv(chunk, c.P), 8), 32), 128, 1024)
	sym = c.sym(kernels.SplitCluster, "")
	smem = kernels.SmemBytes(kernels.SplitCluster, c.p.Op, c.dt, chunk, int(nt))
	return cs, chunk, nt, sym, smem, true
}

// split_cluster: a cluster of C blocks per row, chunks in shared memory.
func (c *ctx) splitCluster() (Plan, error) {
	if !c.d.Cluster {
		return Plan{}, fmt.Errorf("the device or driver does not support cluster launch")
	}
	cs, chunk, nt, sym, smem, ok := c.clusterShape()
	if !ok {
		return Plan{}, fmt.Errorf("a row of %d elements does not fit the shared memory of a %d-block cluster (%d bytes per block)",
			c.p.Axis, c.d.MaxClusterSize, c.d.SmemOptin)
	}
	if _, err := c.fits("split_cluster.cu", sym, int(nt), smem); err != nil {
		return Plan{}, err
	}
	l := Launch{Symbol: sym, Grid: [3]uint32{uint32(cs), uint32(min(c.p.Outer, maxGridY)), 1}, Block: block1(nt), Smem: int(smem),
		Cluster: [3]uint32{uint32(cs), 1, 1}, NonPortable: cs > 8}
	pl := Plan{Strategy: string(kernels.SplitCluster), File: "split_cluster.cu", Split: int(cs), Chunk: chunk, Vec: c.vec(),
		Launches: []Launch{l}, Reason: fmt.Sprintf("%d-block clusters, %d elements (%d bytes) per block", cs, chunk, smem)}
	return c.finish(pl), nil
}

// stridedShortAxis is the longest axis whose warp-wide tiles (TX = 32, P
// slices a thread) take stridedShortTY threads along it. With TY up to the
// axis, each thread had one to three steps, few loads in flight, and the
// TY tree and its barriers between two short sweeps; two threads (one for
// axes under 4) give each 2-12 steps. H200, forced blocks, µs, TY of the
// old rule vs 2 (vs 1) (-ab-s32.txt §3): 2089×8×1004 f32 166.7 (8) vs 85.5;
// 32768×4×128 f32 141.2 (4) vs 109.1 (1: 127.6); 16384×4×512 f16 297.6 (4)
// vs 170.9 (1: 163.6); 5350×8×784 bf16 254.2 (4) vs 181.2; 512×7×784 bf16
// 33.6 (4) vs 23.7; 4096×16×512 f16 128.5 (4) vs 105.8; 2731×24×512 f16
// 117.5 (4) vs 99.3; 233×3×1131 f16 (twin) 19.7 (2) vs 13.9 (1). At 24
// f32 rows, 4 led 2 (683×24×128 15.3 vs 17.8, old 8 17.2; 56×24×12269
// twin 100.7 vs 108.8, old 8 111.9), so the rule stops at 24 and keeps
// TY = 2 there; narrower tiles (131072×4×64 f16, TX = 8) were slower with
// TY < 4 (8×4 372.6, 8×2 467.8).
const stridedShortAxis = 24

// stridedShortTY is TY for an axis of at most stridedShortAxis.
func stridedShortTY(axis int64) int64 {
	if axis < 4 {
		return 1
	}
	return 2
}

// strided: tiles of TX·VW inner indices × TY threads along the axis (VW = P
// with the 16-byte path: Inner % P == 0 and aligned pointers); split along
// the axis when the tiles cannot fill the GPU and the axis is long.
func (c *ctx) strided() (Plan, error) {
	outer, axis, inner := c.p.Outer, c.p.Axis, c.p.Inner
	vec := c.innerPacks()
	vw := int64(1)
	if vec || c.stridedTwin() {
		vw = c.P
	}
	tx := min(nextPow2(ceilDiv(inner, vw)), 32)
	ty := min(int64(256), 1024/vw) / tx
	for ty > 1 && ty > axis {
		ty /= 2
	}
	if vw == c.P && tx == 32 && axis <= stridedShortAxis {
		ty = stridedShortTY(axis)
	}
	tiles := outer * ceilDiv(inner, tx*vw)
	sym := c.sym(kernels.Strided, "")
	occ := c.occupancy("strided.cu", sym, int(tx*ty), 0)
	block := [3]uint32{uint32(tx), uint32(ty), 1}
	const minPerThread = 16 // axis elements per thread and chunk
	if tiles < 2*int64(c.d.SMs) && axis >= 2*ty*minPerThread {
		target := int64(occ) * int64(c.d.SMs)
		split := clamp(min(ceilDiv(target, tiles), axis/(ty*minPerThread)), 1, maxGridY)
		chunk := ceilDiv(axis, split)
		split = ceilDiv(axis, chunk)
		if split >= 2 {
			grid := [3]uint32{uint32(min(tiles, maxGridX)), uint32(split), 1}
			pl := Plan{Strategy: string(kernels.Strided), File: "strided.cu", Split: int(split), Chunk: chunk, Vec: vec,
				Workspace: outer * inner * split * 8,
				Launches: []Launch{
					{Symbol: c.sym(kernels.Strided, "split1"), Grid: grid, Block: block},
					{Symbol: c.sym(kernels.Strided, "split2"), Grid: grid, Block: block},
				},
				Reason: fmt.Sprintf("%d×%d threads × %d slices each, %d tiles only: axis split into %d chunks of %d", tx, ty, vw, tiles, split, chunk)}
			return c.finish(pl), nil
		}
	}
	grid := c.capGrid(tiles, occ, gridWaves, maxGridX)
	return c.plan1(kernels.Strided, vec, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block},
		fmt.Sprintf("%d inner × %d axis threads per block, %d slices per thread, %d tiles", tx, ty, vw, tiles)), nil
}

// stridedShortThreads is strided_short's block size.
const stridedShortThreads = 256

// strided_short: slices a thread (or a lane pair, 16 lanes apart, each
// holding half the rows) over the whole axis, the kernel compiled for its
// length: P consecutive inner indices (a 16-byte pack) with aligned
// pointers and Inner of whole packs, else (the "_shift" twins) 2 or 4
// slices 32/lanes apart, warps taking consecutive slices across outer
// indices; a grid-stride loop.
func (c *ctx) stridedShort() (Plan, error) {
	axis := c.p.Axis
	name, lanes, ok := c.stridedShortVariant()
	if !ok {
		return Plan{}, fmt.Errorf("it has kernels for axes of 2..%d rows (%s %v), not %d",
			kernels.StridedShort.Info().MaxCols(c.p.Op, c.dt), c.direction(), c.dt, axis)
	}
	vec := c.innerPacks()
	sl := kernels.StridedShortTwinSlices(axis, lanes, c.p.Op)
	threads := ceilDiv(c.p.Outer*c.p.Inner, 32/lanes*sl) * 32
	how := fmt.Sprintf("%d slices a thread, %d apart", sl, 32/lanes)
	if vec {
		threads, how = c.p.Outer*c.p.Inner/c.P*lanes, fmt.Sprintf("a 16-byte pack of %d slices a thread", c.P)
		if lanes > 1 {
			// whole warps, so a pair's shuffles always have both lanes
			threads = ceilDiv(threads, 32) * 32
		}
	}
	if lanes > 1 {
		how += fmt.Sprintf(", %d lanes a slice", lanes)
	}
	sym := c.sym(kernels.StridedShort, name)
	occ := c.occupancy("strided_short.cu", sym, stridedShortThreads, 0)
	grid := c.capGrid(ceilDiv(threads, stridedShortThreads), occ, gridWaves, maxGridX)
	return c.plan1(kernels.StridedShort, vec, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(stridedShortThreads)},
		fmt.Sprintf("%s, their %d axis rows in registers", how, axis)), nil
}

// strided_narrow: GW warps an outer index (kernels.StridedNarrowShape),
// its Axis×Inner block read as one run of packs, H a thread;
// StridedNarrowThreads/(32·GW) outer indices a block, grid-stride.
func (c *ctx) stridedNarrow() (Plan, error) {
	gw, h, ok := kernels.StridedNarrowShape(c.p.Op, c.dt, c.p.Axis, c.p.Inner)
	if !ok {
		if !kernels.StridedNarrowInner(c.dt, c.p.Inner) {
			return Plan{}, fmt.Errorf("it takes an Inner that is a power of two from 2 to %d %v elements (8 packs), not %d", 8*c.P, c.dt, c.p.Inner)
		}
		return Plan{}, fmt.Errorf("an outer index's block of %d×%d elements exceeds what %d warps hold (%s %v)",
			c.p.Axis, c.p.Inner, kernels.StridedNarrowMaxWarps, c.direction(), c.dt)
	}
	const nt = kernels.StridedNarrowThreads
	groups := nt / (32 * gw)
	sym := c.sym(kernels.StridedNarrow, fmt.Sprintf("h%d", h))
	occ := c.occupancy(kernels.StridedNarrow.Info().File, sym, nt, 0)
	grid := c.capGrid(ceilDiv(c.p.Outer, groups), occ, gridWaves, maxGridX)
	how := fmt.Sprintf("%d warps", gw)
	if gw == 1 {
		how = "a warp"
	}
	pl := Plan{Strategy: string(kernels.StridedNarrow), File: kernels.StridedNarrow.Info().File, Split: int(gw), Vec: c.narrowPacks(),
		Launches: []Launch{{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)}},
		Reason:   fmt.Sprintf("%s an outer index, its %d×%d block read as one run of packs, %d a thread", how, c.p.Axis, c.p.Inner, h)}
	return c.finish(pl), nil
}

// flat_rows: a block a tile of consecutive rows staged in shared memory,
// a group of lanes a row; grid-stride over tiles.
func (c *ctx) flatRows() (Plan, error) {
	w, n, ok := c.flatRowsLanes()
	if !ok {
		return Plan{}, fmt.Errorf("rows of %d columns exceed its longest kernel (%d)", c.p.Axis, flatRowsMaxCols)
	}
	nt := int64(flatRowsThreads)
	groups := nt / w
	// Rows a tile: about flatRowsTileBytes of each input, fewer where that
	// leaves under two tiles an SM, a whole number of row groups.
	rows := max(groups, flatRowsTileBytes/(c.p.Axis*int64(c.dt.Size()))/groups*groups)
	rows = min(rows, max(groups, roundUp(ceilDiv(c.p.Outer, 2*int64(c.d.SMs)), groups)))
	sym := c.sym(kernels.FlatRows, kernels.FlatRowsName(int(w), int(n)))
	smem := kernels.FlatRowsBytes(c.p.Op, c.dt, c.p.Axis, rows)
	occ, err := c.fits(kernels.FlatRows.Info().File, sym, int(nt), smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(ceilDiv(c.p.Outer, rows), occ, gridWaves, maxGridX)
	pl := Plan{Strategy: string(kernels.FlatRows), File: kernels.FlatRows.Info().File, Split: 1, Chunk: rows,
		Launches: []Launch{{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: int(smem)}},
		Reason:   fmt.Sprintf("%d threads a tile of %d rows in %d bytes of shared memory, %d lanes a row, %d values a lane, %d blocks/SM", nt, rows, smem, w, n, occ)}
	return c.finish(pl), nil
}

// flatRowsThreads is flat_rows' block size.
const flatRowsThreads = 128

// flatRowsTileBytes is the size of a flat_rows tile of one input.
const flatRowsTileBytes int64 = 8192

// flatRowsMaxCols is the longest row flat_rows serves (its widest group
// with the most values a lane).
var flatRowsMaxCols = int64(slices.Max(kernels.FlatRowsLanes) * slices.Max(kernels.FlatRowsValues))

// flatRowsLanes picks flat_rows' kernel, w lanes a row and n values a
// lane: for each width the fewest values that hold the row; of those
// within a quarter of the fewest slots (w×n), the one with values a lane
// nearest 8, two further off if a warp's shared-memory reads conflict more
// than two ways (flatRowsConflicts); then the fewer slots. H200, softmax
// bench, µs, each width forced: 200000×60 bf16 w4_n16 20.4, w8_n8 19.5,
// w16_n4 21.8; 100000×50 f32 w4_n16 16.5, w8_n8 15.7, w16_n4 16.3;
// 350785×126 bf16 w8_n16 66.6 (4-way), w16_n8 54.4; 200000×66 bf16 w8_n10
// 25.5 (4-way), w16_n5 23.8; 200000×36 f16 softmax_backward w4_n10 17.0,
// w8_n5 18.7, w16_n4 21.5.
func (c *ctx) flatRowsLanes() (w, n int64, ok bool) {
	type pick struct{ slots, score, w, n int64 }
	var cands []pick
	fewest := int64(0)
	for _, lanes := range kernels.FlatRowsLanes {
		for _, values := range kernels.FlatRowsValues {
			slots := int64(lanes * values)
			if slots < c.p.Axis {
				continue
			}
			score := abs64(int64(values) - 8)
			if flatRowsConflicts(c.p.Axis, int64(lanes), int64(c.dt.Size())) > 2 {
				score += 2
			}
			cands = append(cands, pick{slots, score, int64(lanes), int64(values)})
			if fewest == 0 || slots < fewest {
				fewest = slots
			}
			break // more values a lane only add slots
		}
	}
	var best pick
	for _, p := range cands {
		if 4*p.slots > 5*fewest {
			continue
		}
		if !ok || p.score < best.score || p.score == best.score && p.slots < best.slots {
			best, ok = p, true
		}
	}
	return best.w, best.n, ok
}

// flatRowsConflicts is the worst shared-memory bank conflict of a
// flat_rows read: a warp's 32/w groups read consecutive rows of cols
// elements of es bytes, lanes on consecutive elements; the most distinct
// 4-byte words one of the 32 banks serves, over both parities of a 16-bit
// row start.
func flatRowsConflicts(cols, w, es int64) int64 {
	worst := int64(1)
	for start := int64(0); start < 4/es; start++ {
		seen := map[int64]bool{}
		var perBank [32]int64
		for g := int64(0); g < 32/w; g++ {
			for l := int64(0); l < w; l++ {
				if word := ((start + g*cols + l) * es) / 4; !seen[word] {
					seen[word] = true
					perBank[word%32]++
					worst = max(worst, perBank[word%32])
				}
			}
		}
	}
	return worst
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// strided_smem: a block a tile of consecutive outer indices, their
// Axis×Inner blocks (backward: y's and dy's) staged in dynamic shared
// memory; grid-stride over tiles.
func (c *ctx) stridedSmem() (Plan, error) {
	sh := c.stridedSmemShape()
	if n := sh.tile * c.p.Axis * c.p.Inner; n > stridedSmemMaxTile {
		return Plan{}, fmt.Errorf("a tile of %d outer indices' blocks (%d elements) exceeds %d", sh.tile, n, int64(stridedSmemMaxTile))
	}
	occ, err := c.fits(kernels.StridedSmem.Info().File, sh.sym, int(sh.nt), sh.smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(ceilDiv(c.p.Outer, sh.tile), occ, gridWaves, maxGridX)
	pl := Plan{Strategy: string(kernels.StridedSmem), File: kernels.StridedSmem.Info().File, Split: int(sh.rg), Chunk: sh.tile,
		Launches: []Launch{{Symbol: sh.sym, Grid: block1(int64(grid)), Block: block1(sh.nt), Smem: int(sh.smem)}},
		Reason: fmt.Sprintf("%d threads a tile of %d outer indices (%d×%d each) in %d bytes of shared memory, %d row groups a column, %d blocks/SM",
			sh.nt, sh.tile, c.p.Axis, c.p.Inner, sh.smem, sh.rg, occ)}
	return c.finish(pl), nil
}

// stridedSmemMaxTile bounds a strided_smem tile (the kernel indexes it
// with 32-bit integers; shared memory bounds it far lower today).
const stridedSmemMaxTile = 1 << 30

// smemShape is a strided_smem launch: nt threads a tile of tile outer
// indices, rg row groups a column, smem bytes of dynamic shared memory.
type smemShape struct {
	nt, tile, rg, smem int64
	sym                string
}

// stridedSmemShape sizes strided_smem's tiles and blocks: outer indices a
// tile up to about stridedSmemTilePacks packs (small blocks then share a
// block's barriers), about eight packs a thread but a thread for each of
// the tile's columns (128 to 512 threads), and the spare threads as row
// groups of the columns. H200, softmax bench, µs (-ab-s37.txt §1-3): tiles
// of 512 packs against one outer index a block, 100000×64×3 f32 80.3 vs
// 362.2, 100000×50×2 f16 30.2 vs 379.9, 50000×40×5 f32 41.4 vs 150.5 (1024
// and 2048 packs were no faster); eight packs a thread against four,
// 2000×63×333 bf16 log_softmax 125.2 vs 135.8, 4096×128×36 f32 56.6 vs
// 59.5, but 3000×49×129 f16 65.2 vs 59.7, its 129 columns on 128 threads;
// row groups of ceil(2×threads/columns), two items a thread, lost to
// floor(threads/columns) (1000×2000×8 f32 75.1 vs 63.8).
func (c *ctx) stridedSmemShape() smemShape {
	n := c.p.Axis * c.p.Inner
	packs := ceilDiv(n, c.P)
	tile := clamp(stridedSmemTilePacks/packs, 1, max(1, c.p.Outer))
	cols := tile * c.p.Inner
	nt := max(roundUp(ceilDiv(tile*packs, 8), 32), roundUp(min(cols, kernels.StridedSmemMaxThreads), 32))
	nt = clamp(nt, 128, kernels.StridedSmemMaxThreads)
	rg := clamp(nt/cols, 1, c.p.Axis)
	variant := ""
	if tile > 1 {
		variant = kernels.StridedSmemTiles
	}
	return smemShape{nt: nt, tile: tile, rg: rg, sym: c.sym(kernels.StridedSmem, variant),
		smem: kernels.StridedSmemBytes(c.p.Op, c.dt, c.p.Axis, c.p.Inner, tile, rg)}
}

// stridedSmemTilePacks is the size strided_smem gathers small blocks into.
const stridedSmemTilePacks = 512

// stridedRegFewTiles is the most tiles (of 8 packs) for which strided_reg
// splits a 16-bit axis of 3 or 4 blocks' rows over twice the blocks.
const stridedRegFewTiles = 256

// stridedRegShape returns strided_reg's cluster size K, axis rows per block
// R, threads across a tile G and block size nt. A block holds up to 1024/8
// rows × NP packs at G = 8 (1024 f32 or 512 f16/bf16 rows); longer axes
// split over a cluster of K blocks, K as small as possible, then paired:
// twice the blocks of half the threads, so that two clusters share each SM
// and one's loads overlap the other's reductions. f32 pairs every cluster
// of 2 to 4 blocks: since the partials are pushed (one mbarrier wait where
// there were two cluster barriers, -ab-s28.txt), K×1024 against 2K×512
// threads, H200 harness on the library kernel, L2 flushed, µs: 4096×65536
// axis 0 672.4 → 653.4, 4096×16384 174.6 → 169.1, 4096×8192 94.1 → 90.0,
// 16×4096×1024 axis 1 171.4 → 162.1, 2048×16384 (K 2 → 4) 89.6 → 85.0,
// 3072×8192 (K 3 → 6) 74.0 → 71.2. (With the pulled partials pairing had
// gained only up to 256 tiles: -ab-s21.txt section 2.) 16-bit pairs an axis
// of 3 or 4 blocks over at most stridedRegFewTiles tiles: 4096×16384 f16
// (256 tiles) 121.3 → 116.2, bf16 4096×4096 (64) 54.8 → 49.3 (-ab-s21), but
// 4096×65536 bf16 (1024 tiles) 518.8 → 522.2 and K = 2 (8×2048×4096 f16
// 109.7 → 110.6; 2048×4096 bf16 22.8 → 32.3 in -ab-s21) lose.
// Short axes widen the tile towards 512-thread blocks, up to the width of
// Inner (128x128x8192: G = 32 0.62, 16 0.61, 8 0.57; 1x256x262144: G = 16
// 0.72, 8 0.71).
func (c *ctx) stridedRegShape() (k, r, g, nt int64, err error) {
	return c.stridedRegShapeWith(0, 0, true)
}

// stridedRegShapeWith is stridedRegShape with the cluster size and tile
// width forced where wantK or wantG is not 0; pairUp allows the doubled
// cluster of half-size blocks for few tiles (not with a forced shape).
func (c *ctx) stridedRegShapeWith(wantK, wantG int64, pairUp bool) (k, r, g, nt int64, err error) {
	np := int64(kernels.StridedRegPacks)
	maxNT := int64(1024)
	if !c.innerPacks() {
		maxNT = kernels.StridedRegShiftThreads // the "_shift" twins
	}
	perBlock := maxNT / 8 * np
	if wantG > 0 {
		perBlock = maxNT / wantG * np
	}
	k = max(ceilDiv(c.p.Axis, perBlock), wantK)
	maxK := int64(1)
	if c.d.Major >= 9 && c.d.Cluster {
		maxK = int64(min(c.d.MaxClusterSize, 8))
	}
	if k > maxK {
		return 0, 0, 0, 0, fmt.Errorf("an axis of %d needs %d blocks of %d rows; the device allows clusters of %d", c.p.Axis, k, perBlock, maxK)
	}
	if pairUp && 2*k <= maxK && c.pairsStridedReg(k) {
		k *= 2 // half-size blocks, two clusters' blocks a SM
	}
	r = ceilDiv(c.p.Axis, k)
	ty := ceilDiv(r, np)
	g = 8
	for g < 32 && ty*g*2 <= 512 && g*2*c.P <= c.p.Inner {
		g *= 2
	}
	if wantG > 0 {
		g = wantG
	}
	nt = roundUp(ty, 32/g) * g
	if mk := kernels.StridedRegMaxCluster(g * c.P); k > mk {
		return 0, 0, 0, 0, fmt.Errorf("clusters of %d blocks exceed the %d that %d-pack tiles allow", k, mk, g)
	}
	if nt > maxNT {
		return 0, 0, 0, 0, fmt.Errorf("%d axis rows of %d-pack tiles need %d threads a block (at most %d)", r, g, nt, maxNT)
	}
	if nt/32*g*c.P > 4096 {
		return 0, 0, 0, 0, fmt.Errorf("%d-thread blocks of %d-pack tiles exceed its shared partials (4096 columns × warps)", nt, g)
	}
	return k, r, g, nt, nil
}

// pairsStridedReg reports whether a cluster of k blocks is paired (see
// stridedRegShape).
func (c *ctx) pairsStridedReg(k int64) bool {
	if c.es == 4 {
		return k >= 2 && k <= 4
	}
	return (k == 3 || k == 4) && c.p.Outer*ceilDiv(c.p.Inner, 8*c.P) <= stridedRegFewTiles
}

// strided_reg: tiles of G packs across inner × the whole axis cached in
// registers, split over a cluster for long axes.
func (c *ctx) stridedReg() (Plan, error) { return c.stridedRegWith(0, 0) }

// StridedRegShaped plans strided_reg with tiles of g packs and clusters of
// at least k blocks (more where the axis needs them); 0 leaves either to
// the planner. It serves sweeps of the kernel's shapes.
func StridedRegShaped(p Problem, d Device, occ Occupancy, k, g int64) (Plan, error) {
	c, err := newCtx(p, d, occ)
	if err != nil {
		return Plan{}, err
	}
	return c.stridedRegWith(k, g)
}

func (c *ctx) stridedRegWith(wantK, wantG int64) (Plan, error) {
	k, r, g, nt, err := c.stridedRegShapeWith(wantK, wantG, wantK == 0 && wantG == 0)
	if err != nil {
		return Plan{}, err
	}
	tiles := c.p.Outer * ceilDiv(c.p.Inner, g*c.P)
	if tiles*k > maxGridX {
		return Plan{}, fmt.Errorf("%d tiles × %d blocks exceed the grid limit", tiles, k)
	}
	l := Launch{Symbol: c.sym(kernels.StridedReg, fmt.Sprintf("g%d", g)), Grid: block1(tiles * k), Block: block1(nt)}
	if k > 1 {
		l.Cluster = [3]uint32{uint32(k), 1, 1}
	}
	per := "one block"
	if k > 1 {
		per = fmt.Sprintf("a %d-block cluster", k)
	}
	pl := Plan{Strategy: string(kernels.StridedReg), File: kernels.StridedReg.Info().File, Split: int(k), Chunk: r, Vec: true,
		Launches: []Launch{l}, Reason: fmt.Sprintf("%s of %d threads per tile, %d axis rows × %d inner indices per block, %d tiles", per, nt, r, g*c.P, tiles)}
	return c.finish(pl), nil
}

// persistentWarpMax and persistentBlockMax are the longest rows the
// persistent register-cached bodies hold.
func (c *ctx) persistentWarpMax() int64 {
	np := int64(4)
	if c.bwd {
		np = 2
	}
	return 32 * np * c.P
}

func (c *ctx) persistentBlockMax() int64 {
	np := int64(4)
	if c.bwd {
		np = 2
	}
	return 512 * np * c.P
}

// persistent: an occupancy-sized grid looping over rows; a warp per row for
// short rows, a block per row with register caching for moderate rows, the
// online two-pass body beyond.
func (c *ctx) persistent() (Plan, error) {
	cols, rows := c.p.Axis, c.p.Outer
	var variant string
	var nt, perBlock int64
	switch {
	case cols <= c.persistentWarpMax():
		np := nextPow2(ceilDiv(cols, 32*c.P))
		variant, nt, perBlock = fmt.Sprintf("w32_p%d", np), 256, 8
	case cols <= c.persistentBlockMax():
		var np int64
		for _, p := range []int64{1, 2, 4} {
			if 512*p*c.P >= cols {
				np = p
				break
			}
		}
		variant, nt, perBlock = fmt.Sprintf("b_p%d", np), max(roundUp(ceilDiv(cols, np*c.P), 32), 32), 1
	default:
		variant, nt, perBlock = "2pass", clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512), 1
	}
	sym := c.sym(kernels.Persistent, variant)
	if _, ok := kernels.Persistent.Info().Variant(c.bwd, variant); !ok {
		return Plan{}, fmt.Errorf("no kernel %s", sym)
	}
	occ := c.occupancy("persistent.cu", sym, int(nt), 0)
	grid := c.capGrid(ceilDiv(rows, perBlock), occ, 1, maxGridX)
	return c.plan1(kernels.Persistent, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("%s, %d threads, %d blocks (%d per SM)", variant, nt, grid, occ)), nil
}

// pipelinedWarpPacks is the longest row, in 16-byte packs per lane, that
// pipelined gives a warp of its own; longer rows take a block per row.
const pipelinedWarpPacks = 16

// pipelined: an occupancy-sized grid whose workers stage their next rows
// through a ring of shared-memory slots filled by cp.async. Shape, from a
// sweep on H200 (sizes x threads x slots, see the package doc):
//   - rows up to pipelinedWarpPacks packs per lane: a warp per row, 16 warps
//     per block (halved until a slot per warp fits the opt-in limit);
//   - longer rows: a block per row, 16 packs per thread (128..512 threads);
//   - two slots per worker when they fit, else one: deeper rings measured no
//     faster (4096x4096 f32: 2 slots 49.6 µs, 3: 50.9, 4: 52.7), because a
//     deeper ring costs resident blocks and the row rate is bounded by how
//     many rows are being reduced at once, not by the loads in flight.
func (c *ctx) pipelined() (Plan, error) {
	cols, rows := c.p.Axis, c.p.Outer
	if !c.p.Aligned || cols%c.P != 0 {
		return Plan{}, fmt.Errorf("it needs 16-byte aligned pointers and rows of whole 16-byte packs (cols %d, %d per pack): cp.async copies whole packs and it has no scalar path", cols, c.P)
	}
	slot := cols * c.es * c.nin
	warp := c.packs() <= 32*pipelinedWarpPacks
	variant := "b"
	if warp {
		variant = "w32"
	}
	sym := c.sym(kernels.Pipelined, variant)
	optin := int64(c.d.SmemOptin) - int64(staticSmem(c.d, sym))
	workers, nt := int64(1), clamp(roundUp(ceilDiv(c.packs(), 16), 32), 128, 512)
	if warp {
		workers = 16
		for workers > 1 && workers*slot > optin {
			workers /= 2
		}
		nt = 32 * workers
	}
	stages := min(optin/(workers*slot), 2)
	if stages < 1 {
		return Plan{}, fmt.Errorf("a ring slot of %d bytes does not fit the %d bytes of shared memory a block may use", slot, optin)
	}
	smem := stages * workers * slot
	occ, err := c.fits(kernels.Pipelined.Info().File, sym, int(nt), smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(ceilDiv(rows, workers), occ, 1, maxGridX)
	return c.plan1(kernels.Pipelined, true, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: int(smem)},
		fmt.Sprintf("%s, %d threads, %d-slot ring of %d bytes per worker, %d blocks (%d per SM)", variant, nt, stages, slot, grid, occ)), nil
}
