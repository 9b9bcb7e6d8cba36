package cuda

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// block_reg's widened f32 picks (512 threads × 3..4 packs, the kernels
// bounded to three blocks an SM) against the float64 reference: rows that
// fill the threads' packs and rows that leave the last ones empty,
// softmax and log_softmax, and the edge fills. On sm_90 with 132 SMs or
// fewer the planner must pick the wide kernels here (the occupancy query
// gives them more resident threads, and 2800 rows make 7 waves of them);
// elsewhere the test checks whatever it picks. Small enough for
// compute-sanitizer.
func TestBlockRegWide(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	rng := rand.New(rand.NewPCG(22, 1))
	cases := []struct {
		shape []int
		sym   string
	}{
		{[]int{2800, 6144}, "block_reg_fwd_f32_t512_p3"}, {[]int{2800, 5124}, "block_reg_fwd_f32_t512_p3"},
		{[]int{2800, 7000}, "block_reg_fwd_f32_t512_p4"}, {[]int{2800, 8192}, "block_reg_fwd_f32_t512_p4"},
	}
	for _, c := range cases {
		pl, err := d.Plan(spec.Softmax, spec.Float32, c.shape, Options{Axis: -1})
		if err != nil {
			t.Fatalf("%v: %v", c.shape, err)
		}
		sym := pl.Launches[0].Symbol
		if d.props.Major == 9 && d.props.Multiprocessors <= 132 && sym != c.sym {
			t.Errorf("%v f32: %s (%s), want %s", c.shape, sym, pl.Reason, c.sym)
		}
		t.Logf("%v f32: %s", c.shape, sym)
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			for _, f := range []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.PosInf, verify.Huge, verify.Wide} {
				vc := verify.Case{Shape: c.shape, Axis: -1, DType: spec.Float32, Op: op, Fill: f}
				if r := verify.Run(vc, rng, backend(d, "auto")); !r.OK() {
					t.Errorf("%s: rel %.3g err %v", vc.Name(), r.Rel, r.Err)
				}
			}
		}
		if strings.Contains(sym, "_t512_") && pl.Launches[0].Block[0] != 512 {
			t.Errorf("%v: %s launched with a block of %v", c.shape, sym, pl.Launches[0].Block)
		}
	}
}

// block_reg's "_exact" twins (16-bit rows that fill four packs a thread of
// the default block, beyond one wave of it) against the float64
// reference: softmax and log_softmax over the edge fills, and a negative
// scale, whose row max comes from the packed minimum. On sm_90 with 132 SMs
// or fewer the planner must pick the twins here (the occupancy query gives
// the default kernels 4, 9, 18 and 32 blocks an SM); elsewhere the test
// checks whatever it picks.
func TestBlockRegExact(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	rng := rand.New(rand.NewPCG(58, 1))
	cases := []struct {
		shape []int
		dt    spec.DType
		sym   string
	}{
		{[]int{2048, 8192}, spec.Float16, "block_reg_fwd_f16_t128_p8_exact"},
		{[]int{1200, 4096}, spec.BFloat16, "block_reg_fwd_bf16_t128_p4_exact"},
		{[]int{3000, 2048}, spec.Float16, "block_reg_fwd_f16_t64_p4_exact"},
		{[]int{4300, 1024}, spec.BFloat16, "block_reg_fwd_bf16_t64_p2_exact"},
	}
	for _, c := range cases {
		pl, err := d.Plan(spec.Softmax, c.dt, c.shape, Options{Axis: -1})
		if err != nil {
			t.Fatalf("%v %v: %v", c.shape, c.dt, err)
		}
		sym := pl.Launches[0].Symbol
		if d.props.Major == 9 && d.props.Multiprocessors <= 132 && sym != c.sym {
			t.Errorf("%v %v: %s (%s), want %s", c.shape, c.dt, sym, pl.Reason, c.sym)
		}
		t.Logf("%v %v: %s", c.shape, c.dt, sym)
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			// every fill at scale 1, and a negative scale (the max taken of
			// scaled values) on random rows
			vcs := []verify.Case{{Shape: c.shape, Axis: -1, DType: c.dt, Op: op, Scale: -0.5, Fill: verify.Random}}
			for _, f := range []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.PosInf, verify.Huge, verify.Wide} {
				vcs = append(vcs, verify.Case{Shape: c.shape, Axis: -1, DType: c.dt, Op: op, Fill: f})
			}
			for _, vc := range vcs {
				if r := verify.Run(vc, rng, backend(d, "auto")); !r.OK() {
					t.Errorf("%s: rel %.3g err %v", vc.Name(), r.Rel, r.Err)
				}
			}
		}
	}
}
