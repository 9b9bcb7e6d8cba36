// Package verify is the accuracy battery shared by the tests of every
// backend and by `softmax verify`: it builds inputs (random, ragged, −∞,
// NaN, huge, constant slices; for backward ops also NaN or zero dy), runs a
// backend (out of place or in place), and compares the result with
// the float64 reference of package ref (its compensated form for Float64
// cases, whose tolerance is 1e-13).
package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
)

// Fill names how a case's input is drawn.
type Fill string

// Fills. Edge fills plant their values in a random subset of slices on top
// of random data.
const (
	Random    Fill = "random"    // normal, σ = 3
	NegInf    Fill = "neginf"    // some −∞ entries
	AllNegInf Fill = "allneginf" // some slices entirely −∞
	NaN       Fill = "nan"       // a NaN in some slices
	PosInf    Fill = "posinf"    // a +∞ in some slices
	Huge      Fill = "huge"      // values near the dtype's max magnitude
	Constant  Fill = "constant"  // every element equal
	Wide      Fill = "wide"      // uniform over ±80 (±700 for f64): exp spans the dtype's range
	// Fills of a backward op's dy (x, so y, random): a NaN in some
	// slices' dy, and some slices' dy all zero.
	DYNaN  Fill = "dy-nan"
	DYZero Fill = "dy-zero"
)

// Alias names the input a case's output is, for in-place checks.
type Alias string

// Aliases: none (the output is its own poisoned memory), or the output is
// the forward input x, the backward input y or dy itself, holding its
// values when the backend is called.
const (
	Separate Alias = ""
	AliasX   Alias = "x"
	AliasY   Alias = "y"
	AliasDY  Alias = "dy"
)

// Case is one check: an op on a shape along an axis.
type Case struct {
	Shape []int
	Axis  int
	DType spec.DType
	Op    spec.Op
	Scale float64 // 0 means 1; the float32-arithmetic dtypes use float32(Scale)
	Fill  Fill
	Alias Alias // the input the output is (in place); Separate: none
}

// Name is a compact label such as "softmax f16 [4 781] axis -1 random".
func (c Case) Name() string {
	s := fmt.Sprintf("%v %v %v axis %d %s", c.Op, c.DType, c.Shape, c.Axis, c.Fill)
	if c.Scale != 0 && c.Scale != 1 {
		s += fmt.Sprintf(" scale %g", c.Scale)
	}
	if c.Alias != Separate {
		s += " in place (out = " + string(c.Alias) + ")"
	}
	return s
}

// Host is a host tensor as the backends take it: F32 for float32, raw bits
// in U16 for float16/bfloat16, F64 for float64.
type Host struct {
	DType spec.DType
	F32   []float32
	U16   []uint16
	F64   []float64
}

// Backend runs one op. For forward ops inputs is [x]; for backward ops it
// is [y, dy]. out is poisoned with NaN before the call, unless the case is
// in place: then out is the aliased input itself (the same slice).
type Backend func(c Case, out Host, inputs []Host) error

// Result is the outcome of one case.
type Result struct {
	Case   Case
	MaxAbs float64 // max |out − ref| over entries where both are finite
	// Rel is ‖out − ref‖ / ‖ref‖ over finite entries; for log-softmax it is
	// the largest |out − ref| / max(1, |ref|); for backward ops the
	// denominator is the norm of backwardScale.
	Rel float64
	Tol float64
	Err error // backend error, or a mismatch of NaN/±∞ pattern
}

// OK reports whether the case passed.
func (r Result) OK() bool { return r.Err == nil && r.Rel <= r.Tol }

// Tolerance is the accepted relative error ‖y−ref‖/‖ref‖ for dtype and op;
// for log-softmax it bounds |y−ref| / max(1, |ref|) element-wise.
func Tolerance(dt spec.DType, op spec.Op) float64 {
	switch dt {
	case spec.Float16:
		return 1e-3
	case spec.BFloat16:
		return 8e-3
	case spec.Float64:
		// Float64 arithmetic: a few ulp an element, sums compensated.
		return 1e-13
	}
	switch op {
	case spec.LogSoftmax:
		return 1e-5
	case spec.Softmax:
		return 1e-6
	}
	// Backward is measured against the size of the terms it subtracts (see
	// backwardScale), so cancellation in dx = y·(dy − s) does not count.
	return 5e-5
}

// Run draws the case's inputs from rng, runs backend and compares.
func Run(c Case, rng *rand.Rand, backend Backend) Result {
	res := Result{Case: c, Tol: Tolerance(c.DType, c.Op)}
	l, err := spec.Decompose(c.Shape, c.Axis)
	if err != nil {
		res.Err = err
		return res
	}
	n := l.Len()
	scale := c.Scale
	if scale == 0 {
		scale = 1
	}
	if bad := c.Alias == AliasX && c.Op.Backward() || (c.Alias == AliasY || c.Alias == AliasDY) && !c.Op.Backward(); bad {
		res.Err = fmt.Errorf("verify: %v has no input %q to alias", c.Op, c.Alias)
		return res
	}
	fill := c.Fill
	if fill == DYNaN || fill == DYZero {
		fill = Random
	}
	x := draw(fill, c.DType, l, rng)
	xs := store(c.DType, x) // rounded to storage
	var want, scaleOf []float64
	var inputs []Host
	if c.Op.Backward() {
		fwd := spec.Softmax
		if c.Op == spec.LogSoftmaxBackward {
			fwd = spec.LogSoftmax
		}
		y, _ := refForward(c.DType, fwd, l, load(xs))
		ys := store(c.DType, y)
		dys := store(c.DType, drawDY(c.Fill, l, rng))
		want, _ = refBackward(c.DType, c.Op, l, load(ys), load(dys))
		scaleOf = backwardScale(c.Op, l, load(ys), load(dys))
		// The backends multiply dx by the scale in float32 (float64 for
		// Float64); so does the reference.
		s := scale
		if c.DType != spec.Float64 {
			s = float64(float32(scale))
		}
		for i := range want {
			want[i] *= s
			scaleOf[i] *= math.Abs(s)
		}
		inputs = []Host{ys, dys}
	} else {
		// The backends compute scale·x in float32 (float64 for Float64); so
		// does the reference's input.
		sx := load(xs)
		for i, v := range sx {
			if c.DType == spec.Float64 {
				sx[i] = v * scale
			} else {
				sx[i] = float64(float32(v) * float32(scale))
			}
		}
		want, _ = refForward(c.DType, c.Op, l, sx)
		inputs = []Host{xs}
	}
	out := Host{DType: c.DType}
	switch c.DType {
	case spec.Float64:
		out.F64 = make([]float64, n)
		for i := range out.F64 {
			out.F64[i] = math.NaN()
		}
	case spec.Float32:
		out.F32 = make([]float32, n)
		for i := range out.F32 {
			out.F32[i] = float32(math.NaN())
		}
	default:
		out.U16 = make([]uint16, n)
		for i := range out.U16 {
			out.U16[i] = 0x7e00 // NaN in f16; a NaN payload in bf16 too (exp all ones)
			if c.DType == spec.BFloat16 {
				out.U16[i] = 0x7fc0
			}
		}
	}
	switch c.Alias {
	case AliasX, AliasY:
		out = clone(inputs[0])
		inputs[0] = out
	case AliasDY:
		out = clone(inputs[1])
		inputs[1] = out
	}
	if err := backend(c, out, inputs); err != nil {
		res.Err = err
		return res
	}
	// A result beyond the storage range (log-softmax of huge spreads) is ±∞
	// in that dtype, as in PyTorch.
	for i, w := range load(store(c.DType, want)) {
		if math.IsInf(w, 0) {
			want[i] = w
		}
	}
	res.MaxAbs, res.Rel, res.Err = compare(c.Op, load(out), want, scaleOf)
	return res
}

// backwardScale returns, per element, the magnitude of the terms whose
// difference is the gradient: |y|·(|dy| + Σ|y·dy|) for softmax (dx =
// y·(dy − Σy·dy)) and |dy| + e^y·Σ|dy| for log-softmax (dx = dy − e^y·Σdy).
// Float32 rounding of the sum is relative to these, not to |dx|, which can
// be arbitrarily smaller when the terms cancel (a 7-element softmax
// backward whose y is nearly one-hot failed ‖dx−ref‖/‖ref‖ ≤ 5e-5 on a
// correct kernel). |dx| never exceeds them, so this is never looser than
// necessary for a correct float32 result and still catches wrong values.
func backwardScale(op spec.Op, l spec.Layout, y, dy []float64) []float64 {
	out := make([]float64, len(y))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(a int) int { return (o*l.Axis+a)*l.Inner + i }
			sum := 0.0
			for a := 0; a < l.Axis; a++ {
				if op == spec.SoftmaxBackward {
					sum += math.Abs(y[at(a)] * dy[at(a)])
				} else {
					sum += math.Abs(dy[at(a)])
				}
			}
			for a := 0; a < l.Axis; a++ {
				k := at(a)
				if op == spec.SoftmaxBackward {
					out[k] = math.Abs(y[k]) * (math.Abs(dy[k]) + sum)
				} else {
					out[k] = math.Abs(dy[k]) + math.Exp(y[k])*sum
				}
			}
		}
	}
	return out
}

// compare returns the error metrics and a non-nil error for any mismatch of
// the NaN/±∞ pattern (which also catches unwritten, still poisoned, output).
// With scaleOf (backward ops), Rel is ‖got − want‖ / ‖scaleOf‖ over the
// finite entries instead of ‖got − want‖ / ‖want‖.
func compare(op spec.Op, got, want, scaleOf []float64) (maxAbs, rel float64, err error) {
	var num, den, worst float64
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) || math.IsInf(w, 0) {
			if !(math.IsNaN(w) && math.IsNaN(g)) && g != w {
				return maxAbs, rel, fmt.Errorf("element %d: got %v, want %v", i, g, w)
			}
			continue
		}
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return maxAbs, rel, fmt.Errorf("element %d: got %v, want %v (unwritten or wrong)", i, g, w)
		}
		d := math.Abs(g - w)
		maxAbs = math.Max(maxAbs, d)
		worst = math.Max(worst, d/math.Max(1, math.Abs(w)))
		num += d * d
		if scaleOf != nil && !math.IsNaN(scaleOf[i]) && !math.IsInf(scaleOf[i], 0) {
			den += scaleOf[i] * scaleOf[i]
		} else {
			den += w * w
		}
	}
	if den > 0 {
		rel = math.Sqrt(num / den)
	} else if num > 0 {
		rel = math.Inf(1)
	}
	if op == spec.LogSoftmax {
		rel = worst
	}
	return maxAbs, rel, nil
}

// draw makes float64 input values for a fill.
func draw(f Fill, dt spec.DType, l spec.Layout, rng *rand.Rand) []float64 {
	n := l.Len()
	x := make([]float64, n)
	for i := range x {
		x[i] = 3 * rng.NormFloat64()
	}
	big := map[spec.DType]float64{spec.Float32: 3e38, spec.Float16: 6e4, spec.BFloat16: 3e38, spec.Float64: 1.7e308}[dt]
	// Each edge fill touches about a third of the slices (at least one).
	forSlices := func(fn func(at func(j int) int)) {
		picked := false
		for o := 0; o < l.Outer; o++ {
			for i := 0; i < l.Inner; i++ {
				last := o == l.Outer-1 && i == l.Inner-1
				if rng.IntN(3) != 0 && !(last && !picked) {
					continue
				}
				picked = true
				fn(func(j int) int { return (o*l.Axis+j)*l.Inner + i })
			}
		}
	}
	switch f {
	case NegInf:
		forSlices(func(at func(int) int) {
			for j := 0; j < l.Axis; j++ {
				if rng.IntN(2) == 0 && j != 0 {
					x[at(j)] = math.Inf(-1)
				}
			}
		})
	case AllNegInf:
		forSlices(func(at func(int) int) {
			for j := 0; j < l.Axis; j++ {
				x[at(j)] = math.Inf(-1)
			}
		})
	case NaN:
		forSlices(func(at func(int) int) { x[at(rng.IntN(l.Axis))] = math.NaN() })
	case PosInf:
		forSlices(func(at func(int) int) { x[at(rng.IntN(l.Axis))] = math.Inf(1) })
	case Huge:
		for i := range x {
			x[i] = big * (1 - rng.Float64()*2)
		}
	case Constant:
		for i := range x {
			x[i] = 1.25
		}
	case Wide:
		span := 80.0
		if dt == spec.Float64 {
			span = 700 // e^±700 spans the float64 range, as e^±80 does float32's
		}
		for i := range x {
			x[i] = span * (1 - 2*rng.Float64())
		}
	}
	return x
}

// drawDY makes the incoming gradient of a backward case: normal, σ = 1,
// with a NaN in some slices (DYNaN) or some slices all zero (DYZero).
func drawDY(f Fill, l spec.Layout, rng *rand.Rand) []float64 {
	dy := make([]float64, l.Len())
	for i := range dy {
		dy[i] = rng.NormFloat64()
	}
	if f != DYNaN && f != DYZero || l.Axis == 0 {
		return dy
	}
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			if rng.IntN(3) != 0 && (o != 0 || i != 0) {
				continue // about a third of the slices, always the first
			}
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			if f == DYNaN {
				dy[at(rng.IntN(l.Axis))] = math.NaN()
				continue
			}
			for j := 0; j < l.Axis; j++ {
				dy[at(j)] = 0
			}
		}
	}
	return dy
}

// clone copies a host tensor.
func clone(h Host) Host {
	return Host{DType: h.DType, F32: append([]float32(nil), h.F32...), U16: append([]uint16(nil), h.U16...),
		F64: append([]float64(nil), h.F64...)}
}

// store rounds values to the dtype's storage.
func store(dt spec.DType, v []float64) Host {
	h := Host{DType: dt}
	switch dt {
	case spec.Float64:
		h.F64 = append([]float64(nil), v...)
	case spec.Float32:
		h.F32 = make([]float32, len(v))
		for i, x := range v {
			h.F32[i] = float32(x)
		}
	case spec.Float16:
		h.U16 = make([]uint16, len(v))
		for i, x := range v {
			h.U16[i] = vec.FloatToHalf(float32(x))
		}
	case spec.BFloat16:
		h.U16 = make([]uint16, len(v))
		for i, x := range v {
			h.U16[i] = vec.FloatToBF16(float32(x))
		}
	}
	return h
}

// load widens storage to float64.
func load(h Host) []float64 {
	if h.DType == spec.Float64 {
		return append([]float64(nil), h.F64...)
	}
	if h.DType == spec.Float32 {
		v := make([]float64, len(h.F32))
		for i, x := range h.F32 {
			v[i] = float64(x)
		}
		return v
	}
	v := make([]float64, len(h.U16))
	for i, b := range h.U16 {
		if h.DType == spec.Float16 {
			v[i] = float64(vec.HalfToFloat(b))
		} else {
			v[i] = float64(vec.BF16ToFloat(b))
		}
	}
	return v
}

// refForward is the reference of a forward op: compensated for Float64,
// whose errors are far below the plain reference's.
func refForward(dt spec.DType, op spec.Op, l spec.Layout, x []float64) ([]float64, error) {
	if dt == spec.Float64 {
		return ref.ForwardCompensated(op, l, x, 1)
	}
	return ref.Forward(op, l, x, 1)
}

// refBackward is refForward for the backward ops.
func refBackward(dt spec.DType, op spec.Op, l spec.Layout, y, dy []float64) ([]float64, error) {
	if dt == spec.Float64 {
		return ref.BackwardCompensated(op, l, y, dy)
	}
	return ref.Backward(op, l, y, dy)
}
