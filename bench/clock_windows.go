package bench

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Go's monotonic clock on Windows is the system's interrupt time, which
// advances once a timer tick (0.5–15.6 ms): one call of a small case read
// "0 s" through it. The CPU timings read the performance counter instead
// (100 ns steps or finer).
var (
	queryCounter   = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceCounter")
	queryFrequency = windows.NewLazySystemDLL("kernel32.dll").NewProc("QueryPerformanceFrequency")
	counterHz      = func() int64 {
		var f int64
		if r, _, _ := queryFrequency.Call(uintptr(unsafe.Pointer(&f))); r == 0 || f <= 0 {
			return 0
		}
		return f
	}()
	clockStart = time.Now()
)

// clockNow is the CPU timings' clock (a variable so that tests can drive
// it): the performance counter in nanoseconds, or the monotonic clock where
// the counter cannot be read.
var clockNow = func() time.Duration {
	if counterHz == 0 {
		return time.Since(clockStart)
	}
	var c int64
	queryCounter.Call(uintptr(unsafe.Pointer(&c))) // cannot fail where the frequency could be read
	// Whole seconds and the remainder apart, so that c·1e9 cannot overflow.
	return time.Duration(c/counterHz)*time.Second + time.Duration(c%counterHz*int64(time.Second)/counterHz)
}
