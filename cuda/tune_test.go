package cuda

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

var fakeH100 = plan.Device{Name: "NVIDIA H100 80GB HBM3", Major: 9, Minor: 0, SMs: 132, L2Bytes: 50 << 20,
	SmemPerBlock: 48 << 10, SmemOptin: 227 << 10, SmemPerSM: 228 << 10,
	MaxThreadsPerSM: 2048, MaxThreadsPerBlock: 1024, Cluster: true}

func prob(outer, axis, inner int64, dt spec.DType, op spec.Op, aligned bool) plan.Problem {
	return plan.Problem{Outer: outer, Axis: axis, Inner: inner, DType: dt, Op: op, Aligned: aligned}
}

func TestCeilPow2(t *testing.T) {
	for n, want := range map[int64]int64{0: 1, 1: 1, 2: 2, 3: 4, 4: 4, 5: 8, 4096: 4096, 4097: 8192, 32000: 32768, 1 << 40: 1 << 40} {
		if got := ceilPow2(n); got != want {
			t.Errorf("ceilPow2(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestShapeClass(t *testing.T) {
	f32, f16, bf16 := spec.Float32, spec.Float16, spec.BFloat16
	sm := spec.Softmax
	cases := []struct {
		p    plan.Problem
		want string
	}{
		{prob(4096, 65536, 1, f32, sm, true), "rows<=4096 cols<=65536 vec16"},
		{prob(3000, 40000, 1, f32, sm, true), "rows<=4096 cols<=65536 vec16"},
		{prob(4097, 65540, 1, f32, sm, true), "rows<=8192 cols<=131072 vec16"},
		{prob(128, 32000, 1, f16, sm, true), "rows<=128 cols<=32768 vec16"},
		{prob(128, 1001, 1, f32, sm, true), "rows<=128 cols<=1024 scalar"},   // rows not whole 16-byte packs
		{prob(128, 1004, 1, f16, sm, true), "rows<=128 cols<=1024 scalar"},   // 1004 % 8 != 0
		{prob(128, 1004, 1, f32, sm, true), "rows<=128 cols<=1024 vec16"},    // 1004 % 4 == 0
		{prob(128, 1024, 1, f32, sm, false), "rows<=128 cols<=1024 scalar"},  // misaligned pointers
		{prob(1, 1000003, 1, bf16, sm, true), "rows<=1 cols<=1048576 vec16"}, // a single row is aligned
		{prob(2, 100, 6, f32, sm, true), "strided slices<=16 axis<=128 inner<=8 scalar"},
		{prob(2, 100, 8, f32, sm, true), "strided slices<=16 axis<=128 inner<=8 vec16"},
		{prob(2, 100, 8, f16, sm, true), "strided slices<=16 axis<=128 inner<=8 vec16"},
		{prob(2, 100, 4, f16, sm, true), "strided slices<=8 axis<=128 inner<=4 scalar"},
		{prob(2048, 3, 4096, f32, sm, false), "strided slices<=8388608 axis<=4 inner<=4096 scalar"},
	}
	for _, c := range cases {
		if got := shapeClass(c.p); got != c.want {
			t.Errorf("shapeClass(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestTuneKey(t *testing.T) {
	p := prob(4096, 65536, 1, spec.Float32, spec.Softmax, true)
	if got, want := tuneKey(fakeH100, p), "NVIDIA H100 80GB HBM3 sm_90|f32|softmax|rows<=4096 cols<=65536 vec16"; got != want {
		t.Errorf("tuneKey = %q, want %q", got, want)
	}
	// Every component separates entries.
	other := fakeH100
	other.Minor = 1
	variants := []string{tuneKey(fakeH100, p), tuneKey(other, p)}
	other = fakeH100
	other.Name = "NVIDIA H200"
	variants = append(variants, tuneKey(other, p))
	for _, q := range []plan.Problem{
		prob(4096, 65536, 1, spec.Float16, spec.Softmax, true),
		prob(4096, 65536, 1, spec.Float32, spec.LogSoftmax, true),
		prob(4096, 65536, 1, spec.Float32, spec.SoftmaxBackward, true),
		prob(8192, 65536, 1, spec.Float32, spec.Softmax, true),
		prob(4096, 65536, 1, spec.Float32, spec.Softmax, false),
		prob(4096, 65536, 2, spec.Float32, spec.Softmax, true),
	} {
		variants = append(variants, tuneKey(fakeH100, q))
	}
	seen := map[string]bool{}
	for _, k := range variants {
		if seen[k] {
			t.Errorf("key %q produced twice", k)
		}
		seen[k] = true
	}
	// The same class gives the same key.
	if a, b := tuneKey(fakeH100, p), tuneKey(fakeH100, prob(2049, 32772, 1, spec.Float32, spec.Softmax, true)); a != b {
		t.Errorf("same class, different keys: %q, %q", a, b)
	}
}

func TestTuneCaseProblem(t *testing.T) {
	p, err := TuneCase{Shape: []int{8, 100, 6}, DType: softmax.Float16, Axis: 1, Op: softmax.OpLogSoftmax}.problem()
	if err != nil {
		t.Fatal(err)
	}
	if want := prob(8, 100, 6, spec.Float16, spec.LogSoftmax, true); p != want {
		t.Errorf("problem = %+v, want %+v", p, want)
	}
	for _, c := range []struct {
		c    TuneCase
		want string
	}{
		{TuneCase{Shape: []int{4, 8}, DType: softmax.Float32, Axis: 2}, "out of range"},
		{TuneCase{Shape: []int{0, 8}, DType: softmax.Float32, Axis: -1}, "empty"},
		{TuneCase{Shape: []int{4, 8}, DType: softmax.DType(9), Axis: -1}, "dtype"},
		{TuneCase{Shape: []int{4, 8}, DType: softmax.Float32, Axis: -1, Op: softmax.Op(9)}, "op"},
	} {
		if _, err := c.c.problem(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.c, err, c.want)
		}
	}
}

func TestMakeEntry(t *testing.T) {
	p := prob(4096, 8192, 1, spec.Float16, spec.LogSoftmax, true)
	c := TuneCase{Shape: []int{4096, 8192}, DType: softmax.Float16, Axis: -1, Op: softmax.OpLogSoftmax}
	timings := []TuneTiming{{"online_2pass", 100}, {"naive", 900}, {"block_smem", 80}, {"block_reg", 85}}
	e := makeEntry(fakeH100, p, c, "online_2pass", timings, 20)
	if e.Strategy != "block_smem" || e.US != 80 || e.Default != "online_2pass" || e.DefaultUS != 100 {
		t.Errorf("entry %+v: want block_smem 80 µs over online_2pass 100 µs", e)
	}
	if got := e.Speedup(); math.Abs(got-1.25) > 1e-12 {
		t.Errorf("speedup %v, want 1.25", got)
	}
	var order []string
	for _, c := range e.Candidates {
		order = append(order, c.Strategy)
	}
	if want := []string{"block_smem", "block_reg", "online_2pass", "naive"}; !slices.Equal(order, want) {
		t.Errorf("candidates %v, want fastest first %v", order, want)
	}
	if timings[0].Strategy != "online_2pass" {
		t.Error("makeEntry reordered its argument")
	}
	if e.Device != fakeH100.Name || e.Arch != "sm_90" || e.DType != "f16" || e.Op != "log_softmax" ||
		e.Class != "rows<=4096 cols<=8192 vec16" || !slices.Equal(e.Shape, c.Shape) || e.Axis != -1 || e.Reps != 20 || e.TunedAt.IsZero() {
		t.Errorf("entry fields %+v", e)
	}
	// Within 1% of the fastest, the planner's default stays.
	e = makeEntry(fakeH100, p, c, "online_2pass", []TuneTiming{{"online_2pass", 100.5}, {"block_smem", 100}}, 20)
	if e.Strategy != "online_2pass" || e.US != 100.5 || e.Speedup() != 1 {
		t.Errorf("default within the margin: %+v, want online_2pass kept", e)
	}
	// A default that could not be timed: 0 µs, no speedup.
	e = makeEntry(fakeH100, p, c, "split_row", []TuneTiming{{"online_2pass", 100}}, 20)
	if e.Strategy != "online_2pass" || e.DefaultUS != 0 || e.Speedup() != 0 {
		t.Errorf("untimed default: %+v", e)
	}
}

// testEntry is a cache entry for a key of fakeH100.
func testEntry(p plan.Problem, strategy string, us float64) (string, TuneEntry) {
	return tuneKey(fakeH100, p), TuneEntry{Device: fakeH100.Name, Arch: "sm_90", DType: p.DType.String(), Op: p.Op.String(),
		Class: shapeClass(p), Shape: []int{int(p.Outer), int(p.Axis)}, Axis: -1, Strategy: strategy, US: us,
		Default: "online_2pass", DefaultUS: us * 1.5, Candidates: []TuneTiming{{strategy, us}, {"online_2pass", us * 1.5}},
		Reps: 20, TunedAt: time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)}
}

func testResult(p plan.Problem, strategy string, us float64) TuneResult {
	k, e := testEntry(p, strategy, us)
	return TuneResult{Key: k, Entry: e}
}

// warnings records a cache's warnings.
type warnings []string

func (w *warnings) cache(path string) *tuneCache {
	return &tuneCache{path: path, warnf: func(f string, a ...any) { *w = append(*w, fmt.Sprintf(f, a...)) }}
}

func TestTuneCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "tuned.tsv")
	var w warnings
	c := w.cache(path)
	r1 := testResult(prob(4096, 65536, 1, spec.Float32, spec.Softmax, true), "split_row", 310.25)
	r2 := testResult(prob(128, 32000, 1, spec.BFloat16, spec.LogSoftmax, true), "block_reg", 12.5)
	got, n, err := c.save([]TuneResult{r1, r2})
	if err != nil || got != path || n != 2 {
		t.Fatalf("save = %q, %d, %v; want %q, 2, nil", got, n, err, path)
	}
	// The file: table rows (the planner's overlay schema) by key, nothing
	// else left in the directory.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := plan.ParseOverlay(string(b))
	if err != nil || len(rows) != 2 || rows[0].ID != r1.Key && rows[1].ID != r1.Key {
		t.Fatalf("file %s: %d rows, err %v:\n%s", path, len(rows), err, b)
	}
	for _, r := range rows {
		if r.Layout != "rows" || !slices.Contains(r.Paths, "vec") || len(r.Cands) != 1 || !strings.Contains(r.Evidence, "us=") {
			t.Errorf("row %v", r.Cells())
		}
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("directory holds %v, want only tuned.tsv", ents)
	}
	// A fresh reader (another process) sees the same entries.
	entries, err := readTuneFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(entries, map[string]TuneEntry{r1.Key: r1.Entry, r2.Key: r2.Entry}) {
		t.Errorf("read back %+v,\nwant %+v", entries, []TuneEntry{r1.Entry, r2.Entry})
	}
	fresh := w.cache(path)
	if e, ok := fresh.lookup(r2.Key); !ok || !reflect.DeepEqual(e, r2.Entry) {
		t.Errorf("lookup(%q) = %+v, %v", r2.Key, e, ok)
	}
	if _, ok := fresh.lookup("NVIDIA H100 80GB HBM3 sm_90|f32|softmax|rows<=1 cols<=1 vec16"); ok {
		t.Error("lookup of an absent key found an entry")
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestTuneCacheMerge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuned.tsv")
	var w warnings
	a := testResult(prob(4096, 65536, 1, spec.Float32, spec.Softmax, true), "split_row", 300)
	b := testResult(prob(128, 32000, 1, spec.Float16, spec.Softmax, true), "warp_row", 10)
	b2 := testResult(prob(128, 32000, 1, spec.Float16, spec.Softmax, true), "block_reg", 9)
	cc := testResult(prob(2, 100, 1, spec.Float32, spec.SoftmaxBackward, true), "naive", 3)
	d := testResult(prob(64, 1<<20, 1, spec.Float32, spec.LogSoftmax, true), "split_cluster", 50)

	p1 := w.cache(path)
	if _, n, err := p1.save([]TuneResult{a, b}); err != nil || n != 2 {
		t.Fatalf("first save: %d entries, %v", n, err)
	}
	if e, ok := p1.lookup(b.Key); !ok || e.Strategy != "warp_row" {
		t.Fatalf("after the first save: %+v, %v", e, ok)
	}
	// Another process replaces b and adds cc.
	p2 := w.cache(path)
	if _, n, err := p2.save([]TuneResult{b2, cc}); err != nil || n != 3 {
		t.Fatalf("second save: %d entries, %v; want 3", n, err)
	}
	// The first process saves d: the file is re-read, so b2 and cc stay.
	if _, n, err := p1.save([]TuneResult{d}); err != nil || n != 4 {
		t.Fatalf("third save: %d entries, %v; want 4", n, err)
	}
	entries, err := readTuneFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{a.Key: "split_row", b.Key: "block_reg", cc.Key: "naive", d.Key: "split_cluster"}
	got := map[string]string{}
	for k, e := range entries {
		got[k] = e.Strategy
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged file %v, want %v", got, want)
	}
	// Saving updates the saver's own view at once.
	if e, ok := p1.lookup(b.Key); !ok || e.Strategy != "block_reg" {
		t.Errorf("p1 after its save: %+v, %v; want block_reg", e, ok)
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestTuneCacheCorrupt(t *testing.T) {
	key, e := testEntry(prob(4096, 65536, 1, spec.Float32, spec.Softmax, true), "split_row", 300)
	noStrategy := e
	noStrategy.Strategy = ""
	valid, _ := json.Marshal(tuneFile{Version: 1, Entries: map[string]TuneEntry{key: e}})
	future, _ := json.Marshal(tuneFile{Version: 2, Entries: map[string]TuneEntry{key: e}})
	empty, _ := json.Marshal(tuneFile{Version: 1, Entries: map[string]TuneEntry{key: noStrategy}})
	row, err := entryRow(key, e)
	if err != nil {
		t.Fatal(err)
	}
	hdr := plan.TableHeader() + "\n"
	for _, c := range []struct {
		name, file, data, want string
	}{
		{"garbage", "tuned.tsv", "not a table {", "corrupt"},
		{"empty file", "tuned.tsv", "", "no header"},
		{"truncated", "tuned.tsv", hdr + row[:len(row)/2], "corrupt"},
		{"no strategy", "tuned.tsv", hdr + strings.Replace(row, "\tsplit_row\t", "\t\t", 1), "one strategy"},
		{"bad timing", "tuned.tsv", hdr + strings.Replace(row, "us=300", "us=fast", 1), "invalid syntax"},
		{"bad key", "tuned.tsv", hdr + strings.Replace(row, " sm_90|", "|", 1), "DEVICE sm_NN"},
		// the legacy JSON file, read where no tuned.tsv exists
		{"json garbage", "tuned.json", "not json {", "corrupt"},
		{"json empty file", "tuned.json", "", "corrupt"},
		{"json truncated", "tuned.json", string(valid[:len(valid)/2]), "corrupt"},
		{"json wrong type", "tuned.json", `{"version": 1, "entries": [1, 2]}`, "corrupt"},
		{"json future version", "tuned.json", string(future), "version 2, want 1"},
		{"json no strategy", "tuned.json", string(empty), "has no strategy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path, bad := filepath.Join(dir, "tuned.tsv"), filepath.Join(dir, c.file)
			if err := os.WriteFile(bad, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			var w warnings
			tc := w.cache(path)
			for range 3 {
				if e, ok := tc.lookup(key); ok {
					t.Fatalf("lookup in a corrupt cache found %+v", e)
				}
			}
			if _, ok := plannedBy(tc, prob(4096, 65536, 1, spec.Float32, spec.Softmax, true), fakeH100); ok {
				t.Error("plan used a corrupt cache")
			}
			if len(w) != 1 || !strings.Contains(w[0], c.want) || !strings.Contains(w[0], bad) || !strings.Contains(w[0], "ignored") {
				t.Fatalf("warnings %q, want one naming %s and %q", w, bad, c.want)
			}
			if _, err := readTuneFile(path); err == nil {
				t.Error("readTuneFile accepted it")
			}
			// Tuning over it writes tuned.tsv (replacing a corrupt one), with a
			// warning; a legacy tuned.json is left as it was.
			r := testResult(prob(8, 8, 1, spec.Float32, spec.Softmax, true), "warp_row", 2)
			if _, n, err := tc.save([]TuneResult{r}); err != nil || n != 1 {
				t.Fatalf("save over a corrupt file: %d entries, %v", n, err)
			}
			if len(w) != 2 || !strings.Contains(w[1], "replacing") {
				t.Errorf("warnings %q, want a second one saying the file is replaced", w)
			}
			if entries, err := readTuneFile(path); err != nil || len(entries) != 1 || entries[r.Key].Strategy != "warp_row" {
				t.Errorf("after the save: %v, %v", entries, err)
			}
			if b, _ := os.ReadFile(bad); c.file == "tuned.json" && string(b) != c.data {
				t.Errorf("the legacy file was rewritten: %q", b)
			}
		})
	}
}

// TestTuneCacheLegacy: a tuned.json of earlier versions is read where no
// tuned.tsv exists, its entries kept by the next save into tuned.tsv.
func TestTuneCacheLegacy(t *testing.T) {
	dir := t.TempDir()
	k1, e1 := testEntry(prob(4096, 65536, 1, spec.Float32, spec.Softmax, true), "split_row", 300)
	old, _ := json.Marshal(tuneFile{Version: 1, Entries: map[string]TuneEntry{k1: e1}})
	if err := os.WriteFile(filepath.Join(dir, "tuned.json"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	var w warnings
	c := w.cache(filepath.Join(dir, "tuned.tsv"))
	if e, ok := c.lookup(k1); !ok || !reflect.DeepEqual(e, e1) {
		t.Fatalf("legacy lookup = %+v, %v", e, ok)
	}
	r2 := testResult(prob(128, 32000, 1, spec.BFloat16, spec.LogSoftmax, true), "block_reg", 12.5)
	if _, n, err := c.save([]TuneResult{r2}); err != nil || n != 2 {
		t.Fatalf("save: %d entries, %v; want 2", n, err)
	}
	entries, err := readTuneFile(filepath.Join(dir, "tuned.tsv"))
	if err != nil || !reflect.DeepEqual(entries, map[string]TuneEntry{k1: e1, r2.Key: r2.Entry}) {
		t.Errorf("tuned.tsv holds %+v, %v", entries, err)
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestTuneCacheMissingOrUnreadable(t *testing.T) {
	dir := t.TempDir()
	var w warnings
	c := w.cache(filepath.Join(dir, "absent", "tuned.tsv"))
	if _, ok := c.lookup("x"); ok {
		t.Error("a missing file gave an entry")
	}
	if len(w) != 0 {
		t.Errorf("a missing file warned: %q", w)
	}
	// A directory where the file should be: unreadable, one warning, ignored.
	bad := filepath.Join(dir, "isdir")
	if err := os.Mkdir(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	c = w.cache(bad)
	c.lookup("x")
	c.lookup("y")
	if len(w) != 1 || !strings.Contains(w[0], "reading the autotuning cache") {
		t.Errorf("warnings %q, want one about reading", w)
	}
	if _, _, err := c.save([]TuneResult{testResult(prob(8, 8, 1, spec.Float32, spec.Softmax, true), "warp_row", 2)}); err == nil {
		t.Error("save over a directory succeeded")
	}
}

func TestTunedPlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuned.tsv")
	var w warnings
	c := w.cache(path)
	served := prob(3000, 6000, 1, spec.Float32, spec.Softmax, true)
	huge := prob(64, 1<<24, 1, spec.Float32, spec.Softmax, true)
	gone := prob(64, 1000, 1, spec.Float16, spec.LogSoftmax, true)
	rs := []TuneResult{testResult(served, "naive", 10), testResult(huge, "warp_row", 10), testResult(gone, "retired_kernel", 10)}
	if _, _, err := c.save(rs); err != nil {
		t.Fatal(err)
	}
	// The stored strategy serves the problem: its plan, marked tuned.
	pl, ok := plannedBy(c, served, fakeH100)
	if !ok || pl.Strategy != "naive" || !strings.HasPrefix(pl.Reason, "tuned:rows<=4096 cols<=8192 vec16 [tuned.tsv: ") {
		t.Errorf("plan(served) = %s %q, %v; want naive, tuned", pl.Strategy, pl.Reason, ok)
	}
	forced, err := plan.Make(served, fakeH100, nil, "naive")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pl.Launches, forced.Launches) {
		t.Errorf("tuned launches %+v differ from forced naive %+v", pl.Launches, forced.Launches)
	}
	// The overlay: the device's winners as rows ahead of the shipped table.
	tb, err := plan.TableFor(plan.ModelOf(fakeH100), c.overlay(fakeH100))
	if err != nil || len(tb.Rows) < len(rs) {
		t.Fatalf("tuned table: %d rows, %v", len(tb.Rows), err)
	}
	var ids []string
	for _, r := range tb.Rows[:len(rs)] {
		ids = append(ids, r.ID+" "+r.Cands[0])
	}
	if !slices.Contains(ids, "tuned:rows<=4096 cols<=8192 vec16 naive") {
		t.Errorf("tuned table's first rows %q, want the served entry's among them", ids)
	}
	// Another shape of the same class uses the entry too.
	if pl, ok := plannedBy(c, prob(2100, 4500, 1, spec.Float32, spec.Softmax, true), fakeH100); !ok || pl.Strategy != "naive" {
		t.Errorf("same class: %s, %v", pl.Strategy, ok)
	}
	// A strategy that cannot plan the problem (rows far beyond warp_row's
	// registers) or is no longer known: the planner decides.
	for _, p := range []plan.Problem{huge, gone} {
		if pl, ok := plannedBy(c, p, fakeH100); ok {
			t.Errorf("stale entry for %+v used: %s %q", p, pl.Strategy, pl.Reason)
		}
	}
	// Other devices, dtypes, ops and classes find nothing.
	other := fakeH100
	other.Name = "NVIDIA A100"
	for _, q := range []struct {
		p plan.Problem
		d plan.Device
	}{
		{served, other},
		{prob(3000, 6000, 1, spec.Float16, spec.Softmax, true), fakeH100},
		{prob(3000, 6000, 1, spec.Float32, spec.LogSoftmax, true), fakeH100},
		{prob(3000, 9000, 1, spec.Float32, spec.Softmax, true), fakeH100},
		{prob(3000, 6001, 1, spec.Float32, spec.Softmax, true), fakeH100},
	} {
		if pl, ok := plannedBy(c, q.p, q.d); ok {
			t.Errorf("%+v on %s: used %s", q.p, q.d.Name, pl.Strategy)
		}
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}

func TestTuneCachePath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOFTMAX_CACHE_DIR", dir)
	if p, err := TuneCachePath(); err != nil || p != filepath.Join(dir, "tuned.tsv") {
		t.Errorf("with SOFTMAX_CACHE_DIR: %q, %v", p, err)
	}
	t.Setenv("SOFTMAX_CACHE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("HOME", dir)
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache dir: ", err)
	}
	if p, err := TuneCachePath(); err != nil || p != filepath.Join(base, "gofused-softmax", "tuned.tsv") {
		t.Errorf("default: %q, %v", p, err)
	}
	// ReadTuneCache: a missing file is no error and no entries.
	path, entries, err := ReadTuneCache()
	if err != nil || len(entries) != 0 || path != filepath.Join(base, "gofused-softmax", "tuned.tsv") {
		t.Errorf("ReadTuneCache = %q, %v, %v", path, entries, err)
	}
}

// Tune on the GPU: every strategy is timed or skipped with its reason, the
// winner is the fastest (or the default within 1%), and after SaveTuned
// Options.Tuned plans the winner and computes the right values.
func TestTune(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	defaultTuneCache.reset()
	path := filepath.Join(t.TempDir(), "tuned.tsv")
	defaultTuneCache.path = path
	t.Cleanup(defaultTuneCache.reset)

	if _, err := d.Tune([]TuneCase{{Shape: []int{0, 8}, DType: softmax.Float32, Axis: -1}}, TuneOptions{}); err == nil {
		t.Error("an empty case was tuned")
	}
	if _, err := d.Tune(nil, TuneOptions{Strategies: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
		t.Errorf("unknown strategy: err = %v", err)
	}

	cases := []TuneCase{
		{Shape: []int{256, 1000}, DType: softmax.Float32, Axis: -1, Op: softmax.OpSoftmax},
		{Shape: []int{64, 8192}, DType: softmax.Float16, Axis: -1, Op: softmax.OpLogSoftmax},
		{Shape: []int{8, 100, 33}, DType: softmax.Float32, Axis: 1, Op: softmax.OpSoftmax},
		{Shape: []int{512, 2048}, DType: softmax.BFloat16, Axis: -1, Op: softmax.OpSoftmaxBackward},
	}
	rs, err := d.Tune(cases, TuneOptions{Reps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rs), len(cases))
	}
	for i, r := range rs {
		e := r.Entry
		t.Logf("%v: %s %.2f µs (default %s %.2f µs), %d timed, skipped %q", r.Case, e.Strategy, e.US, e.Default, e.DefaultUS, len(e.Candidates), r.Skipped)
		if key, _ := d.TuneKey(cases[i]); r.Key != key || !reflect.DeepEqual(r.Case, cases[i]) {
			t.Errorf("result %d: key %q case %v, want %q %v", i, r.Key, r.Case, key, cases[i])
		}
		def, err := d.Plan(r.Case.Op, r.Case.DType, r.Case.Shape, Options{Axis: r.Case.Axis})
		if err != nil {
			t.Fatal(err)
		}
		if e.Default != def.Strategy || e.DefaultUS <= 0 || e.Reps != MinTuneReps || e.Device != d.Name() || e.Arch != d.Props().Arch() {
			t.Errorf("%v: entry %+v", r.Case, e)
		}
		// Every strategy and launch configuration is timed or skipped, once.
		var names []string
		for j, c := range e.Candidates {
			names = append(names, c.Strategy)
			if !(c.US > 0) || (j > 0 && c.US < e.Candidates[j-1].US) {
				t.Errorf("%v: candidates not positive and ascending: %+v", r.Case, e.Candidates)
			}
			if c.Strategy == e.Default && c.US != e.DefaultUS {
				t.Errorf("%v: default timed %v and %v", r.Case, c.US, e.DefaultUS)
			}
		}
		for _, s := range r.Skipped {
			name, why, _ := strings.Cut(s, ": ")
			names = append(names, name)
			if strings.Contains(why, "cannot serve") {
				if _, err := d.Plan(r.Case.Op, r.Case.DType, r.Case.Shape, Options{Axis: r.Case.Axis, Algo: name}); err == nil {
					t.Errorf("%v: %s skipped as unable to serve, but it plans", r.Case, name)
				}
			}
		}
		slices.Sort(names)
		prob, _ := r.Case.problem()
		if want := slices.Sorted(slices.Values(tuneCandidates(def.Strategy, prob, d.planDevice(), nil))); !slices.Equal(names, want) {
			t.Errorf("%v: timed + skipped = %v, want each of %v once", r.Case, names, want)
		}
		if best := e.Candidates[0]; e.Strategy != best.Strategy && (e.Strategy != e.Default || e.US > best.US*(1+tuneMargin)) {
			t.Errorf("%v: winner %s %.2f µs, fastest %s %.2f µs", r.Case, e.Strategy, e.US, best.Strategy, best.US)
		}
	}

	saved, n, err := SaveTuned(rs)
	if err != nil || saved != path || n != len(rs) {
		t.Fatalf("SaveTuned = %q, %d, %v", saved, n, err)
	}
	for _, r := range rs {
		c := r.Case
		pl, err := d.Plan(c.Op, c.DType, c.Shape, Options{Axis: c.Axis, Tuned: true})
		// The winner, at its configuration when it names one, runs.
		forced, ferr := d.Plan(c.Op, c.DType, c.Shape, Options{Axis: c.Axis, Algo: r.Entry.Strategy})
		strategy, _, _ := strings.Cut(r.Entry.Strategy, plan.ConfigSep)
		if err != nil || ferr != nil || pl.Strategy != strategy || !reflect.DeepEqual(pl.Launches, forced.Launches) || !strings.HasPrefix(pl.Reason, "tuned") {
			t.Errorf("%v with Tuned: %s %+v %q, %v; want %s's launches %+v (tuned), %v", c, pl.Strategy, pl.Launches, pl.Reason, err, r.Entry.Strategy, forced.Launches, ferr)
		}
		if c.DType != softmax.Float32 || c.Op.Backward() {
			continue
		}
		h, _ := softmax.NewTensor(c.DType, c.Shape...)
		for i := range h.F32 {
			h.F32[i] = float32(math.Sin(float64(i) * 0.37))
		}
		want, _ := softmax.NewTensor(c.DType, c.Shape...)
		got, _ := softmax.NewTensor(c.DType, c.Shape...)
		if err := softmax.Apply(c.Op, want, h, softmax.Options{Axis: c.Axis}); err != nil {
			t.Fatal(err)
		}
		if err := d.ApplyHost(c.Op, got, h, Options{Axis: c.Axis, Tuned: true}); err != nil {
			t.Fatalf("%v with Tuned: %v", c, err)
		}
		for i := range got.F32 {
			if math.Abs(float64(got.F32[i]-want.F32[i])) > 1e-6 {
				t.Fatalf("%v with Tuned (%s): y[%d] = %v, want %v", c, r.Entry.Strategy, i, got.F32[i], want.F32[i])
			}
		}
	}
}

// plannedBy is tuneCache.plan with the planner's rules and no occupancy
// queries behind it.
func plannedBy(c *tuneCache, p plan.Problem, dev plan.Device) (plan.Plan, bool) {
	return c.plan(p, dev, func(s string) (plan.Plan, error) { return plan.Make(p, dev, nil, s) })
}

// Tune's candidates: the default and its configurations first, every
// strategy once, each configurable one followed by its launch
// configurations; a restriction keeps the default and the listed
// strategies, with their configurations.
func TestTuneCandidates(t *testing.T) {
	dev := plan.Models["h200"]
	p := prob(4096, 4096, 1, spec.Float32, spec.Softmax, true)
	got := tuneCandidates("block_reg", p, dev, nil)
	if got[0] != "block_reg" {
		t.Fatalf("first candidate %s, want the default", got[0])
	}
	for _, s := range Strategies() {
		if n := strings.Count(" "+strings.Join(got, " ")+" ", " "+s+" "); n != 1 {
			t.Errorf("strategy %s listed %d times in %v", s, n, got)
		}
	}
	i := slices.Index(got, "block_reg")
	if want := []string{"block_reg/t128_p8", "block_reg/t256_p4", "block_reg/t512_p2", "block_reg/t1024_p1"}; !slices.Equal(got[i+1:i+5], want) {
		t.Errorf("after block_reg: %v, want %v", got[i+1:], want)
	}
	got = tuneCandidates("block_reg", prob(4096, 256, 1, spec.Float32, spec.Softmax, true), dev, []string{"warp_row"})
	want := []string{"block_reg", "block_reg/t32_p2", "block_reg/t64_p1", "warp_row", "warp_row/w32_p2"}
	if !slices.Equal(got, want) {
		t.Errorf("restricted to warp_row: %v, want %v", got, want)
	}
}

// A winner at a launch configuration ("block_reg/t512_p2") plans that
// configuration's kernel for its shape class.
func TestTunedConfiguration(t *testing.T) {
	var w warnings
	c := w.cache(filepath.Join(t.TempDir(), "tuned.tsv"))
	p := prob(4096, 4096, 1, spec.Float32, spec.Softmax, true)
	if _, _, err := c.save([]TuneResult{testResult(p, "block_reg/t512_p2", 10)}); err != nil {
		t.Fatal(err)
	}
	pl, ok := plannedBy(c, p, fakeH100)
	if !ok || pl.Strategy != "block_reg" || pl.Launches[0].Symbol != "block_reg_fwd_f32_t512_p2" || pl.Launches[0].Block[0] != 512 {
		t.Errorf("tuned plan %s %+v (%q), %v; want block_reg's t512_p2", pl.Strategy, pl.Launches, pl.Reason, ok)
	}
	// 3000 columns, the same class: 750 packs still fit 512 threads × 2.
	if pl, ok := plannedBy(c, prob(3000, 3000, 1, spec.Float32, spec.Softmax, true), fakeH100); !ok || pl.Launches[0].Symbol != "block_reg_fwd_f32_t512_p2" {
		t.Errorf("same class: %+v, %v", pl.Launches, ok)
	}
	if len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}
