package jit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofused/softmax/internal/driver"
)

// fakeBackend "compiles" by hashing its inputs into a deterministic blob.
type fakeBackend struct {
	version string
	delay   time.Duration
	fail    error
	calls   atomic.Int64

	mu       sync.Mutex
	lastOpts []string
}

func (f *fakeBackend) Version() (string, error) { return f.version, nil }

func (f *fakeBackend) Compile(src, name string, headers map[string]string, opts []string) ([]byte, string, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.lastOpts = append([]string(nil), opts...)
	f.mu.Unlock()
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	if f.fail != nil {
		return nil, "fake.cu(1): error: nope", f.fail
	}
	var b bytes.Buffer
	b.WriteString("\x7fELF-fake|")
	fmt.Fprintf(&b, "%s|%s|%s|%v|%d", f.version, name, src, opts, len(headers))
	return b.Bytes(), "fake warning", nil
}

func newTestCompiler(t *testing.T, be Backend, dir string) (*Compiler, *[]string) {
	t.Helper()
	var logs []string
	var mu sync.Mutex
	c := New(Config{Backend: be, Dir: dir, Logf: func(format string, args ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	return c, &logs
}

func baseReq() Request {
	return Request{
		Name:    "softmax.cu",
		Source:  `#include "common.cuh"` + "\nextern \"C\" __global__ void k() {}\n",
		Headers: map[string]string{"common.cuh": "#pragma once\n"},
		Arch:    "sm_90",
		Options: []string{"-DBLOCK=256"},
	}
}

// cacheFiles lists the files under dir other than the trim stamp.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != trimStampName {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func TestHitMissCounting(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "fake 1.0"}
	c, _ := newTestCompiler(t, be, dir)

	r1, err := c.Get(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if r1.From != FromCompiler || r1.Log != "fake warning" || len(r1.Key) != 64 {
		t.Errorf("first Get: %+v", r1)
	}
	r2, err := c.Get(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if r2.From != FromMemory || !bytes.Equal(r1.CUBIN, r2.CUBIN) || r2.Key != r1.Key {
		t.Errorf("second Get: %+v", r2)
	}
	if s := c.Stats(); s.Misses != 1 || s.MemoryHits != 1 || s.DiskHits != 0 {
		t.Errorf("stats: %+v", s)
	}
	if be.calls.Load() != 1 {
		t.Errorf("compiles = %d", be.calls.Load())
	}
	files := cacheFiles(t, dir)
	if len(files) != 1 || filepath.Base(files[0]) != r1.Key+".cubin" || filepath.Base(filepath.Dir(files[0])) != cacheSubdir {
		t.Fatalf("cache files: %v", files)
	}
	if c.Dir() != filepath.Join(dir, cacheSubdir) {
		t.Errorf("Dir() = %q", c.Dir())
	}

	// A fresh compiler (a new process) finds it on disk.
	c2, _ := newTestCompiler(t, be, dir)
	r3, err := c2.Get(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if r3.From != FromDisk || !bytes.Equal(r3.CUBIN, r1.CUBIN) {
		t.Errorf("fresh compiler: %+v", r3)
	}
	if s := c2.Stats(); s.DiskHits != 1 || s.Misses != 0 {
		t.Errorf("fresh stats: %+v", s)
	}
	if be.calls.Load() != 1 {
		t.Errorf("disk hit compiled again")
	}
}

func TestDefaultOptions(t *testing.T) {
	be := &fakeBackend{version: "v"}
	c := New(Config{Backend: be, NoDisk: true})
	if _, err := c.Get(baseReq()); err != nil {
		t.Fatal(err)
	}
	want := []string{"--gpu-architecture=sm_90", "-default-device", "--std=c++17", "-lineinfo", "-DBLOCK=256"}
	if !reflect.DeepEqual(be.lastOpts, want) {
		t.Errorf("options = %q, want %q", be.lastOpts, want)
	}
	for _, o := range be.lastOpts {
		if o == "-O3" {
			t.Error("-O3 must not be passed (NVRTC 13 rejects it)")
		}
	}
	if c.Dir() != "" {
		t.Errorf("NoDisk compiler has Dir %q", c.Dir())
	}
}

func TestKeyChangesWithEveryInput(t *testing.T) {
	c := New(Config{Backend: &fakeBackend{version: "fake 1.0"}, NoDisk: true})
	base, err := c.Key(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Key(baseReq()); again != base {
		t.Fatal("key is not deterministic")
	}
	// Header map order must not matter.
	r := baseReq()
	r.Headers = map[string]string{"b.h": "B", "a.h": "A"}
	k1, _ := c.Key(r)
	r.Headers = map[string]string{"a.h": "A", "b.h": "B"}
	k2, _ := c.Key(r)
	if k1 != k2 {
		t.Error("key depends on map iteration order")
	}

	mutations := map[string]func(*Request){
		"source":         func(r *Request) { r.Source += " " },
		"header content": func(r *Request) { r.Headers = map[string]string{"common.cuh": "#pragma once\n//x\n"} },
		"header name":    func(r *Request) { r.Headers = map[string]string{"common2.cuh": "#pragma once\n"} },
		"extra header":   func(r *Request) { r.Headers = map[string]string{"common.cuh": "#pragma once\n", "x.h": ""} },
		"option":         func(r *Request) { r.Options = []string{"-DBLOCK=512"} },
		"option order":   func(r *Request) { r.Options = []string{"-DA", "-DBLOCK=256"} },
		"no options":     func(r *Request) { r.Options = nil },
		"arch":           func(r *Request) { r.Arch = "sm_90a" },
		"name":           func(r *Request) { r.Name = "other.cu" },
		// Length prefixes: moving bytes between fields changes the key.
		"field boundary": func(r *Request) { r.Name = "softmax.cu#"; r.Source = strings.TrimPrefix(r.Source, "#") },
	}
	seen := map[string]string{base: "base"}
	for what, mut := range mutations {
		r := baseReq()
		mut(&r)
		k, err := c.Key(r)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("changing %s gives the same key as %s", what, prev)
		}
		seen[k] = what
	}
	// Compiler version.
	c2 := New(Config{Backend: &fakeBackend{version: "fake 1.1"}, NoDisk: true})
	if k, _ := c2.Key(baseReq()); k == base {
		t.Error("compiler version not in the key")
	}
}

func TestCorruptEntryIsRecompiledAndRewritten(t *testing.T) {
	t.Setenv(EnvCache, "")
	corruptions := map[string]func([]byte) []byte{
		"garbage":        func([]byte) []byte { return []byte("not a cache entry at all, definitely not") },
		"empty":          func([]byte) []byte { return nil },
		"truncated":      func(b []byte) []byte { return b[:len(b)-3] },
		"header only":    func(b []byte) []byte { return b[:entryHeaderSize] },
		"flipped byte":   func(b []byte) []byte { b = append([]byte(nil), b...); b[len(b)-1] ^= 0xff; return b },
		"bad magic":      func(b []byte) []byte { b = append([]byte(nil), b...); b[0] = 'X'; return b },
		"trailing bytes": func(b []byte) []byte { return append(append([]byte(nil), b...), 0) },
	}
	for what, corrupt := range corruptions {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			be := &fakeBackend{version: "fake 1.0"}
			c, _ := newTestCompiler(t, be, dir)
			r1, err := c.Get(baseReq())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, cacheSubdir, r1.Key+".cubin")
			good, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, corrupt(good), 0o644); err != nil {
				t.Fatal(err)
			}

			c2, _ := newTestCompiler(t, be, dir)
			r2, err := c2.Get(baseReq())
			if err != nil {
				t.Fatalf("corrupt entry was fatal: %v", err)
			}
			if r2.From != FromCompiler || !bytes.Equal(r2.CUBIN, r1.CUBIN) {
				t.Errorf("got %+v", r2)
			}
			if s := c2.Stats(); s.Corrupt != 1 || s.Misses != 1 || s.DiskHits != 0 {
				t.Errorf("stats: %+v", s)
			}
			rewritten, _ := os.ReadFile(path)
			if !bytes.Equal(rewritten, good) {
				t.Error("entry not rewritten")
			}
			c3, _ := newTestCompiler(t, be, dir)
			if r3, err := c3.Get(baseReq()); err != nil || r3.From != FromDisk {
				t.Errorf("after rewrite: %+v, %v", r3, err)
			}
		})
	}
}

func TestUnreadableEntryIsRecompiled(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads unreadable files")
	}
	if runtime.GOOS == "windows" {
		t.Skip("file modes cannot make a file unreadable on Windows")
	}
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "fake 1.0"}
	c, _ := newTestCompiler(t, be, dir)
	r1, err := c.Get(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, cacheSubdir, r1.Key+".cubin")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	c2, _ := newTestCompiler(t, be, dir)
	r2, err := c2.Get(baseReq())
	if err != nil || r2.From != FromCompiler {
		t.Fatalf("unreadable entry: %+v, %v", r2, err)
	}
	if s := c2.Stats(); s.Corrupt != 1 {
		t.Errorf("stats: %+v", s)
	}
}

func TestCacheOffWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	for _, v := range []string{"off", "OFF", "0", "false", "disabled"} {
		t.Setenv(EnvCache, v)
		be := &fakeBackend{version: "fake 1.0"}
		c := New(Config{Backend: be})
		for range 3 {
			if _, err := c.Get(baseReq()); err != nil {
				t.Fatal(err)
			}
		}
		if c.Dir() != "" {
			t.Errorf("%s=%s: Dir() = %q", EnvCache, v, c.Dir())
		}
		if be.calls.Load() != 1 {
			t.Errorf("%s=%s: in-memory cache not used (%d compiles)", EnvCache, v, be.calls.Load())
		}
	}
	if files := cacheFiles(t, dir); len(files) != 0 {
		t.Errorf("files written with the cache off: %v", files)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("directory entries created with the cache off: %v", entries)
	}
}

func TestCacheDirFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCache, "")
	t.Setenv(EnvCacheDir, dir)
	c := New(Config{Backend: &fakeBackend{version: "v"}})
	if _, err := c.Get(baseReq()); err != nil {
		t.Fatal(err)
	}
	if c.Dir() != filepath.Join(dir, cacheSubdir) || len(cacheFiles(t, dir)) != 1 {
		t.Errorf("Dir() = %q, files %v", c.Dir(), cacheFiles(t, dir))
	}
}

func TestCacheRoot(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	ucd := func() (string, error) { return "/home/u/.cache", nil }
	noUCD := func() (string, error) { return "", errors.New("no home") }
	cases := []struct {
		dir    string
		env    map[string]string
		ucd    func() (string, error)
		want   string
		wantOK bool
	}{
		{"", nil, ucd, filepath.Join("/home/u/.cache", "gofused-softmax"), true},
		{"", map[string]string{EnvCacheDir: "/x"}, ucd, "/x", true},
		{"/cfg", map[string]string{EnvCacheDir: "/x"}, ucd, "/cfg", true},
		{"", map[string]string{EnvCache: "off", EnvCacheDir: "/x"}, ucd, "", false},
		{"/cfg", map[string]string{EnvCache: "off"}, ucd, "", false},
		{"", map[string]string{EnvCache: "on"}, ucd, filepath.Join("/home/u/.cache", "gofused-softmax"), true},
		{"", nil, noUCD, "", false},
	}
	for _, c := range cases {
		got, ok := cacheRoot(c.dir, env(c.env), c.ucd)
		if got != c.want || ok != c.wantOK {
			t.Errorf("cacheRoot(%q, %v) = %q, %v; want %q, %v", c.dir, c.env, got, ok, c.want, c.wantOK)
		}
	}
}

func TestUncreatableDirDisablesCaching(t *testing.T) {
	t.Setenv(EnvCache, "")
	parent := t.TempDir()
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	be := &fakeBackend{version: "v"}
	c, logs := newTestCompiler(t, be, filepath.Join(blocker, "cache")) // a directory under a file
	for i := range 3 {
		r := baseReq()
		r.Options = []string{fmt.Sprintf("-DI=%d", i)}
		if _, err := c.Get(r); err != nil {
			t.Fatalf("Get with an unusable cache dir: %v", err)
		}
	}
	if c.Dir() != "" {
		t.Errorf("Dir() = %q", c.Dir())
	}
	if len(*logs) != 1 || !strings.Contains((*logs)[0], "kernel cache disabled") {
		t.Errorf("want one warning, got %q", *logs)
	}
	if s := c.Stats(); s.Misses != 3 || s.WriteErrors != 0 {
		t.Errorf("stats: %+v", s)
	}
}

// An entry path that is a directory cannot be read nor replaced: the request
// still succeeds, counted as a corrupt entry and a write error (this variant
// also works as root).
func TestEntryPathIsDirectory(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v"}
	c, logs := newTestCompiler(t, be, dir)
	key, err := c.Key(baseReq())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, cacheSubdir, key+".cubin", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := c.Get(baseReq())
	if err != nil || r.From != FromCompiler {
		t.Fatalf("Get: %+v, %v", r, err)
	}
	if s := c.Stats(); s.Corrupt != 1 || s.WriteErrors != 1 {
		t.Errorf("stats: %+v", s)
	}
	if len(*logs) != 1 || !strings.Contains((*logs)[0], "cannot write") {
		t.Errorf("logs: %q", *logs)
	}
	// No temporary files are left behind.
	for _, f := range cacheFiles(t, dir) {
		if strings.Contains(filepath.Base(f), ".tmp-") {
			t.Errorf("temporary file left: %s", f)
		}
	}
}

func TestWriteFailureIsNotFatal(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories")
	}
	if runtime.GOOS == "windows" {
		t.Skip("file modes cannot make a folder read-only on Windows")
	}
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, cacheSubdir), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, cacheSubdir), 0o755)
	c, logs := newTestCompiler(t, &fakeBackend{version: "v"}, dir)
	for i := range 2 {
		r := baseReq()
		r.Options = []string{fmt.Sprintf("-DI=%d", i)}
		if _, err := c.Get(r); err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Stats(); s.WriteErrors != 2 {
		t.Errorf("stats: %+v", s)
	}
	if len(*logs) != 1 {
		t.Errorf("want one warning, got %q", *logs)
	}
}

func TestConcurrentGetSameKey(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v", delay: 50 * time.Millisecond}
	c, _ := newTestCompiler(t, be, dir)
	const n = 64
	results := make([]*Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errs[i] = c.Get(baseReq())
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if !bytes.Equal(results[i].CUBIN, results[0].CUBIN) || results[i].Key != results[0].Key {
			t.Fatalf("goroutine %d got a different result", i)
		}
	}
	if got := be.calls.Load(); got != 1 {
		t.Errorf("compiled %d times, want 1", got)
	}
	s := c.Stats()
	if s.Misses != 1 || s.Shared+s.MemoryHits != n-1 {
		t.Errorf("stats: %+v", s)
	}
	if files := cacheFiles(t, dir); len(files) != 1 {
		t.Errorf("files: %v (temporary files left behind?)", files)
	}
}

func TestConcurrentDistinctKeysAndProcesses(t *testing.T) {
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	be := &fakeBackend{version: "v", delay: time.Millisecond}
	// Several compilers sharing a directory stand in for several processes.
	comps := []*Compiler{New(Config{Backend: be, Dir: dir}), New(Config{Backend: be, Dir: dir}), New(Config{Backend: be, Dir: dir})}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 8 {
				r := keyedReq(k)
				res, err := comps[g%len(comps)].Get(r)
				if err != nil || !bytes.Contains(res.CUBIN, []byte(fmt.Sprintf("-DK=%d", k))) {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d failed or wrong results", failed.Load())
	}
	files := cacheFiles(t, dir)
	if len(files) != 8 {
		t.Errorf("want 8 entries, got %d: %v", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if _, err := decodeEntry(b); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestCompileErrorNotCached(t *testing.T) {
	be := &fakeBackend{version: "v", fail: errors.New("NVRTC_ERROR_COMPILATION")}
	c := New(Config{Backend: be, NoDisk: true})
	for range 2 {
		_, err := c.Get(baseReq())
		if err == nil || !strings.Contains(err.Error(), "NVRTC_ERROR_COMPILATION") || !strings.Contains(err.Error(), "softmax.cu") {
			t.Fatalf("err = %v", err)
		}
	}
	if be.calls.Load() != 2 {
		t.Errorf("failure was cached: %d compiles", be.calls.Load())
	}
	if s := c.Stats(); s.Failures != 2 {
		t.Errorf("stats: %+v", s)
	}
	// The backend's typed error stays reachable.
	be.fail = &driver.NVRTCError{Op: "nvrtcCompileProgram", Code: driver.NVRTC_ERROR_COMPILATION, Name: "NVRTC_ERROR_COMPILATION", Log: "x.cu(1): error"}
	_, err := c.Get(baseReq())
	var ne *driver.NVRTCError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "x.cu(1): error") {
		t.Errorf("typed error lost: %v", err)
	}
}

func TestRequestValidation(t *testing.T) {
	c := New(Config{Backend: &fakeBackend{version: "v"}, NoDisk: true})
	for _, arch := range []string{"", "90", "compute_90", "sm90", "sm_", "sm_90 ", "sm_90ab"} {
		r := baseReq()
		r.Arch = arch
		if _, err := c.Get(r); err == nil {
			t.Errorf("arch %q accepted", arch)
		}
	}
	for _, arch := range []string{"sm_75", "sm_90a", "sm_100a", "sm_120f"} {
		r := baseReq()
		r.Arch = arch
		if _, err := c.Get(r); err != nil {
			t.Errorf("arch %q rejected: %v", arch, err)
		}
	}
	r := baseReq()
	r.Source = ""
	if _, err := c.Get(r); err == nil {
		t.Error("empty source accepted")
	}
	r = baseReq()
	r.Name = ""
	if res, err := c.Get(r); err != nil || res == nil {
		t.Errorf("default name: %v", err)
	}
}

func TestEntryEncoding(t *testing.T) {
	payload := []byte("\x7fELF some cubin bytes")
	enc := encodeEntry(payload)
	if len(enc) != entryHeaderSize+len(payload) || !bytes.HasPrefix(enc, entryMagic[:]) {
		t.Fatalf("encoding: %q", enc)
	}
	got, err := decodeEntry(enc)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("decode: %q, %v", got, err)
	}
	if _, err := decodeEntry(encodeEntry(nil)); err == nil {
		t.Error("empty payload accepted")
	}
}

// TestNVRTCIntegration compiles a real kernel when NVRTC is installed (it
// needs no GPU) and checks the disk round trip.
func TestNVRTCIntegration(t *testing.T) {
	n, err := driver.OpenNVRTC()
	if err != nil {
		t.Skip("no NVRTC: " + err.Error())
	}
	arch := "sm_80"
	if archs, err := n.SupportedArchs(); err == nil && len(archs) > 0 {
		found := false
		for _, a := range archs {
			found = found || a == 80
		}
		if !found {
			arch = fmt.Sprintf("sm_%d", archs[len(archs)-1])
		}
	}
	t.Setenv(EnvCache, "")
	dir := t.TempDir()
	req := Request{
		Name:    "scale.cu",
		Source:  "#include \"scale.h\"\nextern \"C\" __global__ void scale(float* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] *= SCALE; }\n",
		Headers: map[string]string{"scale.h": "#define SCALE 3.0f\n"},
		Arch:    arch,
	}
	c := New(Config{Dir: dir})
	r1, err := c.Get(req)
	if err != nil {
		t.Fatal(err)
	}
	if r1.From != FromCompiler || !bytes.HasPrefix(r1.CUBIN, []byte("\x7fELF")) {
		t.Fatalf("first: from %v, % x", r1.From, r1.CUBIN[:min(8, len(r1.CUBIN))])
	}
	r2, err := New(Config{Dir: dir}).Get(req)
	if err != nil || r2.From != FromDisk || !bytes.Equal(r2.CUBIN, r1.CUBIN) {
		t.Fatalf("second: %v, %v", r2, err)
	}
	bad := req
	bad.Source = "extern \"C\" __global__ void k() { oops }\n"
	_, err = c.Get(bad)
	var ne *driver.NVRTCError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "oops") {
		t.Errorf("compile error: %v", err)
	}
}
