package ref

import (
	"fmt"
	"math"
	"math/big"

	"github.com/gofused/softmax/internal/spec"
)

// The references of the float64 backends, whose errors (a few ulp an
// element) the plain reference's naive float64 sums would blur:
// ForwardCompensated and BackwardCompensated sum with Neumaier's
// compensation (and exact products, by FMA), so each output is within a
// couple of ulp of the exact result; ForwardBig and BackwardBig compute in
// math/big at a chosen precision, for small cases that check the
// compensated ones.

// neumaier is a compensated sum.
type neumaier struct{ s, c float64 }

func (k *neumaier) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k neumaier) value() float64 {
	if math.IsInf(k.s, 0) || math.IsNaN(k.s) {
		return k.s
	}
	return k.s + k.c
}

// ForwardCompensated is Forward with compensated sums of the exps.
func ForwardCompensated(op spec.Op, l spec.Layout, x []float64, scale float64) ([]float64, error) {
	if op != spec.Softmax && op != spec.LogSoftmax {
		return nil, fmt.Errorf("ref.ForwardCompensated: op %v is not a forward op", op)
	}
	if len(x) != l.Len() {
		return nil, fmt.Errorf("ref.ForwardCompensated: len(x) = %d, layout has %d elements", len(x), l.Len())
	}
	y := make([]float64, len(x))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			m := math.Inf(-1)
			for j := 0; j < l.Axis; j++ {
				m = maxNaN(m, scale*x[at(j)])
			}
			var d neumaier
			for j := 0; j < l.Axis; j++ {
				d.add(math.Exp(scale*x[at(j)] - m))
			}
			sum := d.value()
			for j := 0; j < l.Axis; j++ {
				if op == spec.LogSoftmax {
					y[at(j)] = scale*x[at(j)] - m - math.Log(sum)
				} else {
					y[at(j)] = math.Exp(scale*x[at(j)]-m) / sum
				}
			}
		}
	}
	return y, nil
}

// BackwardCompensated is Backward with a compensated sum of exact products
// (the FMA's residual carries each product's rounding error).
func BackwardCompensated(op spec.Op, l spec.Layout, y, dy []float64) ([]float64, error) {
	if !op.Backward() {
		return nil, fmt.Errorf("ref.BackwardCompensated: op %v is not a backward op", op)
	}
	if len(y) != l.Len() || len(dy) != l.Len() {
		return nil, fmt.Errorf("ref.BackwardCompensated: len(y) = %d, len(dy) = %d, layout has %d elements", len(y), len(dy), l.Len())
	}
	dx := make([]float64, len(y))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			var s neumaier
			for j := 0; j < l.Axis; j++ {
				if op == spec.SoftmaxBackward {
					p := dy[at(j)] * y[at(j)]
					s.add(p)
					if !math.IsInf(p, 0) && !math.IsNaN(p) {
						s.add(math.FMA(dy[at(j)], y[at(j)], -p))
					}
				} else {
					s.add(dy[at(j)])
				}
			}
			sum := s.value()
			for j := 0; j < l.Axis; j++ {
				k := at(j)
				if op == spec.SoftmaxBackward {
					dx[k] = y[k] * (dy[k] - sum)
				} else {
					dx[k] = dy[k] - math.Exp(y[k])*sum
				}
			}
		}
	}
	return dx, nil
}

// ForwardBig computes op of scale·x in math/big at prec bits and rounds
// the result to float64. It is meant for small, finite inputs (it has no
// −∞, NaN or overflow handling) that check the float64 references.
func ForwardBig(op spec.Op, l spec.Layout, x []float64, scale float64, prec uint) ([]float64, error) {
	if op != spec.Softmax && op != spec.LogSoftmax {
		return nil, fmt.Errorf("ref.ForwardBig: op %v is not a forward op", op)
	}
	if len(x) != l.Len() {
		return nil, fmt.Errorf("ref.ForwardBig: len(x) = %d, layout has %d elements", len(x), l.Len())
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	y := make([]float64, len(x))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			sx := make([]*big.Float, l.Axis)
			d := nf()
			for j := range sx {
				sx[j] = nf().Mul(nf().SetFloat64(scale), nf().SetFloat64(x[at(j)]))
				d.Add(d, bigExp(sx[j], prec))
			}
			logd := bigLog(d, prec)
			for j := range sx {
				if op == spec.LogSoftmax {
					y[at(j)], _ = nf().Sub(sx[j], logd).Float64()
				} else {
					y[at(j)], _ = nf().Quo(bigExp(sx[j], prec), d).Float64()
				}
			}
		}
	}
	return y, nil
}

// BackwardBig is ForwardBig for the backward ops (finite inputs).
func BackwardBig(op spec.Op, l spec.Layout, y, dy []float64, prec uint) ([]float64, error) {
	if !op.Backward() {
		return nil, fmt.Errorf("ref.BackwardBig: op %v is not a backward op", op)
	}
	if len(y) != l.Len() || len(dy) != l.Len() {
		return nil, fmt.Errorf("ref.BackwardBig: len(y) = %d, len(dy) = %d, layout has %d elements", len(y), len(dy), l.Len())
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	dx := make([]float64, len(y))
	for o := 0; o < l.Outer; o++ {
		for i := 0; i < l.Inner; i++ {
			at := func(j int) int { return (o*l.Axis+j)*l.Inner + i }
			s := nf()
			for j := 0; j < l.Axis; j++ {
				t := nf().SetFloat64(dy[at(j)])
				if op == spec.SoftmaxBackward {
					t.Mul(t, nf().SetFloat64(y[at(j)]))
				}
				s.Add(s, t)
			}
			for j := 0; j < l.Axis; j++ {
				k := at(j)
				yk, dyk := nf().SetFloat64(y[k]), nf().SetFloat64(dy[k])
				if op == spec.SoftmaxBackward {
					dx[k], _ = nf().Mul(yk, nf().Sub(dyk, s)).Float64()
				} else {
					dx[k], _ = nf().Sub(dyk, nf().Mul(bigExp(yk, prec), s)).Float64()
				}
			}
		}
	}
	return dx, nil
}

// bigExp returns e^x at prec bits: x/2^k below 2^-8 in magnitude, its
// Taylor series to the last bit, squared k times (with guard bits for the
// squarings).
func bigExp(x *big.Float, prec uint) *big.Float {
	wp := prec + 64
	r := new(big.Float).SetPrec(wp).Set(x)
	k := 0
	if e := r.MantExp(nil); e > -8 {
		k = e + 8
		r.SetMantExp(r, -k)
	}
	sum := new(big.Float).SetPrec(wp).SetInt64(1)
	term := new(big.Float).SetPrec(wp).SetInt64(1)
	eps := new(big.Float).SetPrec(wp).SetMantExp(big.NewFloat(1), -int(wp))
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(wp).SetInt64(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for ; k > 0; k-- {
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(prec)
}

// bigLog returns log a (a > 0) at prec bits by Newton's iteration on e^y =
// a from the float64 log: each step doubles the correct bits.
func bigLog(a *big.Float, prec uint) *big.Float {
	wp := prec + 32
	af, _ := a.Float64()
	y := new(big.Float).SetPrec(wp).SetFloat64(math.Log(af))
	two := new(big.Float).SetPrec(wp).SetInt64(2)
	for bits := uint(50); bits < 2*wp; bits *= 2 {
		// y += 2·(a − e^y)/(a + e^y)
		e := bigExp(y, wp)
		num := new(big.Float).SetPrec(wp).Sub(a, e)
		den := new(big.Float).SetPrec(wp).Add(a, e)
		y.Add(y, num.Mul(num, two).Quo(num, den))
	}
	return y.SetPrec(prec)
}

// ExpBig returns e^x correctly rounded to float64 (computed at 200 bits):
// the yardstick of the float64 exps' ulp tests. x must be finite; results
// below the smallest denormal are 0 and above MaxFloat64 +Inf.
func ExpBig(x float64) float64 {
	v, _ := bigExp(new(big.Float).SetPrec(200).SetFloat64(x), 200).Float64()
	return v
}

// LogBig returns log x correctly rounded to float64 (computed at 200 bits)
// for a finite x > 0: the yardstick of the float64 logs' ulp tests.
func LogBig(x float64) float64 {
	v, _ := bigLog(new(big.Float).SetPrec(200).SetFloat64(x), 200).Float64()
	return v
}
