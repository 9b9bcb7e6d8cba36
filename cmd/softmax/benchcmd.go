package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/cpu"
	"github.com/gofused/softmax/internal/memlimit"
	"github.com/gofused/softmax/internal/safefile"
	"github.com/gofused/softmax/internal/spec"
	"github.com/schollz/progressbar/v3"
)

const benchSynopsis = `softmax bench [--suite NAME | --shapes SPEC,...] [--algo auto|all|NAME,...] [--op OP] [--device D] [--reps N] [--warmup N] [--offset N] [--json FILE] [--plot FILE.png|FILE.svg] [--peers FILE] [--quiet] [--tuned] [--no-flush] [--cpu-stream-workers N]
  softmax bench --list-suite NAME

Times each case (median of --reps after --warmup untimed runs) and, in the
same run, a device copy moving the op's minimum traffic; prints shape,
dtype, axis, op, algo ("*": the planner's pick), µs, p10–p90, GB/s and the
copy ratio t(copy)/t(op).

SPEC is DIMxDIM[x…]:dtype[:axis[:op]], e.g. 4096x65536:f32:0 (axis
default -1, op default softmax or --op). Suites: ` + "tutorial, onepass, llm, axis, vector, cpu, quick, all" + `;
the default is cpu on the CPU and quick on a GPU. --list-suite prints a
suite's SPECs on one line (for bench/peers/peers.py --shapes). --peers
reads that script's JSON and adds "vs torch" and "vs best peer" columns
(t(peer) / t(ours): above 1, we are faster; --offset cases match peer
timings taken with peers.py --offset N, not aligned ones).
--offset N starts every tensor N elements past an aligned allocation: the
pointers of a view into a larger tensor, misaligned unless N·size is a
multiple of 16 (the table shows shape+N). --tuned makes the planner's
pick ("auto", "*") prefer the winners cached by 'softmax tune' (GPU).
--algo all includes the teaching kernels naive and smem_tree, which take
up to seconds a run on rows of millions of elements (naive on 4x4194304
f16: 0.6 s on an H200); list the others by name to leave them out.
--cpu-stream-workers N (CPU) writes large outputs with non-temporal stores
only in calls of at most N workers (0: never) instead of the library's
default (internal/cpu's streamWorkers), for timing both store kinds.

On a GPU every timed rep (op and copy alike) starts with the L2 cache
flushed, by overwriting a buffer of at least 256 MB outside the timed span,
as triton.testing.do_bench and bench/peers/peers.py time: a rep reads its
inputs from memory and inherits no dirty lines of the rep before.
--no-flush times back-to-back reps instead (a case whose tensors fit the L2
then reads them from it).

Before any timing, --json and --plot must name a writable folder, and each
case's host memory (the CPU: all its tensors; a GPU: one tensor, filled on
the host) must fit the memory the process can have (the cgroup limit or
physical memory; SOFTMAX_MEMORY_LIMIT=BYTES overrides): a usage error
names the shape and the bytes otherwise.

Interrupted (Ctrl-C, or SIGTERM as timeout(1) sends), bench finishes the
case in progress, then prints, writes and plots the cases it finished and
exits with status 1; a second signal ends it at once.`

// minGPUReps is the fewest timed reps on a GPU.
const minGPUReps = 20

func runBench(e *env, args []string) error {
	fs := flagSet("bench")
	shapes := fs.String("shapes", "", "comma-separated `SPEC`s: DIMxDIM[x…]:dtype[:axis[:op]]")
	suite := fs.String("suite", "", "`suite`: "+strings.Join(bench.SuiteNames(), ", ")+" (default: cpu on the CPU, quick on GPUs)")
	algo := fs.String("algo", "auto", "`strategies`: auto (the planner's pick), all, or NAME,...")
	opName := fs.String("op", "", "`op` for every case: softmax, log_softmax, softmax_backward, log_softmax_backward, cross_entropy, logsumexp (default: each SPEC's, softmax)")
	device := fs.String("device", "auto", "`device`: auto, cpu, cuda or cuda:N")
	reps := fs.Int("reps", 20, "timed `reps` per strategy (at least 20 on GPUs)")
	warmup := fs.Int("warmup", 5, "untimed `runs` before timing")
	jsonPath := fs.String("json", "", "write JSON records to `FILE`")
	plotPath := fs.String("plot", "", "write a plot of the run to `FILE` (.png, .svg or .pdf)")
	peersPath := fs.String("peers", "", "peer timings `FILE` written by bench/peers/peers.py")
	quiet := fs.Bool("quiet", false, "no progress bar")
	listSuite := fs.String("list-suite", "", "print the SPECs of `suite` and exit")
	noFlush := fs.Bool("no-flush", false, "GPU: do not flush the L2 cache before each timed rep")
	offset := fs.Int("offset", 0, "every tensor starts `N` elements past an aligned allocation (misaligned pointers)")
	tuned := fs.Bool("tuned", false, "the planner's pick prefers the autotuning cache's winners (softmax tune)")
	streamWorkers := fs.Int("cpu-stream-workers", -1, "CPU: non-temporal stores only in calls of at most `N` workers (-1: the default)")
	if err := parseFlags(e, fs, benchSynopsis, args); err != nil {
		return err
	}

	if bench.IsLossOp(*opName) {
		return runLossBench(e, lossBenchFlags{op: *opName, shapes: *shapes, suite: *suite, algo: *algo, device: *device,
			warmup: *warmup, reps: *reps, offset: *offset, json: *jsonPath, plot: *plotPath, peers: *peersPath})
	}
	var op spec.Op
	haveOp := *opName != ""
	if haveOp {
		var err error
		if op, err = spec.ParseOp(*opName); err != nil {
			return usagef("--op: %v", err)
		}
	}
	withOp := func(cases []bench.Case) []bench.Case {
		if haveOp {
			return bench.WithOp(cases, op)
		}
		return cases
	}
	if *listSuite != "" {
		cases, err := bench.Suite(*listSuite)
		if err != nil {
			return usagef("--list-suite: %v", err)
		}
		fmt.Fprintln(e.stdout, bench.FormatSpecs(withOp(cases)))
		return nil
	}
	if *shapes != "" && *suite != "" {
		return usagef("use --shapes or --suite, not both")
	}
	if *reps < 1 {
		return usagef("--reps %d: want at least 1", *reps)
	}
	if *warmup < 0 {
		return usagef("--warmup %d: want at least 0", *warmup)
	}
	if *offset < 0 {
		return usagef("--offset %d: want at least 0 elements", *offset)
	}
	if *algo == "" {
		return usagef("--algo: empty (want auto, all or NAME,...)")
	}
	if *streamWorkers < -1 {
		return usagef("--cpu-stream-workers %d: want -1 (the default) or at least 0", *streamWorkers)
	}
	var cases []bench.Case
	var err error
	what := ""
	switch {
	case *shapes != "":
		if cases, err = bench.ParseSpecs(*shapes); err != nil {
			return usagef("--shapes: %v", err)
		}
		what = "shapes " + *shapes
	case *suite != "":
		if cases, err = bench.Suite(*suite); err != nil {
			return usagef("--suite: %v", err)
		}
		what = "suite " + *suite
	}
	if _, _, err := bench.ParseDevice(*device); err != nil {
		return usagef("--device: %v", err)
	}
	for _, f := range []struct{ flag, path string }{{"--json", *jsonPath}, {"--plot", *plotPath}} {
		if f.path != "" {
			if err := checkWritable(f.path); err != nil {
				return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
			}
		}
	}
	var peers []bench.PeerRecord
	if *peersPath != "" {
		if peers, err = bench.LoadPeers(*peersPath); err != nil {
			return fmt.Errorf("--peers: %w", err)
		}
	}

	b, err := bench.Open(*device)
	if err != nil {
		return err
	}
	defer b.Close()
	if *tuned {
		useTuned(e, "bench", b)
	}
	flusher, flush := b.(bench.L2Flusher)
	flush = flush && !*noFlush
	if flusher != nil {
		flusher.SetFlushL2(flush)
	}
	if cases == nil {
		name := "quick"
		if b.Kind() == "cpu" {
			name = "cpu"
		}
		cases, _ = bench.Suite(name)
		what = "suite " + name
	}
	if *streamWorkers >= 0 {
		if b.Kind() != "cpu" {
			return usagef("--cpu-stream-workers is for --device cpu")
		}
		defer cpu.SetStreamWorkers(cpu.SetStreamWorkers(*streamWorkers))
		what += fmt.Sprintf("; non-temporal stores in calls of ≤ %d workers", *streamWorkers)
	}
	cases = withOp(cases)
	if *offset != 0 {
		cases = bench.WithOffset(cases, *offset)
	}
	if _, err := bench.ParseAlgo(*algo, bench.KnownAlgos(b)); err != nil {
		return usagef("--algo: %v", err)
	}
	if err := checkCaseSizes(cases, b.Kind() == "cpu"); err != nil {
		return err
	}
	if b.Kind() != "cpu" && *reps < minGPUReps {
		fmt.Fprintf(e.stderr, "softmax: bench: --reps %d raised to %d on %s\n", *reps, minGPUReps, b.Kind())
		*reps = minGPUReps
	}

	out := e.stdout
	for _, l := range bench.Header(b) {
		fmt.Fprintln(out, l)
	}
	algoDesc := *algo
	if _, ok := b.(bench.Tunable); ok && *tuned {
		algoDesc += " (tuned)"
	}
	flushDesc := ""
	if flush {
		flushDesc = ", L2 flushed before each"
	}
	fmt.Fprintf(out, "%s; algo %s; %d reps after %d warm-up%s\n\n", what, algoDesc, *reps, *warmup, flushDesc)

	logw := &logWriter{w: e.stderr}
	stopCh, release := interrupted()
	defer release()
	opt := bench.SweepOptions{Algo: *algo, Warmup: *warmup, Reps: *reps, Log: logw, Stop: stopCh}
	if e.stderrTTY && !*quiet && len(cases) > 1 {
		bar := progressbar.NewOptions(len(cases),
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription("bench"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		logw.bar = bar
		opt.Before = func(c bench.Case) { bar.Describe(c.String()) }
		opt.Step = func(bench.Case) { bar.Add(1) }
		defer bar.Finish()
	}
	recs, sweepErr := bench.Sweep(b, cases, opt)
	for i := range recs {
		recs[i].L2Flushed = flush
	}
	if logw.bar != nil {
		logw.bar.Finish()
		logw.bar = nil
	}
	if err := reportBench(e, recs, peers, *peersPath, *jsonPath, *plotPath); err != nil {
		return err
	}
	return sweepErr
}

// reportBench merges the peer timings into the records, prints the table
// and its legend, and writes the --json and --plot files.
func reportBench(e *env, recs []bench.Record, peers []bench.PeerRecord, peersPath, jsonPath, plotPath string) error {
	out := e.stdout
	if len(peers) > 0 {
		if bench.MergePeers(recs, peers) == 0 {
			fmt.Fprintf(e.stderr, "softmax: bench: no peer timing in %s matches these cases\n", peersPath)
		}
	}
	if err := bench.WriteTable(out, recs); err != nil {
		return err
	}
	fmt.Fprintln(out)
	for _, l := range bench.Legend(recs) {
		fmt.Fprintln(out, l)
	}
	if jsonPath != "" {
		if err := bench.WriteJSON(jsonPath, recs); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	if plotPath != "" {
		if err := bench.WritePlot(plotPath, recs); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	return nil
}

// interrupted returns a channel closed on the first SIGINT or SIGTERM, so
// that a sweep cut short (Ctrl-C, a timeout) still prints, writes and plots
// the cases it finished, and a release func that stops listening; after
// the first signal a second one ends the process at once.
func interrupted() (<-chan struct{}, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx.Done(), stop
}

// logWriter writes the sweep's notes to stderr, prefixed, clearing the
// progress bar first so the two do not mix.
type logWriter struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (l *logWriter) Write(p []byte) (int, error) {
	if l.bar != nil {
		l.bar.Clear()
	}
	if _, err := fmt.Fprintf(l.w, "softmax: bench: %s", p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// checkCaseSizes refuses a case whose element count or bytes overflow,
// or whose host memory exceeds what the process can have (a typo such as
// 1000000x1000000 would otherwise end in Go's fatal "out of memory"):
// usage errors. The CPU holds all of a case's tensors; a GPU backend fills
// each on the host before uploading it, and its driver refuses a device
// size it cannot serve.
func checkCaseSizes(cases []bench.Case, cpu bool) error {
	for _, c := range cases {
		n, err := spec.NumElements(c.Shape)
		if err != nil {
			return usagef("case %v: %v", c, err)
		}
		what, tensors := fmt.Sprintf("case %v (%d tensors)", c, c.Tensors()), c.Tensors()
		if !cpu {
			what, tensors = fmt.Sprintf("case %v (one host tensor to upload)", c), 1
		}
		if err := memlimit.Check(what, c.Shape, n+c.Offset, c.DType.Size()*tensors); err != nil {
			return usageError{err.Error()}
		}
	}
	return nil
}

// checkWritable checks, before any work, that the file at path can be
// written as bench.WriteJSON and the plot will write it (internal/safefile:
// links followed, the folder takes a new file, an existing file is
// writable); nothing is changed.
func checkWritable(path string) error {
	f, err := safefile.New(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}
