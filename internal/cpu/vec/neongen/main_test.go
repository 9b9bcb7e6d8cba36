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
