package tsv

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRows(t *testing.T) {
	cols := []string{"name", "value"}
	var got [][]string
	err := Rows("# a comment\r\nname\tvalue\r\n\n a \t 1\n# b\t2\nc\t3\n", cols, func(cells []string) error {
		got = append(got, slices.Clone(cells))
		return nil
	})
	if err != nil || !slices.EqualFunc(got, [][]string{{"a", "1"}, {"c", "3"}}, slices.Equal) {
		t.Errorf("rows %q, %v", got, err)
	}
	stop := errors.New("stop")
	for _, c := range []struct {
		text, want string
		f          func([]string) error
	}{
		{"", "no header line (name, value)", nil},
		{"id\tvalue\n", "line 1: header", nil},
		{"name\tvalue\na\n", "line 2: 1 cells, want 2", nil},
		{"name\tvalue\n\na\t1\n", "line 3: stop", func([]string) error { return stop }},
	} {
		err := Rows(c.text, cols, c.f)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
		if c.f != nil && !errors.Is(err, stop) {
			t.Errorf("%q: %v does not wrap f's error", c.text, err)
		}
	}
}
