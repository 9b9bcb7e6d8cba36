//go:build !windows

package bench

import "time"

// clockStart anchors clockNow.
var clockStart = time.Now()

// clockNow is the CPU timings' clock (a variable so that tests can drive
// it): the monotonic clock, read through time.Since (nanosecond steps on
// Linux and macOS).
var clockNow = func() time.Duration { return time.Since(clockStart) }
