package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	addCommand(&command{name: "tune", summary: "time the GPU strategies per shape and cache the winners", run: runTune})
}

const tuneSynopsis = `softmax tune (--shapes SPEC,... | --suite NAME) [--op OP] [--device cuda|cuda:N] [--algo NAME,...] [--reps N] [--warmup N] [--dry-run] [--verbose]
  softmax tune --show

Times every kernel strategy that can serve each case on the GPU, and
each launch configuration of the strategies that have them (block_reg's
block sizes, warp_row's lanes a row: NAME/CONFIG, as 'softmax plan
--algo' shows them) (CUDA events, median of --reps after --warmup untimed
runs, each timed run after an L2 flush as in 'softmax bench') and stores
the winner per shape class in the autotuning cache, keyed by device, dtype, op
and shape class (rows and row length rounded up to powers of two, last
axis or strided, 16-byte path or not). Prints shape, dtype, axis, op, the
planner's default and its µs, the best strategy and its µs, and the
speedup. The winner is the fastest, or the default when within 1% of it.

The cache is $SOFTMAX_CACHE_DIR/tuned.tsv, by default
<user cache dir>/gofused-softmax/tuned.tsv (~/.cache on Linux): rows of the
planner's table laid over it (softmax plan --rules --tuned prints them; an
older tuned.json there is read until the first save); entries of other
shape classes are kept. Library calls use it with
cuda.Options{Tuned: true}; the CLI with --tuned (bench, verify). --show
prints the cache.

SPEC is DIMxDIM[x…]:dtype[:axis[:op]], e.g. 4096x65536:f32:0.`

func runTune(e *env, args []string) error {
	fs := flagSet("tune")
	shapes := fs.String("shapes", "", "comma-separated `SPEC`s: DIMxDIM[x…]:dtype[:axis[:op]]")
	suite := fs.String("suite", "", "tune a benchmark `suite`: "+strings.Join(bench.SuiteNames(), ", "))
	opName := fs.String("op", "", "`op` for every case: softmax, log_softmax, softmax_backward, log_softmax_backward (default: each SPEC's, softmax)")
	device := fs.String("device", "cuda", "`device`: cuda or cuda:N")
	algo := fs.String("algo", "all", "candidate `strategies`: all, or NAME,... with their launch configurations (the planner's default is always timed)")
	reps := fs.Int("reps", cuda.MinTuneReps, fmt.Sprintf("timed `reps` per strategy (at least %d)", cuda.MinTuneReps))
	warmup := fs.Int("warmup", 5, "untimed `runs` per strategy before timing (at least 1)")
	dryRun := fs.Bool("dry-run", false, "time and print, but do not write the cache")
	verbose := fs.Bool("verbose", false, "print every candidate's time and why strategies were skipped")
	show := fs.Bool("show", false, "print the cache's entries and exit")
	if err := parseFlags(e, fs, tuneSynopsis, args); err != nil {
		return err
	}
	cuda.Warnf = warnTo(e, "tune")
	if *show {
		return showTuneCache(e.stdout)
	}

	var cases []bench.Case
	var err error
	switch {
	case *shapes != "" && *suite != "":
		return usagef("use --shapes or --suite, not both")
	case *shapes != "":
		if cases, err = bench.ParseSpecs(*shapes); err != nil {
			return usagef("--shapes: %v", err)
		}
	case *suite != "":
		if cases, err = bench.Suite(*suite); err != nil {
			return usagef("--suite: %v", err)
		}
	default:
		return usagef("--shapes or --suite is required (or --show)")
	}
	if *opName != "" {
		op, err := spec.ParseOp(*opName)
		if err != nil {
			return usagef("--op: %v", err)
		}
		cases = bench.WithOp(cases, op)
	}
	if *reps < cuda.MinTuneReps {
		return usagef("--reps %d: want at least %d", *reps, cuda.MinTuneReps)
	}
	if *warmup < 1 {
		return usagef("--warmup %d: want at least 1", *warmup)
	}
	var strategies []string
	if *algo != "all" {
		names, err := bench.ParseAlgo(*algo, cuda.Strategies())
		if err != nil || slices.Contains(names, "auto") || slices.Contains(names, "all") ||
			slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, plan.ConfigSep) }) {
			return usagef("--algo %q: want all or a list of: %s", *algo, strings.Join(cuda.Strategies(), ", "))
		}
		strategies = names
	}
	if err := checkCaseSizes(cases, false); err != nil {
		return err
	}
	d, err := openGPU(*device, "tuning needs a GPU (cuda or cuda:N)")
	if err != nil {
		return err
	}
	defer d.Close()

	fmt.Fprintf(e.stdout, "device: %s\n%d cases; candidates %s; median of %d reps after %d warm-up\n\n", d, len(cases), *algo, *reps, *warmup)
	opt := cuda.TuneOptions{Warmup: *warmup, Reps: *reps, Strategies: strategies}
	var results []cuda.TuneResult
	var failed []string
	for i, c := range cases {
		if e.stderrTTY {
			fmt.Fprintf(e.stderr, "softmax: tune: %d/%d %s\n", i+1, len(cases), c)
		}
		rs, err := d.Tune([]cuda.TuneCase{{Shape: c.Shape, DType: c.DType, Axis: c.Axis, Op: c.Op}}, opt)
		if err != nil {
			fmt.Fprintf(e.stderr, "softmax: tune: %s: %v\n", c, err)
			failed = append(failed, c.String())
			continue
		}
		results = append(results, rs...)
	}
	if err := writeTuneTable(e.stdout, results, *verbose); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	switch {
	case len(results) == 0:
		fmt.Fprintln(e.stdout, "nothing tuned; the cache is unchanged")
	case *dryRun:
		fmt.Fprintln(e.stdout, "dry run: the cache is unchanged")
	default:
		path, n, err := cuda.SaveTuned(results)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d entries to %s (%d in all)\n", len(results), path, n)
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d cases failed: %s", len(failed), len(cases), strings.Join(failed, ", "))
	}
	return nil
}

// writeTuneTable prints one line per result (and with verbose, every
// candidate and skipped strategy below it).
func writeTuneTable(w io.Writer, results []cuda.TuneResult, verbose bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "shape\tdtype\taxis\top\tdefault\tµs\tbest\tµs\tspeedup")
	for _, r := range results {
		c, en := r.Case, r.Entry
		fmt.Fprintf(tw, "%s\t%v\t%d\t%v\t%s\t%s\t%s\t%.2f\t%s\n", bench.ShapeString(c.Shape), c.DType, c.Axis, c.Op,
			en.Default, usOrDash(en.DefaultUS), en.Strategy, en.US, speedup(en))
		if !verbose {
			continue
		}
		for _, t := range en.Candidates {
			fmt.Fprintf(tw, "\t\t\t\t\t\t  %s\t%.2f\t\n", t.Strategy, t.US)
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(tw, "\t\t\t\t\t\t  skipped %s\n", s)
		}
	}
	return tw.Flush()
}

// showTuneCache prints the cache file's entries, sorted by key.
func showTuneCache(w io.Writer) error {
	path, entries, err := cuda.ReadTuneCache()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "autotuning cache: %s (%d entries)\n", path, len(entries))
	if len(entries) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "device\tdtype\top\tclass\tbest\tµs\tdefault\tµs\tspeedup\ttimed shape")
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		en := entries[k]
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s axis %d\n", en.Device, en.Arch, en.DType, en.Op, en.Class,
			en.Strategy, en.US, en.Default, usOrDash(en.DefaultUS), speedup(en), bench.ShapeString(en.Shape), en.Axis)
	}
	return tw.Flush()
}

func usOrDash(us float64) string {
	if us <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", us)
}

func speedup(en cuda.TuneEntry) string {
	if s := en.Speedup(); s > 0 {
		return fmt.Sprintf("%.2fx", s)
	}
	return "-"
}

// warnTo returns a cuda.Warnf that writes "softmax: CMD: warning: ..." to
// the command's standard error.
func warnTo(e *env, cmd string) func(format string, args ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(e.stderr, "softmax: %s: warning: %s\n", cmd, fmt.Sprintf(format, args...))
	}
}

// useTuned implements --tuned: the backend's planner consults the
// autotuning cache (its warnings go to stderr). A backend without tuning
// (the CPU) gets a note and runs as usual.
func useTuned(e *env, cmd string, b bench.Backend) {
	t, ok := b.(bench.Tunable)
	if !ok {
		fmt.Fprintf(e.stderr, "softmax: %s: --tuned has no effect on the %s backend\n", cmd, b.Kind())
		return
	}
	cuda.Warnf = warnTo(e, cmd)
	t.SetTuned(true)
}
