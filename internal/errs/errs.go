// Package errs holds the sentinel errors that every layer of gofused/softmax
// wraps (the root package re-exports them for errors.Is), and Kind, which
// tags a message with one of them without changing its text.
package errs

import (
	"errors"
	"fmt"
	"math"
)

// The sentinels. The root package exports each under the same name.
var (
	ErrBadShape = errors.New("softmax: bad shape")
	ErrBadAxis  = errors.New("softmax: bad axis")
	ErrBadDType = errors.New("softmax: bad dtype")
	ErrBadOp    = errors.New("softmax: bad op")
	ErrBadScale = errors.New("softmax: bad scale")
	ErrOverlap  = errors.New("softmax: overlapping tensors")
	ErrTooLarge = errors.New("softmax: too large for this process's memory")
	ErrNoGPU    = errors.New("softmax: no GPU")
	ErrNoNVRTC  = errors.New("softmax: no NVRTC")
	ErrNoNCCL   = errors.New("softmax: no NCCL")
	// Cross-entropy (package xent and its callers).
	ErrBadTarget = errors.New("softmax: bad target")
	ErrBadOption = errors.New("softmax: bad option")
)

// kindError is a message that errors.Is matches against its sentinel.
type kindError struct {
	kind error
	msg  string
	err  error // a wrapped cause, or nil
}

func (e *kindError) Error() string { return e.msg }

// Unwrap returns the sentinel and, when there is one, the wrapped cause.
func (e *kindError) Unwrap() []error {
	if e.err != nil {
		return []error{e.kind, e.err}
	}
	return []error{e.kind}
}

// Kind returns an error reading fmt.Sprintf(format, a...) that errors.Is
// matches against kind (and, with a %w verb, against the wrapped error).
func Kind(kind error, format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &kindError{kind: kind, msg: err.Error(), err: errors.Unwrap(err)}
}

// Wrap tags err with kind, keeping its text; nil stays nil.
func Wrap(kind error, err error) error {
	if err == nil || errors.Is(err, kind) {
		return err
	}
	return &kindError{kind: kind, msg: err.Error(), err: err}
}

// CheckScale returns an ErrBadScale error, prefixed with pkg ("softmax",
// "cuda"), for an Options.Scale that is NaN or ±Inf, or, when the
// arithmetic is float32 (f32 names the dtype; "" for float64 arithmetic),
// beyond float32's range; 0 (meaning 1) and every other value pass. Every
// entry point that takes Options calls it.
func CheckScale(pkg string, s float64, f32 string) error {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return Kind(ErrBadScale, "%s: scale %v: want a finite number (0 means 1)", pkg, s)
	}
	if f32 != "" && math.Abs(s) > math.MaxFloat32 {
		return Kind(ErrBadScale, "%s: scale %v overflows float32, the arithmetic of %s", pkg, s, f32)
	}
	return nil
}
