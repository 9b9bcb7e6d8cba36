package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench --op cross_entropy|logsumexp prints the softmax bench's table,
// merges peers.py's records of the same op by case into its vs-peer
// columns, and writes the same JSON records and plot.
func TestLossBenchPeersJSONPlot(t *testing.T) {
	dir := t.TempDir()
	peersPath := filepath.Join(dir, "peers.json")
	// As peers.py writes them: spec, op, the forward alone beside each
	// cross_entropy case (it must not merge), a softmax record of the shape.
	fixture := `[
 {"spec": "64x1000:f32:-1:cross_entropy", "shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "cross_entropy", "peer": "torch", "us": 1e6, "copy_us": 1, "device": "cpu"},
 {"spec": "64x1000:f32:-1:cross_entropy", "shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "cross_entropy", "peer": "torch.compile", "us": 2e6, "copy_us": 1, "device": "cpu"},
 {"spec": "64x1000:f32:-1:cross_entropy_forward", "shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "cross_entropy_forward", "peer": "torch", "us": 1e-6, "copy_us": 1, "device": "cpu"},
 {"spec": "64x1000:f32:-1:logsumexp", "shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "logsumexp", "peer": "torch", "us": 1e6, "copy_us": 1, "device": "cpu"},
 {"spec": "64x1000:f32", "shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "triton", "us": 1e-6, "copy_us": 1, "device": "cpu"}
]`
	if err := os.WriteFile(peersPath, []byte(fixture), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"cross_entropy", "logsumexp"} {
		jsonPath, plotPath := filepath.Join(dir, op+".json"), filepath.Join(dir, op+".svg")
		r := runCLI(t, "bench", "--device", "cpu", "--op", op, "--shapes", "64x1000:f32,8x40x30:bf16", "--reps", "3",
			"--warmup", "1", "--json", jsonPath, "--plot", plotPath, "--peers", peersPath)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", op, r.code, r.stderr)
		}
		for _, s := range []string{"device: cpu", "copy ratio", "vs torch", "vs best peer", "64x1000", "8x40x30", op, "(torch)", "logits read"} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("%s: output lacks %q:\n%s", op, s, r.stdout)
			}
		}
		recs := readRecords(t, jsonPath)
		if len(recs) != 2 {
			t.Fatalf("%s: %d records", op, len(recs))
		}
		if recs[0]["spec"] != "64x1000:f32:-1:"+op || recs[0]["op"] != op || recs[1]["spec"] != "8x40x30:bf16:-1:"+op {
			t.Errorf("%s: records' spec/op: %v / %v", op, recs[0], recs[1])
		}
		// torch's 1 s against our µs: far above 1; the forward alone and
		// the softmax record (1 ps) did not merge, or torch would not be best.
		if vs, _ := recs[0]["vs_torch"].(float64); !(vs > 1) || recs[0]["best_peer"] != "torch" {
			t.Errorf("%s: 64x1000 record's peers: %v", op, recs[0])
		}
		if _, ok := recs[1]["vs_torch"]; ok {
			t.Errorf("%s: 8x40x30 has no peer timing, got %v", op, recs[1])
		}
		for _, rec := range recs {
			if ratio, _ := rec["copy_ratio"].(float64); !(ratio > 0) {
				t.Errorf("%s: record has no copy ratio: %v", op, rec)
			}
		}
		if fi, err := os.Stat(plotPath); err != nil || fi.Size() == 0 {
			t.Errorf("%s: plot: %v", op, err)
		}
	}
	for _, args := range [][]string{
		{"--shapes", "8x40:f32:0"},
		{"--suite", "cpu"},
		{"--shapes", "8x40:f32", "--offset", "1"},
		{"--shapes", "8x40:f32", "--algo", "nope"},
	} {
		r := runCLI(t, append([]string{"bench", "--device", "cpu", "--op", "cross_entropy", "--reps", "1"}, args...)...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", args, r.code, r.stderr)
		}
	}
}
