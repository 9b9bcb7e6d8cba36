package memlimit

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/errs"
)

func TestCheckOverflow(t *testing.T) {
	err := Check("tensor", []int{math.MaxInt / 2, 3}, math.MaxInt/2, 8)
	if !errors.Is(err, errs.ErrBadShape) || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("overflowing size: %v", err)
	}
}

func TestCheckEnvLimit(t *testing.T) {
	t.Setenv(EnvVar, "1000")
	if n, src := Limit(); n != 1000 || src != "$"+EnvVar {
		t.Fatalf("Limit() = %d, %q", n, src)
	}
	if err := Check("tensor", []int{250}, 250, 4); err != nil {
		t.Errorf("1000 bytes within a 1000-byte limit: %v", err)
	}
	err := Check("tensor", []int{251}, 251, 4)
	if !errors.Is(err, errs.ErrTooLarge) {
		t.Fatalf("1004 bytes over a 1000-byte limit: %v", err)
	}
	for _, want := range []string{"tensor", "[251]", "1004 bytes", "1000 bytes", EnvVar} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// The system limit, where one is known, is at most what the machine can
// address; the test machine has one on Linux.
func TestSystemLimit(t *testing.T) {
	t.Setenv(EnvVar, "")
	n, src := Limit()
	t.Logf("limit %s from %s", Format(n), src)
	if n == 0 && src != "" || n != 0 && src == "" {
		t.Errorf("Limit() = %d, %q: a number without its source or the reverse", n, src)
	}
}

func TestFormat(t *testing.T) {
	for b, want := range map[uint64]string{
		12:                   "12 bytes",
		4 << 40:              "4398046511104 bytes (4.0 TiB)",
		4_000_000_000_000_00: "400000000000000 bytes (363.8 TiB)",
	} {
		if got := Format(b); got != want {
			t.Errorf("Format(%d) = %q, want %q", b, got, want)
		}
	}
}
