package oracle

import (
	"fmt"

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
