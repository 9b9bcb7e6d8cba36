package plan

import (
	"errors"
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
		if want := nin*roundUp(pl.Chunk*int64(p.DType.Size()), 16) + kernels.SplitClusterSlotBytes; int64(pl.Launches[0].Smem) != want {
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

func TestRegimes(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	cases := []struct {
		name string
		p    Problem
		d    Device
		want kernels.Strategy
		sym  string // expected first symbol ("" to skip)
	}{
		{"one column", prob(4096, 1, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w1_p1"},
		// Ragged rows (cols not a multiple of the pack, aligned pointers,
		// several rows): flat_rows takes forward f32 rows of 8..256
		// columns, 16-bit ones of 16..128 and backward rows of 8 (16-bit:
		// 16) to 300 (flatRowsFirst). Past those limits warp_row takes the
		// twins that read each row from the pack boundary before it: 130
		// bf16 columns span up to 136, 17 packs. Forward rows of 2..15
		// packs do so where the span needs no more lanes than the row read
		// element by element (warpRagged); the others, rows under two packs
		// and backward rows under 16 packs keep the element-wise path. On
		// the H100 flat_rows takes every ragged row of 2..15 packs, so
		// those warp_row rules are checked before sm_80 (the sm70 rows
		// below).
		{"7 columns", prob(4096, 7, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w2_p1"},
		{"63 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(4096, 63, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w8_n8"},
		{"130 bf16 (ragged, 17 packs: three a lane over 8 lanes, past flat_rows' 16-bit 128 columns)", prob(4096, 130, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w8_p3_shift"},
		{"77 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(39424, 77, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w8_n10"},
		{"50 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(100000, 50, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w8_n8"},
		{"201 bf16 (ragged, 26 packs: two-pack twin, past flat_rows' 16-bit 128 columns)", prob(16384, 201, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w16_p2_shift"},
		{"21 bf16 (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(267867, 21, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w4_n6"},
		{"126 bf16 (ragged: flat_rows, 16-bit forward 16..128 columns; 16 lanes × 8 values)", prob(350785, 126, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w16_n8"},
		{"150 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(20000, 150, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w16_n10"},
		{"30 bf16 (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(200000, 30, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w4_n8"},
		{"31 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(200000, 31, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w4_n8"},
		{"60 bf16 (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(200000, 60, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w8_n8"},
		{"59 bf16 log_softmax (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(74862, 59, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w8_n8"},
		{"42 f32 log_softmax (ragged: flat_rows, f32 forward 8..256 columns)", prob(29440, 42, 1, f32, spec.LogSoftmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w8_n6"},
		{"10 f16 (under two packs: element-wise)", prob(1000000, 10, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w2_p1"},
		{"10 f32 (ragged: flat_rows, f32 forward 8..256 columns)", prob(1000000, 10, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w4_n4"},
		{"50 f32 backward (ragged: flat_rows, backward 8..300 columns)", prob(100000, 50, 1, f32, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f32_w8_n8"},
		{"31 f32 backward (ragged: flat_rows, backward 8..300 columns)", prob(200000, 31, 1, f32, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f32_w4_n8"},
		{"100 f16 backward (ragged: flat_rows, 16-bit backward 16..300 columns)", prob(200000, 100, 1, f16, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f16_w16_n8"},
		{"100 bf16 log_softmax backward (ragged: flat_rows, 16-bit backward 16..300 columns)", prob(200000, 100, 1, spec.BFloat16, spec.LogSoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_bf16_w16_n8"},
		{"126 bf16 backward (ragged: flat_rows, 16-bit backward 16..300 columns)", prob(350785, 126, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_bf16_w16_n8"},
		{"126 f16 backward (ragged: flat_rows, 16-bit backward 16..300 columns)", prob(200000, 126, 1, f16, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f16_w16_n8"},
		{"301 f16 backward (ragged, 38 packs: two-pack twin, past flat_rows' 300 columns)", prob(65536, 301, 1, f16, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f16_w32_p2_shift"},
		{"50 f32, unaligned pointers (flat_rows, f32 forward 10..512 columns)", unaligned(prob(100000, 50, 1, f32, spec.Softmax)), h100, kernels.FlatRows, "flat_rows_fwd_f32_w8_n8"},
		{"50 f32, unaligned pointers before sm_80: element-wise", unaligned(prob(100000, 50, 1, f32, spec.Softmax)), sm70, kernels.WarpRow, "warp_row_fwd_f32_w16_p1"},
		// flat_rows' limits (flatRowsFirst): aligned ragged rows of several
		// rows only; whole packs, a single row and rows past the limits stay
		// with warp_row (or block_reg).
		{"7 f32 (ragged, under flat_rows' 8 columns: element-wise)", prob(1000000, 7, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w2_p1"},
		{"9 f32 (ragged: flat_rows' shortest f32 row, 8 being whole packs)", prob(1000000, 9, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w4_n4"},
		{"255 f32 (ragged: flat_rows, 32 lanes × 8 values)", prob(32768, 255, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w32_n8"},
		{"257 f32 (ragged: flat_rows, f32 forward to 512 columns)", prob(32768, 257, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w32_n10"},
		{"511 f32 (ragged: flat_rows' longest f32 row)", prob(16384, 511, 1, f32, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f32_w32_n16"},
		{"513 f32 (ragged, past flat_rows' 512 columns: block_reg's twin)", prob(16384, 513, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p5_shift"},
		{"13 f16 (ragged, under flat_rows' 16 16-bit columns: element-wise)", prob(65536, 13, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w2_p1"},
		{"17 f16 (ragged: flat_rows' shortest 16-bit row)", prob(65536, 17, 1, f16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f16_w4_n5"},
		{"127 f16 (ragged: flat_rows' longest 16-bit forward row)", prob(65536, 127, 1, f16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f16_w16_n8"},
		{"129 f16 (ragged, past flat_rows' 128 16-bit forward columns: three-pack twin)", prob(65536, 129, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w8_p3_shift"},
		{"7 f32 backward (ragged, under flat_rows' 8 columns: element-wise)", prob(4096, 7, 1, f32, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f32_w2_p1"},
		{"15 bf16 backward (ragged, under flat_rows' 16 16-bit columns: element-wise)", prob(4096, 15, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_bf16_w2_p1"},
		{"36 f16 backward (ragged: flat_rows, 4 lanes × 10 values)", prob(200000, 36, 1, f16, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f16_w4_n10"},
		{"300 bf16 backward (ragged: flat_rows' longest backward row)", prob(65536, 300, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_bf16_w32_n10"},
		{"299 f32 backward (ragged: flat_rows)", prob(4096, 299, 1, f32, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f32_w32_n10"},
		{"301 f32 backward (ragged: flat_rows, f32 backward to 512 columns)", prob(4096, 301, 1, f32, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f32_w32_n10"},
		{"511 f32 backward (ragged: flat_rows' longest f32 backward row)", prob(4096, 511, 1, f32, spec.SoftmaxBackward), h100, kernels.FlatRows, "flat_rows_bwd_f32_w32_n16"},
		{"513 f32 backward (ragged, past flat_rows' 512 columns: block_reg's twin)", prob(4096, 513, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p1_shift"},
		{"64 bf16 (whole packs: not flat_rows)", prob(65536, 64, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w4_p2"},
		{"256 f32 (whole packs: not flat_rows)", prob(4096, 256, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w32_p2"},
		{"66 bf16, unaligned pointers (flat_rows, 16-bit 13..512 columns)", unaligned(prob(200000, 66, 1, spec.BFloat16, spec.Softmax)), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w16_n5"},
		{"66 bf16, unaligned pointers before sm_80: element-wise", unaligned(prob(200000, 66, 1, spec.BFloat16, spec.Softmax)), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w16_p1"},
		// flat_rows' limits on unaligned tensors (flatRowsUnaligned): rows
		// of whole packs too, not one row, not 4-way bank conflicts.
		{"9 f32 unaligned (under flat_rows' 10 columns: element-wise)", unaligned(prob(1000000, 9, 1, f32, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f32_w4_p1"},
		{"10 f32 unaligned (flat_rows' shortest unaligned f32 row)", unaligned(prob(1000000, 10, 1, f32, spec.Softmax)), h100, kernels.FlatRows, "flat_rows_fwd_f32_w4_n4"},
		{"16 f32 unaligned (4-way bank conflicts at 4 lanes: element-wise)", unaligned(prob(1000000, 16, 1, f32, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f32_w4_p1"},
		{"64 f32 unaligned (4-way bank conflicts at 8 lanes: element-wise)", unaligned(prob(65536, 64, 1, f32, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f32_w16_p1"},
		{"64 f16 unaligned backward (4-way bank conflicts: element-wise)", unaligned(prob(200000, 64, 1, f16, spec.SoftmaxBackward)), h100, kernels.WarpRow, "warp_row_bwd_f16_w8_p1"},
		{"256 f32 unaligned (whole packs: flat_rows)", unaligned(prob(16384, 256, 1, f32, spec.Softmax)), h100, kernels.FlatRows, "flat_rows_fwd_f32_w32_n8"},
		{"512 f32 unaligned log_softmax (flat_rows' longest row)", unaligned(prob(16384, 512, 1, f32, spec.LogSoftmax)), h100, kernels.FlatRows, "flat_rows_fwd_f32_w32_n16"},
		{"513 f32 unaligned (past flat_rows: element-wise)", unaligned(prob(16384, 513, 1, f32, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f32_w32_p8"},
		{"256 f32 unaligned backward (under flat_rows' 257 f32 backward columns)", unaligned(prob(16384, 256, 1, f32, spec.SoftmaxBackward)), h100, kernels.WarpRow, "warp_row_bwd_f32_w32_p2"},
		{"257 f32 unaligned backward (flat_rows' shortest unaligned f32 backward row)", unaligned(prob(16384, 257, 1, f32, spec.SoftmaxBackward)), h100, kernels.FlatRows, "flat_rows_bwd_f32_w32_n10"},
		{"512 f32 unaligned backward", unaligned(prob(16384, 512, 1, f32, spec.SoftmaxBackward)), h100, kernels.FlatRows, "flat_rows_bwd_f32_w32_n16"},
		{"12 f16 unaligned (under flat_rows' 13 16-bit columns: element-wise)", unaligned(prob(300000, 12, 1, f16, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f16_w2_p1"},
		{"13 f16 unaligned (flat_rows' shortest unaligned 16-bit row)", unaligned(prob(300000, 13, 1, f16, spec.Softmax)), h100, kernels.FlatRows, "flat_rows_fwd_f16_w4_n4"},
		{"13 bf16 unaligned backward", unaligned(prob(300000, 13, 1, spec.BFloat16, spec.SoftmaxBackward)), h100, kernels.FlatRows, "flat_rows_bwd_bf16_w4_n4"},
		{"512 f16 unaligned backward (flat_rows' longest row)", unaligned(prob(16384, 512, 1, f16, spec.SoftmaxBackward)), h100, kernels.FlatRows, "flat_rows_bwd_f16_w32_n16"},
		{"513 bf16 unaligned (past flat_rows: element-wise)", unaligned(prob(16384, 513, 1, spec.BFloat16, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_bf16_w32_p4"},
		// Skewed tensors (every pointer one distance past a boundary) past
		// flat_rows: the ragged-row twins (skewedRows), block_reg's (16-bit
		// forward rows up to 4096 columns, backward spans up to 1024 packs),
		// online_2pass's beyond.
		{"512 f16 skewed (flat_rows: not skewedRows)", skewed(prob(16384, 512, 1, f16, spec.Softmax), 1), h100, kernels.FlatRows, "flat_rows_fwd_f16_w32_n16"},
		{"513 f32 skewed", skewed(prob(16384, 513, 1, f32, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p5_shift"},
		{"1000 f16 skewed by 7", skewed(prob(8192, 1000, 1, f16, spec.Softmax), 7), h100, kernels.BlockReg, "block_reg_fwd_f16_t32_p4_shift"},
		{"4096 f32 skewed (block_reg's longest skewed row)", skewed(prob(4096, 4096, 1, f32, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f32_t256_p5_shift"},
		{"4097 bf16 skewed log_softmax (block_reg's twin, sized by the row)", skewed(prob(4096, 4097, 1, spec.BFloat16, spec.LogSoftmax), 3), h100, kernels.BlockReg, "block_reg_fwd_bf16_t256_p3_shift"},
		{"4096 f16 skewed (128 × 4 packs and the overhang, as an aligned row)", skewed(prob(4096, 4096, 1, f16, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p4_shift"},
		{"8192 f32 skewed (block_reg's twin)", skewed(prob(2048, 8192, 1, f32, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p5_shift"},
		{"32000 f32 skewed, many rows (block_reg's twin: blockRegDeepF32)", skewed(prob(4096, 32000, 1, f32, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8_shift"},
		{"32000 f32 skewed, 7.8 rows an SM (block_hybrid's twin, two rows an SM)", skewed(prob(1024, 32000, 1, f32, spec.Softmax), 1), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s8_shift"},
		{"32000 f32 skewed, fewer rows than SMs (block_reg's twin)", skewed(prob(66, 32000, 1, f32, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8_shift"},
		{"8192 f16 skewed (256 × 4 packs and the overhang)", skewed(prob(2048, 8192, 1, f16, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f16_t256_p4_shift"},
		{"8200 f16 skewed (block_reg's 512 threads)", skewed(prob(2048, 8200, 1, f16, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f16_t512_p3_shift"},
		{"16384 f16 skewed (block_reg's longest 512-thread twin row)", skewed(prob(4096, 16384, 1, f16, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_f16_t512_p4_shift"},
		{"16392 f16 skewed (many rows past block_reg's 512 threads: block_hybrid's twin)", skewed(prob(4096, 16392, 1, f16, spec.Softmax), 1), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s1_shift"},
		{"20000 bf16 skewed, fewer rows than SMs (block_reg)", skewed(prob(100, 20000, 1, spec.BFloat16, spec.Softmax), 1), h100, kernels.BlockReg, "block_reg_fwd_bf16_t1024_p3_shift"},
		{"32000 f16 skewed (block_hybrid's twin)", skewed(prob(4096, 32000, 1, f16, spec.Softmax), 1), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s4_shift"},
		{"32776 f16 skewed (past block_reg: block_hybrid's twin)", skewed(prob(4096, 32776, 1, f16, spec.Softmax), 1), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s5_shift"},
		{"600 f32 skewed backward (block_reg)", skewed(prob(16384, 600, 1, f32, spec.SoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_f32_p1_shift"},
		{"1024 f16 skewed backward (block_reg's longest skewed backward row)", skewed(prob(65536, 1024, 1, f16, spec.SoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_f16_p1_shift"},
		{"1025 bf16 skewed backward (block_reg)", skewed(prob(8192, 1025, 1, spec.BFloat16, spec.LogSoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_bf16_p1_shift"},
		{"4096 f16 skewed backward (block_reg: 513 packs)", skewed(prob(4096, 4096, 1, f16, spec.SoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_f16_p2_shift"},
		{"8192 f16 skewed backward (1025 packs: online_2pass)", skewed(prob(2048, 8192, 1, f16, spec.SoftmaxBackward), 1), h100, kernels.Online2Pass, "online_2pass_bwd_f16_shift"},
		{"4096 f32 skewed backward (1025 packs: block_reg p4)", skewed(prob(4096, 4096, 1, f32, spec.SoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_f32_p4_shift"},
		{"6000 f32 skewed backward (1501 packs: block_reg p4)", skewed(prob(4096, 6000, 1, f32, spec.SoftmaxBackward), 1), h100, kernels.BlockReg, "block_reg_bwd_f32_p4_shift"},
		{"8192 f32 skewed backward (2049 packs: online_2pass)", skewed(prob(2048, 8192, 1, f32, spec.SoftmaxBackward), 1), h100, kernels.Online2Pass, "online_2pass_bwd_f32_shift"},
		// Few ragged or skewed rows (fewRaggedBlockRows): a block per row
		// from half as many rows as SMs up to 400 KB rows, else split_grid.
		{"100000 f32 skewed, 100 rows (online_2pass)", skewed(prob(100, 100000, 1, f32, spec.Softmax), 1), h100, kernels.Online2Pass, "online_2pass_fwd_f32_shift"},
		{"100003 f16 ragged, 100 rows backward (online_2pass)", prob(100, 100003, 1, f16, spec.SoftmaxBackward), h100, kernels.Online2Pass, "online_2pass_bwd_f16_shift"},
		{"65537 f32 ragged, 66 rows (half the SMs: block_hybrid's 1024-thread twin)", prob(66, 65537, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s9_shift"},
		{"100003 f32 ragged, 66 rows (past block_hybrid: online_2pass)", prob(66, 100003, 1, f32, spec.Softmax), h100, kernels.Online2Pass, "online_2pass_fwd_f32_shift"},
		{"200000 f32 skewed, 64 rows (under half the SMs: split_grid)", skewed(prob(64, 200000, 1, f32, spec.Softmax), 1), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"102401 f32 ragged, 100 rows (past 400 KB: split_grid)", prob(100, 102401, 1, f32, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"1000 f32 skewed, one row (element-wise)", skewed(prob(1, 1000, 1, f32, spec.Softmax), 1), h100, kernels.WarpRow, "warp_row_fwd_f32_w32_p8"},
		{"1000 f32 skewed before sm_80 (block_reg's twin)", skewed(prob(8192, 1000, 1, f32, spec.Softmax), 1), sm70, kernels.BlockReg, "block_reg_fwd_f32_t32_p8_shift"},
		{"66 bf16 unaligned, one row (not flat_rows)", unaligned(prob(1, 66, 1, spec.BFloat16, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_bf16_w16_p1"},
		{"66 bf16, one row (not ragged rows: not flat_rows)", prob(1, 66, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w16_p1"},
		{"66 bf16, two rows (ragged: flat_rows)", prob(2, 66, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w16_n5"},
		{"126 bf16 on A100 (sm_80: flat_rows)", prob(350785, 126, 1, spec.BFloat16, spec.Softmax), a100, kernels.FlatRows, "flat_rows_fwd_bf16_w16_n8"},
		// Before sm_80 (no flat_rows: cp.async) ragged rows keep warp_row's
		// twins and element-wise path, on shapes flat_rows takes on H100:
		// warpRagged, halfGroups, bwdHalfGroups and threePackLanes on rows
		// of 2..15 packs.
		{"63 columns before sm_80 (span of 17 packs: three a lane over 8 lanes)", prob(4096, 63, 1, f32, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w8_p3_shift"},
		{"77 f32 before sm_80 (span of 20 packs; 32 lanes element by element)", prob(39424, 77, 1, f32, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w8_p3_shift"},
		{"50 f32 before sm_80 (ragged, 13 packs: two-pack twin)", prob(100000, 50, 1, f32, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w8_p2_shift"},
		{"21 bf16 before sm_80 (ragged, 3 packs: one-pack twin)", prob(267867, 21, 1, spec.BFloat16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w4_p1_shift"},
		{"126 bf16 before sm_80 (span of 17 packs: three a lane over 8 lanes)", prob(350785, 126, 1, spec.BFloat16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w8_p3_shift"},
		{"30 bf16 before sm_80 (span of 5 packs against 4: element-wise)", prob(200000, 30, 1, spec.BFloat16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w4_p1"},
		{"31 f32 before sm_80 (span of 9 packs against 8: element-wise)", prob(200000, 31, 1, f32, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w8_p1"},
		{"60 bf16 before sm_80 (ragged, span of 8 packs)", prob(200000, 60, 1, spec.BFloat16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w4_p2_shift"},
		{"59 bf16 log_softmax before sm_80 (span of 9 packs: three a lane over 4 lanes)", prob(74862, 59, 1, spec.BFloat16, spec.LogSoftmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w4_p3_shift"},
		{"42 f32 log_softmax before sm_80 (span of 11 packs: f32 keeps two a lane over 8)", prob(29440, 42, 1, f32, spec.LogSoftmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w8_p2_shift"},
		{"10 f32 before sm_80 (ragged, 3 packs)", prob(1000000, 10, 1, f32, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f32_w2_p2_shift"},
		{"66 f16 before sm_80 (ragged, span of 9 packs)", prob(200000, 66, 1, f16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f16_w4_p3_shift"},
		{"75 bf16 before sm_80 (ragged, span of 11 packs)", prob(200000, 75, 1, spec.BFloat16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_bf16_w4_p3_shift"},
		{"75 f16 before sm_80 (ragged, span of 11 packs: two-pack twin)", prob(200000, 75, 1, f16, spec.Softmax), sm70, kernels.WarpRow, "warp_row_fwd_f16_w8_p2_shift"},
		{"50 f32 backward before sm_80 (ragged, span of 14 packs: one-pack twin)", prob(100000, 50, 1, f32, spec.SoftmaxBackward), sm70, kernels.WarpRow, "warp_row_bwd_f32_w16_p1_shift"},
		{"31 f32 backward before sm_80 (span of 9 packs against 8: element-wise)", prob(200000, 31, 1, f32, spec.SoftmaxBackward), sm70, kernels.WarpRow, "warp_row_bwd_f32_w8_p1"},
		{"100 bf16 log_softmax backward before sm_80 (ragged: one-pack twin)", prob(200000, 100, 1, spec.BFloat16, spec.LogSoftmaxBackward), sm70, kernels.WarpRow, "warp_row_bwd_bf16_w16_p1_shift"},
		{"126 bf16 backward before sm_80 (span of 17 packs: one-pack twin)", prob(350785, 126, 1, spec.BFloat16, spec.SoftmaxBackward), sm70, kernels.WarpRow, "warp_row_bwd_bf16_w32_p1_shift"},
		{"126 f16 backward before sm_80 (span of 17 packs: two-pack twin)", prob(200000, 126, 1, f16, spec.SoftmaxBackward), sm70, kernels.WarpRow, "warp_row_bwd_f16_w16_p2_shift"},
		// Forward rows of 2..32 packs on the 16-byte paths: half the lanes,
		// two packs each (halfGroups); element-wise rows and rows past 32
		// packs keep one pack a lane.
		{"100 f32 (two packs a lane)", prob(32768, 100, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w16_p2"},
		{"44 f32 (11 packs: two a lane, no four-lane f32 three-pack group)", prob(100000, 44, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w8_p2"},
		{"128 f32 (32 packs)", prob(131072, 128, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w16_p2"},
		{"16 f32 (4 packs)", prob(524288, 16, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w2_p2"},
		{"8 f32 (2 packs)", prob(16384, 8, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w1_p2"},
		{"4 f32 (one pack)", prob(16384, 4, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w1_p1"},
		{"200 bf16 log_softmax (25 packs)", prob(131072, 200, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w16_p2"},
		{"120 f16 (15 packs: one pack a lane)", prob(65536, 120, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w16_p1"},
		{"128 bf16 (16 packs)", prob(65536, 128, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w8_p2"},
		{"40 f16 (5 packs)", prob(65536, 40, 1, f16, spec.LogSoftmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w4_p2"},
		{"96 f32, unaligned pointers before sm_80", unaligned(prob(32768, 96, 1, f32, spec.Softmax)), sm70, kernels.WarpRow, "warp_row_fwd_f32_w32_p1"},
		// Backward rows from 17 packs (bwdHalfGroups).
		{"96 f32 backward (24 packs)", prob(32768, 96, 1, f32, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f32_w16_p2"},
		{"32 f32 backward (8 packs: one a lane)", prob(65536, 32, 1, f32, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f32_w8_p1"},
		{"64 f16 backward (8 packs: one a lane)", prob(65536, 64, 1, f16, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f16_w8_p1"},
		{"200 bf16 backward (25 packs)", prob(131072, 200, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_bf16_w16_p2"},
		// Three packs a lane where that group is smaller than the
		// power-of-two one (threePackLanes): 17-24 packs over 8 lanes,
		// 33-48 over 16, 16-bit 9-12 over 4; not backward.
		{"96 f32 (24 packs)", prob(32768, 96, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w8_p3"},
		{"160 f32 (40 packs)", prob(32768, 160, 1, f32, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f32_w16_p3"},
		{"160 f32 backward (40 packs)", prob(32768, 160, 1, f32, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f32_w32_p2"},
		{"96 f16 (12 packs)", prob(65536, 96, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w4_p3"},
		{"66 f16 (ragged: flat_rows, 16-bit forward 16..128 columns; 16 lanes × 5 values)", prob(200000, 66, 1, f16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f16_w16_n5"},
		{"75 bf16 (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(200000, 75, 1, spec.BFloat16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_bf16_w8_n10"},
		{"75 f16 (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(200000, 75, 1, f16, spec.Softmax), h100, kernels.FlatRows, "flat_rows_fwd_f16_w8_n10"},
		{"90 f16 log_softmax (ragged: flat_rows, 16-bit forward 16..128 columns)", prob(50000, 90, 1, f16, spec.LogSoftmax), h100, kernels.FlatRows, "flat_rows_fwd_f16_w16_n6"},
		{"192 bf16 (24 packs)", prob(100000, 192, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w8_p3"},
		{"384 bf16 (48 packs)", prob(65536, 384, 1, spec.BFloat16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_bf16_w16_p3"},
		{"300 f16 (ragged, 38 packs)", prob(65536, 300, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w16_p3_shift"},
		{"1001 f32 backward (ragged: block_reg's twin)", prob(4096, 1001, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p1_shift"},
		{"1001 f16 backward (ragged: block_reg's twin ahead of warp_row's)", prob(8192, 1001, 1, f16, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f16_p1_shift"},
		{"4001 f32 backward (ragged: block_reg's twin, 1001 packs)", prob(4096, 4001, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p4_shift"},
		{"4095 f32 backward (ragged, 1025 packs: block_reg p4)", prob(4096, 4095, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p4_shift"},
		{"6143 f32 backward (ragged, 1537 packs: block_reg p2)", prob(4096, 6143, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p2_shift"},
		{"8191 f32 backward (ragged, 2049 packs: online_2pass)", prob(4096, 8191, 1, f32, spec.SoftmaxBackward), h100, kernels.Online2Pass, "online_2pass_bwd_f32_shift"},
		{"8187 f32 backward (ragged, 2048 packs: block_reg p2)", prob(4096, 8187, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p2_shift"},
		{"8191 bf16 backward (ragged, 1025 packs: online_2pass)", prob(4096, 8191, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.Online2Pass, "online_2pass_bwd_bf16_shift"},
		{"8191 bf16 (ragged: block_reg's twin, sized by the row)", prob(2048, 8191, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t256_p4_shift"},
		{"8193 bf16 (ragged: block_reg's 512 threads)", prob(2048, 8193, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t512_p3_shift"},
		{"16383 f16 (ragged: block_reg's longest 512-thread twin row)", prob(4096, 16383, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t512_p4_shift"},
		{"20001 f16 (ragged, many rows: block_hybrid's twin)", prob(4096, 20001, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s1_shift"},
		{"20001 f16 (ragged, fewer rows than SMs: block_reg)", prob(100, 20001, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t1024_p3_shift"},
		{"22001 f16 (ragged, many rows: block_hybrid's twin)", prob(4096, 22001, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s2_shift"},
		{"30522 f16 (ragged: block_hybrid's twin)", prob(4096, 30522, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s4_shift"},
		{"30522 f16 (ragged, fewer rows than SMs: block_reg's 1024 threads)", prob(100, 30522, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t1024_p4_shift"},
		{"132×32767 bf16 (ragged, one row an SM: block_reg's 1024-thread twin)", prob(132, 32767, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t1024_p4_shift"},
		{"200×32767 bf16 (ragged, more rows than SMs: block_hybrid's twin)", prob(200, 32767, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t512_s5_shift"},
		{"132×32767 f32 (ragged, one row an SM, past block_reg: block_hybrid's twin)", prob(132, 32767, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s9_shift"},
		{"32769 bf16 (ragged past block_reg: block_hybrid's twin)", prob(4096, 32769, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t512_s5_shift"},
		{"16383 f16 backward (ragged: online_2pass)", prob(4096, 16383, 1, f16, spec.SoftmaxBackward), h100, kernels.Online2Pass, "online_2pass_bwd_f16_shift"},
		{"26x631146 f32 (ragged few rows)", prob(26, 631146, 1, f32, spec.LogSoftmax), h100, kernels.SplitGrid, ""},
		{"781 columns (triton test)", prob(1823, 781, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p7_shift"},
		{"781 columns, unaligned pointers", unaligned(prob(1823, 781, 1, f32, spec.Softmax)), h100, kernels.WarpRow, "warp_row_fwd_f32_w32_p8"},
		{"1024 f32", prob(4096, 1024, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p8"},
		{"1024 f32 huge tensor", prob(32768, 1024, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"1024 f32 huge tensor backward (block_reg: y and dy in registers)", prob(32768, 1024, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"512 f32 backward (warp_row)", prob(4096, 512, 1, f32, spec.SoftmaxBackward), h100, kernels.WarpRow, ""},
		{"1000 f32 backward (not whole packs)", Problem{Outer: 4096, Axis: 1000, Inner: 1, DType: f32, Op: spec.SoftmaxBackward}, h100, kernels.Online2Pass, ""},
		{"2048 f16", prob(4096, 2048, 1, f16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"2048 f16 unaligned", Problem{Outer: 4096, Axis: 2048, Inner: 1, DType: f16, Op: spec.Softmax}, h100, kernels.WarpRow, "warp_row_fwd_f16_w32_p8"},
		{"1024 f16 backward", prob(4096, 1024, 1, f16, spec.SoftmaxBackward), h100, kernels.WarpRow, "warp_row_bwd_f16_w32_p4"},
		{"1025 f32", prob(4096, 1025, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t64_p5_shift"},
		{"1025 f32, unaligned pointers", unaligned(prob(4096, 1025, 1, f32, spec.Softmax)), h100, kernels.Online2Pass, ""},
		{"50257 f16 (GPT-2 vocabulary: ragged, block_hybrid's twin)", prob(512, 50257, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s9_shift"},
		{"50257 f32 (ragged past 512 threads: block_hybrid's 1024-thread twin, split_grid has none)", prob(4096, 50257, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s5_shift"},
		{"30522 bf16 backward", prob(4096, 30522, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.Online2Pass, "online_2pass_bwd_bf16_shift"},
		{"1280 f32", prob(4096, 1280, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"1280 f32 backward", prob(4096, 1280, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"1792 f32", prob(4096, 1792, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"2048 f32", prob(4096, 2048, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t64_p8"},
		{"2560 f32", prob(4096, 2560, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t128_p5"},
		{"4096 f16", prob(2048, 4096, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p4_exact"},
		// blockRegExact: 16-bit forward rows of whole packs that fill the
		// default block's four packs a thread, whose twin blocks fill more
		// threads than the default's resident blocks hold (the NVRTC 13
		// table: 56 registers, 9 of t128_p4 an SM, so 1188 rows of the same
		// block size; on the H200 the two read alike at 1057 rows,
		// nvidia-h200-2026-11-29-s68-c2.txt §3).
		{"4096 f16 one wave (blockRegExact keeps the default)", prob(1188, 4096, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p4"},
		{"4096 f16 a row past one wave (blockRegExact)", prob(1189, 4096, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p4_exact"},
		{"4096 bf16 log_softmax (blockRegExact)", prob(2048, 4096, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t128_p4_exact"},
		{"8192 f16 (blockRegExact: 128 threads × 8 packs)", prob(2048, 8192, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p8_exact"},
		{"8192 f16 whose twin's 128-thread blocks hold no more threads than t256_p4's 4 an SM (1056 rows)", prob(1056, 8192, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t256_p4"},
		{"8192 f16 a row past that (blockRegExact)", prob(1057, 8192, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p8_exact"},
		{"8192 bf16 (blockRegExact)", prob(4096, 8192, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t128_p8_exact"},
		{"8191 f16 (ragged: the shift twin, not blockRegExact)", prob(2048, 8191, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t256_p4_shift"},
		{"8192 f16 backward (no exact twin)", prob(2048, 8192, 1, f16, spec.SoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f16_p4"},
		{"8192 f32 (16-bit only)", prob(4096, 8192, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p4"},
		{"6144 f16 (three packs a thread: no exact twin)", prob(4096, 6144, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t256_p3"},
		{"4096 f32", prob(2048, 4096, 1, f32, spec.LogSoftmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t128_p8"},
		{"4096 f32 backward", prob(2048, 4096, 1, f32, spec.LogSoftmaxBackward), h100, kernels.BlockReg, "block_reg_bwd_f32_p4"},
		{"8192 f32 backward (block_reg's last)", prob(4096, 8192, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"8196 f32 backward (past block_reg, under gridBackwardRowBytes)", prob(4096, 8196, 1, f32, spec.SoftmaxBackward), h100, kernels.Online2Pass, ""},
		{"12288 f32 backward (gridBackwardRowBytes: split_grid)", prob(4096, 12288, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"32768 f32 backward (256 KB rows: split_grid)", prob(4096, 32768, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"65536 f32 backward (512 KB rows: a cluster a row)", prob(4096, 65536, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		{"65536 f32 backward without clusters", prob(4096, 65536, 1, f32, spec.SoftmaxBackward), a100, kernels.SplitGrid, ""},
		{"20480 f16 backward (80 KB rows: online_2pass)", prob(2048, 20480, 1, f16, spec.SoftmaxBackward), h100, kernels.Online2Pass, ""},
		{"16384 f32 backward unaligned", Problem{Outer: 4096, Axis: 16384, Inner: 1, DType: f32, Op: spec.SoftmaxBackward}, h100, kernels.Online2Pass, ""},
		{"2048×8192 f32 (too few rows to widen)", prob(2048, 8192, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t256_p8"},
		{"4096×8192 f32 (512 threads keep more resident)", prob(4096, 8192, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p4"},
		{"5120 f32 (5 packs: 256 threads)", prob(4096, 5120, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t256_p5"},
		{"16384 f32", prob(2048, 16384, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p8"},
		{"12288 f32", prob(2048, 12288, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p6"},
		{"32000 f32 (last pack partial: block_reg's tail kernel, blockRegDeepF32)", prob(4096, 32000, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8_tail"},
		{"28672 f32 (seven packs at 1024 threads)", prob(4096, 28672, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p7"},
		{"28672 f32 log_softmax, 24 rows an SM", prob(3168, 28672, 1, f32, spec.LogSoftmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p7"},
		{"28672 f32, under 24 rows an SM (block_hybrid)", prob(3167, 28672, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s6"},
		{"26624 f32 (6.5 packs: block_reg's p7 tail)", prob(4096, 26624, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p7_tail"},
		{"24576 f32 (six packs at 1024 threads: block_hybrid)", prob(4096, 24576, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s4"},
		{"28671 f32 ragged (block_reg's twin)", prob(4096, 28671, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"24575 f32 ragged (block_hybrid's twin)", prob(4096, 24575, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"28672 f16 (not the f32 rule)", prob(4096, 28672, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"32768 f32 (fills block_reg's t1024_p8)", prob(4096, 32768, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8"},
		{"32760 f32 (block_reg's tail kernel, last pack partial)", prob(4096, 32760, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8_tail"},
		{"32760 f32, fewer rows (block_hybrid, last pack partial)", prob(1024, 32760, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s8"},
		{"32768 f16 (not the f32 carve-out)", prob(4096, 32768, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s4"},
		{"20000 f32 (packs end early)", prob(4096, 20000, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s2"},
		{"20480 f32", prob(2048, 20480, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"40960 f32", prob(2048, 40960, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s12"},
		{"20480 f16", prob(4096, 20480, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s1"},
		{"65536 bf16", prob(1024, 65536, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t512_s12"},
		{"16384 f32 (512 threads' registers)", prob(4096, 16384, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p8"},
		{"20480 f32 backward", prob(4096, 20480, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"20480 f32 backward without cooperative launch", prob(4096, 20480, 1, f32, spec.SoftmaxBackward), noCoop, kernels.Online2Pass, ""},
		// Fewer rows than SMs: every block has an SM to itself, so
		// block_reg's 1024-thread blocks stay (without clusters; with them
		// rows past 96 KB go to split_cluster, fewMidRows).
		{"32000 f32 few rows (last pack partial)", prob(64, 32000, 1, f32, spec.Softmax), a100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p8_tail"},
		{"20000 f32 few rows (packs end early)", prob(64, 20000, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t1024_p5_tail"},
		{"16384 f16", prob(2048, 16384, 1, f16, spec.Softmax), h100, kernels.BlockSmem, ""},
		{"8192 f16", prob(2048, 8192, 1, f16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"2048 f16 small tensor", prob(2048, 2048, 1, f16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"1024 f16 huge tensor", prob(524288, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t64_p2_exact"},
		{"1024 f16 whose 64-thread twin blocks fill no more threads than the one-warp blocks hold (2112 rows)", prob(2112, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t32_p4"},
		{"1024 f16 a row past that (blockRegExact)", prob(2113, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t64_p2_exact"},
		{"1024 bf16 16 MB", prob(8192, 1024, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"2048 bf16 many rows", prob(16384, 2048, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t64_p4_exact"},
		{"2048 f16 many rows backward", prob(16384, 2048, 1, f16, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"16384 f16 backward (block_reg's last)", prob(4096, 16384, 1, f16, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"32768 f16 backward (split_grid)", prob(1024, 32768, 1, f16, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"32768 f32 many rows", prob(4096, 32768, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"32768 f32 unaligned", Problem{Outer: 4096, Axis: 32768, Inner: 1, DType: f32, Op: spec.Softmax}, h100, kernels.Online2Pass, ""},
		{"50000 f32 A100", prob(1000, 50000, 1, f32, spec.Softmax), a100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s5"},
		{"row larger than smem", prob(1000, 1<<20, 1, f32, spec.Softmax), h100, kernels.Online2Pass, "online_2pass_fwd_f32"},
		{"1×100M", prob(1, 100000000, 1, f32, spec.Softmax), h100, kernels.SplitRow, "split_row_fwd_f32_phase1"},
		{"4×33554432", prob(4, 33554432, 1, f32, spec.Softmax), h100, kernels.SplitRow, ""},
		{"4×33554432 f16 A100", prob(4, 33554432, 1, f16, spec.LogSoftmax), a100, kernels.SplitRow, ""},
		{"8×64K f32 clusters", prob(8, 65536, 1, f32, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f32"},
		{"8×256K f32 (1 MB rows: past clusterRowBytes; 8 MB: split_grid)", prob(8, 262144, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"8×256K f32 backward (1 MB rows: past clusterRowBytes; 16 MB: split_grid)", prob(8, 262144, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"4×256K f16 (512 KB rows: past clusterRowBytes; 2 MB: split_grid)", prob(4, 262144, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1×128K f32 (512 KB: grid_caches(262144) in few.grid.split_row)", prob(1, 131072, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1×96K f32 (past gridClusterMinCols: split_grid over a cluster)", prob(1, 98304, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1×48K f32 (192 KB, shorter than gridClusterMinCols: a cluster)", prob(1, 49152, 1, f32, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"1×100K f32 (400 KB, past clusterRowBytes: split_grid)", prob(1, 102400, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1×100K f32 unaligned (split_row: split_grid caches packs)", Problem{Outer: 1, Axis: 102400, Inner: 1, DType: f32, Op: spec.Softmax}, h100, kernels.SplitRow, ""},
		{"1×64K f32 backward (512 KB: grid_caches(262144) in few.grid.split_row)", prob(1, 65536, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"32×64K f32 backward (512 KB rows a block would read twice)", prob(32, 65536, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"1×256K f32 (1 MB: grid_caches(262144) in few.grid.split_row)", prob(1, 262144, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"4×64K f16 (gridClusterMinCols: split_grid over clusters)", prob(4, 65536, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"4×32K f32 (512 KB in rows shorter than gridClusterMinCols: clusters)", prob(4, 32768, 1, f32, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"4×128K f16 (split_grid over clusters)", prob(4, 131072, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"5×128K f16 (more than gridClusterFewRows: clusters)", prob(5, 131072, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"4×64K f16 backward (256 KB rows: split_grid over clusters)", prob(4, 65536, 1, f16, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"4×16K f32 backward (128 KB rows: clusters)", prob(4, 16384, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		{"16×32K f32 backward (more than gridClusterFewRowsBwd: clusters)", prob(16, 32768, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		{"8×64K f16 (more than four rows: clusters)", prob(8, 65536, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"4×16K f16 (128 KB: a block per row)", prob(4, 16384, 1, f16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"64×1M f32 (256 MB: split_grid in 4 waves of 64 MB)", prob(64, 1048576, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"2×32M f32 (128 MB rows: past a split_grid wave)", prob(2, 33554432, 1, f32, spec.Softmax), h100, kernels.SplitRow, ""},
		{"4×32M f16 (64 MB rows: split_grid, a row a wave)", prob(4, 33554432, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"16×2560 f32 backward (short rows: the model keeps a block, block_reg)", prob(16, 2560, 1, f32, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"8×256K f32 no clusters", prob(8, 262144, 1, f32, spec.Softmax), a100, kernels.SplitGrid, ""},
		{"8×256K f32 no clusters, backward", prob(8, 262144, 1, f32, spec.SoftmaxBackward), a100, kernels.SplitGrid, ""},
		{"8×256K f32 backward without cooperative launch", prob(8, 262144, 1, f32, spec.SoftmaxBackward), noCoop, kernels.SplitRow, ""},
		{"16×64K f16 backward", prob(16, 65536, 1, f16, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		{"64×16K few short rows", prob(64, 16384, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"64×20K few short rows", prob(64, 20480, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"many rows of 512", prob(1<<22, 512, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p4"},
		{"many rows of 384", prob(1<<22, 384, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"many rows of 256", prob(1<<22, 256, 1, f32, spec.Softmax), h100, kernels.WarpRow, ""},
		{"many rows of 320", prob(4096, 320, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"f32 rows just over 1 KB", prob(4096, 260, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p3"},
		{"f16 rows of 1 KB", prob(16384, 512, 1, f16, spec.Softmax), h100, kernels.WarpRow, "warp_row_fwd_f16_w32_p2"},
		{"f16 rows just over 1 KB", prob(4096, 520, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t32_p3"},
		{"bf16 rows of 1.5 KB", prob(65536, 768, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_bf16_t32_p3"},
		{"4×16384 f16 (fewer rows than SMs)", prob(4, 16384, 1, f16, spec.Softmax), h100, kernels.BlockReg, ""},
		{"4096×16384 f16", prob(4096, 16384, 1, f16, spec.Softmax), h100, kernels.BlockSmem, ""},
		{"many rows of 4096", prob(1<<20, 4096, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"128×128256 bf16 (llama vocab: 256 KB rows a block would read twice)", prob(128, 128256, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"64×262144 f16 (512 KB rows a block would read twice)", prob(64, 262144, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"120×100000 f32 (400 KB rows a block would read twice)", prob(120, 100000, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"120×81920 bf16 (160 KB rows past one wave of clusters: split_grid)", prob(120, 81920, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"90×81920 bf16 (one wave of clusters: fewMidRows)", prob(90, 81920, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_bf16"},
		{"92×81920 bf16 (92 of 99 clusters counted resident: the last in one wave)", prob(92, 81920, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"93×81920 bf16 (past 15/16 of 99 clusters: split_grid)", prob(93, 81920, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"99×81920 bf16 (blocks fit one wave, GPC-packed clusters do not)", prob(99, 81920, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"80×81920 f16 (one wave of clusters)", prob(80, 81920, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"80×73728 bf16 (144 KB rows, one wave of clusters)", prob(80, 73728, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"100×73728 bf16 (144 KB rows past one wave)", prob(100, 73728, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"80×40960 f32 (160 KB rows, one wave of clusters, not block_hybrid)", prob(80, 40960, 1, f32, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"120×40960 f32 (past one wave of clusters: split_grid, not block_hybrid)", prob(120, 40960, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"120×40960 f32 log_softmax (fewMidRows serves both forward ops)", prob(120, 40960, 1, f32, spec.LogSoftmax), h100, kernels.SplitGrid, ""},
		{"100×100003 bf16 (ragged: fewMidRows takes whole packs only)", prob(100, 100003, 1, spec.BFloat16, spec.Softmax), h100, kernels.Online2Pass, ""},
		{"100×81920 bf16 backward (fewMidRows is forward only)", prob(100, 81920, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"90×65544 bf16 (just past 128 KB: fewMidRows' shortest rows)", prob(90, 65544, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"120×97280 f16 (190 KB: fewMidRows' longest rows, past one wave)", prob(120, 97280, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"80×81920 bf16 A100 (no clusters: fewMidRows not measured, a block per row)", prob(80, 81920, 1, spec.BFloat16, spec.Softmax), a100, kernels.Online2Pass, ""},
		// With NVRTC 13's registers (split_cluster_fwd_f32 62) the model's
		// estimate holds no 8-block cluster of each of 128 rows at once, as
		// the H200's driver did not (-s68-c2.txt §3: split_grid 16.0 µs,
		// block_reg 15.6, split_cluster 19.1 on 128×32768 f32).
		{"128×32768 f32 (128 KB rows, fewer than SMs: the clusters do not fit)", prob(128, 32768, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"128×32000 f32 log_softmax (125 KB rows: block_reg)", prob(128, 32000, 1, f32, spec.LogSoftmax), h100, kernels.BlockReg, ""},
		{"128×32768 f32 A100 (no clusters: block_reg)", prob(128, 32768, 1, f32, spec.Softmax), a100, kernels.BlockReg, ""},
		{"128×32768 f32 backward (fewMidRows is forward only)", prob(128, 32768, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"82×26624 f32 (104 KB rows: at fewMidRows' row edge, clusters)", prob(82, 26624, 1, f32, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"83×26624 f32 (104 KB rows past the edge: block_reg)", prob(83, 26624, 1, f32, spec.Softmax), h100, kernels.BlockReg, ""},
		{"49×49152 bf16 (96 KB rows: at the edge, clusters)", prob(49, 49152, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"50×49152 bf16 (96 KB rows past the edge: block_hybrid)", prob(50, 49152, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"64×45056 f16 (88 KB: under fewMidRows' rows, block_hybrid)", prob(64, 45056, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"40×49160 f16 (ragged: fewMidRows takes whole packs only)", prob(40, 49160-3, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"100×49152 f32 (192 KB: past one wave of clusters, split_grid)", prob(100, 49152, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"64×32768 f16 (fewer rows than SMs)", prob(64, 32768, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t1024_p4"},
		{"few rows of 1024 f16: a pack a thread", prob(128, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p1"},
		{"few rows of 1024 f32: a pack a thread", prob(128, 1024, 1, f32, spec.LogSoftmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t256_p1"},
		{"4 rows a SM of 1024 f16: a pack a thread", prob(528, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t128_p1"},
		{"past 4 rows a SM: one warp a row", prob(529, 1024, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t32_p4"},
		{"few rows of 512 f32 keep one warp", prob(128, 512, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t32_p4"},
		{"few rows of 4096 f32: 512 threads × 2 packs", prob(132, 4096, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t512_p2"},
		{"few rows of 4096 f32 past a wave's threads", prob(265, 4096, 1, f32, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f32_t128_p8"},
		{"few rows of 16384 f16 keep 512 threads", prob(4, 16384, 1, f16, spec.Softmax), h100, kernels.BlockReg, "block_reg_fwd_f16_t512_p4"},
		{"64×50000 bf16 (few 16-bit rows past block_reg: block_hybrid)", prob(64, 50000, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t1024_s3"},
		{"128×50000 bf16 (97 KB rows past fewMidRows' edge, 90% of the SMs: split_grid)", prob(128, 50000, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"100×50000 bf16 A100 (no clusters: block_hybrid)", prob(100, 50000, 1, spec.BFloat16, spec.Softmax), a100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t1024_s3"},
		{"64×65536 f16 (few 128 KB 16-bit rows: clusters, clusterUnevenRows)", prob(64, 65536, 1, f16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f16"},
		{"128×65536 f16 backward (block_hybrid is forward only: split_grid)", prob(128, 65536, 1, f16, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"128×16384 f16 backward (64 KB rows: a block per row, block_reg)", prob(128, 16384, 1, f16, spec.SoftmaxBackward), h100, kernels.BlockReg, ""},
		{"64×131072 f16 (two split_grid blocks a row beat a cluster)", prob(64, 131072, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"64×65536 f32 (two split_grid blocks a row beat a cluster)", prob(64, 65536, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"45×131072 f16 (split_grid would idle a third of the SMs)", prob(45, 131072, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"32×131072 f16 (four blocks a row: the cluster)", prob(32, 131072, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"4096×65536 f32", prob(4096, 65536, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s8"},
		{"4096×131072 f16 (many rows: 1024-thread block_hybrid)", prob(4096, 131072, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t1024_s12"},
		{"528×131072 f16 (under 7 rows an SM: split_grid)", prob(528, 131072, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1024×151936 bf16 (past block_hybrid: split_grid)", prob(1024, 151936, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"264×65536 f32 (past 512 threads, under 7 rows an SM: split_grid)", prob(264, 65536, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1024×65536 f32 (1024-thread block_hybrid)", prob(1024, 65536, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s8"},
		{"2048×128256 bf16 log_softmax (1024-thread block_hybrid)", prob(2048, 128256, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.BlockHybrid, ""},
		{"1024×100003 bf16 (ragged long rows: block_hybrid's 1024-thread twin)", prob(1024, 100003, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t1024_s9_shift"},
		{"132×100003 f16 (ragged long rows, one an SM: online_2pass's twin)", prob(132, 100003, 1, f16, spec.Softmax), h100, kernels.Online2Pass, "online_2pass_fwd_f16_shift"},
		{"264×70001 f16 (ragged long rows, two an SM: online_2pass's twin)", prob(264, 70001, 1, f16, spec.Softmax), h100, kernels.Online2Pass, "online_2pass_fwd_f16_shift"},
		{"265×70001 f16 (ragged long rows, past two an SM: block_hybrid's 1024-thread twin)", prob(265, 70001, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t1024_s5_shift"},
		{"330×100003 bf16 (ragged long rows, 2.5 an SM: block_hybrid's 1024-thread twin)", prob(330, 100003, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t1024_s9_shift"},
		// gridOneWave: one row an SM of >= 96 KB goes to split_grid,
		// from block_hybrid's 512-thread blocks and block_reg's 1024-thread
		// ones; 80 KB rows, and one row more or less, keep the block.
		{"132×40960 f32 (one row an SM: split_grid)", prob(132, 40960, 1, f32, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"132×24576 f32 (one row an SM of 96 KB: split_grid)", prob(132, 24576, 1, f32, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"132×32768 f32 (one row an SM, block_reg's exact row: split_grid)", prob(132, 32768, 1, f32, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"132×65536 bf16 (one row an SM: split_grid)", prob(132, 65536, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_bf16"},
		{"132×20480 f32 (one row an SM of 80 KB: block_hybrid)", prob(132, 20480, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s2"},
		{"132×40960 f16 (one row an SM of 80 KB: block_hybrid)", prob(132, 40960, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s6"},
		{"133×65536 f16 (one row past an SM each: half of block_hybrid's slots, clusterUnevenRows)", prob(133, 65536, 1, f16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f16"},
		{"133×40960 f16 (one row past an SM each, 80 KB rows: block_hybrid)", prob(133, 40960, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s6"},
		{"132×40960 f32 log_softmax (one row an SM: split_grid)", prob(132, 40960, 1, f32, spec.LogSoftmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"132×40960 f32 backward (forward rule only: split_cluster)", prob(132, 40960, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		{"1024×151936 bf16 backward (not this rule)", prob(1024, 151936, 1, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.SplitCluster, ""},
		// clusterUnevenRows: rows that fill at most 65% of block_hybrid's
		// 512-thread slots (16-bit rows of 120-128 KB) or of split_grid's
		// one-block rows (up to clusterRowBytes) over their waves.
		{"100×61440 bf16 (fewer rows than SMs, 120 KB: clusters)", prob(100, 61440, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_bf16"},
		{"100×57344 f16 (fewer rows than SMs, 112 KB: clusters, fewMidRows)", prob(100, 57344, 1, f16, spec.Softmax), h100, kernels.SplitCluster, ""},
		{"116×57344 f16 (112 KB, past fewMidRows' edge of 115 rows: block_hybrid)", prob(116, 57344, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"119×57344 f16 (past the edge, 90% of the SMs: split_grid)", prob(119, 57344, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"166×65536 f16 (63% of block_hybrid's slots: clusters)", prob(166, 65536, 1, f16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f16"},
		{"171×65536 bf16 log_softmax (65% of the slots: clusters)", prob(171, 65536, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.SplitCluster, "split_cluster_fwd_bf16"},
		{"172×65536 bf16 (past 65% of the slots: block_hybrid)", prob(172, 65536, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_bf16_t512_s12"},
		{"200×65536 f16 (76% of the slots: block_hybrid)", prob(200, 65536, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s12"},
		{"264×65536 f16 (two rows an SM: block_hybrid)", prob(264, 65536, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f16_t512_s12"},
		{"300×65536 bf16 (two waves, 57% of the slots: clusters)", prob(300, 65536, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_bf16"},
		{"396×61440 f16 (two waves, 75%: block_hybrid)", prob(396, 61440, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"166×57344 f16 (112 KB rows: block_hybrid)", prob(166, 57344, 1, f16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"166×40960 f32 (f32 rows of block_hybrid's 512 threads: not taken)", prob(166, 40960, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t512_s12"},
		{"166×65536 f16 without clusters (block_hybrid)", prob(166, 65536, 1, f16, spec.Softmax), a100, kernels.BlockHybrid, ""},
		{"166×65536 f16 backward (forward rule only)", prob(166, 65536, 1, f16, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"166×128256 bf16 (63% of split_grid's one-block rows: clusters)", prob(166, 128256, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_bf16"},
		{"166×65536 f32 (63% of split_grid's rows: clusters)", prob(166, 65536, 1, f32, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f32"},
		{"166×196608 f16 (clusterRowBytes: clusters)", prob(166, 196608, 1, f16, spec.Softmax), h100, kernels.SplitCluster, "split_cluster_fwd_f16"},
		{"166×196616 f16 (past clusterRowBytes: split_grid)", prob(166, 196616, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"200×128256 bf16 (76% of split_grid's rows: split_grid)", prob(200, 128256, 1, spec.BFloat16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"264×98304 f32 (full waves: split_grid)", prob(264, 98304, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"166×100003 f16 (ragged: not this rule)", prob(166, 100003, 1, f16, spec.Softmax), h100, kernels.Online2Pass, ""},
		{"923×65536 f32 (one row under 7 an SM: split_grid)", prob(923, 65536, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"924×65536 f32 (7 rows an SM: block_hybrid)", prob(924, 65536, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s8"},
		{"132×262144 f32 (1 MB rows: split_grid)", prob(132, 262144, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"256×262148 f32 (past 1 MB rows: online_2pass)", prob(256, 262148, 1, f32, spec.Softmax), h100, kernels.Online2Pass, ""},
		{"264×65536 f32 without cooperative launch (block_hybrid behind split_grid)", prob(264, 65536, 1, f32, spec.Softmax), noCoop, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s8"},
		{"1000×81920 f32 A100 (t1024_s12 over its shared memory: split_grid behind it)", prob(1000, 81920, 1, f32, spec.Softmax), a100, kernels.SplitGrid, ""},
		{"1000×100000 f32 (TestLargeShapes: split_grid)", prob(1000, 100000, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"1000×100000 bf16 (TestLargeShapes: 1024-thread block_hybrid)", prob(1000, 100000, 1, spec.BFloat16, spec.Softmax), h100, kernels.BlockHybrid, ""},
		{"4×1M f16", prob(4, 1048576, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"strided inner 2 (a block past strided_narrow)", prob(64, 5000, 2, f32, spec.Softmax), h100, kernels.Strided, "strided_fwd_f32_split1"},
		{"strided inner 3", prob(1000, 100, 3, f16, spec.LogSoftmax), h100, kernels.Strided, ""},
		{"strided large inner backward (strided_reg)", prob(8, 64, 4096, f32, spec.SoftmaxBackward), h100, kernels.StridedReg, "strided_reg_bwd_f32_g32"},
		{"strided large inner backward A100 (a block holds 64 rows)", prob(8, 64, 4096, f16, spec.LogSoftmaxBackward), a100, kernels.StridedReg, "strided_reg_bwd_f16_g32"},
		{"axis 0 of 4096×4096 backward (8-block clusters)", prob(1, 4096, 4096, f32, spec.SoftmaxBackward), h100, kernels.StridedReg, "strided_reg_bwd_f32_g8"},
		{"axis 1 of 64×1024×512 f16 backward", prob(64, 1024, 512, f16, spec.LogSoftmaxBackward), h100, kernels.StridedReg, "strided_reg_bwd_f16_g8"},
		{"axis 0 of 4096×4096 backward A100 (no clusters: strided)", prob(1, 4096, 4096, f32, spec.SoftmaxBackward), a100, kernels.Strided, "strided_bwd_f32_split1"},
		{"strided long axis split", prob(1, 10000000, 2, f32, spec.Softmax), h100, kernels.Strided, "strided_fwd_f32_split1"},
		{"strided axis 1", prob(100, 1, 7, f32, spec.Softmax), h100, kernels.Strided, "strided_fwd_f32"},
		{"axis 0 of 4096×65536", prob(1, 4096, 65536, f32, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f32_g8"},
		{"axis 0 of 4096×65536 A100", prob(1, 4096, 65536, f32, spec.Softmax), a100, kernels.Strided, ""},
		{"axis 1 of 32×512×8192 A100", prob(32, 512, 8192, f32, spec.LogSoftmax), a100, kernels.StridedReg, "strided_reg_fwd_f32_g8"},
		{"axis 1 of 128×128×8192", prob(128, 128, 8192, f32, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f32_g32"},
		{"axis of 32: a lane pair", prob(128, 32, 4096, f32, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f32_p16"},
		{"backward axis of 32: four lanes", prob(128, 32, 4096, f32, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_f32_q8"},
		{"axis of 64", prob(256, 64, 4096, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"axis of 128, Inner of 251 packs (a part tile)", prob(131, 128, 1004, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"Inner under one 8-pack tile: strided_smem", prob(4096, 128, 28, f32, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"ragged Inner, backward of 24 rows: four-lane twin", prob(56, 24, 12269, f32, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_f32_q6_shift"},
		{"ragged Inner, long axis: strided_reg's twin", prob(64, 512, 8191, spec.BFloat16, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_bf16_g8_shift"},
		{"ragged Inner over a cluster: strided_reg's twin", prob(1, 3986, 12487, f16, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f16_g8_shift"},
		{"ragged Inner of 49 rows: strided_smem", prob(3000, 49, 129, f16, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"narrow Inner past 32 rows: strided_narrow", prob(100000, 64, 4, f32, spec.Softmax), h100, kernels.StridedNarrow, "strided_narrow_fwd_f32_h2"},
		{"narrow Inner at 33 rows: strided_narrow", prob(100000, 33, 4, f32, spec.Softmax), h100, kernels.StridedNarrow, "strided_narrow_fwd_f32_h2"},
		{"narrow Inner of 16 rows: strided_smem", prob(200000, 16, 4, f32, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"narrow Inner, 16-bit, rows within a pack", prob(30000, 200, 4, f16, spec.Softmax), h100, kernels.StridedNarrow, "strided_narrow_fwd_f16_h4"},
		{"narrow Inner, blocks not of whole packs: the twin", prob(100000, 99, 2, f32, spec.Softmax), h100, kernels.StridedNarrow, "strided_narrow_fwd_f32_h2_shift"},
		{"narrow Inner, unaligned: the twin", Problem{Outer: 20000, Axis: 100, Inner: 8, DType: f16, Op: spec.Softmax}, h100, kernels.StridedNarrow, "strided_narrow_fwd_f16_h4_shift"},
		{"narrow Inner, 8 warps an outer index: strided_smem", prob(2000, 1000, 8, f32, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"narrow Inner, backward", prob(100000, 64, 4, f32, spec.SoftmaxBackward), h100, kernels.StridedNarrow, "strided_narrow_bwd_f32_h2"},
		{"narrow Inner, backward over 8 warps: strided_smem", prob(5212, 693, 8, f16, spec.SoftmaxBackward), h100, kernels.StridedSmem, ""},
		{"narrow Inner, f32 backward over 8 warps: strided_smem", prob(2000, 1000, 8, f32, spec.SoftmaxBackward), h100, kernels.StridedSmem, ""},
		{"narrow Inner, backward over 2 warps: strided_smem", prob(11775, 210, 8, f16, spec.LogSoftmaxBackward), h100, kernels.StridedSmem, ""},
		{"narrow Inner, block past 8 warps: strided_smem", prob(1000, 2000, 8, f32, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"ragged Inner, 16-bit: strided_smem", prob(3000, 49, 129, f16, spec.Softmax), h100, kernels.StridedSmem, "strided_smem_fwd_f16"},
		{"small blocks: strided_smem's tiles", prob(100000, 64, 3, f32, spec.Softmax), h100, kernels.StridedSmem, "strided_smem_fwd_f32_tiles"},
		{"whole 8-pack tiles: strided_reg ahead of strided_smem", prob(4000, 128, 32, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"axis under 8 rows, narrow Inner: strided_short ahead of strided_smem", prob(100000, 4, 8, f16, spec.Softmax), h100, kernels.StridedShort, ""},
		{"few outer indices: not strided_smem", prob(34, 160, 185, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"one strided_smem block an SM: strided_reg", prob(500, 64, 1001, f16, spec.Softmax), h100, kernels.StridedReg, ""},
		{"Inner of 16 at 9 rows: strided_short ahead of strided_smem", prob(6145, 9, 16, f32, spec.SoftmaxBackward), h100, kernels.StridedShort, ""},
		{"narrow Inner, few outer indices", prob(4, 1000, 4, f32, spec.Softmax), h100, kernels.StridedNarrow, "strided_narrow_fwd_f32_h8"},
		{"narrow Inner, f32 at 24 rows: strided_smem", prob(200000, 24, 4, f32, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"narrow Inner, f16 at 24 rows: strided_smem", prob(100000, 24, 8, f16, spec.Softmax), h100, kernels.StridedSmem, ""},
		{"narrow Inner, backward at 24 rows: strided_smem", prob(200000, 24, 4, f32, spec.SoftmaxBackward), h100, kernels.StridedSmem, ""},
		{"narrow Inner, backward at 32 rows: strided_narrow", prob(200000, 32, 4, f32, spec.SoftmaxBackward), h100, kernels.StridedNarrow, ""},
		{"Inner of 8 packs: strided_reg", prob(4000, 128, 32, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"ragged Inner, backward past 32 rows: strided", prob(1000, 50, 333, f32, spec.SoftmaxBackward), h100, kernels.Strided, ""},
		{"ragged Inner, long axis, unaligned: strided_reg's twin", Problem{Outer: 100, Axis: 1000, Inner: 1000, DType: f32, Op: spec.Softmax}, h100, kernels.StridedReg, "strided_reg_fwd_f32_g16_shift"},
		{"ragged Inner, split axis: one slice a thread", prob(1, 100000, 33, f16, spec.Softmax), h100, kernels.Strided, "strided_fwd_f16_split1"},
		{"ragged Inner, backward of 32 rows: four-lane twin", prob(8192, 32, 37, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_bf16_q8_shift"},
		{"short axis, whole packs", prob(131072, 4, 64, f16, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f16_a4"},
		{"short axis of 16 f32", prob(4096, 16, 512, f32, spec.LogSoftmax), h100, kernels.StridedShort, "strided_short_fwd_f32_a16"},
		{"short axis backward, 8 f32 rows", prob(32768, 8, 128, f32, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_f32_a8"},
		{"16-bit backward of 8 rows: packed tile", prob(4096, 8, 1024, spec.BFloat16, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_bf16_a8"},
		{"16-bit forward of 16 rows: packed tile", prob(2048, 16, 512, f16, spec.LogSoftmax), h100, kernels.StridedShort, "strided_short_fwd_f16_a16"},
		{"backward of 9 rows: a lane pair", prob(4096, 9, 1024, f32, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_f32_p5"},
		{"f32 axis of 17 rows: a lane pair", prob(1024, 17, 4096, f32, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f32_p9"},
		{"axis of 32, ragged Inner: a lane-pair twin", prob(8192, 32, 37, spec.BFloat16, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_bf16_p16_shift"},
		{"axis of 33 rows: four lanes", prob(1024, 33, 4096, f32, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f32_q9"},
		{"axis of 48 rows: four lanes, ahead of strided_reg", prob(2048, 48, 512, spec.BFloat16, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_bf16_q12"},
		{"axis past 48 rows", prob(1024, 49, 4096, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"backward of 17 rows: four lanes", prob(1024, 17, 4096, f16, spec.SoftmaxBackward), h100, kernels.StridedShort, "strided_short_bwd_f16_q5"},
		{"backward past 32 rows", prob(1024, 33, 4096, f16, spec.SoftmaxBackward), h100, kernels.Strided, ""},
		{"short axis, ragged Inner: twin", prob(20000, 16, 101, f32, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f32_a16_shift"},
		{"short axis, narrow ragged Inner: twin", prob(5000, 3, 7, f32, spec.Softmax), h100, kernels.StridedShort, "strided_short_fwd_f32_a3_shift"},
		{"axis longer than a cluster holds", prob(1, 16384, 4096, f32, spec.Softmax), h100, kernels.Strided, ""},
		{"f16 axis 1 of 64×1024×512 (one block of 64 packed values a thread per tile)", prob(64, 1024, 512, f16, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f16_g8"},
		{"bf16 axis 0 of 4096×4096 (a 4-block cluster)", prob(1, 4096, 4096, spec.BFloat16, spec.Softmax), h100, kernels.StridedReg, ""},
		{"f16 axis 1 of 64×1024×32 (inner narrower than an 8-pack tile)", prob(64, 1024, 32, f16, spec.Softmax), h100, kernels.Strided, ""},
		{"inner narrower than a tile", prob(64, 1024, 16, f32, spec.Softmax), h100, kernels.Strided, ""},
		{"blocks for fewer than half the SMs", prob(1, 8192, 128, f32, spec.Softmax), h100, kernels.Strided, ""},
		{"blocks for most SMs", prob(1, 4096, 1024, f32, spec.Softmax), h100, kernels.StridedReg, ""},
		{"axis 0 of 4096×4096 (few tiles: 8-block clusters)", prob(1, 4096, 4096, f32, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f32_g8"},
		{"tile as wide as inner", prob(200, 130, 32, f32, spec.Softmax), h100, kernels.StridedReg, "strided_reg_fwd_f32_g8"},
		{"vector 2^24 (64 MB: split_grid)", prob(1, 1<<24, 1, f32, spec.Softmax), h100, kernels.SplitGrid, "split_grid_fwd_f32"},
		{"vector 2^24 backward (128 MB of inputs: past 4× the grid's shared memory)", prob(1, 1<<24, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitRow, ""},
		{"vector 12582912 backward (96 MB of inputs: split_grid)", prob(1, 12582912, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitGrid, ""},
		{"vector 2^25 (128 MB: past 4× the grid's shared memory)", prob(1, 1<<25, 1, f32, spec.Softmax), h100, kernels.SplitRow, ""},
		{"2×2^24 f32 (128 MB in rows of a wave: split_grid)", prob(2, 1<<24, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"vector 10^8 backward (800 MB of inputs: split_row)", prob(1, 100000000, 1, f32, spec.SoftmaxBackward), h100, kernels.SplitRow, ""},
		{"vector 2^24 without cooperative launch", prob(1, 1<<24, 1, f32, spec.Softmax), noCoop, kernels.SplitRow, ""},
		{"vector 2^24 unaligned (nothing to cache)", Problem{Outer: 1, Axis: 1 << 24, Inner: 1, DType: f32, Op: spec.Softmax}, h100, kernels.SplitRow, ""},
		{"4×4194304 f16 (32 MB: split_grid)", prob(4, 4194304, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"8×4194304 f32 (128 MB: split_grid)", prob(8, 4194304, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"2×2097152 f16 (8 MB: split_grid from 1 MB)", prob(2, 2097152, 1, f16, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"128×262144 f32 (1 MB rows a block would read twice)", prob(128, 262144, 1, f32, spec.Softmax), h100, kernels.SplitGrid, ""},
		{"128×65536 f32 (256 KB rows: one read with 1024-thread block_hybrid)", prob(128, 65536, 1, f32, spec.Softmax), h100, kernels.BlockHybrid, "block_hybrid_fwd_f32_t1024_s8"},
	}
	for _, c := range cases {
		pl := mustMake(t, c.p, c.d, "")
		if kernels.Strategy(pl.Strategy) != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.name, pl.Strategy, pl.Reason, c.want)
			continue
		}
		if c.sym != "" && pl.Launches[0].Symbol != c.sym {
			t.Errorf("%s: symbol %s, want %s", c.name, pl.Launches[0].Symbol, c.sym)
		}
	}
}

// Every strategy, forced, on a sweep of shapes, dtypes and ops: either a
// plan that meets the kernel contracts or an error (never a panic).
func TestForcedSweep(t *testing.T) {
	shapes := [][3]int64{
		{1, 1, 1}, {3, 5, 1}, {1024, 33, 1}, {7, 1000, 1}, {1, 4097, 1}, {256, 4096, 1}, {100, 8192, 1},
		{10, 16384, 1}, {3, 60000, 1}, {2, 120000, 1}, {1, 1 << 20, 1}, {1 << 20, 300, 1}, {70000, 64, 1},
		{1, 100000000, 1}, {4, 33554432, 1}, {1 << 21, 1024, 1}, // 2^31 elements
		{2, 3, 5}, {8, 1000, 2}, {1, 5000000, 3}, {16, 64, 70000}, {100000, 10, 2}, {1, 1, 1 << 33},
		{9, 1023, 1}, {9, 1021, 1}, {9, 2045, 1}, {9, 511, 1}, // ragged rows at warp_row's limits
	}
	for _, d := range []Device{h100, a100} {
		for _, s := range Strategies() {
			for _, sh := range shapes {
				for _, dt := range dtypes {
					for _, op := range ops {
						for _, pc := range placements(dt) {
							p := Problem{Outer: sh[0], Axis: sh[1], Inner: sh[2], DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew}
							pl, err := Make(p, d, nil, s)
							if err != nil {
								if !strings.Contains(err.Error(), s) {
									t.Errorf("error without the strategy name: %v", err)
								}
								continue
							}
							if pl.Strategy != s {
								t.Errorf("forced %s, got %s", s, pl.Strategy)
							}
							check(t, p, d, pl)
						}
					}
				}
			}
		}
	}
}

// The automatic choice always finds a plan, for every layout, dtype and op.
func TestAutoSweep(t *testing.T) {
	for _, d := range []Device{h100, a100, {Name: "bare", Major: 7, Minor: 0, SMs: 80}} {
		for _, outer := range []int64{1, 2, 7, 100, 131, 132, 5000, 1 << 22} {
			for _, axis := range []int64{1, 3, 31, 32, 100, 1000, 1024, 1025, 2048, 2049, 5000, 8192, 16385, 40000, 70000, 300000, 1 << 22} {
				for _, inner := range []int64{1, 2, 3, 1000} {
					if outer*axis*inner > 1<<34 {
						continue
					}
					for _, dt := range dtypes {
						for _, op := range ops {
							p := prob(outer, axis, inner, dt, op)
							pl, err := Make(p, d, nil, "")
							if err != nil {
								t.Fatalf("%s %+v: %v", d.Name, p, err)
							}
							check(t, p, d, pl)
							if inner > 1 && !strings.HasPrefix(pl.Strategy, "strided") {
								t.Errorf("%+v: %s for a strided layout", p, pl.Strategy)
							}
							if pl.Strategy == "naive" || pl.Strategy == "smem_tree" {
								t.Errorf("%+v: auto chose teaching kernel %s", p, pl.Strategy)
							}
						}
					}
				}
			}
		}
	}
}

func TestForcedErrors(t *testing.T) {
	f32 := spec.Float32
	cases := []struct {
		name  string
		p     Problem
		d     Device
		force string
		msg   string
	}{
		{"unknown", prob(4, 4, 1, f32, spec.Softmax), h100, "fastest", "unknown strategy"},
		{"block_smem row too large", prob(10, 1<<20, 1, f32, spec.Softmax), h100, "block_smem", "shared memory"},
		{"block_smem backward too large", prob(10, 40000, 1, f32, spec.SoftmaxBackward), h100, "block_smem", "shared memory"},
		{"warp_row row too long", prob(10, 2000, 1, f32, spec.Softmax), h100, "warp_row", "register cache"},
		{"warp_row backward too long", prob(10, 1024, 1, f32, spec.SoftmaxBackward), h100, "warp_row", "register cache"},
		// Ragged rows within the cache whose twins read up to P-1 elements
		// more (1023 f32 from the pack boundary: 1026) asked for kernels
		// that do not exist (w32_p16_shift) before warpShape measured the
		// span.
		{"warp_row ragged row past the cache with its pack boundary", prob(10, 1023, 1, f32, spec.Softmax), h100, "warp_row", "pack boundary"},
		{"warp_row ragged backward row past the cache", prob(10, 511, 1, f32, spec.SoftmaxBackward), h100, "warp_row", "register cache"},
		{"warp_row ragged f16 row past the cache", prob(10, 2047, 1, spec.Float16, spec.LogSoftmax), h100, "warp_row", "register cache"},
		{"block_reg row too long", prob(10, 40000, 1, f32, spec.Softmax), h100, "block_reg", "register cache"},
		{"cluster on sm_80", prob(4, 100000, 1, f32, spec.Softmax), a100, "split_cluster", "compute capability 9.0"},
		{"cluster without support", prob(4, 100000, 1, f32, spec.Softmax), Device{Name: "h100 no cluster", Major: 9, SMs: 132, SmemOptin: 227 << 10}, "split_cluster", "cluster launch"},
		{"cluster row too large", prob(4, 1<<22, 1, f32, spec.Softmax), h100, "split_cluster", "does not fit"},
		{"block_vec backward", prob(4, 1000, 1, f32, spec.SoftmaxBackward), h100, "block_vec", "no backward"},
		{"row strategy on strided layout", prob(4, 1000, 3, f32, spec.Softmax), h100, "online_2pass", "Inner = 1"},
		{"warp_row on strided layout", prob(4, 10, 2, f32, spec.Softmax), h100, "warp_row", "last"},
	}
	for _, c := range cases {
		_, err := Make(c.p, c.d, nil, c.force)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.msg)
		}
	}
	// Invalid problems.
	bad := []Problem{
		{Outer: 0, Axis: 4, Inner: 1, DType: f32},
		{Outer: 4, Axis: -1, Inner: 1, DType: f32},
		{Outer: 4, Axis: 4, Inner: 1, DType: spec.DType(7)},
		{Outer: 4, Axis: 4, Inner: 1, DType: f32, Op: spec.Op(9)},
		{Outer: 1 << 40, Axis: 1 << 30, Inner: 1, DType: f32},
	}
	for _, p := range bad {
		if _, err := Make(p, h100, nil, ""); err == nil {
			t.Errorf("Make(%+v) accepted", p)
		}
	}
}

func TestAlignment(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	// Aligned pointers, row stride a multiple of 16 bytes: vector path.
	if pl := mustMake(t, prob(100, 1000, 1, f32, spec.Softmax), h100, ""); !pl.Vec || pl.Params.Vec != 1 {
		t.Errorf("aligned 1000 f32: vec off")
	}
	// Unaligned pointers: scalar path, same kernels.
	p := prob(100, 1000, 1, f32, spec.Softmax)
	p.Aligned = false
	if pl := mustMake(t, p, h100, ""); pl.Vec || pl.Params.Vec != 0 {
		t.Errorf("unaligned pointers: vec on")
	}
	// Row stride not a multiple of 16 bytes: the ragged-row twins, whose
	// rows start at the pack boundary before them (Params.Vec 2), where
	// the strategy has them; otherwise scalar, unless a single row.
	if pl := mustMake(t, prob(100, 1001, 1, f32, spec.Softmax), h100, ""); !pl.Shift || pl.Params.Vec != kernels.VecShift ||
		!strings.HasSuffix(pl.Launches[0].Symbol, "_shift") {
		t.Errorf("1001 f32 rows: %s vec %d", pl.Launches[0].Symbol, pl.Params.Vec)
	}
	if pl := mustMake(t, prob(100, 1004, 1, f16, spec.Softmax), h100, ""); !pl.Shift || pl.Params.Vec != kernels.VecShift {
		t.Errorf("1004 f16 rows (2008 bytes): %s vec %d", pl.Launches[0].Symbol, pl.Params.Vec)
	}
	if pl := mustMake(t, prob(100, 1001, 1, f32, spec.Softmax), h100, "block_vec"); pl.Vec || pl.Shift {
		t.Errorf("1001 f32 rows, block_vec (no twins): vec on")
	}
	p = prob(100, 1001, 1, f32, spec.Softmax)
	p.Aligned = false
	if pl := mustMake(t, p, h100, ""); pl.Vec || pl.Shift || strings.HasSuffix(pl.Launches[0].Symbol, "_shift") {
		t.Errorf("1001 f32 rows, unaligned pointers: %s vec %d", pl.Launches[0].Symbol, pl.Params.Vec)
	}
	if pl := mustMake(t, prob(1, 100000001, 1, f32, spec.Softmax), h100, ""); !pl.Vec {
		t.Errorf("single row: vec off")
	}
	// Pointers all the same distance past a boundary (Skew): rows past
	// flat_rows' take the twins, whose rows start at the pack boundary
	// before them, whole rows or ragged; shorter ones flat_rows, a single
	// row the scalar path.
	for _, c := range []struct {
		p     Problem
		shift bool
	}{
		{skewed(prob(100, 1000, 1, f32, spec.Softmax), 1), true},
		{skewed(prob(100, 1001, 1, f32, spec.Softmax), 2), true},
		{skewed(prob(100, 4096, 1, f16, spec.SoftmaxBackward), 7), true},
		{skewed(prob(100, 300, 1, f16, spec.Softmax), 1), false},
		{skewed(prob(1, 100000, 1, f32, spec.Softmax), 1), false},
	} {
		pl := mustMake(t, c.p, h100, "")
		if pl.Shift != c.shift || pl.Vec != c.shift || strings.HasSuffix(pl.Launches[0].Symbol, "_shift") != c.shift {
			t.Errorf("%d×%d %v skew %d: %s vec %d, want twins %v", c.p.Outer, c.p.Axis, c.p.DType, c.p.Skew, pl.Launches[0].Symbol, pl.Params.Vec, c.shift)
		}
	}
	for _, p := range []Problem{
		skewed(prob(100, 1000, 1, f32, spec.Softmax), 4), // 16 bytes: aligned
		{Outer: 100, Axis: 1000, Inner: 1, DType: f32, Skew: 2},
		{Outer: 100, Axis: 1000, Inner: 1, DType: f16, Skew: -2},
		{Outer: 100, Axis: 1000, Inner: 1, DType: f32, Aligned: true, Skew: 4},
	} {
		if _, err := Make(p, h100, nil, ""); err == nil || !strings.Contains(err.Error(), "skew") {
			t.Errorf("%v skew %d (aligned %v): error %v", p.DType, p.Skew, p.Aligned, err)
		}
	}
	// Strided layouts vectorize across Inner when it is a multiple of the pack.
	if pl := mustMake(t, prob(4, 1000, 4, f32, spec.Softmax), h100, "strided"); !pl.Vec || pl.Launches[0].Block != [3]uint32{1, 256, 1} {
		t.Errorf("strided inner 4 f32: vec %v block %v", pl.Vec, pl.Launches[0].Block)
	}
	if pl := mustMake(t, prob(4, 1000, 4, f16, spec.Softmax), h100, "strided"); pl.Vec {
		t.Errorf("strided inner 4 f16: vec on")
	}
	if pl := mustMake(t, prob(64, 1024, 512, f16, spec.Softmax), h100, "strided"); !pl.Vec || pl.Launches[0].Block != [3]uint32{32, 4, 1} {
		t.Errorf("strided inner 512 f16: vec %v block %v", pl.Vec, pl.Launches[0].Block)
	}
}

// TestStridedShortPairs: forced strided_short serves 17-32 rows forward and
// 9-16 backward with lane pairs (ceil(axis/2) rows a lane), 33-48 and
// 17-32 with four lanes (ceil(axis/4)): T threads a 16-byte pack, whole
// warps; on the twins 32/T slices a warp row; and refuses longer axes by
// name.
func TestStridedShortPairs(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	for _, c := range []struct {
		p       Problem
		sym     string
		threads int64
	}{
		{prob(1024, 17, 4096, f32, spec.Softmax), "strided_short_fwd_f32_p9", 1024 * 4096 / 4 * 2},
		{prob(8, 32, 24, f16, spec.LogSoftmax), "strided_short_fwd_f16_p16", 32}, // 24 packs: 48 lanes, one grid's worth of whole warps
		{prob(4096, 16, 1024, spec.BFloat16, spec.SoftmaxBackward), "strided_short_bwd_bf16_p8", 4096 * 1024 / 8 * 2},
		{prob(8192, 32, 37, spec.BFloat16, spec.Softmax), "strided_short_fwd_bf16_p16_shift", ceilDiv(8192*37, 16*2) * 32},
		{prob(100, 11, 5, f32, spec.SoftmaxBackward), "strided_short_bwd_f32_p6_shift", ceilDiv(500, 16*2) * 32},
		// four lanes a slice: 33-48 rows, backward 17-32
		{prob(1024, 33, 4096, f32, spec.Softmax), "strided_short_fwd_f32_q9", 1024 * 4096 / 4 * 4},
		{prob(512, 48, 1024, f16, spec.LogSoftmax), "strided_short_fwd_f16_q12", 512 * 1024 / 8 * 4},
		{prob(4096, 17, 512, spec.BFloat16, spec.SoftmaxBackward), "strided_short_bwd_bf16_q5", 4096 * 512 / 8 * 4},
		{prob(8192, 32, 37, spec.BFloat16, spec.SoftmaxBackward), "strided_short_bwd_bf16_q8_shift", ceilDiv(8192*37, 8*2) * 32},
	} {
		pl := mustMake(t, c.p, h100, string(kernels.StridedShort))
		l := pl.Launches[0]
		if l.Symbol != c.sym {
			t.Errorf("%v: %s, want %s", c.p, l.Symbol, c.sym)
			continue
		}
		// grid-stride: the grid covers the threads or is capped below them
		if got := int64(l.Grid[0]) * int64(l.Block[0]); got > max(c.threads, 256) || l.Block[0] != 256 {
			t.Errorf("%v: %d×%d threads for %d", c.p, l.Grid[0], l.Block[0], c.threads)
		}
	}
	if _, err := Make(prob(64, 49, 64, f32, spec.Softmax), h100, nil, string(kernels.StridedShort)); err == nil || !strings.Contains(err.Error(), "2..48") {
		t.Errorf("axis 49: err %v, want one naming 2..48 rows", err)
	}
	if _, err := Make(prob(64, 33, 64, f32, spec.SoftmaxBackward), h100, nil, string(kernels.StridedShort)); err == nil || !strings.Contains(err.Error(), "2..32") {
		t.Errorf("backward axis 33: err %v, want one naming 2..32 rows", err)
	}
}

// TestStridedShortAxis: warp-wide tiles of P slices a thread take two
// threads along an axis of 4..24 (one under 4), for the 16-byte path and
// the twins alike; narrower tiles, the one-slice path and longer axes keep
// TY up to the axis.
func TestStridedShortAxis(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	for _, c := range []struct {
		p     Problem
		block [3]uint32
		sym   string
	}{
		{prob(2089, 8, 1004, f32, spec.Softmax), [3]uint32{32, 2, 1}, "strided_fwd_f32"},
		{prob(16384, 4, 512, f16, spec.LogSoftmax), [3]uint32{32, 2, 1}, "strided_fwd_f16"},
		{prob(100, 24, 4096, f32, spec.SoftmaxBackward), [3]uint32{32, 2, 1}, "strided_bwd_f32"},
		{prob(233, 3, 1131, f16, spec.Softmax), [3]uint32{32, 1, 1}, "strided_fwd_f16_shift"},
		{prob(56, 24, 12269, f32, spec.Softmax), [3]uint32{32, 2, 1}, "strided_fwd_f32_shift"},
		{prob(128, 32, 4096, f32, spec.Softmax), [3]uint32{32, 8, 1}, "strided_fwd_f32"},
		{prob(131072, 4, 64, f16, spec.Softmax), [3]uint32{8, 4, 1}, "strided_fwd_f16"},
		{prob(1000, 8, 29, f32, spec.Softmax), [3]uint32{32, 8, 1}, "strided_fwd_f32"},
	} {
		pl := mustMake(t, c.p, h100, "strided")
		if l := pl.Launches[0]; len(pl.Launches) != 1 || l.Block != c.block || l.Symbol != c.sym {
			t.Errorf("%+v: %s block %v, want %s %v", c.p, l.Symbol, l.Block, c.sym, c.block)
		}
		check(t, c.p, h100, pl)
	}
}

func TestHugeTensors(t *testing.T) {
	// More than 2^31 elements, every shape class: grids stay in limits
	// (check), int64 layout in the params.
	for _, p := range []Problem{
		prob(1<<23, 512, 1, spec.Float16, spec.Softmax),      // 2^32 elements, short rows
		prob(1<<20, 4096, 1, spec.BFloat16, spec.LogSoftmax), // 2^32, block rows
		prob(1<<16, 65536, 1, spec.Float32, spec.Softmax),    // 2^32, long rows
		prob(3, 1<<31, 1, spec.Float16, spec.Softmax),        // rows longer than 2^31
		prob(1<<17, 1<<15, 1, spec.Float32, spec.SoftmaxBackward),
		prob(1<<32, 1, 1, spec.Float32, spec.Softmax), // 2^32 rows of one element
		prob(2, 1<<30, 3, spec.Float32, spec.Softmax), // strided, long axis
		prob(1<<20, 4096, 2, spec.Float16, spec.LogSoftmaxBackward),
	} {
		pl := mustMake(t, p, h100, "")
		if pl.Params.Outer*pl.Params.Axis*pl.Params.Inner != p.Outer*p.Axis*p.Inner {
			t.Errorf("%+v: params layout %+v", p, pl.Params)
		}
	}
}

func TestOccupancyInjection(t *testing.T) {
	p := prob(4096, 32768, 1, spec.Float32, spec.Softmax)
	var calls []string
	occ := func(file, symbol string, block, smem int) (int, error) {
		calls = append(calls, fmt.Sprintf("%s:%s:%d:%d", file, symbol, block, smem))
		if strings.HasPrefix(symbol, "block_smem") {
			return 0, nil // does not fit on this (pretend) device
		}
		return 2, nil
	}
	if _, err := Make(p, h100, occ, ""); err != nil {
		t.Fatal(err)
	}
	if len(calls) == 0 {
		t.Error("occupancy query not used")
	}
	for _, c := range calls {
		if !strings.HasSuffix(strings.SplitN(c, ":", 2)[0], ".cu") {
			t.Errorf("occupancy asked with file %q", c)
		}
	}
	if _, err := Make(p, h100, occ, "block_smem"); err == nil || !strings.Contains(err.Error(), "occupancy") {
		t.Errorf("forced block_smem with zero occupancy: %v", err)
	}
	if pl, err := Make(p, h100, func(string, string, int, int) (int, error) { return 1, nil }, "block_smem"); err != nil || pl.Launches[0].Smem != 32768*4 {
		t.Errorf("forced block_smem with occupancy 1: %v %+v", err, pl.Launches)
	}
	// A failing query falls back to the estimate.
	failing := func(file, symbol string, block, smem int) (int, error) { return 0, errors.New("no context") }
	pl2 := mustMake(t, p, h100, "")
	pl3, err := Make(p, h100, failing, "")
	if err != nil || pl3.Strategy != pl2.Strategy {
		t.Errorf("failing query: %v %s vs %s", err, pl3.Strategy, pl2.Strategy)
	}
	// The persistent grid is exactly occupancy × SMs.
	pq, err := Make(prob(1<<22, 512, 1, spec.Float32, spec.Softmax), h100,
		func(string, string, int, int) (int, error) { return 3, nil }, "persistent")
	if err != nil {
		t.Fatal(err)
	}
	if g := pq.Launches[0].Grid[0]; g != 3*132 {
		t.Errorf("persistent grid %d, want %d", g, 3*132)
	}
}

func TestEstimate(t *testing.T) {
	// 1024 threads at <= 32 registers: 2 blocks; shared memory bound.
	if n := estimate(h100, "block_reg_bwd_f32_p1", 1024, 0); n != 2 {
		t.Errorf("block_reg p1 1024 threads: %d blocks", n)
	}
	if n := estimate(h100, "block_smem_fwd_f32", 512, 200<<10); n != 1 {
		t.Errorf("block_smem 200 KB: %d blocks", n)
	}
	if n := estimate(h100, "block_smem_fwd_f32", 512, 300<<10); n != 0 {
		t.Errorf("block_smem 300 KB: %d blocks", n)
	}
	if n := estimate(h100, "warp_row_fwd_f32_w1_p1", 128, 0); n != 12 { // 34 registers (NVRTC 13)
		t.Errorf("warp_row 128 threads: %d blocks", n)
	}
	if n := estimate(h100, "unknown", 2048, 0); n != 0 {
		t.Errorf("2048-thread block: %d", n)
	}
}

func TestDeterministicAndNamed(t *testing.T) {
	p := prob(1000, 3000, 1, spec.Float16, spec.LogSoftmax)
	a := mustMake(t, p, h100, "")
	b := mustMake(t, p, h100, "auto")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("auto and \"\" differ:\n%v\n%v", a, b)
	}
	names := Strategies()
	if len(names) != len(kernels.Strategies()) {
		t.Errorf("Strategies() = %v", names)
	}
}

func TestClusterSizes(t *testing.T) {
	big := h100
	big.MaxClusterSize = 16
	// 2 MB f32 row: too big for 8 × 227 KB, fits 16.
	p := prob(2, 1<<19, 1, spec.Float32, spec.Softmax)
	if _, err := Make(p, h100, nil, "split_cluster"); err == nil {
		t.Error("2 MB row accepted by 8-block clusters")
	}
	pl := mustMake(t, p, big, "split_cluster")
	if l := pl.Launches[0]; l.Cluster[0] != 16 || !l.NonPortable {
		t.Errorf("16-block cluster: %+v", l)
	}
	// Short rows still use small clusters with at least 256 elements per block.
	pl = mustMake(t, prob(2, 600, 1, spec.Float32, spec.Softmax), h100, "split_cluster")
	if pl.Split != 2 {
		t.Errorf("600 columns: cluster of %d", pl.Split)
	}
}

// Forward rows of 64 KB go to split_cluster instead of a block per row
// while every row's cluster is resident at once (clusterOneWaveRowBytes);
// shorter rows, two waves of clusters and backward ops keep the model's
// choice.
func TestClusterOneWave(t *testing.T) {
	big := h100
	big.MaxClusterSize = 16
	cases := []struct {
		p    Problem
		d    Device
		want kernels.Strategy
	}{
		{prob(1, 16384, 1, spec.Float32, spec.Softmax), h100, kernels.SplitCluster},
		{prob(16, 32768, 1, spec.BFloat16, spec.LogSoftmax), h100, kernels.SplitCluster}, // 128 blocks
		{prob(4, 20000, 1, spec.Float16, spec.Softmax), h100, kernels.BlockReg},          // 39 KB
		{prob(4, 8192, 1, spec.Float32, spec.Softmax), h100, kernels.BlockReg},           // 32 KB
		{prob(17, 16384, 1, spec.Float32, spec.Softmax), h100, kernels.BlockReg},         // 136 blocks: two waves
		{prob(16, 16384, 1, spec.Float32, spec.Softmax), big, kernels.BlockReg},          // 16-block clusters: 256 blocks
		{prob(8, 16384, 1, spec.Float32, spec.Softmax), big, kernels.SplitCluster},
	}
	for _, c := range cases {
		if pl := mustMake(t, c.p, c.d, ""); pl.Strategy != string(c.want) {
			t.Errorf("%d×%d %v %v (clusters of up to %d): %s (%s), want %s", c.p.Outer, c.p.Axis, c.p.DType, c.p.Op, c.d.MaxClusterSize, pl.Strategy, pl.Reason, c.want)
		}
	}
	// Backward ops are not in the rule: the model decides, as before.
	c, err := newCtx(prob(4, 8192, 1, spec.Float32, spec.SoftmaxBackward), h100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := c.fewModel(); !ok || s != "" {
		t.Errorf("backward 4×8192 f32: the model picks %q (%v), want a block per row (the one-wave cluster rule is forward only)", s, ok)
	}
}

// strided_reg doubles an f32 cluster of 2 to 4 full blocks into 4 to 8
// blocks of half the threads, and a 16-bit one of 3 or 4 blocks only when
// there are few tiles.
func TestStridedRegPairedClusters(t *testing.T) {
	cases := []struct {
		name  string
		p     Problem
		k, nt uint32
		dev   Device
	}{
		{"4096×4096 f32 axis 0 (128 tiles)", prob(1, 4096, 4096, spec.Float32, spec.Softmax), 8, 512, h100},
		{"4096×2048 f32 axis 0 (64 tiles)", prob(1, 4096, 2048, spec.Float32, spec.Softmax), 8, 512, h100},
		{"3072×4096 f32 axis 0 (K 3)", prob(1, 3072, 4096, spec.Float32, spec.Softmax), 6, 512, h100},
		{"4096×8192 f32 axis 0 (256 tiles)", prob(1, 4096, 8192, spec.Float32, spec.Softmax), 8, 512, h100},
		{"bf16 4096×4096 axis 0", prob(1, 4096, 4096, spec.BFloat16, spec.Softmax), 8, 512, h100},
		{"4096×16384 f32 axis 0 (512 tiles)", prob(1, 4096, 16384, spec.Float32, spec.Softmax), 8, 512, h100},
		{"4096×65536 f32 axis 0", prob(1, 4096, 65536, spec.Float32, spec.Softmax), 8, 512, h100},
		{"16×4096×1024 f32 axis 1 (512 tiles)", prob(16, 4096, 1024, spec.Float32, spec.Softmax), 8, 512, h100},
		{"2048×4096 f32 axis 0 (K 2)", prob(1, 2048, 4096, spec.Float32, spec.Softmax), 4, 512, h100},
		{"1024×4096 f32 axis 0 (one block)", prob(1, 1024, 4096, spec.Float32, spec.Softmax), 1, 1024, h100},
		{"8192×4096 f32 axis 0 (K 8 already)", prob(1, 8192, 4096, spec.Float32, spec.Softmax), 8, 1024, h100},
		{"f16 4096×16384 axis 0 (256 tiles)", prob(1, 4096, 16384, spec.Float16, spec.Softmax), 8, 512, h100},
		{"bf16 4096×65536 axis 0 (1024 tiles)", prob(1, 4096, 65536, spec.BFloat16, spec.Softmax), 4, 1024, h100},
		{"f16 8×2048×4096 axis 1 (K 2)", prob(8, 2048, 4096, spec.Float16, spec.Softmax), 2, 1024, h100},
	}
	for _, c := range cases {
		pl := mustMake(t, c.p, c.dev, "strided_reg")
		l := pl.Launches[0]
		wantCluster := c.k
		if c.k == 1 {
			wantCluster = 0 // a plain launch
		}
		if l.Cluster[0] != wantCluster || l.Block[0] != c.nt || pl.Split != int(c.k) {
			t.Errorf("%s: cluster %v block %v split %d, want %d blocks of %d threads", c.name, l.Cluster, l.Block, pl.Split, c.k, c.nt)
		}
		if pl.Chunk*int64(pl.Split) < c.p.Axis {
			t.Errorf("%s: %d blocks of %d rows do not cover an axis of %d", c.name, pl.Split, pl.Chunk, c.p.Axis)
		}
	}
}

func TestStridedInnerOne(t *testing.T) {
	// Forced strided on contiguous rows: TX = 1, the block's 256 threads
	// split the axis (consecutive j, so still coalesced).
	pl := mustMake(t, prob(100, 5000, 1, spec.Float32, spec.Softmax), h100, "strided")
	if b := pl.Launches[0].Block; b != [3]uint32{1, 256, 1} || pl.Vec {
		t.Errorf("strided inner 1: block %v vec %v", b, pl.Vec)
	}
	// Short axis: TY shrinks to the axis.
	pl = mustMake(t, prob(100, 5, 3, spec.Float32, spec.Softmax), h100, "strided")
	if b := pl.Launches[0].Block; b != [3]uint32{4, 4, 1} {
		t.Errorf("axis 5 inner 3: block %v", b)
	}
}

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

// Every strategy serves some problem on an H100 when forced.
func TestEveryStrategyReachable(t *testing.T) {
	for _, s := range Strategies() {
		p := prob(64, 2048, 1, spec.Float16, spec.Softmax)
		if s == string(kernels.StridedReg) {
			p.Inner = 64 // a non-last axis, whole packs across Inner
		}
		if s == string(kernels.StridedShort) {
			p.Axis, p.Inner = 8, 64 // an axis of at most 8 rows (16-bit forward)
		}
		if s == string(kernels.StridedNarrow) {
			p.Axis, p.Inner = 100, 8 // a narrow Inner
		}
		if s == string(kernels.BlockHybrid) {
			p.Axis = 20480 // beyond 512 threads' registers
		}
		if s == string(kernels.FlatRows) {
			p.Axis = 100 // ragged rows within its longest kernel (512 columns)
		}
		pl := mustMake(t, p, h100, s)
		if pl.Strategy != s {
			t.Errorf("forced %s gave %s", s, pl.Strategy)
		}
	}
}

// block_hybrid: 512 threads (1024 for longer rows, or for rows of more than
// 512 threads' registers when there are fewer rows than SMs), the packs
// beyond 32 values a thread in shared memory (whole packs per thread), and
// a refusal for rows it cannot serve.
func TestBlockHybridShapes(t *testing.T) {
	cases := []struct {
		p    Problem
		sym  string
		smem int
	}{
		// 16385..18432 f32: one pack a thread beyond the registers.
		{prob(4096, 16388, 1, spec.Float32, spec.Softmax), "block_hybrid_fwd_f32_t512_s1", 512 * 16},
		{prob(4096, 20480, 1, spec.Float32, spec.LogSoftmax), "block_hybrid_fwd_f32_t512_s2", 2 * 512 * 16},
		{prob(300, 40960, 1, spec.Float32, spec.Softmax), "block_hybrid_fwd_f32_t512_s12", 12 * 512 * 16},
		// 16-bit: 4 packs (32 values) in registers, 4096 elements per
		// shared pack.
		{prob(4096, 16384+4096*3, 1, spec.Float16, spec.Softmax), "block_hybrid_fwd_f16_t512_s3", 3 * 512 * 16},
		{prob(200, 65536, 1, spec.BFloat16, spec.Softmax), "block_hybrid_fwd_bf16_t512_s12", 12 * 512 * 16},
		// Fewer rows than SMs: the 1024-thread block that holds the row
		// (32768 values in registers, 8192 bf16 per shared pack).
		{prob(64, 65536, 1, spec.BFloat16, spec.Softmax), "block_hybrid_fwd_bf16_t1024_s4", 4 * 1024 * 16},
		{prob(128, 128256, 1, spec.BFloat16, spec.Softmax), "block_hybrid_fwd_bf16_t1024_s12", 12 * 1024 * 16},
		// Beyond 512 threads' reach, many rows: 1024 threads, one per SM.
		{prob(4096, 81920, 1, spec.Float32, spec.Softmax), "block_hybrid_fwd_f32_t1024_s12", 12 * 1024 * 16},
		// The "_shift" twins, sized by the span: a ragged row, and a
		// skewed one a pack longer than its aligned twin's s2.
		{prob(4096, 20001, 1, spec.Float32, spec.Softmax), "block_hybrid_fwd_f32_t512_s2_shift", 2 * 512 * 16},
		{skewed(prob(4096, 20480, 1, spec.Float32, spec.Softmax), 1), "block_hybrid_fwd_f32_t512_s3_shift", 3 * 512 * 16},
		{prob(1024, 50257, 1, spec.BFloat16, spec.Softmax), "block_hybrid_fwd_bf16_t512_s9_shift", 9 * 512 * 16},
		{skewed(prob(64, 65529, 1, spec.Float16, spec.Softmax), 3), "block_hybrid_fwd_f16_t1024_s4_shift", 4 * 1024 * 16},
	}
	for _, tc := range cases {
		nt := 512
		if strings.Contains(tc.sym, "_t1024_") {
			nt = 1024
		}
		occ := func(file, sym string, block, smem int) (int, error) {
			if file != "block_hybrid.cu" || sym != tc.sym || block != nt || smem != tc.smem {
				t.Errorf("occupancy query %s %s %d %d, want %s %d %d", file, sym, block, smem, tc.sym, nt, tc.smem)
			}
			return 2, nil
		}
		pl, err := Make(tc.p, h100, occ, "block_hybrid")
		if err != nil {
			t.Fatalf("%+v: %v", tc.p, err)
		}
		check(t, tc.p, h100, pl)
		l := pl.Launches[0]
		if l.Symbol != tc.sym || l.Block != [3]uint32{uint32(nt), 1, 1} || l.Smem != tc.smem || !pl.Vec || int64(l.Grid[0]) != tc.p.Outer ||
			pl.Shift != strings.HasSuffix(tc.sym, kernels.ShiftSuffix) {
			t.Errorf("%+v: %s block %v grid %v smem %d vec %v shift %v", tc.p, l.Symbol, l.Block, l.Grid, l.Smem, pl.Vec, pl.Shift)
		}
	}
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{prob(4096, 16384, 1, spec.Float32, spec.Softmax), "fit its registers alone"},
		{prob(4096, 81924, 1, spec.Float32, spec.Softmax), "exceed its cache (81920)"},
		{prob(4096, 16383, 1, spec.Float32, spec.Softmax), "fit its registers alone"},
		{prob(4096, 81919, 1, spec.Float32, spec.Softmax), "exceed its cache (81920)"},
		{unaligned(prob(4096, 20001, 1, spec.Float32, spec.Softmax)), "whole 16-byte packs"},
		{Problem{Outer: 4096, Axis: 20480, Inner: 1, DType: spec.Float32, Op: spec.Softmax}, "aligned"},
		{prob(4096, 20480, 1, spec.Float32, spec.SoftmaxBackward), "no backward kernels"},
		{prob(64, 20480, 3, spec.Float32, spec.Softmax), "last"},
	} {
		if _, err := Make(tc.p, h100, nil, "block_hybrid"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}

// blockRegWide: f32 rows of 6..8 packs a thread at 256 threads move to 512
// threads × 3..4 packs only when the occupancy query says more threads stay
// resident and the rows make 7 waves of the wide blocks; 16-bit rows, rows
// of 5 packs a thread and few rows keep their pick.
func TestBlockRegWide(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	cases := []struct {
		name   string
		p      Problem
		blocks map[string]int // occupancy answers by symbol (others: 1)
		want   string
	}{
		{"6144 f32, 3 wide blocks against 5", prob(4096, 6144, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t512_p3"},
		{"6144 f32, 2 wide blocks against 5 (no gain in threads)", prob(4096, 6144, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 2}, "block_reg_fwd_f32_t256_p6"},
		{"6144 f32, 3 wide blocks against 6 (as many threads)", prob(4096, 6144, 1, f32, spec.LogSoftmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 6, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t256_p6"},
		{"5124 f32 (1281 packs)", prob(4096, 5124, 1, f32, spec.LogSoftmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t512_p3"},
		{"7168 f32", prob(4096, 7168, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p7": 5, "block_reg_fwd_f32_t512_p4": 3}, "block_reg_fwd_f32_t512_p4"},
		{"8190 f32 (unaligned rows, 2048 packs)", Problem{Outer: 4096, Axis: 8190, Inner: 1, DType: f32, Op: spec.Softmax},
			map[string]int{"block_reg_fwd_f32_t256_p8": 4, "block_reg_fwd_f32_t512_p4": 3}, "block_reg_fwd_f32_t512_p4"},
		{"2560×6144 f32 (6.5 waves of wide blocks)", prob(2560, 6144, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t256_p6"},
		{"2772×6144 f32 (7 waves of wide blocks)", prob(7*3*132, 6144, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t512_p3"},
		{"2771×6144 f32 (a row short of 7 waves)", prob(7*3*132-1, 6144, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p6": 5, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t256_p6"},
		{"5120 f32 (5 packs a thread)", prob(4096, 5120, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p5": 4, "block_reg_fwd_f32_t512_p3": 3}, "block_reg_fwd_f32_t256_p5"},
		{"500×8192 f16 (16-bit rows; one wave, so no exact twin either)", prob(500, 8192, 1, f16, spec.Softmax),
			map[string]int{"block_reg_fwd_f16_t256_p4": 4, "block_reg_fwd_f16_t512_p2": 4}, "block_reg_fwd_f16_t256_p4"},
		{"64×8192 f32 (few rows: their own rule)", prob(64, 8192, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t256_p8": 4, "block_reg_fwd_f32_t512_p4": 3}, "block_reg_fwd_f32_t512_p4"},
		{"12288 f32 (512 threads already)", prob(4096, 12288, 1, f32, spec.Softmax),
			map[string]int{"block_reg_fwd_f32_t512_p6": 2}, "block_reg_fwd_f32_t512_p6"},
	}
	for _, tc := range cases {
		occ := func(file, sym string, block, smem int) (int, error) {
			if n, ok := tc.blocks[sym]; ok {
				return n, nil
			}
			return 1, nil
		}
		pl, err := Make(tc.p, h100, occ, "block_reg")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		check(t, tc.p, h100, pl)
		l := pl.Launches[0]
		nt := uint32(256)
		if strings.Contains(tc.want, "_t512_") {
			nt = 512
		}
		if l.Symbol != tc.want || l.Block != [3]uint32{nt, 1, 1} || int64(l.Grid[0]) != tc.p.Outer {
			t.Errorf("%s: %s block %v grid %v, want %s at %d threads", tc.name, l.Symbol, l.Block, l.Grid, tc.want, nt)
		}
	}
}

// pipelined: a warp per row up to 16 packs per lane, a block per row
// beyond, two ring slots per worker when they fit (one otherwise), and a
// refusal for layouts its cp.async copies cannot serve.
func TestPipelinedShapes(t *testing.T) {
	cases := []struct {
		p                Problem
		sym              string
		block, smem, occ int
	}{
		// 1024 f32 = 256 packs, 8 per lane: 16 warps, 2 × 16 × 4 KB.
		{prob(4096, 1024, 1, spec.Float32, spec.Softmax), "pipelined_fwd_f32_w32", 512, 2 * 16 * 4096, 1},
		// 4096 f32 = 1024 packs: a block of 64 → 128 threads, 2 × 16 KB.
		{prob(4096, 4096, 1, spec.Float32, spec.LogSoftmax), "pipelined_fwd_f32_b", 128, 2 * 16384, 6},
		// 16384 f32 backward: 256 threads; a slot holds y and dy (128 KB),
		// so only one fits.
		{prob(4096, 16384, 1, spec.Float32, spec.SoftmaxBackward), "pipelined_bwd_f32_b", 256, 131072, 1},
		// 32768 f32 = 128 KB: one slot only.
		{prob(4096, 32768, 1, spec.Float32, spec.Softmax), "pipelined_fwd_f32_b", 512, 131072, 1},
	}
	for _, tc := range cases {
		occ := func(file, sym string, block, smem int) (int, error) {
			if file != "pipelined.cu" || sym != tc.sym || block != tc.block || smem != tc.smem {
				t.Errorf("occupancy query %s %s %d %d, want %s %d %d", file, sym, block, smem, tc.sym, tc.block, tc.smem)
			}
			return tc.occ, nil
		}
		pl, err := Make(tc.p, h100, occ, "pipelined")
		if err != nil {
			t.Fatalf("%+v: %v", tc.p, err)
		}
		check(t, tc.p, h100, pl)
		l := pl.Launches[0]
		if l.Symbol != tc.sym || l.Block[0] != uint32(tc.block) || l.Smem != tc.smem || !pl.Vec {
			t.Errorf("%+v: %s block %v smem %d vec %v", tc.p, l.Symbol, l.Block, l.Smem, pl.Vec)
		}
		workers := int64(1)
		if strings.HasSuffix(tc.sym, "w32") {
			workers = int64(tc.block / 32)
		}
		if want := min(int64(tc.occ*132), ceilDiv(tc.p.Outer, workers)); int64(l.Grid[0]) != want {
			t.Errorf("%+v: grid %d, want %d (one wave of resident blocks)", tc.p, l.Grid[0], want)
		}
	}
	for _, p := range []Problem{
		prob(64, 1001, 1, spec.Float32, spec.Softmax),                            // rows not whole packs
		{Outer: 64, Axis: 1024, Inner: 1, DType: spec.Float16, Op: spec.Softmax}, // unaligned pointers
		prob(64, 1<<16, 1, spec.Float32, spec.Softmax),                           // 256 KB slot
		prob(64, 1024, 3, spec.Float32, spec.Softmax),                            // not the last axis
	} {
		if _, err := Make(p, h100, nil, "pipelined"); err == nil || !strings.Contains(err.Error(), "cannot serve") {
			t.Errorf("%+v: %v, want a refusal", p, err)
		}
	}
	old := h100
	old.Major = 7
	if _, err := Make(prob(64, 1024, 1, spec.Float32, spec.Softmax), old, nil, "pipelined"); err == nil {
		t.Error("pipelined planned on sm_70")
	}
}

// SplitGrid with an explicit wave size: the launch contract holds at every
// size from one row a wave to all rows at once, the kernel's rows per wave
// (grid / split) is at least the size asked for, and sizes past the grid
// are refused.
func TestSplitGridWaveSizes(t *testing.T) {
	for _, sh := range [][2]int64{{4, 4194304}, {128, 128256}, {300, 1000}, {5, 300007}, {1, 1 << 24}} {
		for _, dt := range dtypes {
			p := Problem{Outer: sh[0], Axis: sh[1], Inner: 1, DType: dt, Op: spec.Softmax, Aligned: true}
			for _, rw := range []int64{1, 2, 3, sh[0], min(sh[0], 132)} {
				where := fmt.Sprintf("%d×%d %v rows per wave %d", sh[0], sh[1], dt, rw)
				pl, err := SplitGrid(p, h100, nil, rw)
				if rw > 132 {
					if err == nil || !strings.Contains(err.Error(), "waves of") {
						t.Errorf("%s: err %v, want a refusal", where, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				checkSplitGrid(t, where, p, pl, 1)
				if got := int64(pl.Launches[0].Grid[0]) / int64(pl.Split); got < min(rw, sh[0]) {
					t.Errorf("%s: %d rows per wave", where, got)
				}
			}
		}
	}
	if _, err := SplitGrid(Problem{Outer: 2, Axis: 8, Inner: 3, DType: spec.Float32, Op: spec.Softmax}, h100, nil, 1); err == nil {
		t.Error("split_grid planned a strided axis")
	}
}

// The wave rule: one wave while the inputs are at most 2.25× the grid's
// cache (~67 MB on a 132-SM Hopper), else as few even waves as keep each
// under it, in the _waves kernel. (Rows per wave is what the kernel derives,
// grid / split: 132 for 128 rows of one block each.)
func TestSplitGridWaveRule(t *testing.T) {
	f32, f16 := spec.Float32, spec.Float16
	for _, c := range []struct {
		rows, cols   int64
		dt           spec.DType
		waves, perWv int64
	}{
		{4, 4194304, f16, 1, 4}, {128, 262144, spec.BFloat16, 1, 132}, {4, 16777216, f16, 2, 2},
		{8, 4194304, f32, 2, 4}, {32, 2097152, f16, 2, 16}, {4, 33554432, f16, 4, 1}, {64, 1048576, f32, 4, 16},
	} {
		p := Problem{Outer: c.rows, Axis: c.cols, Inner: 1, DType: c.dt, Op: spec.Softmax, Aligned: true}
		pl, err := Make(p, h100, nil, "")
		if err != nil || pl.Strategy != string(kernels.SplitGrid) {
			t.Errorf("%d×%d %v: %s %v, want split_grid", c.rows, c.cols, c.dt, pl.Strategy, err)
			continue
		}
		rw := int64(pl.Launches[0].Grid[0]) / int64(pl.Split)
		if waves := ceilDiv(c.rows, rw); waves != c.waves || rw != c.perWv {
			t.Errorf("%d×%d %v: %d waves of %d rows, want %d of %d", c.rows, c.cols, c.dt, waves, rw, c.waves, c.perWv)
		}
		checkSplitGrid(t, "wave rule", p, pl, 1)
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

// Plan.General sends a plain softmax launch to the general build: only
// warp_row's 16-bit rows read element by element over 4 lanes or more.
// Ragged and unaligned rows of that kind (27 f16, 30 bf16) go to flat_rows
// from sm_80, so they are checked before it.
func TestWarpRowGeneralBuild(t *testing.T) {
	bf16 := spec.BFloat16
	cases := []struct {
		name  string
		p     Problem
		d     Device
		strat kernels.Strategy
		want  bool
	}{
		{"59 bf16 unaligned before sm_80, element-wise, 8 lanes", unaligned(prob(74862, 59, 1, bf16, spec.Softmax)), sm70, kernels.WarpRow, true},
		{"59 bf16 ragged: flat_rows", prob(74862, 59, 1, bf16, spec.Softmax), h100, kernels.FlatRows, false},
		{"59 bf16 unaligned: flat_rows", unaligned(prob(74862, 59, 1, bf16, spec.Softmax)), h100, kernels.FlatRows, false},
		{"59 bf16 ragged before sm_80: three-pack twin", prob(74862, 59, 1, bf16, spec.Softmax), sm70, kernels.WarpRow, false},
		{"27 f16 unaligned before sm_80, element-wise, 4 lanes", unaligned(prob(65536, 27, 1, spec.Float16, spec.Softmax)), sm70, kernels.WarpRow, true},
		{"27 f16 ragged before sm_80: element-wise, 4 lanes", prob(65536, 27, 1, spec.Float16, spec.Softmax), sm70, kernels.WarpRow, true},
		{"100 f16 unaligned before sm_80, 16 lanes", unaligned(prob(4096, 100, 1, spec.Float16, spec.Softmax)), sm70, kernels.WarpRow, true},
		{"10 f16 element-wise, 2 lanes", prob(1000000, 10, 1, spec.Float16, spec.Softmax), h100, kernels.WarpRow, false},
		{"13 f16 element-wise under flat_rows' 16 columns, 2 lanes", prob(65536, 13, 1, spec.Float16, spec.Softmax), h100, kernels.WarpRow, false},
		{"201 bf16 ragged past flat_rows: two-pack twin", prob(16384, 201, 1, bf16, spec.Softmax), h100, kernels.WarpRow, false},
		{"130 bf16 ragged past flat_rows: three-pack twin", prob(4096, 130, 1, bf16, spec.Softmax), h100, kernels.WarpRow, false},
		{"30 bf16 unaligned before sm_80, element-wise, 4 lanes", unaligned(prob(200000, 30, 1, bf16, spec.Softmax)), sm70, kernels.WarpRow, true},
		{"30 bf16 ragged before sm_80: element-wise, 4 lanes", prob(200000, 30, 1, bf16, spec.Softmax), sm70, kernels.WarpRow, true},
		{"128 bf16 whole packs", prob(65536, 128, 1, bf16, spec.Softmax), h100, kernels.WarpRow, false},
		{"59 f32 unaligned before sm_80: element-wise, 16 lanes, not 16-bit", unaligned(prob(74862, 59, 1, spec.Float32, spec.Softmax)), sm70, kernels.WarpRow, false},
		{"59 f32 ragged before sm_80: twin", prob(74862, 59, 1, spec.Float32, spec.Softmax), sm70, kernels.WarpRow, false},
		{"4096 bf16: block_reg", prob(4096, 4096, 1, bf16, spec.Softmax), h100, kernels.BlockReg, false},
	}
	for _, c := range cases {
		pl, err := Make(c.p, c.d, nil, "")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if kernels.Strategy(pl.Strategy) != c.strat {
			t.Errorf("%s: %s (%s), want %s", c.name, pl.Launches[0].Symbol, pl.Strategy, c.strat)
			continue
		}
		if pl.General != c.want {
			t.Errorf("%s: %s (%s) General = %v, want %v", c.name, pl.Launches[0].Symbol, pl.Strategy, pl.General, c.want)
		}
	}
}

// TestFlatRowsConflicts checks the bank-conflict count flat_rows' width
// choice weighs, on layouts counted by hand: a warp's 32/w groups read
// consecutive rows, lanes on consecutive elements, 32 banks of 4 bytes.
func TestFlatRowsConflicts(t *testing.T) {
	for _, c := range []struct {
		name        string
		cols, w, es int64
		want        int64
	}{
		{"f32 rows of 32 at 4 lanes: every group on banks 0-3", 32, 4, 4, 8},
		{"f32 rows of 36 at 4 lanes: groups 4 banks apart", 36, 4, 4, 1},
		{"f32 rows of 63 at 16 lanes: the second group one bank back", 63, 16, 4, 2},
		{"bf16 rows of 66 at 8 lanes: groups one word apart, 4 words each", 66, 8, 2, 4},
		{"bf16 rows of 66 at 16 lanes", 66, 16, 2, 2},
		{"f32 at 32 lanes: one group, 32 banks", 77, 32, 4, 1},
		{"bf16 at 32 lanes: one group, 17 words at most", 77, 32, 2, 1},
	} {
		if got := flatRowsConflicts(c.cols, c.w, c.es); got != c.want {
			t.Errorf("%s: flatRowsConflicts(%d, %d, %d) = %d, want %d", c.name, c.cols, c.w, c.es, got, c.want)
		}
	}
}

// TestBlockRegBackwardShiftBlocks: ragged and skewed f32 backward rows past
// 1024 packs run block_reg's four-pack twin at up to 384 threads (its
// launch bound), the two-pack twin beyond 1536 packs.
func TestBlockRegBackwardShiftBlocks(t *testing.T) {
	f32 := spec.Float32
	for _, tc := range []struct {
		p       Problem
		variant string
		threads int
	}{
		{skewed(prob(4096, 4096, 1, f32, spec.SoftmaxBackward), 1), "p4", 288},
		{skewed(prob(4096, 6000, 1, f32, spec.SoftmaxBackward), 1), "p4", 384},
		{prob(4096, 6143, 1, f32, spec.SoftmaxBackward), "p2", 800},
		{prob(4096, 8187, 1, f32, spec.SoftmaxBackward), "p2", 1024},
	} {
		pl := mustMake(t, tc.p, h100, "")
		want := "block_reg_bwd_f32_" + tc.variant + "_shift"
		if l := pl.Launches[0]; len(pl.Launches) != 1 || l.Symbol != want || l.Block[0] != uint32(tc.threads) {
			t.Errorf("%d×%d: %v, want %s at %d threads", tc.p.Outer, tc.p.Axis, pl.Launches, want, tc.threads)
		}
	}
}

// TestFewMidRowsAsksClusters checks that fewMidRows counts the clusters the
// driver's query reports resident, and falls back to the estimate (15/16 of
// blocks an SM × SMs / 8: 92 for 81920-column bf16 rows on the H100
// profile) when the query fails.
func TestFewMidRowsAsksClusters(t *testing.T) {
	asked := 0
	q := func(answer int, err error) Queries {
		return Queries{Clusters: func(file, symbol string, block, smem, cluster int) (int, error) {
			asked++
			if file != "split_cluster.cu" || symbol != "split_cluster_fwd_bf16" || cluster != 8 || block != 160 {
				t.Errorf("asked %s %s block %d cluster %d", file, symbol, block, cluster)
			}
			return answer, err
		}}
	}
	for _, c := range []struct {
		q    Queries
		rows int64
		want kernels.Strategy
	}{
		{q(80, nil), 80, kernels.SplitCluster},
		{q(80, nil), 81, kernels.SplitGrid},
		{q(97, nil), 97, kernels.SplitCluster},
		{q(0, errors.New("no answer")), 92, kernels.SplitCluster},
		{q(0, errors.New("no answer")), 93, kernels.SplitGrid},
		{Queries{}, 92, kernels.SplitCluster},
		{Queries{}, 93, kernels.SplitGrid},
	} {
		before := asked
		pl, err := MakeWith(prob(c.rows, 81920, 1, spec.BFloat16, spec.Softmax), h100, c.q, "")
		if err != nil {
			t.Fatal(err)
		}
		if kernels.Strategy(pl.Strategy) != c.want {
			t.Errorf("%d×81920 bf16: %s (%s), want %s", c.rows, pl.Strategy, pl.Reason, c.want)
		}
		if c.q.Clusters != nil && asked == before {
			t.Errorf("%d×81920 bf16: the cluster query was not asked", c.rows)
		}
	}
}

// TestFewMidRowsEdge checks fewMidRows on rows up to 128 KB: split_cluster
// up to the lesser of its row edge and the clusters the driver holds, then
// a block per row below 90% of the SMs and split_grid from there.
func TestFewMidRowsEdge(t *testing.T) {
	// The H100 driver's answers (nvidia-h100-2026-11-25-ab-s55.txt).
	resident := map[string]int{"split_cluster_fwd_f32": 124, "split_cluster_fwd_bf16": 92}
	q := Queries{Clusters: func(file, symbol string, block, smem, cluster int) (int, error) {
		n, ok := resident[symbol]
		if !ok || cluster != 8 {
			t.Errorf("asked %s %s block %d cluster %d", file, symbol, block, cluster)
		}
		return n, nil
	}}
	for _, c := range []struct {
		rows, cols int64
		dt         spec.DType
		want       kernels.Strategy
	}{
		{124, 32768, spec.Float32, kernels.SplitCluster}, // 128 KB: the 124 resident clusters bound it
		{125, 32768, spec.Float32, kernels.SplitGrid},
		{124, 32000, spec.Float32, kernels.SplitCluster},
		{125, 32000, spec.Float32, kernels.BlockReg}, // f32 under 128 KB: block_reg past the edge
		{131, 32000, spec.Float32, kernels.BlockReg},
		{82, 26624, spec.Float32, kernels.SplitCluster}, // 104 KB: the row edge (82) binds
		{83, 26624, spec.Float32, kernels.BlockReg},
		{119, 26624, spec.Float32, kernels.BlockReg},
		{49, 24576, spec.Float32, kernels.SplitCluster},
		{50, 24576, spec.Float32, kernels.BlockReg},
		{40, 22528, spec.Float32, kernels.BlockReg},      // 88 KB: under fewMidRows' rows
		{92, 57344, spec.BFloat16, kernels.SplitCluster}, // 112 KB: the 92 resident clusters bind
		{93, 57344, spec.BFloat16, kernels.BlockHybrid},  // a block per row below 90% of the SMs
		{118, 57344, spec.BFloat16, kernels.BlockHybrid},
		{119, 57344, spec.BFloat16, kernels.SplitGrid}, // 90% of 132 SMs (16-bit rows)
	} {
		pl, err := MakeWith(prob(c.rows, c.cols, 1, c.dt, spec.Softmax), h100, q, "")
		if err != nil {
			t.Fatal(err)
		}
		if kernels.Strategy(pl.Strategy) != c.want {
			t.Errorf("%d×%d %s: %s (%s), want %s", c.rows, c.cols, c.dt, pl.Strategy, pl.Reason, c.want)
		}
	}
}
