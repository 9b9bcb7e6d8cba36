package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// block_hybrid's float64 kernels (16 doubles a thread in registers, the
// rest in shared memory): both block sizes, a ragged row (the "_shift"
// twin), the last shared pack partly live, edge-value fills, softmax and
// log_softmax, forced and through the planner on 4096×32768.
func TestBlockHybridF64(t *testing.T) {
	d := openOrSkip(t)
	if d.props.Major < 8 {
		t.Skip("block_hybrid needs sm_80 (cp.async)")
	}
	h200 := d.props.Major == 9 && d.props.Multiprocessors == 132 // the symbols below are its plans
	rng := rand.New(rand.NewPCG(71, 4))
	for _, c := range []struct {
		shape []int
		sym   string
	}{
		{[]int{5, 9000}, "block_hybrid_fwd_f64_t512_s1"},
		{[]int{3, 20000}, "block_hybrid_fwd_f64_t1024_s2"},
		{[]int{300, 20000}, "block_hybrid_fwd_f64_t512_s12"},
		{[]int{2, 32768}, "block_hybrid_fwd_f64_t1024_s8"},
		{[]int{3, 32771}, "block_hybrid_fwd_f64_t1024_s9_shift"},
		{[]int{2, 40960}, "block_hybrid_fwd_f64_t1024_s12"},
		{[]int{300, 24577}, "block_hybrid_fwd_f64_t1024_s5_shift"},
	} {
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			pl, err := d.Plan(op, spec.Float64, c.shape, Options{Axis: -1, Algo: "block_hybrid"})
			if err != nil || h200 && pl.Launches[0].Symbol != c.sym {
				t.Errorf("%v %v: plan %+v, %v; want %s", op, c.shape, pl.Launches, err, c.sym)
				continue
			}
			for _, f := range []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.Huge, verify.Wide} {
				vc := verify.Case{Shape: c.shape, Axis: -1, DType: spec.Float64, Op: op, Fill: f}
				if r := verify.Run(vc, rng, backend(d, "block_hybrid")); !r.OK() {
					t.Errorf("%s (%s): rel %.3g (tol %.0e) err %v", vc.Name(), c.sym, r.Rel, r.Tol, r.Err)
				}
			}
		}
	}
	vc := verify.Case{Shape: []int{4096, 32768}, Axis: -1, DType: spec.Float64, Op: spec.Softmax, Fill: verify.Random}
	if r := verify.Run(vc, rng, backend(d, "auto")); !r.OK() {
		t.Errorf("%s (auto): rel %.3g err %v", vc.Name(), r.Rel, r.Err)
	}
}
