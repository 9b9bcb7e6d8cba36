package plan

// warp_row's and flat_rows' builds: lane groups a row.

import (
	"fmt"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

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
