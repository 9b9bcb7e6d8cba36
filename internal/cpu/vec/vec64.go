package vec

// The float64 kernels: the same passes as the float32 ones, on float64
// storage with float64 arithmetic (Exp64). Each is a field of kernels64, so
// that a kernel set without float64 assembly (arm64, purego) keeps the
// pure-Go twins of goSet64.

// kernels64 is the float64 part of a kernel set.
type kernels64 struct {
	maxOf               func(x []float64, scale float64) float64
	expSum              func(dst, x, next []float64, scale, m float64) float64
	expSumFlush         func(dst, x, next, out, in []float64, scale, m, k float64) float64
	expScale            func(dst, x []float64, scale, m, mul float64)
	expScaleStream      func(dst, x []float64, scale, m, mul float64)
	normalize           func(dst, x []float64, k float64)
	normalizeStream     func(dst, x []float64, k float64)
	logNorm             func(dst, x []float64, scale, m, logd float64)
	logNormStream       func(dst, x []float64, scale, m, logd float64)
	dot                 func(a, b []float64) float64
	sum                 func(a []float64) float64
	softmaxGrad         func(dx, y, dy []float64, s float64)
	logSoftmaxGrad      func(dx, y, dy []float64, s float64)
	maxLanes            func(m, x []float64, scale float64)
	expSumLanes         func(dst, d, x, m []float64, scale float64)
	expScaleLanes       func(dst, x, m, mul []float64, scale float64)
	normalizeLanes      func(dst, x, k []float64)
	logNormLanes        func(dst, x, m, logd []float64, scale float64)
	mulAdd              func(acc, a, b []float64)
	add                 func(acc, a []float64)
	softmaxGradLanes    func(dx, y, dy, s []float64)
	logSoftmaxGradLanes func(dx, y, dy, s []float64)
	logLanes            func(dst, d []float64)
}

// goSet64 is the pure-Go twins of the float64 kernels.
var goSet64 = &kernels64{
	maxOf:               maxOf64Generic,
	expSum:              expSum64Generic,
	expSumFlush:         expSumFlush64Generic,
	expScale:            expScale64Generic,
	expScaleStream:      expScale64Generic,
	normalize:           normalize64Generic,
	normalizeStream:     normalize64Generic,
	logNorm:             logNorm64Generic,
	logNormStream:       logNorm64Generic,
	dot:                 dot64Generic,
	sum:                 sum64Generic,
	softmaxGrad:         softmaxGrad64Generic,
	logSoftmaxGrad:      logSoftmaxGrad64Generic,
	maxLanes:            maxLanes64Generic,
	expSumLanes:         expSumLanes64Generic,
	expScaleLanes:       expScaleLanes64Generic,
	normalizeLanes:      normalizeLanes64Generic,
	logNormLanes:        logNormLanes64Generic,
	mulAdd:              mulAdd64Generic,
	add:                 add64Generic,
	softmaxGradLanes:    softmaxGradLanes64Generic,
	logSoftmaxGradLanes: logSoftmaxGradLanes64Generic,
	logLanes:            logLanes64Generic,
}

// k64 is the float64 kernel table in use (see kernelSet.install).
var k64 = *goSet64

// Max64 returns the max of scale·x[i] over the elements that are not NaN,
// or −∞ when there are none.
func Max64(x []float64, scale float64) float64 { return k64.maxOf(x, scale) }

// ExpSum64 writes dst[i] = exp(scale·x[i] − m) for i < len(dst) and
// returns their sum; it also prefetches next into L2 (see ExpSumAhead).
func ExpSum64(dst, x, next []float64, scale, m float64) float64 {
	return k64.expSum(dst, x[:len(dst)], next, scale, m)
}

// ExpSumFlush64 is ExpSum64(dst, x, next, scale, m) and
// NormalizeStream64(out, in, k) at once (see ExpSumFlush).
func ExpSumFlush64(dst, x, next []float64, scale, m float64, out, in []float64, k float64) float64 {
	return k64.expSumFlush(dst, x[:len(dst)], next, out, in[:len(out)], scale, m, k)
}

// ExpScale64 writes dst[i] = exp(scale·x[i] − m)·mul.
func ExpScale64(dst, x []float64, scale, m, mul float64) {
	k64.expScale(dst, x[:len(dst)], scale, m, mul)
}

// ExpScaleStream64 is ExpScale64 with non-temporal stores (see
// NormalizeStream).
func ExpScaleStream64(dst, x []float64, scale, m, mul float64) {
	k64.expScaleStream(dst, x[:len(dst)], scale, m, mul)
}

// Normalize64 writes dst[i] = x[i]·k.
func Normalize64(dst, x []float64, k float64) { k64.normalize(dst, x[:len(dst)], k) }

// NormalizeStream64 is Normalize64 with non-temporal stores (see
// NormalizeStream).
func NormalizeStream64(dst, x []float64, k float64) { k64.normalizeStream(dst, x[:len(dst)], k) }

// LogNorm64 writes dst[i] = (scale·x[i] − m) − logd, rounded in that order.
func LogNorm64(dst, x []float64, scale, m, logd float64) {
	k64.logNorm(dst, x[:len(dst)], scale, m, logd)
}

// LogNormStream64 is LogNorm64 with non-temporal stores (see
// NormalizeStream).
func LogNormStream64(dst, x []float64, scale, m, logd float64) {
	k64.logNormStream(dst, x[:len(dst)], scale, m, logd)
}

// Dot64 returns Σ a[i]·b[i] over len(a).
func Dot64(a, b []float64) float64 { return k64.dot(a, b[:len(a)]) }

// Sum64 returns Σ a[i].
func Sum64(a []float64) float64 { return k64.sum(a) }

// SoftmaxGrad64 writes dx[i] = y[i]·(dy[i] − s).
func SoftmaxGrad64(dx, y, dy []float64, s float64) {
	k64.softmaxGrad(dx, y[:len(dx)], dy[:len(dx)], s)
}

// LogSoftmaxGrad64 writes dx[i] = dy[i] − exp(y[i])·s.
func LogSoftmaxGrad64(dx, y, dy []float64, s float64) {
	k64.logSoftmaxGrad(dx, y[:len(dx)], dy[:len(dx)], s)
}

// MaxLanes64 sets m[i] = max(m[i], scale·x[i]); NaN products leave m[i]
// alone.
func MaxLanes64(m, x []float64, scale float64) { k64.maxLanes(m, x[:len(m)], scale) }

// ExpSumLanes64 writes dst[i] = exp(scale·x[i] − m[i]) and adds it to d[i].
func ExpSumLanes64(dst, d, x, m []float64, scale float64) {
	n := len(dst)
	k64.expSumLanes(dst, d[:n], x[:n], m[:n], scale)
}

// ExpScaleLanes64 writes dst[i] = exp(scale·x[i] − m[i])·mul[i].
func ExpScaleLanes64(dst, x, m, mul []float64, scale float64) {
	n := len(dst)
	k64.expScaleLanes(dst, x[:n], m[:n], mul[:n], scale)
}

// NormalizeLanes64 writes dst[i] = x[i]·k[i].
func NormalizeLanes64(dst, x, k []float64) {
	k64.normalizeLanes(dst, x[:len(dst)], k[:len(dst)])
}

// LogNormLanes64 writes dst[i] = (scale·x[i] − m[i]) − logd[i].
func LogNormLanes64(dst, x, m, logd []float64, scale float64) {
	n := len(dst)
	k64.logNormLanes(dst, x[:n], m[:n], logd[:n], scale)
}

// MulAdd64 accumulates acc[i] += a[i]·b[i] (one rounding: a fused
// multiply-add).
func MulAdd64(acc, a, b []float64) { k64.mulAdd(acc, a[:len(acc)], b[:len(acc)]) }

// Add64 accumulates acc[i] += a[i].
func Add64(acc, a []float64) { k64.add(acc, a[:len(acc)]) }

// SoftmaxGradLanes64 writes dx[i] = y[i]·(dy[i] − s[i]).
func SoftmaxGradLanes64(dx, y, dy, s []float64) {
	n := len(dx)
	k64.softmaxGradLanes(dx, y[:n], dy[:n], s[:n])
}

// LogSoftmaxGradLanes64 writes dx[i] = dy[i] − exp(y[i])·s[i].
func LogSoftmaxGradLanes64(dx, y, dy, s []float64) {
	n := len(dx)
	k64.logSoftmaxGradLanes(dx, y[:n], dy[:n], s[:n])
}

// LogLanes64 writes dst[i] = log(d[i]) for d[i] ≥ 1 (the lanes' sums of
// exps); NaN and +Inf pass through. It is Go's math.Log (fdlibm's
// algorithm, within 1 ulp) a vector of lanes at a time; other inputs are
// outside its contract.
func LogLanes64(dst, d []float64) { k64.logLanes(dst, d[:len(dst)]) }
