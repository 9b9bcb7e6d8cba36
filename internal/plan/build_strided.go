package plan

// Builds for non-last axes: strided, strided_short, strided_narrow, strided_smem, strided_reg.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

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
				Workspace: outer * inner * split * kernels.WsPairBytes(c.p.DType),
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

// strided_short: slices a thread (or a lane pair, each half the rows) over
// the whole axis, the kernel compiled for its length; 16-byte packs of
// inner indices, or the "_shift" twins' 2 or 4 scalar slices.
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

// stridedSmemShape sizes strided_smem's tiles: outer indices up to about
// stridedSmemTilePacks packs, a thread for each column, spare threads as
// row groups (nvidia-h200-2026-11-23-ab-s37.txt §1-3).
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

// stridedRegShape returns strided_reg's cluster size K, axis rows per block
// R, threads across a tile G and block size nt: the fewest blocks that hold
// the axis, paired where measured faster (nvidia-h200-2026-11-22-ab-s21.txt
// §2, ab-s28.txt); backward holds half the rows (not yet measured).
func (c *ctx) stridedRegShape() (k, r, g, nt int64, err error) {
	return c.stridedRegShapeWith(0, 0, true)
}

// stridedRegShapeWith is stridedRegShape with the cluster size and tile
// width forced where wantK or wantG is not 0; pairUp allows the doubled
// cluster of half-size blocks for few tiles (not with a forced shape).
func (c *ctx) stridedRegShapeWith(wantK, wantG int64, pairUp bool) (k, r, g, nt int64, err error) {
	np := int64(kernels.StridedRegPacks)
	if c.bwd {
		np = kernels.StridedRegBwdPacks // y's and dy's packs in the forward's registers
	}
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
