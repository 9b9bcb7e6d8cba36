package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
)

// Loss ops of `softmax bench --op`, timed on the CPU by TimeLossCPU (the
// GPU kernels are not written yet).
const (
	OpCrossEntropy = "cross_entropy" // fused forward+backward: logits read, gradient written
	OpLogSumExp    = "logsumexp"     // along the last axis: logits read
)

// IsLossOp reports whether name is OpCrossEntropy or OpLogSumExp.
func IsLossOp(name string) bool { return name == OpCrossEntropy || name == OpLogSumExp }

// LossTiming is TimeLossCPU's result: samples in seconds of the op and of
// a copy moving the same bytes (Traffic: the logits read and, for the
// cross-entropy, the gradient written).
type LossTiming struct {
	Op, Copy []float64
	Traffic  int64
}

// TimeLossCPU times op over logits of shape and dtype dt (the class axis
// last): cross_entropy with torch's defaults (mean, ignore −100, targets
// uniform) writing the gradient, or logsumexp. The copy is copy() split
// across GOMAXPROCS goroutines over Traffic/2 bytes.
func TimeLossCPU(op string, shape []int, dt spec.DType, warmup, reps int) (LossTiming, error) {
	if !IsLossOp(op) {
		return LossTiming{}, fmt.Errorf("unknown loss op %q (want %s or %s)", op, OpCrossEntropy, OpLogSumExp)
	}
	if len(shape) == 0 {
		return LossTiming{}, fmt.Errorf("loss ops need a class axis")
	}
	x, err := softmax.NewTensor(dt, shape...)
	if err != nil {
		return LossTiming{}, err
	}
	fillRandom(x, 1)
	v := shape[len(shape)-1]
	rows := x.Len() / max(1, v)
	var run func() error
	traffic := int64(x.Len()) * int64(dt.Size())
	if op == OpCrossEntropy {
		grad, err := softmax.NewTensor(dt, shape...)
		if err != nil {
			return LossTiming{}, err
		}
		fillRandom(grad, 2) // no first-touch faults in the timed reps
		tg := make([]int64, rows)
		rng := rand.New(rand.NewPCG(3, 4))
		for i := range tg {
			tg[i] = int64(rng.IntN(max(1, v)))
		}
		loss := make([]float64, 1)
		out := softmax.CrossEntropyOutput{Loss: loss, Grad: &grad}
		run = func() error {
			return softmax.CrossEntropy(x, softmax.Targets{I64: tg}, softmax.CrossEntropyOptions{}, out)
		}
		traffic *= 2
	} else {
		dst, err := softmax.NewTensor(dt, shape[:len(shape)-1]...)
		if err != nil {
			return LossTiming{}, err
		}
		traffic += int64(dst.Len()) * int64(dt.Size())
		run = func() error { return softmax.LogSumExp(dst, x, softmax.Options{Axis: -1}) }
	}
	ts, err := timeReps(warmup, reps, run)
	if err != nil {
		return LossTiming{}, err
	}
	n := int(traffic / 2)
	src, dst := make([]byte, n), make([]byte, n)
	for j := 0; j < n; j += 4096 {
		src[j] = byte(j>>12) | 1
	}
	copy(dst, src)
	p := runtime.GOMAXPROCS(0)
	cs, err := timeReps(warmup, reps, func() error { parallelCopy(dst, src, p); return nil })
	return LossTiming{Op: ts, Copy: cs, Traffic: traffic}, err
}

// Min returns the smallest sample (the least disturbed run on a shared
// machine).
func Min(ts []float64) float64 { return slices.Min(ts) }
