package jit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clockedCompiler returns a Compiler on dir whose clock reads *clock.
func clockedCompiler(be Backend, dir string, clock *time.Time) *Compiler {
	c := New(Config{Backend: be, Dir: dir})
	c.now = func() time.Time { return *clock }
	return c
}

// keyedReq is a request whose cache key differs for each k.
func keyedReq(k int) Request {
	r := baseReq()
	r.Options = []string{fmt.Sprintf("-DK=%d", k)}
	return r
}

// entryOf compiles k through c and returns its entry's path.
func entryOf(t *testing.T, c *Compiler, k int) string {
	t.Helper()
	res, err := c.Get(keyedReq(k))
	if err != nil {
		t.Fatal(err)
	}
	return c.entryPath(res.Key)
}

func setMTime(t *testing.T, path string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func mtime(t *testing.T, path string) time.Time {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.ModTime()
}

func TestDiskHitMarksUse(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v"}
	clock := time.Now().Truncate(time.Second)
	path := entryOf(t, clockedCompiler(be, dir, &clock), 1)

	// A mark two hours old is renewed by a load from disk.
	setMTime(t, path, clock.Add(-2*time.Hour))
	if res, err := clockedCompiler(be, dir, &clock).Get(keyedReq(1)); err != nil || res.From != FromDisk {
		t.Fatalf("second process: %v, from %v; want a disk hit", err, res)
	}
	if got := mtime(t, path); !got.Equal(clock) {
		t.Errorf("after a disk hit the entry is marked %v, want %v", got, clock)
	}
	// A mark under an hour old is left as it is (no write per load).
	recent := clock.Add(-30 * time.Minute)
	setMTime(t, path, recent)
	if _, err := clockedCompiler(be, dir, &clock).Get(keyedReq(1)); err != nil {
		t.Fatal(err)
	}
	if got := mtime(t, path); !got.Equal(recent) {
		t.Errorf("a 30-minute-old mark became %v", got)
	}
	// A corrupt entry is rewritten, not marked and kept.
	if err := os.WriteFile(path, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	setMTime(t, path, clock.Add(-2*time.Hour))
	if res, err := clockedCompiler(be, dir, &clock).Get(keyedReq(1)); err != nil || res.From != FromCompiler {
		t.Fatalf("corrupt entry: %v, %v; want a compile", err, res)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "junk") {
		t.Error("corrupt entry not rewritten")
	}
}

func TestTrimAndUsage(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v"}
	clock := time.Now().Truncate(time.Second)
	c := clockedCompiler(be, dir, &clock)
	day := 24 * time.Hour
	ages := []time.Duration{40 * day, 31 * day, 10 * day, time.Minute}
	var paths []string
	var sizes []int64
	for k, age := range ages {
		p := entryOf(t, c, k)
		setMTime(t, p, clock.Add(-age))
		info, _ := os.Stat(p)
		paths, sizes = append(paths, p), append(sizes, info.Size())
	}
	entryDir := filepath.Dir(paths[0])
	staleTemp := filepath.Join(entryDir, tempPrefix+"1")
	freshTemp := filepath.Join(entryDir, tempPrefix+"2")
	foreign := filepath.Join(entryDir, "notes.txt")
	for _, p := range []string{staleTemp, freshTemp, foreign} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setMTime(t, staleTemp, clock.Add(-2*time.Hour))
	setMTime(t, foreign, clock.Add(-100*day))

	u, err := c.Usage()
	if err != nil {
		t.Fatal(err)
	}
	want := CacheUsage{Dir: entryDir, Entries: 4, Bytes: sizes[0] + sizes[1] + sizes[2] + sizes[3],
		OldestUse: clock.Add(-40 * day), NewestUse: clock.Add(-time.Minute)}
	if u != want {
		t.Errorf("Usage = %+v\nwant    %+v", u, want)
	}

	if _, err := c.Trim(0); err == nil {
		t.Error("Trim(0) accepted")
	}
	r, err := c.Trim(30 * day)
	if err != nil {
		t.Fatal(err)
	}
	wantR := TrimResult{Removed: 2, RemovedBytes: sizes[0] + sizes[1], Kept: 2, KeptBytes: sizes[2] + sizes[3], Temps: 1}
	if r != wantR {
		t.Errorf("Trim(30 days) = %+v, want %+v", r, wantR)
	}
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := os.IsNotExist(err); gone != (ages[i] > 30*day) {
			t.Errorf("entry %d days unused: removed %v", ages[i]/day, gone)
		}
	}
	for p, keep := range map[string]bool{staleTemp: false, freshTemp: true, foreign: true} {
		if _, err := os.Stat(p); (err == nil) != keep {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, keep)
		}
	}

	// A trimmed entry is compiled again on its next use.
	before := be.calls.Load()
	if res, err := clockedCompiler(be, dir, &clock).Get(keyedReq(0)); err != nil || res.From != FromCompiler || be.calls.Load() != before+1 {
		t.Errorf("trimmed entry: %v, %+v, %d compiles", err, res, be.calls.Load()-before)
	}

	// Clear takes entries whatever their marks, a clock set back included.
	setMTime(t, paths[2], clock.Add(48*time.Hour))
	r, err = c.Clear()
	if err != nil || r.Removed != 3 || r.Kept != 0 {
		t.Errorf("Clear = %+v, %v; want 3 removed, none kept", r, err)
	}
	if u, err := c.Usage(); err != nil || u.Entries != 0 || u.Bytes != 0 || !u.OldestUse.IsZero() {
		t.Errorf("Usage after Clear = %+v, %v", u, err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("Clear removed a file that is not an entry: %v", err)
	}
}

func TestUsageCreatesNothing(t *testing.T) {
	t.Setenv(EnvCache, "")
	root := filepath.Join(t.TempDir(), "absent")
	c := New(Config{Backend: &fakeBackend{version: "v"}, Dir: root})
	if u, err := c.Usage(); err != nil || u.Entries != 0 || u.Dir != filepath.Join(root, cacheSubdir) {
		t.Errorf("Usage of a missing directory = %+v, %v", u, err)
	}
	if r, err := c.Trim(time.Hour); err != nil || r != (TrimResult{}) {
		t.Errorf("Trim of a missing directory = %+v, %v", r, err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("Usage or Trim created %s (%v)", root, err)
	}
	off := New(Config{Backend: &fakeBackend{version: "v"}, NoDisk: true})
	if u, err := off.Usage(); err != nil || u != (CacheUsage{}) {
		t.Errorf("Usage with the disk cache off = %+v, %v", u, err)
	}
}

func TestAutoTrim(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v"}
	clock := time.Now().Truncate(time.Second)
	stamp := filepath.Join(dir, cacheSubdir, trimStampName)

	// staleEntry leaves an entry last used before the automatic trim's age,
	// written by a process whose clock reads `at`.
	staleEntry := func(k int, at time.Time) string {
		t.Helper()
		clk := at
		p := entryOf(t, clockedCompiler(be, dir, &clk), k)
		setMTime(t, p, clk.Add(-DefaultMaxUnused-time.Hour))
		return p
	}
	// firstUse starts a process at `at` and makes its first disk access.
	firstUse := func(at time.Time) {
		t.Helper()
		clk := at
		if _, err := clockedCompiler(be, dir, &clk).Get(keyedReq(100)); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	p := staleEntry(1, clock) // its process trims first: nothing stale yet
	if !exists(p) || !exists(stamp) {
		t.Fatalf("setup: entry %v, stamp %v", exists(p), exists(stamp))
	}
	firstUse(clock.Add(time.Hour))
	if !exists(p) {
		t.Error("trimmed again an hour after the last trim")
	}
	firstUse(clock.Add(25 * time.Hour))
	if exists(p) {
		t.Error("entry unused for 30 days survived a first use 25 hours after the last trim")
	}

	// A stamp that is unreadable, or later than the clock (a clock set
	// back), does not hold the trim off.
	for _, content := range []string{"garbage\n", fmt.Sprintln(clock.Add(100 * time.Hour).UnixNano())} {
		p := staleEntry(2, clock.Add(26*time.Hour))
		if err := os.WriteFile(stamp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		firstUse(clock.Add(26 * time.Hour))
		if exists(p) {
			t.Errorf("stamp %q held the trim off", strings.TrimSpace(content))
		}
	}
}

func TestTouchNow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "entry")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	setMTime(t, path, time.Now().Add(-48*time.Hour))
	before := time.Now().Add(-time.Second)
	err := touchNow(path)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("touchNow is Linux only")
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := mtime(t, path); got.Before(before) || got.After(time.Now().Add(time.Second)) {
		t.Errorf("after touchNow the mark is %v, want about now", got)
	}
}
