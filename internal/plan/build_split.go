package plan

// Builds that split a row: split_row, split_grid, split_cluster.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/gofused/softmax/internal/kernels"
)

// split_row: a row's blocks stream it as one virtual block, partials in the workspace.
func (c *ctx) splitRow() (Plan, error) {
	const nt = 512
	rows := c.p.Outer
	split := clamp(min(ceilDiv(prm.SplitRowBlocksPerSM*int64(c.d.SMs), rows), ceilDiv(c.p.Axis, nt*c.P*2)), 1, prm.MaxSplitRow)
	grid := [3]uint32{uint32(min(split, maxGridX)), uint32(min(rows, maxGridY)), 1}
	return Plan{Strategy: string(kernels.SplitRow), File: kernels.SplitRow.Info().File, Split: int(split), Vec: c.vec(),
		Workspace: rows * split * kernels.WsPairBytes(c.p.DType),
		Launches: []Launch{
			{Symbol: c.sym(kernels.SplitRow, "phase1"), Grid: grid, Block: block1(nt)},
			{Symbol: c.sym(kernels.SplitRow, "phase2"), Grid: grid, Block: block1(nt)},
		},
		Reason: fmt.Sprintf("%d blocks of %d threads per row, interleaved", split, nt)}, nil
}

// splitGridGrid returns split_grid's grid and the shared memory a block may cache, once.
func (c *ctx) splitGridGrid() (g, smemMax int64, err error) {
	if c.grid != nil {
		return c.grid.g, c.grid.smemMax, c.grid.err
	}
	defer func() { c.grid = &splitGridSize{g, smemMax, err} }()
	if !c.d.Cooperative {
		return 0, 0, fmt.Errorf("the device or driver does not support cooperative launch")
	}
	// Both kernels (one wave, waves) must fit the same grid.
	syms := [2]string{c.sym(kernels.SplitGrid, ""), c.sym(kernels.SplitGrid, "waves")}
	unit := 16 * c.nin
	smemMax = (int64(c.d.SmemOptin-max(staticSmem(c.d, syms[0]), staticSmem(c.d, syms[1]))) - 1024) / unit * unit
	perSM := math.MaxInt
	for _, sym := range syms {
		n, err := c.fits(kernels.SplitGrid.Info().File, sym, int(prm.SplitGridThreads), smemMax)
		if err != nil {
			return 0, 0, err
		}
		perSM = min(perSM, n)
	}
	return int64(perSM) * int64(c.d.SMs), smemMax, nil
}

type splitGridSize struct {
	g, smemMax int64
	err        error
}

// splitGridWaveBytes is the most input bytes a split_grid wave takes.
func (c *ctx) splitGridWaveBytes(g, smemMax int64) int64 {
	return prm.GridWaveQuarters * g * smemMax / 4
}

// split_grid: each block caches a chunk of a row across a barrier of the
// row's blocks, in as few even waves of rows as fit.
func (c *ctx) splitGrid() (Plan, error) {
	g, smemMax, err := c.splitGridGrid()
	if err != nil {
		return Plan{}, err
	}
	rw := c.waveRows
	if rw == 0 {
		rw = min(ceilDiv(c.p.Outer, max(1, ceilDiv(c.p.Outer*c.p.Axis*c.es*c.nin, c.splitGridWaveBytes(g, smemMax)))), g)
	}
	if rw < 1 || rw > g {
		return Plan{}, fmt.Errorf("waves of %d rows: it takes 1 to %d (at most one row per resident block)", rw, g)
	}
	chunk := roundUp(ceilDiv(c.p.Axis, g/rw), c.P)
	split := ceilDiv(c.p.Axis, chunk)
	smem := int64(0)
	if c.vec() {
		smem = min(smemMax, roundUp(chunk*c.es, 16)*c.nin)
	}
	rw = g / split // what the kernel derives
	waves, variant := ceilDiv(c.p.Outer, rw), ""
	if waves > 1 {
		variant = "waves"
	}
	cached := min(chunk*c.es, smem/c.nin)
	nt := prm.SplitGridThreads
	if waves == 1 && cached == chunk*c.es { // one wave, chunks cached whole
		nt = cmp.Or(shapeArg(c.shape(kernels.SplitGrid, 0, func(string) bool { return true }), "cached"), nt)
	}
	l := Launch{Symbol: c.sym(kernels.SplitGrid, variant), Grid: block1(g), Block: block1(nt), Smem: int(smem), Cooperative: true}
	return Plan{Strategy: string(kernels.SplitGrid), File: kernels.SplitGrid.Info().File, Split: int(split), Chunk: chunk, Vec: c.vec(),
		Workspace: c.p.Outer * split * kernels.WsPairBytes(c.p.DType), Barriers: rw, Launches: []Launch{l},
		Reason: fmt.Sprintf("%d blocks of %d threads per row, %d elements each, %d bytes of each cached in shared memory, rows in waves of %d (%d)",
			split, nt, chunk, cached, rw, waves)}, nil
}

// SplitGrid plans split_grid with waves of rowsPerWave rows, for sweeps and tests.
func SplitGrid(p Problem, d Device, occ Occupancy, rowsPerWave int64) (Plan, error) {
	c, err := newCtx(p, d, occ)
	if err != nil {
		return Plan{}, err
	}
	c.waveRows = rowsPerWave
	return c.build(kernels.SplitGrid)
}

// clusterSize is split_cluster's: the largest power of two leaving a block
// 256 elements (2 at least), or the forced one; ok if the chunk fits.
func (c *ctx) clusterSize() (cs int64, ok bool) {
	if c.config != "" {
		_, err := fmt.Sscanf(c.config, "c%d", &cs)
		return cs, err == nil && slices.Contains(c.splitClusterConfigs(), c.config)
	}
	if !c.clusterRows() {
		return 0, false
	}
	for cs = 2; cs*2 <= int64(c.d.MaxClusterSize) && ceilDiv(c.p.Axis, cs*2) >= 256; cs *= 2 {
	}
	return cs, c.clusterFits(cs)
}

// clusterRows reports whether split_cluster runs on the device and layout.
func (c *ctx) clusterRows() bool { return c.d.Major >= 9 && c.d.Cluster && c.p.Inner == 1 }

// clusterFits reports whether a cs-block cluster's chunks fit a block's shared memory.
func (c *ctx) clusterFits(cs int64) bool {
	smem := kernels.SmemBytes(kernels.SplitCluster, c.p.Op, c.dt, roundUp(ceilDiv(c.p.Axis, cs), c.P), 0)
	return smem+int64(staticSmem(c.d, c.sym(kernels.SplitCluster, ""))) <= int64(c.d.SmemOptin)
}

// clusterShape returns split_cluster's cluster size, and a block's chunk, threads and smem.
func (c *ctx) clusterShape() (cs, chunk, nt, smem int64, ok bool) {
	if cs, ok = c.clusterSize(); !ok {
		return 0, 0, 0, 0, false
	}
	chunk = roundUp(ceilDiv(c.p.Axis, cs), c.P)
	nt = threads(ceilDiv(chunk, c.P), 8, 128, 1024, false)
	return cs, chunk, nt, kernels.SmemBytes(kernels.SplitCluster, c.p.Op, c.dt, chunk, int(nt)), true
}

// splitClusterConfigs names the cluster sizes ("c4") whose chunks fit.
func (c *ctx) splitClusterConfigs() []string {
	var names []string
	for cs := int64(2); c.clusterRows() && cs <= int64(c.d.MaxClusterSize); cs *= 2 {
		if c.clusterFits(cs) {
			names = append(names, fmt.Sprintf("c%d", cs))
		}
	}
	return names
}

// split_cluster: a cluster of C blocks per row, chunks in shared memory.
func (c *ctx) splitCluster() (Plan, error) {
	if !c.d.Cluster {
		return Plan{}, fmt.Errorf("the device or driver does not support cluster launch")
	}
	cs, chunk, nt, smem, ok := c.clusterShape()
	if !ok && c.config != "" {
		return Plan{}, c.noConfig(c.splitClusterConfigs())
	}
	if !ok {
		return Plan{}, fmt.Errorf("a row of %d elements does not fit the shared memory of a %d-block cluster (%d bytes per block)",
			c.p.Axis, c.d.MaxClusterSize, c.d.SmemOptin)
	}
	pl, err := c.one(kernels.SplitCluster, "", nt, smem, cs*min(c.p.Outer, maxGridY), 0, c.vec(), fmt.Sprintf("%d-block clusters, %d elements (%d bytes) per block", cs, chunk, smem))
	if err != nil {
		return Plan{}, err
	}
	pl.Split, pl.Chunk = int(cs), chunk
	pl.Launches[0].Grid = [3]uint32{uint32(cs), uint32(min(c.p.Outer, maxGridY)), 1}
	pl.Launches[0].Cluster, pl.Launches[0].NonPortable = [3]uint32{uint32(cs), 1, 1}, cs > 8
	return pl, nil
}
