//go:build !unix

package safefile

import (
	"io/fs"
	"os"
)

// fileOwner is unused where files have no Unix owner.
type fileOwner struct{}

func ownerOf(fs.FileInfo) (*fileOwner, uint64) { return nil, 1 }
func isOurs(*fileOwner) bool                   { return true }
func canGive(*fileOwner) bool                  { return true }
func chown(*os.File, *fileOwner) error         { return nil }
func umask() fs.FileMode                       { return 0o022 }
