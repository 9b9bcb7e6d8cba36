package vec

import "math"

// The cross-entropy row pass (ExpSumMax): its exp is a shorter form of
// Exp (asmgen/xent.go says why) and this file holds its pure-Go twin.

// Constants of xentExp1; they must equal asmgen/xent.go's.
const (
	xMagic = 12582912 // 1.5·2^23: adding it rounds to an integer
	xC2    = 4.9999993452e-01
	xC3    = 1.6666520688e-01
	xC4    = 4.1668387390e-02
	xC5    = 8.3687100450e-03
	xC6    = 1.3814612330e-03
)

// ExpSumMaxLimit is the largest exponent ExpSumMax computes an exp of:
// above it (mx > ExpSumMaxLimit) the chunk's exps and sum are unspecified
// and the caller recomputes them against a larger m. It leaves room for
// sums of many exps below float32's overflow.
const ExpSumMaxLimit = 60

// ExpSumMax is the cross-entropy row pass over one chunk: it writes
// dst[i] = exp(scale·x[i] − m) (scale·x[i] − m rounded once) and returns
// s = Σ dst[i] and mx, the max of scale·x[i] − m over the elements that
// are not NaN (−∞ if none), while it prefetches next (the same chunk of
// the next row) and writes out[i] = in[i]·k − c, rounded as LogNorm(out,
// in, k, c, 0) (the previous row's gradient chunk; out may be empty), with
// non-temporal stores in the assembly sets. The exps are within 2 ulp of
// exp where mx ≤ ExpSumMaxLimit and unspecified otherwise. One pass over
// x: the caller takes m from the chunks before, so the row needs no max
// pass of its own.
func ExpSumMax(dst, x, next, out, in []float32, scale, m, k, c float32) (s, mx float32) {
	return expSumMax(dst, x[:len(dst)], next, out, in[:len(out)], scale, m, k, c)
}

// xentExpGeneric is the twin of the assembly xentExp (all of out written).
func xentExpGeneric(dst, x, _, out, in []float32, scale, m, k, c float32) (s, mx float32, done int) {
	x = x[:len(dst)]
	var acc [8]float32
	mx = NegInf
	for i := range dst {
		t := x[i] - m
		if scale != 1 {
			t = fma32(x[i], scale, -m)
		}
		if t > mx {
			mx = t
		}
		e := xentExp1(t)
		dst[i] = e
		acc[i%8] += e
	}
	logNormGeneric(out, in, k, c, 0)
	s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
	return s, mx, len(out)
}

// xentExp1 is the scalar exp of xentExp: Exp's range reduction with n
// rounded inside an FMA, e^r by a degree-6 Horner polynomial. Defined for
// t ≤ ExpSumMaxLimit (+Inf above 88.72 here).
func xentExp1(t float32) float32 {
	if t != t {
		return t
	}
	if t > expHi {
		return float32(math.Inf(1))
	}
	t = max(t, -104)
	n := fma32(t, log2e, xMagic) - xMagic
	r := fma32(-n, ln2Hi, t)
	r = fma32(-n, ln2Lo, r)
	p := float32(xC6)
	p = fma32(p, r, xC5)
	p = fma32(p, r, xC4)
	p = fma32(p, r, xC3)
	p = fma32(p, r, xC2)
	p = fma32(p, r, 1)
	p = fma32(p, r, 1)
	return ldexp(p, int32(n))
}

// fma32 is a·b + c rounded once to float32 (but for a rare double rounding
// through float64, which tests allow as 1 ulp).
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}
