package plan

import (
	"strings"
	"testing"
)

// TestParamsRead checks that every row of params.tsv is read by the code
// (a row nothing reads would be a threshold that decides nothing) and has
// its evidence.
func TestParamsRead(t *testing.T) {
	if len(params) < 10 {
		t.Fatalf("params.tsv: %d rows", len(params))
	}
	for name := range params {
		if !paramsRead[name] {
			t.Errorf("params.tsv row %s: no code reads it", name)
		}
	}
	for _, line := range strings.Split(paramsTSV, "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 && strings.TrimSpace(f[2]) == "" {
			t.Errorf("params.tsv row %s: no evidence", f[0])
		}
	}
}
