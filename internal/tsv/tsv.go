// Package tsv reads the small tab-separated tables the library embeds
// (the planner's preference table, its parameters, the cross-entropy
// kernels' rows): one row a line under a header line naming the columns,
// blank lines and lines starting with # skipped.
package tsv

import (
	"fmt"
	"strings"
)

// Rows calls f with the trimmed cells of each row of text under a header
// line naming cols. A wrong header, a row of another number of cells, or
// f's error stops it with an error naming the line.
func Rows(text string, cols []string, f func(cells []string) error) error {
	header := false
	for n, line := range strings.Split(strings.ReplaceAll(text, "\r", ""), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cells := strings.Split(line, "\t")
		var err error
		switch {
		case !header && line != strings.Join(cols, "\t"):
			err = fmt.Errorf("header %q, want the columns %s", line, strings.Join(cols, ", "))
		case !header:
			header = true
		case len(cells) != len(cols):
			err = fmt.Errorf("%d cells, want %d (%s)", len(cells), len(cols), strings.Join(cols, ", "))
		default:
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			err = f(cells)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n+1, err)
		}
	}
	if !header {
		return fmt.Errorf("no header line (%s)", strings.Join(cols, ", "))
	}
	return nil
}
