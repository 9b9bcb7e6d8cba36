//go:build linux

package jit

import "golang.org/x/sys/unix"

// touchNow sets path's access and modification times to the current time
// as touch(1) does (UTIME_NOW). Write permission allows that; setting
// explicit times, as os.Chtimes does, needs the file's owner, so in a
// cache shared by several users only this form re-marks another user's
// entries.
func touchNow(path string) error {
	now := []unix.Timespec{{Nsec: unix.UTIME_NOW}, {Nsec: unix.UTIME_NOW}}
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, now, 0)
}
