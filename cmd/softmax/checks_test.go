package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A typo'd shape is a usage error naming the shape and the bytes, not a
// fatal out-of-memory: over a limit set by the environment, and one whose
// element count overflows.
func TestBenchShapeTooLarge(t *testing.T) {
	for _, tt := range []struct {
		spec, limit string
		wants       []string
	}{
		{"1000000x1000000:f32", "SOFTMAX_MEMORY_LIMIT=1000000000000", []string{"[1000000 1000000]", "8000000000000 bytes"}},
		{"64x1000:f32", "SOFTMAX_MEMORY_LIMIT=500000", []string{"[64 1000]", "512000 bytes", "500000 bytes", "SOFTMAX_MEMORY_LIMIT"}},
		{"64x1000:bf16:-1:softmax_backward", "SOFTMAX_MEMORY_LIMIT=300000", []string{"(3 tensors)", "384000 bytes"}},
		{"4294967296x4294967296:f32", "", []string{"overflows"}},
	} {
		var env []string
		if tt.limit != "" {
			env = []string{tt.limit}
		}
		r := runCLIWith(t, nil, env, "bench", "--device", "cpu", "--shapes", tt.spec, "--reps", "1")
		if r.code != 2 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 2 before any timing", tt.spec, r.code, r.stdout)
		}
		for _, w := range tt.wants {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: %q lacks %q", tt.spec, r.stderr, w)
			}
		}
	}
}

// tune fills each tensor on the host too: the same check, before a GPU is
// looked for.
func TestTuneShapeTooLarge(t *testing.T) {
	r := runCLIWith(t, nil, []string{"SOFTMAX_MEMORY_LIMIT=100000"}, "tune", "--shapes", "64x1000:f32")
	if r.code != 2 || !strings.Contains(r.stderr, "one host tensor") || !strings.Contains(r.stderr, "256000 bytes") {
		t.Errorf("tune over the limit: exit %d, stderr %q", r.code, r.stderr)
	}
}

// --json and --plot paths are checked before the bench opens a device or
// times anything.
func TestBenchOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	// A symbolic link is checked where it leads: here a missing folder.
	dangling := filepath.Join(dir, "latest.json")
	if err := os.Symlink(filepath.Join("missing", "r.json"), dangling); err != nil {
		dangling = filepath.Join(dir, "missing", "x.json") // no symbolic links here
	}
	for _, args := range [][]string{
		{"--json", dangling},
		{"--plot", filepath.Join(dir, "missing", "r.svg")},
		{"--json", filepath.Join(dir, "missing", "r.json")},
		{"--json", dir},
	} {
		r := runCLI(t, append([]string{"bench", "--device", "cpu", "--shapes", "64x1000:f32"}, args...)...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, args[0]+" "+args[1]) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1, no table, an error naming the path", args, r.code, r.stdout, r.stderr)
		}
	}
}
