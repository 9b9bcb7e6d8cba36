package vec

// The kernel table. Assembly builds replace entries at init (see
// dispatch.go and dispatch_amd64.go); Impl names the set in use. The
// exported wrappers reslice every input to the length of the output (or of
// the first slice) before the call, so a kernel never reads past what the
// twins would read and short inputs panic the same way in every set.
var (
	impl                 = "go"
	maxSum               = maxSumGeneric
	expScale             = expScaleGeneric
	logOut               = logOutGeneric
	dot                  = dotGeneric
	sum                  = sumGeneric
	softmaxGrad          = softmaxGradGeneric
	logSoftmaxGrad       = logSoftmaxGradGeneric
	onlineUpdate         = onlineUpdateGeneric
	expScaleLanes        = expScaleLanesGeneric
	logOutLanes          = logOutLanesGeneric
	mulAdd               = mulAddGeneric
	add                  = addGeneric
	softmaxGradLanes     = softmaxGradLanesGeneric
	logSoftmaxGradLanes  = logSoftmaxGradLanesGeneric
	f16ToF32             = f16ToF32Generic
	f32ToF16             = f32ToF16Generic
	bf16ToF32            = bf16ToF32Generic
	f32ToBF16            = f32ToBF16Generic
	f32ToF16Stream       = f32ToF16Generic
	f32ToBF16Stream      = f32ToBF16Generic
	maxOf                = maxOfGeneric
	expSum               = expSumGeneric
	normalize            = normalizeGeneric
	normalizeStream      = normalizeGeneric
	expScaleStream       = expScaleGeneric
	fence                = func() {}
	maxLanes             = maxLanesGeneric
	expSumLanes          = expSumLanesGeneric
	normalizeLanes       = normalizeLanesGeneric
	normalizeLanesStream = normalizeLanesGeneric
	expScaleLanesStream  = expScaleLanesGeneric
	expScaleLanesAhead   = func(dst, x, m, mul, _ []float32, scale float32) { expScaleLanesGeneric(dst, x, m, mul, scale) }
	expSumFlush          = expSumFlushGeneric
	expAddLanes          = expAddLanesGeneric
	logNorm              = logNormGeneric
	logNormStream        = logNormGeneric
	logNormLanes         = logNormLanesGeneric
	logNormLanesStream   = logNormLanesGeneric
	recipLanes           = recipLanesGeneric
	logLanes             = logLanesGeneric
	softcap              = softcapGeneric
)

// LogLanes writes dst[i] = log(d[i]) for d[i] ≥ 1 (the lanes' sums of
// exps); NaN and +Inf pass through. Within 1 ulp of the correctly rounded
// log (other inputs are outside its contract).
func LogLanes(dst, d []float32) { logLanes(dst, d[:len(dst)]) }

// RecipLanes writes dst[i] = 1/d[i], rounded once (float32 division).
func RecipLanes(dst, d []float32) { recipLanes(dst, d[:len(dst)]) }

// Softcap writes dst[i] = capv·tanh(x[i]/capv) (Gemma 2's logit softcap)
// and dz[i] = 1 − tanh², its derivative (exactly 0 where it saturated),
// for i < len(dst): Cephes' tanhf, whose polynomial keeps small arguments
// accurate, and 1 − 2/(exp(2x/capv) + 1) for the others; ±inf give ±capv,
// NaN stays NaN.
func Softcap(dst, dz, x []float32, capv float32) {
	softcap(dst, dz[:len(dst)], x[:len(dst)], capv, 1/capv, 2/capv)
}

// LogNorm writes the log-softmax output dst[i] = (scale·x[i] − m) − logd,
// rounded in that order, for i < len(dst).
func LogNorm(dst, x []float32, scale, m, logd float32) { logNorm(dst, x[:len(dst)], scale, m, logd) }

// LogNormStream is LogNorm with non-temporal stores (see NormalizeStream).
func LogNormStream(dst, x []float32, scale, m, logd float32) {
	logNormStream(dst, x[:len(dst)], scale, m, logd)
}

// LogNormLanes writes dst[i] = (scale·x[i] − m[i]) − logd[i].
func LogNormLanes(dst, x, m, logd []float32, scale float32) {
	n := len(dst)
	logNormLanes(dst, x[:n], m[:n], logd[:n], scale)
}

// LogNormLanesStream is LogNormLanes with non-temporal stores (see
// NormalizeStream).
func LogNormLanesStream(dst, x, m, logd []float32, scale float32) {
	n := len(dst)
	logNormLanesStream(dst, x[:n], m[:n], logd[:n], scale)
}

// Impl names the kernel set in use: "go", "avx2", "avx512" or "neon". See Impls,
// UseImpl and EnvKernels for choosing one.
func Impl() string { return impl }

// MaxSum returns the online pair of scale·x: m = max(scale·x) and
// d = Σ exp(scale·x − m). An empty or all −∞ slice gives (−∞, 0); a NaN
// element makes d NaN.
func MaxSum(x []float32, scale float32) (m, d float32) { return maxSum(x, scale) }

// ExpScale writes dst[i] = exp(scale·x[i] − m)·mul for i < len(dst).
func ExpScale(dst, x []float32, scale, m, mul float32) {
	expScale(dst, x[:len(dst)], scale, m, mul)
}

// Max returns the max of scale·x[i] over the elements that are not NaN,
// or −∞ when there are none.
func Max(x []float32, scale float32) float32 { return maxOf(x, scale) }

// ExpSum writes dst[i] = exp(scale·x[i] − m) for i < len(dst) and returns
// their float32 sum.
func ExpSum(dst, x []float32, scale, m float32) float32 {
	return expSum(dst, x[:len(dst)], nil, scale, m)
}

// ExpSumAhead is ExpSum that also prefetches next (the data of the next
// call, typically) into the L2 cache as it goes, so that memory works while
// the exps keep the core busy. The pure-Go set ignores next.
func ExpSumAhead(dst, x, next []float32, scale, m float32) float32 {
	return expSum(dst, x[:len(dst)], next, scale, m)
}

// ExpSumFlush is ExpSumAhead(dst, x, next, scale, m) and NormalizeStream(out,
// in, k) at once: the assembly sets interleave the non-temporal stores of
// out with the exps, so that they reach memory while the core computes
// instead of stalling it in a burst.
func ExpSumFlush(dst, x, next []float32, scale, m float32, out, in []float32, k float32) float32 {
	return expSumFlush(dst, x[:len(dst)], next, out, in[:len(out)], scale, m, k)
}

// Normalize writes dst[i] = x[i]·k for i < len(dst).
func Normalize(dst, x []float32, k float32) { normalize(dst, x[:len(dst)], k) }

// NormalizeStream is Normalize for an output that will not be read again
// soon: the assembly sets write it with non-temporal stores, which skip
// reading dst's cache lines from memory and leave the caches to the
// inputs. It is meant for outputs much larger than the caches.
func NormalizeStream(dst, x []float32, k float32) { normalizeStream(dst, x[:len(dst)], k) }

// ExpScaleStream is ExpScale with non-temporal stores (see
// NormalizeStream).
func ExpScaleStream(dst, x []float32, scale, m, mul float32) {
	expScaleStream(dst, x[:len(dst)], scale, m, mul)
}

// Fence orders the non-temporal stores of the Stream kernels before any
// later store: call it before other goroutines may read their output.
func Fence() { fence() }

// LogOut writes dst[i] = scale·x[i] − sub for i < len(dst).
func LogOut(dst, x []float32, scale, sub float32) { logOut(dst, x[:len(dst)], scale, sub) }

// Dot returns Σ a[i]·b[i] over len(a).
func Dot(a, b []float32) float32 { return dot(a, b[:len(a)]) }

// Sum returns Σ a[i].
func Sum(a []float32) float32 { return sum(a) }

// SoftmaxGrad writes dx[i] = y[i]·(dy[i] − s).
func SoftmaxGrad(dx, y, dy []float32, s float32) {
	softmaxGrad(dx, y[:len(dx)], dy[:len(dx)], s)
}

// LogSoftmaxGrad writes dx[i] = dy[i] − exp(y[i])·s.
func LogSoftmaxGrad(dx, y, dy []float32, s float32) {
	logSoftmaxGrad(dx, y[:len(dx)], dy[:len(dx)], s)
}

// OnlineUpdate folds one slice of lanes into per-lane online pairs:
// m[i], d[i] ← merge((m[i], d[i]), (scale·x[i], 1)). Lanes start at (−∞, 0).
func OnlineUpdate(m, d, x []float32, scale float32) {
	onlineUpdate(m, d[:len(m)], x[:len(m)], scale)
}

// ExpScaleLanes writes dst[i] = exp(scale·x[i] − m[i])·mul[i].
func ExpScaleLanes(dst, x, m, mul []float32, scale float32) {
	n := len(dst)
	expScaleLanes(dst, x[:n], m[:n], mul[:n], scale)
}

// MaxLanes sets m[i] = max(m[i], scale·x[i]) for i < len(m); NaN products
// leave m[i] alone.
func MaxLanes(m, x []float32, scale float32) { maxLanes(m, x[:len(m)], scale) }

// ExpSumLanes writes dst[i] = exp(scale·x[i] − m[i]) and adds it to d[i].
func ExpSumLanes(dst, d, x, m []float32, scale float32) {
	n := len(dst)
	expSumLanes(dst, d[:n], x[:n], m[:n], nil, scale)
}

// ExpSumLanesAhead is ExpSumLanes that also prefetches next into L2 (see
// ExpSumAhead).
func ExpSumLanesAhead(dst, d, x, m, next []float32, scale float32) {
	n := len(dst)
	expSumLanes(dst, d[:n], x[:n], m[:n], next, scale)
}

// ExpAddLanes adds exp(scale·x[i] − m[i]) to d[i] for i < len(d) and
// prefetches next into L2 (see ExpSumAhead): ExpSumLanesAhead without the
// exps, for a pass that only needs their sums.
func ExpAddLanes(d, x, m, next []float32, scale float32) {
	n := len(d)
	expAddLanes(d, x[:n], m[:n], next, scale)
}

// ExpScaleLanesStream is ExpScaleLanes with non-temporal stores (see
// NormalizeStream).
func ExpScaleLanesStream(dst, x, m, mul []float32, scale float32) {
	n := len(dst)
	expScaleLanesStream(dst, x[:n], m[:n], mul[:n], scale)
}

// ExpScaleLanesStreamAhead is ExpScaleLanesStream that also prefetches next
// into L2 (see ExpSumAhead): a pass that reads a lane block's steps from
// memory, each a page or so apart, gets no help from the hardware
// prefetchers, which stop at page boundaries.
func ExpScaleLanesStreamAhead(dst, x, m, mul, next []float32, scale float32) {
	n := len(dst)
	expScaleLanesAhead(dst, x[:n], m[:n], mul[:n], next, scale)
}

// NormalizeLanes writes dst[i] = x[i]·k[i].
func NormalizeLanes(dst, x, k []float32) {
	normalizeLanes(dst, x[:len(dst)], k[:len(dst)])
}

// NormalizeLanesStream is NormalizeLanes with non-temporal stores (see
// NormalizeStream).
func NormalizeLanesStream(dst, x, k []float32) {
	normalizeLanesStream(dst, x[:len(dst)], k[:len(dst)])
}

// LogOutLanes writes dst[i] = scale·x[i] − sub[i].
func LogOutLanes(dst, x, sub []float32, scale float32) {
	logOutLanes(dst, x[:len(dst)], sub[:len(dst)], scale)
}

// MulAdd accumulates acc[i] += a[i]·b[i].
func MulAdd(acc, a, b []float32) { mulAdd(acc, a[:len(acc)], b[:len(acc)]) }

// Add accumulates acc[i] += a[i].
func Add(acc, a []float32) { add(acc, a[:len(acc)]) }

// SoftmaxGradLanes writes dx[i] = y[i]·(dy[i] − s[i]).
func SoftmaxGradLanes(dx, y, dy, s []float32) {
	n := len(dx)
	softmaxGradLanes(dx, y[:n], dy[:n], s[:n])
}

// LogSoftmaxGradLanes writes dx[i] = dy[i] − exp(y[i])·s[i].
func LogSoftmaxGradLanes(dx, y, dy, s []float32) {
	n := len(dx)
	logSoftmaxGradLanes(dx, y[:n], dy[:n], s[:n])
}

// F16ToF32 converts len(dst) binary16 values.
func F16ToF32(dst []float32, src []uint16) { f16ToF32(dst, src[:len(dst)]) }

// F32ToF16 converts len(dst) values to binary16, rounding to nearest even.
func F32ToF16(dst []uint16, src []float32) { f32ToF16(dst, src[:len(dst)]) }

// BF16ToF32 converts len(dst) bfloat16 values.
func BF16ToF32(dst []float32, src []uint16) { bf16ToF32(dst, src[:len(dst)]) }

// F32ToBF16 converts len(dst) values to bfloat16, rounding to nearest even.
func F32ToBF16(dst []uint16, src []float32) { f32ToBF16(dst, src[:len(dst)]) }

// F32ToF16Stream is F32ToF16 with non-temporal stores (see NormalizeStream):
// without them every output line is first read from memory.
func F32ToF16Stream(dst []uint16, src []float32) { f32ToF16Stream(dst, src[:len(dst)]) }

// F32ToBF16Stream is F32ToBF16 with non-temporal stores (see
// F32ToF16Stream).
func F32ToBF16Stream(dst []uint16, src []float32) { f32ToBF16Stream(dst, src[:len(dst)]) }
