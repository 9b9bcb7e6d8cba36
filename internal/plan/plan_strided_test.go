package plan

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

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
