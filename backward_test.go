package softmax

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gofused/softmax/internal/verify"
)

// With a scale, Backward gives the gradient of softmax(scale·x) (and of
// log-softmax) with respect to x: the vector-Jacobian product with dy,
// checked against central differences of Σ dy·Apply(x) in float64, along
// the last axis and a middle one, for positive and negative scales.
func TestBackwardScaleIsGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pairs := map[Op]Op{OpSoftmax: OpSoftmaxBackward, OpLogSoftmax: OpLogSoftmaxBackward}
	for _, sh := range []struct {
		shape []int
		axis  int
	}{{[]int{3, 7}, -1}, {[]int{2, 5, 3}, 1}} {
		n := 1
		for _, d := range sh.shape {
			n *= d
		}
		x, dy := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], dy[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		for fwd, bwd := range pairs {
			for _, sc := range []float64{0.3, -1.7, 2.5} {
				opt := Options{Axis: sh.axis, Scale: sc}
				loss := func(x []float64) float64 {
					y := make([]float64, n)
					if err := Forward(fwd, y, x, sh.shape, opt); err != nil {
						t.Fatal(err)
					}
					l := 0.0
					for i := range y {
						l += dy[i] * y[i]
					}
					return l
				}
				y := make([]float64, n)
				if err := Forward(fwd, y, x, sh.shape, opt); err != nil {
					t.Fatal(err)
				}
				dx := make([]float64, n)
				if err := Backward(bwd, dx, y, dy, sh.shape, opt); err != nil {
					t.Fatal(err)
				}
				const h = 1e-6
				for i := range x {
					xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
					xp[i] += h
					xm[i] -= h
					num := (loss(xp) - loss(xm)) / (2 * h)
					if math.Abs(dx[i]-num) > 1e-7*math.Max(1, math.Abs(num)) {
						t.Errorf("%v %v axis %d scale %g: dx[%d] = %.10g, central difference %.10g",
							bwd, sh.shape, sh.axis, sc, i, dx[i], num)
					}
				}
			}
		}
	}
}

// dx = y and dx = dy with four workers at the default thresholds, on
// shapes whose rows, split rows and lane blocks are shared out: every
// dtype, both ops, scaled and not, against the float64 reference.
func TestBackwardInPlaceParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct {
		shape []int
		axis  int
	}{{[]int{64, 4096}, -1}, {[]int{2, 70000}, -1}, {[]int{8, 300, 64}, 1}} {
		for _, dt := range []DType{Float32, Float16, BFloat16, Float64} {
			for _, op := range []Op{OpSoftmaxBackward, OpLogSoftmaxBackward} {
				for k, a := range []verify.Alias{verify.AliasY, verify.AliasDY} {
					c := verify.Case{Shape: sh.shape, Axis: sh.axis, DType: dt, Op: op, Scale: []float64{1, -2}[k], Fill: verify.Random, Alias: a}
					if r := verify.Run(c, rng, cpuBackend); !r.OK() {
						t.Errorf("%s: rel %.3g (tol %.0e) err %v", c.Name(), r.Rel, r.Tol, r.Err)
					}
				}
			}
		}
	}
}

// Exact aliasing of dx with y or dy is in place; any partial overlap of dx
// with an input is ErrOverlap, for every storage slice, and nothing is
// written. y and dy, both inputs, may overlap each other.
func TestBackwardOverlap(t *testing.T) {
	const n = 4
	f32 := make([]float32, 3*n)
	u16 := make([]uint16, 3*n)
	f64 := make([]float64, 3*n)
	mk := func(dt DType, lo int) Tensor {
		t := Tensor{Shape: []int{n}, DType: dt}
		switch dt {
		case Float32:
			t.F32 = f32[lo : lo+n]
		case Float64:
			t.F64 = f64[lo : lo+n]
		default:
			t.U16 = u16[lo : lo+n]
		}
		return t
	}
	for _, dt := range []DType{Float32, Float16, BFloat16, Float64} {
		for _, op := range []Op{OpSoftmaxBackward, OpLogSoftmaxBackward} {
			for _, tc := range []struct {
				name      string
				dx, y, dy int // first elements in the shared storage
				bad       bool
			}{
				{"dx partly over y", 1, 0, n, true},
				{"dx partly over dy", 0, n, 3, true},
				{"dx partly over both", 2, n, 0, true},
				{"dx is y", 0, 0, n, false},
				{"dx is dy", n, 0, n, false},
				{"y and dy overlap", 2 * n, 0, 1, false},
			} {
				for i := range f32 {
					f32[i], u16[i], f64[i] = 0.125, FloatToHalfBits(0.125), 0.125
					if dt == BFloat16 {
						u16[i] = uint16(BFloat16From(0.125))
					}
				}
				b32, b16, b64 := slices.Clone(f32), slices.Clone(u16), slices.Clone(f64)
				err := ApplyBackward(op, mk(dt, tc.dx), mk(dt, tc.y), mk(dt, tc.dy), Options{Scale: 2})
				if !tc.bad {
					if err != nil {
						t.Errorf("%v %v %s: %v", dt, op, tc.name, err)
					}
					continue
				}
				if !errors.Is(err, ErrOverlap) {
					t.Errorf("%v %v %s: %v, want ErrOverlap", dt, op, tc.name, err)
				}
				if !slices.Equal(b32, f32) || !slices.Equal(b16, u16) || !slices.Equal(b64, f64) {
					t.Errorf("%v %v %s: storage written on error", dt, op, tc.name)
				}
			}
		}
	}
}
