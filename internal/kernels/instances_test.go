package kernels

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

// The catalogue generates exactly the kernels the .cu files listed by hand
// before it did (testdata/instances_f32_f16_bf16.txt) and those added since
// (testdata/instances_added.txt): the same symbols, __launch_bounds__ and
// template instances, blanks aside.
func TestInstancesMatchHandListed(t *testing.T) {
	want := map[string]string{}
	var hand int
	for _, f := range []string{"testdata/instances_f32_f16_bf16.txt", "testdata/instances_added.txt"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if !strings.HasPrefix(l, "#") {
				want[strings.SplitN(l, "|", 2)[0]] = l
			}
		}
		if hand == 0 {
			hand = len(want)
		}
	}
	got := map[string]string{}
	for _, in := range All() {
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
			for _, k := range in.Instances(dt) {
				args := macroArgs(t, k.Line(), "SMX_KERNEL")
				if len(args) < 3 {
					t.Fatalf("%s: SMX_KERNEL takes %d arguments, want 3 or more", k.Line(), len(args))
				}
				// SMX_KERNEL(NAME, BOUNDS, ...): the body's template
				// arguments are __VA_ARGS__, the bound one argument.
				bounds := args[1]
				if b := macroArgs(t, bounds, "SMX_BOUNDS"); b != nil {
					bounds = strings.Join(b, ",")
				}
				l := strings.ReplaceAll(args[0]+"|"+bounds+"|"+strings.Join(args[2:], ","), " ", "")
				if _, dup := got[k.Symbol]; dup {
					t.Errorf("%s generated twice", k.Symbol)
				}
				got[k.Symbol] = l
			}
		}
	}
	var diffs []string
	for s, l := range want {
		if got[s] != l {
			diffs = append(diffs, "want "+l+"\n  got "+got[s])
		}
	}
	for s, l := range got {
		if _, ok := want[s]; !ok {
			diffs = append(diffs, "extra "+l)
		}
	}
	sort.Strings(diffs)
	for i, d := range diffs {
		if i == 30 {
			t.Errorf("... %d more", len(diffs)-30)
			break
		}
		t.Error(d)
	}
	if hand != 1279 || len(got) != len(want) {
		t.Errorf("%d kernels generated, %d listed (%d by hand before)", len(got), len(want), hand)
	}
}

// macroArgs splits the arguments of a call of macro name as the
// preprocessor does (commas inside parentheses do not split); nil when text
// is not such a call.
func macroArgs(t *testing.T, text, name string) []string {
	if !strings.HasPrefix(text, name+"(") || !strings.HasSuffix(text, ")") {
		return nil
	}
	inner := text[len(name)+1 : len(text)-1]
	var args []string
	depth, start := 0, 0
	for i, r := range inner {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(inner[start:i]))
				start = i + 1
			}
		}
	}
	return append(args, strings.TrimSpace(inner[start:]))
}
