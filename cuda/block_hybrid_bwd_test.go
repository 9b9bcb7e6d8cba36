package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// block_hybrid's backward kernels (y and dy, part in registers, the rest in
// shared memory) against the float64 reference: none to six shared packs,
// the last one partly live, every dtype, both backward ops, a scale, the
// edge fills, and dx written over dy and over y in place (every read of a
// row lands before the block's reduction, so its writes come after).
func TestBlockHybridBackward(t *testing.T) {
	d := openOrSkip(t)
	if d.props.Major < 8 {
		t.Skip("block_hybrid needs sm_80 (cp.async)")
	}
	rng := rand.New(rand.NewPCG(72, 9))
	for _, c := range []struct {
		dt    spec.DType
		shape []int
	}{
		{spec.Float32, []int{3, 16384}}, {spec.Float32, []int{3, 16388}}, {spec.Float32, []int{5, 32000}}, {spec.Float32, []int{2, 40960}},
		{spec.Float64, []int{3, 8192}},
		{spec.Float16, []int{3, 20000}}, {spec.BFloat16, []int{2, 65536}}, {spec.BFloat16, []int{4, 32000}},
		{spec.Float64, []int{3, 9000}}, {spec.Float64, []int{2, 20480}},
	} {
		for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
			pl, err := d.Plan(op, c.dt, c.shape, Options{Axis: -1, Algo: "block_hybrid"})
			if err != nil {
				t.Errorf("%v %v %v: %v", op, c.dt, c.shape, err)
				continue
			}
			sym := pl.Launches[0].Symbol
			cases := []verify.Case{
				{Fill: verify.Random}, {Fill: verify.Random, Scale: -1.5}, {Fill: verify.NegInf}, {Fill: verify.AllNegInf},
				{Fill: verify.NaN}, {Fill: verify.DYZero}, {Fill: verify.DYNaN},
				{Fill: verify.Random, Alias: verify.AliasDY}, {Fill: verify.Random, Alias: verify.AliasY, Scale: 0.5},
			}
			for _, vc := range cases {
				vc.Shape, vc.Axis, vc.DType, vc.Op = c.shape, -1, c.dt, op
				if r := verify.Run(vc, rng, backend(d, "block_hybrid")); !r.OK() {
					t.Errorf("%s (%s): rel %.3g (tol %.0e) err %v", vc.Name(), sym, r.Rel, r.Tol, r.Err)
				}
			}
		}
	}
}
