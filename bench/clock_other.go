//go:build !windows

package bench

import "time"

// clockStart anchors clockNow.
var clockStart = time.Now()

// clockNow is the CPU timings' clock: the monotonic clock, read through
// time.Since (nanosecond steps on Linux and macOS).
func clockNow() time.Duration { return time.Since(clockStart) }
