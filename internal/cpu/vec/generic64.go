package vec

import "math"

// Constants of the float64 exp (Exp64 and the float64 assembly kernels):
// x = n·ln2 + r with n = round(x·log2e) (by adding and subtracting
// exp64Shift, which rounds to nearest even in the FPU's default mode) and
// |r| ≤ ln2/2, ln2 split as Cody and Waite do (fdlibm's ln2Hi has 32
// significant bits, so n·ln2Hi is exact for |n| < 2^21), e^r = 1 + r +
// r²·q(r) in Horner form with fused multiply-adds, then ·2^n.
const (
	exp64Log2e = 1.44269504088896338700e+00
	exp64Ln2Hi = 6.93147180369123816490e-01
	exp64Ln2Lo = 1.90821492927058770002e-10
	exp64Shift = 0x1.8p52 // 1.5·2^52: x + exp64Shift rounds x to an integer
	// The input is clamped to [exp64Lo, exp64Hi] (NaN passes): e^exp64Lo
	// rounds to 0 and e^exp64Hi overflows to +Inf, so the clamp changes
	// no result.
	exp64Lo = -746
	exp64Hi = 710
)

// exp64Coef are q's coefficients, of r^9 down to r^0 (Horner order): the
// degree-9 interpolant of (e^r − 1 − r)/r² at the Chebyshev nodes of
// [−ln2/2, ln2/2], so that 1 + r + r²·q(r) is within 1.6e-17 of e^r there
// (mpmath at 60 digits), where Taylor's polynomial of the same degree 11
// is 6e-15 off; it saves two FMAs a vector on the Taylor polynomial of
// degree 13 that matched it.
var exp64Coef = [...]float64{
	2.5100375832561234e-08, 2.7620075879983367e-07, 2.7557268480310024e-06,
	2.4801521322368692e-05, 0.00019841269863040545, 0.0013888888917196719,
	0.008333333333330065, 0.041666666666624164, 0.16666666666666669,
	0.5000000000000001,
}

// Exp64 returns e^x in float64 within about 1 ulp: −∞ → 0, NaN → NaN,
// results below the normal range are denormal (rounded once) or 0, above
// are +Inf. It is the scalar twin of the float64 vector exp of the
// assembly kernels, step for step, so both give the same bits.
func Exp64(x float64) float64 {
	if x < exp64Lo {
		x = exp64Lo
	}
	if x > exp64Hi {
		x = exp64Hi
	}
	t := float64(x*exp64Log2e) + exp64Shift
	n := t - exp64Shift
	r := math.FMA(-n, exp64Ln2Hi, x)
	r = math.FMA(-n, exp64Ln2Lo, r)
	p := exp64Coef[0]
	for _, c := range exp64Coef[1:] {
		p = math.FMA(p, r, c)
	}
	p = math.FMA(p, r, 1)
	p = math.FMA(p, r, 1)
	// ·2^n as ·2^n1·2^(n−n1), n1 = ⌊n/2⌋: both factors are normal for n in
	// [−1076, 1024], the first product is exact, the second rounds once.
	n1 := math.Floor(n * 0.5)
	n2 := n - n1
	p = p * pow2(n1)
	return p * pow2(n2)
}

// pow2 returns 2^n for an integral n in [−1022, 1023].
func pow2(n float64) float64 { return math.Float64frombits(uint64(int64(n)+1023) << 52) }

// maxOf64Generic is the twin of Max64. A NaN never compares greater, so
// NaN elements are skipped.
func maxOf64Generic(x []float64, scale float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		if v := v * scale; v > m {
			m = v
		}
	}
	return m
}

// expSum64Generic is the twin of ExpSum64 (next is unused).
func expSum64Generic(dst, x, _ []float64, scale, m float64) float64 {
	x = x[:len(dst)]
	var s [8]float64
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		for k := 0; k < 8; k++ {
			e := Exp64(float64(x[i+k]*scale) - m)
			dst[i+k] = e
			s[k] += e
		}
	}
	for ; i < len(dst); i++ {
		e := Exp64(float64(x[i]*scale) - m)
		dst[i] = e
		s[0] += e
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// expSumFlush64Generic is the twin of ExpSumFlush64.
func expSumFlush64Generic(dst, x, next, out, in []float64, scale, m, k float64) float64 {
	s := expSum64Generic(dst, x, next, scale, m)
	normalize64Generic(out, in, k)
	return s
}

// expScale64Generic is the twin of ExpScale64 and ExpScaleStream64.
func expScale64Generic(dst, x []float64, scale, m, mul float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = Exp64(float64(x[i]*scale)-m) * mul
	}
}

// normalize64Generic is the twin of Normalize64 and NormalizeStream64.
func normalize64Generic(dst, x []float64, k float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * k
	}
}

// logNorm64Generic is the twin of LogNorm64 and LogNormStream64.
func logNorm64Generic(dst, x []float64, scale, m, logd float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = float64(float64(x[i]*scale)-m) - logd
	}
}

// dot64Generic is the twin of Dot64.
func dot64Generic(a, b []float64) float64 {
	b = b[:len(a)]
	var s [8]float64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		for k := 0; k < 8; k++ {
			s[k] = math.FMA(a[i+k], b[i+k], s[k])
		}
	}
	for ; i < len(a); i++ {
		s[0] = math.FMA(a[i], b[i], s[0])
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// sum64Generic is the twin of Sum64.
func sum64Generic(a []float64) float64 {
	var s [8]float64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		for k := 0; k < 8; k++ {
			s[k] += a[i+k]
		}
	}
	for ; i < len(a); i++ {
		s[0] += a[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// softmaxGrad64Generic is the twin of SoftmaxGrad64.
func softmaxGrad64Generic(dx, y, dy []float64, s float64) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		dx[i] = y[i] * (dy[i] - s)
	}
}

// logSoftmaxGrad64Generic is the twin of LogSoftmaxGrad64.
func logSoftmaxGrad64Generic(dx, y, dy []float64, s float64) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		dx[i] = dy[i] - float64(Exp64(y[i])*s)
	}
}

// maxLanes64Generic is the twin of MaxLanes64.
func maxLanes64Generic(m, x []float64, scale float64) {
	x = x[:len(m)]
	for i := range m {
		if v := x[i] * scale; v > m[i] {
			m[i] = v
		}
	}
}

// expSumLanes64Generic is the twin of ExpSumLanes64.
func expSumLanes64Generic(dst, d, x, m []float64, scale float64) {
	d, x, m = d[:len(dst)], x[:len(dst)], m[:len(dst)]
	for i := range dst {
		e := Exp64(float64(x[i]*scale) - m[i])
		dst[i] = e
		d[i] += e
	}
}

// expScaleLanes64Generic is the twin of ExpScaleLanes64.
func expScaleLanes64Generic(dst, x, m, mul []float64, scale float64) {
	x, m, mul = x[:len(dst)], m[:len(dst)], mul[:len(dst)]
	for i := range dst {
		dst[i] = Exp64(float64(x[i]*scale)-m[i]) * mul[i]
	}
}

// normalizeLanes64Generic is the twin of NormalizeLanes64.
func normalizeLanes64Generic(dst, x, k []float64) {
	x, k = x[:len(dst)], k[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * k[i]
	}
}

// logNormLanes64Generic is the twin of LogNormLanes64.
func logNormLanes64Generic(dst, x, m, logd []float64, scale float64) {
	x, m, logd = x[:len(dst)], m[:len(dst)], logd[:len(dst)]
	for i := range dst {
		dst[i] = float64(float64(x[i]*scale)-m[i]) - logd[i]
	}
}

// mulAdd64Generic is the twin of MulAdd64.
func mulAdd64Generic(acc, a, b []float64) {
	a, b = a[:len(acc)], b[:len(acc)]
	for i := range acc {
		acc[i] = math.FMA(a[i], b[i], acc[i])
	}
}

// add64Generic is the twin of Add64.
func add64Generic(acc, a []float64) {
	a = a[:len(acc)]
	for i := range acc {
		acc[i] += a[i]
	}
}

// softmaxGradLanes64Generic is the twin of SoftmaxGradLanes64.
func softmaxGradLanes64Generic(dx, y, dy, s []float64) {
	y, dy, s = y[:len(dx)], dy[:len(dx)], s[:len(dx)]
	for i := range dx {
		dx[i] = y[i] * (dy[i] - s[i])
	}
}

// logSoftmaxGradLanes64Generic is the twin of LogSoftmaxGradLanes64.
func logSoftmaxGradLanes64Generic(dx, y, dy, s []float64) {
	y, dy, s = y[:len(dx)], dy[:len(dx)], s[:len(dx)]
	for i := range dx {
		dx[i] = dy[i] - float64(Exp64(y[i])*s[i])
	}
}

// log64Lg are fdlibm's coefficients L1…L7 of log (Go's math.Log's).
var log64Lg = [...]float64{
	6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
	2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
	1.479819860511658591e-01,
}

// logLanes64Generic is the twin of LogLanes64: Go's math.Log for d ≥ 1,
// with d = 2^e·m read from the bits as the assembly reads them, every step
// one rounded operation (no FMA).
func logLanes64Generic(dst, d []float64) {
	L := &log64Lg
	d = d[:len(dst)]
	for i, v := range d {
		b := math.Float64bits(v)
		e := math.Float64frombits(0x4330000000000000|b>>52) - (1<<52 + 1023)
		m := math.Float64frombits(b&(1<<52-1) | math.Float64bits(1))
		if m >= math.Sqrt2 {
			m *= 0.5
			e++
		}
		f := m - 1
		s := f / (2 + f)
		s2 := s * s
		s4 := s2 * s2
		t1 := s2 * float64(L[0]+float64(s4*float64(L[2]+float64(s4*float64(L[4]+float64(s4*L[6]))))))
		t2 := s4 * float64(L[1]+float64(s4*float64(L[3]+float64(s4*L[5]))))
		R := t1 + t2
		hfsq := float64(0.5*f) * f
		out := float64(e*exp64Ln2Hi) - float64(float64(hfsq-float64(float64(s*float64(hfsq+R))+float64(e*exp64Ln2Lo)))-f)
		if !(v < math.Inf(1)) {
			out = v // NaN, +Inf
		}
		dst[i] = out
	}
}
