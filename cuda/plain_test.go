package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
)

func TestPlainLaunch(t *testing.T) {
	for _, c := range []struct {
		op   softmax.Op
		opt  Options
		want bool
	}{
		{spec.Softmax, Options{}, true},
		{spec.Softmax, Options{Scale: 1}, true},
		{spec.Softmax, Options{Scale: 0.125}, false},
		{spec.Softmax, Options{general: true}, false},
		{spec.LogSoftmax, Options{}, false},
		{spec.SoftmaxBackward, Options{}, false},
		{spec.LogSoftmaxBackward, Options{}, false},
	} {
		if got := plainLaunch(c.op, c.opt); got != c.want {
			t.Errorf("plainLaunch(%v, %+v) = %v, want %v", c.op, c.opt, got, c.want)
		}
	}
}

// The plain-softmax builds (kernels.Source's plain, SMX_PLAIN) against the
// general builds on the same launches, for every strategy that serves a
// shape: float32 bit for bit (the plain build only folds a multiply by 1
// and a select away); f16 and bf16 within one unit in the last place, as
// fexp_shifted rounds the exponent once where the general build rounds it
// twice. Odd slices are shifted by 100, past fexp_shift_max, so the plain
// build's general exps run too.
func TestPlainBuildMatchesGeneral(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	cases := []struct {
		shape []int
		axis  int
	}{{[]int{96, 1000}, -1}, {[]int{16, 8192}, -1}, {[]int{2, 300000}, -1}, {[]int{1024, 64}, 0},
		{[]int{300, 100}, -1}, {[]int{500, 96}, -1}, {[]int{700, 10}, -1}, // warp_row: twins, packs, elements
		{[]int{400, 150}, -1}} // warp_row: three packs a lane, twins
	rng := rand.New(rand.NewPCG(24, 11))
	ran := 0
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16} {
		for _, c := range cases {
			x, err := softmax.NewTensor(dt, c.shape...)
			if err != nil {
				t.Fatal(err)
			}
			cols := c.shape[len(c.shape)-1]
			for i := range x.Len() {
				slice := i / cols // a row (last axis) or, for axis 0, a column
				if c.axis == 0 {
					slice = i % cols
				}
				v := float32(rng.NormFloat64() * 4)
				if slice%2 == 1 {
					v += 100
				}
				switch dt {
				case softmax.Float32:
					x.F32[i] = v
				case softmax.Float16:
					x.U16[i] = softmax.FloatToHalfBits(v)
				default:
					x.U16[i] = uint16(softmax.BFloat16From(v))
				}
			}
			for _, algo := range Strategies() {
				var out [2]softmax.Tensor
				for k, general := range []bool{false, true} {
					out[k], _ = softmax.NewTensor(dt, c.shape...)
					for i := range out[k].F32 {
						out[k].F32[i] = float32(math.NaN())
					}
					for i := range out[k].U16 {
						out[k].U16[i] = 0x7fff // NaN in f16 and bf16
					}
					err = d.ApplyHost(spec.Softmax, out[k], x, Options{Axis: c.axis, Algo: algo, general: general})
					if err != nil {
						break
					}
				}
				if unsupported(err) {
					continue
				}
				if err != nil {
					t.Fatalf("%v %v axis %d %s: %v", dt, c.shape, c.axis, algo, err)
				}
				ran++
				if bad := plainMismatches(out[0], out[1]); bad > 0 {
					t.Errorf("%v %v axis %d %s: %d of %d outputs differ beyond the bound", dt, c.shape, c.axis, algo, bad, x.Len())
				}
			}
		}
	}
	t.Logf("%d launches compared", ran)
	if ran < 3*len(cases) {
		t.Errorf("only %d launches compared", ran)
	}
}

// plainMismatches counts outputs of a (plain build) that differ from b
// (general build), or that are not in [0, 1] in either (both start as
// NaN): any bit in float32, more than one unit in the last place in 16
// bits.
func plainMismatches(a, b softmax.Tensor) int {
	bad := 0
	if a.DType == softmax.Float32 {
		for i, v := range a.F32 {
			if math.Float32bits(v) != math.Float32bits(b.F32[i]) || !(v >= 0 && v <= 1) {
				bad++
			}
		}
		return bad
	}
	one := softmax.FloatToHalfBits(1)
	if a.DType == softmax.BFloat16 {
		one = uint16(softmax.BFloat16From(1))
	}
	for i, v := range a.U16 {
		// Outputs in [0, 1]: their bit patterns order like their values.
		if diff := int(v) - int(b.U16[i]); diff > 1 || diff < -1 || v > one || b.U16[i] > one {
			bad++
		}
	}
	return bad
}
