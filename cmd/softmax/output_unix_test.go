//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofused/softmax/npy"
)

// An existing output keeps its mode and owner; a new one gets 0666 less
// the umask, not the temporary file's 0600.
func TestApplyKeepsModeAndOwner(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	out := writeInput(t, dir, "y.npy", []int{1}, []float32{0})
	if err := os.Chmod(out, 0o640); err != nil {
		t.Fatal(err)
	}
	// Another owner where this process may give files away (root).
	uid, gid := os.Geteuid(), os.Getegid()
	if os.Chown(out, 4321, 4322) == nil {
		uid, gid = 4321, 4322
	}
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	a, err := npy.ReadFile(out)
	checkResult(t, "the output", a, err)
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if fi.Mode().Perm() != 0o640 || int(st.Uid) != uid || int(st.Gid) != gid {
		t.Errorf("output mode %v owner %d:%d, want -rw-r----- %d:%d", fi.Mode(), st.Uid, st.Gid, uid, gid)
	}

	fresh := filepath.Join(dir, "new.npy")
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", fresh); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	mask := syscall.Umask(0)
	syscall.Umask(mask)
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o666&^os.FileMode(mask) {
		t.Errorf("new output mode %v, want %v", fi.Mode(), 0o666&^os.FileMode(mask))
	}
}

// mkfifo makes a FIFO in dir, or skips.
func mkfifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFOs here: " + err.Error())
	}
	return path
}

// A FIFO (or any non-regular file) is written directly and stays a FIFO;
// a FIFO is read as a pipe; /dev/stdout is standard output.
func TestApplyFIFOAndDevStdout(t *testing.T) {
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	fifo := mkfifo(t, dir, "out.fifo")
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo) // blocks until the command opens it
		if err != nil {
			got <- nil
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		got <- data
	}()
	if r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", fifo); r.code != 0 {
		t.Fatalf("--out FIFO: exit %d: %s", r.code, r.stderr)
	}
	a, err := npy.Read(bytes.NewReader(<-got))
	checkResult(t, "read from the FIFO", a, err)
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}

	inFifo := mkfifo(t, dir, "in.fifo")
	data, _ := os.ReadFile(in)
	go func() {
		f, err := os.OpenFile(inFifo, os.O_WRONLY, 0)
		if err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	out := filepath.Join(dir, "y.npy")
	if r := runCLI(t, "apply", "--device", "cpu", "--in", inFifo, "--out", out); r.code != 0 {
		t.Fatalf("--in FIFO: exit %d: %s", r.code, r.stderr)
	}
	a, err = npy.ReadFile(out)
	checkResult(t, "the output of a FIFO's input", a, err)

	if _, err := os.Stat("/dev/stdout"); err == nil {
		r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", "/dev/stdout")
		if r.code != 0 {
			t.Fatalf("--out /dev/stdout: exit %d: %s", r.code, r.stderr)
		}
		a, err := npy.Read(strings.NewReader(r.stdout))
		checkResult(t, "/dev/stdout", a, err)

		// Standard output opened to append (a shell's >>) is appended to,
		// and one opened on the input is refused.
		log := filepath.Join(dir, "log")
		if err := os.WriteFile(log, []byte("before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			file string
			flag int
			code int
		}{{log, os.O_APPEND, 0}, {in, os.O_APPEND, 2}} {
			f, err := os.OpenFile(tt.file, os.O_WRONLY|tt.flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, "apply", "--device", "cpu", "--in", in, "--out", "/dev/stdout")
			cmd.Stdout = f
			err = cmd.Run()
			f.Close()
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("stdout on %s: exit %d (%v), want %d", filepath.Base(tt.file), code, err, tt.code)
			}
		}
		data, _ := os.ReadFile(log)
		rest, ok := bytes.CutPrefix(data, []byte("before\n"))
		if !ok {
			t.Fatalf("the appended-to file lost its start: %q", data[:min(len(data), 20)])
		}
		a, err = npy.Read(bytes.NewReader(rest))
		checkResult(t, "appended through /dev/stdout", a, err)
		a, err = npy.ReadFile(in)
		if err != nil || a.F32[0] != 1 {
			t.Errorf("the input changed: %v %v", a, err)
		}
	}
}

// A signal while the output is pending removes the temporary file: the
// input is a FIFO that never delivers, so the command waits with its
// temporary file open until the signal comes.
func TestApplySignalRemovesTemp(t *testing.T) {
	if binary == "" {
		t.Skip("no go command to build the softmax command with")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		dir := t.TempDir()
		fifo := mkfifo(t, dir, "in.fifo")
		out := filepath.Join(dir, "y.npy")
		cmd := exec.Command(binary, "apply", "--device", "cpu", "--in", fifo, "--out", out)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the temporary file (a guard against hanging, not a timing).
		deadline := time.Now().Add(20 * time.Second)
		for !slices.ContainsFunc(dirNames(t, dir), func(n string) bool { return strings.HasPrefix(n, ".y.npy.tmp-") }) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no temporary file appeared: %v", dirNames(t, dir))
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 128+int(sig) {
			t.Errorf("%v: %v, want exit status %d (stderr %q)", sig, err, 128+int(sig), stderr.String())
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"in.fifo"}) {
			t.Errorf("%v left %v", sig, names)
		}
		if !strings.Contains(stderr.String(), "partial output was removed") {
			t.Errorf("%v: stderr %q does not say the output was removed", sig, stderr.String())
		}
	}
}

// A file this process may not write is refused, not replaced by a rename
// (the folder being writable is not enough).
func TestApplyReadOnlyOut(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only files")
	}
	dir := t.TempDir()
	in := writeInput(t, dir, "x.npy", []int{1, 3}, []float32{1, 2, 3})
	out := writeInput(t, dir, "y.npy", []int{1}, []float32{0})
	before, _ := os.ReadFile(out)
	if err := os.Chmod(out, 0o444); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "apply", "--device", "cpu", "--in", in, "--out", out)
	if r.code != 1 || !strings.Contains(r.stderr, "--out "+out) || !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("read-only --out: exit %d, stderr %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("the read-only file changed")
	}
}
