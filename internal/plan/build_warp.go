package plan

// warp_row's and flat_rows' builds: lane groups a row.

import (
	"fmt"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
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
	pick := ""
	if c.warpPackPath() {
		pick = c.warpLanes(packs)
	}
	switch {
	case pick == "p2" || pick == "p3":
		w, np := warpShapeOf(pick, packs)
		return w, np, nil
	case packs <= 32:
		return nextPow2(packs), 1, nil
	}
	return 32, nextPow2(ceilDiv(packs, 32)), nil
}

// warpLanes returns the packs a lane (p2, p3; p1 or "" for one) the
// table's warp_row shape rows prefer for rows of packs 16-byte packs, of
// the shapes with a kernel that take fewer lanes than a pack less would.
func (c *ctx) warpLanes(packs int64) string {
	return c.shape(kernels.WarpRow, packs, func(x string) bool {
		w, np := warpShapeOf(x, packs)
		v, ok := kernels.WarpRow.Info().Variant(c.bwd, fmt.Sprintf("w%d_p%d", w, np))
		fewer, _ := warpShapeOf(fmt.Sprintf("p%d", np-1), packs)
		return np == 1 || ok && v.Serves(c.dt) && w < fewer
	})
}

// warpShapeOf returns the lanes and packs a lane of shape x (p1, p2, p3)
// for a row of packs 16-byte packs: the fewest power-of-two lanes that
// hold it with x's packs.
func warpShapeOf(x string, packs int64) (w, np int64) {
	np = max(int64(x[len(x)-1]-'0'), 1)
	return nextPow2(ceilDiv(packs, np)), np
}

// wholePacks reports rows of whole 16-byte packs on the vector path
// (vec() also admits a single ragged row).
func (c *ctx) wholePacks() bool { return c.vec() && c.p.Axis%c.P == 0 }

// warpPackPath reports rows warp_row reads in 16-byte packs: whole packs,
// or ragged rows through its twins (warpRagged). The table's shape rows
// apply to them; rows read element by element take one pack a lane.
func (c *ctx) warpPackPath() bool { return c.wholePacks() || c.shifts(kernels.WarpRow) }

// warp_row: W lanes per row, NP packs per lane, 128-thread blocks; 16-bit
// rows read element by element over 4 lanes or more take the general build
// (Plan.General; nvidia-h200-2026-11-24-ab-s40.txt §2-3).
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
// lane: few slots, values a lane near 8, and few bank conflicts
// (flatRowsConflicts; 350785×126 bf16 w8_n16 66.6 µs, 4-way, w16_n8 54.4).
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
			score := max(int64(values)-8, 8-int64(values))
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
