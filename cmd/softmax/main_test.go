package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/npy"
)

// binary is the softmax command built once by TestMain; "" where there is
// no go command to build it (a test binary copied to another machine), and
// then the tests that run it skip.
var binary string

func TestMain(m *testing.M) {
	gobin := "go"
	if _, err := exec.LookPath(gobin); err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := exec.LookPath(gobin); err != nil {
			os.Exit(m.Run())
		}
	}
	dir, err := os.MkdirTemp("", "softmax-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "softmax")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	build := exec.Command(gobin, "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the softmax command:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
}

// usageCase is a command line that must exit 2 with msg in its error.
type usageCase struct {
	args []string
	msg  string
}

// expectUsageErrors runs each case and wants exit status 2 and an error
// "softmax: COMMAND: ..." containing the case's message.
func expectUsageErrors(t *testing.T, command string, cases []usageCase) {
	t.Helper()
	for _, tt := range cases {
		r := runCLI(t, tt.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "softmax: "+command+": ") || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("softmax %v: exit %d, stderr %q; want 2 and a message containing %q", tt.args, r.code, r.stderr, tt.msg)
		}
	}
}

// expectHelp wants `softmax help COMMAND` to exit 0 and mention each of wants.
func expectHelp(t *testing.T, command string, wants ...string) {
	t.Helper()
	r := runCLI(t, "help", command)
	for _, w := range wants {
		if r.code != 0 || !strings.Contains(r.stdout, w) {
			t.Errorf("help %s: exit %d, output lacks %q:\n%s", command, r.code, w, r.stdout)
		}
	}
}

func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return runCLIWith(t, nil, nil, args...)
}

// runCLIWith runs the binary with stdin (nil: none) and extra environment
// variables ("NAME=value").
func runCLIWith(t *testing.T, stdin io.Reader, env []string, args ...string) result {
	t.Helper()
	if binary == "" {
		t.Skip("no go command to build the softmax command with")
	}
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	cmd.Env = append(os.Environ(), env...)
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("running %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	r := result{code, out.String(), errb.String()}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Errorf("softmax %v printed a panic trace:\n%s", args, r.stderr)
	}
	return r
}

func randF32(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
	}
	return x
}

// expect computes the reference with the softmax package: x rounded to the
// compute dtype, the op, the result widened to float32.
func expect(t *testing.T, x []float32, shape []int, dt softmax.DType, op softmax.Op, opt softmax.Options) []float32 {
	t.Helper()
	src, err := softmax.NewTensor(dt, shape...)
	if err != nil {
		t.Fatal(err)
	}
	switch dt {
	case softmax.Float32:
		copy(src.F32, x)
	case softmax.Float16:
		vec.F32ToF16(src.U16, x)
	case softmax.BFloat16:
		vec.F32ToBF16(src.U16, x)
	}
	dst, _ := softmax.NewTensor(dt, shape...)
	if err := softmax.Apply(op, dst, src, opt); err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(x))
	switch dt {
	case softmax.Float32:
		copy(out, dst.F32)
	case softmax.Float16:
		vec.F16ToF32(out, dst.U16)
	case softmax.BFloat16:
		vec.BF16ToF32(out, dst.U16)
	}
	return out
}

func closeTo(t *testing.T, name string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) || math.IsNaN(g) != math.IsNaN(w) {
			t.Fatalf("%s: element %d = %v, want %v", name, i, g, w)
		}
	}
}

func TestApplyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	shape := []int{6, 37}
	x := randF32(rng, 6*37)
	in32 := filepath.Join(dir, "x32.npy")
	if err := npy.WriteFile(in32, npy.NewF32(shape, x)); err != nil {
		t.Fatal(err)
	}
	x64 := make([]float64, len(x))
	for i, v := range x {
		x64[i] = float64(v)
	}
	in64 := filepath.Join(dir, "x64.npy")
	npy.WriteFile(in64, npy.NewF64(shape, x64))
	x16 := make([]uint16, len(x))
	vec.F32ToF16(x16, x)
	in16 := filepath.Join(dir, "x16.npy")
	npy.WriteFile(in16, npy.NewF16(shape, x16))
	x16f := make([]float32, len(x))
	vec.F16ToF32(x16f, x16)

	tests := []struct {
		name  string
		in    string
		args  []string
		inDT  npy.DType
		x     []float32
		dt    softmax.DType
		op    softmax.Op
		opt   softmax.Options
		tol   float64
		exact bool
	}{
		{"f32", in32, nil, npy.F32, x, softmax.Float32, softmax.OpSoftmax, softmax.Options{Axis: -1}, 1e-6, false},
		{"f32 axis 0", in32, []string{"--axis", "0"}, npy.F32, x, softmax.Float32, softmax.OpSoftmax, softmax.Options{Axis: 0}, 1e-6, false},
		{"f32 log scale 2", in32, []string{"--op", "log_softmax", "--scale", "2"}, npy.F32, x, softmax.Float32, softmax.OpLogSoftmax, softmax.Options{Axis: -1, Scale: 2}, 1e-6, false},
		{"f64 in f32", in64, []string{"--dtype", "f32"}, npy.F64, x, softmax.Float32, softmax.OpSoftmax, softmax.Options{Axis: -1}, 1e-6, false},
		{"f64 log axis 0 in f32", in64, []string{"--axis", "-2", "--op", "log_softmax", "--dtype", "f32"}, npy.F64, x, softmax.Float32, softmax.OpLogSoftmax, softmax.Options{Axis: -2}, 1e-6, false},
		{"f16", in16, nil, npy.F16, x16f, softmax.Float16, softmax.OpSoftmax, softmax.Options{Axis: -1}, 0, true},
		{"f16 axis 0 scale 2", in16, []string{"--axis", "0", "--scale", "2"}, npy.F16, x16f, softmax.Float16, softmax.OpSoftmax, softmax.Options{Axis: 0, Scale: 2}, 0, true},
		{"f16 in f32", in16, []string{"--dtype", "f32"}, npy.F16, x16f, softmax.Float32, softmax.OpSoftmax, softmax.Options{Axis: -1}, 1e-3, false},
		{"f32 in bf16", in32, []string{"--dtype", "bf16", "--op", "log_softmax"}, npy.F32, x, softmax.BFloat16, softmax.OpLogSoftmax, softmax.Options{Axis: -1}, 1e-6, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("y%d.npy", i))
			args := append([]string{"apply", "--device", "cpu", "--in", tt.in, "--out", out}, tt.args...)
			r := runCLI(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			y, err := npy.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if y.DType != tt.inDT || fmt.Sprint(y.Shape) != fmt.Sprint(shape) {
				t.Fatalf("output %v %v, want the input's %v %v", y.DType, y.Shape, tt.inDT, shape)
			}
			want := expect(t, tt.x, shape, tt.dt, tt.op, tt.opt)
			if tt.exact {
				// f16 in, f16 compute, f16 out: the same bits as the package.
				w16 := make([]uint16, len(want))
				vec.F32ToF16(w16, want)
				for j := range w16 {
					if y.F16[j] != w16[j] {
						t.Fatalf("element %d: bits %#04x, want %#04x", j, y.F16[j], w16[j])
					}
				}
				return
			}
			if tt.inDT == npy.F16 {
				w16 := make([]uint16, len(want))
				vec.F32ToF16(w16, want)
				vec.F16ToF32(want, w16)
			}
			closeTo(t, tt.name, y.AsF32(), want, tt.tol)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	npy.WriteFile(in, npy.NewF32([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	out := filepath.Join(dir, "y.npy")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"apply", "--bogus"}, "flag provided but not defined"},
		{[]string{"apply", "--in", in}, "--out is required"},
		{[]string{"apply", "--out", out}, "--in is required"},
		{[]string{"apply", "--in", in, "--out", out, "--dtype", "f8"}, "unknown dtype"},
		{[]string{"apply", "--in", in, "--out", out, "--op", "softer"}, "unknown op"},
		{[]string{"apply", "--in", in, "--out", out, "--op", "softmax_backward"}, "backward"},
		{[]string{"apply", "--in", in, "--out", out, "--scale", "0"}, "--scale"},
		{[]string{"apply", "--in", in, "--out", out, "--scale", "NaN"}, "--scale NaN"},
		{[]string{"apply", "--in", in, "--out", out, "--scale", "1e39"}, "overflows float32"},
		{[]string{"apply", "--in", in, "--out", out, "--axis", "2"}, "axis 2 out of range"},
		{[]string{"apply", "--in", in, "--out", out, "--device", "gpu"}, "unknown device"},
		{[]string{"apply", "--in", in, "--out", out, "extra"}, "unexpected argument"},
		{[]string{"verify", "--seed", "x"}, "invalid value"},
		{[]string{"bench", "--shapes", "garbage"}, "bad shape spec"},
		{[]string{"bench", "--shapes", "64x1000:f32", "--reps", "0"}, "--reps"},
		{[]string{"bench", "--shapes", "64x1000:f32", "--suite", "cpu"}, "not both"},
		{[]string{"bench", "--suite", "nope"}, "unknown suite"},
		{[]string{"bench", "--shapes", "64x1000:f32", "--algo", "nope"}, "unknown algo"},
		{[]string{"bench", "--op", "nope"}, "unknown op"},
		{[]string{"bench", "--shapes", "64x1000:f32", "--offset", "-1"}, "--offset -1"},
		{[]string{"bench", "--shapes", "64x1000:f32", "--cpu-stream-workers", "-2"}, "--cpu-stream-workers -2"},
		{[]string{"info", "--kernel"}, "flag provided but not defined"},
		{[]string{"help", "nope"}, "unknown command"},
	}
	for _, tt := range tests {
		r := runCLI(t, tt.args...)
		if r.code != 2 {
			t.Errorf("softmax %v: exit %d, want 2 (stderr %q)", tt.args, r.code, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "softmax: ") || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("softmax %v: stderr %q, want a \"softmax: \" message containing %q", tt.args, r.stderr, tt.msg)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a usage error wrote the output file")
	}
}

func TestUsageText(t *testing.T) {
	r := runCLI(t)
	if r.code != 2 || !strings.Contains(r.stderr, "Commands:") {
		t.Errorf("no args: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"help"}, {"--help"}} {
		r = runCLI(t, args...)
		if r.code != 0 {
			t.Errorf("%v: exit %d", args, r.code)
		}
		for _, c := range []string{"apply", "verify", "bench", "info", "help"} {
			if !strings.Contains(r.stdout, "  "+c+" ") {
				t.Errorf("%v: usage lacks %q:\n%s", args, c, r.stdout)
			}
		}
	}
	for _, args := range [][]string{{"help", "apply"}, {"apply", "--help"}, {"bench", "-h"}} {
		r = runCLI(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "--device") {
			t.Errorf("%v: exit %d, stdout %q", args, r.code, r.stdout)
		}
	}
}

func TestApplyFailures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "y.npy")
	r := runCLI(t, "apply", "--in", filepath.Join(dir, "missing.npy"), "--out", out)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "softmax: apply: ") || !strings.Contains(r.stderr, "missing.npy") {
		t.Errorf("missing input: exit %d, stderr %q", r.code, r.stderr)
	}
	notNpy := filepath.Join(dir, "bad.npy")
	os.WriteFile(notNpy, []byte("not a numpy file"), 0o644)
	r = runCLI(t, "apply", "--in", notNpy, "--out", out)
	if r.code != 1 {
		t.Errorf("garbage input: exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("failed runs left files: %v", entries)
	}
}

func TestCUDAUnavailable(t *testing.T) {
	if slices := bench.Kinds(); len(slices) > 1 {
		t.Skip("a GPU backend is registered in this build")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "x.npy")
	npy.WriteFile(in, npy.NewF32([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	out := filepath.Join(dir, "y.npy")
	for _, args := range [][]string{
		{"apply", "--device", "cuda", "--in", in, "--out", out},
		{"verify", "--quick", "--device", "cuda:0"},
		{"bench", "--device", "cuda", "--shapes", "64x1000:f32"},
	} {
		r := runCLI(t, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "cuda backend unavailable") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("apply on an unavailable device wrote the output")
	}
}

func TestVerifyQuick(t *testing.T) {
	r := runCLI(t, "verify", "--quick", "--device", "cpu", "--seed", "7")
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, lastLines(r.stdout, 20))
	}
	m := regexp.MustCompile(`(?m)^(\d+) passed, 0 failed$`).FindStringSubmatch(r.stdout)
	if m == nil || m[1] == "0" {
		t.Fatalf("no summary line in:\n%s", lastLines(r.stdout, 5))
	}
	for _, s := range []string{"max abs err", "rel err", "tol", "verdict", "softmax f16 [3 1000] axis -1 random"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("verify output lacks %q", s)
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func TestInfo(t *testing.T) {
	r := runCLI(t, "info", "--kernels")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"GOMAXPROCS", "kernels: " + vec.Impl(), "cpu: available", "cuda: ", "model: ", "features: "} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("info lacks %q:\n%s", s, r.stdout)
		}
	}
	if len(bench.Kinds()) == 1 && !strings.Contains(r.stdout, "no GPU backend") {
		t.Errorf("info --kernels without a GPU backend should say so:\n%s", r.stdout)
	}
}

// readRecords reads the JSON records a bench run wrote to path.
func readRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	return recs
}

// TestBenchStreamWorkers: --cpu-stream-workers times the CPU with the
// store policy it names and says so in the header.
func TestBenchStreamWorkers(t *testing.T) {
	r := runCLI(t, "bench", "--device", "cpu", "--shapes", "64x1000:f32:-1:log_softmax_backward", "--reps", "1",
		"--warmup", "0", "--quiet", "--cpu-stream-workers", "0")
	if r.code != 0 || !strings.Contains(r.stdout, "non-temporal stores in calls of ≤ 0 workers") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestBench(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	plotPath := filepath.Join(dir, "r.svg")
	peersPath := filepath.Join(dir, "peers.json")
	if err := os.WriteFile(peersPath, []byte(`[{"shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "torch", "us": 1e6, "copy_us": 1, "device": "cpu"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "bench", "--device", "cpu", "--shapes", "64x1000:f32,8x40x30:bf16:1", "--reps", "3", "--warmup", "1",
		"--algo", "all", "--json", jsonPath, "--plot", plotPath, "--peers", peersPath)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"device: cpu", "GOMAXPROCS", "shape", "µs", "GB/s", "copy ratio", "vs torch", "vs best peer", "64x1000", "8x40x30", "*"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("bench output lacks %q:\n%s", s, r.stdout)
		}
	}
	recs := readRecords(t, jsonPath)
	if len(recs) < 2 {
		t.Fatalf("%d records", len(recs))
	}
	if strings.Contains(r.stdout, "L2 flushed") {
		t.Errorf("a CPU bench says it flushes the L2:\n%s", r.stdout)
	}
	for _, rec := range recs {
		if _, ok := rec["l2_flushed"]; ok {
			t.Errorf("CPU record has l2_flushed: %v", rec)
		}
		for _, k := range []string{"shape", "dtype", "axis", "op", "algo", "chosen", "us", "gbps", "copy_us", "copy_ratio", "device", "us_p10", "us_p90"} {
			if _, ok := rec[k]; !ok {
				t.Errorf("record lacks %q: %v", k, rec)
			}
		}
		if us, _ := rec["us"].(float64); !(us > 0) {
			t.Errorf("record has no time: %v", rec)
		}
		if rec["dtype"] == "f32" {
			if vs, _ := rec["vs_torch"].(float64); !(vs > 0) {
				t.Errorf("f32 record lacks vs_torch: %v", rec)
			}
		}
	}
	if fi, err := os.Stat(plotPath); err != nil || fi.Size() == 0 {
		t.Errorf("plot: %v", err)
	}

	// --offset: the records and the table say where the tensors start, and
	// the peers' aligned timings are not merged into them; their timings at
	// the same offset (peers.py --offset 3) are.
	if err := os.WriteFile(peersPath, []byte(`[{"shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "torch", "us": 1e6, "copy_us": 1, "device": "cpu"},
{"shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "triton", "us": 2e6, "copy_us": 1, "device": "cpu", "offset": 1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	benchAt := func(offset string) (result, []map[string]any) {
		t.Helper()
		r := runCLI(t, "bench", "--device", "cpu", "--shapes", "64x1000:f32", "--reps", "3", "--warmup", "1",
			"--offset", offset, "--json", jsonPath, "--peers", peersPath)
		if r.code != 0 {
			t.Fatalf("--offset %s: exit %d: %s", offset, r.code, r.stderr)
		}
		recs := readRecords(t, jsonPath)
		if len(recs) == 0 {
			t.Fatalf("--offset %s: no records", offset)
		}
		return r, recs
	}
	r, recs = benchAt("3")
	if !strings.Contains(r.stdout, "64x1000+3") || !strings.Contains(r.stdout, "shape+N") {
		t.Errorf("--offset 3: the table does not show the offset:\n%s", r.stdout)
	}
	for _, rec := range recs {
		if rec["offset"] != 3.0 {
			t.Errorf("--offset 3: record has offset %v", rec["offset"])
		}
		if _, ok := rec["vs_torch"]; ok {
			t.Errorf("--offset 3: an aligned peer timing was merged: %v", rec)
		}
		if _, ok := rec["vs_best_peer"]; ok {
			t.Errorf("--offset 3: a peer timing at offset 1 was merged: %v", rec)
		}
	}
	_, recs = benchAt("1")
	for _, rec := range recs {
		if rec["best_peer"] != "triton" || rec["vs_torch"] != nil {
			t.Errorf("--offset 1: record should carry the offset-1 triton timing alone: %v", rec)
		}
	}

	// The minimal form of the brief.
	r = runCLI(t, "bench", "--shapes", "64x1000:f32", "--reps", "3", "--device", "cpu", "--op", "log_softmax_backward")
	if r.code != 0 || !strings.Contains(r.stdout, "copy ratio") || !strings.Contains(r.stdout, "log_softmax_backward") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestListSuite(t *testing.T) {
	r := runCLI(t, "bench", "--list-suite", "cpu", "--op", "log_softmax")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	cases, err := bench.ParseSpecs(strings.TrimSpace(r.stdout))
	if err != nil || len(cases) == 0 {
		t.Fatalf("--list-suite output %q does not parse: %v", r.stdout, err)
	}
	for _, c := range cases {
		if c.Op != softmax.OpLogSoftmax {
			t.Errorf("case %v: --op not applied", c)
		}
	}
}
