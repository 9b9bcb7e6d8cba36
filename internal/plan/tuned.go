package plan

import (
	"fmt"
	"strings"
)

// TunedRow returns the overlay row for an autotuned winner, candidate, on
// p's dtype, op, 16-byte path and power-of-two shape class.
func TunedRow(id string, p Problem, candidate, evidence string) (Row, error) {
	c, err := newCtx(p, Device{}, nil)
	if err != nil {
		return Row{}, err
	}
	path, layout := c.path(), "rows"
	rows, inner, when := bucket(p.Outer), "*", "*"
	switch {
	case p.Inner > 1:
		layout, rows, inner = "strided", "*", bucket(p.Inner)
		n := nextPow2(p.Outer * p.Inner)
		when = fmt.Sprintf("slices(%d,%d)", n/2+1, n)
	case path != "vec":
		path = "ragged,skewed,unaligned"
	}
	cells := []string{id, layout, path, p.Op.String(), p.DType.String(), rows, bucket(p.Axis), inner, "*", when, candidate, evidence}
	return parseRow(cells, false)
}

// bucket is the range (n'/2, n'] of n, n' the power of two at or above n.
func bucket(n int64) string {
	n2 := nextPow2(n)
	if n2 == 1 {
		return "1"
	}
	return fmt.Sprintf("%d..%d", n2/2+1, n2)
}

// Tuned returns the overlay rows that match p on d: the tune cache's lookup.
func Tuned(rows []Row, p Problem, d Device) ([]Row, error) {
	c, err := newCtx(p, d, nil)
	if err != nil {
		return nil, err
	}
	var out []Row
	for i := range rows {
		if c.matches(&rows[i]) {
			out = append(out, rows[i])
		}
	}
	return out, nil
}

// Cells returns the row's cells as written (tableColumns' order).
func (r Row) Cells() []string { return append([]string(nil), r.cells...) }

// String returns the row as a table line.
func (r Row) String() string { return strings.Join(r.cells, "\t") }
