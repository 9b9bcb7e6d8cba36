package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

func TestWriteFileNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	for _, s := range []string{"first", "second"} {
		if err := WriteFile(path, writeString(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != s {
			t.Errorf("file holds %q, want %q", b, s)
		}
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %v, want f alone", n)
	}
}

// TestWriteErrorLeavesNothing: an error from the writer keeps the old
// file and removes the temporary one.
func TestWriteErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o644)
	boom := errors.New("boom")
	err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file holds %q, want old", b)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("folder holds %v, want f alone", n)
	}
}

// TestAbortAfterWrite: a written but uncommitted file changes nothing.
func TestAbortAfterWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	f, err := New(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.InPlace() || f.Temp() == "" {
		t.Fatalf("a new file is written in place (temp %q)", f.Temp())
	}
	if err := f.Write(writeString("data")); err != nil {
		t.Fatal(err)
	}
	f.Abort()
	f.Abort()
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("folder holds %v, want nothing", n)
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort: no error")
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(dir); !errors.Is(err, ErrFolder) {
		t.Errorf("New(folder) = %v, want ErrFolder", err)
	}
	if _, err := New(filepath.Join(dir, "nope", "f")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("New(missing folder) = %v, want fs.ErrNotExist", err)
	}
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("folder holds %v, want nothing", n)
	}
}

// TestLinksAndMode: a symbolic link's target is written with its mode kept;
// a file with another hard link is rewritten in place, so both names see it.
func TestLinksAndMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and Unix modes")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("old"), 0o600)
	os.Chmod(target, 0o640)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced (%v, %v)", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q, want new", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640", fi.Mode().Perm())
	}

	hard := filepath.Join(dir, "hard")
	if err := os.Link(target, hard); err != nil {
		t.Skip("no hard links here:", err)
	}
	f, err := New(target)
	if err != nil {
		t.Fatal(err)
	}
	if !f.InPlace() {
		t.Error("a file with two links would be replaced")
	}
	if err := f.Write(writeString("both")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(hard); string(b) != "both" {
		t.Errorf("the other hard link holds %q, want both", b)
	}
}
