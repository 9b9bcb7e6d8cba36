package bench

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestWriteJSONSymlinkAndMode: --json through a symbolic link rewrites the
// link's target and keeps the link; an existing file keeps its mode.
func TestWriteJSONSymlinkAndMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links and Unix modes")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "results.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o604); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.json")
	if err := os.Symlink("results.json", link); err != nil {
		t.Fatal(err)
	}
	recs := sampleRecords()
	if err := WriteJSON(link, recs); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("latest.json is no longer a symbolic link (%v, %v)", fi, err)
	}
	if got, err := ReadJSON(target); err != nil || !reflect.DeepEqual(got, recs) {
		t.Errorf("the link's target: %+v, %v; want the records", got, err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o604 {
		t.Errorf("target mode %v (%v), want 0604 kept", fi.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("folder holds %v, want results.json and latest.json", entries)
	}

	// A missing folder is an error and writes nothing.
	if err := WriteJSON(filepath.Join(dir, "nope", "r.json"), recs); err == nil {
		t.Error("WriteJSON into a missing folder: no error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("after a failed write the folder holds %v", entries)
	}
}
