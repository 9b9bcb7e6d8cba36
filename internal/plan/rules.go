package plan

import (
	"math"

	"github.com/gofused/softmax/internal/kernels"
)

// Tunables of the automatic choice (first guesses; see the package doc).
const (
	blockGBs      = 40.0 // GB/s one block streams on its own
	smGBs         = 25.0 // GB/s per SM when every SM streams
	launchMicros  = 4.0  // cost of one extra launch, µs
	clusterMicros = 1.0  // extra cost of a cluster launch and its barriers, µs
	switchMicros  = 1.0  // a split must beat a block per row by this much (and 20%)
	gridWaves     = 4    // grid cap, in waves of resident blocks
	maxSplitRow   = 2048 // split_row chunks per row (phase 2 merges them all)

	// the longest row (input bytes) split_cluster takes: 512 KB rows tie
	// with split_row, 1 MB rows lose (nvidia-h200-2026-11-22-sweep-fewrows.txt)
	clusterRowBytes = 384 << 10
	// forward rows from this size take split_cluster over a block a row
	// when every cluster is resident at once (nvidia-h200-2026-11-22-ab-s29.txt §4)
	clusterOneWaveRowBytes = 64 << 10
	// split_row's grid, 512-thread blocks an SM over all rows (nvidia-h200-2026-11-22-ab-s17.txt)
	splitRowBlocksPerSM = 2
	// split_grid caches at most gridCacheHalves/2 times the grid's shared
	// memory of a row; past it split_row reads it twice for less (nvidia-h200-2026-11-22-ab-s30.txt §3)
	gridCacheHalves = 8
	// split_grid's waves take at most gridWaveQuarters/4 times the grid's
	// cache (cuda's BenchmarkSplitGridWaves: one wave to 32 MB, two past 128 MB)
	gridWaveQuarters = 9
	// rows from this size that a block would read twice are split while
	// rows <= SMs/2 (fewModel; measured at 4 MB rows)
	twoReadSplitBytes = 1 << 20
)

// unalignedRows reports last-axis rows, several of them, whose tensors do
// not all start on a 16-byte boundary (a view into a larger tensor): no
// strategy but flat_rows reads them as 16-byte packs.
func (c *ctx) unalignedRows() bool {
	return !c.p.Aligned && c.p.Inner == 1 && c.p.Outer > 1
}

// fewModel is the few-rows bandwidth model, for rows < SMs (ok false
// otherwise): a block per row (""), the row split over every SM
// (split_row) or a cluster per row (split_cluster), whichever it models
// cheapest. The table's few.* rows act on its pick (few_model_*).
func (c *ctx) fewModel() (kernels.Strategy, bool) {
	if c.fewDone {
		return c.few, c.fewOK
	}
	c.fewDone = true
	if c.p.Outer >= int64(c.d.SMs) {
		return "", false
	}
	rows := float64(c.p.Outer)
	rowBytes := float64(c.p.Axis * c.es * c.nin)
	sms := float64(c.d.SMs)
	// µs = bytes / (GB/s · 1e3)
	tBlock := rowBytes / (blockGBs * 1e3)
	tSplit := launchMicros + rows*rowBytes*1.5/(sms*smGBs*1e3)
	// A split must clearly win: the model is rough and tiny problems are
	// dominated by launch latency anyway.
	best, bestT := kernels.Strategy(""), min(tBlock-switchMicros, 0.8*tBlock)
	if rowBytes >= twoReadSplitBytes && c.p.Outer*2 <= int64(c.d.SMs) && c.twoReadBlockRows() {
		// The model's block rate is a one-read block's; measured with the
		// second read (64×1048576 f32: online_2pass 356.7 µs vs split_row
		// 219.7; 64×2097152 f16 392.0 vs 226.9, sweep-fewrows.txt) a block
		// per row loses to the split while half the SMs would idle.
		bestT = math.Inf(1)
	}
	if tSplit < bestT {
		best, bestT = kernels.SplitRow, tSplit
	}
	if cs, ok := c.clusterSize(); ok && rowBytes <= clusterRowBytes {
		waves := max(1, rows*float64(cs)/sms)
		tCluster := clusterMicros + rowBytes/(float64(cs)*blockGBs*1e3)*waves
		if tCluster < bestT || best == "" && !c.bwd && rowBytes >= clusterOneWaveRowBytes && rows*float64(cs) <= sms {
			best = kernels.SplitCluster
		}
	}
	c.few, c.fewOK = best, true
	return best, true
}

// clusterPackNum/clusterPackDen: the share of blocks an SM × SMs / cluster
// size that residentClusters counts as resident clusters where the
// driver's query does not answer (GPCs of uneven SM counts strand blocks;
// H100's query gave 15/16 or just above: nvidia-h100-2026-11-25-ab-s54.txt §3).
const (
	clusterPackNum = 15
	clusterPackDen = 16
)

// gridCaches reports whether split_grid should replace split_row (or a
// block per row that reads long rows twice): an op on 16-byte rows
// whose inputs are at least minBytes and either at most
// gridCacheHalves/2 times the shared memory of the whole grid or in rows
// that fit a wave (splitGridWaveBytes). Ragged rows take it too (nothing
// cached; nvidia-h200-2026-11-22-ab-s31.txt §4).
func (c *ctx) gridCaches(minBytes int64) bool {
	if !c.vec() && !c.ragged() {
		return false
	}
	g, smemMax, err := c.splitGridGrid()
	in := c.p.Outer * c.p.Axis * c.es * c.nin
	return err == nil && in >= minBytes && (2*in <= gridCacheHalves*g*smemMax || in/c.p.Outer <= c.splitGridWaveBytes(g, smemMax))
}

// twoReadBlockRows reports whether a block per row would read the row twice
// (forward rows that neither warp_row, block_reg, block_smem with two blocks
// per SM nor pipelined hold on chip; backward rows past warp_row's and
// block_reg's).
func (c *ctx) twoReadBlockRows() bool {
	if c.p.Axis <= kernels.WarpRow.Info().MaxCols(c.p.Op, c.dt) {
		return false
	}
	if c.p.Op.Backward() {
		return !c.regime("block_reg")
	}
	if c.regime("block_reg") || c.regime("block_hybrid") {
		return false
	}
	if occ, err := c.blockSmemOccupancy(); err == nil && occ >= 2 {
		return false
	}
	if _, err := c.pipelined(); c.es == 4 && err == nil {
		return false
	}
	return true
}

// stridedShortVariant names strided_short's kernel for this axis ("a5", or
// "p9" for a lane pair's 17 or 18 rows) and its lanes a slice, ok false
// when it has none for the dtype and direction.
func (c *ctx) stridedShortVariant() (string, int64, bool) {
	name, lanes, ok := kernels.StridedShortVariant(c.p.Axis, c.bwd)
	if !ok {
		return "", 0, false
	}
	v, ok := kernels.StridedShort.Info().Variant(c.bwd, name)
	return name, lanes, ok && v.Serves(c.dt)
}
