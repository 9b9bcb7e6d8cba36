package vec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/ref"
)

// The float64 kernels of every assembly set against their pure-Go twins:
// element-wise outputs bit for bit (the same operations, rounded the same
// way), sums within their rounding error, on ragged lengths, unaligned
// starts (the Stream wrappers' heads) and edge values.

// same64 reports whether a and b are the same float64, NaNs alike.
func same64(a, b float64) bool { return a == b || a != a && b != b }

// sameSum reports whether sums a and b (over terms of magnitude Σ|t| = mag
// and n terms) agree within their rounding errors.
func sameSum(a, b, mag float64, n int) bool {
	if !(mag < 1e300) {
		// Terms near the overflow (or infinite, or NaN): whether a sum
		// overflows, or meets +∞ and −∞, depends on the order of additions.
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return same64(a, b)
	}
	return math.Abs(a-b) <= float64(n+8)*0x1p-52*mag
}

// draw64 returns n values: normal with σ = 10 and, with edges, some −∞, +∞,
// NaN, huge, tiny and denormal ones.
func draw64(rng *rand.Rand, n int, edges bool) []float64 {
	x := make([]float64, n)
	special := []float64{math.Inf(-1), math.Inf(1), math.NaN(), 1e300, -1e300, 5e-324, -1e-310, 0, 745, -745, 709.9}
	for i := range x {
		x[i] = 10 * rng.NormFloat64()
		if edges && rng.IntN(8) == 0 {
			x[i] = special[rng.IntN(len(special))]
		}
	}
	return x
}

// checkKernels64 runs every float64 kernel of s and of the twins on x, y
// (len n each, from offset off of their arrays) and reports differences.
func checkKernels64(t *testing.T, s *kernels64, name string, x, y []float64, scale, m, k float64) {
	t.Helper()
	tw := goSet64
	n := len(x)
	fail := func(kernel string, i int, got, want float64) {
		t.Helper()
		t.Fatalf("%s %s n=%d: [%d] = %v, twin %v (x=%v y=%v scale=%v m=%v k=%v)", name, kernel, n, i, got, want, x[i], y[i], scale, m, k)
	}
	eq := func(kernel string, got, want []float64) {
		t.Helper()
		for i := range got {
			if !same64(got[i], want[i]) {
				fail(kernel, i, got[i], want[i])
			}
		}
	}
	a, b := make([]float64, n), make([]float64, n)
	if g, w := s.maxOf(x, scale), tw.maxOf(x, scale); !same64(g, w) {
		t.Fatalf("%s maxOf n=%d: %v, twin %v", name, n, g, w)
	}
	mag := 0.0
	gs, ws := s.expSum(a, x, y, scale, m), tw.expSum(b, x, nil, scale, m)
	eq("expSum", a, b)
	for _, v := range b {
		mag += math.Abs(v)
	}
	if !sameSum(gs, ws, mag, n) {
		t.Fatalf("%s expSum n=%d: sum %v, twin %v", name, n, gs, ws)
	}
	// expSumFlush: the exps, the sum, and out = y·k over out's length
	// (shorter than dst by a few, from an offset: the Stream heads).
	for _, cut := range []int{0, 3} {
		if cut > n {
			break
		}
		oa, ob := make([]float64, n+1)[1:n-cut+1], make([]float64, n-cut)
		gs, ws = s.expSumFlush(a, x, y, oa, y, scale, m, k), tw.expSumFlush(b, x, nil, ob, y, scale, m, k)
		eq("expSumFlush exps", a, b)
		eq("expSumFlush out", oa, ob)
		if !sameSum(gs, ws, mag, n) {
			t.Fatalf("%s expSumFlush n=%d: sum %v, twin %v", name, n, gs, ws)
		}
	}
	for _, st := range []struct {
		kernel   string
		got, twn func(dst []float64)
	}{
		{"expScale", func(d []float64) { s.expScale(d, x, scale, m, k) }, func(d []float64) { tw.expScale(d, x, scale, m, k) }},
		{"expScaleStream", func(d []float64) { s.expScaleStream(d, x, scale, m, k) }, func(d []float64) { tw.expScale(d, x, scale, m, k) }},
		{"normalize", func(d []float64) { s.normalize(d, x, k) }, func(d []float64) { tw.normalize(d, x, k) }},
		{"normalizeStream", func(d []float64) { s.normalizeStream(d, x, k) }, func(d []float64) { tw.normalize(d, x, k) }},
		{"logNorm", func(d []float64) { s.logNorm(d, x, scale, m, k) }, func(d []float64) { tw.logNorm(d, x, scale, m, k) }},
		{"logNormStream", func(d []float64) { s.logNormStream(d, x, scale, m, k) }, func(d []float64) { tw.logNorm(d, x, scale, m, k) }},
		{"softmaxGrad", func(d []float64) { s.softmaxGrad(d, x, y, k) }, func(d []float64) { tw.softmaxGrad(d, x, y, k) }},
		{"logSoftmaxGrad", func(d []float64) { s.logSoftmaxGrad(d, x, y, k) }, func(d []float64) { tw.logSoftmaxGrad(d, x, y, k) }},
		{"expScaleLanes", func(d []float64) { s.expScaleLanes(d, x, y, y, scale) }, func(d []float64) { tw.expScaleLanes(d, x, y, y, scale) }},
		{"normalizeLanes", func(d []float64) { s.normalizeLanes(d, x, y) }, func(d []float64) { tw.normalizeLanes(d, x, y) }},
		{"logNormLanes", func(d []float64) { s.logNormLanes(d, x, y, x, scale) }, func(d []float64) { tw.logNormLanes(d, x, y, x, scale) }},
		{"softmaxGradLanes", func(d []float64) { s.softmaxGradLanes(d, x, y, x) }, func(d []float64) { tw.softmaxGradLanes(d, x, y, x) }},
		{"logSoftmaxGradLanes", func(d []float64) { s.logSoftmaxGradLanes(d, x, y, x) }, func(d []float64) { tw.logSoftmaxGradLanes(d, x, y, x) }},
		// The accumulating kernels start from y.
		{"maxLanes", func(d []float64) { copy(d, y); s.maxLanes(d, x, scale) }, func(d []float64) { copy(d, y); tw.maxLanes(d, x, scale) }},
		{"mulAdd", func(d []float64) { copy(d, y); s.mulAdd(d, x, y) }, func(d []float64) { copy(d, y); tw.mulAdd(d, x, y) }},
		{"add", func(d []float64) { copy(d, y); s.add(d, x) }, func(d []float64) { copy(d, y); tw.add(d, x) }},
		// Outside its contract (d < 1, negative, denormal) too: the same
		// operations give the same bits.
		{"logLanes", func(d []float64) { s.logLanes(d, x) }, func(d []float64) { tw.logLanes(d, x) }},
	} {
		for i := range a {
			a[i], b[i] = -7, -7
		}
		st.got(a)
		st.twn(b)
		eq(st.kernel, a, b)
	}
	// expSumLanes: the exps bit for bit, and d (from y) likewise.
	da, db := append([]float64(nil), y...), append([]float64(nil), y...)
	s.expSumLanes(a, da, x, y, scale)
	tw.expSumLanes(b, db, x, y, scale)
	eq("expSumLanes exps", a, b)
	eq("expSumLanes d", da, db)
	var magD, magS float64
	for i := range x {
		magD += math.Abs(x[i] * y[i])
		magS += math.Abs(x[i])
	}
	if g, w := s.dot(x, y), tw.dot(x, y); !sameSum(g, w, magD, n) {
		t.Fatalf("%s dot n=%d: %v, twin %v", name, n, g, w)
	}
	if g, w := s.sum(x), tw.sum(x); !sameSum(g, w, magS, n) {
		t.Fatalf("%s sum n=%d: %v, twin %v", name, n, g, w)
	}
}

func TestKernels64MatchTwins(t *testing.T) {
	asmSetsOnly(t, func(t *testing.T, s *kernelSet) {
		if s.f64 == nil {
			t.Skip("no float64 assembly in this set")
		}
		rng := rand.New(rand.NewPCG(64, 1))
		lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 2051}
		for _, n := range lengths {
			for _, off := range []int{0, 1, 3} {
				for _, edges := range []bool{false, true} {
					x := draw64(rng, n+off, edges)[off:]
					y := draw64(rng, n+off, edges)[off:]
					// m near the max keeps the exps in range; edges also
					// try extreme scales and offsets.
					scale, m, k := 0.75, 20.0, 1/3.0
					if edges {
						scale, m, k = -2, -700, 1e-300
					}
					checkKernels64(t, s.f64, fmt.Sprintf("%s off=%d edges=%v", s.name, off, edges), x, y, scale, m, k)
				}
			}
		}
	})
}

// TestExp64VecSweep: each set's vector exp (expScale with scale 1, m 0,
// mul 1) equals Exp64 over a dense sweep of the whole range.
func TestExp64VecSweep(t *testing.T) {
	var xs []float64
	for x := -750.0; x < 712; x += 0.01 {
		xs = append(xs, x)
	}
	want := make([]float64, len(xs))
	for i, x := range xs {
		want[i] = Exp64(x)
	}
	forSets(t, func(t *testing.T, s *kernelSet) {
		k := s.f64
		if k == nil {
			k = goSet64
		}
		got := make([]float64, len(xs))
		k.expScale(got, xs, 1, 0, 1)
		for i := range got {
			if !same64(got[i], want[i]) {
				t.Fatalf("exp(%v) = %v, Exp64 %v", xs[i], got[i], want[i])
			}
		}
	})
}

// FuzzKernels64 compares every assembly set's float64 kernels with the
// twins on arbitrary float64 bit patterns.
func FuzzKernels64(f *testing.F) {
	put := func(x ...float64) []byte {
		b := make([]byte, 8*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(put(), 1.0, 0.0, 1.0)
	f.Add(put(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18), 1.0, 18.0, 0.5)
	f.Add(put(math.Inf(-1), math.Inf(1), math.NaN(), 5e-324, -745.5, 709.9, 1e308, -0.0, 3, 4, 5), -2.0, 1.0, 1e-300)
	f.Fuzz(func(t *testing.T, b []byte, scale, m, k float64) {
		n := len(b) / 16
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[16*i:]))
			y[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[16*i+8:]))
		}
		for _, s := range sets[1:] {
			if s.f64 != nil {
				checkKernels64(t, s.f64, s.name, x, y, scale, m, k)
			}
		}
	})
}

// TestLogLanes64: every set's LogLanes64 equals the twin bit for bit on
// sums d ≥ 1 (uniform in the exponent, so every binade, and around √2·2^k
// where the reduction switches), and passes NaN and +Inf through; the twin
// is within 1 ulp of the correctly rounded log (math/big) and of math.Log.
func TestLogLanes64(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 2))
	var d []float64
	for range 20000 {
		d = append(d, math.Exp2(rng.Float64()*1023))
	}
	for k := 0; k < 1023; k += 7 {
		r := math.Ldexp(math.Sqrt2, k)
		d = append(d, r, math.Nextafter(r, 0), math.Nextafter(r, math.Inf(1)), math.Ldexp(1, k))
	}
	d = append(d, 1, math.Nextafter(1, 2), 2, 3, 1e308, math.MaxFloat64, math.Inf(1), math.NaN())
	for n := 0; n < 19; n++ { // ragged tails
		d = append(d, 1+float64(n)/7)
	}
	want := make([]float64, len(d))
	logLanes64Generic(want, d)
	worst := 0.0
	for i, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			if !same64(want[i], v) {
				t.Fatalf("twin log(%v) = %v", v, want[i])
			}
			continue
		}
		if u := ulps64(want[i], math.Log(v)); u > 1 {
			t.Fatalf("twin log(%v) = %v, math.Log %v", v, want[i], math.Log(v))
		}
		if i%10 == 0 || i >= 20000 {
			if u := ulps64(want[i], ref.LogBig(v)); u > worst {
				worst = u
			}
		}
	}
	if worst > 1 {
		t.Fatalf("twin log off the correctly rounded log by %.3f ulp", worst)
	}
	t.Logf("twin within %.3f ulp of the correctly rounded log", worst)
	asmSetsOnly(t, func(t *testing.T, s *kernelSet) {
		if s.f64 == nil {
			t.Skip("no float64 assembly in this set")
		}
		for _, off := range []int{0, 1, 5} {
			got := make([]float64, len(d)-off)
			s.f64.logLanes(got, d[off:])
			for i := range got {
				if !same64(got[i], want[i+off]) {
					t.Fatalf("log(%v) = %v, twin %v", d[i+off], got[i], want[i+off])
				}
			}
		}
	})
}
