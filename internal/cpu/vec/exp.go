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

// Constants of Exp16, which asmgen/fwd74.go says why.
const (
	ln2     = 0.693147180559945309
	exp16Q2 = 0.499992311000824
	exp16Q3 = 0.16667114198207855
	exp16Q4 = 0.041890114545822144
	exp16Q5 = 0.008312525227665901
)

// Exp16 returns e^x within 4.5e-7 relative (about 4 ulp) for normal
// results, with Exp's cut-offs: the exp of the 16-bit softmax rows
// (ExpSum16Ahead), whose outputs keep 8 or 11 significant bits. It is the
// scalar twin of that vector exp, whose fused multiply-adds it rounds once
// more (through float64), so the two may differ by an ulp; the vector exp
// is defined for x ≤ 88.72 (a row minus its max) and NaN only.
func Exp16(x float32) float32 {
	if x != x {
		return x
	}
	x = min(max(x, expLo16), expHi16)
	n := float32(math.RoundToEven(float64(x * log2e)))
	r := fma32(-n, ln2, x)
	p := fma32(exp16Q5, r, exp16Q4)
	p = fma32(p, r, exp16Q3)
	p = fma32(p, r, exp16Q2)
	p = fma32(p, r, 1)
	p = fma32(p, r, 1)
	return ldexp(p, int32(n))
}

// The vector exps' clamp bounds (asmgen's clampLo, clampHi): exp(−104)
// rounds to 0 and exp(89) overflows.
const (
	expLo16 = -104
	expHi16 = 89
)
