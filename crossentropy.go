package softmax

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/cpu"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/xent"
)

// CrossEntropyOptions are the options of CrossEntropy, CrossEntropyBackward
// and TargetLogProbs, shared with package cuda. The zero value is
// PyTorch's F.cross_entropy defaults (ignore_index −100, mean reduction).
//
// It is an alias of an internal type, so that every backend takes the same
// one; its fields:
//
//	IgnoreIndex    *int64    // nil: −100 (DefaultIgnoreIndex); Ignore(n) sets n
//	LabelSmoothing float64   // ε in [0, 1]
//	Weights        []float32 // optional class weights, length V, finite, ≥ 0
//	Reduction      Reduction // ReductionMean (zero value), ReductionSum, ReductionNone
//	Scale          float64   // logits·Scale after the softcap; 0 means 1
//	ZLoss          float64   // adds ZLoss·lse² per row (PaLM); 0: off
//	Softcap        float64   // x → Softcap·tanh(x/Softcap) first (Gemma 2); 0: off
//
// A logit x becomes z = Scale·Softcap·tanh(x/Softcap) (the softcap first,
// then the temperature, as Gemma 2 samples); the loss of a row with target
// t, lse = log Σ exp z, class weights w (all 1 without Weights) and
// W = Σ w_j is, as torch:
//
//	(1−ε)·w_t·(lse − z_t) + ε/V·Σ_j w_j·(lse − z_j) + ZLoss·lse²
//
// The mean divides the sum of those by Σ w_t over the rows not ignored
// (their count without weights; with weights the z-loss term is divided
// by it too); it is NaN when every row is ignored. The gradient is
// d loss/d x, through the scale and the softcap.
type CrossEntropyOptions = xent.Options

// Reduction says how CrossEntropy combines the per-row losses: mean (the
// zero value), sum or none. Methods: String() and ParseReduction.
type Reduction = xent.Reduction

// Reductions, torch's names.
const (
	ReductionMean = xent.Mean
	ReductionSum  = xent.Sum
	ReductionNone = xent.None
)

// DefaultIgnoreIndex is the ignore index of CrossEntropyOptions{}: −100,
// as torch.
const DefaultIgnoreIndex = xent.DefaultIgnoreIndex

// Ignore returns a pointer to n, for CrossEntropyOptions.IgnoreIndex.
func Ignore(n int64) *int64 { return xent.Ignore(n) }

// ParseReduction parses mean, sum or none (an ErrBadOption otherwise).
func ParseReduction(s string) (Reduction, error) { return xent.ParseReduction(s) }

// Targets are the class ids of the rows, one per row: set I32 or I64.
type Targets = xent.Targets

// GradOutput is the gradient of the caller's objective with respect to the
// loss, given up front so that the gradient is scaled as it is written.
type GradOutput struct {
	// Scalar multiplies every row's gradient; 0 means 1.
	Scalar float64
	// Rows, for ReductionNone only, is d objective/d loss_i per row
	// (times Scalar); nil means all 1.
	Rows []float64
}

// CrossEntropyOutput says what CrossEntropy writes; nil fields are not
// computed.
type CrossEntropyOutput struct {
	// Loss receives the loss: one value for mean and sum, one per row for
	// none (0 for an ignored row).
	Loss []float64
	// LSE receives each row's log-sum-exp of the transformed logits z, to
	// save for CrossEntropyBackward (computed for ignored rows too).
	LSE []float64
	// Grad receives d loss/d logits, in the logits' shape and dtype,
	// computed in the pass that reads the logits. It may be the logits
	// tensor itself (in place).
	Grad *Tensor
	// GradOutput scales Grad.
	GradOutput GradOutput
}

// ceCall is a checked cross-entropy call.
type ceCall struct {
	rows, v int
	sum     xent.Summary
}

// checkCE validates logits, targets and options; rows × V with the class
// axis last.
func checkCE(logits Tensor, targets Targets, opt CrossEntropyOptions) (ceCall, error) {
	if !logits.DType.Valid() {
		return ceCall{}, errs.Kind(errs.ErrBadDType, "softmax: unknown dtype %v", logits.DType)
	}
	if len(logits.Shape) == 0 {
		return ceCall{}, errs.Kind(errs.ErrBadShape, "softmax: cross-entropy logits need a class axis (shape [..., V]), got a scalar")
	}
	l, err := spec.Decompose(logits.Shape, -1)
	if err != nil {
		return ceCall{}, fmt.Errorf("softmax: %w", err)
	}
	if err := logits.check("logits", logits.DType, logits.Shape, l.Len()); err != nil {
		return ceCall{}, err
	}
	f32 := ""
	if logits.DType != Float64 {
		f32 = logits.DType.String()
	}
	if err := opt.Check("softmax", l.Axis, f32); err != nil {
		return ceCall{}, err
	}
	s, err := xent.CheckTargets("softmax", targets, l.Outer, l.Axis, opt)
	return ceCall{rows: l.Outer, v: l.Axis, sum: s}, err
}

// checkGrad validates the gradient tensor and the grad-output.
func (c ceCall) checkGrad(grad, logits Tensor, g GradOutput, opt CrossEntropyOptions) error {
	if err := grad.check("grad", logits.DType, logits.Shape, c.rows*c.v); err != nil {
		return err
	}
	if err := overlapErr("grad", grad, "logits", logits); err != nil {
		return err
	}
	if math.IsNaN(g.Scalar) || math.IsInf(g.Scalar, 0) {
		return errs.Kind(errs.ErrBadOption, "softmax: grad-output %v: want a finite number (0 means 1)", g.Scalar)
	}
	if g.Rows != nil {
		if opt.Reduction != ReductionNone {
			return errs.Kind(errs.ErrBadOption, "softmax: per-row grad-outputs need reduction none, not %v", opt.Reduction)
		}
		if len(g.Rows) != c.rows {
			return errs.Kind(errs.ErrBadShape, "softmax: %d per-row grad-outputs for %d rows", len(g.Rows), c.rows)
		}
	}
	return nil
}

func (g GradOutput) scalar() float64 {
	if g.Scalar == 0 {
		return 1
	}
	return g.Scalar
}

// CrossEntropy computes the cross-entropy of logits (any leading shape,
// the class axis last: rows × V) against one target per row, on the CPU,
// with torch's F.cross_entropy semantics (see CrossEntropyOptions), and
// writes what out asks for: the loss, each row's log-sum-exp, and the
// gradient, which is computed in the same pass over the logits (one read
// of the logits, one write of the gradient). Arithmetic is float32
// (float64 for Float64 logits), whatever the storage.
//
// A NaN or +inf logit makes its row's loss NaN (with a softcap, +inf caps
// to Softcap instead); −inf logits are masked classes. A target outside
// [0, V) that is not the ignore index is an ErrBadTarget naming the row;
// on any error nothing is written.
func CrossEntropy(logits Tensor, targets Targets, opt CrossEntropyOptions, out CrossEntropyOutput) error {
	c, err := checkCE(logits, targets, opt)
	if err != nil {
		return err
	}
	want := 1
	if opt.Reduction == ReductionNone {
		want = c.rows
	}
	if out.Loss != nil && len(out.Loss) != want {
		return errs.Kind(errs.ErrBadShape, "softmax: loss has %d elements, reduction %v of %d rows needs %d", len(out.Loss), opt.Reduction, c.rows, want)
	}
	if out.LSE != nil && len(out.LSE) != c.rows {
		return errs.Kind(errs.ErrBadShape, "softmax: lse has %d elements for %d rows", len(out.LSE), c.rows)
	}
	a := cpu.CE{Rows: c.rows, V: c.v, X: logits.buf(), Targets: targets, Ignore: opt.Ignored(), Opt: opt,
		WSum: opt.WeightTotal(c.v), LSE: out.LSE}
	if out.Grad != nil {
		if err := c.checkGrad(*out.Grad, logits, out.GradOutput, opt); err != nil {
			return err
		}
		a.Grad, a.HasGrad = out.Grad.buf(), true
		a.GScale, a.GRows = opt.GradScale(out.GradOutput.scalar(), c.sum), out.GradOutput.Rows
	}
	if opt.Reduction == ReductionNone {
		a.Loss = out.Loss
	}
	total := cpu.CrossEntropy(a)
	if out.Loss != nil && opt.Reduction != ReductionNone {
		out.Loss[0] = opt.Reduce(total, c.sum)
	}
	return nil
}

// CrossEntropyBackward writes into grad the gradient of CrossEntropy's
// loss with respect to logits from each row's saved log-sum-exp lse (as
// CrossEntropyOutput.LSE returned it, with the same options): one read of
// the logits, one write of the gradient. grad may be the logits tensor.
func CrossEntropyBackward(grad, logits Tensor, targets Targets, lse []float64, opt CrossEntropyOptions, g GradOutput) error {
	c, err := checkCE(logits, targets, opt)
	if err != nil {
		return err
	}
	if len(lse) != c.rows {
		return errs.Kind(errs.ErrBadShape, "softmax: lse has %d elements for %d rows", len(lse), c.rows)
	}
	if err := c.checkGrad(grad, logits, g, opt); err != nil {
		return err
	}
	cpu.CrossEntropy(cpu.CE{Rows: c.rows, V: c.v, X: logits.buf(), Grad: grad.buf(), HasGrad: true,
		Targets: targets, Ignore: opt.Ignored(), Opt: opt, WSum: opt.WeightTotal(c.v),
		GScale: opt.GradScale(g.scalar(), c.sum), GRows: g.Rows, LSEIn: lse})
	return nil
}

// TargetLogProbs writes log p[target] of each row into dst (one per row;
// 0 for an ignored row), with the options' Scale and Softcap applied,
// without materialising the log-softmax. The other options (label
// smoothing, weights, z-loss, reduction) do not apply: set, they are an
// ErrBadOption.
func TargetLogProbs(dst []float64, logits Tensor, targets Targets, opt CrossEntropyOptions) error {
	if opt.LabelSmoothing != 0 || opt.Weights != nil || opt.ZLoss != 0 || opt.Reduction != ReductionMean {
		return errs.Kind(errs.ErrBadOption, "softmax: TargetLogProbs takes Scale, Softcap and IgnoreIndex only")
	}
	c, err := checkCE(logits, targets, opt)
	if err != nil {
		return err
	}
	if len(dst) != c.rows {
		return errs.Kind(errs.ErrBadShape, "softmax: dst has %d elements for %d rows", len(dst), c.rows)
	}
	cpu.CrossEntropy(cpu.CE{Rows: c.rows, V: c.v, X: logits.buf(), Targets: targets, Ignore: opt.Ignored(),
		Opt: opt, WSum: float64(c.v), Loss: dst})
	for i, v := range dst {
		if v != 0 {
			dst[i] = -v
		}
	}
	return nil
}

// LogSumExp writes log Σ exp(Scale·x) along opt.Axis of src into dst, on
// the CPU: dst has src's dtype and shape without the axis (or with it as
// size 1). A slice of −inf gives −inf; a NaN or +inf gives NaN.
// Arithmetic is float32 (float64 for Float64).
func LogSumExp(dst, src Tensor, opt Options) error {
	if !src.DType.Valid() {
		return errs.Kind(errs.ErrBadDType, "softmax: unknown dtype %v", src.DType)
	}
	l, err := spec.Decompose(src.Shape, opt.Axis)
	if err != nil {
		return fmt.Errorf("softmax: %w", err)
	}
	f32 := ""
	if src.DType != Float64 {
		f32 = src.DType.String()
	}
	if err := errs.CheckScale("softmax", opt.Scale, f32); err != nil {
		return err
	}
	if err := src.check("src", src.DType, src.Shape, l.Len()); err != nil {
		return err
	}
	ax := opt.Axis
	if ax < 0 {
		ax += max(1, len(src.Shape))
	}
	if !lseShape(dst.Shape, src.Shape, ax) {
		return errs.Kind(errs.ErrBadShape, "softmax: dst has shape %v, want %v without axis %d (or with it as size 1)", dst.Shape, src.Shape, ax)
	}
	if err := dst.check("dst", src.DType, dst.Shape, l.Slices()); err != nil {
		return err
	}
	if err := overlapErr("dst", dst, "src", src); err != nil {
		return err
	}
	if l.Axis == 0 {
		// torch: the log-sum-exp of nothing is −inf.
		fillNegInf(dst)
		return nil
	}
	cpu.LogSumExp(l, opt.scale(), dst.buf(), src.buf())
	return nil
}

// fillNegInf sets every element of t to −inf.
func fillNegInf(t Tensor) {
	for i := range t.F32 {
		t.F32[i] = float32(math.Inf(-1))
	}
	for i := range t.F64 {
		t.F64[i] = math.Inf(-1)
	}
	bits := uint16(0xFC00) // binary16 −inf
	if t.DType == BFloat16 {
		bits = 0xFF80
	}
	for i := range t.U16 {
		t.U16[i] = bits
	}
}

// lseShape reports whether out is in's shape without axis ax, or with it
// as size 1.
func lseShape(out, in []int, ax int) bool {
	if len(in) == 0 {
		return len(out) == 0 || len(out) == 1 && out[0] == 1
	}
	if len(out) == len(in) {
		for i := range in {
			if out[i] != in[i] && !(i == ax && out[i] == 1) {
				return false
			}
		}
		return true
	}
	if len(out) != len(in)-1 {
		return false
	}
	for i := range out {
		j := i
		if i >= ax {
			j++
		}
		if out[i] != in[j] {
			return false
		}
	}
	return true
}
