package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/memlimit"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/npy"
)

const lossApplyHelp = `--op cross_entropy reads logits (the class axis last) and --targets, an
int32 or int64 .npy of the logits' shape without the class axis, and
writes the loss in the logits' dtype: a 0-d array for --reduction mean
(the default) and sum, one value per row for none. --grad-out writes
d loss/d logits (computed in the same pass over the logits), --lse-out
each row's log-sum-exp (for a later backward). The options are torch's
F.cross_entropy ones: --ignore-index (default -100), --label-smoothing,
--weights (a float .npy of V class weights), --reduction; and --z-loss Z
(adds Z·lse² to each row's loss), --softcap C (C·tanh(x/C) before
everything), --scale S (after the softcap). --op logsumexp writes
log Σ exp(S·x) along --axis, in the input's shape without the axis.
Both run on the CPU or a GPU (--device cuda[:N]; auto picks cuda:0 when
one opens, else the CPU), with the same flags and outputs; on a GPU the
loss and lse are computed in float32 (float64 for f64) as on the CPU, and
log-sum-exp takes any --axis. Every output is written as --out is, and all
or nothing: each is checked, then written to its temporary file (a
device or standard output last) before any file is replaced, so an
output that fails leaves the others unwritten.`

// isLossOp reports whether apply's --op names a loss op.
func isLossOp(op string) bool { return bench.IsLossOp(op) }

// lossArgs are apply's flags for the loss ops.
type lossArgs struct {
	fs                                *flag.FlagSet
	in, out, op, dtype, device        string
	axis                              int
	scale                             float64
	targets, weights, gradOut, lseOut *string
	reduction                         *string
	ignore                            *int64
	eps, z, softcap                   *float64
}

// lossOnly are the flags that only --op cross_entropy takes.
var lossOnly = []string{"targets", "weights", "grad-out", "lse-out", "reduction", "ignore-index", "label-smoothing", "z-loss", "softcap"}

func lossFlags(fs *flag.FlagSet) *lossArgs {
	return &lossArgs{
		fs:        fs,
		targets:   fs.String("targets", "", "cross_entropy: class ids `T.npy` (int32 or int64), the logits' shape without the class axis"),
		weights:   fs.String("weights", "", "cross_entropy: class weights `W.npy` (V floats)"),
		gradOut:   fs.String("grad-out", "", "cross_entropy: write d loss/d logits to `G.npy`"),
		lseOut:    fs.String("lse-out", "", "cross_entropy: write each row's log-sum-exp to `L.npy`"),
		reduction: fs.String("reduction", "mean", "cross_entropy: `reduction`: mean, sum or none"),
		ignore:    fs.Int64("ignore-index", softmax.DefaultIgnoreIndex, "cross_entropy: rows whose target is `N` are ignored"),
		eps:       fs.Float64("label-smoothing", 0, "cross_entropy: label smoothing `E` in [0, 1]"),
		z:         fs.Float64("z-loss", 0, "cross_entropy: add `Z`·lse² per row"),
		softcap:   fs.Float64("softcap", 0, "cross_entropy: logits become `C`·tanh(x/C) first (0: off)"),
	}
}

// set reports the loss-only flags given on the command line.
func (la *lossArgs) set() []string {
	var got []string
	la.fs.Visit(func(f *flag.Flag) {
		for _, n := range lossOnly {
			if f.Name == n {
				got = append(got, "--"+n)
			}
		}
	})
	return got
}

// unused is the error for loss flags given to another op.
func (la *lossArgs) unused() error {
	if got := la.set(); len(got) > 0 {
		return usagef("%s: only --op cross_entropy takes it", got[0])
	}
	return nil
}

func runLossApply(e *env, la *lossArgs) error {
	if la.in == "" {
		return usagef("--in is required")
	}
	if la.out == "" {
		return usagef("--out is required")
	}
	ce := la.op == bench.OpCrossEntropy
	if !ce {
		if got := la.set(); len(got) > 0 {
			return usagef("%s: only --op cross_entropy takes it", got[0])
		}
	} else if *la.targets == "" {
		return usagef("--op cross_entropy needs --targets T.npy")
	}
	if la.scale == 0 || math.IsNaN(la.scale) || math.IsInf(la.scale, 0) {
		return usagef("--scale %v: want a finite, nonzero number", la.scale)
	}
	red, err := softmax.ParseReduction(*la.reduction)
	if err != nil {
		return usagef("--reduction: %v", err)
	}
	var compute spec.DType
	if la.dtype != "" {
		if compute, err = spec.ParseDType(la.dtype); err != nil {
			return usagef("--dtype: %v", err)
		}
	}
	kind, ordinal, err := bench.ParseDevice(la.device)
	if err != nil {
		return usagef("--device: %v", err)
	}
	outs := []struct{ flag, path string }{{"--out", la.out}, {"--grad-out", *la.gradOut}, {"--lse-out", *la.lseOut}}
	ins := []struct{ flag, path string }{{"--in", la.in}, {"--targets", *la.targets}, {"--weights", *la.weights}}
	if err := distinctFiles(outs, ins); err != nil {
		return err
	}
	files := make([]*output, len(outs))
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		if files[i], err = openOutput(o.flag, o.path, la.in); err != nil {
			return err
		}
		defer files[i].abort()
	}
	dev, err := openLossDevice(kind, ordinal)
	if err != nil {
		return err
	}
	defer dev.close()

	arr, inName, err := readInput(la.in)
	if err != nil {
		return err
	}
	if la.dtype == "" {
		if compute, err = computeDType(arr.DType); err != nil {
			return fmt.Errorf("%s: %w", inName, err)
		}
	}
	if compute != spec.Float64 && math.Abs(la.scale) > math.MaxFloat32 {
		return usagef("--scale %v overflows float32, the arithmetic of %v (--dtype f64 takes it)", la.scale, compute)
	}
	if err := memlimit.Check("apply "+inName, arr.Shape, arr.Len(), applyBytes(arr.DType, compute)); err != nil {
		return usageError{err.Error()}
	}
	l, err := spec.Decompose(arr.Shape, la.axis)
	if err != nil {
		return usagef("--axis: %v", err)
	}
	t, err := toTensor(arr, compute, inName)
	if err != nil {
		return err
	}
	ax := (la.axis + len(arr.Shape)) % max(1, len(arr.Shape))
	rowShape := make([]int, 0, len(arr.Shape))
	if len(arr.Shape) > 0 {
		rowShape = append(append(rowShape, arr.Shape[:ax]...), arr.Shape[ax+1:]...)
	}
	if !ce {
		dst, err := softmax.NewTensor(compute, rowShape...)
		if err != nil {
			return err
		}
		if err := dev.logSumExp(dst, t, softmax.Options{Axis: la.axis, Scale: la.scale}); err != nil {
			return fmt.Errorf("logsumexp on %s: %w", dev.name(), err)
		}
		return files[0].write(func(w io.Writer) error { return npy.Write(w, fromTensor(dst, arr.DType, rowShape)) })
	}

	if len(arr.Shape) == 0 || ax != len(arr.Shape)-1 {
		return usagef("--op cross_entropy: the class axis is the last one of %s (shape %v), not --axis %d", inName, arr.Shape, la.axis)
	}
	tg, err := readTargets(*la.targets, rowShape)
	if err != nil {
		return err
	}
	opt := softmax.CrossEntropyOptions{IgnoreIndex: softmax.Ignore(*la.ignore), LabelSmoothing: *la.eps,
		Reduction: red, Scale: la.scale, ZLoss: *la.z, Softcap: *la.softcap}
	if *la.weights != "" {
		w, err := npy.ReadFile(*la.weights)
		if err != nil {
			return err
		}
		if len(w.Shape) != 1 || w.Shape[0] != l.Axis || w.AsF32() == nil {
			return usagef("--weights %s: want %d float class weights (shape [%d]), got %v of shape %v", *la.weights, l.Axis, l.Axis, w.DType, w.Shape)
		}
		opt.Weights = w.AsF32()
	}
	lossShape := rowShape
	loss := make([]float64, l.Outer)
	if red != softmax.ReductionNone {
		lossShape, loss = []int{}, loss[:1]
	}
	out := softmax.CrossEntropyOutput{Loss: loss}
	if *la.lseOut != "" {
		out.LSE = make([]float64, l.Outer)
	}
	if *la.gradOut != "" {
		out.Grad = &t // in place: the logits are not needed after the pass
	}
	if err := dev.crossEntropy(t, tg, opt, out); err != nil {
		return fmt.Errorf("cross_entropy on %s: %w", dev.name(), err)
	}
	// All or nothing: a failing --lse-out leaves no --out either.
	return writeAll(files, []func(io.Writer) error{
		func(w io.Writer) error { return npy.Write(w, floatsArray(loss, arr.DType, lossShape)) },
		func(w io.Writer) error { return npy.Write(w, fromTensor(t, arr.DType, arr.Shape)) },
		func(w io.Writer) error { return npy.Write(w, floatsArray(out.LSE, arr.DType, rowShape)) },
	})
}

// readTargets reads the class ids of --targets: int32 or int64 of shape.
func readTargets(path string, shape []int) (softmax.Targets, error) {
	a, err := npy.ReadFile(path)
	if err != nil {
		return softmax.Targets{}, err
	}
	if a.DType != npy.I32 && a.DType != npy.I64 {
		return softmax.Targets{}, usagef("--targets %s holds %v: want int32 or int64 class ids", path, a.DType)
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	if !slices.Equal(a.Shape, shape) && !(len(a.Shape) == 1 && a.Shape[0] == n) {
		return softmax.Targets{}, usagef("--targets %s has shape %v, want %v (the logits' without the class axis)", path, a.Shape, shape)
	}
	return softmax.Targets{I32: a.I32, I64: a.I64}, nil
}

// floatsArray stores v as an array of dtype dt.
func floatsArray(v []float64, dt npy.DType, shape []int) *npy.Array {
	switch dt {
	case npy.F64:
		return npy.NewF64(shape, v)
	case npy.F16:
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		h := make([]uint16, len(v))
		vec.F32ToF16(h, f)
		return npy.NewF16(shape, h)
	}
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return npy.NewF32(shape, f)
}

// distinctFiles refuses two outputs naming one file, and an output naming
// an input (--out against --in is openOutput's check too).
func distinctFiles(outs, ins []struct{ flag, path string }) error {
	same := func(a, b string) bool {
		if a == "-" || b == "-" {
			return a == b
		}
		if filepath.Clean(a) == filepath.Clean(b) {
			return true
		}
		fa, errA := os.Stat(a)
		fb, errB := os.Stat(b)
		return errA == nil && errB == nil && os.SameFile(fa, fb)
	}
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		for _, p := range outs[:i] {
			if p.path != "" && same(o.path, p.path) {
				return usagef("%s %s and %s %s are the same file", p.flag, p.path, o.flag, o.path)
			}
		}
		for _, in := range ins {
			if in.path != "" && in.path != "-" && same(o.path, in.path) {
				return usagef("%s %s is the same file as %s %s: the input would be overwritten", o.flag, o.path, in.flag, in.path)
			}
		}
	}
	return nil
}
