package oracle

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/kernels"
)

// flatRowsUnaligned's lower limits, in columns: f32 forward and backward,
// f16/bf16 either way.
const (
	flatRowsMinColsUnaligned    = 10
	flatRowsMinBwdColsUnaligned = 257
	flatRowsMinColsUnaligned16  = 13
)

// fewRows applies the bandwidth model for rows < SMs: a block per row, the
// row split over every SM (split_row), or a cluster per row (split_cluster).
// It returns "" when a block per row is modelled cheapest.
func (c *ctx) fewRows() (kernels.Strategy, string) {
	if c.fewRaggedBlockRows() {
		return "", ""
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
	why := ""
	if tSplit < bestT {
		best, bestT = kernels.SplitRow, tSplit
		why = fmt.Sprintf("few long rows (%d < %d SMs): split_row models %.1f µs vs %.1f µs a block per row", c.p.Outer, c.d.SMs, tSplit, tBlock)
	}
	if cs, ok := c.clusterSize(); ok && rowBytes <= clusterRowBytes {
		clusters := rows
		waves := max(1, clusters*float64(cs)/sms)
		tCluster := clusterMicros + rowBytes/(float64(cs)*blockGBs*1e3)*waves
		if tCluster < bestT {
			best = kernels.SplitCluster
			why = fmt.Sprintf("few long rows (%d < %d SMs): a %d-block cluster per row models %.1f µs (split_row %.1f, block %.1f)", c.p.Outer, c.d.SMs, cs, tCluster, tSplit, tBlock)
		} else if best == "" && !c.bwd && rowBytes >= clusterOneWaveRowBytes && rows*float64(cs) <= sms {
			best = kernels.SplitCluster
			why = fmt.Sprintf("few rows of %d KB (%d < %d SMs): one wave of %d-block clusters, ahead of a block per row from %d KB", int64(rowBytes)>>10, c.p.Outer, c.d.SMs, cs, clusterOneWaveRowBytes>>10)
		}
	}
	bigRows := rowBytes >= gridTwoReadRowBytes
	if best == kernels.SplitRow || best == "" && bigRows && c.twoReadBlockRows() ||
		!c.bwd && best == kernels.SplitCluster && bigRows && c.gridFillsWithFewBlocks() {
		if ok, why2 := c.gridCaches(gridMinBytes); ok {
			return kernels.SplitGrid, c.fewRowsWhy(why2)
		}
	}
	if best == kernels.SplitCluster && c.gridOverCluster(rowBytes) {
		if ok, why2 := c.gridCaches(0); ok {
			return kernels.SplitGrid, c.fewRowsWhy(why2)
		}
	}
	if best == "" {
		return c.fewMidRows()
	}
	return best, why
}

// fewMidRows places the forward rows of whole packs, fewer than SMs, of
// fewMidMinRowBytes up to gridTwoReadRowBytes, on devices with clusters,
// that the model leaves to a block per row (block_reg's or block_hybrid's
// 1024-thread blocks, one an SM; online_2pass for 16-bit rows past
// block_hybrid, which reads each row twice).
//
// Past fewMidGridRowBytes: split_cluster while every row's cluster is
// resident at once (rows × cluster size within the occupancy query's
// blocks an SM × SMs), split_grid past that, where the clusters' second
// wave costs more than the grid's barrier. Resident clusters: the
// driver's cluster query, or blocks an SM × SMs / cluster size less the
// GPC packing loss (residentClusters). H100, softmax bench, every strategy
// forced, 20 reps, two rounds, median µs, the pick against the leader
// (nvidia-h100-2026-11-25-ab-s54.txt §2): in one wave (8-block clusters of
// 160 threads, 6 blocks an SM, 92 clusters resident) 72×81920 bf16 19.1 vs
// split_cluster 15.4, 80× 19.5 vs 16.5, 90× 20.2 vs 17.3, 80×81920 f16
// 18.2 vs 16.2, 80×73728 bf16 18.5 vs 16.0, 80×40960 f32 18.0 vs 16.4;
// past it the cluster falls to last or next to last (94×81920 bf16 20.9,
// 100× 21.4) and split_grid leads or is within 3% of the leader:
// 100×81920 bf16 20.8 vs 19.5, 120× 22.1 vs 20.7, 130× 23.0 vs 21.6,
// 100×90000 bf16 23.3 vs 21.6, 100×73728 bf16 19.6 vs 18.7, 120×40960 f32
// 21.6 vs 20.5, 130× 22.4 vs 21.1; f16 goes either way (120×81920:
// block_smem 20.7, split_grid 20.8, online_2pass 21.2; 96×81920
// online_2pass 19.1, split_grid 19.6). Rows of exactly 192 KB (49152 f32)
// follow them (session 55, nvidia-h100-2026-11-25-ab-s55.txt §1):
// block_hybrid 23.0 vs split_grid 21.6 at 100 rows, 25.5 vs 23.7 at 124;
// the A/B (§2): 92×49152 f32 22.50 → 21.46, 124× 25.55 → 24.06.
//
// Up to fewMidGridRowBytes the cluster's small blocks (many an SM, eight
// a row) lead a block per row up to fewer rows the shorter the row: rows ×
// fewMidEdgeSpanBytes ≤ SMs × (row bytes − fewMidEdgeBaseBytes), about 50
// rows of 96 KB, 82 of 104 KB, 115 of 112 KB and every row count from 116
// KB, and never past the clusters resident at once (124 of 8-block
// clusters of 128 threads on the H100). Past that edge a block per row
// stays below fewMidGridRowsPct of the SMs and split_grid's one-block rows
// lead from there. H100, softmax bench, every strategy forced, 20 reps,
// two rounds, median µs, the pick against split_cluster
// (nvidia-h100-2026-11-25-ab-s55.txt §1): 16-bit 57344 columns (112 KB)
// block_hybrid 12.3 vs 11.2 at 40 rows, 15.4 vs 14.6 at 92, 16.2 vs 15.8
// at 108, and at 116 rows the cluster trails (16.9 vs 16.8, split_grid
// 16.4); 53248 columns (104 KB) 11.8 vs 11.1 at 40 rows, 14.7 vs 14.4 at
// 92, 15.2 vs 15.4 at 100; 49152 (96 KB) 11.3 vs 11.1 at 40 rows, 12.4 vs
// 12.7 at 66; f32 32768 columns (128 KB, block_reg) 15.5 vs 14.0 at 84
// rows, 18.5 vs 17.8 at 124, and at 125 rows (one cluster past the 124
// resident) the cluster falls to 19.4 (split_grid 17.8); 26624 (104 KB)
// 11.1 vs 10.4 at 40 rows, 15.0 vs 14.8 at 108, 15.5 vs 15.7 at 116. The
// A/B of the rule (§2-3, --algo auto, three or four alternated rounds of
// 30 reps), old pick → new: 40×57344 bf16 12.46 → 11.16, 100×32768 f32
// 16.70 → 15.40, 64×32000 f32 13.71 → 12.55, 92×57344 bf16 15.58 →
// 14.69, 124×32768 f32 18.74 → 17.87; split_grid past the edge from 90%
// of the SMs: 128×32768 f32 18.94 → 18.19, 124×57344 bf16 17.52 → 17.10,
// 128×61440 bf16 (clusterUnevenRows' clusters, past the resident ones)
// 20.50 → 18.09, 131×65536 f16 21.03 → 18.43; from 70% it lost below 120
// rows (100×26624 f32 14.86 → 15.38, 116×28672 f32 16.46 → 16.85).
// f32 rows under fewMidGridRowBytes keep block_reg past the edge at any
// row count since its threads take their exps against their own max
// (Fwd::reduce_cached, session 56): one-wave block_reg gained 2-5%, and at
// 120-128 rows it leads split_grid (H100, every strategy forced, two
// rounds of 30 reps, median µs, nvidia-h100-2026-11-25-ab-s56.txt §2):
// 120×24576 14.6 vs 15.0, 128× 15.0 vs 15.2, 120×28672 15.9 vs 17.0,
// 128× 16.4 vs 17.2, 128×32000 18.1 vs 18.4 (log_softmax 18.0 vs 18.2);
// at 128 KB (32768 columns) split_grid still leads, 18.0 vs 18.4.
func (c *ctx) fewMidRows() (kernels.Strategy, string) {
	rowBytes := c.p.Axis * c.es
	if !c.forwardWholeRows() || rowBytes < fewMidMinRowBytes || rowBytes > gridTwoReadRowBytes {
		return "", ""
	}
	if c.check(kernels.SplitCluster) != nil {
		return "", "" // not measured without clusters (the A100 keeps a block per row)
	}
	cs, _, nt, sym, smem, ok := c.clusterShape()
	if !ok {
		return "", ""
	}
	file := kernels.SplitCluster.Info().File
	resident := int64(0) // the cluster does not fit: split_grid past fewMidGridRowBytes
	if perSM, err := c.fits(file, sym, int(nt), smem); err == nil {
		resident = c.residentClusters(file, sym, int(nt), int(smem), cs, perSM)
	}
	limit, what := resident, fmt.Sprintf("%d-block clusters while resident at once (about %d)", cs, resident)
	short := rowBytes <= fewMidGridRowBytes
	if short {
		edge := int64(c.d.SMs) * (rowBytes - fewMidEdgeBaseBytes) / fewMidEdgeSpanBytes
		limit = min(edge, resident)
		what = fmt.Sprintf("%d-block clusters up to %d rows of this size and while resident at once (about %d)", cs, edge, resident)
	}
	if c.p.Outer <= limit {
		return kernels.SplitCluster, c.fewRowsWhy(fmt.Sprintf("rows of %d KB: %s", rowBytes>>10, what))
	}
	if short && (100*c.p.Outer < fewMidGridRowsPct*int64(c.d.SMs) || c.es == 4 && rowBytes < fewMidGridRowBytes) {
		return "", "" // a block per row stays below fewMidGridRowsPct of the SMs, and for f32 rows under 128 KB
	}
	if ok, why := c.gridCaches(0); ok {
		return kernels.SplitGrid, c.fewRowsWhy(fmt.Sprintf("rows of %d KB past %s: %s", rowBytes>>10, what, why))
	}
	return "", ""
}

const (
	// fewMidMinRowBytes is fewMidRows' shortest row (shorter ones the
	// model places; 16-bit rows from 120 KB are clusterUnevenRows' too).
	fewMidMinRowBytes = 96 << 10
	// fewMidGridRowBytes: up to it fewMidRows sends rows to split_cluster
	// below the row count edge; past it, by resident clusters, to
	// split_cluster or split_grid.
	fewMidGridRowBytes = 128 << 10
	// fewMidEdgeBaseBytes and fewMidEdgeSpanBytes fit fewMidRows' row count
	// edge up to fewMidGridRowBytes: rows × span ≤ SMs × (row bytes − base).
	fewMidEdgeBaseBytes = 84 << 10
	fewMidEdgeSpanBytes = 32 << 10
	// fewMidGridRowsPct: 16-bit rows (and f32 rows of exactly
	// fewMidGridRowBytes) up to fewMidGridRowBytes past the clusters' edge
	// go to split_grid from this share of the SMs (percent), and keep a
	// block per row below it; shorter f32 rows keep block_reg at any count.
	fewMidGridRowsPct = 90
)

// clusterPackNum/clusterPackDen: the share of blocks an SM × SMs / cluster
// size that residentClusters counts as clusters resident at once when the
// driver's cluster query does not answer (no query given, cluster sizes
// past 8). A cluster's blocks must share one GPC, and GPCs of uneven SM
// counts strand some blocks. H100 (132 SMs), cuOccupancyMaxActiveClusters
// of split_cluster's 8-block clusters against blocks an SM × 132 / 8
// (nvidia-h100-2026-11-25-ab-s54.txt §3): 92 of 99 (160 threads, 6 blocks
// an SM), 124 of 132, 77 of 82, 45 of 49, 30 of 33, each at or just above
// 15/16 of the count. At 92 rows of 81920 bf16 the cluster ran 18.1 µs, at
// 94 20.9 (split_grid 19.5).
const (
	clusterPackNum = 15
	clusterPackDen = 16
)

// fewRaggedBlockRows reports ragged or skewed rows (read by the twins, not
// the vector path) that fewRows leaves to a block per row, online_2pass's
// twins, rather than to split_grid's element-wise path (gridCaches): at
// least half as many rows as SMs, of up to fewRaggedBlockRowBytes an
// input. H200, softmax bench, 20 reps, every strategy in one run, µs,
// online_2pass vs split_grid (-ab-s45.txt §5): skewed (--offset 1)
// 100×100000 f32 44.6 vs 55.2 (softmax_backward 61.2 vs 66.8), f16 23.0 vs
// 39.0 (31.8 vs 47.4), bf16 23.6 vs 41.3, 120×65536 f32 31.0 vs 38.0;
// ragged 100×100003 f16 22.8 vs 38.9, 120×65537 f32 30.5 vs 37.3 (43.9 vs
// 48.5). At 64 rows it goes either way (64×200000 bf16 39.6 vs 46.7, f32
// 74.4 vs 66.9, backward 92.1 vs 77.5) and split_grid leads on fewer
// (32×500000 f16 81.5 vs 56.0, 16×1000000 f32 290.6 vs 81.5).
func (c *ctx) fewRaggedBlockRows() bool {
	return c.ragged() && !c.vec() && 2*c.p.Outer >= int64(c.d.SMs) && c.p.Axis*c.es <= fewRaggedBlockRowBytes
}

// fewRaggedBlockRowBytes is fewRaggedBlockRows' longest row, bytes an input.
const fewRaggedBlockRowBytes = 400 << 10

// fewRowsWhy prefixes a reason of fewRows with the row count.
func (c *ctx) fewRowsWhy(why string) string {
	return fmt.Sprintf("few long rows (%d < %d SMs): %s", c.p.Outer, c.d.SMs, why)
}

// gridOverCluster reports whether split_grid should take few rows of
// rowBytes from split_cluster (gridClusterFewRows, gridClusterFewRowsBwd).
func (c *ctx) gridOverCluster(rowBytes float64) bool {
	if c.bwd {
		return c.p.Outer <= gridClusterFewRowsBwd && rowBytes >= gridClusterRowBytesBwd
	}
	return c.p.Outer <= gridClusterFewRows && c.p.Axis >= gridClusterMinCols
}

// gridFillsWithFewBlocks reports whether split_grid would give each row at
// most two blocks and still keep 7/8 of its grid busy (see gridClusterSplit).
func (c *ctx) gridFillsWithFewBlocks() bool {
	g, _, err := c.splitGridGrid()
	if err != nil || c.p.Outer > g {
		return false
	}
	split := g / c.p.Outer
	return split <= gridClusterSplit && 8*split*c.p.Outer >= 7*g
}

// gridCaches reports whether split_grid should replace split_row (or a
// block per row that reads long rows twice): an op on 16-byte rows
// whose inputs are at least minBytes and either at most
// gridCacheHalves/2 times the shared memory of the whole grid or in rows
// that fit a wave (splitGridWaveBytes).
//
// Ragged rows (no twins: split_grid caches nothing off the vector path)
// take it as well, where split_row would have them: H200, softmax bench,
// µs (-ab-s31.txt §4), split_grid vs split_row: 26×631146 f32 78.7 vs
// 108.2, 30×554638 f32 85.2 vs 114.7, 11×2989564 bf16 109.7 vs 134.6,
// 38×860847 bf16 softmax_backward 134.9 vs 159.5. From half as many rows
// as SMs, rows up to 400 KB go to a block per row first
// (fewRaggedBlockRows).
func (c *ctx) gridCaches(minBytes int64) (bool, string) {
	if !c.vec() && !c.ragged() {
		return false, ""
	}
	g, smemMax, err := c.splitGridGrid()
	if err != nil {
		return false, ""
	}
	in := c.p.Outer * c.p.Axis * c.es * c.nin
	capacity, waveBytes := g*smemMax, c.splitGridWaveBytes(g, smemMax)
	if in < minBytes || 2*in > gridCacheHalves*capacity && in/c.p.Outer > waveBytes {
		return false, ""
	}
	if !c.vec() {
		return true, "split_grid spreads each ragged row over the SMs in one launch (element by element, nothing cached)"
	}
	waves := ceilDiv(c.p.Outer, c.splitGridWaveRows(g, smemMax))
	return true, fmt.Sprintf("split_grid caches %d of %d input bytes in the grid's shared memory (%d at a time), one launch",
		min(in, capacity*waves), in, min(in, capacity))
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
		return !c.blockRegFirst()
	}
	if c.blockRegFirst() || c.blockHybridFirst() {
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
