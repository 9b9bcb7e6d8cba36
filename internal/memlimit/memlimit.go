// Package memlimit checks a size computed from a user's shape against the
// memory this process can have, before anything is allocated: a typo such
// as 1000000x1000000 then gives an error naming the shape and the bytes
// instead of Go's fatal "out of memory".
//
// The limit is, in order: the environment variable SOFTMAX_MEMORY_LIMIT
// (bytes; for tests and for users who want a tighter bound), else the
// smaller of the cgroup memory limit (v2 memory.max, v1
// memory.limit_in_bytes) and the physical memory. Where none of these is
// known only overflow is checked.
package memlimit

import (
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gofused/softmax/internal/errs"
)

// EnvVar overrides the limit, in bytes.
const EnvVar = "SOFTMAX_MEMORY_LIMIT"

var (
	sysOnce   sync.Once
	sysBytes  uint64
	sysSource string
)

// Limit returns the bytes this process may allocate and where the number
// comes from ("SOFTMAX_MEMORY_LIMIT", "cgroup memory.max", "physical
// memory", ...); 0 and "" when nothing is known. The environment variable
// is read on every call, the system once.
func Limit() (uint64, string) {
	if v, ok := os.LookupEnv(EnvVar); ok && v != "" {
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			return n, "$" + EnvVar
		}
	}
	sysOnce.Do(func() { sysBytes, sysSource = systemLimit() })
	return sysBytes, sysSource
}

// Check returns an error when n elements of size bytes each (the sum of
// the element sizes of every buffer allocated for the shape) overflow, a
// errs.ErrBadShape, or exceed Limit, an errs.ErrTooLarge. what names the
// allocation in the message, e.g. "softmax: tensor" or "bench case
// 1000000x1000000:f32".
func Check(what string, shape []int, n, size int) error {
	b, err := Size(what, shape, n, size)
	if err != nil {
		return err
	}
	return CheckBytes(what, shape, b)
}

// Size returns n·size, or an errs.ErrBadShape error when it overflows int
// (for memory that the limit does not cover, a GPU's).
func Size(what string, shape []int, n, size int) (uint64, error) {
	if n < 0 || size < 0 {
		return 0, errs.Kind(errs.ErrBadShape, "%s: shape %v: negative size", what, shape)
	}
	hi, b := bits.Mul64(uint64(n), uint64(size))
	if hi != 0 || b > math.MaxInt {
		return 0, errs.Kind(errs.ErrBadShape, "%s: shape %v: %d elements of %d bytes overflow", what, shape, n, size)
	}
	return b, nil
}

// CheckBytes is Check for a byte count already computed.
func CheckBytes(what string, shape []int, b uint64) error {
	if limit, src := Limit(); limit > 0 && b > limit {
		return errs.Kind(errs.ErrTooLarge, "%s: shape %v needs %s, more than the %s this process can have (%s)",
			what, shape, Format(b), Format(limit), src)
	}
	return nil
}

// Format writes a byte count exactly and, from 1 KiB, with a binary unit:
// "8000000000000 bytes (7.3 TiB)".
func Format(b uint64) string {
	s := fmt.Sprintf("%d bytes", b)
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, u := float64(b), -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u >= 0 {
		s += fmt.Sprintf(" (%.1f %s)", v, units[u])
	}
	return s
}

// readUint reads a file holding one number ("max" or an unreadable file:
// 0, false).
func readUint(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	return n, err == nil && n > 0
}
