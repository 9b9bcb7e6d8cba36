package cuda

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// The autotuning cache file is JSON:
//
//	{
//	  "version": 1,
//	  "entries": {
//	    "NVIDIA H200 sm_90|f32|softmax|rows<=4096 cols<=65536 vec16": {
//	      "device": "NVIDIA H200", "arch": "sm_90", "dtype": "f32", "op": "softmax",
//	      "class": "rows<=4096 cols<=65536 vec16", "shape": [4096, 65536], "axis": -1,
//	      "strategy": "split_row", "us": 310.2, "default": "online_2pass", "default_us": 342.9,
//	      "candidates": [{"strategy": "split_row", "us": 310.2}, ...],
//	      "reps": 20, "tuned_at": "2026-11-23T10:00:00Z"
//	    }
//	  }
//	}
const (
	tuneFileVersion = 1
	tuneFileName    = "tuned.json"
)

type tuneFile struct {
	Version int                  `json:"version"`
	Entries map[string]TuneEntry `json:"entries"`
}

// Warnf receives the package's warnings: an autotuning cache that cannot
// be read or is corrupt (it is then ignored, and each message is given
// once per process). The default writes "softmax: warning: ..." to standard
// error. Replace it before the first call with Options.Tuned (it is not
// synchronised); it must not call back into this package.
var Warnf = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "softmax: warning: "+format+"\n", args...)
}

// TuneCachePath returns the autotuning cache file:
// $SOFTMAX_CACHE_DIR/tuned.json when that variable is set (the root the
// kernel cache uses too), else os.UserCacheDir()/gofused-softmax/tuned.json
// ($XDG_CACHE_HOME or ~/.cache on Linux). SOFTMAX_CACHE=off, which turns
// the kernel cache off, does not affect it.
func TuneCachePath() (string, error) {
	if d := strings.TrimSpace(os.Getenv(jit.EnvCacheDir)); d != "" {
		return filepath.Join(d, tuneFileName), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cuda: no location for the autotuning cache (set %s): %w", jit.EnvCacheDir, err)
	}
	return filepath.Join(base, "gofused-softmax", tuneFileName), nil
}

// corruptError says a cache file exists and was read but is not a valid
// cache.
type corruptError struct {
	path, why string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("autotuning cache %s is corrupt (%s)", e.path, e.why)
}

// readTuneFile reads and checks a cache file. A missing file gives nil
// entries and no error; a file that is not a valid cache gives a
// *corruptError.
func readTuneFile(path string) (map[string]TuneEntry, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the autotuning cache: %w", err)
	}
	var f tuneFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, &corruptError{path, err.Error()}
	}
	if f.Version != tuneFileVersion {
		return nil, &corruptError{path, fmt.Sprintf("version %d, want %d", f.Version, tuneFileVersion)}
	}
	for k, e := range f.Entries {
		if e.Strategy == "" {
			return nil, &corruptError{path, fmt.Sprintf("entry %q has no strategy", k)}
		}
	}
	if f.Entries == nil {
		f.Entries = map[string]TuneEntry{}
	}
	return f.Entries, nil
}

// writeTuneFile writes the entries atomically: a temporary file in the
// same directory, renamed over path.
func writeTuneFile(path string, entries map[string]TuneEntry) error {
	b, err := json.MarshalIndent(tuneFile{Version: tuneFileVersion, Entries: entries}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tuned-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if e := tmp.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// tuneCache is the process's view of a cache file, read on first use.
type tuneCache struct {
	mu      sync.Mutex
	path    string // "" until resolved (TuneCachePath)
	loaded  bool
	entries map[string]TuneEntry
	rows    map[string][]plan.Row // overlay's rows by device key prefix
	warned  map[string]bool
	warnf   func(format string, args ...any) // nil: Warnf
}

// defaultTuneCache is the cache Options.Tuned and SaveTuned use.
var defaultTuneCache = &tuneCache{}

// warn gives msg once per process (per cache).
func (c *tuneCache) warn(msg string) {
	c.mu.Lock()
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	seen := c.warned[msg]
	c.warned[msg] = true
	c.mu.Unlock()
	if seen {
		return
	}
	if c.warnf != nil {
		c.warnf("%s", msg)
	} else {
		Warnf("%s", msg)
	}
}

// resolve returns the cache file's path (c.mu held).
func (c *tuneCache) resolve() (string, error) {
	if c.path == "" {
		p, err := TuneCachePath()
		if err != nil {
			return "", err
		}
		c.path = p
	}
	return c.path, nil
}

// load reads the file on first use and returns the entries; an unreadable
// or corrupt file is ignored with a warning.
func (c *tuneCache) load() map[string]TuneEntry {
	c.mu.Lock()
	var msg string
	if !c.loaded {
		c.loaded = true
		path, err := c.resolve()
		if err == nil {
			c.entries, err = readTuneFile(path)
		}
		if err != nil {
			msg = err.Error() + "; tuned choices are ignored"
		}
	}
	entries := c.entries
	c.mu.Unlock()
	if msg != "" {
		c.warn(msg)
	}
	return entries
}

// lookup returns the entry stored under key, reading the file on first use.
func (c *tuneCache) lookup(key string) (TuneEntry, bool) {
	e, ok := c.load()[key]
	return e, ok
}

// overlay returns the entries tuned on dev as rows of the planner's table
// (plan.TunedRow), made once per loaded file. An entry whose shape, dtype
// or op no longer parses is left out.
func (c *tuneCache) overlay(dev plan.Device) []plan.Row {
	entries := c.load()
	prefix := fmt.Sprintf("%s sm_%d%d|", dev.Name, dev.Major, dev.Minor)
	c.mu.Lock()
	defer c.mu.Unlock()
	if rows, ok := c.rows[prefix]; ok {
		return rows
	}
	var rows []plan.Row
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		e := entries[k]
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		l, err1 := spec.Decompose(e.Shape, e.Axis)
		dt, err2 := spec.ParseDType(e.DType)
		op, err3 := spec.ParseOp(e.Op)
		if err := errors.Join(err1, err2, err3); err != nil {
			continue
		}
		p := plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: op, Aligned: true}
		why := fmt.Sprintf("%s: %.1f µs vs %s %.1f µs on %v", tuneFileName, e.US, e.Default, e.DefaultUS, e.Shape)
		if r, err := plan.TunedRow("tuned:"+e.Class, p, e.Strategy, why); err == nil {
			rows = append(rows, r)
		}
	}
	if c.rows == nil {
		c.rows = map[string][]plan.Row{}
	}
	c.rows[prefix] = rows
	return rows
}

// TunedTable returns the planner's preference table for the device with
// the autotuning cache's winners for it laid over it (plan.TunedRow): what
// Options.Tuned plans with.
func (d *Device) TunedTable() (plan.Table, error) {
	dev := d.planDevice()
	return plan.TableFor(plan.ModelOf(dev), defaultTuneCache.overlay(dev))
}

// plan returns the plan of the cached winner for p on dev: the planner
// matches the device's tuned rows (plan.Tuned, the shipped table's user
// overlay), and build plans the first matching row's strategy, forced
// (Device plans through its plan cache); ok is false when no row matches
// or its strategy cannot plan p (the caller then uses the table).
func (c *tuneCache) plan(p plan.Problem, dev plan.Device, build func(strategy string) (plan.Plan, error)) (plan.Plan, bool) {
	rows, err := plan.Tuned(c.overlay(dev), p, dev)
	if err != nil {
		return plan.Plan{}, false
	}
	for _, r := range rows {
		for _, s := range r.Cands {
			if pl, err := build(s); err == nil {
				pl.Reason = fmt.Sprintf("%s [%s]: %s", r.ID, r.Evidence, strings.TrimPrefix(pl.Reason, "forced: "))
				return pl, true
			}
		}
	}
	return plan.Plan{}, false
}

// save merges results into the file (re-read now, so that entries other
// processes wrote meanwhile are kept), writes it atomically and makes the
// merged entries this process's view. A corrupt file is replaced, with a
// warning. It returns the path and the number of entries in the file.
func (c *tuneCache) save(results []TuneResult) (string, int, error) {
	c.mu.Lock()
	path, err := c.resolve()
	if err != nil {
		c.mu.Unlock()
		return "", 0, err
	}
	var msg string
	old, err := readTuneFile(path)
	var ce *corruptError
	switch {
	case errors.As(err, &ce):
		msg = err.Error() + "; replacing it"
	case err != nil:
		c.mu.Unlock()
		return path, 0, err
	}
	merged := map[string]TuneEntry{}
	for k, e := range old {
		merged[k] = e
	}
	for _, r := range results {
		merged[r.Key] = r.Entry
	}
	err = writeTuneFile(path, merged)
	if err == nil {
		c.entries, c.loaded, c.rows = merged, true, nil
	}
	c.mu.Unlock()
	if msg != "" {
		c.warn(msg)
	}
	if err != nil {
		return path, 0, fmt.Errorf("cuda: writing the autotuning cache: %w", err)
	}
	return path, len(merged), nil
}

// reset forgets the loaded entries, the resolved path and the warnings
// given (tests).
func (c *tuneCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.path, c.loaded, c.entries, c.rows, c.warned = "", false, nil, nil, nil
}

// SaveTuned merges results into the autotuning cache file (TuneCachePath),
// replacing the entries of the same keys and keeping the others, writes it
// atomically (temporary file + rename), and makes this process's calls
// with Options.Tuned use the new entries at once. A corrupt cache file is
// replaced (with a warning through Warnf). It returns the file's path and
// the number of entries it now holds.
func SaveTuned(results []TuneResult) (path string, entries int, err error) {
	return defaultTuneCache.save(results)
}

// ReadTuneCache reads the autotuning cache file afresh and returns its path
// and entries by key. A missing file gives no entries and no error; an
// unreadable or corrupt one gives an error.
func ReadTuneCache() (path string, entries map[string]TuneEntry, err error) {
	if path, err = TuneCachePath(); err != nil {
		return "", nil, err
	}
	entries, err = readTuneFile(path)
	if err == nil && entries == nil {
		entries = map[string]TuneEntry{}
	}
	return path, entries, err
}
