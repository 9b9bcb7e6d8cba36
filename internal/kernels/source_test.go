package kernels

import (
	"os"
	"strings"
	"testing"
)

// Every catalogued kernel's source (and the plain build's, where the file
// has one) is its file's text followed by its own definition and no other.
func TestKernelSource(t *testing.T) {
	n := 0
	for _, in := range All() {
		text := readSource(t, in.File)
		for _, dt := range dtypes {
			for _, plain := range []bool{false, true} {
				if plain && !HasPlainBuild(in.File) {
					continue
				}
				for _, k := range in.Instances(dt) {
					src, hdrs, err := KernelSource(in.File, DTypeMask(dt), plain, k.Symbol)
					if err != nil {
						t.Errorf("%s: %v", k.Symbol, err)
						continue
					}
					if hdrs[Header] == "" {
						t.Errorf("%s: no %s in the header map", k.Symbol, Header)
					}
					if !strings.Contains(src, "\n"+text) || !strings.HasSuffix(src, "\n"+k.Line()+"\n") ||
						strings.Count(src, "SMX_KERNEL(") != 1 {
						t.Errorf("%s: not its file's text followed by its one definition", k.Symbol)
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d kernels generated: the catalogue lost its symbols?", n)
	}
}

func TestKernelSourceErrors(t *testing.T) {
	for _, c := range []struct {
		file, sym, want string
	}{
		{"block_reg.cu", "block_reg_fwd_f32_t32_p9", `block_reg.cu has no kernel "block_reg_fwd_f32_t32_p9"`},
		{"warp_row.cu", "block_reg_fwd_f32_t32_p8", `warp_row.cu has no kernel "block_reg_fwd_f32_t32_p8"`},
		{"block_reg.cu", "block_reg_fwd_f16_t32_p1", `for dtype mask 1`},
		{"block_reg", "block_reg_fwd_f32_t32_p8", `no source "block_reg"`},
	} {
		_, _, err := KernelSource(c.file, DTypeMask(dtypes[0]), false, c.sym)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("KernelSource(%s, %s) = %v, want an error containing %s", c.file, c.sym, err, c.want)
		}
	}
}

// With SMX_SOURCES_OUT=dir, writes the generated sources there (WriteSources)
// for the host emulator (emu/run.sh) and nvcc checks.
func TestWriteSources(t *testing.T) {
	dir := os.Getenv("SMX_SOURCES_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := WriteSources(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dir + "/block_reg.cu")
	if err != nil || !strings.Contains(string(b), "SMX_KERNEL(block_reg_fwd_bf16_t1024_p8_shift, 1024, ") {
		t.Errorf("block_reg.cu written without its kernels: %v", err)
	}
}
