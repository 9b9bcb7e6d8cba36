package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gofused/softmax/internal/kernels"
)

// ConfigSep joins a strategy and a launch configuration: "block_reg/t512_p2".
const ConfigSep = "/"

// Configs lists the forced names ("block_reg/t256_p4") of strategy's launch
// configurations that serve p on d, for the autotuner; most strategies have none.
func Configs(p Problem, d Device, strategy string) ([]string, error) {
	c, err := newCtx(p, d, nil)
	if err != nil {
		return nil, err
	}
	s, err := kernels.ParseStrategy(strategy)
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	list, ok := configLists[s]
	if c.check(s) != nil || !ok {
		return nil, nil
	}
	var names []string
	for _, n := range list(c) {
		names = append(names, string(s)+ConfigSep+n)
	}
	return names, nil
}

// configLists lists each configurable strategy's configurations for the problem.
var configLists = map[kernels.Strategy]func(*ctx) []string{
	kernels.BlockReg:     (*ctx).blockRegConfigs,
	kernels.WarpRow:      (*ctx).warpRowConfigs,
	kernels.SplitCluster: (*ctx).splitClusterConfigs,
}

// noConfig refuses a forced configuration, naming those that serve.
func (c *ctx) noConfig(serve []string) error {
	if len(serve) == 0 {
		return fmt.Errorf("no configuration %q: no configuration of it serves this problem", c.config)
	}
	return fmt.Errorf("no configuration %q for this problem (configurations: %s)", c.config, strings.Join(serve, ", "))
}

// blockRegServes reports whether block_reg's variant v runs the problem, and its block size.
func (c *ctx) blockRegServes(v kernels.Variant) (nt int64, ok bool) {
	if c.bwd { // the block the row takes, within the launch bound (its twin's)
		n, limit := max(roundUp(ceilDiv(c.packs(), int64(v.Packs)), 32), 32), v.MaxThreads
		if c.shifts(kernels.BlockReg) && v.ShiftMaxThreads > 0 {
			limit = v.ShiftMaxThreads
		}
		return n, n <= int64(limit)
	}
	packs, nt := c.packs(), int64(v.FixedBlock)
	if c.ragged() && c.es == 2 && blockRegOverhang(v) {
		packs = ceilDiv(c.p.Axis, c.P)
	}
	switch {
	case v.Tail || !v.Serves(c.dt) || nt*int64(v.Packs) < packs:
		return 0, false
	case v.Exact:
		return nt, c.wholePacks() && c.es == 2 && nt*int64(v.Packs) == packs
	}
	return nt, !c.shifts(kernels.BlockReg) || kernels.BlockReg.Info().HasShiftTwin(v)
}

// blockRegConfigs names block_reg's configurations: backward, each that
// serves; forward, the fewest packs a thread per block size, and "_exact".
func (c *ctx) blockRegConfigs() []string {
	var names []string
	seen := map[int]bool{}
	for _, v := range kernels.BlockReg.Info().Variants(c.bwd) { // block sizes, then packs, ascending
		if _, ok := c.blockRegServes(v); !ok {
			continue
		}
		if !c.bwd && !v.Exact {
			if seen[v.FixedBlock] || int64(v.Packs)*c.P > kernels.BlockRegValues || int64(v.FixedBlock) > max(nextPow2(c.packs()), 32) {
				continue
			}
			seen[v.FixedBlock] = true
		}
		names = append(names, v.Name)
	}
	return names
}

// blockRegConfig returns the forced configuration's kernel (or its "_tail") and block size.
func (c *ctx) blockRegConfig() (kernels.Variant, int64, error) {
	v, ok := kernels.BlockReg.Info().Variant(c.bwd, c.config)
	nt := int64(0)
	if ok {
		nt, ok = c.blockRegServes(v)
	}
	if !ok {
		return v, 0, c.noConfig(c.blockRegConfigs())
	}
	if !c.bwd && !v.Exact {
		v = c.blockRegTail(v)
	}
	return v, nt, nil
}

// warpRowConfigs names warp_row's fewest packs a lane for each lane count.
func (c *ctx) warpRowConfigs() []string {
	best := map[int]kernels.Variant{}
	for _, v := range kernels.WarpRow.Info().Variants(c.bwd) {
		if !c.warpRowServes(v) || int64(v.Lanes) > nextPow2(ceilDiv(c.warpSpan(), c.P)) {
			continue
		}
		if b, ok := best[v.Lanes]; !ok || v.Packs < b.Packs {
			best[v.Lanes] = v
		}
	}
	var names []string
	for _, w := range slices.Sorted(maps.Keys(best)) {
		names = append(names, best[w].Name)
	}
	return names
}

// warpRowServes reports whether warp_row's variant v holds the row's span.
func (c *ctx) warpRowServes(v kernels.Variant) bool {
	return v.Serves(c.dt) && int64(v.Lanes*v.Packs)*c.P >= c.warpSpan()
}

// warpRowConfig returns the forced configuration's lanes a row and packs a lane.
func (c *ctx) warpRowConfig() (w, np int64, err error) {
	v, ok := kernels.WarpRow.Info().Variant(c.bwd, c.config)
	if !ok || !c.warpRowServes(v) {
		return 0, 0, c.noConfig(c.warpRowConfigs())
	}
	return int64(v.Lanes), int64(v.Packs), nil
}
