package plan

// warp_row's and flat_rows' builds: lane groups a row.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
)

// warp_row: W lanes per row, NP packs per lane, 128-thread blocks; 16-bit
// rows read element by element over 4+ lanes take the general build.
func (c *ctx) warpRow() (Plan, error) {
	shape := c.warpShape
	if c.config != "" {
		shape = c.warpRowConfig
	}
	w, np, err := shape()
	if err != nil {
		return Plan{}, err
	}
	pl, err := c.one(kernels.WarpRow, fmt.Sprintf("w%d_p%d", w, np), 128, 0, ceilDiv(c.p.Outer, 128/w), prm.GridWaves, c.vec(),
		fmt.Sprintf("%d lanes × %d packs per row, %d rows per block", w, np, 128/w))
	pl.General = c.es == 2 && !c.vec() && !c.shifts(kernels.WarpRow) && w >= 4
	return pl, err
}

// warpShape returns warp_row's lanes per row and packs per lane for the span.
func (c *ctx) warpShape() (w, np int64, err error) {
	span := c.warpSpan()
	packs := ceilDiv(span, c.P)
	if m := c.maxCols(kernels.WarpRow); span > m {
		return 0, 0, fmt.Errorf("rows of %d elements (%d read from the pack boundary before each) exceed its register cache (%d)", c.p.Axis, span, m)
	}
	if c.wholePacks() || c.shifts(kernels.WarpRow) { // packs a lane; rows read element by element take one
		if pick := c.warpLanes(packs); pick == "p2" || pick == "p3" {
			w, np := warpShapeOf(pick, packs)
			return w, np, nil
		}
	}
	if packs <= 32 {
		return nextPow2(packs), 1, nil
	}
	return 32, nextPow2(ceilDiv(packs, 32)), nil
}

// warpLanes returns the table's warp_row shape (p1, p2, p3) for rows of packs.
func (c *ctx) warpLanes(packs int64) string {
	return c.shape(kernels.WarpRow, packs, func(x string) bool {
		w, np := warpShapeOf(x, packs)
		v, ok := kernels.WarpRow.Info().Variant(c.bwd, fmt.Sprintf("w%d_p%d", w, np))
		fewer, _ := warpShapeOf(fmt.Sprintf("p%d", np-1), packs)
		return np == 1 || ok && v.Serves(c.dt) && w < fewer
	})
}

// warpShapeOf returns the lanes and packs a lane of shape x for packs.
func warpShapeOf(x string, packs int64) (w, np int64) {
	np = max(int64(x[len(x)-1]-'0'), 1)
	return nextPow2(ceilDiv(packs, np)), np
}

// wholePacks reports rows of whole 16-byte packs on the vector path.
func (c *ctx) wholePacks() bool { return c.vec() && c.p.Axis%c.P == 0 }

// flat_rows: a block a tile of rows staged in shared memory, lanes a row.
func (c *ctx) flatRows() (Plan, error) {
	w, n, ok := c.flatRowsLanes()
	if !ok {
		return Plan{}, fmt.Errorf("rows of %d columns exceed its longest kernel (%d)", c.p.Axis, flatRowsMaxCols)
	}
	nt := prm.FlatRowsThreads
	groups := nt / w
	rows := max(groups, prm.FlatRowsTileBytes/(c.p.Axis*c.es)/groups*groups)
	rows = min(rows, max(groups, roundUp(ceilDiv(c.p.Outer, 2*int64(c.d.SMs)), groups)))
	smem := kernels.FlatRowsBytes(c.p.Op, c.dt, c.p.Axis, rows)
	pl, err := c.one(kernels.FlatRows, kernels.FlatRowsName(int(w), int(n)), nt, smem, ceilDiv(c.p.Outer, rows), prm.GridWaves, false,
		fmt.Sprintf("%d threads a tile of %d rows in %d bytes of shared memory, %d lanes a row, %d values a lane", nt, rows, smem, w, n))
	pl.Chunk = rows
	return pl, err
}

// flatRowsMaxCols is the longest row flat_rows serves.
var flatRowsMaxCols = int64(slices.Max(kernels.FlatRowsLanes) * slices.Max(kernels.FlatRowsValues))

// flatRowsLanes picks w lanes a row and n values a lane: within 5/4 of the
// fewest slots, n near 8 and few bank conflicts.
func (c *ctx) flatRowsLanes() (w, n int64, ok bool) {
	type pick struct{ slots, score, w, n int64 }
	var cands []pick
	for _, lanes := range kernels.FlatRowsLanes {
		i := slices.IndexFunc(kernels.FlatRowsValues, func(v int) bool { return int64(lanes*v) >= c.p.Axis })
		if i < 0 {
			continue
		}
		v := int64(kernels.FlatRowsValues[i])
		score := max(v-8, 8-v)
		if flatRowsConflicts(c.p.Axis, int64(lanes), c.es) > 2 {
			score += 2
		}
		cands = append(cands, pick{int64(lanes) * v, score, int64(lanes), v})
	}
	if len(cands) == 0 {
		return 0, 0, false
	}
	fewest := slices.MinFunc(cands, func(a, b pick) int { return cmp.Compare(a.slots, b.slots) }).slots
	cands = slices.DeleteFunc(cands, func(p pick) bool { return 4*p.slots > 5*fewest })
	best := slices.MinFunc(cands, func(a, b pick) int { return cmp.Or(cmp.Compare(a.score, b.score), cmp.Compare(a.slots, b.slots)) })
	return best.w, best.n, true
}

// flatRowsConflicts is the worst bank conflict of a warp's flat_rows read.
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
