package plan

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
)

var update = flag.Bool("update", false, "rewrite docs/generated/used-by-auto.md from the table")

const usedByAutoPath = "../../docs/generated/used-by-auto.md"

// TestUsedByAutoDoc: docs/generated/used-by-auto.md, the strategies' "used
// by auto" column, is the default table rendered (scripts/used-by-auto.sh
// rewrites it with -update).
func TestUsedByAutoDoc(t *testing.T) {
	tb, err := TableFor("", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := usedByAuto(tb)
	if *update {
		if err := os.MkdirAll("../../docs/generated", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(usedByAutoPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(usedByAutoPath)
	if err != nil || string(have) != text {
		t.Errorf("%s is not the table rendered (%v): run scripts/used-by-auto.sh", usedByAutoPath, err)
	}
}

// usedByAuto renders, for each strategy, the table rows that offer it.
func usedByAuto(tb Table) string {
	var b strings.Builder
	b.WriteString("<!-- Generated from internal/plan/table/default.tsv by scripts/used-by-auto.sh; do not edit. -->\n")
	b.WriteString("| strategy | used by `auto` for (rows of the preference table, in order; `softmax plan --rules` prints them) |\n|---|---|\n")
	for _, s := range kernels.Strategies() {
		var uses []string
		for _, r := range tb.Rows {
			for i, cand := range r.Cands {
				if r.Shape {
					break
				}
				if name, _, _ := strings.Cut(cand, ConfigSep); name == string(s) {
					uses = append(uses, describeRow(r, i))
				}
			}
		}
		if len(uses) == 0 {
			uses = []string{"only when forced (`--algo " + string(s) + "`)"}
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", s, strings.Join(uses, "; "))
	}
	return b.String()
}

// describeRow says in words what row r matches, for its candidate i.
func describeRow(r Row, i int) string {
	c := r.cells
	var parts []string
	if r.Layout == "strided" {
		parts = append(parts, "Inner > 1")
	} else if r.Layout == "rows" {
		parts = append(parts, "rows")
	}
	names := map[string]string{"fwd": "forward", "bwd": "backward", "4": "f32", "2": "f16/bf16", "8": "f64"}
	if r.Dir != "*" {
		parts = append(parts, names[r.Dir])
	}
	for _, e := range r.ESizes {
		parts = append(parts, names[fmt.Sprint(e)])
	}
	if r.Paths != nil {
		parts = append(parts, strings.Join(r.Paths, "/"))
	}
	for _, j := range []int{5, 6, 7, 8} {
		if c[j] != "*" {
			parts = append(parts, map[int]string{5: "rows ", 6: "cols ", 7: "Inner ", 8: "bytes "}[j]+c[j])
		}
	}
	if c[9] != "*" {
		parts = append(parts, "when "+c[9])
	}
	s := fmt.Sprintf("`%s` (%s)", r.ID, strings.Join(parts, ", "))
	if i > 0 {
		s += fmt.Sprintf(" after %s", strings.Join(r.Cands[:i], ", "))
	}
	return s
}
