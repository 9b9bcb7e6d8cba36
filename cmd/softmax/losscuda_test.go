package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/npy"
)

// runInProcess runs the command in this process (no go command needed:
// the test binary may run on a GPU machine without one).
func runInProcess(args ...string) result {
	var out, errb bytes.Buffer
	code := run(args, &env{stdout: &out, stderr: &errb})
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// cudaOrSkip skips a test on a machine without a usable GPU.
func cudaOrSkip(t *testing.T) {
	t.Helper()
	d, err := cuda.Open(0)
	if err != nil {
		t.Skip("no CUDA device: " + err.Error())
	}
	d.Close()
}

// npyFloats widens a float .npy file's values to float64.
func npyFloats(t *testing.T, path string) ([]int, []float64) {
	t.Helper()
	a, err := npy.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch a.DType {
	case npy.F64:
		return a.Shape, a.F64
	case npy.F32, npy.F16:
		f := a.AsF32()
		v := make([]float64, len(f))
		for i, x := range f {
			v[i] = float64(x)
		}
		return a.Shape, v
	}
	t.Fatalf("%s holds %v", path, a.DType)
	return nil, nil
}

// sameOutputs compares the files two devices wrote: shapes equal, values
// within tol of the larger of |want| and the file's largest |value| times
// rel (a gradient's small entries are bounded by the row's large ones).
func sameOutputs(t *testing.T, name, got, want string, tol, rel float64) {
	t.Helper()
	gs, g := npyFloats(t, got)
	ws, w := npyFloats(t, want)
	if fmt.Sprint(gs) != fmt.Sprint(ws) || len(g) != len(w) {
		t.Fatalf("%s: shape %v, the CPU's %v", name, gs, ws)
	}
	mx := 0.0
	for _, v := range w {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			mx = max(mx, math.Abs(v))
		}
	}
	for i := range w {
		if math.IsNaN(w[i]) || math.IsInf(w[i], 0) || math.IsNaN(g[i]) || math.IsInf(g[i], 0) {
			if !(math.IsNaN(w[i]) && math.IsNaN(g[i])) && g[i] != w[i] {
				t.Fatalf("%s[%d] = %v on the GPU, %v on the CPU", name, i, g[i], w[i])
			}
			continue
		}
		if math.Abs(g[i]-w[i]) > tol*(math.Abs(w[i])+rel*mx) {
			t.Fatalf("%s[%d] = %v on the GPU, %v on the CPU (largest %v)", name, i, g[i], w[i], mx)
		}
	}
}

// apply --op cross_entropy|logsumexp --device cuda writes what --device cpu
// writes (same flags, same files), within the dtype's rounding.
func TestApplyLossCUDA(t *testing.T) {
	cudaOrSkip(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(73, 3))
	shape := []int{3, 5, 781}
	x := randF32(rng, 3*5*781)
	x[11] = float32(math.Inf(-1))
	w := make([]float32, 781)
	for i := range w {
		w[i] = 0.25 + float32(i%4)
	}
	tg := make([]int64, 15)
	for i := range tg {
		tg[i] = int64(rng.IntN(781))
	}
	tg[4] = -1
	x64 := make([]float64, len(x))
	for i, v := range x {
		x64[i] = float64(v)
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	must(t, npy.WriteFile(p("x32.npy"), npy.NewF32(shape, x)))
	must(t, npy.WriteFile(p("x64.npy"), npy.NewF64(shape, x64)))
	must(t, npy.WriteFile(p("t.npy"), &npy.Array{Shape: []int{3, 5}, DType: npy.I64, I64: tg}))
	must(t, npy.WriteFile(p("t32.npy"), &npy.Array{Shape: []int{15}, DType: npy.I32, I32: func() []int32 {
		v := make([]int32, 15)
		for i, t := range tg {
			v[i] = int32(t)
		}
		return v
	}()}))
	must(t, npy.WriteFile(p("w.npy"), npy.NewF32([]int{781}, w)))
	type tc struct {
		name     string
		args     []string
		outs     []string // flags whose files are compared
		tol, rel float64
	}
	ce := func(in string, extra ...string) []string {
		return append([]string{"apply", "--op", "cross_entropy", "--in", p(in)}, extra...)
	}
	opts := []string{"--weights", p("w.npy"), "--ignore-index", "-1", "--label-smoothing", "0.1", "--z-loss", "1e-3",
		"--softcap", "20", "--scale", "0.9"}
	cases := []tc{
		{"f32 defaults", ce("x32.npy", "--targets", p("t.npy")), []string{"--out", "--grad-out", "--lse-out"}, 5e-5, 1},
		{"f32 options", ce("x32.npy", append([]string{"--targets", p("t.npy")}, opts...)...), []string{"--out", "--grad-out", "--lse-out"}, 5e-5, 1},
		{"f32 none int32", ce("x32.npy", "--targets", p("t32.npy"), "--reduction", "none", "--ignore-index", "-1"), []string{"--out", "--grad-out"}, 5e-5, 1},
		{"f32 sum", ce("x32.npy", "--targets", p("t.npy"), "--reduction", "sum", "--scale", "1.5"), []string{"--out", "--grad-out"}, 5e-5, 1},
		{"f32 as bf16", ce("x32.npy", "--targets", p("t.npy"), "--dtype", "bf16"), []string{"--out", "--grad-out", "--lse-out"}, 1.6e-2, 1},
		{"f32 as f16", ce("x32.npy", append([]string{"--targets", p("t.npy"), "--dtype", "f16"}, opts...)...), []string{"--out", "--grad-out", "--lse-out"}, 2e-3, 1},
		{"f64 options", ce("x64.npy", append([]string{"--targets", p("t.npy")}, opts...)...), []string{"--out", "--grad-out", "--lse-out"}, 1e-12, 1e-3},
		{"logsumexp f32", []string{"apply", "--op", "logsumexp", "--in", p("x32.npy"), "--scale", "0.5"}, []string{"--out"}, 2e-5, 0},
		{"logsumexp f64", []string{"apply", "--op", "logsumexp", "--in", p("x64.npy")}, []string{"--out"}, 1e-12, 0},
		{"logsumexp f32 axis 1", []string{"apply", "--op", "logsumexp", "--in", p("x32.npy"), "--axis", "1"}, []string{"--out"}, 2e-5, 0},
		{"logsumexp f64 axis 0", []string{"apply", "--op", "logsumexp", "--in", p("x64.npy"), "--axis", "0", "--scale", "2"}, []string{"--out"}, 1e-12, 0},
	}
	for i, c := range cases {
		files := map[string][2]string{}
		args := [2][]string{}
		for d, dev := range []string{"cpu", "cuda"} {
			args[d] = append(append([]string(nil), c.args...), "--device", dev)
			for _, f := range c.outs {
				path := p(fmt.Sprintf("c%d-%s-%s.npy", i, dev, strings.TrimPrefix(f, "--")))
				fs := files[f]
				fs[d] = path
				files[f] = fs
				args[d] = append(args[d], f, path)
			}
			if r := runInProcess(args[d]...); r.code != 0 {
				t.Fatalf("%s on %s: exit %d: %s", c.name, dev, r.code, r.stderr)
			}
		}
		for _, f := range c.outs {
			sameOutputs(t, c.name+" "+f, files[f][1], files[f][0], c.tol, c.rel)
		}
	}
	// A bad target: the GPU's error names the row, and nothing is written.
	bad := append([]int64(nil), tg...)
	bad[7] = 781
	must(t, npy.WriteFile(p("bad.npy"), &npy.Array{Shape: []int{3, 5}, DType: npy.I64, I64: bad}))
	r := runInProcess("apply", "--op", "cross_entropy", "--in", p("x32.npy"), "--targets", p("bad.npy"), "--device", "cuda",
		"--out", p("bad-loss.npy"), "--grad-out", p("bad-grad.npy"))
	if r.code != 1 || !strings.Contains(r.stderr, "row 7") {
		t.Errorf("bad target on cuda: exit %d, %q; want 1 naming row 7", r.code, r.stderr)
	}
	if m, _ := filepath.Glob(p("bad-*")); len(m) > 0 {
		t.Errorf("bad target on cuda wrote %v", m)
	}
}

// Without a GPU, --device cuda is an unavailable backend (exit 1, nothing
// written) and auto computes on the CPU.
func TestApplyLossNoCUDA(t *testing.T) {
	if _, err := cuda.Open(0); err == nil {
		t.Skip("a GPU opens here: TestApplyLossCUDA covers it")
	}
	dir := t.TempDir()
	in, tp := filepath.Join(dir, "x.npy"), filepath.Join(dir, "t.npy")
	must(t, npy.WriteFile(in, npy.NewF32([]int{2, 4}, []float32{1, 2, 3, 4, 5, 6, 7, 8})))
	must(t, npy.WriteFile(tp, &npy.Array{Shape: []int{2}, DType: npy.I32, I32: []int32{1, 3}}))
	out := filepath.Join(dir, "l.npy")
	for _, op := range [][]string{{"--op", "cross_entropy", "--targets", tp}, {"--op", "logsumexp"}} {
		r := runInProcess(append([]string{"apply", "--in", in, "--out", out, "--device", "cuda"}, op...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "cuda backend unavailable") {
			t.Errorf("%v --device cuda: exit %d, %q", op, r.code, r.stderr)
		}
		if m, _ := filepath.Glob(out); len(m) > 0 {
			t.Fatalf("%v --device cuda wrote %s", op, out)
		}
		if r := runInProcess(append([]string{"apply", "--in", in, "--out", out, "--device", "auto"}, op...)...); r.code != 0 {
			t.Errorf("%v --device auto: exit %d, %q", op, r.code, r.stderr)
		}
		must(t, os.Remove(out))
	}
}
