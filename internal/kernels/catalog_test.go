package kernels

import (
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

var dtypes = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}

func readSource(t *testing.T, file string) string {
	t.Helper()
	s, err := SourceText(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

// The comment table of smx::Params in common.cuh must match the Go struct.
func TestParamsMatchesHeaderTable(t *testing.T) {
	hdr := readSource(t, Header)
	row := regexp.MustCompile(`(?m)^//\s+(\d+)\s+(\d+)\s+([a-z][a-z0-9]*)\b`)
	// The Go struct's fields by lower-case name: offset, size, and their order.
	goField := map[string][2]uintptr{}
	var goOrder []string
	pt := reflect.TypeOf(Params{})
	for i := 0; i < pt.NumField(); i++ {
		f := pt.Field(i)
		name := strings.ToLower(f.Name)
		goField[name] = [2]uintptr{f.Offset, f.Type.Size()}
		goOrder = append(goOrder, name)
	}
	seen := 0
	for _, m := range row.FindAllStringSubmatch(hdr, -1) {
		off, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		g, ok := goField[m[3]]
		if !ok {
			t.Errorf("header table field %q has no Go counterpart", m[3])
			continue
		}
		seen++
		if g[0] != uintptr(off) || g[1] != uintptr(size) {
			t.Errorf("field %s: header says offset %d size %d, Go has %d and %d", m[3], off, size, g[0], g[1])
		}
	}
	if seen != len(goField) {
		t.Errorf("header table lists %d fields, Go has %d", seen, len(goField))
	}
	if !strings.Contains(hdr, "static_assert(sizeof(Params) == 96") || ParamsSize != 96 {
		t.Errorf("Params size: header must assert 96, Go has %d", ParamsSize)
	}
	// Declaration order in the C struct.
	decl := regexp.MustCompile(`(?s)struct Params \{(.*?)\};`).FindStringSubmatch(hdr)
	if decl == nil {
		t.Fatal("no struct Params in the header")
	}
	var order []string
	for _, m := range regexp.MustCompile(`(\w+);`).FindAllStringSubmatch(decl[1], -1) {
		order = append(order, m[1])
	}
	if strings.Join(order, ",") != strings.Join(goOrder, ",") {
		t.Errorf("C field order %v, Go has %v", order, goOrder)
	}
}

func TestKernelMacroIsExternC(t *testing.T) {
	hdr := readSource(t, Header)
	re := regexp.MustCompile(`#define SMX_KERNEL\(NAME, BOUNDS, \.\.\.\)\s*\\\s*extern "C" __global__ void __launch_bounds__\(BOUNDS\) NAME\(const smx::Params p\)`)
	if !re.MatchString(hdr) {
		t.Error(`SMX_KERNEL must define extern "C" __global__ void NAME(const smx::Params p)`)
	}
}

// Every strategy has a source of its own that defines templates only (the
// catalogue generates its kernels: TestInstancesMatchHandListed), and every
// generated kernel carries the strategy's prefix and a listed symbol.
func TestCatalogueMatchesSources(t *testing.T) {
	files := map[string]bool{}
	kernelRe := regexp.MustCompile(`(?m)^\s*SMX_KERNEL\(`)
	hdrs, err := headers()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range All() {
		if files[in.File] {
			t.Errorf("%s: file %s used twice", in.Strategy, in.File)
		}
		files[in.File] = true
		src := readSource(t, in.File)
		if kernelRe.MatchString(src) {
			t.Errorf("%s defines kernels by hand; the catalogue generates them", in.File)
		}
		for _, dt := range dtypes {
			syms := in.Symbols(dt)
			ks := in.Instances(dt)
			if len(ks) != len(syms) {
				t.Errorf("%s %v: %d instances for %d symbols", in.Strategy, dt, len(ks), len(syms))
				continue
			}
			for i, k := range ks {
				if k.Symbol != syms[i] || !strings.HasPrefix(k.Symbol, string(in.Strategy)+"_") {
					t.Errorf("%s: instance %s, symbol %s", in.Strategy, k.Symbol, syms[i])
				}
			}
		}
		if len(in.Fwd) == 0 {
			t.Errorf("%s has no forward kernels", in.Strategy)
		}
		if !strings.Contains(src, `#include "common.cuh"`) {
			t.Errorf("%s does not include common.cuh", in.File)
		}
		for _, m := range regexp.MustCompile(`#include\s*[<"]([^>"]+)[>"]`).FindAllStringSubmatch(src, -1) {
			if _, ok := hdrs[m[1]]; !ok {
				t.Errorf("%s includes %s, not an embedded header (NVRTC has no other headers)", in.File, m[1])
			}
		}
	}
	entries, err := files2()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range entries {
		if strings.HasSuffix(name, ".cu") && !files[name] && !isXentFile(name) {
			t.Errorf("%s is embedded but belongs to no strategy", name)
		}
	}
	for name, text := range hdrs {
		for _, m := range regexp.MustCompile(`#include\s*[<"]([^>"]+)[>"]`).FindAllStringSubmatch(text, -1) {
			if _, ok := hdrs[m[1]]; !ok {
				t.Errorf("%s includes %s, not an embedded header", name, m[1])
			}
		}
	}
}

// files2 lists the embedded files, teaching/ ones by their bare names.
func files2() ([]string, error) {
	var names []string
	for _, dir := range []string{".", "teaching"} {
		ents, err := files.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// Every architecture's resource table loads, sm_80 and sm_90 are among
// them (sm_80 from its own table once resources.sh has written it, sm_90's
// until then), each covers exactly the catalogue kernels the architecture
// runs (f64 ones through their f32 twins in the placeholder of nvcc 11.8's
// data), and every kernel's registers fit its launch bounds.
func TestResourceTables(t *testing.T) {
	archs := ResourceArchs()
	if !slices.Contains(archs, "sm_90") {
		t.Fatalf("resource tables for %v, want sm_90 among them", archs)
	}
	for _, arch := range archs {
		tab, err := Resources(arch)
		if err != nil || tab.Arch != arch {
			t.Fatalf("%s: table %v, %v", arch, tab, err)
		}
		all := map[string]bool{}
		for _, in := range All() {
			if in.MinMajor*10 > archNumber(arch) || in.Cluster && archNumber(arch) < 90 {
				continue
			}
			for _, dt := range GPUDTypes() {
				for _, sym := range in.Symbols(dt) {
					all[sym] = true
					regs, smem, ok := tab.Kernel(sym)
					if _, own := tab.kernels[sym]; !own && strings.HasPrefix(tab.Compiler, "nvrtc") {
						ok = false // written by resources.sh: every kernel its own row, f64 too
					}
					if !ok {
						t.Errorf("%s: no entry for %s", arch, sym)
						continue
					}
					k, _ := in.Instance(dt, sym)
					if regs > 255 || k.Threads > 0 && regs*k.Threads > 65536 {
						t.Errorf("%s: %s: %d registers × %d threads does not fit an SM", arch, sym, regs, k.Threads)
					}
					if smem > 48<<10 {
						t.Errorf("%s: %s: static smem %d", arch, sym, smem)
					}
				}
			}
		}
		for _, sym := range tab.Symbols() {
			if !all[sym] {
				t.Errorf("%s: table has %s, not in the catalogue", arch, sym)
			}
		}
	}
	for arch, want := range map[string]string{"sm_89": "sm_80", "sm_100": "sm_90", "sm_70": archs[0], "": archs[len(archs)-1]} {
		if !slices.Contains(archs, want) {
			want = "sm_90" // sm_80's table not written yet: sm_90's serves
		}
		if tab, err := Resources(arch); err != nil || tab.Arch != want {
			t.Errorf("Resources(%q) = %v, %v; want %s's", arch, tab.Arch, err, want)
		}
	}
	if _, err := ParseResources("sm_90", "symbol\tregs\tsmem\nk\t0\t0\n"); err == nil {
		t.Errorf("a row of 0 registers parsed")
	}
}

func TestProgram(t *testing.T) {
	for _, s := range Strategies() {
		for _, dt := range dtypes {
			p, err := s.Program(dt)
			if err != nil {
				t.Fatalf("%s %v: %v", s, dt, err)
			}
			if p.Name != s.Info().File {
				t.Errorf("%s: program name %s", s, p.Name)
			}
			prefix := "#line 1 \"" + p.Name + "\"\n"
			if !strings.HasPrefix(p.Source, prefix) {
				t.Errorf("%s %v: source starts %q", s, dt, p.Source[:min(60, len(p.Source))])
			}
			if p.Headers[Header] == "" {
				t.Errorf("%s: headers %v", s, len(p.Headers))
			}
			if len(p.Symbols) != len(s.Info().Symbols(dt)) {
				t.Errorf("%s %v: %d symbols", s, dt, len(p.Symbols))
			}
		}
		all, err := s.Program()
		if err != nil || strings.Count(all.Source, "\nSMX_KERNEL(") != len(all.Symbols) {
			t.Errorf("%s all dtypes: %v", s, err)
		}
	}
	if _, err := Strategy("nope").Program(spec.Float32); err == nil {
		t.Error("unknown strategy compiled")
	}
	if _, _, err := Source("warp_row.cu", 0, false); err == nil {
		t.Error("empty dtype mask accepted")
	}
	if _, err := ParseStrategy("block_reg"); err != nil {
		t.Error(err)
	}
	if _, err := ParseStrategy("bogus"); err == nil || !strings.Contains(err.Error(), "split_cluster") {
		t.Errorf("ParseStrategy(bogus) = %v", err)
	}
}

func TestSupports(t *testing.T) {
	rows := spec.Layout{Outer: 8, Axis: 1000, Inner: 1}
	strided := spec.Layout{Outer: 8, Axis: 1000, Inner: 3}
	cases := []struct {
		s    Strategy
		op   spec.Op
		dt   spec.DType
		l    spec.Layout
		want bool
	}{
		{Naive, spec.Softmax, spec.Float32, strided, true},
		{Strided, spec.LogSoftmaxBackward, spec.BFloat16, strided, true},
		{Strided, spec.Softmax, spec.Float16, rows, true},
		{WarpRow, spec.Softmax, spec.Float32, rows, true},
		{WarpRow, spec.Softmax, spec.Float32, strided, false},
		{WarpRow, spec.Softmax, spec.Float32, spec.Layout{Outer: 1, Axis: 1025, Inner: 1}, false},
		{WarpRow, spec.Softmax, spec.Float16, spec.Layout{Outer: 1, Axis: 2048, Inner: 1}, true},
		{WarpRow, spec.SoftmaxBackward, spec.Float16, spec.Layout{Outer: 1, Axis: 2048, Inner: 1}, false},
		{WarpRow, spec.SoftmaxBackward, spec.Float16, spec.Layout{Outer: 1, Axis: 1024, Inner: 1}, true},
		{BlockReg, spec.Softmax, spec.Float32, spec.Layout{Outer: 1, Axis: 8192, Inner: 1}, true},
		{BlockReg, spec.Softmax, spec.Float32, spec.Layout{Outer: 1, Axis: 32769, Inner: 1}, false},
		{BlockReg, spec.SoftmaxBackward, spec.Float32, spec.Layout{Outer: 1, Axis: 8193, Inner: 1}, false},
		{BlockReg, spec.LogSoftmax, spec.BFloat16, spec.Layout{Outer: 1, Axis: 16384, Inner: 1}, true},
		{BlockVec, spec.SoftmaxBackward, spec.Float32, rows, false},
		{BlockVec, spec.LogSoftmax, spec.Float32, rows, true},
		{SplitRow, spec.Softmax, spec.Float32, spec.Layout{Outer: 1, Axis: 100000000, Inner: 1}, true},
		{SplitCluster, spec.LogSoftmaxBackward, spec.Float16, rows, true},
		{StridedShort, spec.LogSoftmax, spec.Float32, spec.Layout{Outer: 8, Axis: 16, Inner: 3}, true},
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 16, Inner: 64}, true},
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 17, Inner: 64}, true}, // lane pairs
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 32, Inner: 64}, true},
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 33, Inner: 64}, true}, // four lanes
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 48, Inner: 64}, true},
		{StridedShort, spec.Softmax, spec.Float16, spec.Layout{Outer: 8, Axis: 49, Inner: 64}, false},
		{StridedShort, spec.SoftmaxBackward, spec.BFloat16, spec.Layout{Outer: 8, Axis: 16, Inner: 64}, true},
		{StridedShort, spec.SoftmaxBackward, spec.BFloat16, spec.Layout{Outer: 8, Axis: 32, Inner: 64}, true},
		{StridedShort, spec.SoftmaxBackward, spec.BFloat16, spec.Layout{Outer: 8, Axis: 33, Inner: 64}, false},
		{StridedShort, spec.SoftmaxBackward, spec.Float32, spec.Layout{Outer: 8, Axis: 33, Inner: 3}, false},
		{StridedShort, spec.Softmax, spec.Float32, spec.Layout{Outer: 8, Axis: 1, Inner: 64}, false},
		{Online2Pass, spec.Softmax, spec.DType(9), rows, false},
		{Online2Pass, spec.Op(9), spec.Float32, rows, false},
	}
	for _, c := range cases {
		if got := Supports(c.s, c.op, c.dt, c.l); got != c.want {
			t.Errorf("Supports(%s, %v, %v, %+v) = %v, want %v", c.s, c.op, c.dt, c.l, got, c.want)
		}
	}
	if Supports("nope", spec.Softmax, spec.Float32, rows) {
		t.Error("unknown strategy supported")
	}
}

func TestSmemBytes(t *testing.T) {
	if got := SmemBytes(BlockSmem, spec.Softmax, spec.Float16, 1001, 256); got != 2016 {
		t.Errorf("block_smem f16 1001 cols: %d", got)
	}
	if got := SmemBytes(BlockSmem, spec.SoftmaxBackward, spec.Float32, 1000, 256); got != 8000 {
		t.Errorf("block_smem bwd f32 1000 cols: %d", got)
	}
	if got := SmemBytes(SplitCluster, spec.LogSoftmaxBackward, spec.BFloat16, 1001, 256); got != 2*2016+SplitClusterSlotBytes(spec.BFloat16) {
		t.Errorf("split_cluster bwd bf16 chunk of 1001: %d", got)
	}
	if got := SmemBytes(SmemTree, spec.Softmax, spec.Float32, 1000, 256); got != 2048 {
		t.Errorf("smem_tree 256 threads: %d", got)
	}
	if got := SmemBytes(WarpRow, spec.Softmax, spec.Float32, 1000, 128); got != 0 {
		t.Errorf("warp_row: %d", got)
	}
}

// documentedSpills are the sm_90 kernels that spill by design (doc.go,
// "Resources"): 16-bit block_reg at the 64 registers of 1024 threads with
// 5..8 packs (never picked automatically), the 16-bit block_hybrid kernels
// (a few words beside their register part), the 16-bit pipelined kernels,
// the 16-bit strided_reg kernels (64 packed values a thread), f32
// strided_reg g8/g16 (8 B beside their two load loops), bf16 block_reg
// t512 p5, the ragged-row twins of 16-bit block_reg t1024 and block_smem,
// split_grid_bwd_bf16_waves (4 B) and the 16-bit strided_short p11 and
// q10 kernels (4-16 B at ptxas's own choice of 80 or 128 registers, no
// register bound; strided_short_fwd_f32_a14's 4 B went with session 34's
// edits); strided_reg's twins (f32 16-36 B, 16-bit 176-188 B: their
// scalar loads in flight at 64 registers, faster than at 128); bf16
// warp_row w2..w16 _p2 (8 B under their 40-register bound, -ab-s39.txt §2).
var documentedSpills = regexp.MustCompile(`^(warp_row_fwd_bf16_w\d+_p2|block_reg_fwd_(f16|bf16)_t1024_p[5-8](_tail|_shift)?|block_reg_fwd_bf16_t512_p5|block_smem_(fwd|bwd)_(f16|bf16)_shift|split_grid_bwd_bf16_waves|block_hybrid_fwd_(f16|bf16)_t\d+_s\d+|pipelined_(fwd|bwd)_(f16|bf16)_\w+|strided_reg_fwd_(f16|bf16)_g\d+(_shift)?|strided_reg_fwd_f32_g(8|16)|strided_reg_fwd_f32_g\d+_shift|strided_short_fwd_(f16|bf16)_(p11(_shift)?|q10))$`)

// With SMX_NVCC=1 and nvcc on PATH, every strategy compiles for sm_80 and
// sm_90 (split_cluster: sm_90 only matters), and no sm_90 kernel spills but
// the documented ones.
func TestNvccCompiles(t *testing.T) {
	if os.Getenv("SMX_NVCC") == "" {
		t.Skip("set SMX_NVCC=1 to compile the kernels with nvcc")
	}
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("nvcc not found")
	}
	dir := t.TempDir()
	if err := WriteSources(dir); err != nil {
		t.Fatal(err)
	}
	// ptxas -v prints "Function properties for NAME" and then the spill
	// line of that function.
	spill := regexp.MustCompile(`Function properties for (\w+)\s+\d+ bytes stack frame, (\d+) bytes spill stores`)
	for _, in := range All() {
		for _, arch := range []string{"sm_80", "sm_90"} {
			cmd := exec.Command(nvcc, "-arch="+arch, "-std=c++17", "-cubin", "-Xptxas", "-v", in.File, "-o", "/dev/null")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s %s: %v\n%s", in.File, arch, err, out)
				continue
			}
			if arch != "sm_90" {
				continue
			}
			ms := spill.FindAllStringSubmatch(string(out), -1)
			if len(ms) == 0 {
				t.Errorf("%s %s: no per-function report in the ptxas output:\n%s", in.File, arch, out)
			}
			for _, m := range ms {
				if m[2] != "0" && !documentedSpills.MatchString(m[1]) {
					t.Errorf("%s %s: %s spills %s bytes", in.File, arch, m[1], m[2])
				}
			}
		}
	}
}

// One-warp block_reg kernels exist only where a thread holds at most
// BlockRegValues values: f32 up to 8 packs, f16/bf16 up to 4.
func TestVariantServes(t *testing.T) {
	in := BlockReg.Info()
	for _, c := range []struct {
		name string
		dt   spec.DType
		want bool
	}{
		{"t32_p8", spec.Float32, true}, {"t32_p4", spec.Float16, true}, {"t32_p5", spec.Float16, false},
		{"t32_p8", spec.BFloat16, false}, {"t64_p8", spec.Float16, true}, {"t1024_p8_tail", spec.BFloat16, true},
	} {
		v, ok := in.Variant(false, c.name)
		if !ok {
			t.Fatalf("no forward block_reg variant %s", c.name)
		}
		if got := v.Serves(c.dt); got != c.want {
			t.Errorf("%s serves %v: %v, want %v", c.name, c.dt, got, c.want)
		}
		listed := false
		for _, s := range in.Symbols(c.dt) {
			listed = listed || s == Symbol(BlockReg, c.dt, false, c.name)
		}
		if listed != c.want {
			t.Errorf("%s for %v listed in Symbols: %v, want %v", c.name, c.dt, listed, c.want)
		}
	}
}

// The plain build defines SMX_PLAIN ahead of the file; the general one does
// not, and both keep the file's line numbers.
func TestSourcePlain(t *testing.T) {
	for _, plain := range []bool{false, true} {
		src, _, err := Source("block_reg.cu", DTypeMask(spec.Float16), plain)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(src, "#define SMX_PLAIN 1\n"); got != plain {
			t.Errorf("plain %v: SMX_PLAIN defined: %v", plain, got)
		}
		if !strings.Contains(src, "#line 1 \"block_reg.cu\"\n") {
			t.Errorf("plain %v: no #line directive", plain)
		}
	}
}

// StridedShortVariant names the one-lane kernel up to 16 rows (8
// backward), the lane pair of ceil(axis/2) rows up to twice that, four
// lanes of ceil(axis/4) up to 48 (32), and nothing outside; every name it
// gives is in the catalogue.
func TestStridedShortVariant(t *testing.T) {
	for _, c := range []struct {
		axis  int64
		bwd   bool
		name  string
		lanes int64
	}{
		{1, false, "", 0}, {2, false, "a2", 1}, {16, false, "a16", 1}, {17, false, "p9", 2}, {18, false, "p9", 2},
		{31, false, "p16", 2}, {32, false, "p16", 2}, {33, false, "q9", 4}, {36, false, "q9", 4}, {37, false, "q10", 4},
		{47, false, "q12", 4}, {48, false, "q12", 4}, {49, false, "", 0},
		{8, true, "a8", 1}, {9, true, "p5", 2}, {16, true, "p8", 2}, {17, true, "q5", 4}, {32, true, "q8", 4}, {33, true, "", 0},
	} {
		name, lanes, ok := StridedShortVariant(c.axis, c.bwd)
		if name != c.name || lanes != c.lanes || ok != (c.name != "") {
			t.Errorf("StridedShortVariant(%d, bwd %v) = %q, %d, %v; want %q, %d", c.axis, c.bwd, name, lanes, ok, c.name, c.lanes)
		}
		if ok {
			if v, found := StridedShort.Info().Variant(c.bwd, name); !found || int64(max(v.Lanes, 1)) != lanes {
				t.Errorf("axis %d bwd %v: variant %q not catalogued with %d lanes", c.axis, c.bwd, name, lanes)
			}
		}
	}
}

// The teaching kernels are exactly the seeds' steps, live under teaching/
// and are not in the production set; every other strategy is.
func TestTeachingApart(t *testing.T) {
	teaching := map[Strategy]bool{Naive: true, SmemTree: true, BlockVec: true, Persistent: true}
	prod := map[Strategy]bool{}
	for _, in := range Production() {
		prod[in.Strategy] = true
		if in.Teaching {
			t.Errorf("%s: a teaching kernel in the production set", in.Strategy)
		}
	}
	for _, in := range All() {
		if in.Teaching != teaching[in.Strategy] || prod[in.Strategy] == in.Teaching {
			t.Errorf("%s: teaching %v, in Production %v", in.Strategy, in.Teaching, prod[in.Strategy])
		}
		if _, err := files.ReadFile("teaching/" + in.File); (err == nil) != in.Teaching {
			t.Errorf("%s: %s under teaching/: %v", in.Strategy, in.File, err == nil)
		}
	}
	if len(prod)+len(teaching) != len(All()) {
		t.Errorf("%d production + %d teaching strategies, %d in all", len(prod), len(teaching), len(All()))
	}
}
