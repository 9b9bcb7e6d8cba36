package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// split_cluster's two exchanges against the float64 reference: clusters of
// one row push their partials (2 to 8 blocks, 16 where the device allows
// them; ragged chunks), and more rows than the grid's 65535 clusters take
// the row loop with its two cluster barriers. Every op, f32 and f16, and
// the edge fills on the push.
func TestSplitClusterPaths(t *testing.T) {
	d := openClustersOrSkip(t)
	rng := rand.New(rand.NewPCG(29, 1))
	shapes := []struct {
		shape []int
		fills []verify.Fill
	}{
		{[]int{3, 781}, []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.PosInf, verify.Huge}},
		{[]int{5, 4097}, []verify.Fill{verify.Random, verify.AllNegInf, verify.NaN}},
		{[]int{16, 65536}, []verify.Fill{verify.Random}},
		{[]int{2, 200003}, []verify.Fill{verify.Random}},                   // the largest clusters
		{[]int{65537, 40}, []verify.Fill{verify.Random, verify.AllNegInf}}, // the row loop
	}
	ops := []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	for _, s := range shapes {
		for _, dt := range []spec.DType{spec.Float32, spec.Float16} {
			pl, err := d.Plan(spec.Softmax, dt, s.shape, Options{Axis: -1, Algo: "split_cluster"})
			if err != nil {
				t.Errorf("%v %v: %v", s.shape, dt, err)
				continue
			}
			loop := int(pl.Launches[0].Grid[1]) < s.shape[0]
			if want := s.shape[0] > 65535; loop != want {
				t.Errorf("%v %v: grid %v, row loop %v, want %v", s.shape, dt, pl.Launches[0].Grid, loop, want)
			}
			for _, op := range ops {
				for _, f := range s.fills {
					vc := verify.Case{Shape: s.shape, Axis: -1, DType: dt, Op: op, Fill: f}
					if r := verify.Run(vc, rng, backend(d, "split_cluster")); !r.OK() {
						t.Errorf("%s (%d-block clusters): rel %.3g err %v", vc.Name(), pl.Split, r.Rel, r.Err)
					}
				}
			}
		}
	}
}
