package kernels

// The variants of each strategy (its kernels, Info.Fwd and Info.Bwd) and the
// shape constants the planner shares with the .cu files.

import (
	"fmt"

	"github.com/gofused/softmax/internal/spec"
)

func warpRowVariants(backward bool) []Variant {
	var v []Variant
	for _, w := range []int{1, 2, 4, 8, 16} {
		v = append(v, Variant{Name: fmt.Sprintf("w%d_p1", w), Lanes: w, Packs: 1, MaxThreads: 128, FixedBlock: 128})
	}
	for _, w := range []int{1, 2, 4, 8, 16} {
		v = append(v, Variant{Name: fmt.Sprintf("w%d_p2", w), Lanes: w, Packs: 2, MaxThreads: 128, FixedBlock: 128})
	}
	if !backward {
		v = append(v, Variant{Name: "w4_p3", Lanes: 4, Packs: 3, MaxThreads: 128, FixedBlock: 128, MinValues: 24})
		for _, w := range []int{8, 16} {
			v = append(v, Variant{Name: fmt.Sprintf("w%d_p3", w), Lanes: w, Packs: 3, MaxThreads: 128, FixedBlock: 128})
		}
	}
	np := []int{1, 2, 4, 8}
	if backward {
		np = np[:3]
	}
	for _, p := range np {
		v = append(v, Variant{Name: fmt.Sprintf("w32_p%d", p), Lanes: 32, Packs: p, MaxThreads: 128, FixedBlock: 128})
	}
	return v
}

// blockRegVariants: forward kernels are compiled for one block size
// ("t64_p3": 64 threads × 3 packs), backward take any block size up to
// their launch bound.
func blockRegVariants(backward bool) []Variant {
	if backward {
		return []Variant{
			{Name: "p1", Packs: 1, MaxThreads: 1024},
			{Name: "p2", Packs: 2, MaxThreads: 1024},
			{Name: "p4", Packs: 4, MaxThreads: 512, ShiftMaxThreads: 384}, // f32 twin bound (384, 2): blockRegInstance
		}
	}
	// The planner takes the smallest block whose threads hold the row in
	// at most BlockRegValues values: 128 threads and more run 3 packs or
	// more, except for few rows, where it takes one pack a thread (or two
	// at 1024 threads). One-warp blocks exist only within BlockRegValues.
	var v []Variant
	for np := 1; np <= 8; np++ {
		v = append(v, Variant{Name: fmt.Sprintf("t32_p%d", np), Packs: np, MaxThreads: 32, FixedBlock: 32, MaxValues: BlockRegValues})
	}
	for _, nt := range []int{64, 128, 256, 512, 1024} {
		for np := 1; np <= 8; np++ {
			v = append(v, Variant{Name: fmt.Sprintf("t%d_p%d", nt, np), Packs: np, MaxThreads: nt, FixedBlock: nt})
		}
	}
	for np := 5; np <= 8; np++ {
		v = append(v, Variant{Name: fmt.Sprintf("t1024_p%d_tail", np), Packs: np, MaxThreads: 1024, FixedBlock: 1024, Tail: true})
	}
	for _, e := range blockRegExact {
		v = append(v, Variant{Name: fmt.Sprintf("t%d_p%d_exact", e[0], e[1]), Packs: e[1], MaxThreads: e[0], FixedBlock: e[0], Exact: true})
	}
	return v
}

// blockRegExact lists block_reg's "_exact" kernels as {threads, packs}.
var blockRegExact = [][2]int{{64, 2}, {64, 4}, {128, 4}, {128, 8}}

// blockHybridVariants: 512 or 1024 threads, each with BlockRegValues values
// in registers and 1..12 packs in shared memory.
func blockHybridVariants() []Variant {
	var v []Variant
	for _, nt := range BlockHybridThreads {
		for ns := 1; ns <= 12; ns++ {
			v = append(v, Variant{Name: fmt.Sprintf("t%d_s%d", nt, ns), MaxThreads: nt, FixedBlock: nt, SmemPacks: ns})
		}
	}
	return v
}

// blockHybridBwdVariants: 1024 threads, each with HybridRegValues(dt,
// true) values of y and of dy in registers and 0..6 packs of each in
// shared memory (192 KB at 6; s0 for rows that fill the registers
// exactly); whole packs only, no "_shift" twins.
func blockHybridBwdVariants() []Variant {
	var v []Variant
	for ns := 0; ns <= 6; ns++ {
		v = append(v, Variant{Name: fmt.Sprintf("t1024_s%d", ns), MaxThreads: 1024, FixedBlock: 1024, SmemPacks: ns, NoShift: true})
	}
	return v
}

// BlockHybridThreads are block_hybrid's block sizes, ascending.
var BlockHybridThreads = []int{512, 1024}

// HybridRegValues is how many values of each input a block_hybrid thread
// keeps in registers: BlockRegValues, but 16 doubles for f64 (8 packs,
// f32's registers; R in block_hybrid_kernel); backward, half of that of
// each of y and dy (RB in block_hybrid_bwd_kernel).
func HybridRegValues(dt spec.DType, backward bool) int64 {
	n := int64(BlockRegValues)
	if dt.Size() == 8 {
		n /= 2
	}
	if backward {
		n /= 2
	}
	return n
}

// BlockRegValues is the most floats a forward block_reg thread caches
// before the planner takes a larger block: 8 f32 packs or 4 f16/bf16 packs
// (beyond that the 16-bit kernels need more than 64 registers a thread).
const BlockRegValues = 32

func persistentVariants(backward bool) []Variant {
	np := []int{1, 2, 4}
	if backward {
		np = np[:2]
	}
	var v []Variant
	for _, p := range np {
		v = append(v, Variant{Name: fmt.Sprintf("w32_p%d", p), Lanes: 32, Packs: p, MaxThreads: 256})
	}
	for _, p := range np {
		v = append(v, Variant{Name: fmt.Sprintf("b_p%d", p), Packs: p, MaxThreads: 512})
	}
	return append(v, Variant{Name: "2pass", MaxThreads: 512})
}

// pipelinedVariants: a warp per row ("w32") or a block per row ("b"); the
// ring depth is not a variant, the host sets it through the shared memory.
func pipelinedVariants() []Variant {
	return []Variant{{Name: "w32", Lanes: 32, MaxThreads: 512}, {Name: "b", MaxThreads: 512}}
}

// stridedRegVariants: G = 8, 16 or 32 threads across a tile (G 16-byte packs
// of consecutive inner indices), each thread caching StridedRegPacks packs.
// The "_shift" twins (any Inner) take blocks of up to StridedRegShiftThreads.
func stridedRegVariants() []Variant {
	var v []Variant
	for _, g := range []int{8, 16, 32} {
		v = append(v, Variant{Name: fmt.Sprintf("g%d", g), MaxThreads: 1024, ShiftMaxThreads: StridedRegShiftThreads})
	}
	return v
}

// StridedRegShiftThreads is the largest block of strided_reg's "_shift"
// twins (two blocks an SM; see stridedRegInstance).
const StridedRegShiftThreads = 512

// stridedShortVariants: one kernel per axis length A ("a5": 5 rows) up to
// StridedShortLaneRows (forward; backward half), a lane holding a pack's
// worth of P slices along the whole axis; then one per row count H a lane
// for lane pairs ("p9": Lanes 2, axes of 2H-1 and 2H rows) up to twice
// that, and for four lanes ("q9": Lanes 4, axes 4H-3..4H) up to
// StridedShortMaxAxis. Every dtype has each (a thread holds at most 16 raw
// 16-byte packs; 16-bit tiles past 64 floats stay packed, ShortPacked in
// strided_short.cu).
func stridedShortVariants(backward bool) []Variant {
	rows := StridedShortLaneRows
	if backward {
		rows /= 2
	}
	var v []Variant
	for a := 2; a <= rows; a++ {
		v = append(v, Variant{Name: fmt.Sprintf("a%d", a), Packs: a, MaxThreads: 256})
	}
	for h := rows/2 + 1; h <= rows; h++ {
		v = append(v, Variant{Name: fmt.Sprintf("p%d", h), Lanes: 2, Packs: h, MaxThreads: 256})
	}
	for h := rows/2 + 1; 4*h <= stridedShortMaxAxis(backward); h++ {
		v = append(v, Variant{Name: fmt.Sprintf("q%d", h), Lanes: 4, Packs: h, MaxThreads: 256})
	}
	return v
}

// StridedShortVariant names strided_short's kernel for an axis of `axis`
// rows ("a5"; "p9" for 17 and 18 rows; "q9" for 33 to 36) and reports its
// lanes a slice; ok is false under 2 rows and past StridedShortMaxAxis.
func StridedShortVariant(axis int64, backward bool) (name string, lanes int64, ok bool) {
	rows := int64(StridedShortLaneRows)
	if backward {
		rows /= 2
	}
	switch {
	case axis < 2 || axis > int64(stridedShortMaxAxis(backward)):
		return "", 0, false
	case axis <= rows:
		return fmt.Sprintf("a%d", axis), 1, true
	case axis <= 2*rows:
		return fmt.Sprintf("p%d", (axis+1)/2), 2, true
	default:
		return fmt.Sprintf("q%d", (axis+3)/4), 4, true
	}
}

// StridedShortTwinSlices is the slices a strided_short "_shift" twin
// thread owns for an axis of a rows over `lanes` lanes a slice and op's
// inputs: 4, or 2 where 4 would hold more than 32 values (ShortTwinSlices
// in strided_short.cu).
func StridedShortTwinSlices(a, lanes int64, op spec.Op) int64 {
	if (a+lanes-1)/lanes*int64(NIn(op)) <= 8 {
		return 4
	}
	return 2
}

// StridedShortLaneRows is the most axis rows one strided_short lane holds
// forward (backward half): its one-lane kernels stop there, its lane pairs
// at twice it.
const StridedShortLaneRows = 16

// stridedShortMaxAxis is the longest axis strided_short has a kernel for:
// forward 48 rows (four lanes of 12; strided_reg takes axes from 48), backward
// 32 (four lanes of StridedShortLaneRows/2).
func stridedShortMaxAxis(backward bool) int {
	if backward {
		return 2 * StridedShortLaneRows
	}
	return 3 * StridedShortLaneRows
}

// stridedNarrowVariants: H = 1, 2, 4, 8 packs a thread, as long as a
// thread holds at most 64 floats (forward; 32 a tensor backward, which
// holds y and dy). Sixteen f32 packs spilled (see strided_narrow.cu).
func stridedNarrowVariants(backward bool) []Variant {
	maxValues := 64
	if backward {
		maxValues = 32
	}
	var v []Variant
	for h := 1; h <= 8; h *= 2 {
		v = append(v, Variant{Name: fmt.Sprintf("h%d", h), Packs: h, MaxThreads: StridedNarrowThreads,
			FixedBlock: StridedNarrowThreads, MaxValues: maxValues})
	}
	return v
}

// StridedNarrowThreads is strided_narrow's block size, and
// StridedNarrowMaxWarps the most warps sharing one outer index's block.
const (
	StridedNarrowThreads  = 256
	StridedNarrowMaxWarps = 8
)

// StridedNarrowInner reports whether strided_narrow takes an Inner of
// inner elements of dt: a power of two from 2 to 8 packs, so that it
// divides a warp's 32 packs and each thread's elements keep their columns.
func StridedNarrowInner(dt spec.DType, inner int64) bool {
	return inner >= 2 && inner <= 8*int64(Pack(dt)) && inner&(inner-1) == 0
}

// StridedNarrowShape returns the warps gw sharing an outer index's block
// of axis×inner elements and the packs h a thread holds: the fewest warps
// whose largest kernel holds the block, then the fewest packs (each a
// power of two); ok is false where Inner is not StridedNarrowInner or the
// block exceeds StridedNarrowMaxWarps warps of the largest kernel.
func StridedNarrowShape(op spec.Op, dt spec.DType, axis, inner int64) (gw, h int64, ok bool) {
	if !StridedNarrowInner(dt, inner) || axis < 1 {
		return 0, 0, false
	}
	maxH := int64(0)
	for _, v := range StridedNarrow.Info().Variants(op.Backward()) {
		if v.Serves(dt) {
			maxH = max(maxH, int64(v.Packs))
		}
	}
	P := int64(Pack(dt))
	packs := (axis*inner + P - 1) / P
	for gw = 1; gw <= StridedNarrowMaxWarps; gw *= 2 {
		if 32*gw*maxH >= packs {
			for h = 1; 32*gw*h < packs; h *= 2 {
			}
			return gw, h, true
		}
	}
	return 0, 0, false
}

// StridedRegPacks is the number of 16-byte packs a strided_reg thread
// caches: 32 f32 values held as floats, or 64 f16/bf16 values held packed.
const StridedRegPacks = 8

// StridedRegBwdPacks is the number of packs of y, and as many of dy, a
// strided_reg backward thread caches (raw, every dtype): the registers of
// the forward's StridedRegPacks, so a block holds half its axis rows.
const StridedRegBwdPacks = StridedRegPacks / 2

// StridedRegMaxCluster is the largest cluster strided_reg's kernels take
// for tiles of cols inner indices: each block keeps a slot for every
// block's partials of its tile in static shared memory (StridedRegShared
// in strided_reg.cu), and tiles of more than 128 columns (16-bit g32) fit
// only four blocks' beside the warps' partials.
func StridedRegMaxCluster(cols int64) int64 {
	if cols <= 128 {
		return 8
	}
	return 4
}

func one(name string, maxThreads int) []Variant {
	return []Variant{{Name: name, MaxThreads: maxThreads}}
}

func phases(a, b string, maxThreads int) []Variant {
	return []Variant{{Name: a, MaxThreads: maxThreads}, {Name: b, MaxThreads: maxThreads}}
}
