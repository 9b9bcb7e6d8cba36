package kernels

import (
	"fmt"
	"strings"

	"github.com/gofused/softmax/internal/spec"
)

// Strategy names a kernel family: one .cu file, compiled as one NVRTC module
// per dtype.
type Strategy string

// The strategies, from the teaching baseline to the specialised ones.
const (
	Naive         Strategy = "naive"          // one thread per slice, any layout
	SmemTree      Strategy = "smem_tree"      // block per row, shared-memory tree reduction
	BlockVec      Strategy = "block_vec"      // block per row, 16-byte loads, exp to y then normalize in place
	WarpRow       Strategy = "warp_row"       // 1..32 lanes per row, row in registers (short rows)
	BlockReg      Strategy = "block_reg"      // block per row, row in registers
	BlockHybrid   Strategy = "block_hybrid"   // block per row, row split between registers and shared memory
	BlockSmem     Strategy = "block_smem"     // block per row, row in dynamic shared memory
	Online2Pass   Strategy = "online_2pass"   // block per row, online (m,d), second read from L2
	SplitRow      Strategy = "split_row"      // blocks per row chunk, partials in a workspace, 2 launches
	SplitCluster  Strategy = "split_cluster"  // a thread-block cluster per row, distributed shared memory (sm_90)
	SplitGrid     Strategy = "split_grid"     // rows over every SM in one launch, chunks cached in shared memory across a barrier of each row's blocks
	Strided       Strategy = "strided"        // softmax along a non-last axis, optional split along it
	StridedReg    Strategy = "strided_reg"    // non-last axis, slices cached in registers across a cluster, one read
	StridedShort  Strategy = "strided_short"  // short non-last axis: a thread holds its slices' whole axis in registers, one read
	StridedNarrow Strategy = "strided_narrow" // non-last axis of a narrow Inner: warps read each outer index's contiguous block, one read
	StridedSmem   Strategy = "strided_smem"   // non-last axis: each outer index's Axis×Inner block staged in shared memory, one read
	FlatRows      Strategy = "flat_rows"      // short rows of any length: tiles of consecutive rows staged in shared memory as one run of packs
	Persistent    Strategy = "persistent"     // occupancy-sized grid looping over rows, prefetching the next
	Pipelined     Strategy = "pipelined"      // occupancy-sized grid, rows staged through a cp.async shared-memory ring
)

// Variant is one kernel of a strategy for one direction. Its symbol is
// <strategy>_<fwd|bwd>_<dtype>[_<Name>], an extern "C" name.
type Variant struct {
	// Name is the symbol suffix after the dtype, "" for none: "w32_p4"
	// (lanes per row and packs per lane), "p2" (packs per thread),
	// "phase1"/"phase2", "split1"/"split2", "b_p2", "2pass", "g16" (threads
	// across a strided_reg tile).
	Name string
	// Lanes is the number of threads sharing one row for sub-warp and warp
	// bodies (warp_row, persistent w32); 0 when a whole block owns a row.
	Lanes int
	// Packs is the number of 16-byte packs each thread caches in registers
	// (register-cached bodies); 0 for streaming bodies. A register-cached
	// kernel serves rows of up to threads*Packs*(16/esize) elements, threads
	// being Lanes, or the block size when Lanes is 0; a strided_short kernel
	// serves an axis of exactly Packs rows (a pack's worth of slices a row),
	// or with Lanes L > 1 one of L·(Packs-1)+1 .. L·Packs rows.
	Packs int
	// MaxThreads is the kernel's __launch_bounds__ block-size limit.
	MaxThreads int
	// ShiftMaxThreads is the most threads the planner gives its "_shift"
	// twins where that differs (0: MaxThreads): at most every dtype's twin's
	// __launch_bounds__ (block_reg's backward p4: f32's is 384, the 16-bit
	// ones keep 512).
	ShiftMaxThreads int
	// FixedBlock is the block size the kernel is written for (0: any
	// multiple of 32 up to MaxThreads, or see the strategy's contract).
	FixedBlock int
	// Tail marks a forward block_reg kernel for rows of whole packs that
	// fill every pack but the last (it serves any row; the planner takes
	// it only for those).
	Tail bool
	// Exact marks a forward block_reg kernel for 16-bit rows of exactly
	// FixedBlock × Packs packs from aligned pointers, and no other row
	// (block_reg.cu's "_exact" kernels).
	Exact bool
	// NoShift marks a variant without a "_shift" twin in a strategy that
	// has them (block_hybrid's backward kernels: whole packs only).
	NoShift bool
	// SmemPacks is the number of 16-byte packs each thread caches in
	// dynamic shared memory beside its register packs (block_hybrid, whose
	// threads hold BlockRegValues values in registers whatever the dtype).
	SmemPacks int
	// MaxValues, when set, limits the variant to the dtypes whose threads
	// then cache at most that many values (Packs × the dtype's pack); the
	// others have no kernel of it (block_reg's one-warp blocks, whose
	// 16-bit kernels would spill past four packs within their 64
	// registers).
	MaxValues int
	// MinValues, when set, limits the variant to the dtypes whose threads
	// then cache at least that many values (warp_row's w4_p3, 16-bit only:
	// on f32 rows it ran as often behind two packs a lane as ahead).
	MinValues int
}

// Serves reports whether the variant has a kernel for dt (given that its
// strategy has kernels for dt at all: Info.HasDType).
func (v Variant) Serves(dt spec.DType) bool {
	n := v.Packs * Pack(dt)
	return (v.MaxValues == 0 || n <= v.MaxValues) && n >= v.MinValues && (!v.Exact || dt.Size() == 2)
}

// Info describes a strategy: its source, its kernels and its needs.
type Info struct {
	Strategy Strategy
	File     string // the .cu source in this package (under teaching/ when Teaching); NVRTC's program name
	Summary  string
	Fwd      []Variant // forward kernels (softmax and log_softmax, scale fused)
	Bwd      []Variant // backward kernels (both gradients); nil: no backward
	// RowsOnly: the kernels need Inner == 1 (contiguous rows); the others
	// take any Outer × Axis × Inner layout.
	RowsOnly bool
	// Workspace: the plan needs a float workspace (Params.WS).
	Workspace bool
	// Cluster: launched with a thread-block cluster dimension (cuLaunchKernelEx).
	Cluster bool
	// Cooperative: the kernels' blocks wait for one another (Params.Bar),
	// so they are launched with CU_LAUNCH_ATTRIBUTE_COOPERATIVE, which makes
	// the driver refuse a grid whose blocks could not all be resident.
	Cooperative bool
	// DynSmem: takes dynamic shared memory, possibly above 48 KB (the host
	// raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first).
	DynSmem bool
	// MinMajor is the lowest compute capability major that runs the kernels.
	MinMajor int
	// PlainBuild: plain softmax launches (forward, scale 1, not log) take a
	// module of their own (Source's plain, SMX_PLAIN in ops.cuh), where
	// it measured faster: block_reg and split_grid, 1-2% on H200
	// (bench/results/nvidia-h200-2026-11-22-ab-s24.txt); warp_row, 2-10%
	// on f32 and packed 16-bit rows, except 16-bit rows read element by
	// element, which keep the general build (plan.Plan.General;
	// -ab-s40.txt). strided_reg, whose plain build spilled more and ran 5%
	// slower, flat_rows, whose plain build gained 0.8% over 22 ragged-row
	// specs (0.98-1.02x; -ab-s43.txt §7) for three more modules to compile,
	// and the strategies not measured keep one build.
	PlainBuild bool
	// Teaching: a teaching kernel (teachingCatalogue; source under
	// teaching/): forceable with --algo, never a candidate of the planner.
	Teaching bool
	// F64: the strategy has float64 kernels (f64 storage, double math);
	// the others serve f32, f16 and bf16 only. The f64 kernels hold the
	// f32 ones' registers a pack (two doubles), half the elements.
	F64 bool
	// Shift: every variant but the tail and exact kernels has a twin
	// (HasShiftTwin), symbol suffix ShiftSuffix, for ragged rows (16-byte
	// aligned pointers, cols not a multiple of the pack, Params.Vec =
	// VecShift): each row is read from the 16-byte boundary at or before its
	// start, so whole packs move 16 bytes at a time instead of element by
	// element (cached_row, row_2pass and block_smem in bodies.cuh). strided's
	// twins serve a non-last axis whose Inner is not a multiple of the pack (or
	// unaligned pointers): each thread takes P slices TX apart, so a tile moves
	// as many bytes a step as with 16-byte packs; strided_short's, 2-4 slices
	// 32 apart. Separate kernels, so that the aligned ones keep their code and
	// registers.
	Shift bool
}

// HasDType reports whether the strategy has kernels for dt: every strategy
// for f32, f16 and bf16, those marked F64 for float64.
func (in Info) HasDType(dt spec.DType) bool {
	if dt == spec.Float64 {
		return in.F64
	}
	return dt.Valid()
}

// HasShiftTwin reports whether variant v of the strategy has a ragged-row
// twin (Shift): the tail and exact kernels serve whole-pack rows only.
func (in Info) HasShiftTwin(v Variant) bool { return in.Shift && !v.Tail && !v.Exact && !v.NoShift }

// ShiftSuffix ends the symbol of a ragged-row twin (Info.Shift):
// block_reg_fwd_f32_t256_p4_shift, online_2pass_fwd_f16_shift.
const ShiftSuffix = "_shift"

// Params.Vec values: VecOff takes every element alone, VecOn 16-byte
// packs (aligned pointers, every row on a pack boundary), VecShift the
// ragged-row twins' packs (Info.Shift).
const (
	VecOff   = 0
	VecOn    = 1
	VecShift = 2
)

// HasPlainBuild reports whether the strategy in file has a plain-softmax
// build (Info.PlainBuild). The host asks it on every launch, so it is a
// set lookup rather than a scan of the catalogue.
func HasPlainBuild(file string) bool { return plainBuildFiles[file] }

var plainBuildFiles = func() map[string]bool {
	m := map[string]bool{}
	for _, in := range catalogue {
		if in.PlainBuild {
			m[in.File] = true
		}
	}
	return m
}()

// catalogue lists the teaching kernels first, then the production set.
var catalogue = append(append([]Info{}, teachingCatalogue...), productionCatalogue...)

// teachingCatalogue: the seeds' steps from one thread a slice to a
// prefetching persistent grid, kept runnable (--algo) and tested, their
// sources under teaching/. The planner's own choices come from Production.
var teachingCatalogue = []Info{
	{Strategy: Naive, File: "naive.cu", Teaching: true, Summary: "one thread per slice, three scalar sweeps (teaching baseline)",
		Fwd: one("", 1024), Bwd: one("", 1024)},
	{Strategy: SmemTree, File: "smem_tree.cu", Teaching: true, Summary: "block per row, shared-memory tree reduction",
		Fwd: one("", 1024), Bwd: one("", 1024), RowsOnly: true, DynSmem: true},
	{Strategy: BlockVec, File: "block_vec.cu", Teaching: true, Summary: "block per row, 16-byte loads, exp written to y then normalized in place",
		Fwd: one("", 1024), RowsOnly: true},
	{Strategy: Persistent, File: "persistent.cu", Teaching: true, Summary: "occupancy-sized grid looping over rows, next row prefetched into registers",
		Fwd: persistentVariants(false), Bwd: persistentVariants(true), RowsOnly: true},
}

// productionCatalogue: the strategies the planner chooses among.
var productionCatalogue = []Info{
	{Strategy: WarpRow, File: "warp_row.cu", Summary: "1-32 lanes per row, row cached in registers (short rows)",
		Fwd: warpRowVariants(false), Bwd: warpRowVariants(true), RowsOnly: true, PlainBuild: true, Shift: true, F64: true},
	{Strategy: BlockReg, File: "block_reg.cu", Summary: "block per row, row cached in registers, one read",
		Fwd: blockRegVariants(false), Bwd: blockRegVariants(true), RowsOnly: true, PlainBuild: true, Shift: true, F64: true},
	{Strategy: BlockHybrid, File: "block_hybrid.cu", Summary: "block per row, row cached in registers and dynamic shared memory (cp.async), one read",
		Fwd: blockHybridVariants(), Bwd: blockHybridBwdVariants(), RowsOnly: true, DynSmem: true, MinMajor: 8, Shift: true, F64: true},
	{Strategy: BlockSmem, File: "block_smem.cu", Summary: "block per row, row cached in dynamic shared memory, one read",
		Fwd: one("", 512), Bwd: one("", 512), RowsOnly: true, DynSmem: true, Shift: true, F64: true},
	{Strategy: Online2Pass, File: "online_2pass.cu", Summary: "block per row, online (m,d) then a second read from L2",
		Fwd: one("", 512), Bwd: one("", 512), RowsOnly: true, Shift: true, F64: true},
	{Strategy: SplitRow, File: "split_row.cu", Summary: "several blocks per row, (m,d) partials in a workspace, two launches",
		Fwd: phases("phase1", "phase2", 512), Bwd: phases("phase1", "phase2", 512), RowsOnly: true, Workspace: true, F64: true},
	{Strategy: SplitCluster, File: "split_cluster.cu", Summary: "a thread-block cluster per row, chunks in shared memory, partials over DSMEM",
		Fwd: one("", 1024), Bwd: one("", 1024), RowsOnly: true, Cluster: true, DynSmem: true, MinMajor: 9, F64: true},
	{Strategy: SplitGrid, File: "split_grid.cu", Summary: "rows over every SM in one launch, chunks cached in shared memory, partials merged after a barrier of the row's blocks",
		Fwd: splitGridVariants(), Bwd: splitGridVariants(), RowsOnly: true, Workspace: true, DynSmem: true, Cooperative: true, MinMajor: 7,
		PlainBuild: true, F64: true},
	{Strategy: Strided, File: "strided.cu", Summary: "non-last axis: coalesced across inner, online (m,d) along the axis",
		Fwd: []Variant{{Name: "", MaxThreads: 256}, {Name: "split1", MaxThreads: 256}, {Name: "split2", MaxThreads: 256}},
		Bwd: []Variant{{Name: "", MaxThreads: 256}, {Name: "split1", MaxThreads: 256}, {Name: "split2", MaxThreads: 256}}, Shift: true, F64: true},
	{Strategy: StridedReg, File: "strided_reg.cu", Summary: "non-last axis: tiles cached in registers, split along the axis over a cluster (DSMEM), one read",
		Fwd: stridedRegVariants(), Bwd: stridedRegVariants(), Shift: true},
	{Strategy: StridedShort, File: "strided_short.cu", Summary: "short non-last axis (2-48 rows, backward 2-32): a thread, or past 16 rows 2 or 4 lanes, hold P slices' whole axis in registers, one read, no barrier",
		Fwd: stridedShortVariants(false), Bwd: stridedShortVariants(true), Shift: true, F64: true},
	{Strategy: StridedNarrow, File: "strided_narrow.cu", Summary: "non-last axis of a narrow Inner (a power of two up to 8 packs): a warp or a few read each outer index's Axis×Inner block as one run of packs, held in registers, one read",
		Fwd: stridedNarrowVariants(false), Bwd: stridedNarrowVariants(true), Shift: true, F64: true},
	{Strategy: StridedSmem, File: "strided_smem.cu", Summary: "non-last axis, any Inner: a block stages each outer index's Axis×Inner block in shared memory (cp.async), reduces its columns there and writes it as one run of packs, one read",
		Fwd: stridedSmemVariants(), Bwd: stridedSmemVariants(), DynSmem: true, MinMajor: 8, F64: true},
	{Strategy: FlatRows, File: "flat_rows.cu", Summary: "short rows of any length: a block stages a tile of consecutive rows in shared memory as one run of 16-byte packs (cp.async), reduces each row there in a group of lanes and stores the tile as one run of packs, one read",
		Fwd: flatRowsVariants(), Bwd: flatRowsVariants(), RowsOnly: true, DynSmem: true, MinMajor: 8},
	{Strategy: Pipelined, File: "pipelined.cu", Summary: "occupancy-sized grid, next rows staged by cp.async into a shared-memory ring, one read",
		Fwd: pipelinedVariants(), Bwd: pipelinedVariants(), RowsOnly: true, DynSmem: true, MinMajor: 8},
}

// Production returns the production strategies (every one but the teaching
// kernels), the only candidates of the planner's table, in catalogue order.
func Production() []Info {
	return append([]Info{}, productionCatalogue...)
}

// All returns every strategy's description, in catalogue order.
func All() []Info {
	out := make([]Info, len(catalogue))
	copy(out, catalogue)
	return out
}

// Strategies returns the strategy names in catalogue order.
func Strategies() []Strategy {
	out := make([]Strategy, len(catalogue))
	for i, in := range catalogue {
		out[i] = in.Strategy
	}
	return out
}

// Lookup returns the description of the named strategy.
func Lookup(name string) (Info, bool) {
	for _, in := range catalogue {
		if string(in.Strategy) == name {
			return in, true
		}
	}
	return Info{}, false
}

// Info returns s's description (the zero Info for an unknown name).
func (s Strategy) Info() Info {
	in, _ := Lookup(string(s))
	return in
}

// Symbol returns the kernel name of strategy s for dtype dt, direction and
// variant suffix ("" for none).
func Symbol(s Strategy, dt spec.DType, backward bool, variant string) string {
	dir := "fwd"
	if backward {
		dir = "bwd"
	}
	name := string(s) + "_" + dir + "_" + dt.String()
	if variant != "" {
		name += "_" + variant
	}
	return name
}

// splitGridVariants: the one-wave kernel and the wave loop ("waves").
func splitGridVariants() []Variant {
	return []Variant{{Name: "", MaxThreads: 1024}, {Name: "waves", MaxThreads: 1024}}
}

// Variants returns the kernels of one direction (nil when the strategy has
// none for it).
func (in Info) Variants(backward bool) []Variant {
	if backward {
		return in.Bwd
	}
	return in.Fwd
}

// Variant returns the named variant of one direction.
func (in Info) Variant(backward bool, name string) (Variant, bool) {
	for _, v := range in.Variants(backward) {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Symbols returns every kernel symbol of the strategy for dt, forward first,
// each variant followed by its ragged-row twin (Info.Shift) but the tail
// kernels' (block_reg's "_tail" serve whole packs only).
func (in Info) Symbols(dt spec.DType) []string {
	var out []string
	if !in.HasDType(dt) {
		return nil
	}
	for _, bwd := range []bool{false, true} {
		for _, v := range in.Variants(bwd) {
			if v.Serves(dt) {
				sym := Symbol(in.Strategy, dt, bwd, v.Name)
				out = append(out, sym)
				if in.HasShiftTwin(v) {
					out = append(out, sym+ShiftSuffix)
				}
			}
		}
	}
	return out
}

// NIn is the number of input tensors a kernel of op reads (and caches).
func NIn(op spec.Op) int {
	if op.Backward() {
		return 2
	}
	return 1
}

// Pack is the number of elements of dt in one 16-byte vector.
func Pack(dt spec.DType) int { return 16 / dt.Size() }

// MaxCols returns the longest row the strategy's kernels can hold for op and
// dt regardless of the device (register-cached bodies), or 0 when the
// length is unbounded or bounded only by device limits (shared memory).
func (in Info) MaxCols(op spec.Op, dt spec.DType) int64 {
	P := int64(Pack(dt))
	best := int64(0)
	switch in.Strategy {
	case WarpRow:
		for _, v := range in.Variants(op.Backward()) {
			best = max(best, int64(v.Lanes*v.Packs)*P)
		}
	case BlockReg:
		for _, v := range in.Variants(op.Backward()) {
			best = max(best, int64(v.MaxThreads*v.Packs)*P)
		}
	case BlockHybrid:
		for _, v := range in.Variants(op.Backward()) {
			best = max(best, int64(v.MaxThreads)*(HybridRegValues(dt, op.Backward())+int64(v.SmemPacks)*P))
		}
	case StridedShort:
		for _, v := range in.Variants(op.Backward()) {
			if v.Serves(dt) {
				best = max(best, int64(max(v.Lanes, 1)*v.Packs))
			}
		}
	}
	return best
}

// Supports reports whether the strategy has kernels for op and dt on
// layout l (Inner == 1 for row strategies; row length within the fixed
// register-cache limits). Device limits (shared memory, clusters) are the
// planner's to check.
func (in Info) Supports(op spec.Op, dt spec.DType, l spec.Layout) bool {
	if !op.Valid() || !in.HasDType(dt) || len(in.Variants(op.Backward())) == 0 {
		return false
	}
	if in.RowsOnly && l.Inner != 1 {
		return false
	}
	if m := in.MaxCols(op, dt); m > 0 && int64(l.Axis) > m {
		return false
	}
	if in.Strategy == StridedShort && l.Axis < 2 {
		return false // one kernel per axis length, from 2
	}
	if in.Strategy == StridedNarrow {
		_, _, ok := StridedNarrowShape(op, dt, int64(l.Axis), int64(l.Inner))
		return ok
	}
	return true
}

// Supports reports whether strategy s serves op and dt on layout l.
func Supports(s Strategy, op spec.Op, dt spec.DType, l spec.Layout) bool {
	in, ok := Lookup(string(s))
	return ok && in.Supports(op, dt, l)
}

// FlatRowsMaxThreads is flat_rows' largest block.
const FlatRowsMaxThreads = 256

// flatRowsVariants: W lanes a row (FlatRowsLanes), N values a lane
// (FlatRowsValues).
func flatRowsVariants() []Variant {
	var v []Variant
	for _, w := range FlatRowsLanes {
		for _, n := range FlatRowsValues {
			v = append(v, Variant{Name: FlatRowsName(w, n), Lanes: w, MaxThreads: FlatRowsMaxThreads})
		}
	}
	return v
}

// FlatRowsLanes and FlatRowsValues are flat_rows' group widths and values
// a lane: a kernel for each pair, serving rows of up to W×N columns.
var (
	FlatRowsLanes  = []int{4, 8, 16, 32}
	FlatRowsValues = []int{4, 5, 6, 8, 10, 12, 16}
)

// FlatRowsName is the flat_rows variant of w lanes a row, n values a lane.
func FlatRowsName(w, n int) string { return fmt.Sprintf("w%d_n%d", w, n) }

// FlatRowsBytes returns the dynamic shared memory of a flat_rows launch
// of tiles of rows rows of cols elements: per input, the tile's copy with
// room for its shift to the 16-byte boundaries (P elements), rounded up to
// 16 bytes.
func FlatRowsBytes(op spec.Op, dt spec.DType, cols, rows int64) int64 {
	region := ((rows*cols+int64(Pack(dt)))*int64(dt.Size()) + 15) / 16 * 16
	return int64(NIn(op)) * region
}

// StridedSmemMaxThreads is strided_smem's largest block.
const StridedSmemMaxThreads = 512

// stridedSmemVariants: one outer index a block, and tiles of several
// (StridedSmemTiles).
func stridedSmemVariants() []Variant {
	return []Variant{{Name: "", MaxThreads: StridedSmemMaxThreads}, {Name: StridedSmemTiles, MaxThreads: StridedSmemMaxThreads}}
}

// StridedSmemTiles names strided_smem's kernels for tiles of several outer
// indices a block (Params.Chunk > 1).
const StridedSmemTiles = "tiles"

// StridedSmemBytes returns the dynamic shared memory of a strided_smem
// launch of tiles of tile outer indices, rg row groups a column: per
// input, a copy of a tile (tile×axis×inner elements) with room for its
// shift to the 16-byte boundaries (P elements), rounded up to 16 bytes;
// then a float pair (f64: a double pair) per column of the tile for its
// constants, and with rg > 1 one per row group and column for their
// partials.
func StridedSmemBytes(op spec.Op, dt spec.DType, axis, inner, tile, rg int64) int64 {
	region := ((tile*axis*inner+int64(Pack(dt)))*int64(dt.Size()) + 15) / 16 * 16
	pairs := tile * inner
	if rg > 1 {
		pairs *= 1 + rg
	}
	return int64(NIn(op))*region + pairs*WsPairBytes(dt)
}

// SplitClusterSlotBytes is the tail of split_cluster's dynamic shared
// memory that a one-row cluster's pushed partials take (an mbarrier and 16
// workspace pairs, float or double: SplitClusterSlots in split_cluster.cu).
func SplitClusterSlotBytes(dt spec.DType) int64 { return 16 + 16*WsPairBytes(dt) }

// SmemBytes returns the dynamic shared memory a launch of strategy s needs:
// the row (block_smem, cols elements) or the chunk (split_cluster, cols =
// chunk elements, then SplitClusterSlotBytes) per input, each rounded up to
// 16 bytes; smem_tree needs one float pair per thread. Other strategies
// need none (block_hybrid's is its variant's SmemPacks × block × 16 bytes).
func SmemBytes(s Strategy, op spec.Op, dt spec.DType, cols int64, threads int) int64 {
	switch s {
	case BlockSmem:
		return int64(NIn(op)) * smemRow(dt, cols)
	case SplitCluster:
		return int64(NIn(op))*smemRow(dt, cols) + SplitClusterSlotBytes(dt)
	case SmemTree:
		return int64(threads) * 8
	}
	return 0
}

// WsPairBytes is the size of one partial in a split strategy's workspace
// (Params.WS): a float pair, a double pair for float64 (WsPair in
// common.cuh).
func WsPairBytes(dt spec.DType) int64 {
	if dt == spec.Float64 {
		return 16
	}
	return 8
}

// smemRow is cols elements of dt rounded up to 16 bytes.
func smemRow(dt spec.DType, cols int64) int64 { return (cols*int64(dt.Size()) + 15) / 16 * 16 }

// DTypeMask is Source's dtype bit of dt (bit 0 f32, 1 f16, 2 bf16, 3 f64).
func DTypeMask(dt spec.DType) int { return 1 << int(dt) }

// Program is the complete NVRTC input of one strategy module.
type Program struct {
	Name    string            // program name: the .cu file
	Source  string            // the .cu text, with its dtype selection in front
	Headers map[string]string // include name -> text (common.cuh and its parts)
	Symbols []string          // the kernels the module defines
}

// Program returns the NVRTC input for s compiled for the given dtypes (all
// when none are given). One dtype per module keeps NVRTC time down.
func (s Strategy) Program(dts ...spec.DType) (Program, error) {
	in, ok := Lookup(string(s))
	if !ok {
		return Program{}, fmt.Errorf("kernels: unknown strategy %q", s)
	}
	if len(dts) == 0 {
		dts = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}
		if in.F64 {
			dts = append(dts, spec.Float64)
		}
	}
	mask := 0
	var syms []string
	for _, dt := range dts {
		if !dt.Valid() {
			return Program{}, fmt.Errorf("kernels: invalid dtype %v", dt)
		}
		if mask&DTypeMask(dt) == 0 {
			syms = append(syms, in.Symbols(dt)...)
		}
		mask |= DTypeMask(dt)
	}
	src, hdrs, err := Source(in.File, mask, false)
	if err != nil {
		return Program{}, err
	}
	return Program{Name: in.File, Source: src, Headers: hdrs, Symbols: syms}, nil
}

// ParseStrategy returns the strategy of a name, with the list of names in
// the error otherwise.
func ParseStrategy(name string) (Strategy, error) {
	if _, ok := Lookup(name); ok {
		return Strategy(name), nil
	}
	names := make([]string, len(catalogue))
	for i, in := range catalogue {
		names[i] = string(in.Strategy)
	}
	return "", fmt.Errorf("unknown strategy %q (want one of %s)", name, strings.Join(names, ", "))
}
