package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofused/softmax/npy"
)

// writeInput writes a small float32 input and returns its path.
func writeInput(t *testing.T, dir, name string, shape []int, x []float32) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := npy.WriteFile(path, npy.NewF32(shape, x)); err != nil {
		t.Fatal(err)
	}
	return path
}

// readOutput reads a result and checks that it is softmax of [1 2 3]
// along the last axis of a [1 3] input.
func checkResult(t *testing.T, what string, a *npy.Array, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want := []float32{0.09003057, 0.24472848, 0.66524094}
	got := a.AsF32()
	if len(got) != 3 {
		t.Fatalf("%s: %d values", what, len(got))
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

// dirNames lists a folder, to see that nothing (a temporary file) is left.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestApplyDTypeOverflow(t *testing.T) {
	dir := t.TempDir()
	in32 := writeInput(t, dir, "x32.npy", []int{2, 2}, []float32{1, 2, 3, 70000})
	in64 := filepath.Join(dir, "x64.npy")
	if err := npy.WriteFile(in64, npy.NewF64([]int{1, 2}, []float64{1e300, 0})); err != nil {
		t.Fatal(err)
	}
	inBig := writeInput(t, dir, "big.npy", []int{3}, []float32{0, -math.MaxFloat32, 1})
	out := filepath.Join(dir, "y.npy")
	for _, tt := range []struct {
		in, dtype string
		wants     []string
	}{
		{in32, "f16", []string{"--dtype f16", "element [1 1]", "70000", "overflows f16", "65504"}},
		{in64, "f32", []string{"element [0 0]", "1e+300", "overflows f32"}},
		{in64, "bf16", []string{"element [0 0]", "1e+300"}},
		{inBig, "bf16", []string{"element [1]", "-3.4028234663852886e+38", "overflows bf16"}},
	} {
		r := runCLI(t, "apply", "--device", "cpu", "--in", tt.in, "--out", out, "--dtype", tt.dtype)
		if r.code != 1 {
			t.Errorf("%s in %s: exit %d, want 1 (stderr %q)", filepath.Base(tt.in), tt.dtype, r.code, r.stderr)
		}
		for _, w := range tt.wants {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s in %s: %q lacks %q", filepath.Base(tt.in), tt.dtype, r.stderr, w)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused conversion wrote the output")
	}

	// NaN and ±inf are values: they pass into f16 and give PyTorch's rows.
	inf := float32(math.Inf(1))
	special := writeInput(t, dir, "special.npy", []int{3, 2}, []float32{1, inf, float32(math.NaN()), 0, float32(math.Inf(-1)), 2})
	r := runCLI(t, "apply", "--device", "cpu", "--in", special, "--out", out, "--dtype", "f16")
	if r.code != 0 {
		t.Fatalf("NaN/inf in f16: exit %d: %s", r.code, r.stderr)
	}
	y, err := npy.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := y.AsF32()
	if !isNaN(got[0]) || !isNaN(got[1]) || !isNaN(got[2]) || !isNaN(got[3]) || got[4] != 0 || got[5] != 1 {
		t.Errorf("rows with +inf, NaN and -inf: %v, want [NaN NaN NaN NaN 0 1]", got)
	}
}

func isNaN(f float32) bool { return f != f }

// softmax64 is the float64 reference of softmax (log: log-softmax) along
// the last axis of rows of n.
func softmax64(x []float64, n int, log bool) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x); r += n {
		row := x[r : r+n]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, v)
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(v - m)
		}
		for i, v := range row {
			if log {
				y[r+i] = v - m - math.Log(sum)
			} else {
				y[r+i] = math.Exp(v-m) / sum
			}
		}
	}
	return y
}

// A float64 input is computed in float64 (the issue's [[1e300, 0]] came
// back [[nan, nan]] from a float32 run), and --dtype f64 widens a float32
// input.
func TestApplyFloat64(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 5*781)
	for i := range x {
		x[i] = rng.NormFloat64() * 30
	}
	copy(x, []float64{1e300, 0, -1e300, 1e-310})
	in := filepath.Join(dir, "x.npy")
	if err := npy.WriteFile(in, npy.NewF64([]int{5, 781}, x)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "y.npy")
	for _, log := range []bool{false, true} {
		op := map[bool]string{false: "softmax", true: "log_softmax"}[log]
		if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out, "--op", op); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", op, r.code, r.stderr)
		}
		y, err := npy.ReadFile(out)
		if err != nil || y.DType != npy.F64 {
			t.Fatalf("%s: %v, dtype %v", op, err, y.DType)
		}
		want := softmax64(x, 781, log)
		if y.F64[0] != want[0] || y.F64[1] != want[1] || y.F64[2] != want[2] {
			t.Errorf("%s of [1e300 0 -1e300 ...]: %v, want %v", op, y.F64[:3], want[:3])
		}
		for i := range want {
			if d := math.Abs(y.F64[i] - want[i]); d > 1e-12*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("%s element %d: %v, want %v (float64 precision)", op, i, y.F64[i], want[i])
			}
		}
	}

	// A scale beyond float32 is fine in float64 arithmetic.
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out, "--scale", "1e39"); r.code != 0 {
		t.Errorf("float64 with --scale 1e39: exit %d: %s", r.code, r.stderr)
	}

	// float32 in, computed in float64, written as float32.
	x32 := []float32{1, 2, 3, -1e30, 1e30, 0}
	in32 := writeInput(t, dir, "x32.npy", []int{2, 3}, x32)
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in32, "--out", out, "--dtype", "f64"); r.code != 0 {
		t.Fatalf("--dtype f64: exit %d: %s", r.code, r.stderr)
	}
	y, err := npy.ReadFile(out)
	if err != nil || y.DType != npy.F32 {
		t.Fatalf("--dtype f64 of float32: %v, %v", err, y)
	}
	x64 := make([]float64, len(x32))
	for i, v := range x32 {
		x64[i] = float64(v)
	}
	for i, w := range softmax64(x64, 3, false) {
		if math.Abs(float64(y.F32[i])-w) > 1e-7*math.Abs(w) {
			t.Errorf("--dtype f64 element %d: %v, want %v", i, y.F32[i], float32(w))
		}
	}
}

func TestApplySameFile(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	before, _ := os.ReadFile(in)
	outs := map[string]string{"the path": in, "another spelling": filepath.Join(dir, ".", "x.npy")}
	if err := os.Link(in, filepath.Join(dir, "hard.npy")); err == nil {
		outs["a hard link"] = filepath.Join(dir, "hard.npy")
	}
	if err := os.Symlink("x.npy", filepath.Join(dir, "soft.npy")); err == nil {
		outs["a symbolic link"] = filepath.Join(dir, "soft.npy")
	}
	for what, out := range outs {
		r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, "same file as --in") {
			t.Errorf("--out %s: exit %d, stderr %q; want 2 and 'same file'", what, r.code, r.stderr)
		}
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
		t.Error("the input changed")
	}
}

// The output's folder is checked before the input is even opened, and the
// error names the user's path, not a hidden temporary file.
func TestApplyOutputFolderFirst(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "missing", "y.npy")
	r := runCLI(t, "apply", "--device", "cpu", "--in", filepath.Join(dir, "no-input.npy"), "--out", out)
	if r.code != 1 || !strings.Contains(r.stderr, "--out "+out) || strings.Contains(r.stderr, "no-input") || strings.Contains(r.stderr, ".tmp") {
		t.Errorf("missing output folder: exit %d, stderr %q; want 1 and an error about %s alone", r.code, r.stderr, out)
	}
}

func TestApplySymlinkOut(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	target := writeInput(t, dir, "target.npy", []int{1}, []float32{0})
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink("target.npy", link); err != nil {
		t.Skip("no symbolic links here: " + err.Error())
	}
	r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", link)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	a, err := npy.ReadFile(target)
	checkResult(t, "the link's target", a, err)

	// A dangling link: its target is created.
	dangling := filepath.Join(dir, "dangling.npy")
	if err := os.Symlink("new.npy", dangling); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", dangling); r.code != 0 {
		t.Fatalf("dangling link: exit %d: %s", r.code, r.stderr)
	}
	a, err = npy.ReadFile(filepath.Join(dir, "new.npy"))
	checkResult(t, "a dangling link's new target", a, err)
	if names := dirNames(t, dir); !slices.Equal(names, []string{"dangling.npy", "link.npy", "new.npy", "target.npy", "x.npy"}) {
		t.Errorf("folder holds %v", names)
	}
}

// A file with another hard link is rewritten in place: both names see it.
func TestApplyHardLinkOut(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	out := writeInput(t, dir, "y.npy", []int{1}, []float32{0})
	other := filepath.Join(dir, "other.npy")
	if err := os.Link(out, other); err != nil {
		t.Skip("no hard links here: " + err.Error())
	}
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	a, err := npy.ReadFile(other)
	checkResult(t, "the other hard link", a, err)
	fo, _ := os.Stat(out)
	fl, _ := os.Stat(other)
	if !os.SameFile(fo, fl) {
		t.Error("the hard link was broken")
	}
}

// --in - reads standard input (a pipe), --out - writes standard output.
func TestApplyStdinStdout(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLIWith(t, bytes.NewReader(data), nil, "apply", "--device", "cpu", "--in", "-", "--out", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	a, err := npy.Read(strings.NewReader(r.stdout))
	checkResult(t, "standard output", a, err)

	// A pipe whose header claims 10^12 elements: refused at the header,
	// naming the shape and the bytes, not read until memory runs out.
	huge := []byte("\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }")
	huge = append(huge, bytes.Repeat([]byte(" "), 128-len(huge)-1)...)
	huge = append(huge, '\n', 0, 0, 0, 0)
	r = runCLIWith(t, bytes.NewReader(huge), []string{"SOFTMAX_MEMORY_LIMIT=100000000"}, "apply", "--device", "cpu", "--in", "-", "--out", filepath.Join(dir, "y.npy"))
	if r.code != 2 || !strings.Contains(r.stderr, "[1000000 1000000]") || !strings.Contains(r.stderr, "4000000000000 bytes") || !strings.Contains(r.stderr, "standard input") {
		t.Errorf("huge claim on stdin: exit %d, stderr %q", r.code, r.stderr)
	}
	// The input (12 bytes) fits, but not once apply's own buffers for
	// another compute dtype are counted (a float64 copy, staging, output).
	r = runCLIWith(t, nil, []string{"SOFTMAX_MEMORY_LIMIT=20"}, "apply", "--device", "cpu", "--in", in, "--out", filepath.Join(dir, "y.npy"), "--dtype", "f64")
	if r.code != 2 || !strings.Contains(r.stderr, "[1 3]") || !strings.Contains(r.stderr, "SOFTMAX_MEMORY_LIMIT") {
		t.Errorf("apply's buffers over the limit: exit %d, stderr %q", r.code, r.stderr)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"x.npy"}) {
		t.Errorf("refused runs left %v", names)
	}
}
