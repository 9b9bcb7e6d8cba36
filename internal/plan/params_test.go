package plan

import (
	"strings"
	"testing"
)

// TestParamsRead: params.tsv sets every parameter, each row with its
// evidence; a row for no parameter, or a parameter without a row, is
// refused.
func TestParamsRead(t *testing.T) {
	if prm.GridWaves < 1 || prm.BlockGBs <= 0 {
		t.Fatalf("params %+v", prm)
	}
	for _, text := range []string{paramsTSV + "unread\t1\tx\n", strings.Replace(paramsTSV, "gridWaves\t", "# gridWaves\t", 1),
		strings.Replace(paramsTSV, "\tgrid cap, in waves of resident blocks", "\t", 1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("parsed %q", text[len(text)-80:])
				}
			}()
			parseParams(text)
		}()
	}
}
