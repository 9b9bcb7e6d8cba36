package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/jit"
)

func init() {
	addCommand(&command{name: "cache", summary: "show, trim or clear the compiled-kernel cache", run: runCache})
}

const cacheSynopsis = `softmax cache [show]
  softmax cache trim [--unused-for AGE]
  softmax cache clear

show (the default) reports the compiled-kernel cache: its directory, its
entries, their size and last uses. trim removes the entries unused for AGE
(a Go duration such as 72h, or days such as 30d; default 30d), and clear
removes every entry. A removed kernel is compiled again when a launch next
needs it (0.6 s on average). Without these, a process trims entries unused
for 30 days once a day. The autotuning cache (softmax tune) is measurements,
not compiler output: it is shown but never removed here.`

func runCache(e *env, args []string) error {
	action := "show"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	fs := flagSet("cache")
	unusedFor := fs.String("unused-for", "30d", "trim: remove entries unused for this long (72h, 30d, ...)")
	if err := parseFlags(e, fs, cacheSynopsis, args); err != nil {
		return err
	}
	switch action {
	case "show", "trim", "clear":
	default:
		return usagef("unknown action %q (show, trim or clear)", action)
	}
	if flagWasSet(fs, "unused-for") && action != "trim" {
		return usagef("--unused-for applies to trim, not %s", action)
	}
	age, err := parseAge(*unusedFor)
	if err != nil {
		return usagef("--unused-for: %v", err)
	}
	c := jit.Default()
	u, err := c.Usage()
	if err != nil {
		return err
	}
	switch {
	case action == "show":
		showCache(e, u)
		return nil
	case u.Dir == "":
		fmt.Fprintf(e.stdout, "kernel cache: off (%s=off, or no cache location); nothing removed\n", jit.EnvCache)
		return nil
	}
	var r jit.TrimResult
	which := ""
	if action == "trim" {
		r, err = c.Trim(age)
		which = "unused for " + *unusedFor
	} else {
		r, err = c.Clear()
	}
	if err != nil {
		return err
	}
	reportRemoval(e, r, which)
	return nil
}

// parseAge reads a Go duration, or a number of days written Nd.
func parseAge(s string) (time.Duration, error) {
	notPositive := fmt.Errorf("%q: the age must be positive (clear removes every entry)", s)
	days, ok := strings.CutSuffix(strings.TrimSpace(s), "d")
	if !ok {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return 0, fmt.Errorf("%q is not a duration (72h, 30d, ...)", s)
		case d <= 0:
			return 0, notPositive
		}
		return d, nil
	}
	n, err := strconv.ParseFloat(days, 64)
	const day = float64(24 * time.Hour)
	switch {
	case err != nil || math.IsNaN(n):
		return 0, fmt.Errorf("%q is not a number of days", s)
	case n*day >= math.MaxInt64: // a Duration's limit, about 106751 days
		return 0, fmt.Errorf("%q is too long (at most %d days)", s, math.MaxInt64/int64(24*time.Hour))
	case n*day < 1:
		return 0, notPositive
	}
	return time.Duration(n * day), nil
}

func showCache(e *env, u jit.CacheUsage) {
	w := e.stdout
	if u.Dir == "" {
		fmt.Fprintf(w, "kernel cache: off (%s=off, or no cache location)\n", jit.EnvCache)
	} else {
		fmt.Fprintf(w, "kernel cache: %s\n  %d entries, %s", u.Dir, u.Entries, megabytes(u.Bytes))
		if u.Entries > 0 {
			const layout = "2006-01-02 15:04"
			fmt.Fprintf(w, "; last used from %s to %s", u.OldestUse.Format(layout), u.NewestUse.Format(layout))
		}
		fmt.Fprintf(w, "\n  entries unused for %d days are removed automatically (checked once a day)\n",
			int(jit.DefaultMaxUnused/(24*time.Hour)))
	}
	path, err := cuda.TuneCachePath()
	switch {
	case err != nil:
		fmt.Fprintf(w, "autotuning cache: %v\n", err)
	default:
		if info, err := os.Stat(path); err == nil {
			fmt.Fprintf(w, "autotuning cache: %s (%d bytes; softmax tune --show lists it)\n", path, info.Size())
		} else {
			fmt.Fprintf(w, "autotuning cache: %s (none yet)\n", path)
		}
	}
}

func reportRemoval(e *env, r jit.TrimResult, which string) {
	if which != "" {
		which = " " + which
	}
	fmt.Fprintf(e.stdout, "removed %d entries%s (%s) and %d leftover temporary files; kept %d (%s)\n",
		r.Removed, which, megabytes(r.RemovedBytes), r.Temps, r.Kept, megabytes(r.KeptBytes))
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
