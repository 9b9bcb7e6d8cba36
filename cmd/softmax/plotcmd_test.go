package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// softmax plot redraws a committed run from its JSON (with a peers file
// merged) as PNG and SVG; bad command lines are usage errors, an unreadable
// run a failure.
func TestPlot(t *testing.T) {
	run := filepath.Join("..", "..", "bench", "results", "cpu-xeon-2threads-2026-11-22.json")
	peers := filepath.Join("..", "..", "bench", "results", "cpu-xeon-2threads-2026-11-22-peers.json")
	if _, err := os.Stat(run); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"p.png", "p.svg"} {
		out := filepath.Join(dir, name)
		if r := runCLI(t, "plot", "--peers", peers, "--out", out, run); r.code != 0 {
			t.Fatalf("plot %s: exit %d: %s", name, r.code, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if magic := map[string]string{"p.png": "\x89PNG", "p.svg": "<?xml"}[name]; !bytes.HasPrefix(data, []byte(magic)) {
			t.Errorf("%s starts %.20q, want %q", name, data, magic)
		}
		if name == "p.svg" && !bytes.Contains(data, []byte("torch")) {
			t.Errorf("%s lacks the torch peer", name)
		}
	}
	expectUsageErrors(t, "plot", []usageCase{
		{[]string{"plot", run}, "--out"},
		{[]string{"plot", "--out", filepath.Join(dir, "x.png")}, "no RUN.json"},
		{[]string{"plot", "--nope", run}, "--nope"},
	})
	if r := runCLI(t, "plot", "--out", filepath.Join(dir, "x.png"), filepath.Join(dir, "missing.json")); r.code != 1 {
		t.Errorf("a missing run: exit %d, want 1 (%s)", r.code, r.stderr)
	}
	expectHelp(t, "plot", "--out", "--peers", "RUN.json")
}
