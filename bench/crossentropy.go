package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// Loss ops of `softmax bench --op`, timed on the CPU by SweepLoss and on
// the GPU by SweepLossCUDA. The names are those of
// bench/peers/peers.py's records, so MergePeers pairs them.
const (
	OpCrossEntropy = "cross_entropy" // fused forward+backward: logits read, gradient written
	OpLogSumExp    = "logsumexp"     // along the last axis: logits read, one float per row written
)

// IsLossOp reports whether name is OpCrossEntropy or OpLogSumExp.
func IsLossOp(name string) bool { return name == OpCrossEntropy || name == OpLogSumExp }

// LossTraffic returns op's minimum traffic in bytes over logits of shape
// and dtype dt (the class axis last): the logits read plus, for the
// cross-entropy, the gradient written, or for logsumexp one float per row.
// It is what peers.py's Case.traffic counts for the same op, except that
// peers.py leaves out logsumexp's (negligible) output row.
func LossTraffic(op string, shape []int, dt spec.DType) int64 {
	n, rows := int64(1), int64(1)
	for i, d := range shape {
		n *= int64(d)
		if i < len(shape)-1 {
			rows *= int64(d)
		}
	}
	if op == OpCrossEntropy {
		return 2 * n * int64(dt.Size())
	}
	return (n + rows) * int64(dt.Size())
}

// lossSpec returns the SPEC of a loss case as peers.py writes it:
// "4096x32000:f32:-1:cross_entropy".
func lossSpec(op string, c Case) string {
	return ShapeString(c.Shape) + ":" + c.DType.String() + ":" + strconv.Itoa(c.Axis) + ":" + op
}

// lossWork holds a loss case's tensors and runs the op once.
type lossWork struct {
	run     func() error
	traffic int64
}

// prepareLoss allocates and fills op's tensors for the case: cross_entropy
// with torch's defaults (mean, ignore −100, targets uniform) writing the
// gradient, or logsumexp into one value per row.
func prepareLoss(op string, c Case) (*lossWork, error) {
	if !IsLossOp(op) {
		return nil, fmt.Errorf("unknown loss op %q (want %s or %s)", op, OpCrossEntropy, OpLogSumExp)
	}
	if len(c.Shape) == 0 || c.NormAxis() != len(c.Shape)-1 {
		return nil, fmt.Errorf("%s runs along the last (class) axis", op)
	}
	x, err := softmax.NewTensor(c.DType, c.Shape...)
	if err != nil {
		return nil, err
	}
	fillRandom(x, 1)
	w := &lossWork{traffic: LossTraffic(op, c.Shape, c.DType)}
	if op == OpLogSumExp {
		dst, err := softmax.NewTensor(c.DType, c.Shape[:len(c.Shape)-1]...)
		if err != nil {
			return nil, err
		}
		w.run = func() error { return softmax.LogSumExp(dst, x, softmax.Options{Axis: -1}) }
		return w, nil
	}
	grad, err := softmax.NewTensor(c.DType, c.Shape...)
	if err != nil {
		return nil, err
	}
	fillRandom(grad, 2) // no first-touch faults in the timed reps
	v := c.Shape[len(c.Shape)-1]
	tg := make([]int64, x.Len()/max(1, v))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range tg {
		tg[i] = int64(rng.IntN(max(1, v)))
	}
	out := softmax.CrossEntropyOutput{Loss: make([]float64, 1), Grad: &grad}
	w.run = func() error {
		return softmax.CrossEntropy(x, softmax.Targets{I64: tg}, softmax.CrossEntropyOptions{}, out)
	}
	return w, nil
}

// timeCopy times copy() over traffic/2 bytes split across GOMAXPROCS
// goroutines, so traffic bytes move, and returns its samples and kind.
func timeCopy(traffic int64, warmup, reps int) ([]float64, string, error) {
	n := int(traffic / 2)
	src, dst := make([]byte, n), make([]byte, n)
	for j := 0; j < n; j += 4096 { // touch every page
		src[j] = byte(j>>12) | 1
	}
	copy(dst, src)
	p := runtime.GOMAXPROCS(0)
	ts, err := timeReps(warmup, reps, func() error { parallelCopy(dst, src, p); return nil })
	return ts, fmt.Sprintf("copy, %d goroutines", p), err
}

// SweepLoss times op (OpCrossEntropy or OpLogSumExp) on each case on the
// CPU with the kernel sets of opt.Algo (auto: the one in use), beside a
// copy of the same traffic (LossTraffic), and returns Records as Sweep
// does: Op is op, Spec peers.py's SPEC, so WriteTable, WriteJSON,
// WritePlot and MergePeers serve them. The cases' own ops are ignored;
// their axis must be the last. Failures are logged and recorded as in
// Sweep; opt.Stop ends the sweep early with ErrInterrupted.
func SweepLoss(op string, cases []Case, opt SweepOptions) ([]Record, error) {
	if !IsLossOp(op) {
		return nil, fmt.Errorf("unknown loss op %q (want %s or %s)", op, OpCrossEntropy, OpLogSumExp)
	}
	if opt.Reps < 1 || opt.Warmup < 0 {
		return nil, fmt.Errorf("bad timing counts: warmup %d, reps %d", opt.Warmup, opt.Reps)
	}
	if opt.Algo == "" {
		opt.Algo = "auto"
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	cpu := NewCPU()
	names, err := ParseAlgo(opt.Algo, KnownAlgos(cpu))
	if err != nil {
		return nil, err
	}
	var algos []string
	for _, n := range names {
		switch n {
		case "auto":
			algos = append(algos, vec.Impl())
		case "all":
			algos = append(algos, cpu.Algos()...)
		default:
			algos = append(algos, n)
		}
	}
	algos = dedupe(algos)
	var recs []Record
	failed := 0
	for i, c := range cases {
		if stopped(opt.Stop) {
			return recs, fmt.Errorf("%w after %d of %d cases", ErrInterrupted, i, len(cases))
		}
		if opt.Before != nil {
			opt.Before(c)
		}
		rs, nfail := sweepLossCase(op, c, algos, cpu.Name(), opt, log)
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

func sweepLossCase(op string, c Case, algos []string, device string, opt SweepOptions, log io.Writer) (recs []Record, failed int) {
	chosen := vec.Impl()
	newRec := func(algo string) Record {
		return Record{
			Spec: lossSpec(op, c), Shape: append([]int(nil), c.Shape...), DType: c.DType.String(), Axis: c.Axis,
			Op: op, Algo: algo, Chosen: chosen, IsChosen: algo == chosen, Device: device,
			Bytes: LossTraffic(op, c.Shape, c.DType),
		}
	}
	fail := func(algo string, err error) {
		fmt.Fprintf(log, "%s: algo %s: %v\n", lossSpec(op, c), algo, err)
		r := newRec(algo)
		r.Error = err.Error()
		recs = append(recs, r)
		failed++
	}
	w, err := prepareLoss(op, c)
	if err != nil {
		fail(opt.Algo, err)
		return recs, failed
	}
	var cp Stats
	kind := ""
	for _, a := range algos {
		restore, err := useCPUKernels(a)
		if errors.Is(err, ErrUnsupported) {
			fmt.Fprintf(log, "%s: algo %s skipped: %v\n", lossSpec(op, c), a, err)
			continue
		}
		if err != nil {
			fail(a, err)
			continue
		}
		ts, err := timeReps(opt.Warmup, opt.Reps, w.run)
		restore()
		if err != nil {
			fail(a, err)
			continue
		}
		if cp.N == 0 {
			// Once per case, after the first op timing, as Sweep does.
			cts, k, err := timeCopy(w.traffic, opt.Warmup, opt.Reps)
			if err != nil {
				fail(a, fmt.Errorf("copy: %w", err))
				continue
			}
			cp, kind = Summarize(cts), k
		}
		r := newRec(a)
		r.fill(Summarize(ts), cp, kind)
		recs = append(recs, r)
	}
	return recs, failed
}
