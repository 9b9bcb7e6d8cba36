package plan

// Each strategy's build says whether it serves a problem and how, never which is preferred.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// check says why strategy s cannot serve the problem in any configuration.
func (c *ctx) check(s kernels.Strategy) error {
	in, ok := kernels.Lookup(string(s))
	switch {
	case !ok:
		return fmt.Errorf("unknown strategy %q", s)
	case len(in.Variants(c.bwd)) == 0:
		return fmt.Errorf("it has no %s kernels", c.direction())
	case !in.HasDType(c.p.DType):
		return fmt.Errorf("it has no %v kernels", c.p.DType)
	case in.RowsOnly && c.p.Inner != 1:
		return fmt.Errorf("it needs the softmax axis to be the last (Inner = 1, have %d)", c.p.Inner)
	case in.MinMajor > 0 && c.d.Major < in.MinMajor:
		return fmt.Errorf("it needs compute capability %d.0 or newer (device %d.%d)", in.MinMajor, c.d.Major, c.d.Minor)
	}
	return nil
}

// maxCols is the longest row strategy s's kernels hold for the op and dtype.
func (c *ctx) maxCols(s kernels.Strategy) int64 { return s.Info().MaxCols(c.p.Op, c.dt) }

func (c *ctx) direction() string {
	if c.bwd {
		return "backward"
	}
	return "forward"
}

// build plans strategy s for the problem, or says why it cannot.
func (c *ctx) build(s kernels.Strategy) (Plan, error) {
	if err := c.check(s); err != nil {
		return Plan{}, err
	}
	if _, ok := configLists[s]; c.config != "" && !ok {
		return Plan{}, fmt.Errorf("it has no launch configurations to choose from (%q; block_reg, warp_row and split_cluster have)", c.config)
	}
	pl, err := builders[s](c)
	if err != nil {
		return Plan{}, err
	}
	return c.finish(pl), nil
}

var builders = map[kernels.Strategy]func(*ctx) (Plan, error){
	kernels.Naive: (*ctx).naive, kernels.SmemTree: (*ctx).smemTree, kernels.BlockVec: (*ctx).blockVec,
	kernels.WarpRow: (*ctx).warpRow, kernels.BlockReg: (*ctx).blockReg, kernels.BlockHybrid: (*ctx).blockHybrid,
	kernels.BlockSmem: (*ctx).blockSmem, kernels.Online2Pass: (*ctx).online2Pass, kernels.SplitRow: (*ctx).splitRow,
	kernels.SplitCluster: (*ctx).splitCluster, kernels.SplitGrid: (*ctx).splitGrid, kernels.Strided: (*ctx).strided,
	kernels.StridedReg: (*ctx).stridedReg, kernels.StridedShort: (*ctx).stridedShort,
	kernels.StridedNarrow: (*ctx).stridedNarrow, kernels.StridedSmem: (*ctx).stridedSmem,
	kernels.FlatRows: (*ctx).flatRows, kernels.Persistent: (*ctx).persistent, kernels.Pipelined: (*ctx).pipelined,
}

// one plans one launch of s's variant: nt threads and smem bytes a block
// for each of items, capped at waves of resident blocks (0: none).
func (c *ctx) one(s kernels.Strategy, variant string, nt, smem, items, waves int64, vec bool, why string) (Plan, error) {
	file, sym, occ := s.Info().File, c.sym(s, variant), 0
	if smem > 0 {
		var err error
		if occ, err = c.fits(file, sym, int(nt), smem); err != nil {
			return Plan{}, err
		}
	} else if waves > 0 {
		occ = c.occupancy(file, sym, int(nt), 0)
	}
	grid := max(1, min(items, maxGridX))
	if waves > 0 {
		grid = min(grid, int64(max(occ, 1))*int64(c.d.SMs)*waves)
	}
	if occ > 0 {
		why += fmt.Sprintf(", %d blocks (%d an SM)", grid, occ)
	}
	l := Launch{Symbol: sym, Grid: block1(grid), Block: block1(nt), Smem: int(smem)}
	return Plan{Strategy: string(s), File: file, Launches: []Launch{l}, Vec: vec, Reason: why}, nil
}

func block1(n int64) [3]uint32 { return [3]uint32{uint32(n), 1, 1} }

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// threads is lo..hi threads (whole warps, or a power of two) for n units, about per a thread.
func threads(n, per, lo, hi int64, pow2 bool) int64 {
	if pow2 {
		return clamp(nextPow2(ceilDiv(n, per)), lo, hi)
	}
	return clamp(roundUp(ceilDiv(n, per), 32), lo, hi)
}

// packs is the number of 16-byte packs a row's span occupies.
func (c *ctx) packs() int64 { return ceilDiv(c.span(), c.P) }

// naive: one thread per slice, any layout (teaching baseline).
func (c *ctx) naive() (Plan, error) {
	return c.one(kernels.Naive, "", 128, 0, ceilDiv(c.p.Outer*c.p.Inner, 128), prm.GridWaves, false, "one thread per slice")
}

// smem_tree: block per row, power-of-two block, one float pair per thread.
func (c *ctx) smemTree() (Plan, error) {
	nt := threads(c.p.Axis, 8, 32, 512, true)
	smem := kernels.SmemBytes(kernels.SmemTree, c.p.Op, c.dt, c.p.Axis, int(nt))
	return c.one(kernels.SmemTree, "", nt, smem, c.p.Outer, prm.GridWaves, false, fmt.Sprintf("block per row, %d-thread shared-memory tree", nt))
}

// block_vec: block per row, about 4 packs per thread.
func (c *ctx) blockVec() (Plan, error) {
	nt := threads(c.packs(), 4, 128, 1024, true)
	return c.one(kernels.BlockVec, "", nt, 0, c.p.Outer, prm.GridWaves, c.vec(), fmt.Sprintf("block per row, %d threads, 16-byte loads", nt))
}

// staticSmem is a kernel's static shared memory (256 B if unknown).
func staticSmem(d Device, sym string) int {
	if _, s, ok := resourceTable(d).Kernel(sym); ok {
		return s
	}
	return 256
}

// fits returns the resident blocks per SM of a shared memory request, or why none.
func (c *ctx) fits(file, sym string, threads int, smem int64) (int, error) {
	if smem+int64(staticSmem(c.d, sym)) > int64(c.d.SmemOptin) {
		return 0, fmt.Errorf("it needs %d bytes of shared memory per block (+%d static), the device allows %d", smem, staticSmem(c.d, sym), c.d.SmemOptin)
	}
	n, why := estimate(c.d, sym, threads, int(smem)), "no block of %d threads with %d bytes of shared memory fits an SM"
	if c.occ != nil {
		if q, err := c.occ(file, sym, threads, int(smem)); err == nil {
			n, why = q, "the occupancy query gives no block of %d threads with %d bytes of shared memory an SM"
		}
	}
	if n <= 0 {
		return 0, fmt.Errorf(why, threads, smem)
	}
	return n, nil
}

// persistentMax is the longest row persistent's nt-thread bodies hold.
func (c *ctx) persistentMax(nt int64) int64 { return nt * (4 - 2*(c.nin-1)) * c.P }

// persistent: an occupancy-sized grid looping over rows (teaching kernel).
func (c *ctx) persistent() (Plan, error) {
	cols := c.p.Axis
	variant, nt, perBlock := "2pass", threads(c.packs(), 8, 128, 512, false), int64(1)
	switch {
	case cols <= c.persistentMax(32):
		variant, nt, perBlock = fmt.Sprintf("w32_p%d", nextPow2(ceilDiv(cols, 32*c.P))), 256, 8
	case cols <= c.persistentMax(512):
		np := nextPow2(ceilDiv(cols, 512*c.P))
		variant, nt = fmt.Sprintf("b_p%d", np), max(roundUp(ceilDiv(cols, np*c.P), 32), 32)
	}
	if _, ok := kernels.Persistent.Info().Variant(c.bwd, variant); !ok {
		return Plan{}, fmt.Errorf("no kernel %s", c.sym(kernels.Persistent, variant))
	}
	return c.one(kernels.Persistent, variant, nt, 0, ceilDiv(c.p.Outer, perBlock), 1, c.vec(), fmt.Sprintf("%s, %d threads", variant, nt))
}

// pipelined: workers (a warp or a block a row) stage their next rows
// through a two-slot cp.async ring (deeper measured slower).
func (c *ctx) pipelined() (Plan, error) {
	if !c.p.Aligned || c.p.Axis%c.P != 0 {
		return Plan{}, fmt.Errorf("it needs 16-byte aligned pointers and rows of whole 16-byte packs (cols %d, %d per pack): cp.async copies whole packs and it has no scalar path", c.p.Axis, c.P)
	}
	slot := c.p.Axis * c.es * c.nin
	variant, workers, nt := "b", int64(1), threads(c.packs(), 16, 128, 512, false)
	if c.packs() <= 32*prm.PipelinedWarpPacks {
		variant, workers = "w32", 16
	}
	optin := int64(c.d.SmemOptin) - int64(staticSmem(c.d, c.sym(kernels.Pipelined, variant)))
	for workers > 1 && workers*slot > optin {
		workers /= 2
	}
	if variant == "w32" {
		nt = 32 * workers
	}
	stages := min(optin/(workers*slot), 2)
	if stages < 1 {
		return Plan{}, fmt.Errorf("a ring slot of %d bytes does not fit the %d bytes of shared memory a block may use", slot, optin)
	}
	return c.one(kernels.Pipelined, variant, nt, stages*workers*slot, ceilDiv(c.p.Outer, workers), 1, true,
		fmt.Sprintf("%s, %d threads, %d-slot ring of %d bytes per worker", variant, nt, stages, slot))
}
