package jit

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// An entry's modification time is its last use: a disk hit re-marks an
// entry whose mark is older than useMarkInterval, so a hot entry costs one
// metadata write an hour rather than one per load (Go's build cache does
// the same). Entries nothing asks for any more — those of an earlier
// release's kernels, or of a kernel-to-module split that changed — keep
// their last mark and age out.
const (
	useMarkInterval = time.Hour
	// autoTrimInterval is how often, at most, a process trims on its own;
	// the last time is kept in trimStampName in the entry directory.
	autoTrimInterval = 24 * time.Hour
	trimStampName    = "trim.txt"
	// staleTempAge is when a temporary file is a crashed write's leftover
	// rather than a write in progress (a write takes milliseconds).
	staleTempAge = time.Hour
)

// DefaultMaxUnused is how long an entry may go unused before the automatic
// trim removes it.
const DefaultMaxUnused = 30 * 24 * time.Hour

// CacheUsage describes the disk cache's entries.
type CacheUsage struct {
	Dir     string // the entry directory; "" when the disk cache is off
	Entries int
	Bytes   int64
	// OldestUse and NewestUse bound the entries' last uses (to within an
	// hour); zero when there are no entries.
	OldestUse, NewestUse time.Time
}

// TrimResult counts what a trim removed and kept.
type TrimResult struct {
	Removed      int // entries removed
	RemovedBytes int64
	Kept         int // entries kept
	KeptBytes    int64
	Temps        int // leftover temporary files removed
}

// isEntryName reports whether name is a cache entry's file name: the hex
// SHA-256 key and the suffix. Anything else in the directory is left alone.
func isEntryName(name string) bool {
	key, ok := strings.CutSuffix(name, entrySuffix)
	if !ok || len(key) != 2*32 {
		return false
	}
	_, err := hex.DecodeString(key)
	return err == nil
}

// walkEntries calls fn for each entry and each temporary file in the entry
// directory. A directory that does not exist has none.
func (c *Compiler) walkEntries(fn func(name string, info fs.FileInfo, temp bool) error) error {
	if c.dir == "" {
		return nil
	}
	des, err := os.ReadDir(c.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("jit: reading the kernel cache: %w", err)
	}
	for _, de := range des {
		name := de.Name()
		temp := strings.HasPrefix(name, tempPrefix)
		if !de.Type().IsRegular() || (!temp && !isEntryName(name)) {
			continue
		}
		info, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed by another process meanwhile
		}
		if err != nil {
			return fmt.Errorf("jit: reading the kernel cache: %w", err)
		}
		if err := fn(name, info, temp); err != nil {
			return err
		}
	}
	return nil
}

// Usage reports the disk cache's entries. It creates nothing.
func (c *Compiler) Usage() (CacheUsage, error) {
	u := CacheUsage{Dir: c.dir}
	err := c.walkEntries(func(_ string, info fs.FileInfo, temp bool) error {
		if temp {
			return nil
		}
		u.Entries++
		u.Bytes += info.Size()
		t := info.ModTime()
		if u.OldestUse.IsZero() || t.Before(u.OldestUse) {
			u.OldestUse = t
		}
		if t.After(u.NewestUse) {
			u.NewestUse = t
		}
		return nil
	})
	return u, err
}

// Trim removes the entries not used for maxUnused or longer, and temporary
// files left by interrupted writes. An entry removed while another process
// wants it is compiled again there, never an error.
func (c *Compiler) Trim(maxUnused time.Duration) (TrimResult, error) {
	if maxUnused <= 0 {
		return TrimResult{}, fmt.Errorf("jit: trim age %v: must be positive (Clear removes every entry)", maxUnused)
	}
	cutoff := c.now().Add(-maxUnused)
	return c.remove(func(lastUse time.Time) bool { return lastUse.Before(cutoff) })
}

// Clear removes every entry (and stale temporary files). The in-process
// cache is kept: kernels already loaded stay usable.
func (c *Compiler) Clear() (TrimResult, error) {
	return c.remove(func(time.Time) bool { return true })
}

// remove removes the entries whose last use `unused` accepts.
func (c *Compiler) remove(unused func(lastUse time.Time) bool) (TrimResult, error) {
	var r TrimResult
	tempCutoff := c.now().Add(-staleTempAge)
	err := c.walkEntries(func(name string, info fs.FileInfo, temp bool) error {
		path := filepath.Join(c.dir, name)
		switch {
		case temp:
			if info.ModTime().Before(tempCutoff) && removeIfThere(path) == nil {
				r.Temps++
			}
			return nil
		case unused(info.ModTime()):
			if err := removeIfThere(path); err != nil {
				return fmt.Errorf("jit: trimming the kernel cache: %w", err)
			}
			r.Removed++
			r.RemovedBytes += info.Size()
		default:
			r.Kept++
			r.KeptBytes += info.Size()
		}
		return nil
	})
	return r, err
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// autoTrim trims entries unused for DefaultMaxUnused when the last trim
// (of any process) is autoTrimInterval old or there has been none. The
// stamp is written first so that processes starting together do not all
// walk the directory. Failures are warned about; they never fail a load.
func (c *Compiler) autoTrim() {
	stamp := filepath.Join(c.dir, trimStampName)
	now := c.now()
	if b, err := os.ReadFile(stamp); err == nil {
		if ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			if last := time.Unix(0, ns); now.Sub(last) < autoTrimInterval && !last.After(now) {
				return
			}
		}
	}
	if err := writeFileAtomic(c.dir, stamp, []byte(strconv.FormatInt(now.UnixNano(), 10)+"\n")); err != nil {
		c.logf("softmax/jit: kernel cache not trimmed: %v", err)
		return
	}
	if _, err := c.Trim(DefaultMaxUnused); err != nil {
		c.logf("softmax/jit: %v", err)
	}
}

// markUsed re-marks the entry at path as used now when its mark is
// useMarkInterval old. Another user's entry in a shared cache refuses
// explicit times, so it is touched instead. A failed mark only lets the
// entry age out sooner.
func (c *Compiler) markUsed(path string, info fs.FileInfo) {
	if now := c.now(); now.Sub(info.ModTime()) >= useMarkInterval {
		if err := os.Chtimes(path, now, now); errors.Is(err, fs.ErrPermission) {
			_ = touchNow(path)
		}
	}
}
