package cuda

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// MinTuneReps is the fewest timed runs per candidate that Tune accepts.
const MinTuneReps = 20

// tuneMargin keeps the planner's default as the winner when it is within
// this fraction of the fastest candidate (medians differ by about that
// much from run to run, so a "win" below it is noise).
const tuneMargin = 0.01

// tooSlow: a candidate whose first run takes more than tooSlow times the
// fastest median so far is not timed further (naive on long rows can take
// tens of milliseconds per run).
const tooSlow = 20

// TuneCase is one problem for Device.Tune: Op along Axis (negative counts
// from the end) of a tensor of Shape and DType.
type TuneCase struct {
	Shape []int
	DType softmax.DType
	Axis  int
	Op    softmax.Op
}

// String describes the case, e.g. "4096x65536 f32 axis -1 softmax".
func (c TuneCase) String() string {
	dims := make([]string, len(c.Shape))
	for i, d := range c.Shape {
		dims[i] = fmt.Sprint(d)
	}
	return fmt.Sprintf("%s %v axis %d %v", strings.Join(dims, "x"), c.DType, c.Axis, c.Op)
}

// TuneOptions configure Device.Tune.
type TuneOptions struct {
	// Warmup is the runs of each candidate before its timed runs (0 means
	// 5; at least 2 happen: the first, untimed, and a second, timed alone,
	// that drops a candidate over 20 times slower than the fastest so far).
	Warmup int
	// Reps is the timed runs of each candidate, whose median counts; fewer
	// than MinTuneReps (0 included) means MinTuneReps.
	Reps int
	// Strategies restricts the candidates to these names (nil: every
	// strategy of Strategies). The planner's default is always timed.
	Strategies []string
}

// TuneTiming is one candidate's median time.
type TuneTiming struct {
	// Strategy is the candidate: a strategy at the planner's configuration
	// ("block_reg"), or at one of its launch configurations
	// ("block_reg/t512_p2", see plan.Configs).
	Strategy string  `json:"strategy"`
	US       float64 `json:"us"` // median, microseconds
}

// TuneEntry is the outcome of tuning one problem: an entry of the
// autotuning cache.
type TuneEntry struct {
	Device string `json:"device"` // device name
	Arch   string `json:"arch"`   // compute capability, "sm_90"
	DType  string `json:"dtype"`  // "f32", "f16", "bf16"
	Op     string `json:"op"`     // "softmax", ..., "log_softmax_backward"
	Class  string `json:"class"`  // the shape class (see Device.TuneKey)
	Shape  []int  `json:"shape"`  // the shape that was timed
	Axis   int    `json:"axis"`   // its axis, as given
	// Strategy is the winner: the fastest candidate (a strategy, or
	// strategy/configuration), or the planner's default when that is
	// within 1% of the fastest.
	Strategy string  `json:"strategy"`
	US       float64 `json:"us"`
	// Default is the planner's own pick and DefaultUS its time (0 when it
	// could not be timed).
	Default   string  `json:"default"`
	DefaultUS float64 `json:"default_us"`
	// Candidates are every timed strategy, fastest first.
	Candidates []TuneTiming `json:"candidates"`
	Reps       int          `json:"reps"`
	TunedAt    time.Time    `json:"tuned_at"`
}

// Speedup returns DefaultUS / US: how much faster the winner is than the
// planner's default (1 when they are the same; 0 when unknown).
func (e TuneEntry) Speedup() float64 {
	if e.US <= 0 || e.DefaultUS <= 0 {
		return 0
	}
	return e.DefaultUS / e.US
}

// TuneResult is what Device.Tune found for one case.
type TuneResult struct {
	Case  TuneCase
	Key   string    // the cache key (device, dtype, op, shape class)
	Entry TuneEntry // the cache entry SaveTuned stores under Key
	// Skipped lists the strategies that were not timed, each with why:
	// "name: reason" (it cannot serve the problem, it failed, or its first
	// run was far slower than the fastest).
	Skipped []string
}

// Tune times, for each case, every strategy that can serve it (Strategies,
// or opt.Strategies) and each of their launch configurations (plan.Configs;
// one whose launches are those of a candidate already timed is skipped) on
// the device with CUDA events on the default stream:
// opt.Warmup untimed runs, then the median of opt.Reps timed runs, each
// after an L2 flush (L2Flush, as `softmax bench` times), on random normal
// inputs. It returns one result per case, in order; nothing
// is stored: SaveTuned writes the results into the autotuning cache, keyed
// by device, dtype, op and shape class (see TuneKey), where calls with
// Options.Tuned find them. Such a call uses the stored strategy when it can
// serve the call's problem, and the planner's rules otherwise (no entry, or
// a stored strategy that cannot plan this problem). A case that is invalid (bad shape, axis,
// dtype or op, or empty) fails the call before anything runs; a case
// whose candidates all fail ends the call with an error and the results of
// the cases before it.
func (d *Device) Tune(cases []TuneCase, opt TuneOptions) ([]TuneResult, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	if opt.Warmup <= 0 {
		opt.Warmup = 5
	}
	opt.Reps = max(opt.Reps, MinTuneReps)
	for _, s := range opt.Strategies {
		if !slices.Contains(Strategies(), s) {
			return nil, fmt.Errorf("cuda: tune: unknown strategy %q (want one of %s)", s, strings.Join(Strategies(), ", "))
		}
	}
	for _, c := range cases {
		if _, err := c.problem(); err != nil {
			return nil, err
		}
	}
	timer, err := d.NewTimer()
	if err != nil {
		return nil, err
	}
	defer timer.Destroy()
	l2, err := d.NewL2Flush()
	if err != nil {
		return nil, err
	}
	defer l2.Free()
	out := make([]TuneResult, 0, len(cases))
	for _, c := range cases {
		r, err := d.tuneOne(c, opt, timer, l2)
		if err != nil {
			return out, fmt.Errorf("cuda: tune %v: %w", c, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// problem validates the case and returns its plan.Problem (16-byte aligned
// pointers, as fresh allocations are).
func (c TuneCase) problem() (plan.Problem, error) {
	if err := checkDType(c.DType); err != nil {
		return plan.Problem{}, fmt.Errorf("cuda: tune %v: %w", c, err)
	}
	if !c.Op.Valid() {
		return plan.Problem{}, fmt.Errorf("cuda: tune %v: unknown op", c)
	}
	l, err := spec.Decompose(c.Shape, c.Axis)
	if err != nil {
		return plan.Problem{}, fmt.Errorf("cuda: tune %v: %w", c, err)
	}
	if l.Empty() {
		return plan.Problem{}, fmt.Errorf("cuda: tune %v: empty tensor, nothing to time", c)
	}
	return plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: c.DType, Op: c.Op, Aligned: true}, nil
}

func (d *Device) tuneOne(c TuneCase, opt TuneOptions, timer *Timer, l2 *L2Flush) (TuneResult, error) {
	prob, err := c.problem()
	if err != nil {
		return TuneResult{}, err
	}
	def, err := d.Plan(c.Op, c.DType, c.Shape, Options{Axis: c.Axis})
	if err != nil {
		return TuneResult{}, err
	}
	dev := d.planDevice()
	r := TuneResult{Case: c, Key: tuneKey(dev, prob)}

	n := 2
	if c.Op.Backward() {
		n = 3
	}
	rng := rand.New(rand.NewPCG(uint64(prob.Outer*prob.Axis*prob.Inner), 9))
	ts := make([]Tensor, 0, n)
	defer func() {
		for _, t := range ts {
			t.Free()
		}
	}()
	for range n {
		t, err := d.UploadRandom(rng, c.DType, c.Shape...)
		if err != nil {
			return r, err
		}
		ts = append(ts, t)
	}
	if err := d.Synchronize(); err != nil {
		return r, err
	}
	run := func(algo string) func() error {
		o := Options{Axis: c.Axis, Algo: algo}
		if c.Op.Backward() {
			return func() error { return d.ApplyBackward(c.Op, ts[0], ts[1], ts[2], o, nil) }
		}
		return func() error { return d.Apply(c.Op, ts[0], ts[1], o, nil) }
	}

	var timings []TuneTiming
	best := 0.0
	launches := map[string]string{} // a timed candidate's launches → its name
	for _, s := range tuneCandidates(def.Strategy, prob, dev, opt.Strategies) {
		pl, err := d.Plan(c.Op, c.DType, c.Shape, Options{Axis: c.Axis, Algo: s})
		if err != nil {
			r.Skipped = append(r.Skipped, s+": "+err.Error())
			continue
		}
		sig := fmt.Sprint(pl.Launches)
		if same, ok := launches[sig]; ok {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: the same launches as %s", s, same))
			continue
		}
		launches[sig] = s
		// One untimed run (first-call work: function attributes, the
		// workspace), then one timed run to spot hopeless candidates.
		first, err := timer.Time(nil, 1, 1, run(s))
		if err != nil {
			r.Skipped = append(r.Skipped, s+": "+err.Error())
			continue
		}
		if best > 0 && first[0] > tooSlow*best {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: its first run took %.1f µs, over %d× the fastest median; not timed further", s, first[0]*1e6, tooSlow))
			continue
		}
		samples, err := timer.TimeWith(nil, max(opt.Warmup-2, 0), opt.Reps, func() error { return l2.Run(nil) }, run(s))
		if err != nil {
			r.Skipped = append(r.Skipped, s+": "+err.Error())
			continue
		}
		med := medianSorted(samples)
		timings = append(timings, TuneTiming{Strategy: s, US: med * 1e6})
		if best == 0 || med < best {
			best = med
		}
	}
	if len(timings) == 0 {
		return r, errors.New("no strategy could be timed: " + strings.Join(r.Skipped, "; "))
	}
	r.Entry = makeEntry(dev, prob, c, def.Strategy, timings, opt.Reps)
	return r, nil
}

// tuneCandidates lists what Tune times for a problem, the planner's
// default and its launch configurations first (so that a fast time is
// known early), then every other strategy (or those of only), each
// followed by its configurations (plan.Configs: block_reg's block sizes,
// warp_row's lanes a row).
func tuneCandidates(def string, p plan.Problem, dev plan.Device, only []string) []string {
	var cands []string
	add := func(s string) {
		configs, _ := plan.Configs(p, dev, s)
		cands = append(append(cands, s), configs...)
	}
	add(def)
	for _, s := range Strategies() {
		if s != def && (only == nil || slices.Contains(only, s)) {
			add(s)
		}
	}
	return cands
}

// makeEntry picks the winner of the timings (the fastest, or the default
// when it is within tuneMargin of it) and fills a cache entry.
func makeEntry(dev plan.Device, p plan.Problem, c TuneCase, def string, timings []TuneTiming, reps int) TuneEntry {
	timings = slices.Clone(timings)
	slices.SortStableFunc(timings, func(a, b TuneTiming) int {
		switch {
		case a.US < b.US:
			return -1
		case a.US > b.US:
			return 1
		}
		return 0
	})
	e := TuneEntry{Device: dev.Name, Arch: fmt.Sprintf("sm_%d%d", dev.Major, dev.Minor), DType: p.DType.String(), Op: p.Op.String(),
		Class: shapeClass(p), Shape: slices.Clone(c.Shape), Axis: c.Axis, Default: def,
		Strategy: timings[0].Strategy, US: timings[0].US, Candidates: timings, Reps: reps, TunedAt: time.Now().UTC().Truncate(time.Second)}
	for _, t := range timings {
		if t.Strategy == def {
			e.DefaultUS = t.US
			if t.US <= e.US*(1+tuneMargin) {
				e.Strategy, e.US = t.Strategy, t.US
			}
		}
	}
	return e
}

// ceilPow2 returns the power of two at or above n (1 for n <= 1).
func ceilPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// shapeClass names the problem's shape class (see TuneKey).
func shapeClass(p plan.Problem) string {
	pack := int64(16 / p.DType.Size())
	path := func(vec bool) string {
		if vec {
			return "vec16"
		}
		return "scalar"
	}
	if p.Inner == 1 {
		vec := p.Aligned && (p.Axis%pack == 0 || p.Outer == 1)
		return fmt.Sprintf("rows<=%d cols<=%d %s", ceilPow2(p.Outer), ceilPow2(p.Axis), path(vec))
	}
	vec := p.Aligned && p.Inner%pack == 0
	return fmt.Sprintf("strided slices<=%d axis<=%d inner<=%d %s", ceilPow2(p.Outer*p.Inner), ceilPow2(p.Axis), ceilPow2(p.Inner), path(vec))
}

// TuneKey returns the autotuning cache key of the case on d (with 16-byte
// aligned pointers): "DEVICE NAME sm_XY|DTYPE|OP|CLASS", e.g.
// "NVIDIA H200 sm_90|f32|softmax|rows<=4096 cols<=65536 vec16". The shape
// class of an Outer × Axis × Inner problem, with ⌈n⌉ the power of two at
// or above n, is
//
//	Inner == 1: "rows<=⌈Outer⌉ cols<=⌈Axis⌉ PATH"
//	Inner > 1:  "strided slices<=⌈Outer·Inner⌉ axis<=⌈Axis⌉ inner<=⌈Inner⌉ PATH"
//
// PATH is "vec16" when the kernels can take their 16-byte path (aligned
// pointers and every row, or every inner run, a whole number of 16-byte
// packs: the planner's rule) and "scalar" otherwise. So 4096×50000 and
// 3000×40000 f32 share the class "rows<=4096 cols<=65536 vec16".
func (d *Device) TuneKey(c TuneCase) (string, error) {
	p, err := c.problem()
	if err != nil {
		return "", err
	}
	return tuneKey(d.planDevice(), p), nil
}

// tuneKey is the cache key of problem p on device dev (see TuneKey).
func tuneKey(dev plan.Device, p plan.Problem) string {
	return fmt.Sprintf("%s sm_%d%d|%v|%v|%s", dev.Name, dev.Major, dev.Minor, p.DType, p.Op, shapeClass(p))
}
