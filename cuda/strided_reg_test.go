package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// strided_reg's doubled clusters of half-size blocks (axes of 3 or 4 full
// blocks over few tiles) against the float64 reference: whole and partial
// tiles, axes that split evenly and raggedly over the blocks, every
// forward op and dtype, and the edge fills. Small enough for
// compute-sanitizer.
func TestStridedRegPairedClusters(t *testing.T) {
	d := openClustersOrSkip(t)
	rng := rand.New(rand.NewPCG(21, 1))
	cases := []struct {
		shape []int
		split int
	}{
		{[]int{4096, 256}, 8}, {[]int{3072, 64}, 6}, {[]int{3500, 520}, 8}, {[]int{2, 2500, 96}, 6},
	}
	for _, c := range cases {
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
			pl, err := d.Plan(spec.Softmax, dt, c.shape, Options{Axis: -2, Algo: "strided_reg"})
			if err != nil {
				t.Fatalf("%v %v: %v", c.shape, dt, err)
			}
			if pl.Split != c.split || pl.Launches[0].Block[0] > 512 {
				t.Errorf("%v %v: %d blocks of %v threads a cluster, want %d of at most 512 (%s)", c.shape, dt, pl.Split, pl.Launches[0].Block, c.split, pl.Reason)
			}
			for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
				for _, f := range []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.PosInf, verify.Huge, verify.Wide} {
					vc := verify.Case{Shape: c.shape, Axis: -2, DType: dt, Op: op, Fill: f}
					if r := verify.Run(vc, rng, backend(d, "strided_reg")); !r.OK() {
						t.Errorf("%s: rel %.3g err %v", vc.Name(), r.Rel, r.Err)
					}
				}
			}
		}
	}
}
