package plan

import (
	"cmp"
	"math"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
)

// condFunc evaluates a named condition with the row's arguments.
type condFunc func(c *ctx, args []int64) bool

type namedCond struct {
	args int
	fn   condFunc
	doc  string
}

// conditions are the named conditions a row may ask for (init: they read the table).
var conditions map[string]namedCond

func init() {
	conditions = map[string]namedCond{
		// Non-last axes.
		"smem_fits": {1, func(c *ctx, a []int64) bool { return c.stridedSmemFits(a[0]) },
			"strided_smem's tiles number at least the SMs and fit at least k blocks an SM"},
		"narrow_shape": {0, func(c *ctx, _ []int64) bool { _, ok := c.narrowWarps(); return ok },
			"strided_narrow has a kernel for the outer blocks (Axis×Inner)"},
		"narrow_warps": {1, func(c *ctx, a []int64) bool { gw, ok := c.narrowWarps(); return ok && gw <= a[0] },
			"strided_narrow's group for an outer index has at most k warps"},
		"narrow_one_warp": {1, func(c *ctx, a []int64) bool {
			gw, ok := c.narrowWarps()
			return ok && gw == 1 && ceilDiv(c.p.Axis*c.p.Inner, c.P) >= a[0]
		}, "one warp an outer index, a block of at least k 16-byte packs"},
		"short_kernel": {0, func(c *ctx, _ []int64) bool { _, _, ok := c.stridedShortVariant(); return ok },
			"strided_short has a kernel for the axis and dtype"},
		"inner_tiles": {1, func(c *ctx, a []int64) bool { return c.innerPacks() && c.p.Inner%(a[0]*c.P) == 0 },
			"Inner is whole tiles of k 16-byte packs"},
		"reg_fills": {1, func(c *ctx, a []int64) bool {
			k, _, g, _, err := c.stridedRegShape(false)
			return err == nil && 100*c.p.Outer*ceilDiv(c.p.Inner, g*c.P)*k >= a[0]*int64(c.d.SMs)
		}, "strided_reg's blocks (unpaired clusters) number at least k% of the SMs"},

		"slices": {2, func(c *ctx, a []int64) bool {
			n := c.p.Outer * c.p.Inner
			return n >= a[0] && n <= a[1]
		}, "Outer × Inner slices from a to b"},

		// Rows.
		"few_ragged_block": {1, func(c *ctx, a []int64) bool {
			return c.ragged() && !c.vec() && 2*c.p.Outer >= int64(c.d.SMs) && c.p.Axis*c.es <= a[0]
		}, "ragged or skewed rows, at least half as many as SMs, of at most k bytes an input"},
		"two_read": {0, func(c *ctx, _ []int64) bool { return c.twoReadBlockRows() },
			"a block per row would read the row twice (no strategy before online_2pass holds it)"},
		"grid_few_blocks": {2, func(c *ctx, a []int64) bool {
			g, _, err := c.splitGridGrid()
			if err != nil || c.p.Outer > g {
				return false
			}
			split := g / c.p.Outer
			return split <= a[0] && 1000*split*c.p.Outer >= a[1]*g
		}, "split_grid gives each row at most a blocks and keeps b‰ of its grid busy"},
		"cluster_shape": {0, func(c *ctx, _ []int64) bool {
			_, _, _, _, ok := c.clusterShape()
			return ok && c.check(kernels.SplitCluster) == nil
		}, "split_cluster has a cluster for the row on the device"},
		"clusters_hold_rows": {2, func(c *ctx, a []int64) bool { return c.clustersHoldRows(a[0], a[1]) },
			"every row's cluster is resident at once, and rows ≤ SMs × (row bytes − a) / b where b > 0"},
		"hybrid_holds": {1, func(c *ctx, a []int64) bool { _, ok := c.hybridVariant(int(a[0])); return ok },
			"block_hybrid has a k-thread kernel for the row"},
		"packed_rows": {0, func(c *ctx, _ []int64) bool { return c.wholePacks() || c.ragged() },
			"rows of whole 16-byte packs, or ragged ones its twins read (whole_packs or twin_rows)"},
		"block_reg_one_wave": {0, func(c *ctx, _ []int64) bool {
			return c.ragged() && c.p.Outer == int64(c.d.SMs) && c.regime("block_reg")
		}, "ragged rows, one an SM, that block_reg's rows take"},
		"fills_block_reg": {0, func(c *ctx, _ []int64) bool { return c.p.Axis == c.maxCols(kernels.BlockReg) },
			"the row is exactly the longest block_reg holds"},
		"block_reg_deep": {2, func(c *ctx, a []int64) bool {
			return c.p.Axis > a[0] && c.p.Outer >= a[1]*int64(c.d.SMs) && c.regime("block_reg")
		}, "block_reg's rows, over a columns, from b rows an SM"},
		"past_hybrid": {1, func(c *ctx, a []int64) bool {
			_, ok := c.hybridVariant(int(a[0]))
			return !ok && c.p.Axis > a[0]*kernels.HybridRegValues(c.dt, false)
		}, "the row is past block_hybrid's k-thread blocks"},
		"hybrid_fill_under": {1, func(c *ctx, a []int64) bool {
			v, ok := c.hybridVariant(512)
			if !ok {
				return false
			}
			perSM, err := c.fits(kernels.BlockHybrid.Info().File, c.sym(kernels.BlockHybrid, v.Name), v.FixedBlock, int64(v.SmemPacks*v.FixedBlock*16))
			return err == nil && fillsUnder(c.p.Outer, int64(perSM)*int64(c.d.SMs), a[0])
		}, "block_hybrid's 512-thread blocks would fill at most k% of the slots of their waves"},
		"grid_fill_under": {1, func(c *ctx, a []int64) bool {
			g, _, err := c.splitGridGrid()
			return err == nil && fillsUnder(c.p.Outer, g, a[0])
		}, "split_grid's one-block rows would fill at most k% of its grid over their waves"},
		"flat_conflicts": {1, func(c *ctx, a []int64) bool {
			w, _, ok := c.flatRowsLanes()
			return ok && flatRowsConflicts(c.p.Axis, w, c.es) <= a[0]
		}, "flat_rows' width reads shared memory with at most k-way bank conflicts"},
		"twin_rows": {0, func(c *ctx, _ []int64) bool { return c.ragged() },
			"ragged or skewed rows of at least 16 packs, read through the _shift twins"},
		"span_bytes_over": {1, func(c *ctx, a []int64) bool { return c.span()*c.es > a[0] },
			"the row's span (ragged rows: from the pack boundary before it) is over k bytes"},
		"span_packs": {1, func(c *ctx, a []int64) bool { return ceilDiv(c.span(), c.P) <= a[0] },
			"the row's span is at most k 16-byte packs"},
		"block_reg_holds": {0, func(c *ctx, _ []int64) bool { return c.span() <= c.maxCols(kernels.BlockReg) },
			"block_reg's register cache holds the row's span"},
		"warp_holds": {0, func(c *ctx, _ []int64) bool { return c.span() <= c.maxCols(kernels.WarpRow) },
			"warp_row's register cache holds the row's span"},
		"whole_packs": {0, func(c *ctx, _ []int64) bool { return c.wholePacks() },
			"rows of whole 16-byte packs on the vector path"},
		"block_reg_bwd": {0, func(c *ctx, _ []int64) bool {
			return c.span() > c.maxCols(kernels.WarpRow) && c.span() <= c.maxCols(kernels.BlockReg)
		}, "backward rows past warp_row's that block_reg's registers hold"},
		"cluster_size": {0, func(c *ctx, _ []int64) bool { _, ok := c.clusterSize(); return ok },
			"a cluster of the device's size holds the row (split_cluster)"},
		"grid_caches": {1, func(c *ctx, a []int64) bool { return c.gridCaches(a[0]) },
			"split_grid caches the inputs (at least k bytes) in the grid's shared memory"},
		"lane_packs": {2, func(c *ctx, a []int64) bool { return c.lanePacks >= a[0] && c.lanePacks <= a[1] },
			"(launch shapes) the row's span is a to b 16-byte packs"},
		"values_over": {1, func(c *ctx, a []int64) bool { return c.lanePacks*c.P > a[0] },
			"(launch shapes) the row's packs hold over k elements"},
		"span_crosses": {0, func(c *ctx, _ []int64) bool { return nextPow2(c.lanePacks) > nextPow2(ceilDiv(c.p.Axis, c.P)) },
			"(launch shapes) the span takes a power of two more packs than the row"},
		"block_smem_blocks": {1, func(c *ctx, a []int64) bool {
			occ, err := c.blockSmemOccupancy()
			return err == nil && int64(occ) >= a[0]
		}, "block_smem's row copy leaves at least k blocks an SM"},
	}
	for name, group := range map[string]string{"few_grid": "few.grid", "hybrid_first": "block_hybrid", "grid_many_long_rows": "grid.many_long", "block_reg_rows": "block_reg"} {
		conditions[name] = namedCond{0, func(c *ctx, _ []int64) bool { return c.regime(group) }, "one of the table's " + group + " rows matches"}
	}
	for name, pick := range map[string]kernels.Strategy{"model_block": "", "model_split_row": kernels.SplitRow, "model_split_cluster": kernels.SplitCluster} {
		conditions[name] = namedCond{0, func(c *ctx, _ []int64) bool { s, ok := c.fewModel(); return ok && s == pick },
			"the few-rows bandwidth model (rows < SMs) picks " + cmp.Or(string(pick), "a block per row")}
	}
}

// Conditions returns each named condition, with its arguments, and what it says.
func Conditions() map[string]string {
	out := map[string]string{}
	for name, nc := range conditions {
		args := [...]string{"", "(k)", "(a,b)"}[nc.args]
		out[name+args] = nc.doc
	}
	return out
}

// regime reports whether a table row with id group (or group.*) matches.
func (c *ctx) regime(group string) bool {
	for i := range c.table.Rows {
		r := &c.table.Rows[i]
		if (r.ID == group || strings.HasPrefix(r.ID, group+".")) && c.matches(r) {
			return true
		}
	}
	return false
}

// fillsUnder reports whether rows in waves of slots fill at most pct% of them.
func fillsUnder(rows, slots, pct int64) bool {
	return slots > 0 && 100*rows <= pct*ceilDiv(rows, slots)*slots
}

// clustersHoldRows reports all rows' clusters resident at once and, for
// span > 0, rows ≤ SMs × (row bytes − base) / span.
func (c *ctx) clustersHoldRows(base, span int64) bool {
	cs, _, nt, smem, ok := c.clusterShape()
	if !ok {
		return false
	}
	file, sym := kernels.SplitCluster.Info().File, c.sym(kernels.SplitCluster, "")
	limit := int64(0) // resident clusters: the query's answer, else an estimate
	if perSM, err := c.fits(file, sym, int(nt), smem); err == nil {
		limit = int64(perSM) * int64(c.d.SMs) * prm.ClusterPackNum / (prm.ClusterPackDen * cs)
		if c.clusters != nil {
			if n, err := c.clusters(file, sym, int(nt), int(smem), int(cs)); err == nil && n > 0 {
				limit = int64(n)
			}
		}
	}
	if span > 0 {
		limit = min(limit, int64(c.d.SMs)*(c.p.Axis*c.es-base)/span)
	}
	return c.p.Outer <= limit
}

// narrowWarps returns strided_narrow's warps an outer index.
func (c *ctx) narrowWarps() (int64, bool) {
	gw, _, ok := kernels.StridedNarrowShape(c.p.Op, c.dt, c.p.Axis, c.p.Inner)
	return int64(gw), ok
}

// stridedSmemFits: strided_smem serves, its tiles fill the SMs, k blocks an SM.
func (c *ctx) stridedSmemFits(k int64) bool {
	if err := c.check(kernels.StridedSmem); err != nil {
		return false
	}
	nt, tile, _, smem := c.stridedSmemShape()
	if ceilDiv(c.p.Outer, tile) < int64(c.d.SMs) {
		return false
	}
	occ, err := c.fits(kernels.StridedSmem.Info().File, c.sym(kernels.StridedSmem, c.stridedSmemVariant(tile)), int(nt), smem)
	return err == nil && int64(occ) >= k
}

// fewModel is the few-rows bandwidth model (rows < SMs, else ok false): a
// block per row (""), split_row or split_cluster, whichever it models cheapest.
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
	// A split must clearly win: the model is rough, tiny problems launch-bound.
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

// gridCaches reports inputs of at least minBytes that split_grid's shared
// memory caches, or in rows that fit a wave (ragged rows too).
func (c *ctx) gridCaches(minBytes int64) bool {
	if !c.vec() && !c.ragged() {
		return false
	}
	g, smemMax, err := c.splitGridGrid()
	in := c.p.Outer * c.p.Axis * c.es * c.nin
	return err == nil && in >= minBytes && (2*in <= prm.GridCacheHalves*g*smemMax || in/c.p.Outer <= c.splitGridWaveBytes(g, smemMax))
}

// twoReadBlockRows reports rows no register- or shared-memory-cached block holds.
func (c *ctx) twoReadBlockRows() bool {
	switch {
	case c.p.Axis <= c.maxCols(kernels.WarpRow):
		return false
	case c.bwd:
		return !c.regime("block_reg")
	case c.regime("block_reg") || c.regime("block_hybrid"):
		return false
	}
	if occ, err := c.blockSmemOccupancy(); err == nil && occ >= 2 {
		return false
	}
	_, err := c.pipelined()
	return c.es != 4 || err != nil
}

// stridedShortVariant names strided_short's kernel for the axis and its lanes a slice.
func (c *ctx) stridedShortVariant() (string, int64, bool) {
	name, lanes, ok := kernels.StridedShortVariant(c.p.Axis, c.bwd)
	if !ok {
		return "", 0, false
	}
	v, ok := kernels.StridedShort.Info().Variant(c.bwd, name)
	return name, lanes, ok && v.Serves(c.dt)
}
