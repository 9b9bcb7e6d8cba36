package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

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
