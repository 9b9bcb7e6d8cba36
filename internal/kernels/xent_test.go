package kernels

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// The offsets of smx::XParams in xent.cu.
func TestXParamsLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("64-bit hosts only (device pointers)")
	}
	var p XParams
	for _, w := range []struct {
		name     string
		got, off uintptr
	}{
		{"x", unsafe.Offsetof(p.X), 0}, {"stats", unsafe.Offsetof(p.Stats), 64}, {"out", unsafe.Offsetof(p.Out), 80},
		{"rows", unsafe.Offsetof(p.Rows), 88}, {"ignore", unsafe.Offsetof(p.Ignore), 104},
		{"scale", unsafe.Offsetof(p.Scale), 112}, {"zloss", unsafe.Offsetof(p.ZLoss), 136}, {"gout", unsafe.Offsetof(p.GOut), 144},
		{"flags", unsafe.Offsetof(p.Flags), 152}, {"vec", unsafe.Offsetof(p.Vec), 156}, {"inner", unsafe.Offsetof(p.Inner), 160},
		{"rec", unsafe.Offsetof(p.Rec), 168}, {"dy", unsafe.Offsetof(p.DY), 176}, {"lo", unsafe.Offsetof(p.Lo), 184},
		{"vall", unsafe.Offsetof(p.VAll), 192}, {"nranks", unsafe.Offsetof(p.NRanks), 200}, {"op", unsafe.Offsetof(p.ShOp), 204},
	} {
		if w.got != w.off {
			t.Errorf("XParams.%s at offset %d, C has %d", w.name, w.got, w.off)
		}
	}
	if XParamsSize != 208 || unsafe.Alignof(p) != 8 {
		t.Errorf("XParams size %d align %d, C has 208 and 8", XParamsSize, unsafe.Alignof(p))
	}
}

func TestXentSource(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range XentInstances() {
		if seen[k.Symbol] {
			t.Errorf("duplicate symbol %s", k.Symbol)
		}
		seen[k.Symbol] = true
		src, hdrs, err := XentSource(k.Symbol)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(src, "XENT_KERNEL("+k.Symbol+", ") || strings.Count(src, "XENT_KERNEL(xent_")+strings.Count(src, "XENT_KERNEL(shard_") != 1 {
			t.Errorf("%s: source does not define exactly its kernel", k.Symbol)
		}
		if _, ok := hdrs["common.cuh"]; !ok {
			t.Errorf("%s: no common.cuh in the headers", k.Symbol)
		}
	}
	if !seen["xent_row_bf16_t1024_p8"] || !seen["xent_row_f32_t1024_p0"] {
		t.Errorf("missing kernels: %v", seen)
	}
	if !seen["xent_row_f64_t128_p4"] || !seen["xent_row_f64_t1024_p0"] || !seen["xent_lse_cols_bf16_t256"] || !seen["xent_lse_cols_f64_t256"] {
		t.Error("missing float64 kernels")
	}
	// The tail kernels serve plain calls only, f64 included.
	if !seen["xent_row_bf16_t1024_p8_s12_tail_plain"] || !seen["xent_row_f64_t1024_p8_s8_tail_plain"] || seen["xent_row_bf16_t1024_p8_s12_tail"] {
		t.Error("tail kernels: want the plain twins alone")
	}
	if _, _, err := XentSource("xent_row_f64_t1024_p1"); err == nil {
		t.Error("a kernel the catalogue does not instantiate has a source")
	}
	if XentRows[len(XentRows)-1].Packs != 0 {
		t.Error("the last row kernel must stream (serves any V)")
	}
}

// With SMX_XENT_OUT=dir, writes xent.cu with every kernel and the headers
// there, for the host emulator (emu/xent_run.sh).
func TestWriteXentSources(t *testing.T) {
	dir := os.Getenv("SMX_XENT_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	src, err := XentProgram()
	if err != nil {
		t.Fatal(err)
	}
	hdrs, err := headers()
	if err != nil {
		t.Fatal(err)
	}
	hdrs[XentFile] = src
	for name, text := range hdrs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
