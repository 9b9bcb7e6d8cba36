package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/npy"
)

// apply --op *_backward reads y (--in) and dy (--dy) and writes dx with
// --scale applied, in y's dtype: compared with the float64 reference
// times the scale, along the last axis and axis 0, f32, f16 and f64
// files, dy in another dtype than y.
func TestApplyBackward(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	shape := []int{5, 41}
	n := 5 * 41
	x, dy := randF32(rng, n), randF32(rng, n)
	write := func(name string, a *npy.Array) string {
		p := filepath.Join(dir, name)
		if err := npy.WriteFile(p, a); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dy32 := write("dy32.npy", npy.NewF32(shape, dy))
	dy64v := make([]float64, n)
	for i, v := range dy {
		dy64v[i] = float64(v)
	}
	dy64 := write("dy64.npy", npy.NewF64(shape, dy64v))
	for _, tt := range []struct {
		name  string
		op    softmax.Op
		axis  int
		scale float64 // 0: no --scale flag
		yDT   npy.DType
		dy    string
		tol   float64
	}{
		{"softmax f32 scale 2", softmax.OpSoftmaxBackward, -1, 2, npy.F32, dy32, 1e-5},
		{"softmax f32 no scale", softmax.OpSoftmaxBackward, -1, 0, npy.F32, dy32, 1e-5},
		{"log_softmax f32 axis 0 scale -0.5", softmax.OpLogSoftmaxBackward, 0, -0.5, npy.F32, dy32, 1e-5},
		{"softmax f64 axis 0 scale 0.3", softmax.OpSoftmaxBackward, 0, 0.3, npy.F64, dy64, 1e-12},
		{"log_softmax f16, f64 dy, scale 3", softmax.OpLogSoftmaxBackward, -1, 3, npy.F16, dy64, 2e-3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fwd := softmax.OpSoftmax
			if tt.op == softmax.OpLogSoftmaxBackward {
				fwd = softmax.OpLogSoftmax
			}
			// y = forward(scale·x) in float64, stored in y's dtype.
			s := tt.scale
			if s == 0 {
				s = 1
			}
			l, _ := spec.Decompose(shape, tt.axis)
			sx := make([]float64, n)
			for i, v := range x {
				sx[i] = s * float64(v)
			}
			yv, _ := ref.Forward(fwd, l, sx, 1)
			var ya *npy.Array
			switch tt.yDT {
			case npy.F64:
				ya = npy.NewF64(shape, yv)
			case npy.F32, npy.F16:
				y32 := make([]float32, n)
				for i, v := range yv {
					y32[i] = float32(v)
				}
				ya = npy.NewF32(shape, y32)
				if tt.yDT == npy.F16 {
					y16 := make([]uint16, n)
					vec.F32ToF16(y16, y32)
					ya = npy.NewF16(shape, y16)
				}
			}
			yPath := write("y.npy", ya)
			out := filepath.Join(dir, "dx.npy")
			args := []string{"apply", "--device", "cpu", "--op", tt.op.String(), "--in", yPath, "--dy", tt.dy, "--out", out,
				"--axis", strconv.Itoa(tt.axis)}
			if tt.scale != 0 {
				args = append(args, "--scale", strconv.FormatFloat(tt.scale, 'g', -1, 64))
			}
			if r := runCLI(t, args...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			got, err := npy.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != tt.yDT {
				t.Fatalf("dx dtype %v, want y's %v", got.DType, tt.yDT)
			}
			// The reference from the y and dy the command read.
			want, _ := ref.Backward(tt.op, l, asF64(ya), dy64v)
			gv := asF64(got)
			var num, den float64
			for i := range want {
				w := s * want[i]
				num += (gv[i] - w) * (gv[i] - w)
				den += w * w
			}
			if rel := math.Sqrt(num / den); !(rel <= tt.tol) {
				t.Errorf("‖dx − ref‖/‖ref‖ = %.3g, want ≤ %.0e", rel, tt.tol)
			}
		})
	}
}

func asF64(a *npy.Array) []float64 {
	if a.DType == npy.F64 {
		return a.F64
	}
	f := a.AsF32()
	v := make([]float64, len(f))
	for i, x := range f {
		v[i] = float64(x)
	}
	return v
}

// The backward ops' flags: --dy required by them and refused elsewhere,
// one standard input, the same shape, --out not over --dy.
func TestApplyBackwardErrors(t *testing.T) {
	dir := t.TempDir()
	y := filepath.Join(dir, "y.npy")
	dy := filepath.Join(dir, "dy.npy")
	dyBad := filepath.Join(dir, "dy3.npy")
	npy.WriteFile(y, npy.NewF32([]int{2, 2}, []float32{0.5, 0.5, 0.25, 0.75}))
	npy.WriteFile(dy, npy.NewF32([]int{2, 2}, []float32{1, 2, 3, 4}))
	npy.WriteFile(dyBad, npy.NewF32([]int{4}, []float32{1, 2, 3, 4}))
	out := filepath.Join(dir, "dx.npy")
	expectUsageErrors(t, "apply", []usageCase{
		{[]string{"apply", "--op", "softmax_backward", "--in", y, "--out", out}, "needs --dy"},
		{[]string{"apply", "--op", "softmax", "--in", y, "--dy", dy, "--out", out}, "--dy: only the backward ops"},
		{[]string{"apply", "--op", "logsumexp", "--in", y, "--dy", dy, "--out", out}, "--dy: only the backward ops"},
		{[]string{"apply", "--op", "softmax_backward", "--in", "-", "--dy", "-", "--out", out}, "both read standard input"},
		{[]string{"apply", "--op", "softmax_backward", "--in", y, "--dy", dy, "--out", dy}, "same file as --dy"},
		{[]string{"apply", "--op", "softmax_backward", "--in", y, "--dy", dy, "--out", out, "--scale", "NaN"}, "--scale NaN"},
	})
	r := runCLI(t, "apply", "--device", "cpu", "--op", "log_softmax_backward", "--in", y, "--dy", dyBad, "--out", out)
	if r.code != 1 || !strings.Contains(r.stderr, "shape") {
		t.Errorf("dy of another shape: exit %d, %q; want 1 naming the shapes", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed backward wrote --out")
	}
}
