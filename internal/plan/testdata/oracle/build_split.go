package oracle

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/kernels"
)

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
