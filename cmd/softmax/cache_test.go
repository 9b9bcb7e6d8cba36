package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCacheCommand(t *testing.T) {
	root := t.TempDir()
	t.Setenv("SOFTMAX_CACHE_DIR", root)
	t.Setenv("SOFTMAX_CACHE", "")
	entries := filepath.Join(root, "cubin-v1")
	if err := os.MkdirAll(entries, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	day := 24 * time.Hour
	// Three entries (the names are what marks a file as one) last used 40
	// days, 10 days and a minute ago, and the autotuning cache.
	var paths []string
	for i, age := range []time.Duration{40 * day, 10 * day, time.Minute} {
		p := filepath.Join(entries, strings.Repeat(string(rune('a'+i)), 64)+".cubin")
		if err := os.WriteFile(p, make([]byte, 1000*(i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	tuned := filepath.Join(root, "tuned.tsv")
	if err := os.WriteFile(tuned, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	r := runCLI(t, "cache")
	for _, want := range []string{entries, "3 entries, 0.0 MB", "last used from " + now.Add(-40*day).Format("2006-01-02"), tuned + " (2 bytes"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("softmax cache: exit %d, stdout lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	if !exists(paths[0]) {
		t.Fatal("softmax cache (show) removed an entry")
	}

	r = runCLI(t, "cache", "trim", "--unused-for", "20d")
	if r.code != 0 || !strings.Contains(r.stdout, "removed 1 entries unused for 20d") || !strings.Contains(r.stdout, "kept 2") {
		t.Errorf("cache trim: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if exists(paths[0]) || !exists(paths[1]) || !exists(paths[2]) {
		t.Errorf("after trimming at 20 days: entries exist %v %v %v, want false true true", exists(paths[0]), exists(paths[1]), exists(paths[2]))
	}

	r = runCLI(t, "cache", "clear")
	if r.code != 0 || !strings.Contains(r.stdout, "removed 2 entries") || !strings.Contains(r.stdout, "kept 0") {
		t.Errorf("cache clear: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if exists(paths[1]) || exists(paths[2]) || !exists(tuned) {
		t.Errorf("after clear: entries %v %v, autotuning cache %v; want false false true", exists(paths[1]), exists(paths[2]), exists(tuned))
	}

	t.Setenv("SOFTMAX_CACHE", "off")
	r = runCLI(t, "cache", "clear")
	if r.code != 0 || !strings.Contains(r.stdout, "off") {
		t.Errorf("cache clear with the cache off: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCacheUsageErrors(t *testing.T) {
	t.Setenv("SOFTMAX_CACHE_DIR", t.TempDir())
	for _, cacheSetting := range []string{"", "off"} {
		t.Setenv("SOFTMAX_CACHE", cacheSetting)
		testCacheUsageErrors(t)
	}
}

// testCacheUsageErrors checks the command line before the cache is looked
// at, so the errors do not depend on SOFTMAX_CACHE.
func testCacheUsageErrors(t *testing.T) {
	expectUsageErrors(t, "cache", []usageCase{
		{[]string{"cache", "frob"}, `unknown action "frob"`},
		{[]string{"cache", "trim", "--unused-for", "0"}, "must be positive"},
		{[]string{"cache", "trim", "--unused-for", "-2h"}, "must be positive"},
		{[]string{"cache", "trim", "--unused-for", "soon"}, "not a duration"},
		{[]string{"cache", "trim", "--unused-for", "xd"}, "not a number of days"},
		{[]string{"cache", "trim", "--unused-for", "NaNd"}, "not a number of days"},
		{[]string{"cache", "trim", "--unused-for", "Infd"}, "too long"},
		{[]string{"cache", "trim", "--unused-for", "1e6d"}, "too long"},
		{[]string{"cache", "trim", "--unused-for", "-Infd"}, "must be positive"},
		{[]string{"cache", "clear", "--unused-for", "1h"}, "applies to trim"},
		{[]string{"cache", "trim", "extra"}, "unexpected argument"},
	})
	expectHelp(t, "cache", "--unused-for", "clear")
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1.5d": 36 * time.Hour, "72h": 72 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
