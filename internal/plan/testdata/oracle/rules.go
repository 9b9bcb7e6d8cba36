package oracle

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

	// split_grid replaces split_row for ops whose inputs are gridMinBytes to
	// gridCacheHalves/2 times the grid's shared memory (~30 MB on H200), or
	// more in rows that fit a wave (gridWaveQuarters). H200, softmax bench, µs split_grid / split_row, same
	// run (bench/results/nvidia-h200-2026-11-22-sweep-splitgrid.txt, reps
	// back to back without an L2 flush):
	//   8 MB and less, it lost: 2×1048576 f32 23.6 / 22.4; 4×262144 f16
	//   16.9 / 14.4; 8×262144 f32 20.3 / 19.6.
	// Timed as bench times now (L2 flushed before each rep, the host ahead
	// of the GPU; -ab-s12.txt, median of 3) it wins from 2 MB: 1×524288 f32
	// 10.6 / 11.3, 4×262144 f16 10.8 / 11.3, 2×1048576 f32 15.5 / 16.5,
	// 8×262144 f32 14.6 / 16.1, 4×1048576 f16 15.5 / 16.9, 16×262144 f32
	// 19.1 / 23.2, 1×4194304 f32 19.6 / 22.8. The earlier figures follow:
	//   32 MB: 2×4194304 f32 39.4 / 44.1; 4×4194304 f16 36.4 / 40.9;
	//   32×524288 f16 36.4 / 44.1; 8×1048576 f32 36.0 / 37.2.
	//   64 MB: 1×2^24 f32 57.8 / 67.7.
	//   128 MB: 8×4194304 f32 115.0 / 122.6; 32×2097152 f16 114.0 / 122.4;
	//   but 4×16777216 f16 124.2 / 120.0.
	//   256 MB and more: 4×33554432 f16 247.0 / 231.0; 1×10^8 f32 348.8 /
	//   334.4.
	// It also replaces a block per row that would read rows of
	// gridTwoReadRowBytes or more twice (rows > SMs/2, where the model keeps
	// the block): 128×262144 f32 112.7 vs online_2pass 121.8, 128×524288 f16
	// 117.0 vs 128.9. Timed with the L2 flushed before each rep (bench's
	// timing since 2026-11-22; -ab-s12.txt), rows of 250 KB-1 MB go the same way:
	// 64×262144 f16 30.2 vs 50.4, 128×262144 bf16 52.9 vs 64.4, 100×200000
	// bf16 40.6 vs 46.7, 120×100000 f32 41.2 vs 50.1, 128×128256 bf16 30.3
	// vs 32.0, 96×131072 f16 28.3 vs 29.0 (block_hybrid 27.7). Timed back to
	// back without the flush, the block had won at 256 KB (128×128256 bf16
	// 38.4 vs 38.5, 100×70000 f32 33.4 vs 36.0); 128 KB rows stay with the
	// block (128×32768 f32 block_reg 16.1, split_grid 19.0).
	//
	// With 512-thread blocks for chunks cached whole (splitGridCachedThreads)
	// it also wins at 1 MB (H200, same run, 40 reps, µs, split_grid /
	// split_row, bench/results/nvidia-h200-2026-11-22-sweep-tiny.txt):
	// 1×262144 f32 9.5 / 10.9, 2×131072 f32 9.8 / 10.6, 1×524288 f16 10.0 /
	// 10.9, 2×262144 f16 9.5 / 11.1; and on every single row from 256 KB
	// (-ab-s30.txt section 2, three rounds of 30 reps): 1×65536 f32 8.5 /
	// 9.8, 1×131072 f16 8.5 / 9.9, 1×131072 f32 8.6 / 10.0, 1×262144 f16
	// 8.6 / 10.1, 1×196608 f32 8.8 / 10.0. (With clusters, split_row is
	// only chosen for rows past clusterRowBytes.)
	//
	// Backward ops (y and dy cached; the range counts both) go the same way
	// since split_grid skips its barrier on one-block rows and fuses its
	// waves (-ab-s30.txt section 2, split_grid / split_row): 1×65536 f32
	// 8.4 / 8.8, 8×262144 f32 15.6 / 18.3, 16×262144 f32 23.0 / 30.1,
	// 4×4194304 f16 44.2 / 49.6, 8×4194304 f32 151.9 / 168.1, 4×16777216
	// f16 152.6 / 168.0; and for the rows a block would read twice
	// (online_2pass): 32×65536 f32 15.5 / 23.7, 64×131072 f16 23.8 / 32.1,
	// 128×65536 f16 21.6 / 23.0. (In 2026-11-22's first split_grid, 1×2^24
	// backward had lost, 98.5 / 95.2.)
	//
	// gridCacheHalves: one wave of a single row ends at 4 times the grid's
	// shared memory (122 MB on H200); past it split_row reads the row twice
	// for less (-ab-s30.txt section 3, split_row / split_grid): 1×2^25 f32
	// 110.9 / 113.7, 1×2^24 f32 backward (128 MB of inputs) 87.1 / 89.1,
	// where 96 MB still goes to split_grid (1×25165824 f32 86.8 / 85.7,
	// 1×12582912 f32 backward 67.4 / 66.8).
	gridMinBytes    = 256 << 10
	gridCacheHalves = 8

	// gridClusterFewRows, gridClusterMinCols: split_grid also replaces
	// split_cluster on at most gridClusterFewRows forward rows of at least
	// gridClusterMinCols elements (a cluster's eight blocks then each have
	// 8192 or more to exp, where split_grid spreads them over every SM).
	// H200, softmax bench, three rounds of 30 reps, µs split_grid /
	// split_cluster (-ab-s30.txt section 4): 1×98304 f32 8.6 / 9.1,
	// 1×196608 f16 8.7 / 9.6, 1×98304 f16 8.5 / 8.8, 2×98304 f16 8.5 / 9.0,
	// 2×98304 f32 8.8 / 9.2, 4×131072 f16 9.0 / 9.3 (4×98304 f32 9.6 /
	// 9.4); at 65536 columns they tie (1×65536 f32 8.5 / 8.4, 4×65536 f32
	// 8.9 / 8.7, 1×65536 f16 8.8 / 8.6, 4×65536 f16 9.0 / 9.0; 9.1 / 9.7 in
	// -sweep-tiny.txt); shorter rows keep the cluster, whatever their
	// bytes: 4×32768 f32 9.0 / 8.5, 4×49152 f32 8.8 / 8.6, 1×49152 f32 8.5 /
	// 8.3. (The first rule, 512 KB or more in all, sent 4×32768 f32 to
	// split_grid.)
	gridClusterFewRows = 4
	gridClusterMinCols = 65536

	// gridClusterFewRowsBwd, gridClusterRowBytesBwd: split_grid replaces
	// split_cluster on at most this many backward rows of at least this
	// many input bytes (y and dy). H200, same runs, split_grid /
	// split_cluster: 2..8×32768 f32 8.4..9.0 / 9.0..9.4, 2..8×65536 f16
	// 8.6..9.3 / 9.5..10.0; 16 rows tie (16×32768 f32 10.0 / 10.0, 16×65536
	// f16 10.1 / 10.5) and from 32 the cluster wins (32×32768 f32 11.8 /
	// 10.9, 64×65536 f16 15.5 / 14.1); 128 KB rows keep the cluster
	// (4×16384 f32 8.1 / 7.1, 1×16384 f32 7.6 / 6.8).
	gridClusterFewRowsBwd  = 8
	gridClusterRowBytesBwd = 256 << 10

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
	// block would read twice are split whenever rows <= SMs/2 (fewRows).
	// Measured at 4 MB rows; shorter rows keep the model's choice.
	twoReadSplitBytes = 1 << 20

	// gridTwoReadRowBytes: forward rows from this size (input bytes) that a
	// block would read twice go to split_grid when the inputs are in its
	// range (see gridMinBytes): between the 128 KB rows the block won and
	// the 250 KB rows (128256 bf16) split_grid won.
	gridTwoReadRowBytes = 192 << 10

	// gridClusterSplit: split_grid replaces split_cluster for rows of
	// gridTwoReadRowBytes or more that it splits over at most this many
	// blocks, 7/8 of its grid busy (one-block rows skip the barrier since
	// 64f58e7).
	// H200, softmax bench, µs, same run (bench/results/nvidia-h200-2026-11-
	// 22-sweep-midrows.txt), split_grid vs split_cluster: 64×131072 f16
	// 18.9 vs 21.2; 66×131072 bf16 19.8 vs 21.6; 64×65536 f32 19.1 vs 19.9;
	// with four blocks a row the cluster wins (32×131072 f16 14.6 vs 14.1),
	// and so it does on 128 KB rows (64×65536 f16 14.9 vs 13.1).
	gridClusterSplit = 2

	// hybridFewRows16Bytes: with fewer rows than SMs, 16-bit forward rows
	// beyond block_reg's 32768 columns up to this size go to block_hybrid
	// (1024 threads, the row in registers and shared memory), which had
	// lost only on longer rows (128×128256 bf16, see blockHybridFirst).
	// H200, softmax bench, µs, same run (-sweep-midrows.txt), block_hybrid
	// vs the previous pick: 128×40000 bf16 12.5 vs block_smem 14.5;
	// 128×50000 bf16 14.6 vs 16.5; 96×50000 bf16 13.5 vs 15.9; 64×65536 f16
	// 13.4 vs online_2pass 16.0 (split_cluster 13.1); 128×65536 f16 17.3 vs
	// 17.2 (split_grid 16.4). From 120 KB split_cluster is listed ahead of
	// it (clusterUnevenRows).
	hybridFewRows16Bytes = 128 << 10

	// hybridManyRowsWaves: with at least as many rows as SMs, rows past
	// block_hybrid's 512-thread blocks take its 1024-thread blocks (one an
	// SM) from this many rows an SM; fewer go to split_grid
	// (gridManyLongRows), one launch over every SM with each row's chunks
	// cached in shared memory. H200, softmax bench, µs (-ab-s38.txt §2-3),
	// block_hybrid vs split_grid: 1024×65536 f32 151.7 vs 166.1;
	// 1024×100000 f16 130.5 vs 134.5; 2048×128256 bf16 310.8 vs 334.7,
	// log_softmax 296.1 vs 320.6; 1024×128256 bf16 169.9 vs 168.4 (tie);
	// but 528×65536 f32 87.9 vs 86.7, 528×100000 f16 75.0 vs 71.0,
	// 528×128256 bf16 98.0 vs 88.0, 264×65536 f32 50.2 vs 45.1. Nothing was
	// measured between 528 and 1024 rows (4 and 7.8 an SM on the H200): 7
	// is a choice inside that gap, not a measured edge.
	hybridManyRowsWaves = 7

	// hybridRagged16Waves: ragged 16-bit rows past block_hybrid's 512-thread
	// blocks take its 1024-thread twins with more than this many rows an SM
	// (f32 rows from one); split_grid, which has no twins, is not in the
	// running, online_2pass's twins are. H100, softmax bench, 20 reps, one
	// run, µs (-ab-s50.txt §3), twin vs online_2pass: 528×100003 bf16 102.7
	// vs 109.1, but 132×100003 f16 31.4 vs 29.9; f32 132×50257 28.7 vs
	// 29.9, 264×65537 66.1 vs 76.4, 528×50257 86.6 vs 109.4 (§2, two
	// rounds: 29.1 vs 30.0, 65.9 vs 75.9, 87.5 vs 109.5). Session 51 (H100,
	// 30 reps, two rounds, median µs, nvidia-h100-2026-11-25-ab-s51.txt §2)
	// measured the rows between, forced: the twin leads from past two rows
	// an SM (300×80001 f16 51.8 vs 58.1, 330×70001 f16 48.4 vs 51.6,
	// 396×70001 f16 53.1 vs 58.4, 330×100003 bf16 71.5 vs 80.5, 396×100003
	// bf16 79.2 vs 86.6) and ties or trails up to two (264×70001 f16 39.0
	// vs 39.5, 264×65537 f16 37.4 vs 36.0, 264×100003 bf16 57.0 vs 58.6,
	// 200×70001 f16 34.5 vs 30.7, 200×100003 bf16 50.4 vs 44.4). The A/B
	// (§3, three rounds), online_2pass → the twin: 265×70001 f16 46.4 →
	// 39.9, 300×80001 f16 57.8 → 52.3, 396×100003 bf16 86.1 → 79.3,
	// 500×65539 f16 62.1 → 61.5.
	hybridRagged16Waves = 2

	// gridManyRowsMaxBytes: the longest rows gridManyLongRows gives
	// split_grid, the longest measured (132×524288 and 256×524288 bf16;
	// f32 rows were measured up to 151936 columns, 594 KB). Longer rows
	// stay with online_2pass: split_grid would cache only part of each.
	gridManyRowsMaxBytes = 1 << 20

	// blockRegFewRows16Cols: the longest 16-bit rows block_reg takes when
	// rows < SMs (1024 threads × 4 packs without spills; blockRegFirst).
	blockRegFewRows16Cols = 32768
)

// Measured on H200 (bench/results/nvidia-h200-2026-11-22-sweep.json, M = 4096
// rows, forward softmax, µs): beyond warp_row's range the best kernel
// depends on the row's bytes, so forwardRows encodes the winners.
//   - f32 1280..1792 columns: pipelined 20.9..25.3 vs online_2pass
//     32.6..35.3 (the cp.async ring keeps several short rows in flight).
//   - f32 28672..32768: pipelined 300.6 / 354.1 vs block_smem 310.7 / 404.5
//     vs online_2pass 343.2 / 369.7.
//   - very many short rows (524288×1024 f16): warp_row 941.9 vs persistent
//     1060.6, so persistent is not chosen automatically any more.
//
// block_reg after its rewrite (one exp per element, plain max and sum
// reductions, one block per row; bench/results/nvidia-h200-2026-11-22-
// sweep-blockreg.json, same run for every kernel):
//   - f32 2048..16384 columns: block_reg 27.5..175.1 µs vs the previous
//     picks pipelined / block_vec / block_smem 36.8..182.5 (2048: 27.5 vs
//     36.8; 4096: 43.8 vs 52.7; 8192: 89.3 vs 91.0; 16384: 175.1 vs 182.5).
//     1536 and 1792 stay with pipelined (22.9 / 29.5 vs 25.1 / 32.2).
//   - f32 20480..28672: block_smem (232.2..316.6) ahead of block_reg
//     (267.0..346.0): a 1024-thread block per row is one block per SM.
//   - f16/bf16 2049..4096 columns: block_reg 14.4 / 33.1 / 32.9 vs block_vec
//     17.0 / 38.2 / 35.4 (1024×4096 f16, 4096×4096 f16, 4096×4096 bf16).
//
// f16/bf16 after the cheap exp (fexp_fast), swept over 1024..16384 rows
// (bench/results/nvidia-h200-2026-11-22-sweep16.json):
//   - 2048 columns, >= 16 MB: pipelined 53.9 vs warp_row 70.7 (16384 rows);
//     smaller tensors keep warp_row (2048×2048: 16.6 vs pipelined 17.6).
//     1024 columns only from 256 MB on (524288×1024 f16: 728.6 vs 774.5).
//   - 8192..32768: block_smem 10..20% ahead of block_vec and 5% ahead of
//     online_2pass (4096×8192 f16: 54.4 vs 65.3 vs 57.0; block_reg 60.4).
//
// block_reg compiled for fixed block sizes (bench/results/nvidia-h200-
// 2026-11-22-sweep-fixedblock.json, same run for every kernel):
//   - f32 1280..32768 columns: block_reg ahead of every other kernel, e.g.
//     1280: 22.9 vs pipelined 26.0; 1792: 25.7 vs 29.8; 4096: 42.2 vs
//     block_smem 50.7; 12288: 109.0 vs pipelined 143.6; 20480: 197.4 vs
//     block_smem 234.5; 32768: 313.7 vs pipelined 351.4 (0.81..0.95 of copy
//     from 2048 columns on). At 1024 and below warp_row and block_reg are
//     within 5% (4096×1024: 19.2 vs 18.8, 4096×640: 17.6 vs 19.1).
//   - f16/bf16 1024..8192 columns: block_reg ahead at every batch size
//     measured (128×1024 f16 11.3 vs warp_row 14.6; 65536×1024 97.2 vs
//     pipelined 104.9; 524288×1024 720.9 vs 744.3; 4096×2048 19.2 vs
//     22.1; 2048×8192 30.0 vs block_smem 33.8); 512 columns stay with
//     warp_row (16384×512 f16: 20.4 vs 30.5) and 16384 with block_smem
//     (4096×16384 f16: 100.8 vs 110.1).
//
// cached_row_full (rows that fill every pack run without bounds checks, so
// ptxas issues every load before using any; bench/results/nvidia-h200-
// 2026-11-22-sweep-fullrows.json): warp_row sped up on large tensors
// (524288×1024 f16 835 -> 546 µs) and now beats pipelined on every row it
// holds (32768×1024 f32 75.7 vs 81.2; 16384×2048 f16 44.5 vs 56.0;
// 524288×1024 f16 546.6 vs 727.0), so pipelined is no longer chosen for
// rows within warp_row's range (a 16 MB cap on 16-bit block_reg rows of
// 1024..2048 followed, lifted again by the smaller blocks below).
//
// block_reg with blocks of 64 and 128 threads (the smallest block holding
// the row in <= 32 values a thread; harness, H200, 4096 rows, µs): f32 512
// columns 64×2 9.3 vs warp_row ~11.6; 768 64×3 10.1 vs 256×1 15.0; 1024 64×4
// 12.1 vs 256×1 16.2 (warp_row 17.5); 2048 64×8 21.0 vs 256×2 24.0; f16 1024
// columns on 262144 rows 64×2 275 vs 128×1 346 (warp_row on 524288 rows:
// 546, i.e. the same per row); f16 2048 64×4 9.6 vs 256×1 11.1. The rule
// (f32 512..32768, f16/bf16 1024..8192) checked in one run against warp_row
// (sweep-smallblocks.txt): 65536×512 f32 71.5 vs 75.0; 131072×1024 f32 260.3
// vs 273.0; 16384×2048 f16 40.5 vs 42.7; 524288×1024 f16 531.5 vs 542.1;
// below 512 f32 columns warp_row stays (4096×256: 12.5 vs 12.8).
//
// Two full bench runs (bench/results/nvidia-h200-2026-11-22.txt and the
// one before it) then moved two edges: 4096×384 f32 block_reg 12.0 / 13.8
// vs warp_row 12.8 / 15.7 (4096×256 stays with warp_row: 12.5 vs 13.5), and
// a check of the edges (sweep-edges.txt): 4096×320 f32 11.9 vs 13.2, 448
// 12.6 vs 13.5, 16384×384 22.2 vs 22.7, 4096×256 13.6 vs 13.6, so f32
// starts at 320 columns (since the one-warp blocks: past 1 KB, see
// blockRegMinRowBytes); 4×16384 f16 block_reg 10.3 / 12.8 vs
// block_smem 12.6 / 15.4: with fewer rows than SMs every block has an SM
// to itself, so the occupancy that keeps 16-bit rows over 8192 off
// block_reg with many rows does not matter, and 16-bit rows of up to 16384
// go to block_reg when rows < SMs (sweep-edges.txt: 4, 8 and 64 rows of
// 16384 f16 12.9-13.1 vs 15.9-16.7; 128×16384 bf16 11.5 vs 13.3; 4×12288
// f16 9.5 vs 13.1).
//
// Backward ops: see blockRegBackward and backwardGrid.
type choice struct {
	s   kernels.Strategy
	why string
}

// choose lists strategies in order of preference; Make takes the first that
// builds.
func (c *ctx) choose() []choice {
	p := c.p
	if p.Inner > 1 {
		var out []choice
		smem := c.stridedSmemFirst()
		if c.stridedNarrowFirst() && (!smem || c.stridedNarrowAheadOfSmem()) {
			out = append(out, choice{kernels.StridedNarrow, fmt.Sprintf("Inner of %d (under 8 packs), axis of %d: warps read each outer index's Axis×Inner block as one run of packs (one read)", p.Inner, p.Axis)})
		}
		if c.stridedShortFirst() && (!smem || p.Inner >= stridedSmemMaxShortInner || p.Axis < stridedSmemMinShortAxis) {
			out = append(out, choice{kernels.StridedShort, fmt.Sprintf("Inner > 1, axis of %d rows: a thread (or 2-4 lanes) holds P slices' whole axis in registers (one read, no barrier)", p.Axis)})
		}
		reg := c.stridedRegFirst()
		if reg && smem && c.innerPacks() && p.Inner%(8*c.P) == 0 {
			// whole 8-pack tiles: strided_reg leads (see stridedSmemFirst)
			out = append(out, choice{kernels.StridedReg, "Inner > 1 of whole 8-pack tiles, axis of 48..8192: slices cached in registers (one read)"})
		}
		if smem {
			out = append(out, choice{kernels.StridedSmem, fmt.Sprintf("Inner of %d, outer blocks of %d×%d elements: each staged in shared memory, its columns reduced there (one read)", p.Inner, p.Axis, p.Inner)})
		}
		if reg {
			out = append(out, choice{kernels.StridedReg, "Inner > 1, axis of 48..8192: slices cached in registers (one read)"})
		}
		return append(out, choice{kernels.Strided, "Inner > 1: softmax along a non-last axis"},
			choice{kernels.Naive, "fallback"})
	}
	rows, cols := p.Outer, p.Axis
	var out []choice
	if rows < int64(c.d.SMs) {
		if s, why := c.fewRows(); s != "" {
			out = append(out, choice{s, why})
		}
	}
	hybrid := c.blockHybridFirst()
	if ok, why := c.gridOneWave(hybrid); ok {
		out = append(out, choice{kernels.SplitGrid, why})
	}
	many, manyWhy := c.gridManyLongRows()
	if ok, why := c.clusterUnevenRows(hybrid, many); ok {
		out = append(out, choice{kernels.SplitCluster, why})
	}
	if hybrid {
		out = append(out, choice{kernels.BlockHybrid, "forward rows beyond 16384 columns: 32 values a thread in registers and the rest in shared memory (512 threads, two rows per SM; 1024 threads for longer rows)"})
	}
	if many {
		out = append(out, choice{kernels.SplitGrid, fmt.Sprintf("%d forward rows of %d KB, past block_hybrid's 512-thread blocks: %s", rows, cols*c.es>>10, manyWhy)})
	}
	if !hybrid && c.hybridBehindGrid() {
		// where split_grid cannot launch (no cooperative launch, too
		// little shared memory): still one read, ahead of online_2pass
		out = append(out, choice{kernels.BlockHybrid, "forward rows past block_hybrid's 512-thread blocks, behind split_grid: 1024 threads, the row in registers and shared memory"})
	}
	if c.flatRowsFirst() {
		what := "ragged rows"
		if !p.Aligned {
			what = "rows of unaligned tensors"
		}
		out = append(out, choice{kernels.FlatRows, fmt.Sprintf("%s of %d columns: tiles of consecutive rows staged in shared memory as one run of packs, a lane group a row (one read, 16-byte loads and stores)", what, cols)})
	}
	warpMax := kernels.WarpRow.Info().MaxCols(p.Op, c.dt)
	if c.blockRegFirst() {
		why := "forward rows of 1..128 KB (f32) or 1..16 KB (f16/bf16; 32 KB for fewer rows than SMs): block per row (one warp up to 1024 columns), row in registers, one exp per element"
		if p.Op.Backward() {
			why = fmt.Sprintf("backward rows of %d..%d columns: block per row, y and dy in registers, one read", warpMax+1, kernels.BlockReg.Info().MaxCols(p.Op, c.dt))
		}
		out = append(out, choice{kernels.BlockReg, why})
	}
	if c.span() <= warpMax {
		out = append(out, choice{kernels.WarpRow, fmt.Sprintf("short rows (%d <= %d columns): a lane group per row, row in registers", cols, warpMax)})
	} else if !p.Op.Backward() {
		out = append(out, c.forwardRows()...)
	} else {
		out = append(out, c.backwardRows()...)
	}
	out = append(out,
		choice{kernels.Online2Pass, "rows beyond warp_row: online (m,d), second read from L2"},
		choice{kernels.SplitRow, "fallback"},
		choice{kernels.Naive, "fallback"})
	return out
}

// flatRowsFirst reports ragged rows (aligned pointers, rows not whole
// packs) that flat_rows takes ahead of warp_row's twins (and block_reg's
// for f32 rows past 1 KB): f32 rows of 8-512 columns either way, 16-bit
// forward rows of 16-128 and backward ones of 16-300. H200, softmax
// bench, median µs, the pick before against flat_rows, rounds alternated
// (-ab-s43.txt §5, §9): 350785×126 bf16 65.35 vs 54.10, 200000×66 bf16
// 29.91 vs 23.84, 200000×30 bf16 18.44 vs 12.50, 1000000×10 f32 32.93 vs
// 28.48, 32768×383 f32 (block_reg) 39.31 vs 31.60, 350785×126 bf16
// softmax_backward 105.81 vs 71.77, 65536×333 f32 softmax_backward 105.70
// vs 73.22, 74862×59 bf16 log_softmax_backward 18.98 vs 14.74. Past the
// 16-bit limits warp_row leads: 16384×201 bf16 9.68 vs 11.77, 4096×250
// bf16 6.21 vs 7.93, 65536×13 f16 6.72 vs 7.25, 32768×333 f16
// softmax_backward 25.8 vs 28.5, 32768×400 bf16 softmax_backward 26.0 vs
// 27.1; inside them 200000×100 bf16 is 2.8% slower (30.65 vs 31.50).
func (c *ctx) flatRowsFirst() bool {
	if c.check(kernels.FlatRows) != nil {
		return false
	}
	if c.unalignedRows() {
		return c.flatRowsUnaligned()
	}
	if !c.raggedRows() {
		return false
	}
	lo, hi := int64(flatRowsMinCols), flatRowsMaxCols // f32: every row it holds
	if c.es == 2 {
		lo, hi = flatRowsMinCols16, flatRowsMaxBwdCols16
		if !c.p.Op.Backward() {
			hi = flatRowsMaxFwdCols16
		}
	}
	return c.p.Axis >= lo && c.p.Axis <= hi
}

// flatRowsFirst's limits, in columns (f32 rows up to flatRowsMaxCols).
const (
	flatRowsMinCols      = 8
	flatRowsMinCols16    = 16
	flatRowsMaxFwdCols16 = 128
	flatRowsMaxBwdCols16 = 300
)

// unalignedRows reports last-axis rows, several of them, whose tensors do
// not all start on a 16-byte boundary (a view into a larger tensor): no
// strategy but flat_rows reads them as 16-byte packs.
func (c *ctx) unalignedRows() bool {
	return !c.p.Aligned && c.p.Inner == 1 && c.p.Outer > 1
}

// flatRowsUnaligned reports unaligned rows that flat_rows takes ahead of
// warp_row's element-wise path: f16/bf16 rows of 13-512 columns, f32
// forward ones of 10-512 and backward ones of 257-512, unless the width
// flat_rows picks reads shared memory with more than 2-way bank conflicts
// (rows of 16 f32, or of 64). Element-wise, a warp loads 64 bytes of 16-bit
// values an instruction and 128 of f32 ones, so 16-bit rows gain most.
// H200, softmax bench --offset 1, median µs of two rounds, warp_row
// against flat_rows forced in the same run (-ab-s44.txt §1):
// 350785×126 bf16 120.51 vs 58.76 (softmax_backward 117.16 vs 79.30),
// 200000×66 bf16 43.26 vs 26.55, 32768×300 f16 30.78 vs 20.26, 131072×100
// f16 34.26 vs 25.26 (softmax_backward 41.69 vs 34.03), 16384×512 f16
// 22.16 vs 16.91, 300000×13 f16 14.42 vs 12.48, 32768×383 f32 40.35 vs
// 33.17 (log_softmax 48.37 vs 32.99, softmax_backward 55.30 vs 49.49),
// 1000000×10 f32 35.20 vs 32.83. Outside: 1000000×5 f32 19.27 vs 27.81
// and f16 12.54 vs 22.96; f32 softmax_backward of 13-256 columns
// (300000×13 19.75 vs 21.53, 65536×100 27.08 vs 30.59, 32768×128 19.20
// vs 22.62); 4-way conflicts at 64 columns (65536×64 f32 15.02 vs 16.01,
// softmax_backward 19.40 vs 25.48; 200000×64 f16 softmax_backward 34.42
// vs 41.01). Inside, behind: 32768×200 f32 softmax 20.12 vs 22.28 (its
// log_softmax 26.63 vs 22.02), 16384×256 f32 14.68 vs 15.02, 65536×128
// f16 softmax_backward 24.58 vs 24.83.
func (c *ctx) flatRowsUnaligned() bool {
	lo := int64(flatRowsMinColsUnaligned16)
	if c.es == 4 {
		lo = flatRowsMinColsUnaligned
		if c.bwd {
			lo = flatRowsMinBwdColsUnaligned
		}
	}
	if c.p.Axis < lo || c.p.Axis > flatRowsMaxCols {
		return false
	}
	w, _, ok := c.flatRowsLanes()
	return ok && flatRowsConflicts(c.p.Axis, w, c.es) <= 2
}

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

// stridedNarrowMinAxis is the shortest axis strided_narrow takes ahead of
// strided_short (which serves up to 48 rows forward, 32 backward): 24 rows
// for f32 forward, 32 otherwise (see stridedNarrowFirst).
func (c *ctx) stridedNarrowMinAxis() int64 {
	if c.es == 4 && !c.bwd {
		return 24
	}
	return 32
}

// stridedNarrowFirst reports whether strided_narrow is the measured winner
// for a non-last axis: an Inner it takes (a power of two up to 8 packs)
// narrower than the 8-pack tiles strided_reg wants, a block it holds, and
// an axis of at least stridedNarrowMinAxis. H200, softmax bench, L2
// flushed, µs, strided_narrow against the pick before (-ab-s36.txt §1):
// 100000×64×4 f32 61.9 vs strided 346.1 (0.85 of copy; torch 262),
// 20000×100×8 f16 28.6 vs 157.4, 10000×256×4 f32 34.5 vs 138.5,
// 2000×1000×8 f32 (8 warps an outer index) 68.3 vs 76.1, 100000×99×2 f32
// (its twin) 59.6 vs 405.4, 100000×64×4 bf16 63.0 vs 970.1, 30000×200×4
// f16 39.6 vs 332.8, 10000×100×16 f32 67.7 vs strided_reg 80.3 and strided
// 143.1, 50000×100×8 bf16 log_softmax 61.1 vs 385.6, 100000×50×2 f16
// (twin, 13 packs a warp) 68.6 vs 218.3; backward 100000×64×4 f32 79.8 vs
// 154.4 (0.96 of copy), 20000×100×8 f16 log_softmax_backward 53.2 vs 79.2,
// 2000×1000×8 f32 66.3 vs 65.6 (a tie). At 8 packs strided_reg's tiles
// lead (4000×128×32 f32 40.8 vs 61.7, 2000×128×64 f16 33.2 vs 39.3).
// Against strided_short (§1-2): f32 forward it leads from 24 rows
// (200000×24×4 80.9 vs 88.3, log_softmax 100000×24×4 39.6 vs 49.6,
// 200000×32×4 82.5 vs 126.2, 100000×33×4 52.5 vs 60.8) but not at 17 or 16
// (78.9 vs 67.8, 76.7 vs 71.9); f16 only from 32 (100000×32×8 60.4 vs
// 70.6; 24 rows 60.0 vs 55.9, 17 rows 59.4 vs 36.6), bf16 ties at 40
// (76.1 vs 76.7); backward at 32 rows (200000×32×4 f32 84.0 vs 145.0), not
// 24 (100000×24×8 f16 log_softmax_backward 51.4 vs 48.5; 17 rows f32 a
// tie); backward groups of at most stridedNarrowMaxBackwardWarps. Few
// outer indices need no floor: with one to eight blocks it
// still led strided's split axis (§2: 16×2000×4 f32 9.60 vs 14.4,
// 8×1000×8 f16 10.1 vs 17.4, 128×256×4 f32 7.33 vs 8.75).
func (c *ctx) stridedNarrowFirst() bool {
	p := c.p
	if p.Inner >= 8*c.P || p.Axis < c.stridedNarrowMinAxis() {
		return false
	}
	gw, _, ok := kernels.StridedNarrowShape(p.Op, c.dt, p.Axis, p.Inner)
	return ok && (!c.bwd || gw <= stridedNarrowMaxBackwardWarps)
}

// stridedSmemFirst reports whether strided_smem is the measured winner
// for a non-last axis: its tiles fit at least stridedSmemMinBlocks blocks
// an SM and there are at least as many tiles as SMs. H200, softmax bench,
// L2 flushed, µs, against the pick before (-ab-s37.txt §1, §4): a ragged
// Inner, 3000×49×129 f16 56.2 vs strided_reg 166.6 (torch 108),
// 2000×63×333 bf16 log_softmax 121.2 vs 200.2, 1000×50×333 f32 55.1 vs
// 73.9, 4000×60×37 bf16 26.0 vs 77.2, 22982×113×3 bf16 log_softmax 26.9
// vs strided 240.4, 1020×567×10 bf16 log_softmax 20.8 vs 56.8; whole packs,
// 4096×128×36 f32 58.3 vs strided_reg 67.8, 2048×64×72 f16 27.9 vs 53.7,
// 248×353×122 bf16 42.9 vs 54.0; backward, 3000×49×129 f16 53.8 vs strided
// 128.4, 5000×64×45 bf16 33.1 vs 89.7. It lost with one block an SM
// (500×64×1001 f16, 128 KB: 121.1 vs strided_reg 100.9; 1024×49×1001 f32
// 185.3 vs 180.3) and with few tiles (34×160×185 f32 19.6 vs 11.2,
// 8×4096×4 f32 15.6 vs 9.42), and strided_reg keeps Inner of whole 8-pack
// tiles (§5: 4000×128×32 f32 40.1 vs 48.1, 2000×128×64 f16 33.4 vs 39.6,
// 1024×128×128 f32 44.5 vs 57.4, 512×64×256 f16 24.4 vs 31.6).
func (c *ctx) stridedSmemFirst() bool {
	if err := c.check(kernels.StridedSmem); err != nil {
		return false
	}
	sh := c.stridedSmemShape()
	if ceilDiv(c.p.Outer, sh.tile) < int64(c.d.SMs) {
		return false
	}
	occ, err := c.fits(kernels.StridedSmem.Info().File, sh.sym, int(sh.nt), sh.smem)
	return err == nil && occ >= stridedSmemMinBlocks
}

// stridedSmemMinBlocks is the fewest strided_smem blocks an SM the planner
// takes it at (see stridedSmemFirst): with one, a block's staging and its
// column pass do not overlap another's.
const stridedSmemMinBlocks = 2

// stridedSmemMaxShortInner is the narrowest Inner strided_short keeps ahead
// of strided_smem. H200, µs (-ab-s37.txt §4): strided_smem led at Inner 3-10
// (182495×20×3 bf16 log_softmax 30.1 vs 56.1, 40045×21×5 bf16 20.1 vs
// 23.5, 157361×10×6 bf16 softmax_backward 28.7 vs 34.9, 23205×9×10 f32
// softmax_backward 14.9 vs 15.9, 50000×40×5 f32 41.4 vs 60.6), strided_short
// from 16 (6145×9×16 f32 softmax_backward 8.72 vs 10.7, 6284×25×20 f16 13.2
// vs 15.0, 11815×21×26 f32 24.6 vs 29.1, 2615×28×68 bf16 17.0 vs 20.7,
// 1349×13×154 bf16 log_softmax 12.0 vs 17.3); and on axes of under
// stridedSmemMinShortAxis rows (§5: 100000×4×8 f16 8.78 vs 14.9, 300000×2×6
// f32 16.4 vs 25.8; at 8 rows strided_smem led, 200000×8×4 f32 30.1 vs
// 36.5).
const stridedSmemMaxShortInner = 16

// stridedSmemMinShortAxis: see stridedSmemMaxShortInner.
const stridedSmemMinShortAxis = 8

// stridedNarrowAheadOfSmem reports where strided_narrow leads strided_smem
// (both serving): one warp an outer index, a block of at least a warp's 32
// packs. H200, µs (-ab-s37.txt §1, §4-5): 100000×64×4 f32 61.7 vs 90.5,
// 1606×374×4 f16 log_softmax 9.36 vs 13.9, 20000×100×8 f16 28.2 vs 39.7,
// 200000×32×4 f32 softmax_backward 83.8 vs 104.4; strided_smem led on
// smaller blocks (100000×50×2 f16, 13 packs, 30.2 vs 68.0; 200000×24×4
// f32 72.6 vs 80.8), on groups of warps (4642×1137×4 f16 log_softmax 46.1
// vs 121.1; 1000×2000×8 f32 57.4 vs strided 70.7) and backward
// (2796×75×16 bf16 log_softmax_backward 16.0 vs 21.0, two warps;
// 600×1000×8 f32 softmax_backward 23.5 vs 26.2; 11775×210×8 f16
// log_softmax_backward 51.7 vs 70.7).
func (c *ctx) stridedNarrowAheadOfSmem() bool {
	gw, _, ok := kernels.StridedNarrowShape(c.p.Op, c.dt, c.p.Axis, c.p.Inner)
	return ok && gw == 1 && ceilDiv(c.p.Axis*c.p.Inner, c.P) >= 32
}

// stridedNarrowMaxBackwardWarps is the most warps an outer index that
// strided_narrow takes for backward ops. With 8 (two 256-thread blocks an
// SM, each one outer index, three barriers a block) strided's one slice a
// thread kept up (H200, -ab-s36.txt §5: 2000×1000×8 f32 softmax_backward
// 66.3 vs 65.6) or led (5212×693×8 f16 softmax_backward 115.5 vs 79.9);
// forward 8-warp groups led (2000×1000×8 f32 68.3 vs 76.1, 2157×1708×8
// bf16 98.3 vs 118.0), as did backward groups of 1-2 warps (11775×210×8
// f16 log_softmax_backward 71.7 vs 92.1, 25724×33×32 f16 softmax_backward
// 100.7 vs 156.5).
const stridedNarrowMaxBackwardWarps = 4

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

// stridedRegMinAxis is the shortest axis strided_reg takes. Session 32
// (H200, softmax bench, strided_reg vs strided, µs, -ab-s32.txt §1; the
// rule had asked for an axis of 128 and Inner a multiple of 8 packs):
// from 48 rows it led on every Inner and dtype swept (4..256 rows × Inner
// 4096/1004/128 f32, 2896/512/64 f16, 784 bf16, 8 and 64 MB): 85×48×4096
// f32 62.6 vs 75.3, 10923×48×64 f16 116.5 vs 170.7, 892×48×784 bf16 128.0
// vs 137.8, 64×64×4096 f32 51.9 vs 71.0 (the axis of 64 that strided had
// kept in session 11, since strided_reg's later work), 131×128×1004 f32
// 47.6 vs 71.3, 45×256×2896 f16 53.5 vs 107.3, 167×256×784 bf16 69.7 vs
// 171.5; behind only at 44×48×1004 f32 (11 MB: 16.9 vs 15.8 in §5). At 32 rows and
// fewer strided led (128×32×4096 f32 77.6 vs 90.7, 696×24×1004 f32 89.6
// vs 132.7). Part tiles across Inner cost little: 4096×128×36 f32 (9
// packs) 68.2 vs 128.4, 2048×64×72 f16 54.2 vs 62.3. Since session 34
// strided_short comes first up to 48 rows (ahead of strided_reg there:
// see stridedShortFirst), so strided_reg's picks start at 49.
const stridedRegMinAxis = 48

// stridedRegTwinMinInner is the narrowest Inner strided_reg's twins take
// in the planner's pick (see stridedRegFirst).
const stridedRegTwinMinInner = 32

// stridedRegFirst reports whether strided_reg is the measured winner for a
// non-last axis: forward with the 16-byte path, an axis of at least
// stridedRegMinAxis (it holds up to 8192 with 8-block clusters, 1024
// without) and at least one whole 8-pack tile across Inner. On H200 (harness, same run, copy ratio
// strided_reg vs strided): 4096x65536 axis 0 0.56 vs 0.44; 4096x4096 axis 0
// 0.55 vs 0.41 (split); 32x512x8192 0.80 vs 0.51; 1x1024x65536 0.67 vs 0.41;
// 8x2048x4096 0.59 vs 0.44; 128x128x8192 0.62 vs 0.51; an axis of 64
// (256x64x4096) 0.44 vs 0.50 then (see stridedRegMinAxis). f16 with its
// values held as floats gained little (64x512x4096 0.35 vs 0.32, 64x1024x512
// 0.31 vs 0.32; see the end for the packed version). Through the library (NVRTC 13, bench/results/nvidia-h200-
// 2026-11-22-sweep-axis.txt): 0.53 vs 0.44, 0.48 vs 0.41, 0.75 vs 0.51,
// 0.64 vs 0.41, 0.56 vs 0.48, 0.62 vs 0.51 in the order above; axis 64 0.43
// vs 0.49. It also needs blocks for at least half the SMs (strided
// splits the axis of a few tiles over the whole GPU; 4096x1024 axis 0, 128
// blocks on 132 SMs: strided_reg 36.3 µs vs strided 39.2). f16/bf16 since
// their values stay packed in registers (64 a thread, so a block holds 1024
// axis rows of a 64-column tile; H200, µs, strided_reg before / after /
// strided, bench/results/nvidia-h200-2026-11-22-strided16-ab.txt):
// 64×1024×512 f16 axis 1 125.5 / 88.1 / 122.0; bf16 127.3 / 92.7 / 126.6;
// 64×512×4096 f16 371.8 / 293.2 / 417.0; 4096×4096 f16 axis 0 83.6 / 72.0 /
// 104.4; 1024×4096 f16 axis 0 22.8 / 24.4 / 43.7; 8×2048×4096 f16 256.2 /
// 182.0 / 205.5.
//
// Inner not of whole packs (or unaligned pointers) takes the "_shift"
// twins, from stridedRegTwinMinInner slices (H200, -ab-s35.txt §1, twin vs
// strided, µs): 1000×50×333 f32 73.5 vs 122.7, 56×100×12269 f32 207.4 vs
// 417.3, 100×1000×999 f32 311.8 vs 557.4, 2000×200×45 f32 75.5 vs 144.5,
// 1024×49×1001 f32 181.1 vs 348.0, 500×64×1001 f16 120.8 vs 212.4,
// 64×500×1001 bf16 140.9 vs 181.4, 4000×60×37 bf16 73.7 vs 107.1,
// 3986×12487 f16 axis 0 258.6 vs 298.1, 2000×63×333 bf16 log_softmax
// 273.7 vs 287.8; even at 3000×49×129 f16 (177.8 vs 174.7). Narrower
// Inner lose: 100000×64×4 f32 462.4 vs 346.1, 20000×100×8 f16 211.9 vs
// 156.8 (a tile of 8 packs' columns holds 4 or 8).
func (c *ctx) stridedRegFirst() bool {
	p := c.p
	minInner := 8 * c.P // one whole 8-pack tile
	if !c.innerPacks() {
		minInner = stridedRegTwinMinInner
	}
	if p.Op.Backward() || p.Axis < stridedRegMinAxis || p.Inner < minInner {
		return false
	}
	// Counted in the blocks of the undoubled cluster, as measured.
	k, _, g, _, err := c.stridedRegShapeWith(0, 0, false)
	return err == nil && 2*p.Outer*ceilDiv(p.Inner, g*c.P)*k >= int64(c.d.SMs)
}

// forwardRows lists the fallbacks for forward rows beyond warp_row that
// block_reg does not take (or, ahead of it, cannot serve); a choice that
// cannot serve the problem (unaligned rows for pipelined, shared memory)
// falls through to the next one.
func (c *ctx) forwardRows() []choice {
	f32 := c.es == 4
	pipe := choice{kernels.Pipelined, "f32 rows beyond block_reg: cp.async ring of rows per worker"}
	if f32 && c.p.Axis < 2048 {
		// Rows block_reg leaves (unaligned): pipelined if it can, else
		// online_2pass; block_smem was not measured on them.
		return []choice{pipe}
	}
	if c.skewedRows() || c.es == 2 && c.raggedRows() {
		// online_2pass's twins lead block_smem's on skewed rows and on
		// aligned ragged 16-bit ones that block_reg leaves
		// (raggedBlockRegFwd16; H200, -ab-s46.txt §1: 2048×8191 bf16
		// 32.3 vs 36.7 µs, 2207×14634 bf16 55.0 vs 67.3), or tie them
		// (H100, -ab-s49.txt §3b: 4096×17001 f16 129.0 vs 129.6; but
		// 4096×20001 f16 143.4 vs 137.4)
		return nil
	}
	var out []choice
	if occ, err := c.blockSmemOccupancy(); err == nil && occ >= 2 {
		out = append(out, choice{kernels.BlockSmem, fmt.Sprintf("row in shared memory with %d blocks per SM: one read", occ)})
	}
	if f32 {
		out = append(out, pipe)
	}
	return out
}
