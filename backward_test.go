package softmax

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
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

// FuzzBackward checks both backward ops, scaled, on arbitrary float32 rows
// against the float64 reference times the scale, element by element
// relative to the terms dx is the difference of (5e-6 of s·|y|·(|dy| +
// Σ|y·dy|), or s·(|dy| + e^y·Σ|dy|), plus 1e-30). Each pair of bytes is an x (k/64;
// −32768 is −∞, 32767 NaN) and a dy (k/256), so y has zeros, −∞ and NaN
// rows; the scale is int8/16 (0 means 1).
func FuzzBackward(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, uint8(3), int8(-24), false)
	f.Add([]byte{0x00, 0x80, 0, 1, 0xff, 0x7f, 0, 2, 0, 0x40, 0x10, 0}, uint8(1), int8(5), true)
	f.Add(make([]byte, 256), uint8(7), int8(16), true)
	f.Fuzz(func(t *testing.T, raw []byte, cols uint8, sc int8, log bool) {
		n := len(raw) / 4
		c := int(cols)%16 + 1
		if n < c {
			return
		}
		rows := n / c
		x, dy := make([]float32, rows*c), make([]float32, rows*c)
		for i := range x {
			k := int16(binary.LittleEndian.Uint16(raw[4*i:]))
			switch k {
			case math.MinInt16:
				x[i] = float32(math.Inf(-1))
			case math.MaxInt16:
				x[i] = float32(math.NaN())
			default:
				x[i] = float32(k) / 64
			}
			dy[i] = float32(int16(binary.LittleEndian.Uint16(raw[4*i+2:]))) / 256
		}
		fwd, bwd := OpSoftmax, OpSoftmaxBackward
		if log {
			fwd, bwd = OpLogSoftmax, OpLogSoftmaxBackward
		}
		opt := Options{Axis: -1, Scale: float64(sc) / 16}
		shape := []int{rows, c}
		y, dx := make([]float32, len(x)), make([]float32, len(x))
		if err := Forward(fwd, y, x, shape, Options{Axis: -1}); err != nil {
			t.Fatal(err)
		}
		if err := Backward(bwd, dx, y, dy, shape, opt); err != nil {
			t.Fatal(err)
		}
		y64, dy64 := make([]float64, len(x)), make([]float64, len(x))
		for i := range y {
			y64[i], dy64[i] = float64(y[i]), float64(dy[i])
		}
		want, err := ref.Backward(bwd, spec.Layout{Outer: rows, Axis: c, Inner: 1}, y64, dy64)
		if err != nil {
			t.Fatal(err)
		}
		s := opt.scale()
		for r := 0; r < rows; r++ {
			var sum float64
			for j := r * c; j < (r+1)*c; j++ {
				if log {
					sum += math.Abs(dy64[j])
				} else {
					sum += math.Abs(y64[j] * dy64[j])
				}
			}
			for j := r * c; j < (r+1)*c; j++ {
				g, w := float64(dx[j]), s*want[j]
				bound := math.Abs(s) * math.Abs(y64[j]) * (math.Abs(dy64[j]) + sum)
				if log {
					bound = math.Abs(s) * (math.Abs(dy64[j]) + math.Exp(y64[j])*sum)
				}
				switch {
				case math.IsNaN(w):
					if !math.IsNaN(g) {
						t.Fatalf("%v scale %g row %v dy %v: dx[%d] = %v, want NaN", bwd, s, y[r*c:(r+1)*c], dy[r*c:(r+1)*c], j-r*c, g)
					}
				case math.Abs(g-w) > 5e-6*bound+1e-30: // float32 flushes e^y below 1e-45
					t.Fatalf("%v scale %g row %v dy %v: dx[%d] = %v, want %v", bwd, s, y[r*c:(r+1)*c], dy[r*c:(r+1)*c], j-r*c, g, w)
				}
			}
		}
	})
}
