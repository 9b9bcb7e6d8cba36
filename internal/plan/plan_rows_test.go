package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

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
	// Backward: y and dy, 16 values of each a thread in registers (8
	// doubles), 1..6 packs of each in shared memory.
	for _, tc := range []struct {
		p   Problem
		sym string
	}{
		{prob(4096, 32000, 1, spec.Float32, spec.SoftmaxBackward), "block_hybrid_bwd_f32_t1024_s4"},
		{prob(4096, 16384, 1, spec.Float32, spec.SoftmaxBackward), "block_hybrid_bwd_f32_t1024_s0"},
		{prob(4096, 16388, 1, spec.Float32, spec.LogSoftmaxBackward), "block_hybrid_bwd_f32_t1024_s1"},
		{prob(100, 65536, 1, spec.BFloat16, spec.SoftmaxBackward), "block_hybrid_bwd_bf16_t1024_s6"},
		{prob(100, 20480, 1, spec.Float64, spec.SoftmaxBackward), "block_hybrid_bwd_f64_t1024_s6"},
	} {
		pl, err := Make(tc.p, h100, nil, "block_hybrid")
		if err != nil {
			t.Fatalf("%+v: %v", tc.p, err)
		}
		check(t, tc.p, h100, pl)
		ns := int(tc.sym[len(tc.sym)-1] - '0')
		if l := pl.Launches[0]; l.Symbol != tc.sym || l.Block != [3]uint32{1024, 1, 1} || l.Smem != 2*ns*1024*16 || !pl.Vec {
			t.Errorf("%+v: %s block %v smem %d vec %v", tc.p, l.Symbol, l.Block, l.Smem, pl.Vec)
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
		{prob(4096, 16380, 1, spec.Float32, spec.SoftmaxBackward), "register part (16384) unfilled"},
		{prob(4096, 40964, 1, spec.Float32, spec.SoftmaxBackward), "exceed its cache (40960)"},
		{prob(4096, 20002, 1, spec.Float32, spec.SoftmaxBackward), "whole 16-byte packs"},
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
