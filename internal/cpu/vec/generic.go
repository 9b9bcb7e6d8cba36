package vec

import "math"

// The pure-Go kernels. Unrolled by 8 lanes so that the sums are split into
// independent accumulators like the vector kernels' (which keeps float32
// rounding error small on long slices) and the compiler can pipeline them.
// float32(x*scale) rounds the scaled input before it is offset, as the
// vector kernels do: arm64 (and GOAMD64=v3) would otherwise fuse the two.

// safeMax returns m, or 0 when m is −∞: the exponent offset used by the
// online merge so that exp(−∞ − (−∞)) never turns a valid slice into NaN.
func safeMax(m float32) float32 {
	if m == NegInf {
		return 0
	}
	return m
}

// maxSumGeneric is the twin of MaxSum.
func maxSumGeneric(x []float32, scale float32) (m, d float32) {
	var lm, ld [8]float32
	for k := range lm {
		lm[k] = NegInf
	}
	i := 0
	for ; i+8 <= len(x); i += 8 {
		for k := 0; k < 8; k++ {
			v := float32(x[i+k] * scale)
			if v > lm[k] {
				ld[k] *= Exp(lm[k] - safeMax(v))
				lm[k] = v
			}
			ld[k] += Exp(v - safeMax(lm[k]))
		}
	}
	for ; i < len(x); i++ {
		v := float32(x[i] * scale)
		if v > lm[0] {
			ld[0] *= Exp(lm[0] - safeMax(v))
			lm[0] = v
		}
		ld[0] += Exp(v - safeMax(lm[0]))
	}
	m, d = lm[0], ld[0]
	for k := 1; k < 8; k++ {
		m, d = Merge(m, d, lm[k], ld[k])
	}
	return m, d
}

// Merge combines two online (max, sum) pairs. It is −∞-safe: two empty
// pairs (−∞, 0) merge to (−∞, 0), and a NaN sum stays NaN.
func Merge(m1, d1, m2, d2 float32) (m, d float32) {
	if m2 > m1 {
		m1, d1, m2, d2 = m2, d2, m1, d1
	}
	// m1 ≥ m2 or one of them is NaN.
	return m1, d1 + d2*Exp(m2-safeMax(m1))
}

// expScaleGeneric is the twin of ExpScale.
func expScaleGeneric(dst, x []float32, scale, m, mul float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = Exp(float32(x[i]*scale)-m) * mul
	}
}

// logOutGeneric is the twin of LogOut.
func logOutGeneric(dst, x []float32, scale, sub float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = float32(x[i]*scale) - sub
	}
}

// dotGeneric is the twin of Dot.
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var s [8]float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		for k := 0; k < 8; k++ {
			s[k] += a[i+k] * b[i+k]
		}
	}
	for ; i < len(a); i++ {
		s[0] += a[i] * b[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// sumGeneric is the twin of Sum.
func sumGeneric(a []float32) float32 {
	var s [8]float32
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

// softmaxGradGeneric is the twin of SoftmaxGrad.
func softmaxGradGeneric(dx, y, dy []float32, s float32) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		dx[i] = y[i] * (dy[i] - s)
	}
}

// logSoftmaxGradGeneric is the twin of LogSoftmaxGrad.
func logSoftmaxGradGeneric(dx, y, dy []float32, s float32) {
	y, dy = y[:len(dx)], dy[:len(dx)]
	for i := range dx {
		dx[i] = dy[i] - Exp(y[i])*s
	}
}

// onlineUpdateGeneric is the twin of OnlineUpdate.
func onlineUpdateGeneric(m, d, x []float32, scale float32) {
	d, x = d[:len(m)], x[:len(m)]
	for i := range m {
		v := float32(x[i] * scale)
		if v > m[i] {
			d[i] *= Exp(m[i] - safeMax(v))
			m[i] = v
		}
		d[i] += Exp(v - safeMax(m[i]))
	}
}

// expScaleLanesGeneric is the twin of ExpScaleLanes and
// ExpScaleLanesStream.
func expScaleLanesGeneric(dst, x, m, mul []float32, scale float32) {
	x, m, mul = x[:len(dst)], m[:len(dst)], mul[:len(dst)]
	for i := range dst {
		dst[i] = Exp(float32(x[i]*scale)-m[i]) * mul[i]
	}
}

// logOutLanesGeneric is the twin of LogOutLanes.
func logOutLanesGeneric(dst, x, sub []float32, scale float32) {
	x, sub = x[:len(dst)], sub[:len(dst)]
	for i := range dst {
		dst[i] = float32(x[i]*scale) - sub[i]
	}
}

// mulAddGeneric is the twin of MulAdd.
func mulAddGeneric(acc, a, b []float32) {
	a, b = a[:len(acc)], b[:len(acc)]
	for i := range acc {
		acc[i] += a[i] * b[i]
	}
}

// addGeneric is the twin of Add.
func addGeneric(acc, a []float32) {
	a = a[:len(acc)]
	for i := range acc {
		acc[i] += a[i]
	}
}

// softmaxGradLanesGeneric is the twin of SoftmaxGradLanes.
func softmaxGradLanesGeneric(dx, y, dy, s []float32) {
	y, dy, s = y[:len(dx)], dy[:len(dx)], s[:len(dx)]
	for i := range dx {
		dx[i] = y[i] * (dy[i] - s[i])
	}
}

// logSoftmaxGradLanesGeneric is the twin of LogSoftmaxGradLanes.
func logSoftmaxGradLanesGeneric(dx, y, dy, s []float32) {
	y, dy, s = y[:len(dx)], dy[:len(dx)], s[:len(dx)]
	for i := range dx {
		dx[i] = dy[i] - Exp(y[i])*s[i]
	}
}

// f16ToF32Generic is the twin of F16ToF32.
func f16ToF32Generic(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = HalfToFloat(src[i])
	}
}

// f32ToF16Generic is the twin of F32ToF16.
func f32ToF16Generic(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = FloatToHalf(src[i])
	}
}

// bf16ToF32Generic is the twin of BF16ToF32.
func bf16ToF32Generic(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(src[i]) << 16)
	}
}

// f32ToBF16Generic is the twin of F32ToBF16.
func f32ToBF16Generic(dst []uint16, src []float32) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = FloatToBF16(src[i])
	}
}

// maxOfGeneric is the twin of Max. A NaN never compares greater, so NaN
// elements are skipped.
func maxOfGeneric(x []float32, scale float32) float32 {
	var lm [8]float32
	for k := range lm {
		lm[k] = NegInf
	}
	i := 0
	for ; i+8 <= len(x); i += 8 {
		for k := 0; k < 8; k++ {
			if v := x[i+k] * scale; v > lm[k] {
				lm[k] = v
			}
		}
	}
	for ; i < len(x); i++ {
		if v := x[i] * scale; v > lm[0] {
			lm[0] = v
		}
	}
	m := lm[0]
	for _, v := range lm[1:] {
		m = max(m, v)
	}
	return m
}

// expSumGeneric is the twin of ExpSum and ExpSumAhead (Go cannot
// prefetch, so next is unused). Its eight lanes add in float64: in float32,
// 256 exps a lane (a 2048-element chunk) drifted past 1e-6 of the sum on
// rare rows (the purego battery, f32 [5 4097]: 1.34e-6 against 1e-6); the
// assembly kernels split the sum over more accumulators.
func expSumGeneric(dst, x, _ []float32, scale, m float32) float32 {
	x = x[:len(dst)]
	var s [8]float64
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		for k := 0; k < 8; k++ {
			e := Exp(float32(x[i+k]*scale) - m)
			dst[i+k] = e
			s[k] += float64(e)
		}
	}
	for ; i < len(dst); i++ {
		e := Exp(float32(x[i]*scale) - m)
		dst[i] = e
		s[0] += float64(e)
	}
	return float32(((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])))
}

// expSumFlushGeneric is the twin of ExpSumFlush.
func expSumFlushGeneric(dst, x, next, out, in []float32, scale, m, k float32) float32 {
	s := expSumGeneric(dst, x, next, scale, m)
	normalizeGeneric(out, in, k)
	return s
}

// normalizeGeneric is the twin of Normalize and NormalizeStream.
func normalizeGeneric(dst, x []float32, k float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * k
	}
}

// maxLanesGeneric is the twin of MaxLanes.
func maxLanesGeneric(m, x []float32, scale float32) {
	x = x[:len(m)]
	for i := range m {
		if v := x[i] * scale; v > m[i] {
			m[i] = v
		}
	}
}

// expSumLanesGeneric is the twin of ExpSumLanes and ExpSumLanesAhead (next
// is unused).
func expSumLanesGeneric(dst, d, x, m, _ []float32, scale float32) {
	d, x, m = d[:len(dst)], x[:len(dst)], m[:len(dst)]
	for i := range dst {
		e := Exp(float32(x[i]*scale) - m[i])
		dst[i] = e
		d[i] += e
	}
}

// expAddLanesGeneric is the twin of ExpAddLanes (next is unused).
func expAddLanesGeneric(d, x, m, _ []float32, scale float32) {
	x, m = x[:len(d)], m[:len(d)]
	for i := range d {
		d[i] += Exp(float32(x[i]*scale) - m[i])
	}
}

// normalizeLanesGeneric is the twin of NormalizeLanes and
// NormalizeLanesStream.
func normalizeLanesGeneric(dst, x, k []float32) {
	x, k = x[:len(dst)], k[:len(dst)]
	for i := range dst {
		dst[i] = x[i] * k[i]
	}
}

// logNormGeneric is the twin of LogNorm and LogNormStream.
func logNormGeneric(dst, x []float32, scale, m, logd float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = float32(float32(x[i]*scale)-m) - logd
	}
}

// logNormLanesGeneric is the twin of LogNormLanes and LogNormLanesStream.
func logNormLanesGeneric(dst, x, m, logd []float32, scale float32) {
	x, m, logd = x[:len(dst)], m[:len(dst)], logd[:len(dst)]
	for i := range dst {
		dst[i] = float32(float32(x[i]*scale)-m[i]) - logd[i]
	}
}

// recipLanesGeneric is the twin of RecipLanes.
func recipLanesGeneric(dst, d []float32) {
	d = d[:len(dst)]
	for i := range dst {
		dst[i] = 1 / d[i]
	}
}

// logLanesGeneric is the twin of LogLanes: the same float32 steps as the
// assembly (asmgen's logLanes), each rounded, so the same bits.
func logLanesGeneric(dst, d []float32) {
	const (
		lg1, lg2, lg3, lg4 = float32(2.0 / 3), float32(2.0 / 5), float32(2.0 / 7), float32(2.0 / 9)
		sqrt2              = float32(math.Sqrt2)
	)
	d = d[:len(dst)]
	for i, v := range d {
		b := math.Float32bits(v)
		e := float32(int32(b>>23) - 127)
		m := math.Float32frombits(b&0x007fffff | 0x3f800000)
		if m > sqrt2 {
			m *= 0.5
			e++
		}
		f := m - 1 // exact
		s := f / float32(m+1)
		z := float32(s * s)
		r := float32(float32(lg4*z) + lg3)
		r = float32(float32(r*z) + lg2)
		r = float32(float32(r*z) + lg1)
		r = float32(r * z)
		h := float32(float32(0.5*f) * f)
		lm := f - float32(h-float32(s*float32(h+r)))
		out := float32(float32(e*ln2Hi) + float32(lm+float32(e*ln2Lo)))
		if !(v < float32(math.Inf(1))) {
			out = v // NaN, +Inf
		}
		dst[i] = out
	}
}

// softcapGeneric is the twin of Softcap (inv = 1/capv, s2 = 2/capv): every
// step one rounded float32 operation, no FMA, as the kernels.
func softcapGeneric(dst, dz, x []float32, capv, inv, s2 float32) {
	x, dz = x[:len(dst)], dz[:len(dst)]
	for i := range dst {
		y := float32(x[i] * inv)
		if y > -0.625 && y < 0.625 {
			z := float32(y * y)
			p := float32(float32(-5.70498872745e-3*z) + 2.06390887954e-2)
			p = float32(float32(p*z) - 5.37397155531e-2)
			p = float32(float32(p*z) + 1.33314422036e-1)
			p = float32(float32(p*z) - 3.33332819422e-1)
			y += float32(float32(p*z) * y)
		} else {
			r := 1 / (Exp(float32(x[i]*s2)) + 1)
			y = 1 - (r + r)
		}
		dst[i] = capv * y
		dz[i] = 1 - float32(y*y)
	}
}
