package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGenerated checks that kernels_arm64.s and stubs_arm64.go are what
// the generator writes (run go generate ./internal/cpu/vec on arm64, or
// go run ./neongen in internal/cpu/vec, after changing it).
func TestGenerated(t *testing.T) {
	asm, src := generate("kernels_arm64.s", "stubs_arm64.go")
	for _, f := range []struct {
		path string
		want []byte
	}{{"../kernels_arm64.s", asm}, {"../stubs_arm64.go", src}} {
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.want) {
			t.Errorf("%s is stale: run go run ./neongen in internal/cpu/vec", f.path)
		}
	}
}

// TestCountTable checks the instructions-per-element table of
// docs/cpu-arm64.md against the assembly (go run ./neongen -count).
func TestCountTable(t *testing.T) {
	arm, err := os.ReadFile("../kernels_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	amd, err := os.ReadFile("../kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../../../docs/cpu-arm64.md")
	if err != nil {
		t.Fatal(err)
	}
	table := countTable(string(arm), string(amd))
	if !bytes.Contains(doc, []byte("<!-- neongen -count -->\n"+table+"<!-- end -->")) {
		t.Errorf("docs/cpu-arm64.md's table is stale: paste in the output of go run ./neongen -count (in internal/cpu/vec)")
	}
	// Every kernel has a counted NEON loop.
	counts := loopCounts(string(arm))
	g := &gen{}
	g.all()
	for _, k := range g.kernels {
		if _, ok := counts[k+"NEON"]; !ok {
			t.Errorf("%sNEON: no main loop found", k)
		}
	}
}
