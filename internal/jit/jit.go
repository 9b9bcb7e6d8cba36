// Package jit turns CUDA C++ kernel sources into CUBINs at run time and
// caches the results in memory and on disk.
//
// A Compiler compiles a Request (source, headers, program name, target
// architecture, extra options) with a Backend, NVRTC by default, using the
// options
//
//	--gpu-architecture=<arch> -default-device --std=c++17 -lineinfo <extra...>
//
// (no -O3: NVRTC 13 rejects it, and NVRTC optimises by default).
//
// # Disk cache
//
// CUBINs are stored under os.UserCacheDir()/gofused-softmax/cubin-v1/, or
// under $SOFTMAX_CACHE_DIR/cubin-v1/ when that variable is set;
// SOFTMAX_CACHE=off disables the disk cache. An entry is keyed by the SHA-256
// of everything that affects the output: source, header names and contents,
// the full option list, the architecture, the program name and the compiler
// version. Entries are written atomically (temporary file + rename) and carry
// a header (magic, payload length, SHA-256 of the payload); an entry that is
// unreadable, truncated or corrupt is recompiled and rewritten, never fatal.
// A cache directory that cannot be created disables disk caching with a
// one-time warning through Config.Logf.
//
// An entry's modification time marks its last use (a disk hit re-marks it
// once an hour at most). Once a day, the first disk access of a process
// removes the entries unused for DefaultMaxUnused (30 days) — kernels of
// earlier releases, which nothing loads any more — and temporary files of
// interrupted writes; trim.txt in the entry directory holds the last trim's
// time.
// Usage, Trim and Clear report and prune on demand (`softmax cache`).
//
// Concurrent requests for the same key are deduplicated: one goroutine
// compiles, the others wait for its result.
package jit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofused/softmax/internal/driver"
)

// Environment variables read by New.
const (
	// EnvCacheDir overrides the cache root (default
	// os.UserCacheDir()/gofused-softmax).
	EnvCacheDir = "SOFTMAX_CACHE_DIR"
	// EnvCache set to "off" (or 0, false, no, disable, disabled) turns the
	// disk cache off.
	EnvCache = "SOFTMAX_CACHE"
)

// cacheSubdir holds the CUBIN entries inside the cache root; the suffix is
// bumped whenever the entry format or the key derivation changes.
const cacheSubdir = "cubin-v1"

// An entry is <hex key>.cubin; a write in progress, .tmp-<random>.
const (
	entrySuffix = ".cubin"
	tempPrefix  = ".tmp-"
)

// Backend compiles CUDA C++ source to a CUBIN. It must be safe for
// concurrent use.
type Backend interface {
	// Version identifies the compiler build, e.g. "nvrtc 12.8". It is part
	// of the cache key, so a compiler upgrade invalidates old entries.
	Version() (string, error)
	// Compile compiles src; headers maps include names to contents. The log
	// is returned whether or not compilation succeeds.
	Compile(src, name string, headers map[string]string, opts []string) (cubin []byte, log string, err error)
}

// NVRTCBackend compiles with the process-wide NVRTC (driver.OpenNVRTC).
type NVRTCBackend struct{}

// Version returns "nvrtc <major>.<minor>", or the error of loading NVRTC.
func (NVRTCBackend) Version() (string, error) {
	n, err := driver.OpenNVRTC()
	if err != nil {
		return "", err
	}
	major, minor := n.Version()
	return fmt.Sprintf("nvrtc %d.%d", major, minor), nil
}

// Compile compiles with NVRTC.
func (NVRTCBackend) Compile(src, name string, headers map[string]string, opts []string) ([]byte, string, error) {
	return driver.Compile(src, name, headers, opts)
}

// Request is one kernel program to compile.
type Request struct {
	Name    string            // program name used in diagnostics, e.g. "softmax_f32.cu"; default "kernel.cu"
	Source  string            // CUDA C++ source; kernels should be extern "C"
	Headers map[string]string // include name (as in #include "name") -> contents
	Arch    string            // real architecture, e.g. "sm_90", "sm_90a", "sm_100a"
	Options []string          // extra NVRTC options, appended after the defaults
}

// Source says where a Result came from.
type Source int

// Result origins.
const (
	FromMemory   Source = iota // the in-process cache
	FromDisk                   // a valid disk cache entry
	FromCompiler               // a fresh compilation
)

// String returns "memory", "disk" or "compiler".
func (s Source) String() string {
	switch s {
	case FromMemory:
		return "memory"
	case FromDisk:
		return "disk"
	case FromCompiler:
		return "compiler"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Result is a compiled program.
type Result struct {
	CUBIN []byte // shared with the cache: do not modify
	Key   string // hex SHA-256 cache key
	Log   string // compiler log (warnings); empty when served from a cache
	From  Source
}

// Stats counts cache events since the Compiler was created.
type Stats struct {
	MemoryHits  int64 // served from the in-process cache
	DiskHits    int64 // served from a valid disk entry
	Misses      int64 // compilations started
	Shared      int64 // requests that waited for an identical in-flight request
	Corrupt     int64 // disk entries found unreadable, truncated or corrupt
	WriteErrors int64 // failed disk writes
	Failures    int64 // compilations that failed
}

// Config configures New. The zero value gives NVRTC with the default cache
// location, honouring SOFTMAX_CACHE and SOFTMAX_CACHE_DIR.
type Config struct {
	// Backend compiles; nil means NVRTCBackend.
	Backend Backend
	// Dir is the cache root; "" means $SOFTMAX_CACHE_DIR, else
	// os.UserCacheDir()/gofused-softmax. Entries go to Dir/cubin-v1.
	Dir string
	// NoDisk disables the disk cache regardless of the environment.
	NoDisk bool
	// Logf receives one-time warnings (cache directory unusable, write
	// failures). nil discards them.
	Logf func(format string, args ...any)
}

// Compiler compiles and caches kernels. It is safe for concurrent use.
type Compiler struct {
	backend Backend
	logf    func(string, ...any)

	dir      string // entry directory; "" when the disk cache is off
	dirOnce  sync.Once
	dirOK    bool
	warnOnce sync.Once

	verOnce sync.Once
	version string
	verErr  error

	now func() time.Time // the clock of use marks and trims

	mu       sync.Mutex
	mem      map[string][]byte
	inflight map[string]*flight
	stats    Stats
}

type flight struct {
	done chan struct{}
	res  *Result
	err  error
}

// New returns a Compiler configured by cfg and the environment.
func New(cfg Config) *Compiler {
	c := &Compiler{
		backend:  cfg.Backend,
		logf:     cfg.Logf,
		now:      time.Now,
		mem:      map[string][]byte{},
		inflight: map[string]*flight{},
	}
	if c.backend == nil {
		c.backend = NVRTCBackend{}
	}
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	if !cfg.NoDisk {
		root, ok := cacheRoot(cfg.Dir, os.Getenv, os.UserCacheDir)
		if ok {
			c.dir = filepath.Join(root, cacheSubdir)
		}
	}
	return c
}

var (
	defaultOnce sync.Once
	defaultComp *Compiler
)

// Default returns the process-wide NVRTC Compiler (created on first use
// with the zero Config).
func Default() *Compiler {
	defaultOnce.Do(func() { defaultComp = New(Config{}) })
	return defaultComp
}

// cacheRoot resolves the cache root. ok is false when the disk cache is
// disabled by the environment or no location can be determined.
func cacheRoot(dir string, getenv func(string) string, userCacheDir func() (string, error)) (root string, ok bool) {
	switch strings.ToLower(strings.TrimSpace(getenv(EnvCache))) {
	case "off", "0", "false", "no", "disable", "disabled":
		return "", false
	}
	if dir != "" {
		return dir, true
	}
	if d := strings.TrimSpace(getenv(EnvCacheDir)); d != "" {
		return d, true
	}
	base, err := userCacheDir()
	if err != nil || base == "" {
		return "", false
	}
	return filepath.Join(base, "gofused-softmax"), true
}

// Dir returns the directory holding the cache entries, or "" when the disk
// cache is disabled (by configuration, or because it could not be created).
func (c *Compiler) Dir() string {
	if c.dir == "" || !c.ensureDir() {
		return ""
	}
	return c.dir
}

// Stats returns a snapshot of the counters.
func (c *Compiler) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

var archRE = regexp.MustCompile(`^sm_[0-9]+[a-z]?$`)

// Options returns the full NVRTC option list for req.
func Options(req Request) []string {
	opts := []string{"--gpu-architecture=" + req.Arch, "-default-device", "--std=c++17", "-lineinfo"}
	return append(opts, req.Options...)
}

func (req *Request) normalise() error {
	if req.Name == "" {
		req.Name = "kernel.cu"
	}
	if req.Source == "" {
		return errors.New("jit: empty source")
	}
	if !archRE.MatchString(req.Arch) {
		return fmt.Errorf("jit: architecture %q is not a real SM architecture like sm_90 (a CUBIN needs one)", req.Arch)
	}
	return nil
}

func (c *Compiler) backendVersion() (string, error) {
	c.verOnce.Do(func() { c.version, c.verErr = c.backend.Version() })
	return c.version, c.verErr
}

// Key returns the cache key of req: the hex SHA-256 of the compiler version,
// architecture, program name, source, headers (sorted by name) and full
// option list, each length-prefixed.
func (c *Compiler) Key(req Request) (string, error) {
	if err := req.normalise(); err != nil {
		return "", err
	}
	v, err := c.backendVersion()
	if err != nil {
		return "", err
	}
	return cacheKey(v, req), nil
}

func cacheKey(version string, req Request) string {
	h := sha256.New()
	var n [8]byte
	field := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field("gofused-softmax/jit key v1")
	field(version)
	field(req.Arch)
	field(req.Name)
	field(req.Source)
	names := make([]string, 0, len(req.Headers))
	for k := range req.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	field(fmt.Sprint(len(names)))
	for _, k := range names {
		field(k)
		field(req.Headers[k])
	}
	opts := Options(req)
	field(fmt.Sprint(len(opts)))
	for _, o := range opts {
		field(o)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Get returns the CUBIN for req: from memory, from disk, or by compiling
// (and then storing it). Identical concurrent requests compile once. A
// compile failure is returned (with the log in the error) and not cached.
func (c *Compiler) Get(req Request) (*Result, error) {
	if err := req.normalise(); err != nil {
		return nil, err
	}
	v, err := c.backendVersion()
	if err != nil {
		return nil, err
	}
	key := cacheKey(v, req)

	c.mu.Lock()
	if b, ok := c.mem[key]; ok {
		c.stats.MemoryHits++
		c.mu.Unlock()
		return &Result{CUBIN: b, Key: key, From: FromMemory}, nil
	}
	if f, ok := c.inflight[key]; ok {
		c.stats.Shared++
		c.mu.Unlock()
		<-f.done
		if f.err != nil {
			return nil, f.err
		}
		r := *f.res
		return &r, nil
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		delete(c.inflight, key)
		if f.err == nil && f.res != nil {
			c.mem[key] = f.res.CUBIN
		}
		c.mu.Unlock()
		close(f.done)
	}()
	f.err = errors.New("jit: compiler panicked") // replaced unless load panics
	f.res, f.err = c.load(key, req)
	if f.err != nil {
		return nil, f.err
	}
	r := *f.res
	return &r, nil
}

// load serves key from disk or compiles it.
func (c *Compiler) load(key string, req Request) (*Result, error) {
	if b, ok := c.readEntry(key); ok {
		c.mu.Lock()
		c.stats.DiskHits++
		c.mu.Unlock()
		return &Result{CUBIN: b, Key: key, From: FromDisk}, nil
	}
	c.mu.Lock()
	c.stats.Misses++
	c.mu.Unlock()
	cubin, log, err := c.backend.Compile(req.Source, req.Name, req.Headers, Options(req))
	if err == nil && len(cubin) == 0 {
		err = errors.New("jit: compiler returned an empty CUBIN")
	}
	if err != nil {
		c.mu.Lock()
		c.stats.Failures++
		c.mu.Unlock()
		return nil, fmt.Errorf("jit: compiling %s for %s: %w", req.Name, req.Arch, err)
	}
	c.writeEntry(key, cubin)
	return &Result{CUBIN: cubin, Key: key, Log: log, From: FromCompiler}, nil
}

// ---- disk entries ----

// Entry layout: magic (8 bytes) | payload length (uint64 LE) | SHA-256 of
// the payload (32 bytes) | payload.
var entryMagic = [8]byte{'G', 'F', 'S', 'M', 'C', 'U', 'B', 1}

const entryHeaderSize = 8 + 8 + sha256.Size

func encodeEntry(payload []byte) []byte {
	out := make([]byte, entryHeaderSize+len(payload))
	copy(out, entryMagic[:])
	binary.LittleEndian.PutUint64(out[8:], uint64(len(payload)))
	sum := sha256.Sum256(payload)
	copy(out[16:], sum[:])
	copy(out[entryHeaderSize:], payload)
	return out
}

// decodeEntry validates an entry and returns its payload.
func decodeEntry(b []byte) ([]byte, error) {
	if len(b) < entryHeaderSize {
		return nil, fmt.Errorf("truncated header (%d bytes)", len(b))
	}
	if !bytes.Equal(b[:8], entryMagic[:]) {
		return nil, errors.New("bad magic")
	}
	n := binary.LittleEndian.Uint64(b[8:])
	payload := b[entryHeaderSize:]
	if uint64(len(payload)) != n {
		return nil, fmt.Errorf("payload is %d bytes, header says %d", len(payload), n)
	}
	if n == 0 {
		return nil, errors.New("empty payload")
	}
	sum := sha256.Sum256(payload)
	if !bytes.Equal(sum[:], b[16:entryHeaderSize]) {
		return nil, errors.New("checksum mismatch")
	}
	return payload, nil
}

func (c *Compiler) entryPath(key string) string {
	return filepath.Join(c.dir, key+entrySuffix)
}

// ensureDir creates the entry directory once; on failure the disk cache is
// disabled with a one-time warning.
func (c *Compiler) ensureDir() bool {
	c.dirOnce.Do(func() {
		if err := os.MkdirAll(c.dir, 0o755); err != nil {
			c.logf("softmax/jit: kernel cache disabled: %v", err)
			return
		}
		c.dirOK = true
		c.autoTrim()
	})
	return c.dirOK
}

// readEntry returns a valid cached payload. Anything wrong with the entry
// other than its absence is counted as corrupt; the caller recompiles.
func (c *Compiler) readEntry(key string) ([]byte, bool) {
	if c.dir == "" || !c.ensureDir() {
		return nil, false
	}
	path := c.entryPath(key)
	b, info, err := readWithInfo(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.mu.Lock()
			c.stats.Corrupt++
			c.mu.Unlock()
		}
		return nil, false
	}
	payload, err := decodeEntry(b)
	if err != nil {
		c.mu.Lock()
		c.stats.Corrupt++
		c.mu.Unlock()
		return nil, false
	}
	c.markUsed(path, info)
	return payload, true
}

// readWithInfo reads a file and returns its metadata as of the read.
func readWithInfo(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(f)
	return b, info, err
}

// writeEntry stores payload atomically: a temporary file in the same
// directory, renamed over the final name. Failures are counted and warned
// about once; they never fail the request.
func (c *Compiler) writeEntry(key string, payload []byte) {
	if c.dir == "" || !c.ensureDir() {
		return
	}
	if err := writeFileAtomic(c.dir, c.entryPath(key), encodeEntry(payload)); err != nil {
		c.mu.Lock()
		c.stats.WriteErrors++
		c.mu.Unlock()
		c.warnOnce.Do(func() { c.logf("softmax/jit: cannot write kernel cache entry: %v", err) })
	}
}

func writeFileAtomic(dir, path string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
