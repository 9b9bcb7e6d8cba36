package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/npy"
)

// apply --op cross_entropy writes what the library computes: the loss,
// the gradient and the per-row lse, in the logits' dtype.
func TestApplyCrossEntropy(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(73, 1))
	shape := []int{2, 3, 50}
	x := randF32(rng, 300)
	x[7] = float32(math.Inf(-1))
	in := filepath.Join(dir, "x.npy")
	tpath := filepath.Join(dir, "t.npy")
	wpath := filepath.Join(dir, "w.npy")
	tg := []int64{4, -1, 49, 0, 10, 3}
	w := make([]float32, 50)
	for i := range w {
		w[i] = 0.5 + float32(i%3)
	}
	must(t, npy.WriteFile(in, npy.NewF32(shape, x)))
	must(t, npy.WriteFile(tpath, &npy.Array{Shape: []int{2, 3}, DType: npy.I64, I64: tg}))
	must(t, npy.WriteFile(wpath, npy.NewF32([]int{50}, w)))
	out, grad, lse := filepath.Join(dir, "loss.npy"), filepath.Join(dir, "g.npy"), filepath.Join(dir, "lse.npy")
	r := runCLI(t, "apply", "--op", "cross_entropy", "--in", in, "--targets", tpath, "--weights", wpath,
		"--ignore-index", "-1", "--label-smoothing", "0.1", "--z-loss", "1e-3", "--softcap", "20", "--scale", "0.9",
		"--out", out, "--grad-out", grad, "--lse-out", lse)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	opt := softmax.CrossEntropyOptions{IgnoreIndex: softmax.Ignore(-1), LabelSmoothing: 0.1, Weights: w, ZLoss: 1e-3, Softcap: 20, Scale: 0.9}
	logits := softmax.Tensor{Shape: shape, DType: softmax.Float32, F32: x}
	g, _ := softmax.NewTensor(softmax.Float32, shape...)
	wantLoss, wantLSE := []float64{0}, make([]float64, 6)
	must(t, softmax.CrossEntropy(logits, softmax.Targets{I64: tg}, opt, softmax.CrossEntropyOutput{Loss: wantLoss, LSE: wantLSE, Grad: &g}))
	check := func(path string, shape []int, want []float32) {
		t.Helper()
		a, err := npy.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if a.DType != npy.F32 || len(a.Shape) != len(shape) {
			t.Fatalf("%s: %v of shape %v, want f32 of shape %v", path, a.DType, a.Shape, shape)
		}
		closeTo(t, path, a.F32, want, 0)
	}
	check(out, []int{}, []float32{float32(wantLoss[0])})
	check(grad, shape, g.F32)
	lse32 := make([]float32, 6)
	for i, v := range wantLSE {
		lse32[i] = float32(v)
	}
	check(lse, []int{2, 3}, lse32)

	// Reduction none with int32 targets: one loss per row, 0 where ignored.
	t32 := filepath.Join(dir, "t32.npy")
	must(t, npy.WriteFile(t32, &npy.Array{Shape: []int{6}, DType: npy.I32, I32: []int32{4, -100, 49, 0, 10, 3}}))
	if r := runCLI(t, "apply", "--op", "cross_entropy", "--in", in, "--targets", t32, "--reduction", "none", "--out", out); r.code != 0 {
		t.Fatalf("none: exit %d: %s", r.code, r.stderr)
	}
	if a, err := npy.ReadFile(out); err != nil || len(a.F32) != 6 || a.F32[1] != 0 || !(a.F32[0] > 0) {
		t.Errorf("none: %+v, %v", a, err)
	}
}

func TestApplyCrossEntropyErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	must(t, npy.WriteFile(in, npy.NewF32([]int{2, 4}, make([]float32, 8))))
	tpath := filepath.Join(dir, "t.npy")
	must(t, npy.WriteFile(tpath, &npy.Array{Shape: []int{2}, DType: npy.I32, I32: []int32{1, 4}}))
	good := filepath.Join(dir, "good.npy")
	must(t, npy.WriteFile(good, &npy.Array{Shape: []int{2}, DType: npy.I32, I32: []int32{1, 3}}))
	ftg := filepath.Join(dir, "f.npy")
	must(t, npy.WriteFile(ftg, npy.NewF32([]int{2}, []float32{1, 3})))
	out := filepath.Join(dir, "loss.npy")
	cases := []struct {
		code int
		want string
		args []string
	}{
		{1, "row 1: target 4", []string{"--targets", tpath, "--out", out}},
		{2, "int32 or int64", []string{"--targets", ftg, "--out", out}},
		{2, "needs --targets", []string{"--out", out}},
		{2, "same file", []string{"--targets", good, "--out", out, "--grad-out", out}},
		{2, "input would be overwritten", []string{"--targets", good, "--out", good}},
		{2, "--reduction", []string{"--targets", good, "--out", out, "--reduction", "avg"}},
		{1, "label smoothing", []string{"--targets", good, "--out", out, "--label-smoothing", "2"}},
		{2, "class axis", []string{"--targets", good, "--out", out, "--axis", "0"}},
	}
	for _, c := range cases {
		r := runCLI(t, append([]string{"apply", "--op", "cross_entropy", "--in", in}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q", c.args, r.code, r.stderr, c.code, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: an output was written despite the error", c.args)
		}
	}
	if r := runCLI(t, "apply", "--in", in, "--out", out, "--targets", good); r.code != 2 || !strings.Contains(r.stderr, "only --op cross_entropy") {
		t.Errorf("--targets with softmax: exit %d, %q", r.code, r.stderr)
	}
}

func TestApplyLogSumExp(t *testing.T) {
	dir := t.TempDir()
	x := []float64{0, 1, 2, 3, 4, 5}
	in, out := filepath.Join(dir, "x.npy"), filepath.Join(dir, "l.npy")
	must(t, npy.WriteFile(in, npy.NewF64([]int{2, 3}, x)))
	if r := runCLI(t, "apply", "--op", "logsumexp", "--in", in, "--out", out, "--axis", "0"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	a, err := npy.ReadFile(out)
	if err != nil || a.DType != npy.F64 || len(a.F64) != 3 {
		t.Fatalf("%+v, %v", a, err)
	}
	for i := range 3 {
		want := math.Log(math.Exp(x[i]) + math.Exp(x[3+i]))
		if math.Abs(a.F64[i]-want) > 1e-14 {
			t.Errorf("lse[%d] = %v, want %v", i, a.F64[i], want)
		}
	}
	if r := runCLI(t, "apply", "--op", "logsumexp", "--in", in, "--out", out, "--z-loss", "1"); r.code != 2 {
		t.Errorf("--z-loss with logsumexp: exit %d", r.code)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// apply --op cross_entropy writes its outputs all or nothing: a later
// output that cannot be written leaves the earlier ones as they were.
func TestApplyCrossEntropyAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	tpath := filepath.Join(dir, "t.npy")
	must(t, npy.WriteFile(in, npy.NewF32([]int{2, 4}, []float32{1, 2, 3, 4, 5, 6, 7, 8})))
	must(t, npy.WriteFile(tpath, &npy.Array{Shape: []int{2}, DType: npy.I64, I64: []int64{1, 3}}))
	out, grad := filepath.Join(dir, "loss.npy"), filepath.Join(dir, "g.npy")
	must(t, os.WriteFile(grad, []byte("old grad"), 0o644))
	ce := []string{"apply", "--op", "cross_entropy", "--in", in, "--targets", tpath, "--out", out, "--grad-out", grad}
	files := func() string {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	keep := func(what string) {
		t.Helper()
		if got := files(); got != "g.npy t.npy x.npy" {
			t.Errorf("%s: the folder holds %s, want g.npy t.npy x.npy (no loss.npy, no temporary file)", what, got)
		}
		if b, _ := os.ReadFile(grad); string(b) != "old grad" {
			t.Errorf("%s: --grad-out was replaced by %q", what, b)
		}
	}

	// Checked before anything is written: a missing folder, a folder.
	for _, lse := range []string{filepath.Join(dir, "missing", "lse.npy"), dir} {
		r := runCLI(t, append(ce, "--lse-out", lse)...)
		if r.code == 0 || !strings.Contains(r.stderr, "--lse-out "+lse) {
			t.Errorf("--lse-out %s: exit %d, stderr %q; want an error naming it", lse, r.code, r.stderr)
		}
		keep("--lse-out " + lse)
	}

	// Failing while written: /dev/full takes the open but not the data.
	if _, err := os.Stat("/dev/full"); err == nil {
		r := runCLI(t, append(ce, "--lse-out", "/dev/full")...)
		if r.code == 0 || !strings.Contains(r.stderr, "--lse-out /dev/full") {
			t.Errorf("--lse-out /dev/full: exit %d, stderr %q; want an error naming it", r.code, r.stderr)
		}
		keep("--lse-out /dev/full")
	}

	// And all of them when nothing fails.
	if r := runCLI(t, ce...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if a, err := npy.ReadFile(grad); err != nil || len(a.F32) != 8 {
		t.Errorf("--grad-out: %+v, %v", a, err)
	}
	if a, err := npy.ReadFile(out); err != nil || len(a.F32) != 1 {
		t.Errorf("--out: %+v, %v", a, err)
	}
}
