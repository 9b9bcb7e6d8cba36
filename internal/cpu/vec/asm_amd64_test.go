//go:build amd64 && !purego

package vec

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAsmEncoding checks the generated assembly: AVX2 kernels must stay
// VEX-encodable (no X16–X31/Y16–Y31, zmm, opmask registers or EVEX-only
// suffixes) so that they run on CPUs without AVX-512, and every kernel ends
// with VZEROUPPER.
func TestAsmEncoding(t *testing.T) {
	src, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	evex := regexp.MustCompile(`\b([XY](1[6-9]|2[0-9]|3[01])|Z[0-9]+|K[0-7])\b|\.(Z|BCST)\b`)
	var fn string
	var last string
	funcs := 0
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "TEXT ") {
			fn = line
			funcs++
			continue
		}
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		if strings.Contains(fn, "AVX2(SB)") && evex.MatchString(line) {
			t.Errorf("%s: EVEX-only operand in %q", fn, line)
		}
		if line == "RET" && last != "VZEROUPPER" {
			t.Errorf("%s: RET without VZEROUPPER", fn)
		}
		last = line
	}
	const want = 2*(39+23+2+1+1+1+8+6) + 1 + 5 + 6 // float32, float64, lanes.go, xent.go, bwd.go (+ its AVX2 dot), bwd74.go, fwd74.go, fwd16s70.go and bwd16s71c.go; cpu74c.go (3 AVX-512, 2 AVX2), fwd16s70.go's 4 AVX-512 bfloat16 normalizing kernels and 2 maxBits
	if funcs != want {
		t.Errorf("found %d kernels, want %d", funcs, want)
	}
}

// TestGenerated regenerates the assembly and stubs and compares them with
// the files in the package (go generate must have been run).
func TestGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	out, stubs := filepath.Join(dir, "kernels_amd64.s"), filepath.Join(dir, "stubs_amd64.go")
	cmd := exec.Command(goTool, "run", "./asmgen", "-out", out, "-stubs", stubs, "-pkg", "vec")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("cannot run the generator: %v\n%s", err, msg)
	}
	for _, f := range [][2]string{{out, "kernels_amd64.s"}, {stubs, "stubs_amd64.go"}} {
		got, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f[1])
		if err != nil {
			t.Fatal(err)
		}
		// The first line names the output paths.
		_, got, _ = bytes.Cut(got, []byte("\n"))
		_, want, _ = bytes.Cut(want, []byte("\n"))
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./internal/cpu/vec", f[1])
		}
	}
}
