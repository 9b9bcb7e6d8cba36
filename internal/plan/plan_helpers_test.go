package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

var (
	h100 = Models["h100"]
	a100 = Models["a100"]
)

var (
	ops    = []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	dtypes = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}
)

func prob(outer, axis, inner int64, dt spec.DType, op spec.Op) Problem {
	return Problem{Outer: outer, Axis: axis, Inner: inner, DType: dt, Op: op, Aligned: true}
}

func mustMake(t *testing.T, p Problem, d Device, force string) Plan {
	t.Helper()
	pl, err := Make(p, d, nil, force)
	if err != nil {
		t.Fatalf("Make(%+v, %s, %q): %v", p, d.Name, force, err)
	}
	check(t, p, d, pl)
	return pl
}

// check verifies a plan against the kernels' launch contracts.
func check(t *testing.T, p Problem, d Device, pl Plan) {
	t.Helper()
	d = withDefaults(d)
	in, ok := kernels.Lookup(pl.Strategy)
	if !ok {
		t.Fatalf("plan strategy %q unknown", pl.Strategy)
	}
	where := fmt.Sprintf("%s for %v %v %d×%d×%d", pl.Strategy, p.Op, p.DType, p.Outer, p.Axis, p.Inner)
	if pl.File != in.File {
		t.Errorf("%s: file %s, want %s", where, pl.File, in.File)
	}
	if len(pl.Launches) == 0 {
		t.Fatalf("%s: no launches", where)
	}
	syms := map[string]bool{}
	for _, s := range in.Symbols(p.DType) {
		syms[s] = true
	}
	bwd := p.Op.Backward()
	P := int64(16 / p.DType.Size())
	nin := int64(1)
	if bwd {
		nin = 2
	}
	for _, l := range pl.Launches {
		if !syms[l.Symbol] {
			t.Errorf("%s: symbol %s not in the catalogue for %v", where, l.Symbol, p.DType)
		}
		want := kernels.Symbol(in.Strategy, p.DType, bwd, "")
		if !strings.HasPrefix(l.Symbol, want) {
			t.Errorf("%s: symbol %s does not match direction/dtype (%s)", where, l.Symbol, want)
		}
		variant := strings.TrimPrefix(strings.TrimPrefix(l.Symbol, want), "_")
		if strings.HasSuffix(l.Symbol, kernels.ShiftSuffix) != pl.Shift || pl.Shift && !in.Shift {
			t.Errorf("%s: symbol %s with Shift %v", where, l.Symbol, pl.Shift)
		}
		variant = strings.TrimSuffix(strings.TrimSuffix(variant, kernels.ShiftSuffix), "shift")
		v, ok := in.Variant(bwd, variant)
		if !ok {
			t.Errorf("%s: no variant %q", where, variant)
		}
		for i, g := range l.Grid {
			if g == 0 {
				t.Errorf("%s: grid %v has a zero dimension", where, l.Grid)
			}
			if i > 0 && g > maxGridY {
				t.Errorf("%s: grid %v exceeds y/z limits", where, l.Grid)
			}
		}
		if l.Grid[0] > maxGridX {
			t.Errorf("%s: grid x %d too large", where, l.Grid[0])
		}
		threads := int(l.Block[0] * l.Block[1] * l.Block[2])
		limit := v.MaxThreads
		if strings.HasSuffix(l.Symbol, kernels.ShiftSuffix) && v.ShiftMaxThreads > 0 {
			limit = v.ShiftMaxThreads
		}
		if threads <= 0 || threads > limit || threads > d.MaxThreadsPerBlock {
			t.Errorf("%s: %v threads, kernel %s allows %d", where, l.Block, l.Symbol, limit)
		}
		if v.FixedBlock > 0 && threads != v.FixedBlock {
			t.Errorf("%s: block %v, kernel wants %d", where, l.Block, v.FixedBlock)
		}
		if in.Strategy != kernels.Naive && in.Strategy != kernels.Strided && threads%32 != 0 {
			t.Errorf("%s: block %v not a multiple of 32", where, l.Block)
		}
		if l.Block[1] > 1 && in.Strategy != kernels.Strided || l.Block[2] > 1 {
			t.Errorf("%s: unexpected block shape %v", where, l.Block)
		}
		if l.Smem < 0 || l.Smem+staticSmem(d, l.Symbol) > d.SmemOptin {
			t.Errorf("%s: %d bytes of shared memory, device allows %d", where, l.Smem, d.SmemOptin)
		}
		if (l.Cluster != [3]uint32{}) != in.Cluster && in.Strategy != kernels.StridedReg {
			t.Errorf("%s: cluster %v", where, l.Cluster)
		}
		if l.Cluster[0] > 16 || l.NonPortable != (l.Cluster[0] > 8) {
			t.Errorf("%s: cluster %v nonportable %v", where, l.Cluster, l.NonPortable)
		}
		if l.Cluster[0] > 0 && l.Grid[0]%l.Cluster[0] != 0 {
			t.Errorf("%s: grid %v not a multiple of the cluster %v", where, l.Grid, l.Cluster)
		}
		// Per-variant row capacity: a ragged row read from the pack
		// boundary before it (Shift) takes up to P - g + (skew mod g)
		// elements more, g = gcd(cols mod P, P).
		span, es := p.Axis, int64(p.DType.Size())
		if g := gcd(p.Axis%P, P); pl.Shift {
			span += P - g + int64(p.Skew)/es%g
		}
		switch {
		case in.Strategy == kernels.StridedShort:
			// one lane: exactly Packs rows; a lane pair: 2·Packs - 1 or 2·Packs
			lanes := int64(max(v.Lanes, 1))
			if (p.Axis+lanes-1)/lanes != int64(v.Packs) || threads > 256 || threads%32 != 0 {
				t.Errorf("%s: %s (%d threads) is for axes of %d rows a lane over %d lanes, axis has %d", where, l.Symbol, threads, v.Packs, lanes, p.Axis)
			}
		case v.Packs > 0 && v.Lanes > 0:
			if cap := int64(v.Lanes*v.Packs) * P; span > cap {
				t.Errorf("%s: %s holds %d columns, row has %d", where, l.Symbol, cap, p.Axis)
			}
		case v.Packs > 0:
			cap := int64(threads*v.Packs) * P
			if in.Strategy == kernels.BlockReg && pl.Shift && !p.Op.Backward() && es == 2 &&
				v.Packs >= 2 && v.Packs <= 5 && !(threads == 1024 && v.Packs == 5) {
				// block_reg.cu's OVERHANG twins: thread 0 holds the span's
				// overhang (< P elements)
				cap += P - 1
			}
			if span > cap {
				t.Errorf("%s: %s with %d threads holds %d columns, span %d (row %d)", where, l.Symbol, threads, cap, span, p.Axis)
			}
		}
		switch in.Strategy {
		case kernels.BlockSmem:
			if want := nin * roundUp(p.Axis*int64(p.DType.Size()), 16); int64(l.Smem) != want {
				t.Errorf("%s: smem %d, want %d", where, l.Smem, want)
			}
		case kernels.SmemTree:
			if threads&(threads-1) != 0 || l.Smem != threads*8 {
				t.Errorf("%s: tree block %d smem %d", where, threads, l.Smem)
			}
		case kernels.Strided:
			vw := uint32(1)
			if pl.Vec {
				vw = uint32(P)
			}
			if ty := l.Block[1]; ty&(ty-1) != 0 || l.Block[0]*ty > 256 || l.Block[0]*ty*vw > 1024 {
				t.Errorf("%s: block %v with %d slices per thread", where, l.Block, vw)
			}
		}
	}
	// Split contracts.
	switch {
	case in.Strategy == kernels.StridedReg:
		checkStridedReg(t, where, p, pl)
	case in.Strategy == kernels.StridedNarrow:
		checkStridedNarrow(t, where, p, pl)
	case in.Strategy == kernels.StridedSmem:
		checkStridedSmem(t, where, p, pl)
	case in.Cooperative:
		checkSplitGrid(t, where, p, pl, nin)
	case in.Strategy == kernels.SplitRow:
		checkSplitRow(t, where, p, pl)
	case in.Workspace || (in.Strategy == kernels.Strided && pl.Split > 1):
		if pl.Split < 1 || pl.Chunk < 1 || int64(pl.Split)*pl.Chunk < p.Axis || int64(pl.Split-1)*pl.Chunk >= p.Axis {
			t.Errorf("%s: split %d × chunk %d does not tile axis %d", where, pl.Split, pl.Chunk, p.Axis)
		}
		if want := p.Outer * p.Inner * int64(pl.Split) * 8; pl.Workspace < want {
			t.Errorf("%s: workspace %d < %d", where, pl.Workspace, want)
		}
		if len(pl.Launches) != 2 {
			t.Errorf("%s: %d launches, want 2", where, len(pl.Launches))
		}
		if pl.Vec && in.Strategy != kernels.Strided && pl.Chunk%P != 0 {
			t.Errorf("%s: chunk %d breaks 16-byte alignment", where, pl.Chunk)
		}
		if in.Strategy == kernels.Strided && int64(pl.Launches[0].Grid[1]) != int64(pl.Split) {
			t.Errorf("%s: strided split grid %v, split %d", where, pl.Launches[0].Grid, pl.Split)
		}
	case in.Cluster:
		if int64(pl.Split)*pl.Chunk < p.Axis || pl.Chunk%P != 0 || pl.Launches[0].Cluster[0] != uint32(pl.Split) {
			t.Errorf("%s: cluster %d × chunk %d for axis %d", where, pl.Split, pl.Chunk, p.Axis)
		}
		if want := nin*roundUp(pl.Chunk*int64(p.DType.Size()), 16) + kernels.SplitClusterSlotBytes(p.DType); int64(pl.Launches[0].Smem) != want {
			t.Errorf("%s: cluster smem %d, want %d", where, pl.Launches[0].Smem, want)
		}
	default:
		if pl.Split != 1 || pl.Workspace != 0 {
			t.Errorf("%s: split %d workspace %d", where, pl.Split, pl.Workspace)
		}
	}
	// Vector path only with aligned rows (strided: Inner a multiple of the
	// pack; its twins, which need no alignment, for any other Inner of at
	// least 32 along an axis of at most 32; strided_short's and
	// strided_reg's for any Inner that is not whole packs).
	if in.Strategy == kernels.StridedNarrow {
		whole := p.Aligned && p.Axis*p.Inner%P == 0
		if !pl.Vec || pl.Shift == whole {
			t.Errorf("%s: strided_narrow vec %v twin %v for %d×%d (aligned %v)", where, pl.Vec, pl.Shift, p.Axis, p.Inner, p.Aligned)
		}
	} else if in.Strategy == kernels.Strided || in.Strategy == kernels.StridedReg || in.Strategy == kernels.StridedShort {
		whole := p.Aligned && p.Inner%P == 0
		if pl.Vec && !whole && !pl.Shift {
			t.Errorf("%s: strided vector path with Inner %% %d != 0", where, P)
		}
		if in.Strategy != kernels.Strided && (!pl.Vec || pl.Shift == whole) {
			t.Errorf("%s: %s vec %v twin %v for Inner %d (aligned %v)", where, in.Strategy, pl.Vec, pl.Shift, p.Inner, p.Aligned)
		}
		if in.Strategy == kernels.Strided && pl.Shift != (!whole && p.Inner >= 32 && p.Axis <= 32) {
			t.Errorf("%s: strided twin %v for Inner %d (aligned %v)", where, pl.Shift, p.Inner, p.Aligned)
		}
	} else if pl.Vec && (p.Inner != 1 || !p.Aligned && !(pl.Shift && p.Skew != 0) || (p.Axis%P != 0 && p.Outer != 1 && !pl.Shift)) {
		t.Errorf("%s: vector path on unaligned rows", where)
	}
	// Params template.
	pp := pl.Params
	if pp.Outer != p.Outer || pp.Axis != p.Axis || pp.Inner != p.Inner || pp.Chunk != pl.Chunk ||
		int(pp.Split) != pl.Split || (pp.Vec != 0) != pl.Vec || (pp.Vec == kernels.VecShift) != pl.Shift || (pp.Log == 1) != p.Op.Log() || pp.Scale != 1 ||
		pp.X != 0 || pp.Y != 0 || pp.DY != 0 || pp.WS != 0 {
		t.Errorf("%s: params template %+v", where, pp)
	}
	if pl.Reason == "" {
		t.Errorf("%s: no reason", where)
	}
}

// checkSplitGrid checks split_grid's launch contract (split_grid.cu): one
// cooperative 1-D launch with a block for every chunk of at least one row
// (the rows go in waves of grid/split), chunks tiling the axis (pack
// multiples on the vector path), the cache a multiple of NIN packs and no
// larger than a chunk, a partial per chunk of every row.
func checkSplitGrid(t *testing.T, where string, p Problem, pl Plan, nin int64) {
	t.Helper()
	P := int64(16 / p.DType.Size())
	if len(pl.Launches) != 1 || !pl.Launches[0].Cooperative {
		t.Fatalf("%s: launches %+v, want one cooperative launch", where, pl.Launches)
	}
	l := pl.Launches[0]
	if int64(pl.Split)*pl.Chunk < p.Axis || int64(pl.Split-1)*pl.Chunk >= p.Axis {
		t.Errorf("%s: split %d × chunk %d does not tile axis %d", where, pl.Split, pl.Chunk, p.Axis)
	}
	if l.Grid[1] != 1 || l.Grid[2] != 1 || int64(l.Grid[0]) < int64(pl.Split) {
		t.Fatalf("%s: grid %v for %d chunks a row", where, l.Grid, pl.Split)
	}
	if waves := ceilDiv(p.Outer, int64(l.Grid[0])/int64(pl.Split)); strings.HasSuffix(l.Symbol, "_waves") != (waves > 1) {
		t.Errorf("%s: %s for %d waves (the plain kernel takes one wave only)", where, l.Symbol, waves)
	}
	if want := p.Outer * int64(pl.Split) * 8; pl.Workspace < want {
		t.Errorf("%s: workspace %d < %d", where, pl.Workspace, want)
	}
	// One barrier word per row of a wave: the kernel's rows per wave.
	if want := int64(l.Grid[0]) / int64(pl.Split); pl.Barriers != want {
		t.Errorf("%s: %d barrier words, want %d (rows per wave)", where, pl.Barriers, want)
	}
	if pl.Vec && pl.Chunk%P != 0 {
		t.Errorf("%s: chunk %d breaks 16-byte alignment", where, pl.Chunk)
	}
	if int64(l.Smem)%(16*nin) != 0 || int64(l.Smem) > nin*roundUp(pl.Chunk*int64(p.DType.Size()), 16) || !pl.Vec && l.Smem != 0 {
		t.Errorf("%s: cache %d bytes for chunks of %d elements (vec %v)", where, l.Smem, pl.Chunk, pl.Vec)
	}
}

// checkSplitRow checks split_row's launch contract (split_row.cu): two
// launches of one block size, at most split blocks across x and rows down
// y, a partial per block of every row, and split*nt virtual threads that
// fit an int.
func checkSplitRow(t *testing.T, where string, p Problem, pl Plan) {
	t.Helper()
	if len(pl.Launches) != 2 || pl.Launches[0].Grid != pl.Launches[1].Grid || pl.Launches[0].Block != pl.Launches[1].Block {
		t.Fatalf("%s: launches %+v, want two of one shape", where, pl.Launches)
	}
	l := pl.Launches[0]
	if pl.Split < 1 || int64(pl.Split) > prm.MaxSplitRow || int64(l.Grid[0]) > int64(pl.Split) || int64(l.Grid[1]) > min(p.Outer, maxGridY) {
		t.Errorf("%s: split %d with grid %v for %d rows", where, pl.Split, l.Grid, p.Outer)
	}
	if int64(pl.Split)*int64(l.Block[0]) > math.MaxInt32 || l.Block[0]%32 != 0 || l.Block[0] > 512 {
		t.Errorf("%s: split %d × block %v", where, pl.Split, l.Block)
	}
	if want := p.Outer * int64(pl.Split) * 8; pl.Workspace < want {
		t.Errorf("%s: workspace %d < %d", where, pl.Workspace, want)
	}
}

// checkStridedReg checks strided_reg's launch contract (doc.go): K blocks
// of Chunk axis rows cover the axis, a cluster of K when K > 1, one tile of
// G packs per cluster, enough packs per thread, the shared partials' limit.
func checkStridedReg(t *testing.T, where string, p Problem, pl Plan) {
	t.Helper()
	P := int64(16 / p.DType.Size())
	np := int64(kernels.StridedRegPacks)
	l := pl.Launches[0]
	k, r := int64(pl.Split), pl.Chunk
	if len(pl.Launches) != 1 || pl.Workspace != 0 || !pl.Vec || k < 1 || r < 1 || k*r < p.Axis || (k-1)*r >= p.Axis {
		t.Errorf("%s: %d launches, workspace %d, vec %v, %d blocks × %d rows for axis %d", where, len(pl.Launches), pl.Workspace, pl.Vec, k, r, p.Axis)
		return
	}
	if want := ([3]uint32{}); k > 1 {
		want = [3]uint32{uint32(k), 1, 1}
		if l.Cluster != want {
			t.Errorf("%s: cluster %v, want %v", where, l.Cluster, want)
		}
	} else if l.Cluster != want {
		t.Errorf("%s: cluster %v for one block per tile", where, l.Cluster)
	}
	var g int64
	name := strings.TrimSuffix(l.Symbol, kernels.ShiftSuffix)
	if _, err := fmt.Sscanf(name[strings.LastIndex(name, "_")+1:], "g%d", &g); err != nil || 32%g != 0 {
		t.Fatalf("%s: symbol %s", where, l.Symbol)
	}
	nt := int64(l.Block[0])
	if pl.Shift && nt > kernels.StridedRegShiftThreads {
		t.Errorf("%s: %d threads for a twin bound to %d", where, nt, kernels.StridedRegShiftThreads)
	}
	if tiles := p.Outer * ceilDiv(p.Inner, g*P); int64(l.Grid[0]) != tiles*k {
		t.Errorf("%s: grid %v, want %d tiles × %d", where, l.Grid, tiles, k)
	}
	if nt%32 != 0 || nt/g*np < r || nt/32*g*P > 4096 {
		t.Errorf("%s: %d threads with G = %d for %d rows", where, nt, g, r)
	}
}

// noCoop is the H100 without cooperative launch.
var noCoop = func() Device { d := h100; d.Cooperative = false; return d }()

// sm70 is the H100 as a device before sm_80: none of the strategies that
// need cp.async (flat_rows among them).
var sm70 = func() Device { d := h100; d.Name = "H100 as sm_70"; d.Major = 7; return d }()

// checkStridedSmem checks strided_smem's launch contract: one launch of a
// block a tile of Chunk outer indices (grid-stride, no more blocks than
// tiles), Split row groups a column (1 to Axis), shared memory for the
// tile's copies, constants and partials within the opt-in limit, no vector
// flags (the kernel finds each pointer's alignment itself).
func checkStridedSmem(t *testing.T, where string, p Problem, pl Plan) {
	t.Helper()
	l := pl.Launches[0]
	nt := int64(l.Block[0])
	if len(pl.Launches) != 1 || pl.Workspace != 0 || nt%32 != 0 || nt > kernels.StridedSmemMaxThreads || l.Block[1] != 1 {
		t.Errorf("%s: strided_smem launches %d block %v workspace %d", where, len(pl.Launches), l.Block, pl.Workspace)
	}
	if pl.Chunk < 1 || pl.Chunk > p.Outer || pl.Split < 1 || int64(pl.Split) > p.Axis || pl.Chunk*p.Axis*p.Inner > 1<<30 {
		t.Errorf("%s: strided_smem tile %d, row groups %d for %d×%d×%d", where, pl.Chunk, pl.Split, p.Outer, p.Axis, p.Inner)
	}
	if int64(l.Grid[0]) > ceilDiv(p.Outer, max(pl.Chunk, 1)) {
		t.Errorf("%s: strided_smem grid %v for %d tiles", where, l.Grid, ceilDiv(p.Outer, pl.Chunk))
	}
	if want := kernels.StridedSmemBytes(p.Op, p.DType, p.Axis, p.Inner, pl.Chunk, int64(pl.Split)); int64(l.Smem) != want {
		t.Errorf("%s: strided_smem smem %d, want %d", where, l.Smem, want)
	}
	if pl.Vec || pl.Shift {
		t.Errorf("%s: strided_smem vec %v shift %v", where, pl.Vec, pl.Shift)
	}
	if tiles := strings.HasSuffix(l.Symbol, "_"+kernels.StridedSmemTiles); tiles != (pl.Chunk > 1) {
		t.Errorf("%s: strided_smem symbol %s for tiles of %d", where, l.Symbol, pl.Chunk)
	}
}

// checkStridedNarrow checks strided_narrow's launch contract: a power-of-two
// Inner of at most 8 packs, 256 threads, GW of 1-8 warps an outer index
// whose H packs a thread hold the block (and H/2 would not), a grid within
// the groups needed.
func checkStridedNarrow(t *testing.T, where string, p Problem, pl Plan) {
	t.Helper()
	P := int64(16 / p.DType.Size())
	l := pl.Launches[0]
	var h int64
	if _, err := fmt.Sscanf(l.Symbol[strings.LastIndex(strings.TrimSuffix(l.Symbol, kernels.ShiftSuffix), "_h")+2:], "%d", &h); err != nil {
		t.Errorf("%s: symbol %s has no pack count", where, l.Symbol)
		return
	}
	gw := int64(pl.Split)
	packs := ceilDiv(p.Axis*p.Inner, P)
	if p.Inner < 2 || p.Inner > 8*P || p.Inner&(p.Inner-1) != 0 {
		t.Errorf("%s: strided_narrow for Inner %d", where, p.Inner)
	}
	if l.Block != block1(kernels.StridedNarrowThreads) || len(pl.Launches) != 1 || pl.Workspace != 0 {
		t.Errorf("%s: block %v, %d launches, workspace %d", where, l.Block, len(pl.Launches), pl.Workspace)
	}
	if gw < 1 || gw > kernels.StridedNarrowMaxWarps || gw&(gw-1) != 0 || 32*gw*h < packs || (h > 1 && 32*gw*h/2 >= packs) {
		t.Errorf("%s: %d warps × %d packs for a block of %d packs", where, gw, h, packs)
	}
	if groups := int64(kernels.StridedNarrowThreads) / (32 * gw); int64(l.Grid[0]) > ceilDiv(p.Outer, groups) {
		t.Errorf("%s: grid %v for %d outer indices, %d a block", where, l.Grid, p.Outer, groups)
	}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unaligned returns p with pointers that are not 16-byte aligned.
func unaligned(p Problem) Problem {
	p.Aligned = false
	return p
}

// skewed returns p with pointers that all lie elems elements past a
// 16-byte boundary.
func skewed(p Problem, elems int) Problem {
	p.Aligned, p.Skew = false, elems*p.DType.Size()
	return p
}

// placement is a Problem's Aligned and Skew.
type placement struct {
	aligned bool
	skew    int
}

// placements lists the pointer placements a sweep covers for dt: aligned,
// unaligned by different distances, and all one element or P-1 elements
// past a boundary.
func placements(dt spec.DType) []placement {
	es := dt.Size()
	return []placement{{true, 0}, {false, 0}, {false, es}, {false, 16 - es}}
}
