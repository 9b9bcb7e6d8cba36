package kernels

import (
	"strings"
	"testing"
)

// Every catalogued kernel, cut out of its file for its dtype (and the plain
// build where the file has one), keeps its own definition and no other, and
// every other line of the file where it was.
func TestKernelSource(t *testing.T) {
	n := 0
	for _, in := range All() {
		for _, dt := range dtypes {
			for _, plain := range []bool{false, true} {
				if plain && !HasPlainBuild(in.File) {
					continue
				}
				whole, _, err := Source(in.File, DTypeMask(dt), plain)
				if err != nil {
					t.Fatal(err)
				}
				wholeLines := strings.Split(whole, "\n")
				for _, sym := range in.Symbols(dt) {
					src, hdrs, err := KernelSource(in.File, DTypeMask(dt), plain, sym)
					if err != nil {
						t.Errorf("%s: %v", sym, err)
						continue
					}
					if hdrs[Header] == "" {
						t.Errorf("%s: no %s in the header map", sym, Header)
					}
					lines := strings.Split(src, "\n")
					if len(lines) != len(wholeLines) {
						t.Errorf("%s: %d lines, the file has %d", sym, len(lines), len(wholeLines))
						continue
					}
					var kept []string
					for i, l := range lines {
						if m := kernelLine.FindStringSubmatch(l); m != nil {
							kept = append(kept, m[1])
						}
						if l != wholeLines[i] && (l != "" || !kernelLine.MatchString(wholeLines[i])) {
							t.Errorf("%s: line %d changed: %q, was %q", sym, i+1, l, wholeLines[i])
							break
						}
					}
					if len(kept) != 1 || kept[0] != sym {
						t.Errorf("%s: kernels left defined: %v", sym, kept)
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d kernels cut out: the catalogue lost its symbols?", n)
	}
}

func TestKernelSourceErrors(t *testing.T) {
	for _, c := range []struct {
		file, sym, want string
	}{
		{"block_reg.cu", "block_reg_fwd_f32_t32_p9", `"block_reg_fwd_f32_t32_p9" 0 times`},
		{"warp_row.cu", "block_reg_fwd_f32_t32_p8", `warp_row.cu defines kernel "block_reg_fwd_f32_t32_p8" 0 times`},
		{"block_reg", "block_reg_fwd_f32_t32_p8", `no source "block_reg"`},
	} {
		_, _, err := KernelSource(c.file, DTypeMask(dtypes[0]), false, c.sym)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("KernelSource(%s, %s) = %v, want an error containing %s", c.file, c.sym, err, c.want)
		}
	}
}
