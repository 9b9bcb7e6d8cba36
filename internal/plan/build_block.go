package plan

// Builds of a block a row: block_reg, block_hybrid, block_smem, online_2pass.

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// block_reg: a block per row holding it in registers.
func (c *ctx) blockReg() (Plan, error) {
	shape := c.blockRegShape
	if c.config != "" {
		shape = c.blockRegConfig
	}
	v, nt, err := shape()
	if err != nil {
		return Plan{}, err
	}
	return c.one(kernels.BlockReg, v.Name, nt, 0, c.p.Outer, 0, c.vec(), fmt.Sprintf("%d threads × %d packs per row, a block per row", nt, v.Packs))
}

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

// blockRegFixedBlock picks a forward kernel, then its "_exact" or "_tail" twin.
func (c *ctx) blockRegFixedBlock(in kernels.Info) (kernels.Variant, bool) {
	v, ok := c.blockRegFixedFor(in, c.packs())
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

// blockRegTail returns v's "_tail" kernel for a row of whole packs ending
// inside v's last pack a thread (0.82 -> 0.93 of copy).
func (c *ctx) blockRegTail(v kernels.Variant) kernels.Variant {
	packs, nt := c.packs(), int64(v.FixedBlock)
	if c.wholePacks() && packs > nt*int64(v.Packs-1) && packs < nt*int64(v.Packs) {
		if tv, ok := kernels.BlockReg.Info().Variant(false, v.Name+"_tail"); ok {
			return tv
		}
	}
	return v
}

// blockRegExact trades v for its "_exact" twin on 16-bit rows that fill v
// when the rows' blocks overfill v's resident threads.
func (c *ctx) blockRegExact(in kernels.Info, v kernels.Variant) (kernels.Variant, bool) {
	packs := c.packs()
	if c.bwd || !c.wholePacks() || c.es != 2 || int64(v.FixedBlock*v.Packs) != packs || int64(v.Packs)*c.P != kernels.BlockRegValues {
		return v, false
	}
	for _, ev := range in.Variants(false) {
		if ev.Exact && int64(ev.FixedBlock*ev.Packs) == packs {
			blocks := c.occupancy(in.File, c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
			return ev, c.p.Outer*int64(ev.FixedBlock) > int64(blocks)*int64(v.FixedBlock)*int64(c.d.SMs)
		}
	}
	return v, false
}

// blockRegFixedFor picks a forward kernel for rows of packs: the table's
// shape (few, wide) that serves, else the smallest that holds them.
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

// blockRegOverhang reports a forward twin sized by the row: thread 0 holds
// the span's overhang (block_reg.cu's OverhangPack).
func blockRegOverhang(v kernels.Variant) bool {
	return v.Packs >= 2 && v.Packs <= 5 && !(v.FixedBlock == 1024 && v.Packs == 5)
}

// blockRegSmallest is the smallest block holding the row in BlockRegValues a thread, else the first.
func (c *ctx) blockRegSmallest(in kernels.Info, packs int64) (kernels.Variant, bool) {
	var spill kernels.Variant
	for _, v := range in.Variants(false) {
		if v.Tail || v.Exact || !v.Serves(c.dt) || int64(v.FixedBlock*v.Packs) < packs {
			continue
		}
		if int64(v.Packs)*c.P <= kernels.BlockRegValues {
			return v, true
		}
		if spill.Name == "" {
			spill = v
		}
	}
	return spill, spill.Name != ""
}

// blockRegWide trades 256 threads × 6..8 packs for 512 × 3..4 where more
// threads stay resident and the rows make waves waves of them.
func (c *ctx) blockRegWide(in kernels.Info, v kernels.Variant, waves int64) kernels.Variant {
	if waves <= 0 || v.FixedBlock != 256 || v.Packs < 6 {
		return v
	}
	w, ok := in.Variant(false, fmt.Sprintf("t512_p%d", ceilDiv(c.packs(), 512)))
	if !ok {
		return v
	}
	blocks := func(v kernels.Variant) int {
		return c.occupancy(in.File, c.sym(kernels.BlockReg, v.Name), v.FixedBlock, 0)
	}
	if nw := blocks(w); nw*512 > blocks(v)*v.FixedBlock && c.p.Outer >= waves*int64(nw)*int64(c.d.SMs) {
		return w
	}
	return v
}

// blockRegFewRows: one pack a thread up to maxThreads, all blocks resident.
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

// blockRegRuntimeBlock picks the most packs a thread that leave minThreads threads (else the fewest).
func (c *ctx) blockRegRuntimeBlock(vs []kernels.Variant, minThreads int64) (v kernels.Variant, nt int64, ok bool) {
	for _, cand := range vs { // packs ascending
		if n, fits := c.blockRegServes(cand); fits && (!ok || n >= minThreads) {
			v, nt, ok = cand, n, true
		}
	}
	return v, nt, ok
}

// hybridVariant is the nt-thread block_hybrid kernel for the row's span.
func (c *ctx) hybridVariant(nt int) (kernels.Variant, bool) {
	regs := int64(nt) * kernels.HybridRegValues(c.dt, false)
	if c.p.Axis <= regs {
		return kernels.Variant{}, false
	}
	return kernels.BlockHybrid.Info().Variant(false, fmt.Sprintf("t%d_s%d", nt, ceilDiv(c.span()-regs, int64(nt)*c.P)))
}

// block_hybrid: a block per row, HybridRegValues a thread (backward: of y and
// of dy) in registers, the rest in shared memory; forward 512 threads where
// they hold the row (fewer rows than SMs: 1024), backward 1024 on whole packs.
func (c *ctx) blockHybrid() (Plan, error) {
	var v kernels.Variant
	regs := kernels.HybridRegValues(c.dt, c.bwd)
	switch lo := int64(kernels.BlockHybridThreads[0]) * regs; {
	case c.bwd && !c.wholePacks():
		return Plan{}, fmt.Errorf("its backward kernels need rows of whole 16-byte packs from aligned pointers (cols %d, %d per pack)", c.p.Axis, c.P)
	case !c.wholePacks() && !c.ragged():
		return Plan{}, fmt.Errorf("it needs rows of whole 16-byte packs from aligned pointers, or rows its twins read from their pack boundary (cols %d, %d per pack): cp.async copies whole packs", c.p.Axis, c.P)
	case c.bwd && c.p.Axis < 1024*regs:
		return Plan{}, fmt.Errorf("rows of %d elements leave its register part (%d) unfilled", c.p.Axis, 1024*regs)
	case c.bwd:
		v, _ = kernels.BlockHybrid.Info().Variant(true, fmt.Sprintf("t1024_s%d", ceilDiv(c.p.Axis-1024*regs, 1024*c.P)))
	case c.p.Axis <= lo:
		return Plan{}, fmt.Errorf("rows of %d elements fit its registers alone (%d): block_reg holds them", c.p.Axis, lo)
	default:
		for _, nt := range kernels.BlockHybridThreads {
			if cand, ok := c.hybridVariant(nt); ok && (v.Name == "" || c.p.Outer < int64(c.d.SMs)) {
				v = cand
			}
		}
	}
	if v.Name == "" {
		return Plan{}, fmt.Errorf("rows of %d elements exceed its cache (%d)", c.p.Axis, c.maxCols(kernels.BlockHybrid))
	}
	of, each := "", ""
	if c.bwd {
		of, each = " of y and of dy", " of each"
	}
	return c.one(kernels.BlockHybrid, v.Name, int64(v.FixedBlock), int64(v.SmemPacks*v.FixedBlock*16)*c.nin, c.p.Outer, 0, true,
		fmt.Sprintf("%d threads × %d values%s in registers + %d packs%s in shared memory per row", v.FixedBlock, regs, of, v.SmemPacks, each))
}

// block_smem: the row (backward: y and dy) cached in dynamic shared memory.
func (c *ctx) blockSmem() (Plan, error) {
	nt, smem := c.blockSmemShape()
	return c.one(kernels.BlockSmem, "", nt, smem, c.p.Outer, prm.GridWaves, c.vec(), fmt.Sprintf("%d threads, %d bytes of shared memory per row", nt, smem))
}

func (c *ctx) blockSmemShape() (nt, smem int64) {
	nt = threads(c.packs(), 8, 128, 512, false)
	return nt, kernels.SmemBytes(kernels.BlockSmem, c.p.Op, c.dt, c.p.Axis, int(nt))
}

// blockSmemOccupancy is block_smem's resident blocks per SM.
func (c *ctx) blockSmemOccupancy() (int, error) {
	nt, smem := c.blockSmemShape()
	return c.fits(kernels.BlockSmem.Info().File, c.sym(kernels.BlockSmem, ""), int(nt), smem)
}

// online_2pass: a block per row, any length.
func (c *ctx) online2Pass() (Plan, error) {
	nt := threads(c.packs(), 8, 128, 512, false)
	return c.one(kernels.Online2Pass, "", nt, 0, c.p.Outer, prm.GridWaves, c.vec(), fmt.Sprintf("%d threads per row", nt))
}
