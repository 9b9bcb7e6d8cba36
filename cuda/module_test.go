package cuda

import (
	"bytes"
	"debug/elf"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// kernelTexts returns the machine code of each kernel in a CUBIN: its
// .text.<symbol> section (extern "C" names; the C++ names of device
// functions compiled out of line are left out).
func kernelTexts(t *testing.T, cubin []byte) map[string][]byte {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(cubin))
	if err != nil {
		t.Fatalf("CUBIN is not ELF: %v", err)
	}
	out := map[string][]byte{}
	for _, s := range f.Sections {
		if name, ok := strings.CutPrefix(s.Name, ".text."); ok && !strings.HasPrefix(name, "_Z") {
			b, err := s.Data()
			if err != nil {
				t.Fatal(err)
			}
			out[name] = b
		}
	}
	return out
}

// A kernel compiled alone (what a launch loads) has the machine code it has
// when its whole file is compiled: a sample of kernels from files of every
// size, both builds and all dtypes. (Session 61 compared all 1779 kernels
// on an H100: bench/results/nvidia-h100-2026-11-25-ab-s61.txt.)
func TestKernelAloneMatchesFile(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, c := range []struct {
		file  string
		dt    spec.DType
		plain bool
	}{
		{"warp_row.cu", spec.Float32, true},
		{"split_grid.cu", spec.Float16, false},
		{"strided_narrow.cu", spec.BFloat16, false},
		{"flat_rows.cu", spec.Float16, false},
	} {
		src, hdrs, err := kernels.Source(c.file, dtypeBit(c.dt), c.plain)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := jit.Default().Get(jit.Request{Name: c.file, Source: src, Headers: hdrs, Arch: d.props.Arch()})
		if err != nil {
			t.Fatalf("%s %v: %v", c.file, c.dt, err)
		}
		texts := kernelTexts(t, whole.CUBIN)
		in, ok := kernels.Lookup(strings.TrimSuffix(c.file, ".cu"))
		if !ok {
			t.Fatalf("%s: no strategy", c.file)
		}
		syms := in.Symbols(c.dt)
		for _, sym := range []string{syms[0], syms[len(syms)/2], syms[len(syms)-1]} {
			m, err := d.module(c.file, c.dt, c.plain, sym)
			if err != nil {
				t.Fatal(err)
			}
			req, err := d.kernelRequest(c.file, c.dt, c.plain, sym)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := jit.Default().Get(req) // in the compiler's memory since d.module
			if err != nil {
				t.Fatal(err)
			}
			got := kernelTexts(t, alone.CUBIN)
			if len(got) != 1 {
				t.Errorf("%s alone: %d kernels in its CUBIN, want 1", sym, len(got))
			}
			if !bytes.Equal(got[sym], texts[sym]) || len(texts[sym]) == 0 {
				t.Errorf("%s (%v, plain %v): %d bytes of code alone, %d in the whole file, not the same", sym, c.dt, c.plain, len(got[sym]), len(texts[sym]))
			}
			if _, err := d.ctx.Function(m.handle, sym); err != nil {
				t.Errorf("%s: not in its module: %v", sym, err)
			}
			t.Logf("%s (%v, plain %v): %d bytes of code, alone and in %s", sym, c.dt, c.plain, len(got[sym]), c.file)
		}
	}
}

// Precompile loads every kernel of both builds for its dtypes: after it,
// the device holds a loaded module for each.
func TestPrecompile(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	n, err := d.Precompile(softmax.BFloat16)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, in := range d.strategyInfos() {
		k := len(in.Symbols(spec.BFloat16))
		want += k
		if kernels.HasPlainBuild(in.File) {
			want += k
		}
	}
	loaded := 0
	d.mu.Lock()
	for key, m := range d.modules {
		if key.dt == spec.BFloat16 && m.err == nil && m.handle != 0 {
			loaded++
		}
	}
	d.mu.Unlock()
	if n != want || loaded != want || want < 500 {
		t.Errorf("Precompile(bf16) = %d kernels, %d loaded; want %d", n, loaded, want)
	}
	if _, err := d.Precompile(softmax.DType(7)); err == nil || !strings.Contains(err.Error(), "not f32, f16, bf16 or f64") {
		t.Errorf("Precompile(DType(7)) = %v, want an error naming the dtype", err)
	}
	t.Logf("%d bf16 kernels", n)
}
