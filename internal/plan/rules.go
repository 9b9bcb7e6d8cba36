package plan

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// Tunables of the automatic choice (first guesses; see the package doc).
const (
	blockGBs        = 40.0 // GB/s one block streams on its own
	smGBs           = 25.0 // GB/s per SM when every SM streams
	launchMicros    = 4.0  // cost of one extra launch, µs
	clusterMicros   = 1.0  // extra cost of a cluster launch and its barriers, µs
	switchMicros    = 1.0  // a split must beat a block per row by this much (and 20%)
	persistentWaves = 8    // waves of resident blocks from which persistent pays
	gridWaves       = 4    // grid cap, in waves of resident blocks
	maxSplitRow     = 1024 // split_row chunks per row (phase 2 merges them all)
)

// autoOnePass lets the automatic rules pick the one-read block kernels
// (block_reg, block_smem) for rows beyond warp_row's range. Off: on H200
// (bench/results/nvidia-h200-2026-11-22.txt) online_2pass beat block_reg at
// 4096 columns (f32 59 vs 95 µs, f16 25 vs 32 µs) and block_smem at 4096 and
// 32768 f32 columns (59 vs 105, 383 vs 439 µs): a register- or smem-cached
// row caps the bytes in flight per SM (the cache is the in-flight buffer),
// while the streaming pass keeps more loads in flight and its second read
// mostly hits L2.
const autoOnePass = false

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
	if cols <= warpMax {
		if w, why := c.persistentPays(kernels.WarpRow); w {
			out = append(out, choice{kernels.Persistent, why})
		}
		out = append(out, choice{kernels.WarpRow, fmt.Sprintf("short rows (%d <= %d columns): a lane group per row, row in registers", cols, warpMax)})
	}
	if autoOnePass {
		if cols <= kernels.BlockReg.Info().MaxCols(p.Op, c.dt) {
			out = append(out, choice{kernels.BlockReg, "rows fit a block's registers"})
		}
		out = append(out, choice{kernels.BlockSmem, "the row fits the opt-in shared memory of a block"})
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

// persistentPays reports whether warp_row's launch (a full warp per row)
// would need persistentWaves or more waves of resident blocks and the
// persistent warp kernels can hold the rows: very many short rows.
func (c *ctx) persistentPays(s kernels.Strategy) (bool, string) {
	if s != kernels.WarpRow {
		return false, ""
	}
	w, np, err := c.warpShape()
	if err != nil || w < 32 || c.p.Axis > c.persistentWarpMax() {
		return false, ""
	}
	blocks := ceilDiv(c.p.Outer, 128/w)
	resident := int64(c.occupancy(kernels.WarpRow.Info().File, c.sym(s, fmt.Sprintf("w%d_p%d", w, np)), 128, 0)) * int64(c.d.SMs)
	if resident <= 0 || blocks < persistentWaves*resident {
		return false, ""
	}
	return true, fmt.Sprintf("%d blocks of warp_row are %d+ waves: persistent grid with next-row prefetch", blocks, persistentWaves)
}
