package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
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

// TestEncodings checks the WORD encodings against what Go's arm64
// disassembler (golang.org/x/arch, through go tool objdump) decoded them
// to in a build of the kernels.
func TestEncodings(t *testing.T) {
	for _, c := range []struct {
		emit func(g *gen)
		want string // decoded by objdump, Go operand order
		enc  uint32
	}{
		{func(g *gen) { g.cmgt(5, 5, 19) }, "VCMGT V19.S4, V5.S4, V5.S4", 0x4eb334a5},
		{func(g *gen) { g.fadd(6, 6, 26) }, "FADD V26.S4, V6.S4, V6.S4", 0x4e3ad4c6},
		{func(g *gen) { g.faddp(15, 15, 15) }, "VFADDP V15.S4, V15.S4, V15.S4", 0x6e2fd5ef},
		{func(g *gen) { g.fcmgt(3, 0, 1) }, "VFCMGT V1.S4, V0.S4, V3.S4", 0x6ea1e403},
		{func(g *gen) { g.fcvtl(2, 0) }, "VFCVTL V0.H4, V2.S4", 0x0e217802},
		{func(g *gen) { g.fcvtl2(3, 0) }, "VFCVTL2 V0.H8, V3.S4", 0x4e217803},
		{func(g *gen) { g.fcvtn(4, 0) }, "VFCVTN V0.S4, V4.H4", 0x0e216804},
		{func(g *gen) { g.fcvtn2(4, 1) }, "VFCVTN2 V1.S4, V4.H8", 0x4e216824},
		{func(g *gen) { g.fcvtzs(4, 4) }, "FCVTZS V4.S4, V4.S4", 0x4ea1b884},
		{func(g *gen) { g.fdiv(0, 16, 0) }, "FDIV V0.S4, V16.S4, V0.S4", 0x6e20fe00},
		{func(g *gen) { g.fmax(4, 0, 1) }, "FMAX V1.S4, V0.S4, V4.S4", 0x4e21f404},
		{func(g *gen) { g.fmaxnm(4, 14, 4) }, "FMAXNM V4.S4, V14.S4, V4.S4", 0x4e24c5c4},
		{func(g *gen) { g.fmaxnmv(0, 14) }, "FMAXNMV V14.S4, F0", 0x6e30c9c0},
		{func(g *gen) { g.fmin(0, 0, 17) }, "FMIN V17.S4, V0.S4, V0.S4", 0x4eb1f400},
		{func(g *gen) { g.fmul(0, 0, 30) }, "FMUL V30.S4, V0.S4, V0.S4", 0x6e3edc00},
		{func(g *gen) { g.frintn(4, 4) }, "FRINTN V4.S4, V4.S4", 0x4e218884},
		{func(g *gen) { g.fsub(6, 14, 5) }, "FSUB V5.S4, V14.S4, V6.S4", 0x4ea5d5c6},
		{func(g *gen) { g.scvtf(4, 4) }, "SCVTF V4.S4, V4.S4", 0x4e21d884},
		{func(g *gen) { g.sshr1(7, 4) }, "VSSHR $1, V4.S4, V7.S4", 0x4f3f0487},
	} {
		g := &gen{}
		c.emit(g)
		want := fmt.Sprintf("WORD $0x%08x //", c.enc)
		if got := g.asm.String(); !strings.Contains(got, want) {
			t.Errorf("%s: emitted %q, want %s…", c.want, got, want)
		}
	}
}
