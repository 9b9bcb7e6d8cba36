package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// pickRecords makes one record a SPEC: the planner's pick at us µs, with a
// copy of the same bytes at half the time.
func pickRecords(t *testing.T, specs ...string) []Record {
	t.Helper()
	var recs []Record
	for i, s := range specs {
		c, err := ParseSpec(s)
		if err != nil {
			t.Fatal(err)
		}
		r := newRecord(c, "gpu")
		r.Algo, r.Chosen, r.IsChosen = "block_reg", "block_reg", true
		r.US, r.CopyUS, r.Reps = float64(10+i), float64(10+i)/2, 20
		recs = append(recs, r)
	}
	return recs
}

// panelSpecs lists each panel's cases as SPECs, sweeps marked "sweep dD:".
func panelSpecs(cases []plotCase, panels []panel) []string {
	var out []string
	for _, p := range panels {
		var s []string
		for _, i := range p.Cases {
			c := cases[i]
			axis := c.Axis
			if axis == len(c.Shape)-1 {
				axis = -1
			}
			dt, _ := spec.ParseDType(c.DType)
			op, _ := spec.ParseOp(c.Op)
			s = append(s, (Case{Shape: c.Shape, DType: dt, Axis: axis, Op: op}).String())
		}
		head := "dots: "
		if p.Sweep {
			head = "sweep d" + string(rune('0'+p.Dim)) + ": "
		}
		out = append(out, head+strings.Join(s, ","))
	}
	return out
}

func TestGroupPanels(t *testing.T) {
	recs := pickRecords(t,
		"4096x1024:f32", "4096x256:f32", "4096x512:f32", // a sweep of columns, out of order
		"128x1024:f16",
		"2048x1024:f16", "2048x2048:f16", "2048x4096:f16",
		"4096x4096:f32:0",                   // another axis: not with the 4096×N f32 rows
		"1x16777216:f32", "1x100000000:f32", // two cases make no sweep
		"4096x2048:f32:-1:log_softmax",               // another op
		"4x16384:f16", "4x65536:f16", "4x262144:f16", // a sweep of long rows
		"1024x1024:f32", "2048x1024:f32", "8192x1024:f32:-1", // a sweep of rows; 4096x1024 is in the larger one
		"4096x2048:f32", "4096x640:f32",
	)
	cases, _ := plotCases(recs)
	panels := groupPanels(cases)
	want := []string{
		"sweep d1: 4096x256:f32,4096x512:f32,4096x640:f32,4096x1024:f32,4096x2048:f32",
		"sweep d1: 2048x1024:f16,2048x2048:f16,2048x4096:f16",
		"sweep d1: 4x16384:f16,4x65536:f16,4x262144:f16",
		"sweep d0: 1024x1024:f32,2048x1024:f32,8192x1024:f32",
		"dots: 128x1024:f16,4096x4096:f32:0,1x16777216:f32,1x100000000:f32,4096x2048:f32:-1:log_softmax",
	}
	if got := panelSpecs(cases, panels); !reflect.DeepEqual(got, want) {
		t.Errorf("panels:\n got %q\nwant %q", got, want)
	}
	if got, want := panels[0].title(cases), "4096×N f32 softmax"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if got, want := panels[0].xLabel(cases), "N (columns)"; got != want {
		t.Errorf("x label %q, want %q", got, want)
	}
	if got, want := panels[3].xLabel(cases), "N (rows)"; got != want {
		t.Errorf("x label %q, want %q", got, want)
	}
	for specs, want := range map[string]string{
		"100x10:f32:0,200x10:f32:0,300x10:f32:0":                                     "N (rows, the softmax axis)",
		"100x10:f32:0,100x20:f32:0,100x30:f32:0":                                     "N (columns)",
		"4x5x6:f16:1,4x7x6:f16:1,4x9x6:f16:1":                                        "N (dimension 1, the softmax axis)",
		"4x5x6:f16:-1:log_softmax,8x5x6:f16:-1:log_softmax,9x5x6:f16:-1:log_softmax": "N (dimension 0)",
	} {
		cases, _ := plotCases(pickRecords(t, strings.Split(specs, ",")...))
		ps := groupPanels(cases)
		if len(ps) != 1 || !ps[0].Sweep {
			t.Errorf("%s: panels %q, want one sweep", specs, panelSpecs(cases, ps))
			continue
		}
		if got := ps[0].xLabel(cases); got != want {
			t.Errorf("%s: x label %q, want %q", specs, got, want)
		}
	}
	assertEveryCaseOnce(t, cases, panels)
}

func assertEveryCaseOnce(t *testing.T, cases []plotCase, panels []panel) {
	t.Helper()
	seen := make([]int, len(cases))
	for _, p := range panels {
		if !p.Sweep && len(p.Cases) > maxDotCases {
			t.Errorf("a copy-ratio panel of %d cases (max %d)", len(p.Cases), maxDotCases)
		}
		for _, i := range p.Cases {
			seen[i]++
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("case %s is in %d panels, want 1", cases[i].label(), n)
		}
	}
}

// Cases of equal traffic all appear (the old plot kept the fastest of a
// size), and unrelated cases beyond maxDotCases fill a second panel.
func TestGroupPanelsEveryCase(t *testing.T) {
	specs := []string{"4096x1024:f32", "2048x2048:f32", "1024x4096:f32"} // 32 MB each, no shared dimension
	for i := 0; i < 20; i++ {
		specs = append(specs, fmt.Sprintf("%dx%d:f16", 2+i, 1000+i))
	}
	cases, _ := plotCases(pickRecords(t, specs...))
	if len(cases) != len(specs) {
		t.Fatalf("%d cases from %d SPECs", len(cases), len(specs))
	}
	panels := groupPanels(cases)
	assertEveryCaseOnce(t, cases, panels)
	var sizes []int
	for _, p := range panels {
		sizes = append(sizes, len(p.Cases))
	}
	if want := []int{16, 7}; !reflect.DeepEqual(sizes, want) {
		t.Errorf("panels of %v cases, want %v: %q", sizes, want, panelSpecs(cases, panels))
	}
}

// The committed final run: the tutorial columns, the 2048-row and 4-row
// f16 sweeps, and the other cases in one copy-ratio panel.
func TestGroupPanelsFinalRun(t *testing.T) {
	recs, err := ReadJSON(filepath.Join("results", "nvidia-h200-2026-11-28.json"))
	if err != nil {
		t.Skip(err)
	}
	cases, series := plotCases(recs)
	if len(cases) != 50 {
		t.Errorf("%d cases, want 50", len(cases))
	}
	if want := []string{pickSeries, "torch", "torch.compile", "triton", copySeries}; !reflect.DeepEqual(series, want) {
		t.Errorf("series %q, want %q (a run of every strategy shows the pick alone)", series, want)
	}
	panels := groupPanels(cases)
	var got []string
	for _, p := range panels {
		got = append(got, p.title(cases)+" "+string(rune('0'+len(p.Cases)/10))+string(rune('0'+len(p.Cases)%10)))
	}
	want := []string{"4096×N f32 softmax 28", "2048×N f16 softmax 04", "4×N f16 softmax 07", "copy ratio by case 11"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("panels %q, want %q", got, want)
	}
	assertEveryCaseOnce(t, cases, panels)
}

func TestPlotSeries(t *testing.T) {
	base := pickRecords(t, "64x1000:f32", "64x2000:f32")
	// Two strategies beside the pick: a line each.
	recs := slices.Clone(base)
	for _, r := range base {
		for _, a := range []string{"warp_row", "block_vec"} {
			r.Algo, r.IsChosen, r.US = a, false, r.US*2
			recs = append(recs, r)
		}
	}
	recs[0].Peers = map[string]float64{"jax": 30, "triton": 20, "torch": 40, "cudnn": 25, "zeta": 50}
	cases, series := plotCases(recs)
	want := []string{pickSeries, "forced block_vec", "forced warp_row", "torch", "triton", "cudnn", "jax", "zeta", copySeries}
	if !reflect.DeepEqual(series, want) {
		t.Errorf("series %q, want %q", series, want)
	}
	if got := cases[0].ratio("cudnn"); got != 5.0/25 {
		t.Errorf("cudnn's copy ratio %v, want %v", got, 5.0/25)
	}
	if got := cases[1].gbps(copySeries); got != rate(cases[1].Bytes, 5.5) {
		t.Errorf("copy GB/s %v", got)
	}
	// Five strategies beside the pick: the pick alone.
	recs = slices.Clone(base)
	for _, a := range []string{"a", "b", "c", "d", "e"} {
		r := base[0]
		r.Algo, r.IsChosen = a, false
		recs = append(recs, r)
	}
	cases, series = plotCases(recs)
	if want := []string{pickSeries, copySeries}; !reflect.DeepEqual(series, want) {
		t.Errorf("series %q, want %q", series, want)
	}
	if len(cases[0].Times) != 1 {
		t.Errorf("times %v: want the pick's alone", cases[0].Times)
	}
	// Forced strategies without the pick: each drawn, however many.
	recs = nil
	for _, a := range []string{"a", "b", "c", "d", "e"} {
		r := base[0]
		r.Algo, r.IsChosen = a, false
		recs = append(recs, r)
	}
	if _, series = plotCases(recs); len(series) != 6 {
		t.Errorf("series %q: want the five strategies and the copy", series)
	}
	// A failed timing is no case.
	recs = pickRecords(t, "64x1000:f32")
	recs[0].US = 0
	if cases, _ = plotCases(recs); len(cases) != 0 {
		t.Errorf("a failed timing made %d cases", len(cases))
	}
}

func TestWritePlot(t *testing.T) {
	recs := pickRecords(t, "4096x256:f32", "4096x512:f32", "4096x1024:f32", "128x32000:f32:-1:log_softmax", "4096x4096:f32:0")
	MergePeers(recs, []PeerRecord{
		{Shape: []int{4096, 512}, DType: "f32", Axis: -1, Op: "softmax", Peer: "triton", US: 30, Device: "cuda:0 X (torch 2)"},
		{Shape: []int{4096, 4096}, DType: "f32", Axis: 0, Op: "softmax", Peer: "cudnn", US: 300},
	})
	dir := t.TempDir()
	svg := filepath.Join(dir, "plot.svg")
	if err := WritePlot(svg, recs); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("<svg")) {
		t.Fatalf("not an SVG: %.200s", data)
	}
	for _, s := range []string{pickSeries, "copy", "triton", "cudnn", "4096×N f32 softmax", "4096×4096 f32 axis 0",
		"128×32000 f32 log_softmax", "peers on cuda:0 X (torch 2)", "GB/s"} {
		if !bytes.Contains(data, []byte(s)) {
			t.Errorf("plot lacks %q", s)
		}
	}
	png := filepath.Join(dir, "plot.png")
	if err := WritePlot(png, recs[:1]); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(png); !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("not a PNG: %.20q", data)
	}
	if err := WritePlot(filepath.Join(dir, "none.svg"), nil); err == nil {
		t.Error("plot of no records: want an error")
	}
	if err := WritePlot(filepath.Join(dir, "x.nope"), recs); err == nil {
		t.Error("plot to an unknown format: want an error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}

func TestTicks(t *testing.T) {
	for v, want := range map[float64]string{256: "256", 1024: "1024", 8192: "8192", 16384: "16k", 32768: "32k",
		1 << 20: "1M", 33554432: "32M", 3000: "3000", 100000000: "100000000"} {
		if got := formatCount(v); got != want {
			t.Errorf("formatCount(%v) = %q, want %q", v, got, want)
		}
	}
	var labels []string
	for _, tk := range (pow2Ticks{}).Ticks(200, 40000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"256", "512", "1024", "2048", "4096", "8192", "16k", "32k"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("pow2 labels %q, want %q", labels, want)
	}
	labels = nil
	for _, tk := range (ratioTicks{}).Ticks(0.004, 1.3) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("ratio labels %q, want %q", labels, want)
	}
}
