package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// output is the file --out names, opened before any work so that a bad
// path fails first and names the user's path. It writes the file the path
// names, as a shell redirection would, but atomically where it can:
//
//   - "-" is standard output; /dev/stdout, /dev/stderr and /dev/fd/N are
//     written through the inherited descriptor (a shell's >> appends);
//   - a symbolic link is followed (the target is written, the link stays);
//   - a device, FIFO or other non-regular file is written directly;
//   - an existing regular file with other hard links, or owned by someone
//     this process cannot give a file to, is truncated and written in
//     place, keeping its inode, links, mode and owner;
//   - any other regular file is written to a hidden temporary file in its
//     folder, given the existing file's mode and owner (a new file: 0666
//     less the umask), and renamed over it; the temporary file is removed
//     on any error and on SIGINT, SIGTERM or SIGHUP.
type output struct {
	path   string   // as the user wrote it
	fd     *os.File // standard output or another inherited descriptor, or nil
	target string   // the file written: path with symbolic links followed
	tmp    *os.File // the temporary file, or nil
	direct *os.File // an existing file written in place, or nil
	mode   fs.FileMode
	owner  *fileOwner // the existing file's owner, to keep; nil: ours
}

// openOutput prepares path for writing. A path naming the input (same
// device and inode) is a usage error; a folder that is missing or not
// writable is an error naming path.
func openOutput(path, in string) (*output, error) {
	o := &output{path: path}
	if path == "-" {
		o.fd = os.Stdout
	} else if fd, ok := inheritedFD(path); ok {
		// Written through the descriptor itself, so a shell's >> appends.
		o.fd = os.NewFile(fd, path)
	}
	if o.fd != nil {
		fi, err := o.fd.Stat()
		if err != nil {
			return nil, fmt.Errorf("--out %s: %w", path, unwrapPath(err))
		}
		if isTerminal(o.fd) {
			return nil, usagef("--out %s is a terminal; redirect it to a file or a pipe", path)
		}
		if ii, err := os.Stat(in); err == nil && in != "-" && os.SameFile(fi, ii) {
			return nil, usagef("--out %s is the same file as --in %s: the input would be overwritten", path, in)
		}
		return o, nil
	}
	fi, statErr := os.Stat(path) // follows links, magic ones (/dev/stdout) included
	if statErr == nil && in != "-" {
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			return nil, usagef("--out %s is the same file as --in %s: the input would be overwritten (write elsewhere, then move it)", path, in)
		}
	}
	switch {
	case statErr == nil && fi.IsDir():
		return nil, fmt.Errorf("--out %s is a folder", path)
	case statErr == nil && !fi.Mode().IsRegular():
		return o, nil // a device or FIFO: opened when written (a FIFO blocks until read)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return nil, fmt.Errorf("--out %s: %w", path, unwrapPath(statErr))
	}
	target, viaFD, err := followLinks(path)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", path, err)
	}
	o.target = target
	if statErr == nil {
		o.mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		// A file this process may not write is not replaced either.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("--out %s: %w", path, unwrapPath(err))
		}
		owner, links := ownerOf(fi)
		if links > 1 || !canGive(owner) || viaFD {
			// Renaming over it would break its links or change its owner.
			o.direct = f
			return o, nil
		}
		f.Close()
		if !isOurs(owner) {
			o.owner = owner
		}
	} else {
		o.mode = 0o666 &^ umask()
	}
	dir, base := filepath.Dir(target), filepath.Base(target)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--out %s: folder %s does not exist", path, dir)
	}
	pending.Lock()
	defer pending.Unlock()
	pending.listen() // before the file exists, so no signal can come between the two
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		pending.stopIfIdle()
		return nil, fmt.Errorf("--out %s: cannot create a file in %s: %w", path, dir, unwrapPath(err))
	}
	o.tmp = tmp
	pending.paths[tmp.Name()] = true
	return o, nil
}

// write writes the output with fn and commits it: the temporary file is
// synced, given its mode and owner and renamed over the target. On error
// nothing is left behind but a file written in place.
func (o *output) write(fn func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			o.abort()
			err = fmt.Errorf("--out %s: %w", o.path, err)
		}
	}()
	var f *os.File
	switch {
	case o.fd != nil:
		f = o.fd
	case o.tmp != nil:
		f = o.tmp
	case o.direct != nil:
		f = o.direct
		if err := f.Truncate(0); err != nil {
			return unwrapPath(err)
		}
	default:
		if f, err = os.OpenFile(o.path, os.O_WRONLY|os.O_TRUNC, 0); err != nil {
			return unwrapPath(err)
		}
		o.direct = f
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return unwrapPath(err)
	}
	if o.tmp == nil {
		if o.direct != nil {
			err := o.direct.Close()
			o.direct = nil
			return unwrapPath(err)
		}
		return nil
	}
	if o.owner != nil { // before Chmod: chown clears setuid and setgid bits
		if err := chown(o.tmp, o.owner); err != nil {
			return unwrapPath(err)
		}
	}
	if err := o.tmp.Chmod(o.mode); err != nil {
		return unwrapPath(err)
	}
	if err := o.tmp.Sync(); err != nil {
		return unwrapPath(err)
	}
	if err := o.tmp.Close(); err != nil {
		return unwrapPath(err)
	}
	if err := os.Rename(o.tmp.Name(), o.target); err != nil {
		return unwrapPath(err)
	}
	pending.Lock()
	pending.remove(o.tmp.Name())
	pending.Unlock()
	o.tmp = nil
	// Make the rename durable where folders can be synced (best effort).
	if d, err := os.Open(filepath.Dir(o.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// abort removes the temporary file and closes what is open; it may be
// called more than once (deferred after write).
func (o *output) abort() {
	if o.tmp != nil {
		pending.Lock()
		o.tmp.Close()
		os.Remove(o.tmp.Name())
		pending.remove(o.tmp.Name())
		pending.Unlock()
		o.tmp = nil
	}
	if o.direct != nil {
		o.direct.Close()
		o.direct = nil
	}
}

// inheritedFD returns the descriptor that /dev/stdout, /dev/stderr,
// /dev/fd/N or /proc/self/fd/N names on Unix.
func inheritedFD(path string) (uintptr, bool) {
	if runtime.GOOS == "windows" {
		return 0, false
	}
	switch path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			if fd, err := strconv.ParseUint(n, 10, 31); err == nil {
				return uintptr(fd), true
			}
		}
	}
	return 0, false
}

// unwrapPath drops the *PathError around err: its path may be the hidden
// temporary file, and messages name the user's path instead.
func unwrapPath(err error) error {
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
			return "", false, unwrapPath(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		viaFD = viaFD || strings.HasPrefix(link, "/proc/") || strings.HasPrefix(link, "/dev/fd/")
		path = link
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// pending holds the temporary files to remove if a signal ends the
// process: while there are any, SIGINT, SIGTERM and SIGHUP remove them and exit
// with 128 + the signal number, as the default action would report.
var pending = &pendingFiles{paths: map[string]bool{}}

type pendingFiles struct {
	sync.Mutex
	paths map[string]bool
	sigs  chan os.Signal
}

// listen starts listening for signals (the caller holds the lock), if it
// is not already.
func (p *pendingFiles) listen() {
	if p.sigs == nil {
		p.sigs = make(chan os.Signal, 1)
		signal.Notify(p.sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		go p.clean(p.sigs)
	}
}

// remove stops tracking path (the caller holds the lock).
func (p *pendingFiles) remove(path string) {
	delete(p.paths, path)
	p.stopIfIdle()
}

// stopIfIdle gives signals their default action again when no file is
// tracked (the caller holds the lock).
func (p *pendingFiles) stopIfIdle() {
	if len(p.paths) == 0 && p.sigs != nil {
		signal.Stop(p.sigs)
		close(p.sigs)
		p.sigs = nil
	}
}

// clean waits for a signal, removes the files and exits.
func (p *pendingFiles) clean(sigs chan os.Signal) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	p.Lock() // held until exit: no new file appears
	for path := range p.paths {
		os.Remove(path)
	}
	fmt.Fprintf(os.Stderr, "softmax: stopped by %v; the partial output was removed\n", sig)
	code := 1
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	os.Exit(code)
}
