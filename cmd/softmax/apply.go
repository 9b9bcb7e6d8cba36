package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/internal/memlimit"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/npy"
)

const applySynopsis = `softmax apply --in X.npy --out Y.npy [--axis -1] [--op softmax|log_softmax] [--scale S] [--dtype f32|f16|bf16|f64] [--device auto|cpu|cuda|cuda:N] [--tuned]
       softmax apply --op softmax_backward|log_softmax_backward --in Y.npy --dy DY.npy --out DX.npy [--axis -1] [--scale S] [--dtype D] [--device D] [--tuned]
       softmax apply --op cross_entropy --in LOGITS.npy --targets T.npy --out LOSS.npy [--grad-out G.npy] [--lse-out L.npy] [--ignore-index N] [--label-smoothing E] [--weights W.npy] [--z-loss Z] [--softcap C] [--scale S] [--reduction none|sum|mean] [--dtype D] [--device D]
       softmax apply --op logsumexp --in X.npy --out L.npy [--axis -1] [--scale S] [--dtype D] [--device D]

Reads a float32, float64 or float16 .npy file, computes the op along the
axis and writes a .npy file of the input's dtype and shape. --in - reads
standard input, --out - writes standard output.

--dtype picks the precision of the computation (default: the input's own,
so a float64 file computes in float64): the input is converted to it, the
op runs, and the result is converted back to the input's dtype. Converting
to a narrower dtype is checked: a finite value beyond its range (70000 in
f16) is an error naming the element; NaN and ±inf pass through. float64
computes in double on the CPU and on the GPU alike.

The backward ops read the forward output y (--in) and the incoming
gradient dy (--dy, any float dtype, y's shape) and write dx, the gradient
with respect to x of the forward op of S·x (--scale S, as in the forward
call): S·y·(dy − Σ dy·y), or S·(dy − exp(y)·Σ dy) for log_softmax, in
y's dtype. At most one of --in and --dy reads standard input.

--out writes the file the path names, as a shell redirection would: a
symbolic link's target; a device or FIFO directly; /dev/stdout through
the descriptor (appending after >>); an existing file keeps its mode,
owner and hard links. A regular file is written atomically (a hidden
temporary file in its folder, renamed over it, removed on any error or on
SIGINT, SIGTERM or SIGHUP), except one with other hard links or another
owner, which is rewritten in place. --out naming the input file is
refused. The output's folder is checked before the input is read.

The input's size is checked against the memory the process can have (the
cgroup limit or physical memory; SOFTMAX_MEMORY_LIMIT=BYTES overrides)
before it is read. --tuned lets a GPU backend use the winners that softmax
tune stored (the CPU has nothing to tune: a note says so).

` + lossApplyHelp

func runApply(e *env, args []string) error {
	fs := flagSet("apply")
	in := fs.String("in", "", "input `X.npy` (float32, float64 or float16); - reads standard input")
	outPath := fs.String("out", "", "output `Y.npy` (the input's dtype and shape); - writes standard output")
	axis := fs.Int("axis", -1, "the softmax `axis`; negative counts from the end")
	opName := fs.String("op", "softmax", "`op`: softmax, log_softmax, softmax_backward, log_softmax_backward, cross_entropy or logsumexp")
	scale := fs.Float64("scale", 1, "compute softmax(`S`·x) (a fused temperature; backward ops: its gradient)")
	dtName := fs.String("dtype", "", "compute `dtype`: f32, f16, bf16 or f64 (default: the input's)")
	device := fs.String("device", "auto", "`device`: auto, cpu, cuda or cuda:N")
	tuned := fs.Bool("tuned", false, "use the autotuning cache written by softmax tune (GPU backends)")
	dyPath := fs.String("dy", "", "backward ops: the incoming gradient `DY.npy` (--in is the forward output y); - reads standard input")
	la := lossFlags(fs)
	if err := parseFlags(e, fs, applySynopsis, args); err != nil {
		return err
	}
	if isLossOp(*opName) {
		if *dyPath != "" {
			return usagef("--dy: only the backward ops take it")
		}
		la.in, la.out, la.op, la.axis, la.scale, la.dtype, la.device = *in, *outPath, *opName, *axis, *scale, *dtName, *device
		return runLossApply(e, la)
	}
	if err := la.unused(); err != nil {
		return err
	}
	if *in == "" {
		return usagef("--in is required")
	}
	if *outPath == "" {
		return usagef("--out is required")
	}
	op, err := spec.ParseOp(*opName)
	if err != nil {
		return usagef("--op: %v", err)
	}
	switch {
	case op.Backward() && *dyPath == "":
		return usagef("--op %v needs --dy DY.npy, the incoming gradient (--in is the forward output y)", op)
	case !op.Backward() && *dyPath != "":
		return usagef("--dy: only the backward ops take it, not --op %v", op)
	case *in == "-" && *dyPath == "-":
		return usagef("--in and --dy both read standard input; give one a file")
	}
	if *scale == 0 || math.IsNaN(*scale) || math.IsInf(*scale, 0) {
		return usagef("--scale %v: want a finite, nonzero number", *scale)
	}
	var compute spec.DType
	haveDType := *dtName != ""
	if haveDType {
		if compute, err = spec.ParseDType(*dtName); err != nil {
			return usagef("--dtype: %v", err)
		}
	}
	if _, _, err := bench.ParseDevice(*device); err != nil {
		return usagef("--device: %v", err)
	}

	out, err := openOutput("--out", *outPath, *in)
	if err != nil {
		return err
	}
	defer out.abort()
	if err := notSameFile(*outPath, "--dy", *dyPath); err != nil {
		return err
	}
	b, err := bench.Open(*device)
	if err != nil {
		return err
	}
	defer b.Close()
	if *tuned {
		useTuned(e, "apply", b)
	}
	arr, inName, err := readInput(*in)
	if err != nil {
		return err
	}
	if _, err := spec.Decompose(arr.Shape, *axis); err != nil {
		return usagef("--axis: %v", err)
	}
	if !haveDType {
		if compute, err = computeDType(arr.DType); err != nil {
			return fmt.Errorf("%s: %w", inName, err)
		}
	}
	if compute != spec.Float64 && math.Abs(*scale) > math.MaxFloat32 {
		return usagef("--scale %v overflows float32, the arithmetic of %v (--dtype f64 takes it)", *scale, compute)
	}
	var dyArr *npy.Array
	var dyName string
	perElem := applyBytes(arr.DType, compute)
	if op.Backward() {
		if dyArr, dyName, err = readInput(*dyPath); err != nil {
			return err
		}
		if !slices.Equal(dyArr.Shape, arr.Shape) {
			return fmt.Errorf("--dy %s has shape %v, --in %s has %v: want the same", dyName, dyArr.Shape, inName, arr.Shape)
		}
		perElem += applyBytes(dyArr.DType, compute)
	}
	if err := memlimit.Check("apply "+inName, arr.Shape, arr.Len(), perElem); err != nil {
		return usageError{err.Error()}
	}
	t, err := toTensor(arr, compute, inName)
	if err != nil {
		return err
	}
	opt := softmax.Options{Axis: *axis, Scale: *scale}
	if op.Backward() {
		var dy softmax.Tensor
		if dy, err = toTensor(dyArr, compute, dyName); err != nil {
			return err
		}
		// In place: dx is dy (allowed by every backend).
		err = b.ApplyBackward(op, dy, t, dy, opt)
		t = dy
	} else {
		// In place: dst is src (allowed by every backend).
		err = b.Apply(op, t, t, opt)
	}
	if err != nil {
		return fmt.Errorf("%s on %s: %w", op, b.Name(), err)
	}
	res := fromTensor(t, arr.DType, arr.Shape)
	return out.write(func(w io.Writer) error { return npy.Write(w, res) })
}

// notSameFile refuses an output path that names the same file as another
// input (flag name), which writing it would overwrite.
func notSameFile(outPath, flag, in string) error {
	if in == "" || in == "-" || outPath == "-" {
		return nil
	}
	fo, err := os.Stat(outPath)
	if err != nil {
		return nil // a new file
	}
	if fi, err := os.Stat(in); err == nil && os.SameFile(fo, fi) {
		return usagef("--out %s is the same file as %s %s: the input would be overwritten (write elsewhere, then move it)", outPath, flag, in)
	}
	return nil
}

// readInput reads the .npy file --in names ("-": standard input) and
// returns it with the name messages use for it. An input too large for
// the process is a usage error.
func readInput(path string) (*npy.Array, string, error) {
	var a *npy.Array
	var err error
	name := path
	if path == "-" {
		name = "standard input"
		if a, err = npy.Read(os.Stdin); err != nil {
			err = fmt.Errorf("%s: %w", name, err)
		}
	} else {
		a, err = npy.ReadFile(path) // npy's errors name the file
	}
	if errors.Is(err, npy.ErrTooLarge) {
		return nil, name, usageError{err.Error()}
	}
	return a, name, err
}
