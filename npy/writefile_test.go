package npy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npy")
	a := NewF32([]int{2, 3}, []float32{0, 1, 2, 3, 4, 5})
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != numpyF32x2x3 {
		t.Errorf("file content differs from what NumPy writes:\n%q", b)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, a) {
		t.Errorf("ReadFile = %+v, want %+v", got, a)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"x.npy"}) {
		t.Errorf("directory holds %v, want only x.npy", names)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// A new file gets the mode os.Create gives (0666 less the umask).
		ref, err := os.Create(filepath.Join(t.TempDir(), "ref"))
		if err != nil {
			t.Fatal(err)
		}
		rfi, _ := ref.Stat()
		ref.Close()
		if fi.Mode().Perm() != rfi.Mode().Perm() {
			t.Errorf("mode %v, want %v (as os.Create)", fi.Mode().Perm(), rfi.Mode().Perm())
		}
	}

	// Overwriting replaces the content.
	c := NewF64([]int{1}, []float64{7})
	if err := WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(path); err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("after overwrite: %+v, %v", got, err)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"x.npy"}) {
		t.Errorf("directory holds %v after overwrite, want only x.npy", names)
	}
}

func TestWriteFileRelativePath(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := WriteFile("rel.npy", NewF16(nil, []uint16{0x3c00})); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile("rel.npy"); err != nil || !reflect.DeepEqual(got.F16, []uint16{0x3c00}) {
		t.Errorf("ReadFile = %+v, %v", got, err)
	}
	if names := dirNames(t, "."); !reflect.DeepEqual(names, []string{"rel.npy"}) {
		t.Errorf("directory holds %v", names)
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "nope", "x.npy")
	err := WriteFile(path, NewF32([]int{1}, []float32{1}))
	if err == nil {
		t.Fatal("WriteFile into a missing directory succeeded")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory was created (stat: %v)", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left %v behind", names)
	}
}

func TestWriteFileInvalidKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, NewF32([]int{2, 2}, []float32{1, 2, 3}))
	if !errors.Is(err, ErrInvalidArray) {
		t.Fatalf("WriteFile error %v, want ErrInvalidArray", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("existing file changed to %q", b)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"x.npy"}) {
		t.Errorf("directory holds %v, want only x.npy", names)
	}
	// A new path is not created either.
	if err := WriteFile(filepath.Join(dir, "y.npy"), &Array{}); err == nil {
		t.Error("WriteFile of an empty Array succeeded")
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"x.npy"}) {
		t.Errorf("directory holds %v, want only x.npy", names)
	}
}

func TestWriteFileRenameFails(t *testing.T) {
	// The target is a non-empty directory, so the final rename fails after
	// the temporary file has been fully written: it must be cleaned up.
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npy")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, NewF32([]int{1}, []float32{1})); err == nil {
		t.Fatal("WriteFile over a directory succeeded")
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"x.npy"}) {
		t.Errorf("directory holds %v, want only x.npy", names)
	}
	if names := dirNames(t, path); !reflect.DeepEqual(names, []string{"keep"}) {
		t.Errorf("target directory now holds %v", names)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(filepath.Join(dir, "missing.npy")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "short.npy")
	if err := os.WriteFile(path, []byte(numpyF32x2x3[:140]), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), path) {
		t.Errorf("truncated file: %v", err)
	}
}

// TestWriteFileSymlinkAndMode: a symbolic link is followed (its target is
// rewritten, the link stays) and an existing file keeps its mode.
func TestWriteFileSymlinkAndMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and Unix modes")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "data.npy")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.npy")
	if err := os.Symlink("data.npy", link); err != nil {
		t.Fatal(err)
	}
	a := NewF32([]int{2, 3}, []float32{0, 1, 2, 3, 4, 5})
	if err := WriteFile(link, a); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link.npy is no longer a symbolic link (%v, %v)", fi, err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != numpyF32x2x3 {
		t.Errorf("the link's target holds %q (%v), want the array", b, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v (%v), want 0640 kept", fi.Mode().Perm(), err)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"data.npy", "link.npy"}) {
		t.Errorf("directory holds %v, want data.npy and link.npy", names)
	}

	// A dangling link creates its target.
	dangling := filepath.Join(dir, "new-link.npy")
	if err := os.Symlink("new.npy", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, a); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(filepath.Join(dir, "new.npy")); err != nil || !reflect.DeepEqual(got, a) {
		t.Errorf("the dangling link's target: %+v, %v", got, err)
	}
}
