package plan

// Builds of a block a row: block_reg, block_hybrid, block_smem, online_2pass.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// blockRegShape picks block_reg's variant and block size.
func (c *ctx) blockRegShape() (v kernels.Variant, nt int64, err error) {
	in := kernels.BlockReg.Info()
	ok := false
	if c.bwd {
		if c.shape(kernels.BlockReg, c.packs(), func(x string) bool {
			v, nt, ok = c.blockRegRuntimeBlock(in.Variants(true), shapeArg(x, "threads"))
			return ok
		}) == "" {
			v, nt, ok = c.blockRegRuntimeBlock(in.Variants(true), 0)
		}
	} else {
		v, ok = c.blockRegFixedBlock(in)
		nt = int64(v.FixedBlock)
	}
	if !ok {
		return v, 0, fmt.Errorf("rows of %d elements exceed its register cache (%d)", c.p.Axis, in.MaxCols(c.p.Op, c.dt))
	}
	return v, nt, nil
}

// blockRegFixedBlock picks a forward kernel: the first variant whose block
// covers the row at <= kernels.BlockRegValues values a thread, else the
// first that covers it (spills; never automatic), then blockRegWide; whole
// packs ending inside the last take the "_tail" kernel (0.82 -> 0.93 of copy).
func (c *ctx) blockRegFixedBlock(in kernels.Info) (kernels.Variant, bool) {
	packs := c.packs()
	v, ok := c.blockRegFixedFor(in, packs)
	if !ok {
		return v, false
	}
	if c.ragged() && c.es == 2 {
		// sized by the row where the twin holds the span's overhang
		if w, ok := c.blockRegFixedFor(in, ceilDiv(c.p.Axis, c.P)); ok && blockRegOverhang(w) {
			v = w
		}
	}
	if ev, ok := c.blockRegExact(in, v); ok {
		return ev, true
	}
	return c.blockRegTail(v), true
}

// blockRegTail returns v's "_tail" kernel, where there is one, for a
// forward row of whole packs that ends inside v's last pack a thread.
func (c *ctx) blockRegTail(v kernels.Variant) kernels.Variant {
	packs, nt := c.packs(), int64(v.FixedBlock)
	if c.wholePacks() && packs > nt*int64(v.Packs-1) && packs < nt*int64(v.Packs) {
		if tv, ok := kernels.BlockReg.Info().Variant(false, v.Name+"_tail"); ok {
			return tv
		}
	}
	return v
}

// blockRegExact trades v for the "_exact" twin of as many packs as the row
// (16-bit forward rows from aligned pointers that fill v's four packs a
// thread) when its blocks fill more threads than v's resident blocks hold
// (nvidia-h200-2026-11-25-ab-s58.txt §2-4).
func (c *ctx) blockRegExact(in kernels.Info, v kernels.Variant) (kernels.Variant, bool) {
	packs := c.packs()
	if c.bwd || !c.wholePacks() || c.es != 2 || int64(v.FixedBlock*v.Packs) != packs || int64(v.Packs)*c.P != kernels.BlockRegValues {
		return v, false
	}
	for _, ev := range in.Variants(false) {
		if !ev.Exact || int64(ev.FixedBlock*ev.Packs) != packs {
			continue
		}
		blocks := c.occupancy("block_reg.cu", c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
		if c.p.Outer*int64(ev.FixedBlock) <= int64(blocks)*int64(v.FixedBlock)*int64(c.d.SMs) {
			return v, false
		}
		return ev, true
	}
	return v, false
}

// blockRegFixedFor is blockRegFixedBlock's pick for rows of the given
// packs, before the tail kernels: the table's shape rows' (few, wide) that
// serves, else the smallest block that holds the row.
func (c *ctx) blockRegFixedFor(in kernels.Info, packs int64) (kernels.Variant, bool) {
	small, ok := c.blockRegSmallest(in, packs)
	var v kernels.Variant
	if c.shape(kernels.BlockReg, packs, func(x string) bool {
		if n := shapeArg(x, "few"); n > 0 {
			var few bool
			v, few = c.blockRegFewRows(in, packs, n)
			return few
		}
		v = c.blockRegWide(in, small, shapeArg(x, "wide"))
		return ok && v.Name != small.Name
	}) != "" {
		return v, true
	}
	return small, ok
}

// blockRegOverhang reports a forward "_shift" twin that holds a ragged
// row's span past its block in thread 0 (block_reg.cu's OverhangPack), so
// that it is sized by the row (8192 f16 skewed: 256 × 4 packs, not 512 × 3).
func blockRegOverhang(v kernels.Variant) bool {
	return v.Packs >= 2 && v.Packs <= 5 && !(v.FixedBlock == 1024 && v.Packs == 5)
}

// blockRegSmallest is blockRegFixedBlock's default pick before the tail kernels:
// the smallest block holding the row in <= kernels.BlockRegValues values a
// thread, else the first that holds it at all.
func (c *ctx) blockRegSmallest(in kernels.Info, packs int64) (kernels.Variant, bool) {
	var spill kernels.Variant
	for _, cand := range in.Variants(false) {
		if cand.Tail || cand.Exact || !cand.Serves(c.dt) || int64(cand.FixedBlock*cand.Packs) < packs {
			continue
		}
		if int64(cand.Packs)*c.P <= kernels.BlockRegValues {
			return cand, true
		}
		if spill.Name == "" {
			spill = cand
		}
	}
	return spill, spill.Name != ""
}

// blockRegWide trades the default f32 pick of 256 threads × 6..8 packs
// for 512 threads × 3..4 packs (kernels bounded to three blocks an SM)
// when the occupancy query says that keeps more threads resident and the
// rows make at least waves waves of the wide blocks (shape.block_reg.wide).
func (c *ctx) blockRegWide(in kernels.Info, v kernels.Variant, waves int64) kernels.Variant {
	if waves <= 0 || v.FixedBlock != 256 || v.Packs < 6 {
		return v
	}
	const nt = 512
	w, ok := in.Variant(false, fmt.Sprintf("t%d_p%d", nt, ceilDiv(c.packs(), nt)))
	if !ok {
		return v
	}
	blocks := func(v kernels.Variant) int {
		return c.occupancy("block_reg.cu", c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
	}
	nw := blocks(w)
	if nw*nt > blocks(v)*v.FixedBlock && c.p.Outer >= waves*int64(nw)*int64(c.d.SMs) {
		return w
	}
	return v
}

// blockRegFewRows picks the forward kernel for few rows whose blocks are
// all resident at once, where a block's time is its latency: one pack a
// thread up to maxThreads (the table's shape.block_reg.few row).
func (c *ctx) blockRegFewRows(in kernels.Info, packs, maxThreads int64) (kernels.Variant, bool) {
	nt, np := max(nextPow2(packs), 64), int64(1)
	if nt > maxThreads {
		nt, np = maxThreads, ceilDiv(packs, maxThreads)
	}
	if np*c.P > kernels.BlockRegValues || c.p.Outer*nt > int64(c.d.SMs)*1024 {
		return kernels.Variant{}, false
	}
	return in.Variant(false, fmt.Sprintf("t%d_p%d", nt, np))
}

// blockRegRuntimeBlock picks a backward kernel (run-time block size): the
// largest NP whose block has >= minThreads threads (rows too short for
// that: the smallest NP), within each variant's launch bound.
func (c *ctx) blockRegRuntimeBlock(vs []kernels.Variant, minThreads int64) (v kernels.Variant, nt int64, ok bool) {
	for _, cand := range vs { // packs ascending
		if n, fits := c.blockRegBwdThreads(cand); fits && (!ok || n >= minThreads) {
			v, nt, ok = cand, n, true
		}
	}
	return v, nt, ok
}

// blockRegBwdThreads is backward variant v's block for the row, ok within
// its launch bound (its twin's, for rows read through the twins).
func (c *ctx) blockRegBwdThreads(v kernels.Variant) (int64, bool) {
	n := max(roundUp(ceilDiv(c.packs(), int64(v.Packs)), 32), 32)
	limit := v.MaxThreads
	if c.shifts(kernels.BlockReg) && v.ShiftMaxThreads > 0 {
		limit = v.ShiftMaxThreads
	}
	return n, n <= int64(limit)
}

// block_reg: a block per row holding the row in registers, one block per
// row (the kernel grid-strides only past the grid limit).
func (c *ctx) blockReg() (Plan, error) {
	shape := c.blockRegShape
	if c.config != "" {
		shape = c.blockRegConfig
	}
	v, nt, err := shape()
	if err != nil {
		return Plan{}, err
	}
	sym := c.sym(kernels.BlockReg, v.Name)
	grid := max(1, min(c.p.Outer, maxGridX))
	return c.plan1(kernels.BlockReg, c.vec(), Launch{Symbol: sym, Grid: block1(grid), Block: block1(nt)},
		fmt.Sprintf("%d threads × %d packs per row, a block per row", nt, v.Packs)), nil
}

// hybridVariant returns the block_hybrid kernel of nt threads that holds
// the row, if one does: the row must overfill the block's registers
// (kernels.BlockRegValues a thread) and fit its largest shared part (a
// ragged row's span, in the "_shift" twins).
func (c *ctx) hybridVariant(nt int) (kernels.Variant, bool) {
	regs := int64(nt) * kernels.HybridRegValues(c.dt)
	if c.p.Axis <= regs {
		return kernels.Variant{}, false
	}
	ns := ceilDiv(c.span()-regs, int64(nt)*c.P)
	return kernels.BlockHybrid.Info().Variant(false, fmt.Sprintf("t%d_s%d", nt, ns))
}

// blockHybridVariant picks block_hybrid's kernel: 512 threads (two rows
// per SM) when they hold the row, 1024 for longer rows; with fewer rows
// than SMs every row has an SM to itself, so the larger block that holds
// the row is taken.
func (c *ctx) blockHybridVariant() (kernels.Variant, error) {
	few := c.p.Outer < int64(c.d.SMs)
	var v kernels.Variant
	for _, nt := range kernels.BlockHybridThreads {
		if cand, ok := c.hybridVariant(nt); ok {
			v = cand
			if !few {
				break
			}
		}
	}
	if v.Name == "" {
		lo := int64(kernels.BlockHybridThreads[0]) * kernels.HybridRegValues(c.dt)
		if c.p.Axis <= lo {
			return v, fmt.Errorf("rows of %d elements fit its registers alone (%d): block_reg holds them", c.p.Axis, lo)
		}
		return v, fmt.Errorf("rows of %d elements exceed its cache (%d)", c.p.Axis, kernels.BlockHybrid.Info().MaxCols(c.p.Op, c.dt))
	}
	return v, nil
}

// block_hybrid: a block per row, kernels.BlockRegValues values a thread in
// registers and the rest of the row in shared memory (SmemPacks 16-byte
// packs a thread).
func (c *ctx) blockHybrid() (Plan, error) {
	if !(c.wholePacks()) && !c.ragged() {
		return Plan{}, fmt.Errorf("it needs rows of whole 16-byte packs from aligned pointers, or rows its twins read from their pack boundary (cols %d, %d per pack): cp.async copies whole packs", c.p.Axis, c.P)
	}
	v, err := c.blockHybridVariant()
	if err != nil {
		return Plan{}, err
	}
	nt, sym, smem, occ, err := c.hybridFits(v)
	if err != nil {
		return Plan{}, err
	}
	grid := max(1, min(c.p.Outer, maxGridX))
	return c.plan1(kernels.BlockHybrid, true, Launch{Symbol: sym, Grid: block1(grid), Block: block1(int64(nt)), Smem: int(smem)},
		fmt.Sprintf("%d threads × %d values in registers + %d packs in %d bytes of shared memory per row, %d blocks/SM", nt, kernels.HybridRegValues(c.dt), v.SmemPacks, smem, occ)), nil
}

// hybridFits returns block_hybrid variant v's block size, symbol, dynamic
// shared memory (SmemPacks 16-byte packs a thread) and resident blocks per
// SM (fits).
func (c *ctx) hybridFits(v kernels.Variant) (nt int, sym string, smem int64, perSM int, err error) {
	nt, sym = v.FixedBlock, c.sym(kernels.BlockHybrid, v.Name)
	smem = int64(v.SmemPacks * nt * 16)
	perSM, err = c.fits(kernels.BlockHybrid.Info().File, sym, nt, smem)
	return nt, sym, smem, perSM, err
}

// block_smem: the row (backward: y and dy) cached in dynamic shared memory.
func (c *ctx) blockSmem() (Plan, error) {
	nt, sym, smem := c.blockSmemShape()
	occ, err := c.fits("block_smem.cu", sym, int(nt), smem)
	if err != nil {
		return Plan{}, err
	}
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.BlockSmem, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt), Smem: int(smem)},
		fmt.Sprintf("%d threads, %d bytes of shared memory per row, %d blocks/SM", nt, smem, occ)), nil
}

// blockSmemShape is block_smem's threads, symbol and dynamic shared memory.
func (c *ctx) blockSmemShape() (int64, string, int64) {
	nt := clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512)
	return nt, c.sym(kernels.BlockSmem, ""), kernels.SmemBytes(kernels.BlockSmem, c.p.Op, c.dt, c.p.Axis, int(nt))
}

// blockSmemOccupancy is the resident block_smem blocks per SM for the problem.
func (c *ctx) blockSmemOccupancy() (int, error) {
	nt, sym, smem := c.blockSmemShape()
	return c.fits("block_smem.cu", sym, int(nt), smem)
}

// online_2pass: a block per row, any length.
func (c *ctx) online2Pass() (Plan, error) {
	nt := clamp(roundUp(ceilDiv(c.packs(), 8), 32), 128, 512)
	sym := c.sym(kernels.Online2Pass, "")
	occ := c.occupancy("online_2pass.cu", sym, int(nt), 0)
	grid := c.capGrid(c.p.Outer, occ, gridWaves, maxGridX)
	return c.plan1(kernels.Online2Pass, c.vec(), Launch{Symbol: sym, Grid: block1(int64(grid)), Block: block1(nt)},
		fmt.Sprintf("%d threads per row", nt)), nil
}
