package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gofused/softmax/internal/safefile"
	"syscall"
)

// output is the file --out (or --grad-out, --lse-out) names, opened before
// any work so that a bad path fails first and names the user's path. "-" is
// standard output;
// /dev/stdout, /dev/stderr and /dev/fd/N are written through the inherited
// descriptor (a shell's >> appends); any other path is written as
// internal/safefile says (links followed, mode, owner and hard links kept,
// atomically where it can), and its temporary file is also removed on
// SIGINT, SIGTERM or SIGHUP.
type output struct {
	flag string         // the flag naming it in messages: --out, --grad-out, --lse-out
	path string         // as the user wrote it
	fd   *os.File       // standard output or another inherited descriptor, or nil
	file *safefile.File // otherwise
}

// openOutput prepares path, given as flag, for writing. A path naming the
// input (same device and inode) is a usage error; a folder that is missing
// or not writable is an error naming flag and path.
func openOutput(flag, path, in string) (*output, error) {
	o := &output{flag: flag, path: path}
	if path == "-" {
		o.fd = os.Stdout
	} else if fd, ok := inheritedFD(path); ok {
		// Written through the descriptor itself, so a shell's >> appends.
		o.fd = os.NewFile(fd, path)
	}
	if o.fd != nil {
		fi, err := o.fd.Stat()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
		}
		if isTerminal(o.fd) {
			return nil, usagef("%s %s is a terminal; redirect it to a file or a pipe", flag, path)
		}
		if ii, err := os.Stat(in); err == nil && in != "-" && os.SameFile(fi, ii) {
			return nil, usagef("%s %s is the same file as --in %s: the input would be overwritten", flag, path, in)
		}
		return o, nil
	}
	if fi, err := os.Stat(path); err == nil && in != "-" { // follows links, magic ones (/dev/stdout) included
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			return nil, usagef("%s %s is the same file as --in %s: the input would be overwritten (write elsewhere, then move it)", flag, path, in)
		}
	}
	pending.Lock()
	defer pending.Unlock()
	pending.listen() // before the temporary file exists, so no signal can come between the two
	f, err := safefile.New(path)
	if err != nil {
		pending.stopIfIdle()
		if errors.Is(err, safefile.ErrFolder) {
			return nil, fmt.Errorf("%s %s is a folder", flag, path)
		}
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	o.file = f
	if tmp := f.Temp(); tmp != "" {
		pending.paths[tmp] = true
	} else {
		pending.stopIfIdle()
	}
	return o, nil
}

// write writes the output with fn and commits it. On error nothing is
// left behind but a file written in place.
func (o *output) write(fn func(io.Writer) error) error {
	if err := o.writeData(fn); err != nil {
		return err
	}
	return o.commit()
}

// writeData writes the output with fn; a temporary file then waits for
// commit. On error the output is aborted.
func (o *output) writeData(fn func(io.Writer) error) error {
	var err error
	if o.fd != nil {
		bw := bufio.NewWriterSize(o.fd, 1<<20)
		if err = fn(bw); err == nil {
			err = unwrapPath(bw.Flush())
		}
	} else {
		err = o.file.Write(fn)
	}
	if err != nil {
		o.abort()
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

// commit renames a written temporary file over the target.
func (o *output) commit() error {
	if o.file == nil {
		return nil
	}
	tmp := o.file.Temp()
	err := o.file.Commit()
	pending.Lock()
	pending.remove(tmp)
	pending.Unlock()
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

// writeAll writes several outputs all or nothing where it can: first every
// output with a temporary file (nothing is replaced yet), then those
// written in place (standard output, devices, files kept for their links
// or owner; they cannot be undone, so they come last), then the temporary
// files are renamed. An error before the renames aborts every output, so
// no regular file is replaced. A nil output is skipped.
func writeAll(outs []*output, fns []func(io.Writer) error) error {
	fail := func(err error) error {
		for _, o := range outs {
			if o != nil {
				o.abort()
			}
		}
		return err
	}
	for _, inPlace := range []bool{false, true} {
		for i, o := range outs {
			if o != nil && o.inPlace() == inPlace {
				if err := o.writeData(fns[i]); err != nil {
					return fail(err)
				}
			}
		}
	}
	for _, o := range outs {
		if o != nil {
			if err := o.commit(); err != nil {
				return fail(err)
			}
		}
	}
	return nil
}

// inPlace reports whether the output is written where it cannot be undone.
func (o *output) inPlace() bool { return o.file == nil || o.file.InPlace() }

// abort removes the temporary file and closes what is open; it may be
// called more than once (deferred after write).
func (o *output) abort() {
	if o.file == nil {
		return
	}
	pending.Lock()
	tmp := o.file.Temp()
	o.file.Abort()
	if tmp != "" {
		pending.remove(tmp)
	}
	pending.Unlock()
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

// unwrapPath drops the *PathError around err (see safefile.Unwrap).
func unwrapPath(err error) error { return safefile.Unwrap(err) }

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
