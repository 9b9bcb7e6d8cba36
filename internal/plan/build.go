package plan

// Feasibility: each strategy's build says whether it serves a problem and
// with which launches (build_*.go by family); none asks which is preferred.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// check says why strategy s cannot serve the problem, if it cannot
// whatever its configuration.
func (c *ctx) check(s kernels.Strategy) error {
	in, ok := kernels.Lookup(string(s))
	if !ok {
		return fmt.Errorf("unknown strategy %q", s)
	}
	if len(in.Variants(c.bwd)) == 0 {
		return fmt.Errorf("it has no %s kernels", c.direction())
	}
	if !in.HasDType(c.p.DType) {
		return fmt.Errorf("it has no %v kernels", c.p.DType)
	}
	if in.RowsOnly && c.p.Inner != 1 {
		return fmt.Errorf("it needs the softmax axis to be the last (Inner = 1, have %d)", c.p.Inner)
	}
	if in.MinMajor > 0 && c.d.Major < in.MinMajor {
		return fmt.Errorf("it needs compute capability %d.0 or newer (device %d.%d)", in.MinMajor, c.d.Major, c.d.Minor)
	}
	return nil
}

// direction names the problem's kernels' direction in errors.
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
		return Plan{}, fmt.Errorf("it has no launch configurations to choose from (%q; block_reg and warp_row have)", c.config)
	}
	if b, ok := builders[s]; ok {
		return b(c)
	}
	return Plan{}, fmt.Errorf("no planner for %q", s)
}

// builders are the strategies' builds.
var builders = map[kernels.Strategy]func(*ctx) (Plan, error){
	kernels.Naive: (*ctx).naive, kernels.SmemTree: (*ctx).smemTree, kernels.BlockVec: (*ctx).blockVec,
	kernels.WarpRow: (*ctx).warpRow, kernels.BlockReg: (*ctx).blockReg, kernels.BlockHybrid: (*ctx).blockHybrid,
	kernels.BlockSmem: (*ctx).blockSmem, kernels.Online2Pass: (*ctx).online2Pass, kernels.SplitRow: (*ctx).splitRow,
	kernels.SplitCluster: (*ctx).splitCluster, kernels.SplitGrid: (*ctx).splitGrid, kernels.Strided: (*ctx).strided,
	kernels.StridedReg: (*ctx).stridedReg, kernels.StridedShort: (*ctx).stridedShort,
	kernels.StridedNarrow: (*ctx).stridedNarrow, kernels.StridedSmem: (*ctx).stridedSmem,
	kernels.FlatRows: (*ctx).flatRows, kernels.Persistent: (*ctx).persistent, kernels.Pipelined: (*ctx).pipelined,
}

func block1(n int64) [3]uint32 { return [3]uint32{uint32(n), 1, 1} }

func clamp(v, lo, hi int64) int64 { return max(lo, min(v, hi)) }

// packs is the number of 16-byte packs a row occupies (span: a ragged row
// read from the pack boundary before it may take one more).
func (c *ctx) packs() int64 { return ceilDiv(c.span(), c.P) }

// naive: one thread per slice, any layout.
func (c *ctx) naive() (Plan, error) {
	const nt = 128
	sym := c.sym(kernels.Naive, "")
	slices := c.p.Outer * c.p.Inner
	occ := c.occupancy("naive.cu", sym, nt, 0)
	grid := c.capGrid(ceilDiv(slices, nt), occ, gridWaves, maxGridX)
	return c.plan1(kernels.Naive, false, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		"one thread per slice (teaching baseline)"), nil
}

// smem_tree: block per row, power-of-two block, one float pair per thread.
func (c *ctx) smemTree() (Plan, error) {
	nt := clamp(nextPow2(ceilDiv(c.p.Axis, 8)), 32, 512)
	sym := c.sym(kernels.SmemTree, "")
	smem := int(kernels.SmemBytes(kernels.SmemTree, c.p.Op, c.dt, c.p.Axis, int(nt)))
	occ := c.occupancy("smem_tree.cu", sym, int(nt), smem)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.SmemTree, false, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: smem},
		fmt.Sprintf("block per row, %d-thread shared-memory tree", nt)), nil
}

// block_vec: block per row, about 4 packs per thread.
func (c *ctx) blockVec() (Plan, error) {
	nt := clamp(nextPow2(ceilDiv(c.packs(), 4)), 128, 1024)
	sym := c.sym(kernels.BlockVec, "")
	occ := c.occupancy("block_vec.cu", sym, int(nt), 0)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.BlockVec, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("block per row, %d threads, 16-byte loads", nt)), nil
}

// staticSmem is a kernel's static shared memory (256 B if unknown).
func staticSmem(d Device, sym string) int {
	if _, s, ok := resourceTable(d).Kernel(sym); ok {
		return s
	}
	return 256
}

// fits checks a dynamic shared memory request against the device and the
// occupancy query; it returns the resident blocks per SM.
func (c *ctx) fits(file, sym string, threads int, smem int64) (int, error) {
	if smem+int64(staticSmem(c.d, sym)) > int64(c.d.SmemOptin) {
		return 0, fmt.Errorf("it needs %d bytes of shared memory per block (+%d static), the device allows %d", smem, staticSmem(c.d, sym), c.d.SmemOptin)
	}
	if c.occ != nil {
		if n, err := c.occ(file, sym, threads, int(smem)); err == nil {
			if n <= 0 {
				return 0, fmt.Errorf("the occupancy query gives 0 blocks per SM for %d threads and %d bytes of shared memory", threads, smem)
			}
			return n, nil
		}
	}
	n := estimate(c.d, sym, threads, int(smem))
	if n <= 0 {
		return 0, fmt.Errorf("no block of %d threads with %d bytes of shared memory fits an SM", threads, smem)
	}
	return n, nil
}

// persistentMax is the longest row the persistent register-cached bodies
// of nt threads (32: a warp; 512: a block) hold: 4 packs a thread (2 backward).
func (c *ctx) persistentMax(nt int64) int64 {
	return nt * (4 - 2*int64(kernels.NIn(c.p.Op)-1)) * c.P
}

// persistent: an occupancy-sized grid looping over rows; a warp per row for
// short rows, a block per row with register caching for moderate rows, the
// online two-pass body beyond.
func (c *ctx) persistent() (Plan, error) {
	cols, rows := c.p.Axis, c.p.Outer
	var variant string
	var nt, perBlock int64
	switch {
	case cols <= c.persistentMax(32):
		np := nextPow2(ceilDiv(cols, 32*c.P))
		variant, nt, perBlock = fmt.Sprintf("w32_p%d", np), 256, 8
	case cols <= c.persistentMax(512):
		var np int64
		for _, p := range []int64{1, 2, 4} {
			if 512*p*c.P >= cols {
				np = p
				break
			}
		}
		variant, nt, perBlock = fmt.Sprintf("b_p%d", np), max(roundUp(ceilDiv(cols, np*c.P), 32), 32), 1
	default:
		variant, nt, perBlock = "2pass", clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512), 1
	}
	sym := c.sym(kernels.Persistent, variant)
	if _, ok := kernels.Persistent.Info().Variant(c.bwd, variant); !ok {
		return Plan{}, fmt.Errorf("no kernel %s", sym)
	}
	occ := c.occupancy("persistent.cu", sym, int(nt), 0)
	grid := c.capGrid(ceilDiv(rows, perBlock), occ, 1, maxGridX)
	return c.plan1(kernels.Persistent, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("%s, %d threads, %d blocks (%d per SM)", variant, nt, grid, occ)), nil
}

// pipelined: an occupancy-sized grid whose workers stage their next rows
// through a ring of cp.async slots: a warp a row up to pipelinedWarpPacks
// packs a lane, else a block; two slots when they fit (deeper rings cost
// resident blocks and measured no faster: 4096x4096 f32 49.6 vs 52.7 µs).
func (c *ctx) pipelined() (Plan, error) {
	cols, rows := c.p.Axis, c.p.Outer
	if !c.p.Aligned || cols%c.P != 0 {
		return Plan{}, fmt.Errorf("it needs 16-byte aligned pointers and rows of whole 16-byte packs (cols %d, %d per pack): cp.async copies whole packs and it has no scalar path", cols, c.P)
	}
	slot := cols * c.es * c.nin
	warp := c.packs() <= 32*pipelinedWarpPacks
	variant := "b"
	if warp {
		variant = "w32"
	}
	sym := c.sym(kernels.Pipelined, variant)
	optin := int64(c.d.SmemOptin) - int64(staticSmem(c.d, sym))
	workers, nt := int64(1), clamp(roundUp(ceilDiv(c.packs(), 16), 32), 128, 512)
	if warp {
		workers = 16
		for workers > 1 && workers*slot > optin {
			workers /= 2
		}
		nt = 32 * workers
	}
	stages := min(optin/(workers*slot), 2)
	if stages < 1 {
		return Plan{}, fmt.Errorf("a ring slot of %d bytes does not fit the %d bytes of shared memory a block may use", slot, optin)
	}
	smem := stages * workers * slot
	occ, err := c.fits(kernels.Pipelined.Info().File, sym, int(nt), smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(ceilDiv(rows, workers), occ, 1, maxGridX)
	return c.plan1(kernels.Pipelined, true, Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: int(smem)},
		fmt.Sprintf("%s, %d threads, %d-slot ring of %d bytes per worker, %d blocks (%d per SM)", variant, nt, stages, slot, grid, occ)), nil
}
