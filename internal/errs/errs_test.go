package errs

import (
	"errors"
	"io"
	"testing"
)

func TestKind(t *testing.T) {
	err := Kind(ErrBadAxis, "axis %d out of range: %w", 3, io.EOF)
	if err.Error() != "axis 3 out of range: EOF" {
		t.Errorf("text %q", err)
	}
	if !errors.Is(err, ErrBadAxis) || !errors.Is(err, io.EOF) || errors.Is(err, ErrBadShape) {
		t.Errorf("errors.Is does not see the right kinds in %v", err)
	}
	w := Wrap(ErrBadDType, errors.New("unknown dtype"))
	if w.Error() != "unknown dtype" || !errors.Is(w, ErrBadDType) {
		t.Errorf("Wrap: %v", w)
	}
	if Wrap(ErrBadDType, nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
