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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// The autotuning cache file, tuned.tsv, is a user overlay of the planner's
// preference table: the table's columns (plan.TableHeader), one row an entry
// (plan.TunedRow: its dtype, op and shape class), the cache key as the id and
// the timings as the evidence cell, "key=value" fields:
//
//	NVIDIA H200 sm_90|f32|softmax|rows<=4096 cols<=65536 vec16	rows	vec	softmax	f32	2049..4096	32769..65536	*	*	*	split_row	us=310.2 default=online_2pass default_us=342.9 shape=4096x65536 axis=-1 reps=20 at=2026-11-23T10:00:00Z timed=split_row:310.2,online_2pass:342.9
//
// The JSON file of earlier versions, tuned.json beside it, is read where no
// tuned.tsv exists (and left as it is: the next save writes tuned.tsv).
const (
	tuneFileName    = "tuned.tsv"
	legacyTuneFile  = "tuned.json"
	tuneFileVersion = 1 // of tuned.json
)

// tuneFile is the legacy JSON file.
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
// $SOFTMAX_CACHE_DIR/tuned.tsv when that variable is set (the root the
// kernel cache uses too), else os.UserCacheDir()/gofused-softmax/tuned.tsv
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

// readTuneFile reads and checks a cache file (tuned.tsv; tuned.json beside
// it where it is missing, or a .json path: the legacy format). A missing
// file gives nil entries and no error; a file that is not a valid cache
// gives a *corruptError.
func readTuneFile(path string) (map[string]TuneEntry, error) {
	if strings.HasSuffix(path, ".json") {
		return readTuneJSON(path)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return readTuneJSON(filepath.Join(filepath.Dir(path), legacyTuneFile))
	}
	if err != nil {
		return nil, fmt.Errorf("reading the autotuning cache: %w", err)
	}
	rows, err := plan.ParseOverlay(string(b))
	if err != nil {
		return nil, &corruptError{path, err.Error()}
	}
	entries := map[string]TuneEntry{}
	for _, r := range rows {
		e, err := entryOf(r)
		if err != nil {
			return nil, &corruptError{path, fmt.Sprintf("row %q: %v", r.ID, err)}
		}
		entries[r.ID] = e
	}
	return entries, nil
}

// readTuneJSON reads a legacy tuned.json.
func readTuneJSON(path string) (map[string]TuneEntry, error) {
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

// entryRow is the cache row of entry e under key.
func entryRow(key string, e TuneEntry) (string, error) {
	l, err1 := spec.Decompose(e.Shape, e.Axis)
	dt, err2 := spec.ParseDType(e.DType)
	op, err3 := spec.ParseOp(e.Op)
	if err := errors.Join(err1, err2, err3); err != nil {
		return "", fmt.Errorf("entry %q: %w", key, err)
	}
	if e.Strategy == "" || strings.ContainsAny(key+e.Strategy+e.Default, "\t\n") {
		return "", fmt.Errorf("entry %q: strategy %q, default %q", key, e.Strategy, e.Default)
	}
	shape := make([]string, len(e.Shape))
	for i, n := range e.Shape {
		shape[i] = strconv.Itoa(n)
	}
	timed := make([]string, len(e.Candidates))
	for i, t := range e.Candidates {
		timed[i] = t.Strategy + ":" + ftoa(t.US)
	}
	ev := fmt.Sprintf("us=%s default=%s default_us=%s shape=%s axis=%d reps=%d at=%s timed=%s", ftoa(e.US), e.Default, ftoa(e.DefaultUS),
		strings.Join(shape, "x"), e.Axis, e.Reps, e.TunedAt.Format(time.RFC3339Nano), strings.Join(timed, ","))
	p := plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: op, Aligned: true}
	r, err := plan.TunedRow(key, p, e.Strategy, ev)
	if err != nil {
		return "", fmt.Errorf("entry %q: %w", key, err)
	}
	return r.String(), nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// entryOf reads an entry back from its cache row.
func entryOf(r plan.Row) (TuneEntry, error) {
	cells := r.Cells()
	dev, class, ok1 := strings.Cut(r.ID, "|")
	name, arch, ok2 := strings.Cut(dev, " sm_")
	if i := strings.LastIndex(class, "|"); i >= 0 {
		class = class[i+1:]
	}
	if !ok1 || !ok2 || len(r.Cands) != 1 || r.Cands[0] == "" {
		return TuneEntry{}, fmt.Errorf("want the id DEVICE sm_NN|dtype|op|class and one strategy")
	}
	e := TuneEntry{Device: name, Arch: "sm_" + arch, DType: cells[4], Op: cells[3], Class: class, Strategy: r.Cands[0]}
	var err error
	num := func(v string, dst *float64) {
		if x, e := strconv.ParseFloat(v, 64); e != nil {
			err = errors.Join(err, e)
		} else {
			*dst = x
		}
	}
	seen := map[string]bool{}
	for _, f := range strings.Fields(r.Evidence) {
		k, v, _ := strings.Cut(f, "=")
		seen[k] = true
		switch k {
		case "us":
			num(v, &e.US)
		case "default":
			e.Default = v
		case "default_us":
			num(v, &e.DefaultUS)
		case "shape":
			for _, d := range strings.Split(v, "x") {
				n, e2 := strconv.Atoi(d)
				err = errors.Join(err, e2)
				e.Shape = append(e.Shape, n)
			}
		case "axis", "reps":
			n, e2 := strconv.Atoi(v)
			err = errors.Join(err, e2)
			if k == "axis" {
				e.Axis = n
			} else {
				e.Reps = n
			}
		case "at":
			var e2 error
			e.TunedAt, e2 = time.Parse(time.RFC3339Nano, v)
			err = errors.Join(err, e2)
		case "timed":
			for _, t := range strings.Split(v, ",") {
				if s, us, ok := strings.Cut(t, ":"); ok {
					e.Candidates = append(e.Candidates, TuneTiming{Strategy: s})
					num(us, &e.Candidates[len(e.Candidates)-1].US)
				}
			}
		}
	}
	if !seen["us"] || !seen["shape"] || !seen["axis"] {
		err = errors.Join(err, fmt.Errorf("evidence %q lacks us, shape or axis", r.Evidence))
	}
	return e, err
}

// writeTuneFile writes the entries atomically as rows (sorted by key): a
// temporary file in the same directory, renamed over path.
func writeTuneFile(path string, entries map[string]TuneEntry) error {
	var b strings.Builder
	b.WriteString("# gofused/softmax autotuning cache: rows laid over the planner's table (softmax plan --rules --tuned)\n")
	b.WriteString(plan.TableHeader() + "\n")
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		line, err := entryRow(k, entries[k])
		if err != nil {
			return err
		}
		b.WriteString(line + "\n")
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
	_, err = tmp.WriteString(b.String())
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
