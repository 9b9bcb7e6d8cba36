package softmax

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// cpuBackend adapts the public API to the verify battery.
func cpuBackend(c verify.Case, out verify.Host, in []verify.Host) error {
	t := func(h verify.Host) Tensor {
		return Tensor{Shape: c.Shape, DType: h.DType, F32: h.F32, U16: h.U16, F64: h.F64}
	}
	opt := Options{Axis: c.Axis, Scale: c.Scale}
	if c.Op.Backward() {
		return ApplyBackward(c.Op, t(out), t(in[0]), t(in[1]), opt)
	}
	return Apply(c.Op, t(out), t(in[0]), opt)
}

func TestBatteryAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, uint64(rand.Int64())))
	for _, c := range verify.Battery(testing.Short()) {
		r := verify.Run(c, rng, cpuBackend)
		if !r.OK() {
			t.Errorf("%s: rel %.3g (tol %.0e) max abs %.3g err %v", c.Name(), r.Rel, r.Tol, r.MaxAbs, r.Err)
		}
	}
}

// In place: dst is src, and dx is y or dy.
func TestInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, uint64(rand.Int64())))
	inPlace := func(c verify.Case, out verify.Host, in []verify.Host) error {
		// Copy the input into out and run with dst == src (dx == dy for backward).
		if c.Op.Backward() {
			copy(out.F32, in[1].F32)
			copy(out.U16, in[1].U16)
			copy(out.F64, in[1].F64)
			in = []verify.Host{in[0], out}
		} else {
			copy(out.F32, in[0].F32)
			copy(out.U16, in[0].U16)
			copy(out.F64, in[0].F64)
			in = []verify.Host{out}
		}
		return cpuBackend(c, out, in)
	}
	for _, c := range verify.Battery(true) {
		if c.Fill != verify.Random || c.Alias != verify.Separate {
			continue // the aliased cases are in place already
		}
		if r := verify.Run(c, rng, inPlace); !r.OK() {
			t.Errorf("in place %s: rel %.3g err %v", c.Name(), r.Rel, r.Err)
		}
	}
}

func TestTypedAPI(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	y := make([]float32, 4)
	if err := Softmax(y, x, []int{2, 2}, -1); err != nil {
		t.Fatal(err)
	}
	p := 1 / (1 + math.E)
	want := []float32{float32(p), float32(1 - p), float32(p), float32(1 - p)}
	for i := range y {
		if math.Abs(float64(y[i]-want[i])) > 1e-7 {
			t.Fatalf("y = %v, want %v", y, want)
		}
	}
	h := []Half{}
	for _, v := range x {
		h = append(h, Half(FloatToHalfBits(v)))
	}
	hy := make([]Half, 4)
	if err := LogSoftmax(hy, h, []int{4}, 0); err != nil {
		t.Fatal(err)
	}
	if got := hy[3].Float32(); math.Abs(float64(got)-(-0.4401897)) > 1e-3 {
		t.Errorf("log_softmax f16 last = %v", got)
	}
	b := []BFloat16Value{BFloat16From(0), BFloat16From(0)}
	if err := Softmax(b, b, []int{2}, 0); err != nil || b[0].Float32() != 0.5 {
		t.Errorf("bf16 in place: %v %v", b, err)
	}
}

func TestErrors(t *testing.T) {
	f := func(n int) []float32 { return make([]float32, n) }
	big := f(12)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"length", Softmax(f(5), f(6), []int{2, 3}, -1), "length mismatch: dst"},
		{"axis", Softmax(f(6), f(6), []int{2, 3}, 2), "axis 2 out of range"},
		{"negative axis", Softmax(f(6), f(6), []int{2, 3}, -3), "axis -3 out of range"},
		{"negative dim", Softmax(f(6), f(6), []int{-2, 3}, 0), "negative dimension"},
		{"nil", Softmax(nil, f(6), []int{2, 3}, 0), "nil"},
		{"overlap", Softmax(big[2:8], big[0:6], []int{6}, 0), "partially overlaps"},
		{"dtype", Apply(OpSoftmax, Tensor{Shape: []int{2}, DType: Float16, U16: make([]uint16, 2)},
			Tensor{Shape: []int{2}, DType: Float32, F32: f(2)}, Options{}), "dtype mismatch"},
		{"shape", Apply(OpSoftmax, Tensor{Shape: []int{3}, DType: Float32, F32: f(3)},
			Tensor{Shape: []int{1, 3}, DType: Float32, F32: f(3)}, Options{}), "shape mismatch"},
		{"wrong slice", Apply(OpSoftmax, Tensor{Shape: []int{2}, DType: Float16, F32: f(2)},
			Tensor{Shape: []int{2}, DType: Float16, U16: make([]uint16, 2)}, Options{}), "wrong slice"},
		{"op", Apply(OpSoftmaxBackward, Tensor{Shape: []int{2}, F32: f(2)}, Tensor{Shape: []int{2}, F32: f(2)}, Options{}), "forward op"},
		{"bwd op", ApplyBackward(OpSoftmax, Tensor{Shape: []int{2}, F32: f(2)}, Tensor{Shape: []int{2}, F32: f(2)},
			Tensor{Shape: []int{2}, F32: f(2)}, Options{}), "backward op"},
		{"unknown op", Apply(Op(9), Tensor{Shape: []int{2}, F32: f(2)}, Tensor{Shape: []int{2}, F32: f(2)}, Options{}), "unknown op"},
		{"unknown dtype", Apply(OpSoftmax, Tensor{Shape: []int{2}, DType: 7}, Tensor{Shape: []int{2}, DType: 7}, Options{}), "unknown dtype"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, c.err, c.want)
		}
	}
}

// Nothing is written when a call fails validation.
func TestNothingWrittenOnError(t *testing.T) {
	dst := []float32{7, 7, 7, 7, 7}
	if err := Softmax(dst, []float32{1, 2, 3, 4, 5, 6}[:5], []int{6}, 0); err == nil {
		t.Fatal("want error")
	}
	for _, v := range dst {
		if v != 7 {
			t.Fatalf("dst written on error: %v", dst)
		}
	}
}

func TestZeroSize(t *testing.T) {
	for _, shape := range [][]int{{0}, {0, 3}, {3, 0}, {2, 0, 4}} {
		if err := Softmax([]float32{}, []float32{}, shape, -1); err != nil {
			t.Errorf("%v: %v", shape, err)
		}
	}
	if err := Softmax[float32](nil, nil, []int{0, 4}, 0); err != nil {
		t.Errorf("nil zero-size: %v", err)
	}
}

// Steady-state calls allocate nothing.
func TestNoAllocs(t *testing.T) {
	for _, shape := range [][]int{{64, 1000}, {1, 200000}, {100, 50}} {
		x := make([]float32, shape[0]*shape[1])
		for i := range x {
			x[i] = float32(i % 13)
		}
		y := make([]float32, len(x))
		_ = Softmax(y, x, shape, -1)
		_ = Softmax(y, x, shape, 0)
		allocs := testing.AllocsPerRun(20, func() {
			_ = Softmax(y, x, shape, -1)
			_ = Softmax(y, x, shape, 0)
		})
		if allocs > 0 {
			t.Errorf("%v: %.1f allocations per call", shape, allocs)
		}
	}
}

// FuzzSoftmax checks the CPU path against the reference on arbitrary rows.
func FuzzSoftmax(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, uint8(3), false)
	f.Add([]byte{0xff, 0x80, 0, 0, 0, 0, 0x80, 0x7f}, uint8(1), true)
	f.Add(make([]byte, 400), uint8(7), false)
	f.Fuzz(func(t *testing.T, raw []byte, cols uint8, log bool) {
		n := len(raw) / 4
		c := int(cols)%16 + 1
		if n < c {
			return
		}
		rows := n / c
		x := make([]float32, rows*c)
		for i := range x {
			x[i] = math.Float32frombits(uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24)
		}
		op := OpSoftmax
		if log {
			op = OpLogSoftmax
		}
		y := make([]float32, len(x))
		if err := Forward(op, y, x, []int{rows, c}, Options{Axis: -1}); err != nil {
			t.Fatal(err)
		}
		checkRows(t, op, x, y, rows, c)
	})
}

// checkRows compares each row with a float64 computation.
func checkRows(t *testing.T, op Op, x, y []float32, rows, c int) {
	t.Helper()
	for r := 0; r < rows; r++ {
		row := x[r*c : (r+1)*c]
		m := math.Inf(-1)
		bad := false
		for _, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 1) {
				bad = true
			}
			m = math.Max(m, float64(v))
		}
		var d float64
		for _, v := range row {
			d += math.Exp(float64(v) - m)
		}
		for j, v := range row {
			got := float64(y[r*c+j])
			var want float64
			if op == OpLogSoftmax {
				want = float64(v) - m - math.Log(d)
			} else {
				want = math.Exp(float64(v)-m) / d
			}
			switch {
			case bad || math.IsInf(m, -1):
				if !math.IsNaN(got) {
					t.Fatalf("row %v: y[%d] = %v, want NaN", row, j, got)
				}
			case math.IsInf(want, -1):
				if got != want {
					t.Fatalf("row %v: y[%d] = %v, want -Inf", row, j, got)
				}
			case math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)):
				t.Fatalf("row %v: y[%d] = %v, want %v", row, j, got, want)
			}
		}
	}
}

// A long non-last axis over narrow lane blocks: the CPU engine's stats pass
// once summed thousands of steps in one float32 and drifted by n·ulp
// (3000×40 axis 0 reached 2.7e-6 of the norm, over the 1e-6 tolerance).
func TestLongStridedAxisAccuracy(t *testing.T) {
	for seed := uint64(0); seed < 8; seed++ {
		rng := rand.New(rand.NewPCG(5, seed))
		c := verify.Case{Shape: []int{4000, 40}, Axis: 0, DType: spec.Float32, Op: spec.Softmax, Fill: verify.Random}
		if r := verify.Run(c, rng, cpuBackend); !r.OK() {
			t.Errorf("seed %d: %s: rel %.3g (tol %.0e) err %v", seed, c.Name(), r.Rel, r.Tol, r.Err)
		}
	}
}

// TestTypedAPIFloat64: the typed functions take []float64 and compute in
// float64 (1e-15 of the exact softmax of [1, 2]; float32 would be 1e-8
// off), and a Float64 tensor with data in another slice is refused.
func TestTypedAPIFloat64(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	y := make([]float64, 4)
	if err := Softmax(y, x, []int{2, 2}, -1); err != nil {
		t.Fatal(err)
	}
	p := 1 / (1 + math.E)
	for i, w := range []float64{p, 1 - p, p, 1 - p} {
		if math.Abs(y[i]-w) > 1e-15 {
			t.Fatalf("y = %v, want [%v %v ...]", y, p, 1-p)
		}
	}
	if err := LogSoftmax(y, x, []int{4}, 0); err != nil {
		t.Fatal(err)
	}
	d := math.Log(math.Exp(-3) + math.Exp(-2) + math.Exp(-1) + 1)
	if math.Abs(y[3]-(-d)) > 1e-15 {
		t.Fatalf("log_softmax y[3] = %v, want %v", y[3], -d)
	}
	dx := make([]float64, 4)
	if err := Backward(OpLogSoftmaxBackward, dx, y, []float64{1, 0, 0, 0}, []int{4}, Options{}); err != nil {
		t.Fatal(err)
	}
	tt, err := NewTensor(Float64, 2, 2)
	if err != nil || len(tt.F64) != 4 || tt.F32 != nil || tt.U16 != nil {
		t.Fatalf("NewTensor(Float64) = %+v, %v", tt, err)
	}
	bad := Tensor{Shape: []int{4}, DType: Float64, F32: make([]float32, 4)}
	if err := Apply(OpSoftmax, bad, bad, Options{}); err == nil || !strings.Contains(err.Error(), "wrong slice") {
		t.Fatalf("f64 tensor with F32 data: err %v", err)
	}
	if dt, err := ParseDType("double"); err != nil || dt != Float64 || dt.String() != "f64" {
		t.Fatalf("ParseDType(double) = %v, %v", dt, err)
	}
}

// FuzzSoftmax64 checks the float64 path against the compensated float64
// reference on arbitrary float64 rows (any bit patterns: NaN, ±∞,
// denormals, huge values), element-wise within 1e-13·max(1, |ref|).
func FuzzSoftmax64(f *testing.F) {
	put := func(x ...float64) []byte {
		b := make([]byte, 8*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(put(0, 1, 2, 3, 4, 5, 6, 7), uint8(3), false)
	f.Add(put(math.Inf(-1), math.Inf(-1), 1e308, -1e308, math.NaN(), 5e-324, 700, -700), uint8(1), true)
	f.Add(make([]byte, 800), uint8(9), false)
	f.Fuzz(func(t *testing.T, raw []byte, cols uint8, log bool) {
		n := len(raw) / 8
		c := int(cols)%40 + 1
		if n < c {
			return
		}
		rows := n / c
		x := make([]float64, rows*c)
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		op := OpSoftmax
		if log {
			op = OpLogSoftmax
		}
		y := make([]float64, len(x))
		if err := Forward(op, y, x, []int{rows, c}, Options{Axis: -1}); err != nil {
			t.Fatal(err)
		}
		want, err := ref.ForwardCompensated(op, spec.Layout{Outer: rows, Axis: c, Inner: 1}, x, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			g := y[i]
			switch {
			case math.IsNaN(w) || math.IsInf(w, 0):
				if !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
					t.Fatalf("row %v: y[%d] = %v, want %v", x[i/c*c:i/c*c+c], i%c, g, w)
				}
			case math.Abs(g-w) > 1e-13*math.Max(1, math.Abs(w)):
				t.Fatalf("row %v: y[%d] = %v, want %v", x[i/c*c:i/c*c+c], i%c, g, w)
			}
		}
	})
}
