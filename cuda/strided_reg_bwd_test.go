package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// strided_reg's backward kernels (issue 72) against the float64 reference,
// outputs poisoned (verify.Run): both gradients, every 16/32-bit dtype, the
// issue's shapes (4096×4096 axis 0: 8-block clusters; 64×1024×512 axis 1:
// 2-block clusters), one block a tile (no cluster), and the "_shift" twins
// of ragged Inner with and without a cluster. split is the cluster size the
// planner must pick (0: not checked, it differs by dtype). The edge fills
// run on the small shapes only.
func TestStridedRegBwd(t *testing.T) {
	d := openClustersOrSkip(t)
	rng := rand.New(rand.NewPCG(72, 1))
	cases := []struct {
		shape []int
		axis  int
		split int
		edges bool
	}{
		{[]int{4096, 4096}, 0, 8, false},
		{[]int{64, 1024, 512}, 1, 0, false},    // 16-bit: 2-block clusters; f32: paired, 4
		{[]int{8, 64, 4096}, 1, 1, false},      // one block a tile
		{[]int{2, 500, 72}, 1, 1, true},        // partial tiles across Inner, no cluster
		{[]int{3, 1500, 64}, 1, 0, true},       // a ragged split over a cluster (f32 paired)
		{[]int{5, 200, 37}, 1, 1, true},        // twin, no cluster
		{[]int{3, 700, 333}, 1, 0, true},       // twin over a cluster, a part tile
		{[]int{2, 300, 1001}, 1, 0, true},      // twin over 2 blocks (f32 paired: 4)
		{[]int{1536, 256}, 0, 0, false},        // f32 paired clusters
		{[]int{2, 4096, 40}, 1, 8, true},       // 8-block cluster, tile wider than Inner
		{[]int{4, 48, 4096 + 8}, 1, 1, false},  // the table's shortest axis, a part tile
		{[]int{1, 2049, 8 * 8}, 0, 0, false},   // a cluster whose last block is nearly empty
		{[]int{2, 4095, 16 * 8}, 1, 8, false},  // 8 blocks, the last one row short
		{[]int{7, 100, 8 * 4 * 3}, 1, 1, true}, // several tiles an outer index
	}
	ops := []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	for _, c := range cases {
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
			for _, op := range ops {
				pl, err := d.Plan(op, dt, c.shape, Options{Axis: c.axis, Algo: "strided_reg"})
				if err != nil {
					t.Errorf("%v %v %v axis %d: %v", op, dt, c.shape, c.axis, err)
					continue
				}
				l := pl.Launches[0]
				if c.split != 0 && pl.Split != c.split || (pl.Split > 1) != (l.Cluster[0] > 1) {
					t.Errorf("%v %v %v: split %d, cluster %v, want split %d (%s)", op, dt, c.shape, pl.Split, l.Cluster, c.split, pl.Reason)
				}
				fills := []verify.Fill{verify.Random}
				if c.edges {
					fills = append(fills, verify.NegInf, verify.AllNegInf, verify.NaN, verify.Huge, verify.Wide)
				}
				for _, f := range fills {
					vc := verify.Case{Shape: c.shape, Axis: c.axis, DType: dt, Op: op, Fill: f}
					if r := verify.Run(vc, rng, backend(d, "strided_reg")); !r.OK() {
						t.Errorf("%s (%s): rel %.3g err %v", vc.Name(), pl.Launches[0].Symbol, r.Rel, r.Err)
					}
				}
			}
		}
	}
}

// The planner picks strided_reg for the backward shapes on a device
// with clusters (the strided.reg.bwd row), and the pick is right.
func TestStridedRegBwdAuto(t *testing.T) {
	d := openClustersOrSkip(t)
	rng := rand.New(rand.NewPCG(72, 2))
	for _, c := range []struct {
		shape []int
		axis  int
		dt    spec.DType
	}{
		{[]int{4096, 4096}, 0, spec.Float32}, {[]int{64, 1024, 512}, 1, spec.Float16}, {[]int{64, 1024, 512}, 1, spec.BFloat16},
	} {
		for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
			pl, err := d.Plan(op, c.dt, c.shape, Options{Axis: c.axis})
			if err != nil || pl.Strategy != "strided_reg" {
				t.Errorf("%v %v %v axis %d: plan %s (%s), %v; want strided_reg", op, c.dt, c.shape, c.axis, pl.Strategy, pl.Reason, err)
			}
			vc := verify.Case{Shape: c.shape, Axis: c.axis, DType: c.dt, Op: op, Fill: verify.Random}
			if r := verify.Run(vc, rng, backend(d, "auto")); !r.OK() {
				t.Errorf("%s: rel %.3g err %v", vc.Name(), r.Rel, r.Err)
			}
		}
	}
}
