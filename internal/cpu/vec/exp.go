package vec

import "math"

// Constants of the float32 exp used by every kernel: x = n·ln2 + r with
// |r| ≤ ln2/2, exp(r) by a degree-6 polynomial (Cephes expf coefficients),
// then scaled by 2^n. ln2 is split so that n·ln2Hi is exact in float32.
const (
	log2e = 1.44269504088896341
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4
	expHi = 88.72283935546875   // largest x with finite exp(x)
	expLo = -103.97208404541016 // below this exp(x) rounds to 0
	expP0 = 1.9875691500e-4
	expP1 = 1.3981999507e-3
	expP2 = 8.3334519073e-3
	expP3 = 4.1665795894e-2
	expP4 = 1.6666665459e-1
	expP5 = 5.0000001201e-1
)

// NegInf is float32 −∞.
var NegInf = float32(math.Inf(-1))

// Exp returns e^x in float32 within 2 ulp over the whole range: −∞ → 0,
// NaN → NaN, results below the normal range are denormal or 0, above are +∞.
// It is the scalar twin of the vector exp in the assembly kernels.
func Exp(x float32) float32 {
	if x != x {
		return x
	}
	if x > expHi {
		return float32(math.Inf(1))
	}
	if x < expLo {
		return 0
	}
	n := float32(math.Floor(float64(x*log2e) + 0.5))
	r := x - n*ln2Hi
	r -= n * ln2Lo
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	p = p*r*r + r + 1
	return ldexp(p, int32(n))
}

// ldexp returns p·2^n for p in [0.5, 2) and n in [−151, 129], splitting the
// power when 2^n alone is not a normal float32 so denormals round once.
func ldexp(p float32, n int32) float32 {
	switch {
	case n < -126:
		return p * math.Float32frombits(uint32(n+127+64)<<23) * math.Float32frombits(uint32(127-64)<<23)
	case n > 127:
		return p * math.Float32frombits(uint32(n+127-1)<<23) * 2
	}
	return p * math.Float32frombits(uint32(n+127)<<23)
}

// Minimax fits of 2^f on [0, 1) for relative error, lowest degree first:
// bfloat16 rows' (2.6e-6) and float16 rows' (7.5e-8). asmgen/fwd16s70.go
// holds the same values and says why.
var (
	exp2BF16 = [...]float32{1.0000026226043701, 0.6930038332939148, 0.2414427548646927, 0.052011460065841675, 0.013534167781472206}
	exp2F16  = [...]float32{0.9999999403953552, 0.6931530833244324, 0.24015361070632935, 0.05582631751894951, 0.00898933969438076, 0.0018775768112391233}
)

// exp2Args returns L = scale·log2e and M = m·log2e, rounded to float32: the
// exps of the 16-bit softmax rows (ExpSum16Ahead) are 2^(x·L − M), one
// fused multiply-add an element, which is e^(x·scale − m) but for M's
// rounding (a factor common to the row, which its normalization cancels)
// and t's. wide says M or L overflowed (|m| or |scale| above 2.3e38): then the
// exps are 2^(float32(x·scale − m)·log2e) instead.
func exp2Args(scale, m float32) (l, mm float32, wide bool) {
	l = scale * log2e
	mm = m * log2e
	return l, mm, math.IsInf(float64(mm), 0) || math.IsInf(float64(l), 0)
}

// exp2Arg is t for 16-bit value u (bfloat16 with bf) and exp2Args' results.
func exp2Arg(u uint16, bf bool, scale, m, l, mm float32, wide bool) float32 {
	if wide {
		// The conversion keeps the product from fusing with the
		// subtraction (arm64), as the assembly rounds it.
		return (float32(to32(u, bf)*scale) - m) * log2e
	}
	return fma32Exact(to32(u, bf), l, -mm)
}

// exp2Poly16 returns 2^t, the exp of the 16-bit softmax rows
// (ExpSum16Ahead; bf: bfloat16's polynomial, else float16's): 2^(t−⌊t⌋) by
// the polynomial, scaled by 2^⌊t⌋ with one rounding, within the
// polynomial's error. It is the scalar twin of that vector exp, whose
// fused multiply-adds it rounds once more (through float64), so the two
// may differ by an ulp; t must be ≤ 128 or NaN. −∞ and every t below −151
// give 0.
func exp2Poly16(t float32, bf bool) float32 {
	if t != t {
		return t
	}
	if t < -151 {
		return 0
	}
	n := float32(math.Floor(float64(t)))
	f := t - n
	c := exp2F16[:]
	if bf {
		c = exp2BF16[:]
	}
	p := c[len(c)-1]
	for j := len(c) - 2; j >= 0; j-- {
		p = fma32(p, f, c[j])
	}
	return float32(float64(p) * math.Ldexp(1, int(n)))
}

// fma32Exact is a·b + c rounded once to float32, as the assembly's FMA:
// the float64 sum's own rounding, which fma32 may carry into a second one,
// is undone where it lands on a float32 midpoint.
func fma32Exact(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact
	s := p + float64(c)
	r := float32(s)
	if math.IsInf(s, 0) || float64(r) == s {
		return r
	}
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb) // s + e is a·b + c exactly
	other := math.Nextafter32(r, float32(math.Inf(1)))
	if float64(r) > s {
		other = math.Nextafter32(r, float32(math.Inf(-1)))
	}
	if e == 0 || s != (float64(r)+float64(other))/2 {
		return r
	}
	if (e > 0) == (other > r) {
		return other
	}
	return r
}
