package plan

// Builds for non-last axes: strided, strided_short, strided_narrow, strided_smem, strided_reg.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// strided: tiles of TX·VW inner indices × TY threads along the axis, split
// along a long axis when the tiles cannot fill the GPU.
func (c *ctx) strided() (Plan, error) {
	outer, axis, inner := c.p.Outer, c.p.Axis, c.p.Inner
	vw := int64(1)
	if c.innerPacks() || c.stridedTwin() {
		vw = c.P
	}
	tx := min(nextPow2(ceilDiv(inner, vw)), 32)
	ty := min(256, 1024/vw) / tx
	for ty > 1 && ty > axis {
		ty /= 2
	}
	if vw == c.P && tx == 32 && axis <= prm.StridedShortAxis {
		ty = min(2, 1+axis/4) // warp-wide tiles of short axes
	}
	tiles := outer * ceilDiv(inner, tx*vw)
	occ := c.occupancy(kernels.Strided.Info().File, c.sym(kernels.Strided, ""), int(tx*ty), 0)
	pl := Plan{Strategy: string(kernels.Strided), File: kernels.Strided.Info().File, Vec: c.innerPacks()}
	block := [3]uint32{uint32(tx), uint32(ty), 1}
	const minPerThread = 16 // axis elements per thread and chunk
	split := clamp(min(ceilDiv(int64(occ)*int64(c.d.SMs), tiles), axis/(ty*minPerThread)), 1, maxGridY)
	chunk := ceilDiv(axis, split)
	if split = ceilDiv(axis, chunk); tiles < 2*int64(c.d.SMs) && axis >= 2*ty*minPerThread && split >= 2 {
		grid := [3]uint32{uint32(min(tiles, maxGridX)), uint32(split), 1}
		pl.Split, pl.Chunk, pl.Workspace = int(split), chunk, outer*inner*split*kernels.WsPairBytes(c.p.DType)
		pl.Launches = []Launch{{Symbol: c.sym(kernels.Strided, "split1"), Grid: grid, Block: block}, {Symbol: c.sym(kernels.Strided, "split2"), Grid: grid, Block: block}}
		pl.Reason = fmt.Sprintf("%d×%d threads × %d slices each, %d tiles only: axis split into %d chunks of %d", tx, ty, vw, tiles, split, chunk)
		return pl, nil
	}
	grid := min(tiles, int64(max(occ, 1))*int64(c.d.SMs)*prm.GridWaves, maxGridX)
	pl.Launches = []Launch{{Symbol: c.sym(kernels.Strided, ""), Grid: block1(grid), Block: block}}
	pl.Reason = fmt.Sprintf("%d inner × %d axis threads per block, %d slices per thread, %d tiles", tx, ty, vw, tiles)
	return pl, nil
}

// strided_short: slices a thread (or lane pair) over the whole axis, compiled for its length.
func (c *ctx) stridedShort() (Plan, error) {
	name, lanes, ok := c.stridedShortVariant()
	if !ok {
		return Plan{}, fmt.Errorf("it has kernels for axes of 2..%d rows (%s %v), not %d",
			c.maxCols(kernels.StridedShort), c.direction(), c.dt, c.p.Axis)
	}
	sl := kernels.StridedShortTwinSlices(c.p.Axis, lanes, c.p.Op)
	threads := ceilDiv(c.p.Outer*c.p.Inner, 32/lanes*sl) * 32
	how := fmt.Sprintf("%d slices a thread, %d apart, %d lanes a slice", sl, 32/lanes, lanes)
	if c.innerPacks() {
		threads, how = c.p.Outer*c.p.Inner/c.P*lanes, fmt.Sprintf("a pack of %d slices a thread, %d lanes a slice", c.P, lanes)
		if lanes > 1 {
			threads = roundUp(threads, 32) // whole warps, so a pair's shuffles have both lanes
		}
	}
	return c.one(kernels.StridedShort, name, 256, 0, ceilDiv(threads, 256), prm.GridWaves, c.innerPacks(), fmt.Sprintf("%s, their %d axis rows in registers", how, c.p.Axis))
}

// strided_narrow: GW warps an outer index, its Axis×Inner block one run of packs.
func (c *ctx) stridedNarrow() (Plan, error) {
	gw, h, ok := kernels.StridedNarrowShape(c.p.Op, c.dt, c.p.Axis, c.p.Inner)
	if !ok && !kernels.StridedNarrowInner(c.dt, c.p.Inner) {
		return Plan{}, fmt.Errorf("it takes an Inner that is a power of two from 2 to %d %v elements (8 packs), not %d", 8*c.P, c.dt, c.p.Inner)
	} else if !ok {
		return Plan{}, fmt.Errorf("an outer index's block of %d×%d elements exceeds what %d warps hold (%s %v)",
			c.p.Axis, c.p.Inner, kernels.StridedNarrowMaxWarps, c.direction(), c.dt)
	}
	const nt = kernels.StridedNarrowThreads
	pl, err := c.one(kernels.StridedNarrow, fmt.Sprintf("h%d", h), nt, 0, ceilDiv(c.p.Outer, int64(nt/(32*gw))), prm.GridWaves, c.narrowPacks(),
		fmt.Sprintf("%d warps an outer index, its %d×%d block read as one run of packs, %d a thread", gw, c.p.Axis, c.p.Inner, h))
	pl.Split = int(gw)
	return pl, err
}

// strided_smem: a block a tile of outer indices staged in shared memory.
func (c *ctx) stridedSmem() (Plan, error) {
	nt, tile, rg, smem := c.stridedSmemShape()
	if n := tile * c.p.Axis * c.p.Inner; n > 1<<30 { // the kernel's 32-bit tile indices
		return Plan{}, fmt.Errorf("a tile of %d outer indices' blocks (%d elements) exceeds %d", tile, n, 1<<30)
	}
	pl, err := c.one(kernels.StridedSmem, c.stridedSmemVariant(tile), nt, smem, ceilDiv(c.p.Outer, tile), prm.GridWaves, false,
		fmt.Sprintf("%d threads a tile of %d outer indices (%d×%d each) in %d bytes of shared memory, %d row groups a column", nt, tile, c.p.Axis, c.p.Inner, smem, rg))
	pl.Split, pl.Chunk = int(rg), tile
	return pl, err
}

// stridedSmemShape sizes strided_smem's tiles: a thread a column, spare ones as row groups.
func (c *ctx) stridedSmemShape() (nt, tile, rg, smem int64) {
	packs := ceilDiv(c.p.Axis*c.p.Inner, c.P)
	tile = clamp(prm.StridedSmemTilePacks/packs, 1, max(1, c.p.Outer))
	cols := tile * c.p.Inner
	nt = clamp(max(roundUp(ceilDiv(tile*packs, 8), 32), roundUp(min(cols, kernels.StridedSmemMaxThreads), 32)), 128, kernels.StridedSmemMaxThreads)
	rg = clamp(nt/cols, 1, c.p.Axis)
	return nt, tile, rg, kernels.StridedSmemBytes(c.p.Op, c.dt, c.p.Axis, c.p.Inner, tile, rg)
}

func (c *ctx) stridedSmemVariant(tile int64) string {
	if tile > 1 {
		return kernels.StridedSmemTiles
	}
	return ""
}

// stridedRegShape returns strided_reg's cluster size, axis rows a block,
// threads across a tile and block size: the fewest blocks that hold the axis.
func (c *ctx) stridedRegShape(pairUp bool) (k, r, g, nt int64, err error) {
	np, maxNT, maxK := int64(kernels.StridedRegPacks), int64(1024), int64(1)
	if c.bwd {
		np = kernels.StridedRegBwdPacks // y's and dy's packs in the forward's registers
	}
	if !c.innerPacks() {
		maxNT = kernels.StridedRegShiftThreads // the "_shift" twins
	}
	if c.d.Major >= 9 && c.d.Cluster {
		maxK = int64(min(c.d.MaxClusterSize, 8))
	}
	if k = ceilDiv(c.p.Axis, maxNT/8*np); k > maxK {
		return 0, 0, 0, 0, fmt.Errorf("an axis of %d needs %d blocks of %d rows; the device allows clusters of %d", c.p.Axis, k, maxNT/8*np, maxK)
	}
	if pairUp && 2*k <= maxK && c.pairsStridedReg(k) {
		k *= 2 // half-size blocks, two clusters' blocks a SM
	}
	r = ceilDiv(c.p.Axis, k)
	ty := ceilDiv(r, np)
	for g = 8; g < 32 && ty*g*2 <= 512 && g*2*c.P <= c.p.Inner; g *= 2 {
	}
	nt = roundUp(ty, 32/g) * g
	switch mk := kernels.StridedRegMaxCluster(g * c.P); {
	case k > mk:
		return 0, 0, 0, 0, fmt.Errorf("clusters of %d blocks exceed the %d that %d-pack tiles allow", k, mk, g)
	case nt > maxNT:
		return 0, 0, 0, 0, fmt.Errorf("%d axis rows of %d-pack tiles need %d threads a block (at most %d)", r, g, nt, maxNT)
	case nt/32*g*c.P > 4096:
		return 0, 0, 0, 0, fmt.Errorf("%d-thread blocks of %d-pack tiles exceed its shared partials (4096 columns × warps)", nt, g)
	}
	return k, r, g, nt, nil
}

// pairsStridedReg reports whether a cluster of k blocks is paired.
func (c *ctx) pairsStridedReg(k int64) bool {
	if c.es == 4 {
		return k >= 2 && k <= 4
	}
	return (k == 3 || k == 4) && c.p.Outer*ceilDiv(c.p.Inner, 8*c.P) <= prm.StridedRegFewTiles
}

// strided_reg: tiles of G packs × the whole axis in registers, a cluster for long axes.
func (c *ctx) stridedReg() (Plan, error) {
	k, r, g, nt, err := c.stridedRegShape(true)
	if err != nil {
		return Plan{}, err
	}
	tiles := c.p.Outer * ceilDiv(c.p.Inner, g*c.P)
	if tiles*k > maxGridX {
		return Plan{}, fmt.Errorf("%d tiles × %d blocks exceed the grid limit", tiles, k)
	}
	pl, _ := c.one(kernels.StridedReg, fmt.Sprintf("g%d", g), nt, 0, tiles*k, 0, true,
		fmt.Sprintf("%d-block clusters of %d threads per tile, %d axis rows × %d inner indices per block, %d tiles", k, nt, r, g*c.P, tiles))
	if k > 1 {
		pl.Launches[0].Cluster = [3]uint32{uint32(k), 1, 1}
	}
	pl.Split, pl.Chunk = int(k), r
	return pl, nil
}
