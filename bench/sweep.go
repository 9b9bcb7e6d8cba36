package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/plan"
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Algo is "auto" (the planner's pick only), "all" (every strategy of
	// Backend.Algos that can serve the case; unsupported ones are skipped)
	// or a comma-separated list of strategy names.
	Algo string
	// Warmup and Reps are the untimed and timed runs per strategy (and for
	// the copy). Reps must be at least 1.
	Warmup, Reps int
	// Log receives notes (skipped strategies, failures); nil discards them.
	Log io.Writer
	// Before and Step, when set, are called before and after each case
	// (progress reporting).
	Before, Step func(c Case)
	// Stop, when set and closed, ends the sweep before its next case: Sweep
	// returns the records of the cases it finished and an error wrapping
	// ErrInterrupted, so an interrupted sweep still reports what it timed.
	Stop <-chan struct{}
}

// ErrInterrupted is wrapped by Sweep's error when SweepOptions.Stop ended
// it early.
var ErrInterrupted = errors.New("interrupted")

// ParseAlgo validates an --algo value against a list of strategy names
// (see KnownAlgos): auto, all, or a comma-separated list of names, each
// of which may name a launch configuration of a GPU strategy, NAME/CONFIG
// ("block_reg/t512_p2", see `softmax plan`; the planner refuses one that
// does not serve the case).
func ParseAlgo(algo string, algos []string) ([]string, error) {
	if algo == "auto" || algo == "all" {
		return []string{algo}, nil
	}
	var names []string
	for _, a := range strings.Split(algo, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		name, config, hasConfig := strings.Cut(a, plan.ConfigSep)
		if hasConfig && (config == "" || !slices.Contains(cuda.Strategies(), name)) {
			return nil, fmt.Errorf("algo %q: a launch configuration NAME%sCONFIG names a GPU strategy and one of its configurations (softmax plan lists them)", a, plan.ConfigSep)
		}
		if a != "auto" && !slices.Contains(algos, name) {
			return nil, fmt.Errorf("unknown algo %q (want auto, all or a list of: %s)", a, strings.Join(algos, ", "))
		}
		names = append(names, a)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("empty --algo %q", algo)
	}
	return names, nil
}

// KnownAlgos returns the strategy names --algo accepts for b: its Algos,
// and on the CPU every kernel set name (one that cannot be selected in
// this process is skipped with a note when timed).
func KnownAlgos(b Backend) []string {
	algos := slices.Clone(b.Algos())
	if b.Kind() == "cpu" {
		for _, k := range cpuKernelNames {
			if !slices.Contains(algos, k) {
				algos = append(algos, k)
			}
		}
	}
	return algos
}

// Sweep times every case on the backend with the strategies selected by
// opt.Algo, plus the reference copy of each case, and returns one record
// per (case, strategy). A strategy or case that fails is logged and gets a
// record with Error set; the returned error then says how many failed (the
// records are still complete). An unsupported strategy is skipped under
// "all" and logged otherwise.
func Sweep(b Backend, cases []Case, opt SweepOptions) ([]Record, error) {
	if opt.Reps < 1 {
		return nil, fmt.Errorf("reps must be at least 1, got %d", opt.Reps)
	}
	if opt.Warmup < 0 {
		return nil, fmt.Errorf("warmup must be at least 0, got %d", opt.Warmup)
	}
	if opt.Algo == "" {
		opt.Algo = "auto"
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	names, err := ParseAlgo(opt.Algo, KnownAlgos(b))
	if err != nil {
		return nil, err
	}
	device := b.Name()
	var recs []Record
	failed := 0
	for i, c := range cases {
		if stopped(opt.Stop) {
			return recs, fmt.Errorf("%w after %d of %d cases", ErrInterrupted, i, len(cases))
		}
		if opt.Before != nil {
			opt.Before(c)
		}
		rs, nfail := sweepCase(b, c, names, device, opt, log)
		recs = append(recs, rs...)
		failed += nfail
		if opt.Step != nil {
			opt.Step(c)
		}
	}
	if failed > 0 {
		return recs, fmt.Errorf("%d benchmark(s) failed", failed)
	}
	return recs, nil
}

// stopped reports whether stop is closed (never, for a nil channel).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

func sweepCase(b Backend, c Case, names []string, device string, opt SweepOptions, log io.Writer) (recs []Record, failed int) {
	prepAlgo := "all"
	if len(names) == 1 {
		prepAlgo = names[0]
	}
	w, err := b.Prepare(c, prepAlgo)
	if err != nil {
		fmt.Fprintf(log, "%s: prepare: %v\n", c, err)
		r := newRecord(c, device)
		r.Algo, r.Error = opt.Algo, err.Error()
		return []Record{r}, 1
	}
	defer w.Close()
	chosen := w.Chosen()
	var algos []string
	all := false
	for _, n := range names {
		switch n {
		case "auto":
			algos = append(algos, chosen)
		case "all":
			all = true
			algos = append(algos, b.Algos()...)
		default:
			algos = append(algos, n)
		}
	}
	algos = dedupe(algos)

	var copyStats Stats
	copyKind := ""
	copyErr := error(nil)
	copyDone := false
	for _, a := range algos {
		r := newRecord(c, device)
		r.Algo, r.Chosen, r.IsChosen = a, chosen, a == chosen
		ts, err := w.Time(a, opt.Warmup, opt.Reps)
		if err != nil {
			if IsUnsupported(err) {
				if !all {
					fmt.Fprintf(log, "%s: algo %s skipped: %v\n", c, a, err)
				}
				continue
			}
			fmt.Fprintf(log, "%s: algo %s: %v\n", c, a, err)
			r.Error = err.Error()
			recs = append(recs, r)
			failed++
			continue
		}
		if !copyDone {
			// The copy is timed once per case, after the first successful
			// op timing, so both see the same warm device.
			copyDone = true
			cts, err := w.TimeCopy(opt.Warmup, opt.Reps)
			if err != nil {
				copyErr = err
				fmt.Fprintf(log, "%s: copy: %v\n", c, err)
				failed++
			} else {
				copyStats = Summarize(cts)
				if d, ok := w.(CopyDescriber); ok {
					copyKind = d.CopyKind()
				}
			}
		}
		r.fill(Summarize(ts), copyStats, copyKind)
		if copyErr != nil {
			r.Error = "copy: " + copyErr.Error()
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		err := errors.New("no strategy can serve this case")
		fmt.Fprintf(log, "%s: %v\n", c, err)
		r := newRecord(c, device)
		r.Algo, r.Chosen, r.Error = opt.Algo, chosen, err.Error()
		return []Record{r}, 1
	}
	return recs, failed
}

// fill sets the timing columns from the op's and the copy's statistics.
func (r *Record) fill(op, cp Stats, copyKind string) {
	us := func(s float64) float64 { return finite(s * 1e6) }
	r.US, r.USMin, r.USMax, r.USP10, r.USP90, r.Reps = us(op.Median), us(op.Min), us(op.Max), us(op.P10), us(op.P90), op.N
	r.GBps = rate(r.Bytes, r.US)
	if cp.N > 0 {
		r.CopyUS, r.CopyP10, r.CopyP90 = us(cp.Median), us(cp.P10), us(cp.P90)
		r.CopyGBps = rate(r.Bytes, r.CopyUS)
		if r.US > 0 {
			r.CopyRatio = finite(r.CopyUS / r.US)
		}
		r.CopyKind = copyKind
	}
}

// rate returns bytes / µs in GB/s (0 for a non-positive time).
func rate(bytes int64, us float64) float64 {
	if us <= 0 {
		return 0
	}
	return finite(float64(bytes) / us / 1e3)
}

// finite maps NaN and ±Inf to 0 (JSON cannot hold them).
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
