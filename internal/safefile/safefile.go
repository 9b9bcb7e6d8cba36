// Package safefile writes a file the way a shell redirection would, but
// atomically where it can, so that an error never leaves a half-written
// file and nothing a user owns is replaced or narrowed:
//
//   - a symbolic link is followed (the target is written, the link stays);
//   - a device, FIFO or other non-regular file is written directly;
//   - an existing regular file with other hard links, or owned by someone
//     this process cannot give a file to, is truncated and written in
//     place, keeping its inode, links, mode and owner;
//   - any other regular file is written to a hidden temporary file in its
//     folder, given the existing file's mode and owner (a new file: 0666
//     less the umask), and renamed over it; the temporary file is removed
//     on any error.
//
// It is shared by softmax apply --out, npy.WriteFile and bench's --json and
// --plot writers. Errors do not name the path: callers do, in their words.
package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrFolder means the path names a folder.
var ErrFolder = errors.New("is a folder")

// missingFolder is the error for a path whose folder does not exist; it
// wraps fs.ErrNotExist.
type missingFolder string

func (m missingFolder) Error() string { return "folder " + string(m) + " does not exist" }
func (missingFolder) Unwrap() error   { return fs.ErrNotExist }

// File is one prepared write: New decides how the path is written and
// creates the temporary file; Write writes the data; Commit makes it the
// file's. Abort undoes what has not been committed.
type File struct {
	path    string
	target  string   // path with symbolic links followed; "" for a non-regular file
	tmp     *os.File // the temporary file, or nil
	written bool     // the temporary file is complete, waiting for Commit
	aborted bool     // Abort removed the temporary file
	direct  *os.File // an existing file written in place, or nil
	mode    fs.FileMode
	owner   *fileOwner // the existing file's owner, to keep; nil: ours
}

// New prepares path for writing. A folder, a missing folder, or a file or
// folder this process may not write is an error, before anything changes.
func New(path string) (*File, error) {
	f := &File{path: path}
	fi, statErr := os.Stat(path) // follows links
	switch {
	case statErr == nil && fi.IsDir():
		return nil, ErrFolder
	case statErr == nil && !fi.Mode().IsRegular():
		return f, nil // a device or FIFO: opened when written (a FIFO blocks until read)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return nil, Unwrap(statErr)
	}
	target, viaFD, err := followLinks(path)
	if err != nil {
		return nil, err
	}
	f.target = target
	if statErr == nil {
		f.mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		// A file this process may not write is not replaced either.
		w, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, Unwrap(err)
		}
		owner, links := ownerOf(fi)
		if links > 1 || !canGive(owner) || viaFD {
			// Renaming over it would break its links or change its owner.
			f.direct = w
			return f, nil
		}
		w.Close()
		if !isOurs(owner) {
			f.owner = owner
		}
	} else {
		f.mode = 0o666 &^ umask()
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, missingFolder(dir)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot create a file in %s: %w", dir, Unwrap(err))
	}
	f.tmp = tmp
	return f, nil
}

// Temp returns the temporary file's name, or "" when the file is written
// in place.
func (f *File) Temp() string {
	if f.tmp == nil {
		return ""
	}
	return f.tmp.Name()
}

// InPlace reports whether Write writes the file itself (a device, FIFO or
// a file kept for its links or owner), so that it cannot be undone.
func (f *File) InPlace() bool { return f.tmp == nil }

// Write writes the data with fn. A file written in place is then done; a
// temporary file is synced and given its mode and owner, and waits for
// Commit. On error the temporary file is removed.
func (f *File) Write(fn func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	var w *os.File
	switch {
	case f.tmp != nil:
		w = f.tmp
	case f.direct != nil:
		w = f.direct
		if err := w.Truncate(0); err != nil {
			return Unwrap(err)
		}
	default:
		if w, err = os.OpenFile(f.path, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			return Unwrap(err)
		}
		f.direct = w
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return Unwrap(err)
	}
	if f.tmp == nil {
		err := f.direct.Close()
		f.direct = nil
		return Unwrap(err)
	}
	if f.owner != nil { // before Chmod: chown clears setuid and setgid bits
		if err := chown(f.tmp, f.owner); err != nil {
			return Unwrap(err)
		}
	}
	if err := f.tmp.Chmod(f.mode); err != nil {
		return Unwrap(err)
	}
	if err := f.tmp.Sync(); err != nil {
		return Unwrap(err)
	}
	if err := f.tmp.Close(); err != nil {
		return Unwrap(err)
	}
	f.written = true
	return nil
}

// Commit renames the written temporary file over the target; nothing to
// do for a file written in place.
func (f *File) Commit() error {
	if f.aborted {
		return errors.New("safefile: Commit after Abort")
	}
	if f.tmp == nil {
		return nil
	}
	if !f.written {
		return errors.New("safefile: Commit before a successful Write")
	}
	if err := os.Rename(f.tmp.Name(), f.target); err != nil {
		f.Abort()
		return Unwrap(err)
	}
	f.tmp = nil
	// Make the rename durable where folders can be synced (best effort).
	if d, err := os.Open(filepath.Dir(f.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes the temporary file and closes what is open; it may be
// called more than once, and after Commit (then it does nothing).
func (f *File) Abort() {
	if f.tmp != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
		f.tmp = nil
		f.aborted = true
	}
	if f.direct != nil {
		f.direct.Close()
		f.direct = nil
	}
}

// WriteFile writes path with fn: New, Write and Commit.
func WriteFile(path string, fn func(io.Writer) error) error {
	f, err := New(path)
	if err != nil {
		return err
	}
	if err := f.Write(fn); err != nil {
		return err
	}
	return f.Commit()
}

// Unwrap drops the *PathError around err: its path may be the hidden
// temporary file, and messages name the user's path instead.
func Unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// followLinks returns path with its symbolic links followed, like
// filepath.EvalSymlinks but also through a link whose target does not
// exist yet (it is then created). viaFD reports a link through a process's
// file descriptor (/dev/stdout -> /proc/self/fd/1 -> the file a shell
// opened, perhaps to append): that file is written in place, as the shell
// meant, not replaced.
func followLinks(path string) (target string, viaFD bool, err error) {
	for range 64 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, viaFD, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", false, Unwrap(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		viaFD = viaFD || strings.HasPrefix(link, "/proc/") || strings.HasPrefix(link, "/dev/fd/")
		path = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}
