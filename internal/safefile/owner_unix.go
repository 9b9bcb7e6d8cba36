//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// fileOwner is the user and group of a file.
type fileOwner struct{ uid, gid int }

// ownerOf returns fi's owner and its number of hard links.
func ownerOf(fi fs.FileInfo) (*fileOwner, uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, 1
	}
	return &fileOwner{int(st.Uid), int(st.Gid)}, uint64(st.Nlink)
}

// isOurs reports whether a new file of this process gets owner o anyway.
func isOurs(o *fileOwner) bool {
	return o == nil || o.uid == os.Geteuid() && o.gid == os.Getegid()
}

// canGive reports whether this process can give a file to o: root can,
// others only their own user and one of their groups.
func canGive(o *fileOwner) bool {
	if isOurs(o) || os.Geteuid() == 0 {
		return true
	}
	if o.uid != os.Geteuid() {
		return false
	}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		if g == o.gid {
			return true
		}
	}
	return false
}

func chown(f *os.File, o *fileOwner) error { return f.Chown(o.uid, o.gid) }

// umask returns the process's file mode creation mask.
func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}
