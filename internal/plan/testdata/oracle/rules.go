package oracle

import (
	"fmt"

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
