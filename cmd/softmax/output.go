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
	"strings"
	"sync"
	"syscall"
)

// output is the file --out names, opened before any work so that a bad
// path fails first and names the user's path. It writes the file the path
// names, as a shell redirection would, but atomically where it can:
//
//   - "-" is standard output;
//   - a symbolic link is followed (the target is written, the link stays);
//   - a device, FIFO or other non-regular file (/dev/stdout) is written
//     directly;
//   - an existing regular file with other hard links, or owned by someone
//     this process cannot give a file to, is truncated and written in
//     place, keeping its inode, links, mode and owner;
//   - any other regular file is written to a hidden temporary file in its
//     folder, given the existing file's mode and owner (a new file: 0666
//     less the umask), and renamed over it; the temporary file is removed
//     on any error and on SIGINT or SIGTERM.
type output struct {
	path   string   // as the user wrote it
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
		if isTerminal(os.Stdout) {
			return nil, usagef("--out -: standard output is a terminal; redirect it to a file or a pipe")
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
	target, err := followLinks(path)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", path, err)
	}
	o.target = target
	if statErr == nil {
		o.mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		owner, links := ownerOf(fi)
		if links > 1 || !canGive(owner) || procLink(target) {
			// Renaming over it would break its links or change its owner.
			if o.direct, err = os.OpenFile(target, os.O_WRONLY, 0); err != nil {
				return nil, fmt.Errorf("--out %s: %w", path, unwrapPath(err))
			}
			return o, nil
		}
		if !isOurs(owner) {
			o.owner = owner
		}
	} else {
		o.mode = 0o666 &^ umask()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("--out %s: folder %s does not exist", path, dir)
	}
	pending.Lock()
	defer pending.Unlock()
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("--out %s: cannot create a file in %s: %w", path, dir, unwrapPath(err))
	}
	o.tmp = tmp
	pending.add(tmp.Name())
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
	case o.path == "-":
		f = os.Stdout
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
	if err := o.tmp.Chmod(o.mode); err != nil {
		return unwrapPath(err)
	}
	if o.owner != nil {
		if err := chown(o.tmp, o.owner); err != nil {
			return unwrapPath(err)
		}
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
// exist yet (it is then created).
func followLinks(path string) (string, error) {
	for range 64 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", unwrapPath(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// procLink reports whether path reached a file through a process's file
// descriptor (/dev/stdout -> /proc/self/fd/1 -> the file a shell opened):
// that file is written in place, as the shell meant.
func procLink(path string) bool {
	return strings.HasPrefix(path, "/proc/") || strings.HasPrefix(path, "/dev/fd/")
}

// pending holds the temporary files to remove if a signal ends the
// process: while there are any, SIGINT and SIGTERM remove them and exit
// with 128 + the signal number, as the default action would report.
var pending = &pendingFiles{paths: map[string]bool{}}

type pendingFiles struct {
	sync.Mutex
	paths map[string]bool
	sigs  chan os.Signal
}

// add tracks path (the caller holds the lock), listening for signals from
// the first one on.
func (p *pendingFiles) add(path string) {
	p.paths[path] = true
	if p.sigs == nil {
		p.sigs = make(chan os.Signal, 1)
		signal.Notify(p.sigs, os.Interrupt, syscall.SIGTERM)
		go p.clean(p.sigs)
	}
}

// remove stops tracking path (the caller holds the lock); with none left,
// signals get their default action again.
func (p *pendingFiles) remove(path string) {
	delete(p.paths, path)
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
	fmt.Fprintf(os.Stderr, "softmax: %v: stopped, the partial output removed\n", sig)
	code := 1
	if s, ok := sig.(syscall.Signal); ok {
		code = 128 + int(s)
	}
	os.Exit(code)
}
