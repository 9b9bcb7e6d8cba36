// Package xent holds the semantics of the fused cross-entropy that every
// backend shares: the options (PyTorch's F.cross_entropy plus the z-loss,
// softcap and scale of large-vocabulary training), their checks, the
// validation of targets, and the per-row constants a kernel needs. The
// arithmetic of one row (loss and gradient from its statistics) is
// internal/shard's Record.Loss and Grad, said once there; kernels expand
// Grad into the coefficients of RowGrad. The root package and package cuda
// re-export Options, Reduction and Targets.
package xent

import (
	"fmt"
	"math"

	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/shard"
)

// DefaultIgnoreIndex is PyTorch's ignore_index default, used when
// Options.IgnoreIndex is nil.
const DefaultIgnoreIndex = -100

// Reduction says how per-row losses are combined. The zero value is Mean,
// PyTorch's default.
type Reduction int

// Reductions.
const (
	// Mean: Σ loss_i / Σ w_{t_i} over the rows not ignored (the row count
	// without class weights), as PyTorch; NaN when every row is ignored.
	Mean Reduction = iota
	// Sum: Σ loss_i (0 when every row is ignored).
	Sum
	// None: one loss per row (0 for an ignored row).
	None
)

// String returns torch's name: mean, sum, none.
func (r Reduction) String() string {
	switch r {
	case Mean:
		return "mean"
	case Sum:
		return "sum"
	case None:
		return "none"
	}
	return fmt.Sprintf("Reduction(%d)", int(r))
}

// ParseReduction accepts mean, sum and none.
func ParseReduction(s string) (Reduction, error) {
	for r := Mean; r <= None; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, errs.Kind(errs.ErrBadOption, "unknown reduction %q (want mean, sum or none)", s)
}

// Options are the cross-entropy options. The zero value is PyTorch's
// F.cross_entropy defaults: ignore_index −100, no label smoothing, no
// weights, mean reduction; and no scale, z-loss or softcap.
//
// Order of operations on a logit x (as Gemma 2, whose softcap is part of
// the model and whose temperature comes after it, at sampling):
// z = Scale·(Softcap·tanh(x/Softcap)), then the log-softmax of z, the
// loss, and the z-loss. The gradient is d loss/d x (through both).
type Options struct {
	// IgnoreIndex is the target value whose rows are ignored (loss 0,
	// gradient 0, not counted by the mean). nil means −100, torch's
	// default; point it at any other value (a value no target takes
	// ignores nothing). Ignore(n) returns such a pointer.
	IgnoreIndex *int64
	// LabelSmoothing ε in [0, 1]: the target distribution is
	// (1−ε)·onehot + ε/V, weighted as torch does with Weights.
	LabelSmoothing float64
	// Weights are optional class weights, length V, finite and ≥ 0.
	Weights []float32
	// Reduction: Mean (the zero value), Sum or None.
	Reduction Reduction
	// Scale multiplies the (softcapped) logits first: a temperature of
	// 1/Scale. Zero means 1.
	Scale float64
	// ZLoss adds ZLoss·lse² to each row's loss (PaLM's auxiliary loss;
	// with Weights, the mean divides it by Σ w_t as the rest). Zero: off.
	ZLoss float64
	// Softcap, when positive, replaces each logit x by
	// Softcap·tanh(x/Softcap) before anything else (Gemma 2). Zero: off.
	Softcap float64
}

// Ignore returns a pointer to n, for Options.IgnoreIndex.
func Ignore(n int64) *int64 { return &n }

// Ignored returns the ignore index in effect.
func (o Options) Ignored() int64 {
	if o.IgnoreIndex == nil {
		return DefaultIgnoreIndex
	}
	return *o.IgnoreIndex
}

// ScaleOrOne returns Scale, 0 meaning 1.
func (o Options) ScaleOrOne() float64 {
	if o.Scale == 0 {
		return 1
	}
	return o.Scale
}

// Check validates the options for v classes; pkg prefixes messages
// ("softmax", "cuda"), f32 names a float32-arithmetic dtype ("" for
// float64), as errs.CheckScale.
func (o Options) Check(pkg string, v int, f32 string) error {
	if err := errs.CheckScale(pkg, o.Scale, f32); err != nil {
		return err
	}
	if !(o.LabelSmoothing >= 0 && o.LabelSmoothing <= 1) {
		return errs.Kind(errs.ErrBadOption, "%s: label smoothing %v: want a number in [0, 1]", pkg, o.LabelSmoothing)
	}
	if math.IsNaN(o.ZLoss) || math.IsInf(o.ZLoss, 0) || o.ZLoss < 0 {
		return errs.Kind(errs.ErrBadOption, "%s: z-loss %v: want a finite number ≥ 0", pkg, o.ZLoss)
	}
	if math.IsNaN(o.Softcap) || math.IsInf(o.Softcap, 0) || o.Softcap < 0 {
		return errs.Kind(errs.ErrBadOption, "%s: softcap %v: want a finite number > 0 (0: off)", pkg, o.Softcap)
	}
	if o.Reduction < Mean || o.Reduction > None {
		return errs.Kind(errs.ErrBadOption, "%s: unknown reduction %v", pkg, o.Reduction)
	}
	if o.Weights != nil {
		if len(o.Weights) != v {
			return errs.Kind(errs.ErrBadOption, "%s: %d class weights for %d classes", pkg, len(o.Weights), v)
		}
		for j, w := range o.Weights {
			if !(w >= 0) || math.IsInf(float64(w), 1) {
				return errs.Kind(errs.ErrBadOption, "%s: class weight %d is %v: want a finite number ≥ 0", pkg, j, w)
			}
		}
	}
	return nil
}

// Targets are the class ids, one per row: exactly one of I32 and I64 is
// used (I64 when both are set is an error).
type Targets struct {
	I32 []int32
	I64 []int64
}

// Len returns the number of targets.
func (t Targets) Len() int {
	if t.I64 != nil {
		return len(t.I64)
	}
	return len(t.I32)
}

// At returns target i.
func (t Targets) At(i int) int64 {
	if t.I64 != nil {
		return t.I64[i]
	}
	return int64(t.I32[i])
}

// Summary is what a pass over the targets finds: the denominator of the
// mean (Σ w_t over the rows not ignored, or their count) and that count.
type Summary struct {
	WeightSum float64
	Counted   int
}

// CheckTargets validates rows targets against v classes and the ignore
// index, and sums the mean's denominator. A target outside [0, v) that is
// not ignored is an ErrBadTarget naming the first such row.
func CheckTargets(pkg string, t Targets, rows, v int, o Options) (Summary, error) {
	if t.I32 != nil && t.I64 != nil {
		return Summary{}, errs.Kind(errs.ErrBadTarget, "%s: targets set both I32 and I64", pkg)
	}
	if t.Len() != rows {
		return Summary{}, errs.Kind(errs.ErrBadTarget, "%s: %d targets for %d rows", pkg, t.Len(), rows)
	}
	ign := o.Ignored()
	var s Summary
	for i := range rows {
		c := t.At(i)
		if c == ign {
			continue
		}
		if c < 0 || c >= int64(v) {
			return Summary{}, errs.Kind(errs.ErrBadTarget, "%s: row %d: target %d outside [0, %d) and not the ignore index %d", pkg, i, c, v, ign)
		}
		s.Counted++
		if o.Weights != nil {
			s.WeightSum += float64(o.Weights[c])
		} else {
			s.WeightSum++
		}
	}
	return s, nil
}

// Reduce turns the sum of the per-row losses into the reduced loss.
func (o Options) Reduce(total float64, s Summary) float64 {
	if o.Reduction == Mean {
		if s.Counted == 0 {
			return math.NaN() // 0/0, as torch
		}
		return total / s.WeightSum
	}
	return total
}

// GradScale returns the factor of every row's gradient for a grad-output
// g: g / Σ w_t for Mean (0 when every row is ignored: no row has a
// gradient), g otherwise.
func (o Options) GradScale(g float64, s Summary) float64 {
	if o.Reduction == Mean {
		if s.Counted == 0 {
			return 0
		}
		return g / s.WeightSum
	}
	return g
}

// WeightTotal returns W = Σ_j w_j (v without weights).
func (o Options) WeightTotal(v int) float64 {
	if o.Weights == nil {
		return float64(v)
	}
	var w float64
	for _, x := range o.Weights {
		w += float64(x)
	}
	return w
}

// RowLoss is the loss of one row that is not ignored, from its lse, the
// target's (transformed) logit, Σ w_j·z_j (dot), W, and the target's
// weight: shard's Record.Loss.
func (o Options) RowLoss(lse, target, dot, wsum, wt float64, v int) float64 {
	// Sum 1 makes the record's LSE lse itself (NaN for +inf, as shard's).
	r := shard.Record{Max: lse, Sum: 1, Target: target, Dot: dot, Weight: wsum}
	return r.Loss(o.LabelSmoothing, wt, v, o.ZLoss)
}

// RowGrad is shard.Grad of one row expanded for a kernel: with
// p_j = exp(z_j − lse), d loss/d z_j = gout·(A·p_j − C·w_j − T·[j = t]).
// The kernel multiplies by d z_j/d x_j (Scale, and the softcap's
// 1 − tanh²) itself.
type RowGrad struct{ A, C, T float64 }

// Grad returns the coefficients of a row that is not ignored, for the
// row's lse, the target's weight wt, W and the grad-output gout.
func (o Options) Grad(lse, wt, wsum float64, v int, gout float64) RowGrad {
	eps := o.LabelSmoothing
	a := (1-eps)*wt + 2*o.ZLoss*lse
	c := 0.0
	if eps != 0 {
		a += eps / float64(v) * wsum
		c = eps / float64(v)
	}
	return RowGrad{A: gout * a, C: gout * c, T: gout * (1 - eps) * wt}
}
