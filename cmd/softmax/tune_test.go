package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofused/softmax/cuda"
)

func TestTuneUsageErrors(t *testing.T) {
	expectUsageErrors(t, "tune", []usageCase{
		{[]string{"tune"}, "--shapes or --suite is required"},
		{[]string{"tune", "--shapes", "garbage"}, "bad shape spec"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--suite", "quick"}, "not both"},
		{[]string{"tune", "--suite", "nope"}, "unknown suite"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--op", "nope"}, "unknown op"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--reps", "5"}, "--reps 5: want at least 20"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--warmup", "0"}, "--warmup 0"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--algo", "nope"}, "--algo"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--algo", "auto"}, "--algo"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--algo", "block_reg/t256_p1"}, "--algo"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--device", "cpu"}, "tuning needs a GPU"},
		{[]string{"tune", "--shapes", "64x1000:f32", "--device", "gpu"}, "unknown device"},
		{[]string{"tune", "extra"}, "unexpected argument"},
	})
	r := runCLI(t, "help")
	if !strings.Contains(r.stdout, "  tune ") {
		t.Errorf("usage lacks tune:\n%s", r.stdout)
	}
	expectHelp(t, "tune", "--shapes", "tuned.tsv")
}

func TestTuneShow(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOFTMAX_CACHE_DIR", dir)
	r := runCLI(t, "tune", "--show")
	if r.code != 0 || !strings.Contains(r.stdout, filepath.Join(dir, "tuned.tsv")+" (0 entries)") || r.stderr != "" {
		t.Errorf("empty cache: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	const file = `{"version": 1, "entries": {
 "NVIDIA H200 sm_90|f16|softmax|rows<=4096 cols<=65536 vec16": {"device": "NVIDIA H200", "arch": "sm_90", "dtype": "f16",
  "op": "softmax", "class": "rows<=4096 cols<=65536 vec16", "shape": [4096, 50000], "axis": -1, "strategy": "split_row",
  "us": 100, "default": "online_2pass", "default_us": 150, "candidates": [{"strategy": "split_row", "us": 100}], "reps": 20,
  "tuned_at": "2026-11-23T10:00:00Z"}}}`
	if err := os.WriteFile(filepath.Join(dir, "tuned.json"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "tune", "--show")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, s := range []string{"(1 entries)", "NVIDIA H200 sm_90", "rows<=4096 cols<=65536 vec16", "split_row", "online_2pass", "150.00", "1.50x", "4096x50000 axis -1"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("--show output lacks %q:\n%s", s, r.stdout)
		}
	}
	// The legacy tuned.json above is read where no tuned.tsv exists; a
	// tuned.tsv (table rows) takes its place.
	const tsv = "id\tlayout\tpath\tdir\tesize\trows\tcols\tinner\tbytes\twhen\tcandidates\tevidence\n" +
		"NVIDIA H200 sm_90|f32|softmax|rows<=64 cols<=1024 vec16\trows\tvec\tsoftmax\tf32\t33..64\t513..1024\t*\t*\t*\twarp_row\t" +
		"us=5 default=block_reg default_us=6 shape=64x1000 axis=-1 reps=20 at=2026-11-23T10:00:00Z timed=warp_row:5,block_reg:6\n"
	os.WriteFile(filepath.Join(dir, "tuned.tsv"), []byte(tsv), 0o644)
	r = runCLI(t, "tune", "--show")
	for _, s := range []string{"(1 entries)", "rows<=64 cols<=1024 vec16", "warp_row", "1.20x", "64x1000 axis -1"} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("--show of tuned.tsv lacks %q (exit %d):\n%s%s", s, r.code, r.stdout, r.stderr)
		}
	}
	os.WriteFile(filepath.Join(dir, "tuned.tsv"), []byte("{broken"), 0o644)
	r = runCLI(t, "tune", "--show")
	if r.code != 1 || !strings.Contains(r.stderr, "corrupt") {
		t.Errorf("corrupt cache: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --tuned on the CPU is a note, not an error; the run is unchanged.
func TestTunedOnCPU(t *testing.T) {
	t.Setenv("SOFTMAX_CACHE_DIR", t.TempDir())
	r := runCLI(t, "bench", "--device", "cpu", "--shapes", "64x1000:f32", "--reps", "3", "--tuned")
	if r.code != 0 || !strings.Contains(r.stderr, "--tuned has no effect on the cpu backend") || !strings.Contains(r.stdout, "64x1000") {
		t.Errorf("bench --tuned on cpu: exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "(tuned)") {
		t.Errorf("bench on cpu claims tuned:\n%s", r.stdout)
	}
}

func TestTuneWithoutGPU(t *testing.T) {
	if n, err := cuda.DeviceCount(); err == nil && n > 0 {
		t.Skip("a GPU is present")
	}
	r := runCLI(t, "tune", "--shapes", "64x1000:f32")
	if r.code != 1 || !strings.Contains(r.stderr, "cuda backend unavailable") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
