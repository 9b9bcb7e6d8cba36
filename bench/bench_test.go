package bench

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
)

func TestParseSpecValid(t *testing.T) {
	tests := []struct {
		in   string
		want Case
		str  string
	}{
		{"4096x65536:f32:0", Case{Shape: []int{4096, 65536}, DType: spec.Float32, Axis: 0, Op: spec.Softmax}, "4096x65536:f32:0"},
		{"64x1000:f32", Case{Shape: []int{64, 1000}, DType: spec.Float32, Axis: -1, Op: spec.Softmax}, "64x1000:f32"},
		{"1x16777216:bf16:-1", Case{Shape: []int{1, 16777216}, DType: spec.BFloat16, Axis: -1, Op: spec.Softmax}, "1x16777216:bf16"},
		{"64x1024x512:f16:1", Case{Shape: []int{64, 1024, 512}, DType: spec.Float16, Axis: 1, Op: spec.Softmax}, "64x1024x512:f16:1"},
		{" 128x32000:float32:-1:log_softmax ", Case{Shape: []int{128, 32000}, DType: spec.Float32, Axis: -1, Op: spec.LogSoftmax}, "128x32000:f32:-1:log_softmax"},
		{"7:half", Case{Shape: []int{7}, DType: spec.Float16, Axis: -1, Op: spec.Softmax}, "7:f16"},
		{"3×5:f32:-2:softmax_backward", Case{Shape: []int{3, 5}, DType: spec.Float32, Axis: -2, Op: spec.SoftmaxBackward}, "3x5:f32:-2:softmax_backward"},
	}
	for _, tt := range tests {
		got, err := ParseSpec(tt.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if s := got.String(); s != tt.str {
			t.Errorf("ParseSpec(%q).String() = %q, want %q", tt.in, s, tt.str)
		}
		back, err := ParseSpec(got.String())
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("round trip of %q: %+v, %v", got.String(), back, err)
		}
	}
}

func TestParseSpecInvalid(t *testing.T) {
	for _, in := range []string{
		"", "garbage", "64x1000", "64x1000:f8", "64x:f32", "x64:f32", "0x5:f32", "-3x5:f32",
		"64x1000:f32:2", "64x1000:f32:-3", "64x1000:f32:a", "64x1000:f32:0:softer",
		"64x1000:f32:0:softmax:extra", "64.5x2:f32", "99999999999x99999999999x99999999999:f32",
	} {
		if c, err := ParseSpec(in); err == nil {
			t.Errorf("ParseSpec(%q) = %+v, want an error", in, c)
		}
	}
	if _, err := ParseSpecs(" , "); err == nil {
		t.Error("ParseSpecs of an empty list: want an error")
	}
	if _, err := ParseSpecs("64x1000:f32,bad"); err == nil {
		t.Error("ParseSpecs with one bad SPEC: want an error")
	}
	cs, err := ParseSpecs("64x1000:f32, 4096x4096:f32:0,")
	if err != nil || len(cs) != 2 {
		t.Fatalf("ParseSpecs: %v, %d cases", err, len(cs))
	}
	if got := FormatSpecs(cs); got != "64x1000:f32,4096x4096:f32:0" {
		t.Errorf("FormatSpecs = %q", got)
	}
}

func TestCaseTraffic(t *testing.T) {
	c := Case{Shape: []int{4, 1000}, DType: spec.Float16, Axis: -1, Op: spec.Softmax}
	if c.Elems() != 4000 || c.Bytes() != 8000 || c.Traffic() != 16000 {
		t.Errorf("forward f16 4x1000: elems %d bytes %d traffic %d", c.Elems(), c.Bytes(), c.Traffic())
	}
	c.Op = spec.LogSoftmaxBackward
	if c.Traffic() != 24000 {
		t.Errorf("backward traffic = %d, want 24000", c.Traffic())
	}
	ops := WithOp([]Case{c}, spec.Softmax)
	if ops[0].Op != spec.Softmax || c.Op != spec.LogSoftmaxBackward {
		t.Error("WithOp must set the op on a copy")
	}
}

func TestSuites(t *testing.T) {
	names := SuiteNames()
	for _, want := range []string{"tutorial", "onepass", "llm", "axis", "vector", "cpu", "quick", "all"} {
		if !slices.Contains(names, want) {
			t.Errorf("suite %q missing from %v", want, names)
		}
	}
	total := 0
	for _, name := range names {
		cases, err := Suite(name)
		if err != nil {
			t.Fatalf("Suite(%q): %v", name, err)
		}
		if len(cases) == 0 {
			t.Errorf("suite %q is empty", name)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if _, err := c.Layout(); err != nil || !c.DType.Valid() || !c.Op.Valid() || c.Elems() <= 0 {
				t.Errorf("suite %q: bad case %v", name, c)
			}
			back, err := ParseSpec(c.String())
			if err != nil || !reflect.DeepEqual(back, c) {
				t.Errorf("suite %q: %v does not round-trip: %+v %v", name, c, back, err)
			}
			if seen[c.String()] {
				t.Errorf("suite %q: duplicate case %v", name, c)
			}
			seen[c.String()] = true
		}
		if name != "all" {
			total += len(cases)
		}
	}
	tut, _ := Suite("tutorial")
	if tut[0].Shape[1] != 256 || tut[len(tut)-1].Shape[1] != 32768 {
		t.Errorf("tutorial runs from %v to %v, want N = 256 … 32768", tut[0], tut[len(tut)-1])
	}
	for i, c := range tut {
		if c.Shape[0] != 4096 || c.DType != spec.Float32 || c.Shape[1]%128 != 0 || i > 0 && c.Shape[1] <= tut[i-1].Shape[1] {
			t.Errorf("tutorial case %v: want 4096 × increasing multiples of 128, f32", c)
		}
	}
	all, _ := Suite("all")
	quick, _ := Suite("quick")
	for _, c := range quick {
		if !slices.ContainsFunc(all, func(a Case) bool { return a.String() == c.String() }) {
			t.Errorf("quick case %v is in no other suite", c)
		}
	}
	// The default CPU suite must stay small: under 1 GiB of op traffic.
	cpu, _ := Suite("cpu")
	var traffic int64
	for _, c := range cpu {
		traffic += c.Traffic()
	}
	if traffic > 1<<30 {
		t.Errorf("cpu suite moves %d bytes per rep, too many for 30 s on 2 cores", traffic)
	}
	if _, err := Suite("nope"); err == nil {
		t.Error(`Suite("nope"): want an error`)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestStats(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	if m := Median([]float64{7}); m != 7 {
		t.Errorf("median of one = %v", m)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing should be NaN")
	}
	xs := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5} // 1..10
	if q := Quantile(xs, 0.1); !near(q, 1.9) {
		t.Errorf("p10 = %v, want 1.9", q)
	}
	if q := Quantile(xs, 0.9); !near(q, 9.1) {
		t.Errorf("p90 = %v, want 9.1", q)
	}
	if Quantile(xs, 0) != 1 || Quantile(xs, 1) != 10 || Quantile(xs, -1) != 1 || Quantile(xs, 2) != 10 {
		t.Error("quantile bounds")
	}
	s := Summarize(xs)
	if s.Median != 5.5 || s.Min != 1 || s.Max != 10 || !near(s.P10, 1.9) || !near(s.P90, 9.1) || s.N != 10 {
		t.Errorf("Summarize = %+v", s)
	}
	if xs[0] != 10 {
		t.Error("Summarize must not reorder its input")
	}
	if s := Summarize(nil); s.N != 0 || !math.IsNaN(s.Median) {
		t.Errorf("Summarize(nil) = %+v", s)
	}
}

func TestRecordFill(t *testing.T) {
	c := Case{Shape: []int{1000, 1000}, DType: spec.Float32, Axis: -1, Op: spec.Softmax}
	r := newRecord(c, "dev")
	r.fill(Summarize([]float64{100e-6, 100e-6, 200e-6}), Summarize([]float64{50e-6}), "copy")
	if r.Bytes != 8e6 || !near(r.US, 100) || !near(r.GBps, 80) || !near(r.CopyUS, 50) ||
		!near(r.CopyRatio, 0.5) || !near(r.CopyGBps, 160) || r.USMax != 200 || r.Reps != 3 {
		t.Errorf("fill: %+v", r)
	}
}

func sampleRecords() []Record {
	return []Record{
		{Spec: "64x1000:f32", Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Algo: "avx2",
			Chosen: "avx512", Device: "cpu (avx512 kernels, 2 threads)", Bytes: 512000,
			US: 20, USMin: 18, USMax: 30, USP10: 19, USP90: 25, Reps: 20, GBps: 25.6,
			CopyUS: 10, CopyP10: 9, CopyP90: 11, CopyGBps: 51.2, CopyRatio: 0.5, CopyKind: "copy, 1 goroutine"},
		{Spec: "64x1000:f32", Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Algo: "avx512",
			Chosen: "avx512", IsChosen: true, Device: "cpu (avx512 kernels, 2 threads)", Bytes: 512000,
			US: 16, USMin: 15, USMax: 17, USP10: 15, USP90: 17, Reps: 20, GBps: 32,
			CopyUS: 10, CopyGBps: 51.2, CopyRatio: 0.625},
		{Spec: "4096x4096:f16:0", Shape: []int{4096, 4096}, DType: "f16", Axis: 0, Op: "softmax", Algo: "avx512",
			Chosen: "avx512", IsChosen: true, Device: "cpu (avx512 kernels, 2 threads)", Bytes: 67108864,
			US: 4000, USP10: 3900, USP90: 4100, Reps: 20, GBps: 16.8, CopyUS: 2000, CopyGBps: 33.6, CopyRatio: 0.5},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	recs := sampleRecords()
	recs[0].Peers = map[string]float64{"torch": 40}
	recs[0].TorchUS, recs[0].VsTorch = 40, 2
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(path, recs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, recs)
	}
	data, _ := os.ReadFile(path)
	for _, key := range []string{`"shape"`, `"dtype"`, `"axis"`, `"op"`, `"algo"`, `"chosen"`, `"us"`, `"gbps"`,
		`"copy_us"`, `"copy_ratio"`, `"device"`, `"us_p10"`, `"us_p90"`, `"us_min"`, `"us_max"`, `"vs_torch"`} {
		if !bytes.Contains(data, []byte(key)) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestMergePeers(t *testing.T) {
	recs := sampleRecords()
	peers := []PeerRecord{
		{Shape: []int{64, 1000}, DType: "f32", Axis: 1, Op: "softmax", Peer: "torch", US: 40, Device: "cuda:0 X"},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "triton", US: 24},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "torch.compile", US: 32},
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "torch", US: 48}, // a slower rerun
		{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "log_softmax", Peer: "torch", US: 1},
		{Shape: []int{64, 1000}, DType: "f16", Axis: -1, Op: "softmax", Peer: "torch", US: 1},
	}
	if n := MergePeers(recs, peers); n != 2 {
		t.Errorf("MergePeers matched %d records, want 2", n)
	}
	r := recs[0] // ours: 20 µs
	if r.TorchUS != 40 || !near(r.VsTorch, 2) || r.BestPeer != "triton" || r.BestPeerUS != 24 || !near(r.VsBestPeer, 1.2) {
		t.Errorf("record 0 peers: %+v", r)
	}
	if len(r.Peers) != 3 || r.PeerDevice != "cuda:0 X" {
		t.Errorf("record 0 peer map %v, device %q", r.Peers, r.PeerDevice)
	}
	if r := recs[1]; !near(r.VsTorch, 2.5) || !near(r.VsBestPeer, 1.5) { // ours: 16 µs
		t.Errorf("record 1 peers: %+v", r)
	}
	if r := recs[2]; r.Peers != nil || r.VsTorch != 0 {
		t.Errorf("record 2 has no peers, got %+v", r)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{"vs torch", "vs best peer", "2.00×", "1.20× (triton)", "avx512*"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	if names := PeerNames(recs); !reflect.DeepEqual(names, []string{"torch", "torch.compile", "triton"}) {
		t.Errorf("PeerNames = %v", names)
	}

	// Offset tensors match the peers' timings at the same offset only.
	offset := WithOffset([]Case{{Shape: []int{64, 1000}, DType: spec.Float32, Axis: -1}}, 1)[0]
	recs = []Record{newRecord(offset, "d"), newRecord(offset, "d")}
	recs[0].US, recs[1].US, recs[1].Offset = 20, 20, 3
	peers = append(peers, PeerRecord{Shape: []int{64, 1000}, DType: "f32", Axis: -1, Op: "softmax", Peer: "torch", US: 30, Offset: 1})
	if n := MergePeers(recs, peers); n != 1 {
		t.Errorf("offset records: MergePeers matched %d, want 1 (offset 1 only)", n)
	}
	if r := recs[0]; r.TorchUS != 30 || !near(r.VsTorch, 1.5) || len(r.Peers) != 1 {
		t.Errorf("offset 1 record took %+v, want torch's offset-1 timing alone", r.Peers)
	}
	if r := recs[1]; r.Peers != nil {
		t.Errorf("offset 3 record took peers %v", r.Peers)
	}
}

func TestLoadPeersFormats(t *testing.T) {
	dir := t.TempDir()
	rec := `{"shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "torch", "us": 12.5, "copy_us": 5, "device": "d"}`
	bad := `{"shape": [64, 1000], "dtype": "f32", "axis": -1, "op": "softmax", "peer": "", "us": 1}`
	for name, text := range map[string]string{
		"array.json":   "[" + rec + "," + bad + "]",
		"wrapped.json": `{"records": [` + rec + `]}`,
		"lines.json":   rec + "\n" + bad + "\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o644)
		ps, err := LoadPeers(path)
		if err != nil || len(ps) != 1 || ps[0].US != 12.5 || ps[0].Peer != "torch" || !reflect.DeepEqual(ps[0].Shape, []int{64, 1000}) {
			t.Errorf("%s: %+v, %v", name, ps, err)
		}
	}
	path := filepath.Join(dir, "bad.json")
	os.WriteFile(path, []byte("nope"), 0o644)
	if _, err := LoadPeers(path); err == nil {
		t.Error("LoadPeers of garbage: want an error")
	}
	if _, err := LoadPeers(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("LoadPeers of a missing file: want an error")
	}
}

func TestDevices(t *testing.T) {
	for _, s := range []string{"auto", "cpu", "cpu:0", "cuda", "cuda:0", "cuda:3"} {
		if _, _, err := ParseDevice(s); err != nil {
			t.Errorf("ParseDevice(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:01", "cpu:1", ":0"} {
		if _, _, err := ParseDevice(s); err == nil {
			t.Errorf("ParseDevice(%q): want an error", s)
		}
	}
	b, err := Open("cpu")
	if err != nil || b.Kind() != "cpu" || !strings.Contains(b.Name(), "threads") {
		t.Fatalf("Open(cpu) = %v, %v", b, err)
	}
	b.Close()
	if !slices.Contains(Kinds(), "cpu") || !slices.Contains(DeviceKinds(), "cuda") {
		t.Errorf("Kinds %v, DeviceKinds %v", Kinds(), DeviceKinds())
	}
	if slices.Contains(Kinds(), "cuda") {
		t.Skip("a cuda backend is registered: the rest checks the GPU-less build")
	}
	_, err = Open("cuda:1")
	var ue *UnavailableError
	if !errors.As(err, &ue) || ue.Kind != "cuda" || !strings.HasPrefix(err.Error(), "cuda backend unavailable: ") {
		t.Errorf("Open(cuda:1) error = %v", err)
	}
	if b, err := Open("auto"); err != nil || b.Kind() != "cpu" {
		t.Errorf("Open(auto) without cuda = %v, %v", b, err)
	}
}

func TestCPUWorkload(t *testing.T) {
	b := NewCPU()
	if len(b.Algos()) == 0 || len(b.Info()) == 0 {
		t.Fatalf("CPU algos %v, info %v", b.Algos(), b.Info())
	}
	for _, s := range []string{"8x300:f32", "8x300:f16:0", "3x4x5:bf16:1:log_softmax", "8x300:f32:-1:softmax_backward", "8x300:bf16:0:log_softmax_backward"} {
		c, err := ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		w, err := b.Prepare(c, "all")
		if err != nil {
			t.Fatalf("%s: Prepare: %v", s, err)
		}
		if !slices.Contains(b.Algos(), w.Chosen()) {
			t.Errorf("%s: chosen %q not among %v", s, w.Chosen(), b.Algos())
		}
		for _, a := range append([]string{"auto"}, b.Algos()...) {
			if err := w.Run(a); err != nil {
				t.Errorf("%s: Run(%s): %v", s, a, err)
			}
			ts, err := w.Time(a, 1, 3)
			if err != nil || len(ts) != 3 {
				t.Fatalf("%s: Time(%s) = %v, %v", s, a, ts, err)
			}
			for _, v := range ts {
				if !(v > 0) {
					t.Errorf("%s: Time(%s): non-positive rep %v", s, a, v)
				}
			}
		}
		ts, err := w.TimeCopy(1, 3)
		if err != nil || len(ts) != 3 || !(Median(ts) > 0) {
			t.Errorf("%s: TimeCopy = %v, %v", s, ts, err)
		}
		if k := w.(CopyDescriber).CopyKind(); !strings.HasPrefix(k, "copy") {
			t.Errorf("%s: CopyKind %q", s, k)
		}
		if _, err := w.Time("nope", 0, 1); err == nil || IsUnsupported(err) {
			t.Errorf("%s: Time(nope): want an unknown-algo error, got %v", s, err)
		}
		if _, err := w.Time("auto", 0, 0); err == nil {
			t.Errorf("%s: Time with 0 reps: want an error", s)
		}
		w.Close()
	}
}

// The workload's inputs are random and never zero; the output is
// written by the op.
func TestCPUWorkloadData(t *testing.T) {
	c, _ := ParseSpec("16x100:bf16")
	w, err := NewCPU().Prepare(c, "auto")
	if err != nil {
		t.Fatal(err)
	}
	cw := w.(*cpuWorkload)
	if len(cw.sets) < 2 {
		t.Errorf("a small case should rotate several buffer sets, got %d", len(cw.sets))
	}
	x := cw.sets[0].a.U16
	distinct := map[uint16]bool{}
	for _, v := range x {
		if v&0x7fff == 0 {
			t.Fatal("input has a zero")
		}
		distinct[v] = true
	}
	if len(distinct) < len(x)/4 {
		t.Errorf("input is not random: %d distinct of %d", len(distinct), len(x))
	}
	if slices.Equal(cw.sets[0].a.U16, cw.sets[1].a.U16) {
		t.Error("buffer sets hold the same data")
	}
}

// Case.Offset places every tensor of a CPU workload that many elements
// into its storage, and a negative one is an error.
func TestCPUWorkloadOffset(t *testing.T) {
	for _, c := range []Case{
		{Shape: []int{100, 1000}, DType: spec.Float32, Axis: -1, Op: spec.SoftmaxBackward, Offset: 1},
		{Shape: []int{100, 1000}, DType: spec.BFloat16, Axis: -1, Op: spec.Softmax, Offset: 3},
	} {
		w, err := NewCPU().Prepare(c, "auto")
		if err != nil {
			t.Fatal(err)
		}
		set := w.(*cpuWorkload).sets[0]
		xs := []softmax.Tensor{set.a, set.b}
		if c.Op.Backward() {
			xs = append(xs, set.dy)
		}
		for _, x := range xs {
			// Storage of 100000 elements is a large object: the allocator
			// starts it on a page, so the data's address shows the offset.
			addr := uintptr(unsafe.Pointer(unsafe.SliceData(x.U16)))
			if x.F32 != nil {
				addr = uintptr(unsafe.Pointer(unsafe.SliceData(x.F32)))
			}
			if got, want := int(addr%4096), c.Offset*c.DType.Size(); got != want {
				t.Errorf("%v offset %d: data at %d bytes into a page, want %d", c, c.Offset, got, want)
			}
			if x.Len() != c.Elems() {
				t.Errorf("%v: tensor of %d elements, want %d", c, x.Len(), c.Elems())
			}
		}
		if err := w.Run("auto"); err != nil {
			t.Errorf("%v offset %d: %v", c, c.Offset, err)
		}
	}
	if _, err := NewCPU().Prepare(Case{Shape: []int{4, 4}, DType: spec.Float32, Axis: -1, Offset: -1}, "auto"); err == nil || !strings.Contains(err.Error(), "offset -1") {
		t.Errorf("offset -1: err = %v, want an error naming the offset", err)
	}
}

func TestSweep(t *testing.T) {
	b := NewCPU()
	cases, _ := ParseSpecs("4x100:f32,2x3x50:f16:1:log_softmax_backward")
	var logBuf bytes.Buffer
	steps := 0
	recs, err := Sweep(b, cases, SweepOptions{Algo: "all", Warmup: 1, Reps: 3, Log: &logBuf, Step: func(Case) { steps++ }})
	if err != nil {
		t.Fatalf("Sweep: %v (log %s)", err, logBuf.String())
	}
	if steps != 2 || len(recs) != 2*len(b.Algos()) {
		t.Fatalf("%d steps, %d records for %d algos", steps, len(recs), len(b.Algos()))
	}
	for i, c := range cases {
		chosen := 0
		for _, r := range recs[i*len(b.Algos()) : (i+1)*len(b.Algos())] {
			if r.Spec != c.String() || r.Op != c.Op.String() || r.Device != b.Name() {
				t.Errorf("record %+v does not match case %v", r, c)
			}
			if !(r.US > 0 && r.GBps > 0 && r.CopyUS > 0 && r.CopyRatio > 0) || r.Reps != 3 || r.Error != "" {
				t.Errorf("record %+v: want positive timings", r)
			}
			if r.IsChosen {
				chosen++
			}
		}
		if chosen != 1 {
			t.Errorf("case %v: %d records marked chosen, want 1", c, chosen)
		}
	}
	recs, err = Sweep(b, cases[:1], SweepOptions{Algo: "auto", Reps: 2})
	if err != nil || len(recs) != 1 || !recs[0].IsChosen {
		t.Errorf("auto sweep: %+v, %v", recs, err)
	}
	if _, err := Sweep(b, cases, SweepOptions{Algo: "bogus", Reps: 2}); err == nil {
		t.Error("unknown algo: want an error")
	}
	if _, err := Sweep(b, cases, SweepOptions{Reps: 0}); err == nil {
		t.Error("0 reps: want an error")
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil || !strings.Contains(buf.String(), "copy ratio") {
		t.Errorf("table: %v\n%s", err, buf.String())
	}
}

func TestParseAlgo(t *testing.T) {
	algos := []string{"go", "avx2"}
	if n, err := ParseAlgo("all", algos); err != nil || !reflect.DeepEqual(n, []string{"all"}) {
		t.Errorf("all: %v %v", n, err)
	}
	if n, err := ParseAlgo("go, avx2,auto", algos); err != nil || !reflect.DeepEqual(n, []string{"go", "avx2", "auto"}) {
		t.Errorf("list: %v %v", n, err)
	}
	if n, err := ParseAlgo("block_reg/t512_p2,warp_row", []string{"block_reg", "warp_row"}); err != nil || !reflect.DeepEqual(n, []string{"block_reg/t512_p2", "warp_row"}) {
		t.Errorf("a configuration: %v %v", n, err)
	}
	for _, bad := range []string{"", ",", "avx512", "go,nope", "nope/x1", "avx2/x1", "go/"} {
		if _, err := ParseAlgo(bad, algos); err == nil {
			t.Errorf("ParseAlgo(%q): want an error", bad)
		}
	}
}

// A sweep whose Stop closes keeps the cases it finished and says it was
// interrupted; one stopped before it starts times nothing.
func TestSweepStop(t *testing.T) {
	b := NewCPU()
	cases, _ := ParseSpecs("4x100:f32,2x50:f16,3x30:f32")
	stop := make(chan struct{})
	seen := 0
	recs, err := Sweep(b, cases, SweepOptions{Algo: "auto", Warmup: 0, Reps: 1, Stop: stop,
		Before: func(Case) {
			if seen++; seen == 2 {
				close(stop) // the second case still runs; the third does not
			}
		}})
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "after 2 of 3 cases") {
		t.Fatalf("err = %v, want an interruption after 2 of 3 cases", err)
	}
	if len(recs) != 2 || recs[0].Spec != cases[0].String() || recs[1].Spec != cases[1].String() {
		t.Fatalf("records %+v, want the first two cases", recs)
	}
	recs, err = Sweep(b, cases, SweepOptions{Reps: 1, Stop: stop})
	if !errors.Is(err, ErrInterrupted) || len(recs) != 0 {
		t.Fatalf("already stopped: %d records, err %v", len(recs), err)
	}
}
