package plan

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
	maxSplitRow   = 1024 // split_row chunks per row (phase 2 merges them all)

	// pipelinedHalfBytes: from this tensor size on, 16-bit rows in the upper
	// half of warp_row's range go to pipelined first.
	pipelinedHalfBytes = 16 << 20
	// pipelinedQuarterBytes: the same for rows in the second quarter of the
	// range (H200, 524288×1024 f16: pipelined 728.6 vs warp_row 774.5 µs;
	// 8192×1024 bf16, 16 MB: warp_row 19.6 vs 21.2).
	pipelinedQuarterBytes = 256 << 20
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
// Backward ops were not swept: they keep online_2pass.
type choice struct {
	s   kernels.Strategy
	why string
}

// choose lists strategies in order of preference; Make takes the first that
// builds.
func (c *ctx) choose() []choice {
	p := c.p
	if p.Inner > 1 {
		return []choice{{kernels.Strided, "Inner > 1: softmax along a non-last axis"},
			{kernels.Naive, "fallback"}}
	}
	rows, cols := p.Outer, p.Axis
	var out []choice
	if rows < int64(c.d.SMs) {
		if s, why := c.fewRows(); s != "" {
			out = append(out, choice{s, why})
		}
	}
	warpMax := kernels.WarpRow.Info().MaxCols(p.Op, c.dt)
	if c.es == 2 && !p.Op.Backward() && cols <= warpMax &&
		(cols > warpMax/2 && rows*cols*2 >= pipelinedHalfBytes || cols > warpMax/4 && rows*cols*2 >= pipelinedQuarterBytes) {
		out = append(out, choice{kernels.Pipelined, "many 16-bit rows of 1..4 KB: cp.async ring of rows per worker"})
	}
	if cols <= warpMax {
		out = append(out, choice{kernels.WarpRow, fmt.Sprintf("short rows (%d <= %d columns): a lane group per row, row in registers", cols, warpMax)})
	} else if !p.Op.Backward() {
		out = append(out, c.forwardRows()...)
	}
	out = append(out,
		choice{kernels.Online2Pass, "rows beyond warp_row: online (m,d), second read from L2"},
		choice{kernels.SplitRow, "fallback"},
		choice{kernels.Naive, "fallback"})
	return out
}

// fewRows applies the bandwidth model for rows < SMs: a block per row, the
// row split over every SM (split_row), or a cluster per row (split_cluster).
// It returns "" when a block per row is modelled cheapest.
func (c *ctx) fewRows() (kernels.Strategy, string) {
	rows := float64(c.p.Outer)
	rowBytes := float64(c.p.Axis * c.es * c.nin)
	sms := float64(c.d.SMs)
	// µs = bytes / (GB/s · 1e3)
	tBlock := rowBytes / (blockGBs * 1e3)
	tSplit := launchMicros + rows*rowBytes*1.5/(sms*smGBs*1e3)
	// A split must clearly win: the model is rough and tiny problems are
	// dominated by launch latency anyway.
	best, bestT := kernels.Strategy(""), min(tBlock-switchMicros, 0.8*tBlock)
	why := ""
	if tSplit < bestT {
		best, bestT = kernels.SplitRow, tSplit
		why = fmt.Sprintf("few long rows (%d < %d SMs): split_row models %.1f µs vs %.1f µs a block per row", c.p.Outer, c.d.SMs, tSplit, tBlock)
	}
	if cs, ok := c.clusterSize(); ok {
		clusters := rows
		waves := max(1, clusters*float64(cs)/sms)
		tCluster := clusterMicros + rowBytes/(float64(cs)*blockGBs*1e3)*waves
		if tCluster < bestT {
			best = kernels.SplitCluster
			why = fmt.Sprintf("few long rows (%d < %d SMs): a %d-block cluster per row models %.1f µs (split_row %.1f, block %.1f)", c.p.Outer, c.d.SMs, cs, tCluster, tSplit, tBlock)
		}
	}
	return best, why
}

// forwardRows lists the measured winners (see the table above) for forward
// rows beyond warp_row; a choice that cannot serve the problem (unaligned
// rows for pipelined, shared memory) falls through to the next one.
func (c *ctx) forwardRows() []choice {
	cols, f32 := c.p.Axis, c.es == 4
	pipe := choice{kernels.Pipelined, "f32 rows of 4..7 KB or > 64 KB: cp.async ring of rows per worker"}
	reg := choice{kernels.BlockReg, "rows of 8..64 KB (f32) or up to 8 KB (f16/bf16): block per row, row in registers, one exp per element"}
	switch {
	case f32 && cols < 2048:
		return []choice{pipe}
	case f32 && cols <= 16384, !f32 && cols <= 4096:
		return []choice{reg}
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
