package oracle

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// blockRegFirst reports whether block_reg is the measured winner (see the
// table above): forward rows of more than blockRegMinRowBytes, f32 up to
// 32768 columns (all it can hold; block_hybrid, listed ahead, takes those
// beyond 16384 with as many rows as SMs) and f16/bf16 up to 8192 (..32768 when rows < SMs:
// 1024 threads × 4 packs without spills; 64×32768 f16 13.4 µs vs
// block_smem 16.4 and block_hybrid 15.1, hybrid-ab2.txt), when the rows are
// whole 16-byte packs or ragged rows that its twins read from their pack
// boundary (ragged; the limits then apply to the span, or to the row
// rounded up to whole packs for the 16-bit twins that hold the span's
// overhang; 16-bit ones past 8192 columns: raggedBlockRegFwd16), not rows
// that take its element-wise path (unaligned pointers), which was not
// measured to win.
func (c *ctx) blockRegFirst() bool {
	if !(c.vec() && c.p.Axis%c.P == 0) && !c.ragged() {
		return false
	}
	if c.p.Op.Backward() {
		return c.vec() && c.blockRegBackward() || c.raggedBlockRegBackward()
	}
	cols := c.span()
	if c.es == 2 && c.ragged() {
		// the 16-bit twins that hold a span's overhang are sized by the
		// row (blockRegOverhang)
		cols = min(cols, roundUp(c.p.Axis, c.P))
	}
	if cols*c.es <= blockRegMinRowBytes {
		return false
	}
	if c.es == 4 {
		return cols <= kernels.BlockReg.Info().MaxCols(c.p.Op, c.dt)
	}
	if c.ragged() {
		return c.raggedBlockRegFwd16(cols)
	}
	return cols <= 8192 || cols <= blockRegFewRows16Cols && c.p.Outer < int64(c.d.SMs)
}

// raggedBlockRegFwd16 reports 16-bit forward rows read by block_reg's
// twins (ragged rows of aligned tensors, or rows of skewed ones, cols
// their length in whole packs) that it takes: up to
// raggedBlockRegFwdCols16, its 512-thread blocks; with no more rows than
// SMs (one wave of blocks) up to blockRegFewRows16Cols, and with more past
// raggedBlockRegT1024MinCols, its 1024-thread blocks of 3..4 packs, one
// an SM. The rest go to online_2pass's twins (forwardRows), which read
// each row twice. Since session 50, block_hybrid's twins come before
// block_reg for rows past 16384 columns but at one row an SM
// (blockHybridFirst), so the 1024-thread range with more rows than SMs
// serves devices where block_hybrid does not launch.
//
// Skewed rows (skewedRows: tensors all one distance past a 16-byte
// boundary) take the twins as ragged ones do. Since the twins load whole
// packs and mask only a row's first and last (cached_row_full's SHIFT,
// session 46), f32 rows run there up to the longest: H200, softmax bench
// --offset 1, 30 reps, two rounds, median µs, block_reg's twins vs
// online_2pass's (-ab-s46.txt §1): 2048×8192 f32 44.5 vs 56.1, 4096×16384
// 175.2 vs 174.3, 4096×32000 315.8 vs 345.3, 1000×30000 89.2 vs 87.1. The
// 16-bit twins of 2..5 packs a thread hold the span's overhang past their
// block (blockRegOverhang, session 47), so a skewed row of 8192 columns
// fits the aligned row's 256 × 4 packs instead of 512 × 3 (-ab-s47.txt §1,
// two rounds): 2048×8192 f16 22.8 vs 31.5, bf16 26.3 vs 32.8, 4096×4096
// f16 22.4 vs 30.5, 1024×8192 f16 14.6 vs 20.2. Without it they trailed
// past 4096 columns (-ab-s46.txt §1: 2048×8192 f16 32.9 vs 31.5, bf16 33.7
// vs 32.7).
//
// Past 8192 columns (session 49; H100, softmax bench, L2 flushed, two
// alternated rounds, median µs, the rule against online_2pass's twins,
// the pick before; -ab-s49.txt §1b): ragged 2048×12001 f16 40.9 vs 49.3,
// 4096×12001 bf16 75.9 vs 87.7, 2207×14634 bf16 50.5 vs 64.4 (log_softmax
// 54.0 vs 62.3), 4096×16383 f16 95.5 vs 118.0, 256×16383 f16 11.3 vs 13.0,
// 200×12001 bf16 9.7 vs 12.5, 1024×10001 f16 22.5 vs 25.6; skewed
// (--offset 1) 2048×12000 f16 40.9 vs 51.6, 4096×16384 f16 95.7 vs 118.5,
// 1024×9000 bf16 22.5 vs 26.0. Forced, one run (§3b): with 1024 threads,
// 4096 rows of f16, block_reg vs online_2pass (and block_smem's twins) 17001
// 142.3 vs 129.0 (129.6), 20001 153.6 vs 143.4 (137.4), 22001 158.4 vs
// 162.4, 24575 167.6 vs 172.7, 26001 178.1 vs 191.3, 28001 186.2 vs 199.6,
// 30522 194.5 vs 214.2, 32767 202.8 vs 209.2; 2048 rows of bf16 20001 84.2
// vs 79.5, 28001 101.1 vs 106.9; skewed 4096×32000 f16 200.0 vs 208.2,
// bf16 204.6 vs 213.8 (§3a, another call). The final A/B (§2) has the
// 1024-thread range too: 4096×30522 f16 195.0 vs 213.1, skewed
// 4096×32000 bf16 200.5 vs 213.2, 2048×28001 bf16 100.5 vs 106.4.
func (c *ctx) raggedBlockRegFwd16(cols int64) bool {
	if cols <= raggedBlockRegFwdCols16 {
		return true
	}
	return cols <= blockRegFewRows16Cols && (c.p.Outer <= int64(c.d.SMs) || cols > raggedBlockRegT1024MinCols)
}

const (
	// raggedBlockRegFwdCols16: the longest 16-bit twin rows block_reg takes
	// whatever the row count (512 threads × 4 packs).
	raggedBlockRegFwdCols16 = 16384
	// raggedBlockRegT1024MinCols: with more rows than SMs, the 16-bit twin
	// rows block_reg's 1024-thread blocks take are longer than this: they
	// trailed at 20001 columns and led from 22001 (raggedBlockRegFwd16), so
	// 21000 is a choice inside that gap, not a measured edge.
	raggedBlockRegT1024MinCols = 21000
)

// raggedBlockRegBackward reports backward rows that start inside a pack
// (aligned ragged rows or skewed ones) past 512 columns whose span is at
// most raggedBlockRegBwdPacks packs (f32: raggedBlockRegBwdPacksF32):
// block_reg's twins read them once. Same run, block_reg vs online_2pass
// (warp_row where it was the pick), µs:
// 8192×1001 f16 20.3 vs warp_row 30.1, 4096×1001 f32 19.8 vs 21.3,
// 4096×2001 f16 21.9 vs 22.8, 4096×4001 f32 56.5 vs 65.8, skewed 4096×2000
// f32 31.1 vs 34.5, 4096×4096 f16 34.4 vs 35.0, 65536×1024 f16 133.8 vs
// 172.5. From 1025 packs (a span just past 8192 16-bit columns) the 16-bit
// block of 288 threads × 4 packs (128 registers, one block an SM) trails:
// 2048×8192 f16 47.0 vs 37.5, 2048×8191 bf16 47.9 vs 39.1 (H100,
// -ab-s47.txt §5: 51.6 vs 48.2); 2207×14634 bf16 (1830 packs) 64.4 vs
// 65.9 was left with online_2pass. f32 spans past 1024 packs trailed too
// (4096×4095 78.5 vs 63.4) until the four-pack twin's bound.
func (c *ctx) raggedBlockRegBackward() bool {
	limit := int64(raggedBlockRegBwdPacks)
	if c.es == 4 {
		limit = raggedBlockRegBwdPacksF32
	}
	return c.ragged() && c.p.Axis > flatRowsMaxCols && ceilDiv(c.shiftedSpan(), c.P) <= limit
}

// raggedBlockRegBwdPacks: the longest span raggedBlockRegBackward takes.
const raggedBlockRegBwdPacks = 1024

// raggedBlockRegBwdPacksF32: f32's, all its twins hold (1024 threads × 2
// packs). Spans to 1536 packs run the four-pack twin at up to 384 threads,
// two blocks an SM (block_reg.cu's BR_BWD_F32_P4_SHIFT_BOUNDS); before, at
// 100 registers and one block an SM past 327 threads, they trailed
// online_2pass from 1025 packs (H100, softmax bench, 30 reps, block_reg
// vs online_2pass, µs, -ab-s47.txt §5): skewed 4096×4096 75.6 vs 90.5,
// 4096×5000 89.6 vs 111.9, 4096×6000 106.1 vs 135.3, aligned ragged
// 4096×4095 76.0 vs 89.5, 4096×5001 90.1 vs 112.9; past 1536 packs the
// two-pack twin at up to 1024 threads: 4096×6143 111.3 vs 133.9.
const raggedBlockRegBwdPacksF32 = 2048

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
// Ragged backward rows: raggedBlockRegBackward (before session 46's
// masked twins, block_reg's fell behind from 2001 f16 / 4001 f32 columns,
// -ab-s31.txt §3).
func (c *ctx) blockRegBackward() bool {
	return c.span() > kernels.WarpRow.Info().MaxCols(c.p.Op, c.dt) && c.span() <= kernels.BlockReg.Info().MaxCols(c.p.Op, c.dt)
}

// backwardRows returns the choice for backward rows of whole packs past
// block_reg's, with as many rows as SMs or more (fewer go through fewRows):
// rows of gridBackwardRowBytes to clusterBackwardRowBytes of inputs go to
// split_grid, whose waves cache each row's y and dy in the grid's shared
// memory and read them once where online_2pass reads them twice; longer
// rows that a cluster holds go to split_cluster; shorter ones stay with
// online_2pass. H200, softmax bench, two rounds of 20 reps, µs
// (-ab-s30.txt sections 6-7):
//
//	                         online_2pass  split_grid  split_cluster
//	4096×10240 f32 (80 KB)       151.1        153.6       176.5   (block_smem 147.8)
//	2048×20480 f16 (80 KB)        79.4         87.1       100.6
//	4096×12288 f32 (96 KB)       173.7        162.3       191.5   (block_smem 160.9)
//	4096×16384 f32 (128 KB)      248.6        201.0       202.0
//	2048×32768 f16 (128 KB)      125.7        107.8       110.0
//	4096×32000 f32 (250 KB)      556.7        432.4       453.4
//	2048×65536 f16 (256 KB)      287.8        228.3       233.6
//	4096×65536 f32 (512 KB)     1218.9       1110.6       892.3
//	1024×131072 f32 (1 MB)       625.0        582.3       579.7
func (c *ctx) backwardRows() []choice {
	if !c.vec() || c.p.Axis%c.P != 0 || c.p.Outer < int64(c.d.SMs) || c.blockRegBackward() {
		return nil
	}
	rowBytes := c.p.Axis * c.es * c.nin
	if rowBytes > clusterBackwardRowBytes {
		if cs, ok := c.clusterSize(); ok {
			return []choice{{kernels.SplitCluster, fmt.Sprintf("backward rows of %d KB: a %d-block cluster holds each row's y and dy (one read)", rowBytes>>10, cs)}}
		}
	}
	if rowBytes >= gridBackwardRowBytes {
		if ok, why := c.gridCaches(gridMinBytes); ok {
			return []choice{{kernels.SplitGrid, "backward rows past block_reg's registers: " + why}}
		}
	}
	return nil
}

// gridBackwardRowBytes, clusterBackwardRowBytes: backwardRows' edges, in
// bytes of a row's inputs (y and dy).
const (
	gridBackwardRowBytes    = 96 << 10
	clusterBackwardRowBytes = 256 << 10
)

// blockRegMinRowBytes: forward rows longer than this go to block_reg, whose
// one-warp blocks (32 values a thread, 32 blocks an SM) hold rows up to
// 1024 columns; shorter rows keep warp_row, which is ahead on the rows that
// fill its packs exactly and puts several rows in a block. H200, softmax
// bench, L2 flushed, 40 reps, µs, block_reg vs warp_row
// (bench/results/nvidia-h200-2026-11-22-ab-s15.txt): f16 4096×520 9.1 vs
// 10.4, 4096×768 8.1 vs 11.2, 4096×1000 9.9 vs 13.3, 16384×768 18.0 vs
// 29.1, 65536×768 53.7 vs 88.8, bf16 2048×640 7.7 vs 7.8, f32 4096×288 7.9
// vs 10.4; at 1 KB warp_row stays ahead (16384×512 f16 14.2 vs 14.9,
// 4096×256 f32 7.1 vs 7.3, 16384×256 f32 13.9 vs 15.2). Before the
// one-warp blocks the edge was 1.25 KB for f32 and 2 KB for 16-bit rows.
const blockRegMinRowBytes = 1 << 10

// blockHybridFirst reports whether block_hybrid is the measured winner, for
// forward rows of whole packs beyond a 512-thread block's registers (16384
// columns): with at least as many rows as SMs, 512-thread blocks for any
// dtype (up to 40960 f32, 65536 f16/bf16) and, from hybridManyRowsWaves
// rows an SM, 1024-thread blocks beyond (up to 81920 f32, 131072 f16/bf16;
// fewer rows go to split_grid, gridManyLongRows); with fewer rows than
// SMs, 1024-thread blocks for
// f32 rows beyond block_reg's 32768 and for 16-bit rows beyond its few-rows
// 32768 up to hybridFewRows16Bytes.
//
// block_reg serves f32 rows of 16385..32768 only with 1024-thread blocks,
// one per SM, whose SM reads nothing while the block reduces and writes;
// two 512-thread blocks share an SM. H200, softmax bench, same run, µs
// (bench/results/nvidia-h200-2026-11-22-hybrid-ab.txt), block_hybrid vs
// the previous pick: f32 4096×16896 152.1 vs block_reg 184.3; 4096×20480
// 178.2 vs 195.5; 4096×24576 210.2 vs 219.3; 4096×32000 270.7 vs 270.8;
// 4096×32768 277.0 vs 274.4 and (second run) 4096×28672 249.2 vs 245.9
// (ties, kept for one kernel across the range); 4096×36864 311.1 vs
// pipelined 410.2; 4096×40960 344.3 vs 426.4; 2048×20480 96.4 vs 103.5;
// 256×24576 21.1 vs 23.1. 16-bit: 4096×20480 f16 115.7 vs block_smem
// 130.2; 2048×32768 f16 88.9 vs 112.4; 4096×24576 bf16 136.5 vs 167.0;
// 1024×65536 bf16 93.1 vs online_2pass 107.2; 2048×40960 f16 101.1 vs
// block_reg 109.3.
//
// 1024 threads (second run, bench/results/nvidia-h200-2026-11-22-hybrid-
// ab2.txt): 4096×65536 f32 556.3 vs online_2pass 758.7; 1024×65536 f32
// 169.3 vs 204.3; fewer rows than SMs: 128×65536 f32 33.7 vs 36.4;
// 100×70000 f32 30.1 vs 33.2; but 128×128256 bf16 40.9 vs online_2pass
// 36.9 (three quarters of the row in shared memory, two exps each, one
// block per SM), so 16-bit rows keep the 512-thread range there; with
// many rows they take 1024 threads as well (hybridManyRowsWaves). 64×24576 f32
// (fewer rows than SMs) stays with block_reg: 14.9 vs 15.7.
//
// An f32 row that exactly fills block_reg's largest body (32768: 1024
// threads × 8 whole packs, no tail) goes to block_reg: five alternated
// runs of the same call, median µs (bench/results/nvidia-h200-2026-11-22-
// ab-s10.txt), 4096×32768 272.5 vs block_hybrid 276.6 (Triton 278.0), as
// in the final run of session 9 (276.4 vs 284.6) and the first A/B (274.4
// vs 277.0); one row shorter it ties (4096×28672 243.6 vs 242.1) and at
// 4096×24576 block_hybrid wins (209.4 vs 218.3). Since session 57 many f32
// rows past six packs at 1024 threads go to block_reg (blockRegDeepF32).
//
// Ragged and skewed forward rows (c.ragged()) take the "_shift" twins by
// the same rules, but for rows past the 512-thread blocks with at least as
// many rows as SMs, which split_grid (no twins) does not serve
// (hybridRagged16Waves), and rows of exactly one row an SM that block_reg
// holds (hybridOneWave). H100, softmax bench, 20 reps, two alternated
// rounds, median µs (bench/results/nvidia-h100-2026-11-24-ab-s50.txt §2),
// twin vs the previous pick: f16 4096×20001 116.7 vs online_2pass 143.3;
// 4096×22001 128.5 vs block_reg 157.9; 4096×30522 177.0 vs 194.7;
// 1024×100003 161.8 vs online_2pass 200.5; bf16 4096×28671 167.0 vs
// block_reg 193.6; 4096×50257 291.5 vs online_2pass 351.9; f32 4096×32767
// 376.3 vs online_2pass 475.0; 4096×50257 574.1 vs 784.6; 1024×24575 76.9
// vs block_reg 80.5; 4096×16391 187.2 vs 196.6; skewed 4096×16392 f16 97.7
// vs online_2pass 117.6, 1024×32000 f32 99.0 vs block_reg 101.4; ties
// (within 1%) on f32 4096×20001 and 4096×28671.
//
// hybridOneWave: same run for 132 rows, and forced, one run (§4),
// block_reg vs block_hybrid, µs: f16 24575 11.2 vs 11.4, 28671 12.4 vs
// 12.6, 32767 13.2 vs 13.8; bf16 28671 12.5 vs 13.3, 32767 13.4 vs 14.4;
// f32 20001 14.1 vs 14.4, 28671 18.7 vs 19.5, but 22001 15.3 vs 15.0
// (§2); from 200 rows block_hybrid leads (200×32767 bf16 20.4 vs 19.4,
// 264×32767 bf16 22.5 vs 21.3, 200×28671 f32 29.6 vs 25.9). Aligned rows
// of 96 KB or more at one row an SM go to split_grid first (gridOneWave).
func (c *ctx) blockHybridFirst() bool {
	p := c.p
	if p.Op.Backward() || !c.forwardWholeRows() && !c.ragged() {
		return false
	}
	many := p.Outer >= int64(c.d.SMs)
	if c.ragged() && p.Outer == int64(c.d.SMs) && c.blockRegFirst() {
		// one row an SM that block_reg's 1024-thread twins hold in
		// registers (hybridOneWave)
		many = false
	}
	if c.es == 4 && p.Axis == kernels.BlockReg.Info().MaxCols(p.Op, c.dt) || c.blockRegDeepF32() {
		return false
	}
	if _, ok := c.hybridVariant(512); ok && many {
		return true
	}
	_, ok := c.hybridVariant(1024)
	if many {
		if c.ragged() {
			return ok && (c.es == 4 || p.Outer > hybridRagged16Waves*int64(c.d.SMs))
		}
		return ok && p.Outer >= hybridManyRowsWaves*int64(c.d.SMs)
	}
	if c.es == 4 {
		return ok
	}
	return ok && p.Axis > blockRegFewRows16Cols && p.Axis*c.es <= hybridFewRows16Bytes
}

// blockRegDeepF32 reports many forward f32 rows that block_reg's
// 1024-thread kernels hold in seven or eight packs a thread (rows of
// 24577..32768 columns whose span fits, blockRegFirst), which it takes
// ahead of block_hybrid from blockRegDeepWaves rows an SM. A ragged row
// is judged by its length: at 24575 columns the span may pass six packs,
// and block_hybrid's twin led. Since its block reductions take each
// thread's exps against the thread's own max (Red::LOCAL_FIRST, session
// 56), the block's last loads no longer hold every exp behind the barrier,
// and these rows went from a tie to a lead. H200, softmax bench, 30 reps,
// three rounds, median µs, block_reg vs block_hybrid
// (nvidia-h200-2026-11-25-ab-s57.txt §1): 4096×26624 214.8 vs 218.3,
// 4096×28672 231.3 vs 237.4 (log_softmax 231.1 vs 235.4), 4096×30720 249.2
// vs 254.3, 4096×32000 258.6 vs 262.1, 8192×28672 450.4 vs 464.8,
// 2048×28672 121.1 vs 122.6, ragged 4096×28671 239.7 vs 251.4. At six
// packs block_hybrid still leads (4096×24576 204.3 vs 202.5, ragged
// 4096×24575 217.4 vs 211.4, 2048×24576 108.2 vs 105.1), and so it does
// with fewer rows (1024×28672 65.4 vs 64.9, 512×28672 38.1 vs 35.9).
func (c *ctx) blockRegDeepF32() bool {
	return c.es == 4 && c.p.Axis > 6*1024*c.P && c.p.Outer >= blockRegDeepWaves*int64(c.d.SMs) && c.blockRegFirst()
}

// blockRegDeepWaves: the fewest rows an SM blockRegDeepF32 takes. On the
// H200, 1024 rows (7.8 an SM on 132 SMs) ran block_hybrid 0.8% ahead and
// 1600-2048 (12-15.5 an SM) block_reg 0.7-1.2% ahead; on an H100 (the
// same A/B, -ab-s57.txt §7) those rows went the other way, 2048×28672
// 162.7 → 164.2 µs and 1600×28672 128.8 → 130.2, while 4096 rows and more
// gained or stayed within 0.3% on both (H100: 4096×32000 361.5 → 357.0, ragged
// 4096×28671 328.3 → 326.1, 8192×28672 632.0 → 629.9, 4096×28672 319.1 →
// 319.3). Where the two devices disagree block_hybrid keeps the rows; 24
// is a choice between 15.5 and 31 rows an SM, not a measured edge.
const blockRegDeepWaves = 24

// gridOneWave reports whether split_grid takes forward rows of whole packs,
// exactly one an SM, of at least gridOneWaveRowBytes, that a block per row
// (block_hybrid's 512-thread blocks, block_reg's 1024-thread ones) would
// otherwise take: one such block an SM leaves half its threads idle (the
// 512-thread blocks) or reads nothing while it reduces and writes, where
// split_grid's one-block rows, each cached whole in shared memory, skip
// the barrier. hybrid is blockHybridFirst's answer, which choose() has.
// H100, softmax bench, 30 reps, three alternated rounds, median µs, the
// pick before → split_grid (nvidia-h100-2026-11-25-ab-s51.txt §3):
// 132×24576 f32 16.0 → 15.7 (block_hybrid), 132×28672 f32 18.1 → 17.7,
// 132×32768 f32 19.2 → 18.6 (block_reg), 132×40960 f32 24.2 → 22.2
// (log_softmax 24.2 → 21.8), 132×49152 f16 16.4 → 15.6, bf16 17.3 → 16.3,
// 132×65536 f16 20.9 → 18.6, bf16 22.1 → 19.5. Forced, two rounds (§1):
// 80 KB rows stay, within 2% either way (132×20480 f32 split_grid 14.1 vs
// block_hybrid 13.9, 132×40960 f16 14.2 vs 14.4), and so do fewer rows, where the block per
// row leads as often as not (100×28672 f32 15.8 vs block_reg 15.3,
// 100×65536 bf16 17.7 vs block_hybrid 17.5); from 166 rows two blocks
// share most SMs and block_hybrid leads the f32 rows (166×20480 16.4 vs
// split_grid 22.1).
func (c *ctx) gridOneWave(hybrid bool) (bool, string) {
	p := c.p
	if !c.forwardWholeRows() || p.Outer != int64(c.d.SMs) || p.Axis*c.es < gridOneWaveRowBytes {
		return false, ""
	}
	if !hybrid && !c.blockRegFirst() {
		return false, ""
	}
	ok, why := c.gridCaches(0)
	if !ok {
		return false, ""
	}
	return true, fmt.Sprintf("one row an SM (%d) of %d KB: %s", p.Outer, p.Axis*c.es>>10, why)
}

// gridOneWaveRowBytes is the shortest row (input bytes) gridOneWave takes.
const gridOneWaveRowBytes = 96 << 10

// clusterUnevenRows reports whether split_cluster takes forward rows of
// whole packs that a block per row (block_hybrid's 512-thread blocks,
// hybrid being blockHybridFirst's answer) or split_grid's one-block rows
// (many being gridManyLongRows' answer; choose() has both) would spread unevenly over the SMs: the rows fill at
// most clusterUnevenFillPct percent of the block slots of their waves
// (blocks resident at once × waves), so most SMs idle through a last,
// short wave, where a cluster's small blocks (eight a row, many resident
// an SM) share any row count out evenly. Taken for 16-bit rows from
// clusterUnevenHybridRowBytes up to block_hybrid's 512-thread limit (also
// with fewer rows than SMs, where block_hybrid's 1024-thread blocks are
// one an SM) and, from split_grid, for rows up to clusterRowBytes. H100, softmax bench, 20-30 reps, two or three rounds,
// median µs, the pick → split_cluster, forced
// (nvidia-h100-2026-11-25-ab-s53.txt §1, §5):
//   - block_hybrid, 16-bit: 66×65536 f16 14.7 → 13.5, 100× 17.4 → 15.9,
//     166× 26.6 → 24.4, 300× 39.8 → 37.2, 330× 42.2 → 39.2; bf16 14.7 →
//     13.7, 17.5 → 16.2, 26.7 → 24.6, 40.0 → 37.5, 42.1 → 39.6; 61440
//     columns f16 at 66/100/166/300/330 rows 13.6 → 12.8, 16.4 → 15.0,
//     24.3 → 23.4, 37.4 → 35.9, 39.3 → 38.0 (bf16 alike). Fuller last
//     waves keep the block: 200×65536 f16 28.5 vs 27.2, 264× 32.5 vs 33.8,
//     396×61440 43.0 vs 45.3, 1024×61440 95.0 vs 97.6; shorter rows too,
//     where the cluster's blocks have fewer packs a thread (396×57344 f16
//     41.7 vs 44.1, 232×49152 f16 23.2 vs 26.7).
//   - split_grid (one 1024-thread block an SM, so 166 rows take two
//     waves, the second of 34 rows): 166×81920 f16 32.6 → 28.4, bf16
//     33.2 → 28.7; 166×100000 f16 39.0 → 36.1; 166×128256 f16 46.8 →
//     41.2, bf16 47.5 → 42.2; 166×196608 f16 69.0 → 64.1; f32 166×49152
//     37.2 → 33.9, 166×65536 47.7 → 40.6, 166×98304 69.7 → 63.3. Full
//     waves keep it (264×128256 f16 55.6 vs 61.1, 264×98304 f32 86.9 vs
//     93.2); at 330 rows (five sixths full) they are within 6% either way.
//
// The A/B of the rule (§3, --algo auto, three alternated rounds of 30
// reps) gains on all 33 changed picks, 1.02-1.23× (140×128256 bf16 45.5 →
// 37.8, 150×81920 f32 59.0 → 47.9, 133×65536 f16 24.5 → 21.4, 310×61440
// f16 38.2 → 37.5), log_softmax alike; the 8 unchanged controls move
// within 1%. f32 rows of block_hybrid's 512-thread blocks are not taken:
// at 300×40960 the block leads, 41.8 vs 46.8 (166× trails 29.7 vs 28.3).
func (c *ctx) clusterUnevenRows(hybrid, many bool) (bool, string) {
	p := c.p
	if !c.forwardWholeRows() || c.check(kernels.SplitCluster) != nil {
		return false, ""
	}
	cs, ok := c.clusterSize()
	if !ok || p.Axis*c.es > clusterRowBytes {
		return false, ""
	}
	var slots int64
	what := ""
	switch {
	case hybrid && c.es == 2 && p.Axis*c.es >= clusterUnevenHybridRowBytes:
		v, ok := c.hybridVariant(512)
		if !ok {
			return false, ""
		}
		if p.Outer < int64(c.d.SMs) {
			// fewMidRows places these first (clusters while resident,
			// split_grid past them); this backs it up
			return true, fmt.Sprintf("%d rows of %d KB (fewer than %d SMs): %d-block clusters keep every SM streaming, a block per row does not", p.Outer, p.Axis*c.es>>10, c.d.SMs, cs)
		}
		_, _, _, perSM, err := c.hybridFits(v)
		if err != nil {
			return false, ""
		}
		slots, what = int64(perSM)*int64(c.d.SMs), "block_hybrid's 512-thread blocks"
	case !hybrid && many:
		g, _, err := c.splitGridGrid()
		if err != nil {
			return false, ""
		}
		slots, what = g, "split_grid's one-block rows"
	default:
		return false, ""
	}
	waves := ceilDiv(p.Outer, slots)
	if 100*p.Outer > clusterUnevenFillPct*waves*slots {
		return false, ""
	}
	return true, fmt.Sprintf("%d rows of %d KB: %s (%d at once) would fill %d%% of %d wave(s), %d-block clusters share them evenly",
		p.Outer, p.Axis*c.es>>10, what, slots, 100*p.Outer/(waves*slots), waves, cs)
}

const (
	// clusterUnevenFillPct: the fullest use of block slots over the waves
	// clusterUnevenRows takes, in percent (166 rows on 132 SMs, one block
	// an SM: 63%; 200 rows, 76%, stay).
	clusterUnevenFillPct = 65
	// clusterUnevenHybridRowBytes: clusterUnevenRows' shortest 16-bit row
	// taken from block_hybrid (61440 columns).
	clusterUnevenHybridRowBytes = 120 << 10
)

// gridManyLongRows reports whether split_grid takes forward rows of whole
// packs, at least as many as SMs, that block_hybrid's 512-thread blocks do
// not hold (past 40960 f32 / 65536 f16/bf16 columns) and block_hybrid's
// 1024-thread blocks do not take (fewer than hybridManyRowsWaves rows an
// SM, or rows beyond them too); online_2pass, which reads each row twice,
// had them. Ragged rows
// are not taken (split_grid has no twins: 1024×100003 bf16 308.3 µs
// against online_2pass's 154.3); block_hybrid's twins or online_2pass's
// have them (blockHybridFirst, hybridRagged16Waves). H200, softmax bench, 20 reps, L2 flushed, µs,
// split_grid against online_2pass and the next best (-ab-s38.txt §2-3):
// 132×65536 f32 26.1 vs 31.8 (block_hybrid 28.0); 264×65536 f32 45.1 vs
// 57.5 (block_hybrid 50.2); 528×65536 f32 86.7 vs 107.2 (block_hybrid
// 87.9); 264×81920 f32 56.3 vs 71.3 (62.4); 132×128256 f32 48.2 vs 63.6;
// 264×128256 f32 94.6 vs 108.4; 512×128256 f32 179.3 vs 204.0;
// 1024×128256 f32 347.5 vs 393.7; 256×151936 f32 112.2 vs 123.9;
// 132×100000 f16 22.5 vs 24.6; 528×100000 f16 71.0 vs 82.9 (block_hybrid
// 75.0); 132×128256 bf16 26.6 vs 31.1; 528×128256 bf16 88.0 vs 106.2;
// 1024×151936 bf16 194.5 vs 232.8; 2048×151936 bf16 383.9 vs 448.4;
// 512×256000 bf16 180.8 vs 204.5; 132×524288 bf16 100.8 vs 119.6;
// 256×524288 bf16 191.2 vs 207.9. It trails split_cluster by up to 9% on
// a few (200×128256 bf16 44.5 vs 42.2, 400×128256 bf16 83.2 vs 76.3,
// 1024×262144 f16 352.3 vs 351.0), still ahead of online_2pass (45.2,
// 89.3, 393.0); rows that fill its one-block rows' waves poorly go to
// split_cluster first (clusterUnevenRows).
//
// With block_hybrid's 1024-thread blocks listed first (from
// hybridManyRowsWaves rows an SM), split_grid follows them for devices
// whose shared memory does not fit their kernel (the A100's 163 KB against
// t1024_s12's 192 KB); with split_grid first, block_hybrid follows it for
// devices without cooperative launch (hybridBehindGrid), both ahead of
// online_2pass: 264×65536 f32 50.2 vs 57.5, 528×100000 f16 75.0 vs 82.9,
// 132×128256 bf16 30.8 vs 31.1 (§3).
func (c *ctx) gridManyLongRows() (bool, string) {
	if !c.manyLongRows() || !c.pastHybrid512() || c.p.Axis*c.es > gridManyRowsMaxBytes {
		return false, ""
	}
	return c.gridCaches(0)
}

// pastHybrid512 reports rows longer than block_hybrid's 512-thread blocks
// hold (hybridVariant(512) also fails rows short enough for registers).
func (c *ctx) pastHybrid512() bool {
	_, ok := c.hybridVariant(512)
	return !ok && c.p.Axis > 512*kernels.BlockRegValues
}

// hybridBehindGrid reports whether block_hybrid's 1024-thread blocks hold
// a forward row of whole packs that gridManyLongRows's rows (as many as
// SMs or more, fewer than hybridManyRowsWaves an SM) would give
// split_grid, so that they back it up.
func (c *ctx) hybridBehindGrid() bool {
	_, ok := c.hybridVariant(1024)
	return ok && c.manyLongRows()
}

// forwardWholeRows reports forward rows of whole 16-byte packs from aligned
// pointers, the rows block_hybrid and split_grid's caching serve.
func (c *ctx) forwardWholeRows() bool {
	return !c.p.Op.Backward() && c.vec() && c.p.Axis%c.P == 0
}

// manyLongRows reports forward rows of whole packs, at least as many as
// SMs, that block_reg does not take: gridManyLongRows's and
// hybridBehindGrid's common ground.
func (c *ctx) manyLongRows() bool {
	return c.forwardWholeRows() && c.p.Outer >= int64(c.d.SMs) && !c.blockRegFirst()
}
