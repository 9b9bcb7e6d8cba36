package main

// Session 71's change to the 16-bit forward kernels: the AVX-512 bfloat16
// exp pass (exp2SumBF16) and normalizing pass that takes the next row's max
// (normalizeMaxBF16Cvt) load bfloat16 by one VPERMW (permBF16) instead of
// VPMOVZXWD and VPSLLD. The rows are bound by their vector ops on Zen 4:
// the exp pass of a bfloat16 row of 4096 in L1 went from 539 to 482 ns
// (BenchmarkFwd16, fastest of 10).

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// permIdx is VPERMW's index of permBF16: word 2j+1 takes word j.
var permIdx Mem

// emitFwd16s71 emits this file's data, before the kernels that use it.
func emitFwd16s71() {
	permIdx = GLOBL("permbf16", RODATA|NOPTR)
	for j := 0; j < 32; j++ {
		DATA(2*j, U16(j/2))
	}
}

// permBF16 loads 16 bfloat16 values as float32 in two ops, a 32-byte load
// and VPERMW with a zeroing mask that puts word j in the high half of dword
// j: the bits of the float32. Its index and mask live in registers.
type permBF16 struct {
	idx reg.VecVirtual
	k   reg.OpmaskVirtual
}

// newPermBF16 emits the loads of permBF16's index and mask, or returns nil
// without perm.
func (g *gen) newPermBF16(perm bool) *permBF16 {
	if !perm {
		return nil
	}
	p := &permBF16{idx: g.vec(), k: K()}
	VMOVDQU16(permIdx, p.idx)
	t := GP32()
	MOVL(U32(0xaaaaaaaa), t)
	KMOVD(t, p.k)
	return p
}

// load16P is load16, by pl where it is not nil (bfloat16 only).
func (g *gen) load16P(pl *permBF16, base reg.GPVirtual, k int, bf bool) reg.VecVirtual {
	if pl == nil {
		return g.load16(base, k, bf)
	}
	y, r := YMM(), g.vec()
	VMOVDQU16(g.at(base, k, 2), y)
	VPERMW_Z(y.AsZ(), pl.idx, pl.k, r)
	return r
}
