package oracle

import (
	"fmt"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
)

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
