//go:build darwin || freebsd

package memlimit

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// systemLimit is the physical memory (sysctl hw.memsize or hw.physmem).
func systemLimit() (uint64, string) {
	name := "hw.physmem"
	if runtime.GOOS == "darwin" {
		name = "hw.memsize"
	}
	if n, err := unix.SysctlUint64(name); err == nil {
		return n, "physical memory"
	}
	return 0, ""
}
