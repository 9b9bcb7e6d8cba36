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
// the row loop with its two cluster barriers. Every op, f32, f16 and f64, and
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
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.Float64} {
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
				if _, err := d.Plan(op, dt, s.shape, Options{Axis: -1, Algo: "split_cluster"}); err != nil && dt == spec.Float64 && op.Backward() {
					continue // y and dy of 200003 doubles: the largest cluster's shared memory holds neither
				}
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

// TestResidentClusters checks on a GPU the planner's cluster query: at
// split_cluster's block for 81920-column bf16 rows and 32768-column f32
// rows the driver holds at least one cluster and at most the clusters its
// blocks per SM allow, and fewMidRows gives that many rows to
// split_cluster and one more to split_grid, where the row counts are in
// its range: over half the SMs (rows past 128 KB) or 90% of them (up to
// 128 KB), fewer than all.
func TestResidentClusters(t *testing.T) {
	d := openClustersOrSkip(t)
	sms := d.planDevice().SMs
	for _, c := range []struct {
		dt   spec.DType
		cols int
	}{{spec.BFloat16, 81920}, {spec.Float32, 32768}} {
		pl, err := d.Plan(spec.Softmax, c.dt, []int{64, c.cols}, Options{Axis: -1, Algo: "split_cluster"})
		if err != nil {
			t.Fatal(err)
		}
		l := pl.Launches[0]
		block, smem, cs := int(l.Block[0]), l.Smem, int(l.Cluster[0])
		n, err := d.clusterOccupancy(c.dt, true)(pl.File, l.Symbol, block, smem, cs)
		if err != nil {
			t.Fatal(err)
		}
		perSM, err := d.occupancy(c.dt, true)(pl.File, l.Symbol, block, smem)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d threads, %d bytes, %d-block clusters: %d resident (%d blocks an SM × %d SMs / %d = %d)",
			l.Symbol, block, smem, cs, n, perSM, sms, cs, perSM*sms/cs)
		if n < 1 || n > perSM*sms/cs {
			t.Errorf("%s: %d clusters resident, want 1..%d", l.Symbol, n, perSM*sms/cs)
			continue
		}
		if 2*n <= sms || n+1 >= sms || c.cols*c.dt.Size() <= 128<<10 && 10*(n+1) < 9*sms {
			t.Logf("%d resident clusters: %d and %d rows are outside fewMidRows' range on %d SMs", n, n, n+1, sms)
			continue
		}
		for _, r := range []struct {
			rows int
			want string
		}{{n, "split_cluster"}, {n + 1, "split_grid"}} {
			got, err := d.Plan(spec.Softmax, c.dt, []int{r.rows, c.cols}, Options{Axis: -1})
			if err != nil {
				t.Fatal(err)
			}
			if got.Strategy != r.want {
				t.Errorf("%d×%d %v: %s (%s), want %s", r.rows, c.cols, c.dt, got.Strategy, got.Reason, r.want)
			}
		}
	}
}
