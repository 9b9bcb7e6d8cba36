package plan

import (
	"fmt"
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

	// clusterRowBytes is the longest row (bytes of its inputs) split_cluster
	// takes. H200, forward, 2..64 rows, µs split_cluster / split_row, same
	// run (bench/results/nvidia-h200-2026-11-22-sweep-fewrows.txt): 256 KB
	// rows 13.3..23.6 / 16.8..26.3 (f32) and 17.0..25.5 / 18.4..27.8 (f16);
	// 1 MB rows 20.4..79.8 / 15.5..71.2 (f32) and 24.3..83.4 / 15.7..72.0
	// (f16). 512 KB rows (4×262144 f16) tie over three runs: 17.2 / 17.0,
	// 20.3 / 20.5 and (the final run) 15.7 / 14.4, so clusters stop below.
	clusterRowBytes = 384 << 10

	// clusterOneWaveRowBytes: forward rows from this size go to split_cluster
	// rather than a block per row when every row's cluster is resident at
	// once (rows × cluster size <= SMs), where the model (blockGBs,
	// clusterMicros) keeps the block up to ~88 KB. Since a one-row cluster
	// pushes its partials (one mbarrier wait in place of two cluster
	// barriers), H200, softmax bench, four rounds of 40 reps, µs
	// split_cluster / block_reg (bench/results/nvidia-h200-2026-11-22-
	// ab-s29.txt section 4): 64 KB rows of 1..16 rows (8-block clusters)
	// 6.74..7.36 / 7.44..7.85 f32, 7.07..7.63 / 7.83..8.29 f16, 6.81..7.46 /
	// 7.72..8.16 bf16 (0.88..0.94); 32 rows (two waves) 0.96..0.97; 48 KB
	// rows tie (0.97..1.00) and 32 KB rows lose (1.05..1.13).
	clusterOneWaveRowBytes = 64 << 10

	// splitRowBlocksPerSM: split_row's grid, in 512-thread blocks per SM
	// over all rows (its phases' registers allow more). H200, a two-pass
	// harness with split_row's interleaved pattern (.devbin pat3.cu), µs
	// phase 1 + phase 2 by blocks per SM (phase 1 / phase 2):
	//   1×2^24 f32     2/2 56.0-56.1, 3/3 55.8-56.1, 4/2 57.3-57.6, 4/4 58.1-58.4
	//   1×4·10^7 f32   2/2 125.8-126.0, 3/3 126.0, 4/2 126.0-126.4, 4/4 127.6-127.9
	//   1×10^8 f32     2/2 299.4-299.6, 3/3 301.0-301.7, 4/2 299.2-299.5, 4/4 306.5-308.8
	// (bench/results/nvidia-h200-2026-11-22-ab-s17.txt). Chunked rows (each
	// block its own contiguous part, as before) ran 1×10^8 at 310.7.
	splitRowBlocksPerSM = 2

	// gridCacheHalves: split_grid's waves cache at most gridCacheHalves/2
	// times the grid's shared memory of a single row (122 MB on H200); past
	// it split_row reads the row twice for less (nvidia-h200-2026-11-22-
	// ab-s30.txt §3: 1×2^25 f32 110.9 vs 113.7 µs; 96 MB still split_grid).
	// Where split_grid replaces split_row and a block per row: the table's
	// few.grid.* and bwd.split_grid rows (grid_caches).
	gridCacheHalves = 8

	// gridWaveQuarters: split_grid takes the rows in waves of at most
	// gridWaveQuarters/4 times the grid's cache (67 MB on H200), the next
	// wave's reads overlapping the last one's writes. H200, cuda's
	// BenchmarkSplitGridWaves (L2 flushed, median of 20), µs by rows per
	// wave, one wave last:
	//   256 MB: 4×33554432 f16  1: 192.0, 2: 230.4, 4: 234.8 (split_row 222.5)
	//   128 MB: 4×16777216 f16  1: 104.3, 2: 99.7, 4: 117.2
	//           8×4194304 f32   2: 98.6, 4: 97.9, 8: 104.4
	//           32×2097152 f16  8: 104.1, 16: 100.6, 32: 107.0
	//   64 MB:  128×262144 bf16 64: 55.4, 128: 53.6; 2×8388608 f32 1: 52.1, 2: 52.0
	//   32 MB and less, one wave wins by far: 4×4194304 f16 2: 35.1, 4: 30.5;
	//           128×128256 bf16 64: 35.9, 128: 30.3; 64×262144 f16 32: 34.0, 64: 30.5
	// A wave costs ~5 µs past its bytes (64×262144 f16 at one row a wave:
	// 325.7), and a wave that leaves SMs idle (32 rows in waves of 17: 7
	// blocks a row, 119 of 132 SMs) or outgrows the L2 (4×16777216 f16 in
	// waves of 3 rows: 139.5) loses, so the rows are shared evenly.
	gridWaveQuarters = 9

	// twoReadSplitBytes: rows from this size (bytes of the inputs) that a
	// block would read twice are split whenever rows <= SMs/2 (fewModel).
	// Measured at 4 MB rows; shorter rows keep the model's choice.
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
// as SMs, rows up to 400 KB go to a block per row first (the table's
// few_ragged_block(409600)).
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

// blockRegFirst reports whether one of the table's block_reg rows matches:
// the other regimes ask whether block_reg holds the row.
func (c *ctx) blockRegFirst() bool { return c.regime("block_reg") }

// blockRegBackward reports whether block_reg takes a backward row of whole
// packs: past warp_row's rows, up to what its backward kernels hold (y and
// dy in registers: 8192 f32, 16384 f16/bf16 columns), at any row count.
// It reads each row once where online_2pass reads it twice. H200, softmax
// bench, three rounds of 20 reps, µs, block_reg vs online_2pass
// (-ab-s30.txt section 6): 4096×1024 f32 17.9 vs 19.6, 4096×4096 f32 53.6
// vs 65.4, 4096×8192 f32 103.9 vs 126.5, 2048×4096 f16 18.5 vs 20.0,
// 2048×8192 f16 31.4 vs 36.3, 128×8192 f32 8.9 vs 10.0, 16×8192 f32 5.9 vs
// 8.7 (split_cluster 6.0), 4×8192 f16 5.1 vs 7.9; at warp_row's edge they
// tie (65536×1024 f16 101.2 vs warp_row 101.6), so warp_row keeps its rows.
// Ragged backward rows: the table's block_reg.bwd.twin rows.
func (c *ctx) blockRegBackward() bool {
	return c.span() > kernels.WarpRow.Info().MaxCols(c.p.Op, c.dt) && c.span() <= kernels.BlockReg.Info().MaxCols(c.p.Op, c.dt)
}

// blockHybridFirst reports whether one of the table's block_hybrid rows
// matches (their evidence: the rows; the measurements: bench/results).
func (c *ctx) blockHybridFirst() bool { return c.regime("block_hybrid") }

// forwardWholeRows reports forward rows of whole 16-byte packs from aligned
// pointers, the rows block_hybrid and split_grid's caching serve.
func (c *ctx) forwardWholeRows() bool {
	return !c.p.Op.Backward() && c.vec() && c.p.Axis%c.P == 0
}

// stridedShortFirst reports whether strided_short is the measured winner:
// it has a kernel for the axis (2..48 rows forward, 2..32 backward, every
// dtype; lane pairs past 16 and 8 rows, four lanes past 32 and 16), with
// Inner of whole packs and aligned pointers or (its twins) any other Inner.
// Session 33
// (H200, softmax bench, L2 flushed, median µs, strided_short vs strided,
// the previous pick; -ab-s33.txt): it led on every case, at 0.47-1.16 of
// copy speed where strided ran 0.01-0.86. 16-byte kernels (§1):
// 131072×4×64 f16 38.6 vs 372.5, 16384×4×512 f16 38.2 vs 151.5,
// 5350×8×784 bf16 39.3 vs 157.8, 4096×16×512 f32 74.0 vs 121.2, 16×8×8192
// f16 (2 MB) 6.78 vs 11.1, 2089×8×1004 f32 log_softmax 40.1 vs 64.2,
// 32768×4×128 f32 softmax_backward 52.8 vs 60.6, 1024×8×4096 f32
// log_softmax_backward 101.0 vs 115.6. Twins (§2): 20000×16×101 f32 94.5
// vs 205.6, 16384×4×500 f16 57.5 vs 282.0, 100000×3×7 f32 13.1 vs 127.2,
// 1000000×2×2 bf16 14.1 vs 1077.8, 8192×4×37 bf16 log_softmax_backward
// 11.1 vs 19.6, 20000×8×101 f32 softmax_backward 63.8 vs 69.6 (the
// closest). Session 34 (-ab-s34.txt §1), the 16-bit tiles held packed
// (forward 9-16 rows, backward 5-8) against strided: 4096×9×1024 f16 43.6
// vs 134.9, 4096×16×1024 bf16 log_softmax 86.2 vs 194.7, 2048×16×512 f16
// 30.2 vs 55.8, 4096×8×1024 bf16 softmax_backward 59.3 vs 66.0 (the
// closest), 4096×5×1024 f16 log_softmax_backward 38.3 vs 60.8; their twins
// 65536×8×9 f16 softmax_backward 22.1 vs 209.0, 20000×16×101 bf16 63.2 vs
// 397.5. Lane pairs (-ab-s34.txt §2, 17-32 rows, backward 9-16), against
// strided: 1024×17×4096 f32 145.0 vs 278.2, 4096×32×512 f32 137.4 vs
// 287.2, 2048×20×1024 bf16 log_softmax 46.9 vs 125.1, 4096×16×1024 f32
// softmax_backward 196.4 vs 235.1, 4096×22×256 f16 31.2 vs 72.0; twins
// 8192×32×37 bf16 28.5 vs 159.2, 20000×24×101 f32 147.3 vs 296.0,
// 65536×9×9 f16 softmax_backward 21.1 vs 209.6, 3000×13×333 f32
// log_softmax_backward 61.9 vs 63.0 (the closest). Four lanes (§3, 33-48
// rows, backward 17-32), against strided and, where it serves, strided_reg:
// 1024×33×4096 f32 290.8 vs 668.0 / 578.9, 2048×36×1024 bf16 log_softmax
// 84.5 vs 234.5 / 276.7, 1024×48×2048 f32 211.0 vs 411.8 / 291.1,
// 2048×48×512 bf16 87.0 vs 160.3 / 144.8 (so 48 rows stay here, ahead of
// strided_reg's range), 8192×45×37 bf16 46.8 vs 194.0, 4096×24×1024 f32
// softmax_backward 295.0 vs 431.3, 4096×17×512 f16 log_softmax_backward
// 68.4 vs 83.1 (the closest).
func (c *ctx) stridedShortFirst() bool {
	_, _, ok := c.stridedShortVariant()
	return ok
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
