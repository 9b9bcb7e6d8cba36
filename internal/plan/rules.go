package plan

import (
	_ "embed"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
)

//go:embed params.tsv
var paramsTSV string

// prm holds params.tsv's numbers: each row sets the field of its name
// (case aside), and every field has its row (parseParams).
var prm = parseParams(paramsTSV)

type params struct {
	// the few-rows model (fewModel)
	BlockGBs, SmGBs, LaunchMicros, ClusterMicros, SwitchMicros float64
	TwoReadSplitBytes, ClusterRowBytes, ClusterOneWaveRowBytes float64
	// sizing
	ClusterPackNum, ClusterPackDen, GridWaves, MaxSplitRow, SplitRowBlocksPerSM int64
	GridCacheHalves, GridWaveQuarters, RaggedMinPacks, PipelinedWarpPacks       int64
	StridedShortAxis, StridedSmemTilePacks, StridedRegFewTiles                  int64
	FlatRowsThreads, FlatRowsTileBytes, SplitGridThreads                        int64
}

// parseParams reads params.tsv; a malformed row is a build error, so it
// panics at init.
func parseParams(text string) (p params) {
	v, set := reflect.ValueOf(&p).Elem(), map[string]bool{}
	err := eachRow(text, []string{"name", "value", "evidence"}, func(f []string) error {
		field := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, f[0]) })
		b, err := parseBound(f[1])
		switch {
		case !field.IsValid() || set[f[0]]:
			return fmt.Errorf("%s: no such parameter, or twice", f[0])
		case err != nil || b.Unit != "" || f[2] == "":
			return fmt.Errorf("%s: value %q, evidence %q", f[0], f[1], f[2])
		case field.CanFloat():
			field.SetFloat(b.V)
		default:
			field.SetInt(int64(b.V))
		}
		set[f[0]] = true
		return nil
	})
	if err == nil && len(set) != v.NumField() {
		err = fmt.Errorf("%d rows for %d parameters", len(set), v.NumField())
	}
	if err != nil {
		panic("plan: params.tsv: " + err.Error())
	}
	return p
}

// unalignedRows reports several last-axis rows whose tensors do not all
// start on a 16-byte boundary (a view into a larger tensor).
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
	tBlock := rowBytes / (prm.BlockGBs * 1e3)
	tSplit := prm.LaunchMicros + rows*rowBytes*1.5/(sms*prm.SmGBs*1e3)
	// A split must clearly win: the model is rough and tiny problems are
	// dominated by launch latency anyway.
	best, bestT := kernels.Strategy(""), min(tBlock-prm.SwitchMicros, 0.8*tBlock)
	if rowBytes >= prm.TwoReadSplitBytes && c.p.Outer*2 <= int64(c.d.SMs) && c.twoReadBlockRows() {
		// The model's block rate is a one-read block's (prm.TwoReadSplitBytes).
		bestT = math.Inf(1)
	}
	if tSplit < bestT {
		best, bestT = kernels.SplitRow, tSplit
	}
	if cs, ok := c.clusterSize(); ok && rowBytes <= prm.ClusterRowBytes {
		waves := max(1, rows*float64(cs)/sms)
		tCluster := prm.ClusterMicros + rowBytes/(float64(cs)*prm.BlockGBs*1e3)*waves
		if tCluster < bestT || best == "" && !c.bwd && rowBytes >= prm.ClusterOneWaveRowBytes && rows*float64(cs) <= sms {
			best = kernels.SplitCluster
		}
	}
	c.few, c.fewOK = best, true
	return best, true
}

// gridCaches reports whether split_grid should replace split_row (or a
// block per row that reads long rows twice): inputs of at least minBytes
// that the grid's shared memory caches (prm.GridCacheHalves) or in rows that fit
// a wave; ragged rows too, uncached (nvidia-h200-2026-11-22-ab-s31.txt §4).
func (c *ctx) gridCaches(minBytes int64) bool {
	if !c.vec() && !c.ragged() {
		return false
	}
	g, smemMax, err := c.splitGridGrid()
	in := c.p.Outer * c.p.Axis * c.es * c.nin
	return err == nil && in >= minBytes && (2*in <= prm.GridCacheHalves*g*smemMax || in/c.p.Outer <= c.splitGridWaveBytes(g, smemMax))
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
