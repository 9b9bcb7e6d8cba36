package plan

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// evidenceFiles finds the results files a row's evidence cites.
var evidenceFiles = regexp.MustCompile(`nvidia-[a-z0-9]+-[0-9-]+[a-z0-9.-]*\.(txt|json)`)

// bareEvidence finds a results file cited by its tail alone ("-ab-s30.txt").
var bareEvidence = regexp.MustCompile(`(^|[ (,;])-[a-z0-9-]+\.(txt|json)`)

// TestTablesParse: the shipped tables parse, every model's table has a
// fallback row for each layout and no teaching kernel among its candidates,
// and every row cites evidence, its results files present under
// bench/results.
func TestTablesParse(t *testing.T) {
	teaching := map[string]bool{}
	for _, in := range kernels.All() {
		teaching[string(in.Strategy)] = in.Teaching
	}
	for _, m := range append(ModelNames(), "") {
		tb, err := TableFor(m, nil)
		if err != nil {
			t.Fatalf("%q: %v", m, err)
		}
		var choice []Row // the rows of the choice of strategy (shape rows apart)
		for _, r := range tb.Rows {
			if !r.Shape {
				choice = append(choice, r)
			}
		}
		for _, layout := range []string{"rows", "strided"} {
			if !slices.ContainsFunc(choice, func(r Row) bool { return r.Layout == layout && isFallback(r) }) {
				t.Errorf("%q: no fallback row for layout %s (every cell *, no condition)", m, layout)
			}
		}
		for _, r := range tb.Rows {
			for _, c := range r.Cands {
				name, _, _ := strings.Cut(c, ConfigSep)
				if teaching[name] {
					t.Errorf("%q: row %s names the teaching kernel %s", m, r.ID, name)
				}
			}
		}
		for _, r := range tb.Rows {
			if r.Evidence == "" || r.Evidence == "*" {
				t.Errorf("%q: row %s has no evidence", m, r.ID)
			}
			if bare := bareEvidence.FindString(r.Evidence); bare != "" {
				t.Errorf("%q: row %s cites %q: name the results file in full", m, r.ID, bare)
			}
			for _, f := range evidenceFiles.FindAllString(r.Evidence, -1) {
				if _, err := os.Stat("../../bench/results/" + f); err != nil {
					t.Errorf("%q: row %s cites %s: %v", m, r.ID, f, err)
				}
			}
		}
	}
}

func TestParseTableErrors(t *testing.T) {
	head := strings.Join(tableColumns, "\t") + "\n"
	row := func(cells ...string) string { return head + strings.Join(cells, "\t") + "\n" }
	for _, c := range []struct{ text, want string }{
		{"id\tlayout\n", "header"},
		{row("a", "rows"), "cells"},
		{row("a", "cols", "*", "*", "*", "*", "*", "*", "*", "*", "naive", "e"), "layout"},
		{row("a", "rows", "diagonal", "*", "*", "*", "*", "*", "*", "*", "naive", "e"), "path"},
		{row("a", "rows", "*", "*", "*", "*", "1..x", "*", "*", "*", "naive", "e"), "cols"},
		{row("a", "rows", "*", "*", "*", "*", "*", "*", "*", "nope", "naive", "e"), "no named condition"},
		{row("a", "rows", "*", "*", "*", "*", "*", "*", "*", "smem_fits", "naive", "e"), "takes 1 arguments"},
		{row("a", "rows", "*", "*", "*", "*", "*", "*", "*", "*", "fastest", "e"), "candidates"},
		{row("a", "rows", "*", "*", "*", "*", "*", "*", "*", "*", "naive", "e") + "a\trows\t*\t*\t*\t*\t*\t*\t*\t*\tnaive\te\n", "twice"},
	} {
		if _, err := ParseTable(c.text); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTable(%q) = %v, want an error with %q", c.text, err, c.want)
		}
	}
}

func TestRanges(t *testing.T) {
	c := &ctx{P: 4, d: Device{SMs: 132}}
	for _, x := range []struct {
		cell string
		in   []int64
		out  []int64
	}{
		{"*", []int64{0, 1 << 40}, nil},
		{"8..512", []int64{8, 512}, []int64{7, 513}},
		{"<8p", []int64{31}, []int64{32}},
		{">1K", []int64{1025}, []int64{1024}},
		{"96K..256K", []int64{96 << 10, 256 << 10}, []int64{96<<10 - 1, 256<<10 + 1}},
		{"<1s", []int64{131}, []int64{132}},
		{">=1s", []int64{132}, []int64{131}},
		{"0.5s..", []int64{66}, []int64{65}},
		{"48", []int64{48}, []int64{47, 49}},
	} {
		r, err := parseRange(x.cell)
		if err != nil {
			t.Fatalf("%q: %v", x.cell, err)
		}
		for _, v := range x.in {
			if !r.has(c, v) {
				t.Errorf("%q does not hold %d", x.cell, v)
			}
		}
		for _, v := range x.out {
			if r.has(c, v) {
				t.Errorf("%q holds %d", x.cell, v)
			}
		}
	}
}

// TestOverlay: a row with a shipped id replaces it in place; a new row goes
// first; the reason names the row that chose.
func TestOverlay(t *testing.T) {
	head := strings.Join(tableColumns, "\t") + "\n"
	user, err := ParseTable(head + "warp_row\trows\t*\t*\t*\t*\t*\t*\t*\twarp_holds\tblock_vec,warp_row\tmine §1\n" +
		"tuned.1\trows\tvec\tfwd\t4\t4096\t4096\t*\t*\t*\tblock_reg/t256_p4\ttuned.json\n")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := TableFor("h200", user)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Rows[0].ID != "tuned.1" {
		t.Errorf("first row %s, want tuned.1", tb.Rows[0].ID)
	}
	d := Models["h200"]
	pl, err := MakeWith(prob(4096, 4096, 1, spec.Float32, spec.Softmax), d, Queries{Overlay: user}, "")
	if err != nil || pl.Launches[0].Symbol != "block_reg_fwd_f32_t256_p4" || !strings.HasPrefix(pl.Reason, "tuned.1 [tuned.json]") {
		t.Errorf("tuned row: %s %+v %q, %v", pl.Strategy, pl.Launches, pl.Reason, err)
	}
	pl, err = MakeWith(prob(4096, 256, 1, spec.Float32, spec.Softmax), d, Queries{Overlay: user}, "")
	if err != nil || pl.Strategy != "block_vec" || !strings.HasPrefix(pl.Reason, "warp_row [mine §1]") {
		t.Errorf("replaced row: %s %q, %v", pl.Strategy, pl.Reason, err)
	}
	if ModelOf(Device{Name: "NVIDIA H200"}) != "h200" || ModelOf(Device{Name: "NVIDIA H100 80GB HBM3"}) != "h100" || ModelOf(Device{Name: "tiny"}) != "" {
		t.Error("ModelOf")
	}
}

// TestTunedRow: an autotuned winner's row matches its dtype, op and shape
// class (power-of-two buckets, the 16-byte path) and nothing else.
func TestTunedRow(t *testing.T) {
	d := Models["h200"]
	timed := prob(3000, 6000, 1, spec.Float32, spec.Softmax)
	r, err := TunedRow("tuned:x", timed, "naive", "tuned.json")
	if err != nil {
		t.Fatal(err)
	}
	strided, err := TunedRow("tuned:s", prob(100, 64, 4, spec.BFloat16, spec.LogSoftmaxBackward), "retired_kernel", "tuned.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    Problem
		want string
	}{
		{timed, "tuned:x"},
		{prob(2049, 4100, 1, spec.Float32, spec.Softmax), "tuned:x"},
		{prob(2048, 6000, 1, spec.Float32, spec.Softmax), ""},
		{prob(3000, 8193, 1, spec.Float32, spec.Softmax), ""},
		{prob(3000, 6001, 1, spec.Float32, spec.Softmax), ""},
		{prob(3000, 6000, 1, spec.Float16, spec.Softmax), ""},
		{prob(3000, 6000, 1, spec.Float32, spec.LogSoftmax), ""},
		{prob(120, 33, 4, spec.BFloat16, spec.LogSoftmaxBackward), "tuned:s"},
		{prob(120, 33, 4, spec.Float16, spec.LogSoftmaxBackward), ""},
		{prob(120, 33, 5, spec.BFloat16, spec.LogSoftmaxBackward), ""},
		{prob(100, 64, 8, spec.BFloat16, spec.LogSoftmaxBackward), ""},
	} {
		rows, err := Tuned([]Row{r, strided}, c.p, d)
		got := ""
		if len(rows) > 0 {
			got = rows[0].ID
		}
		if err != nil || got != c.want || len(rows) > 1 {
			t.Errorf("%+v: %v %q, %v; want %q", c.p, len(rows), got, err, c.want)
		}
	}
}

// TestTableF64Rows: rows express float64 problems by element size 8 or
// dtype name, and match only them.
func TestTableF64Rows(t *testing.T) {
	hdr := strings.Join(tableColumns, "\t") + "\n"
	rows, err := ParseTable(hdr + "a\trows\t*\tfwd\t8\t*\t*\t*\t*\t*\twarp_row\tx\n" + "b\trows\t*\t*\tf64\t*\t..2p\t*\t*\t*\tblock_reg\ty\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dt   spec.DType
		axis int64
		want int
	}{{spec.Float64, 4, 2}, {spec.Float64, 5, 1}, {spec.Float32, 4, 0}} {
		p := Problem{Outer: 8, Axis: tc.axis, Inner: 1, DType: tc.dt, Op: spec.Softmax, Aligned: true}
		got, err := Tuned(rows, p, Models["h200"])
		if err != nil || len(got) != tc.want {
			t.Errorf("%v ×%d: %d rows (%v), want %d", tc.dt, tc.axis, len(got), err, tc.want)
		}
	}
}

// TestShapeRows: a launch-shape row offers shapes of one strategy only, and
// the choice of strategy never offers it.
func TestShapeRows(t *testing.T) {
	hdr := strings.Join(tableColumns, "\t") + "\n"
	for _, cands := range []string{"warp_row/p2,warp_row", "warp_row/p2,block_reg", "warp_row/p3,block_reg/p2"} {
		if _, err := ParseTable(hdr + "a\trows\t*\t*\t*\t*\t*\t*\t*\t*\t" + cands + "\tx\n"); err == nil {
			t.Errorf("%s: parsed, want the one-strategy refusal", cands)
		}
	}
	rows, err := ParseTable(hdr + "a\trows\t*\t*\t*\t*\t*\t*\t*\t*\twarp_row/p3,warp_row/p2\tx\n")
	if err != nil || !rows[0].Shape {
		t.Fatalf("%v %v", rows, err)
	}
	c, _ := newCtx(Problem{Outer: 64, Axis: 1024, Inner: 1, DType: spec.Float32, Op: spec.Softmax, Aligned: true}, Models["h200"], nil)
	if got := c.candidates(Table{Rows: rows}); len(got) != 0 {
		t.Errorf("the choice of strategy offers %v", got)
	}
}

// isFallback: a row that matches every problem of its layout.
func isFallback(r Row) bool {
	return len(r.When) == 0 && !slices.ContainsFunc(r.cells[2:10], func(c string) bool { return c != "*" })
}
