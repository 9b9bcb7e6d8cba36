package vec

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"
)

// Tests of the kernels of the one-exp forward schedules (Max, ExpSum,
// Normalize, the lanes variants, LogNorm) and of the non-temporal Stream
// variants, against the twins and float64 references.

// TestMax checks Max against the twin and a float64 max that skips NaN.
func TestMax(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(11))
		for _, n := range testLengths() {
			for _, p := range randPatterns() {
				for _, scale := range scales {
					x := input(t, n, p.gen(r, n))
					got, twin := s.maxOf(x, scale), maxOfGeneric(x, scale)
					ref := math.Inf(-1)
					for _, v := range x {
						if v := float64(v * scale); v > ref {
							ref = v
						}
					}
					if got != twin || float64(got) != ref {
						t.Fatalf("n=%d %s scale=%g: Max = %v, twin %v, ref %v", n, p.name, scale, got, twin, ref)
					}
				}
			}
		}
		// NaN elements are skipped, even all of them.
		x := input(t, 40, func(i int) float32 { return nan })
		if m := s.maxOf(x, 1); m != -inf {
			t.Fatalf("Max of NaNs = %v, want −∞", m)
		}
		x[17] = 3
		if m := s.maxOf(x, 2); m != 6 {
			t.Fatalf("Max of NaNs and 3 = %v, want 6", m)
		}
	})
}

// TestExpSum checks ExpSum's stores like ExpScale's and its sum against the
// twin and float64. next (a prefetch hint) must not change anything, even
// shorter, longer or nil.
func TestExpSum(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(12))
		for _, n := range append(testLengths(), 4096) {
			for _, p := range randPatterns() {
				for _, scale := range scales {
					x := input(t, n, p.gen(r, n))
					m := maxOfGeneric(x, scale)
					if math.IsInf(float64(m), 0) {
						m = 0
					}
					next := input(t, n/2+1, func(int) float32 { return 1 })
					o := newOutput(t, n)
					sum := s.expSum(o.guard, x, next, scale, m)
					if ulpsApart(s.expSum(o.mid, x, nil, scale, m), sum) != 0 {
						t.Fatalf("n=%d %s: the sum depends on next", n, p.name)
					}
					o.checkNeighbours(t)
					want := make([]float32, n)
					tsum := expSumGeneric(want, x, nil, scale, m)
					var ref, mag float64
					for i := range want {
						if u := ulpsApart(o.guard[i], want[i]); u > maxUlps || ulpsApart(o.mid[i], o.guard[i]) != 0 {
							t.Fatalf("n=%d %s scale=%g x=%v: got %v, twin %v", n, p.name, scale, x[i], o.guard[i], want[i])
						}
						a := float32(x[i]*scale) - m
						e := math.Exp(float64(a))
						if a > expHi {
							e = math.Inf(1)
						}
						if !closeTo(o.guard[i], float32(e), e, 4e-7) {
							t.Fatalf("n=%d %s x=%v: got %v, ref %v", n, p.name, x[i], o.guard[i], e)
						}
						ref += e
						mag += math.Abs(e)
					}
					if isNaN32(tsum) || math.IsNaN(ref) || math.IsInf(ref, 0) {
						if isNaN32(tsum) != isNaN32(sum) || (math.IsNaN(ref) != isNaN32(sum)) {
							t.Fatalf("n=%d %s: sum %v, twin %v, ref %v", n, p.name, sum, tsum, ref)
						}
						continue
					}
					// float32 accumulators of at most n/8 terms each.
					if !closeTo(sum, float32(ref), mag, 2e-6) || !closeTo(sum, tsum, mag, 2e-6) {
						t.Fatalf("n=%d %s scale=%g: sum %v, twin %v, ref %v", n, p.name, scale, sum, tsum, ref)
					}
				}
			}
		}
	})
}

// TestExpKernelsUlp checks the exps of every exp-based one-pass kernel
// within 2 ulp of float64 over a sweep of [−104, 89] (m = 0, mul = 1).
func TestExpKernelsUlp(t *testing.T) {
	var xs []float32
	for x := float32(-104); x < 89; x += 0.00037 {
		xs = append(xs, x)
	}
	n := len(xs)
	zeros, ones := make([]float32, n), make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	forSets(t, func(t *testing.T, s *kernelSet) {
		kernels := map[string]func(dst []float32){
			"expSum":              func(dst []float32) { s.expSum(dst, xs, nil, 1, 0) },
			"expSumLanes":         func(dst []float32) { s.expSumLanes(dst, make([]float32, n), xs, zeros, nil, 1) },
			"expScaleStream":      func(dst []float32) { s.expScaleStream(dst, xs, 1, 0, 1) },
			"expScaleLanesStream": func(dst []float32) { s.expScaleLanesStream(dst, xs, zeros, ones, 1) },
		}
		for name, k := range kernels {
			got := make([]float32, n+1)[1:] // not 64-byte aligned: both halves of a Stream kernel
			k(got)
			worst, at := 0.0, float32(0)
			for i, x := range xs {
				if x > expHi {
					if got[i] != inf {
						t.Fatalf("%s: exp(%v) = %v, want +Inf", name, x, got[i])
					}
					continue
				}
				if d := ulpDiff(got[i], math.Exp(float64(x))); d > worst {
					worst, at = d, x
				}
			}
			if worst > 2 {
				t.Fatalf("%s: exp off by %.2f ulp at %v", name, worst, at)
			}
			t.Logf("%s: worst %.3f ulp at %v", name, worst, at)
		}
	})
}

// streamOffsets are starting offsets (elements) into a 64-byte aligned
// array: the Stream wrappers split off an unaligned head for the plain
// kernel, and every head length must work.
var streamOffsets = []int{0, 1, 3, 7, 8, 15}

// aligned64 returns n float32s starting at a 64-byte boundary, between
// sentinel-filled neighbours (see output), at element offset off.
func aligned64(n, off int) (dst []float32, back []float32, at int) {
	back = make([]float32, n+off+64)
	for i := range back {
		back[i] = math.Float32frombits(sentinel)
	}
	at = 16 - int(uintptrOf(back)%64/4)%16 + off
	return back[at : at+n : at+n], back, at
}

func uintptrOf(v []float32) uintptr { return uintptr(unsafe.Pointer(&v[0])) }

// checkBack fails if anything outside back[at:at+n] was written.
func checkBack(t *testing.T, back []float32, at, n int) {
	t.Helper()
	for i, v := range back {
		if (i < at || i >= at+n) && math.Float32bits(v) != sentinel {
			t.Fatalf("wrote outside the slice at offset %d: %v", i-at, v)
		}
	}
}

// TestStreamKernels checks every Stream kernel bit for bit against its
// plain twin's result at every alignment and tail length, and the plain
// one-pass kernels against theirs.
func TestStreamKernels(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(13))
		for _, n := range append(testLengths(), 4096+5) {
			x := input(t, n, func(int) float32 { return float32(r.NormFloat64() * 4) })
			m := input(t, n, func(i int) float32 { return x[i] + float32(r.Float64()*5) })
			k := input(t, n, func(int) float32 { return float32(r.Float64() + 0.1) })
			type kernel struct {
				name      string
				run, twin func(dst []float32)
				exact     bool
			}
			kernels := []kernel{
				{"normalize", func(d []float32) { s.normalize(d, x, 0.37) }, func(d []float32) { normalizeGeneric(d, x, 0.37) }, true},
				{"normalizeStream", func(d []float32) { s.normalizeStream(d, x, 0.37) }, func(d []float32) { normalizeGeneric(d, x, 0.37) }, true},
				{"normalizeLanes", func(d []float32) { s.normalizeLanes(d, x, k) }, func(d []float32) { normalizeLanesGeneric(d, x, k) }, true},
				{"normalizeLanesStream", func(d []float32) { s.normalizeLanesStream(d, x, k) }, func(d []float32) { normalizeLanesGeneric(d, x, k) }, true},
				{"logNorm", func(d []float32) { s.logNorm(d, x, -1.5, 2.25, 0.7) }, func(d []float32) { logNormGeneric(d, x, -1.5, 2.25, 0.7) }, true},
				{"logNormStream", func(d []float32) { s.logNormStream(d, x, -1.5, 2.25, 0.7) }, func(d []float32) { logNormGeneric(d, x, -1.5, 2.25, 0.7) }, true},
				{"logNormLanes", func(d []float32) { s.logNormLanes(d, x, m, k, 0.5) }, func(d []float32) { logNormLanesGeneric(d, x, m, k, 0.5) }, true},
				{"logNormLanesStream", func(d []float32) { s.logNormLanesStream(d, x, m, k, 0.5) }, func(d []float32) { logNormLanesGeneric(d, x, m, k, 0.5) }, true},
				{"recipLanes", func(d []float32) { s.recipLanes(d, k) }, func(d []float32) { recipLanesGeneric(d, k) }, true},
				{"logLanes", func(d []float32) { s.logLanes(d, m) }, func(d []float32) { logLanesGeneric(d, m) }, true},
				{"expScaleStream", func(d []float32) { s.expScaleStream(d, x, 1, 12, 0.25) }, func(d []float32) { expScaleGeneric(d, x, 1, 12, 0.25) }, false},
				{"expScaleLanesStream", func(d []float32) { s.expScaleLanesStream(d, x, m, k, 1) }, func(d []float32) { expScaleLanesGeneric(d, x, m, k, 1) }, false},
			}
			for _, kn := range kernels {
				want := make([]float32, n)
				kn.twin(want)
				for _, off := range streamOffsets {
					dst, back, at := aligned64(n, off)
					kn.run(dst)
					s.fence()
					checkBack(t, back, at, n)
					g := newOutput(t, n) // also against a guard page
					kn.run(g.guard)
					for i := range want {
						u := ulpsApart(dst[i], want[i])
						if (kn.exact && u != 0) || u > maxUlps || ulpsApart(dst[i], g.guard[i]) != 0 {
							t.Fatalf("%s n=%d offset %d: [%d] = %v (guarded %v), twin %v", kn.name, n, off, i, dst[i], g.guard[i], want[i])
						}
					}
				}
			}
		}
	})
}

// TestLanesOnePass checks MaxLanes and ExpSumLanes against their twins and
// float64, over several steps as the engine calls them, and ExpAddLanes
// against ExpSumLanes' sums bit for bit.
func TestLanesOnePass(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(14))
		for _, n := range testLengths() {
			for _, scale := range scales {
				pats := randPatterns()
				m, tm := guardedF32(t, n), make([]float32, n)
				rm := make([]float64, n)
				for i := range m {
					m[i], tm[i], rm[i] = -inf, -inf, math.Inf(-1)
				}
				var xs [][]float32
				for step := 0; step < 6; step++ {
					p := pats[(step+n)%len(pats)]
					x := input(t, n, p.gen(r, n))
					xs = append(xs, x)
					s.maxLanes(m, x, scale)
					maxLanesGeneric(tm, x, scale)
					for i, v := range x {
						if v := float64(v * scale); v > rm[i] {
							rm[i] = v
						}
					}
				}
				for i := range m {
					if m[i] != tm[i] || float64(m[i]) != rm[i] {
						t.Fatalf("MaxLanes n=%d scale=%g lane %d: %v, twin %v, ref %v", n, scale, i, m[i], tm[i], rm[i])
					}
				}
				// ExpSumLanes with the −∞-safe offsets, as lanesStats does.
				ms := make([]float32, n)
				for i, v := range m {
					if math.IsInf(float64(v), 0) {
						v = 0
					}
					ms[i] = v
				}
				d, td := guardedF32(t, n), make([]float32, n)
				da := guardedF32(t, n)
				rd := make([]float64, n)
				for _, x := range xs {
					o := newOutput(t, n)
					want := make([]float32, n)
					s.expAddLanes(da, x, ms, xs[0], scale)
					s.expSumLanes(o.guard, d, x, ms, xs[0], scale)
					expSumLanesGeneric(want, td, x, ms, nil, scale)
					s.expSumLanes(o.mid, make([]float32, n), x, ms, nil, scale)
					o.checkNeighbours(t)
					for i := range want {
						if ulpsApart(o.guard[i], want[i]) > maxUlps || ulpsApart(o.guard[i], o.mid[i]) != 0 {
							t.Fatalf("ExpSumLanes n=%d x=%v m=%v: %v, twin %v", n, x[i], ms[i], o.guard[i], want[i])
						}
						rd[i] += math.Exp(float64(float32(x[i]*scale) - ms[i]))
					}
				}
				for i := range d {
					if math.Float32bits(da[i]) != math.Float32bits(d[i]) {
						t.Fatalf("ExpAddLanes n=%d scale=%g lane %d: %v, ExpSumLanes %v", n, scale, i, da[i], d[i])
					}
					if !closeTo(d[i], td[i], rd[i], 2e-6) || !closeTo(d[i], float32(rd[i]), rd[i], 2e-6) {
						t.Fatalf("ExpSumLanes n=%d lane %d: d=%v, twin %v, ref %v", n, i, d[i], td[i], rd[i])
					}
				}
			}
		}
	})
}

// TestOnePassWrappers checks that the exported one-pass functions reach the
// table and reslice their inputs (short inputs panic).
func TestOnePassWrappers(t *testing.T) {
	x := []float32{0.5, -1, 2, 3, -4}
	y := []float32{-0.5, -1, -2, -3, -4}
	n := len(x)
	out, want := make([]float32, n), make([]float32, n)
	eq := func(name string) {
		t.Helper()
		for i := range out {
			if !closeTo(out[i], want[i], math.Abs(float64(want[i]))+1, 1e-6) {
				t.Fatalf("%s[%d] = %v, want %v", name, i, out[i], want[i])
			}
		}
	}
	if m := Max(x, -2); m != 8 {
		t.Fatalf("Max = %v", m)
	}
	s := ExpSum(out, x, 1, 3)
	ts := expSumGeneric(want, x, nil, 1, 3)
	eq("ExpSum")
	if !closeTo(s, ts, float64(ts), 1e-6) || ulpsApart(ExpSumAhead(out, x, y, 1, 3), s) != 0 {
		t.Fatalf("ExpSum = %v, twin %v", s, ts)
	}
	for name, f := range map[string][2]func(){
		"Normalize":       {func() { Normalize(out, x, 3) }, func() { normalizeGeneric(want, x, 3) }},
		"NormalizeStream": {func() { NormalizeStream(out, x, 3); Fence() }, func() { normalizeGeneric(want, x, 3) }},
		"ExpScaleStream":  {func() { ExpScaleStream(out, x, 2, 1, 0.5); Fence() }, func() { expScaleGeneric(want, x, 2, 1, 0.5) }},
		"NormalizeLanes":  {func() { NormalizeLanes(out, x, y) }, func() { normalizeLanesGeneric(want, x, y) }},
		"NormalizeLanesStream": {func() { NormalizeLanesStream(out, x, y); Fence() },
			func() { normalizeLanesGeneric(want, x, y) }},
		"ExpScaleLanesStream": {func() { ExpScaleLanesStream(out, x, y, x, 2); Fence() },
			func() { expScaleLanesGeneric(want, x, y, x, 2) }},
		"ExpSumLanes": {func() { clear(out); tmp := make([]float32, n); ExpSumLanes(tmp, out, x, y, 1) },
			func() { clear(want); expSumLanesGeneric(make([]float32, n), want, x, y, nil, 1) }},
		"ExpSumLanesAhead": {func() { clear(out); tmp := make([]float32, n); ExpSumLanesAhead(tmp, out, x, y, x, 1) },
			func() { clear(want); expSumLanesGeneric(make([]float32, n), want, x, y, nil, 1) }},
		"ExpAddLanes": {func() { clear(out); ExpAddLanes(out, x, y, x, 1) },
			func() { clear(want); expAddLanesGeneric(want, x, y, nil, 1) }},
		"LogNorm":            {func() { LogNorm(out, x, 2, 1, 0.5) }, func() { logNormGeneric(want, x, 2, 1, 0.5) }},
		"LogNormStream":      {func() { LogNormStream(out, x, 2, 1, 0.5); Fence() }, func() { logNormGeneric(want, x, 2, 1, 0.5) }},
		"LogNormLanes":       {func() { LogNormLanes(out, x, y, x, 2) }, func() { logNormLanesGeneric(want, x, y, x, 2) }},
		"LogNormLanesStream": {func() { LogNormLanesStream(out, x, y, x, 2); Fence() }, func() { logNormLanesGeneric(want, x, y, x, 2) }},
	} {
		f[0]()
		f[1]()
		eq(name)
	}
	m := []float32{-inf, -inf, 5, -inf, 0}
	MaxLanes(m, x, 2)
	for i, v := range []float32{1, -2, 5, 6, 0} {
		if m[i] != v {
			t.Fatalf("MaxLanes lane %d: %v, want %v", i, m[i], v)
		}
	}
	short := make([]float32, 2)
	for name, f := range map[string]func(){
		"ExpSum":             func() { ExpSum(out, short, 1, 0) },
		"NormalizeStream":    func() { NormalizeStream(out, short, 1) },
		"MaxLanes":           func() { MaxLanes(out, short, 1) },
		"ExpSumLanes":        func() { ExpSumLanes(out, out, x, short, 1) },
		"ExpAddLanes":        func() { ExpAddLanes(out, x, short, nil, 1) },
		"NormalizeLanes":     func() { NormalizeLanes(out, x, short) },
		"LogNormLanesStream": func() { LogNormLanesStream(out, x, x, short, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s with a short input did not panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkOnePass times the one-pass kernels in L1/L2.
func BenchmarkOnePass(b *testing.B) {
	for _, s := range sets {
		for _, n := range benchSizes {
			x, e := benchFloats(n, -10, 0), make([]float32, n)
			for name, f := range map[string]func(){
				"Max":       func() { sinkF = s.maxOf(x, 0.7) },
				"ExpSum":    func() { sinkF = s.expSum(e, x, nil, 0.7, 1) },
				"Normalize": func() { s.normalize(e, x, 0.7) },
			} {
				b.Run(fmt.Sprintf("%s/%s/%d", name, s.name, n), func(b *testing.B) {
					b.SetBytes(int64(4 * n))
					for i := 0; i < b.N; i++ {
						f()
					}
				})
			}
		}
	}
}

// TestExpSumFlush checks ExpSumFlush against ExpSum and Normalize run
// apart, with out at every alignment and shorter, as long as and longer
// than dst.
func TestExpSumFlush(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(15))
		for _, n := range append(testLengths(), 2048, 4096+7) {
			x := input(t, n, func(int) float32 { return float32(r.NormFloat64() * 3) })
			// Scale 1 takes the kernels' loop without the multiply.
			scale := []float32{0.5, 1}[n%2]
			m := maxOfGeneric(x, scale)
			for _, on := range []int{0, n / 2, n, n + 70} {
				in := input(t, on, func(int) float32 { return float32(r.Float64()) })
				for _, off := range streamOffsets {
					e, ewant := newOutput(t, n), make([]float32, n)
					out, back, at := aligned64(on, off)
					sum := s.expSumFlush(e.guard, x, x, out, in, scale, m, 0.3)
					s.fence()
					checkBack(t, back, at, on)
					want := s.expSum(ewant, x, nil, scale, m)
					if ulpsApart(sum, want) != 0 {
						t.Fatalf("n=%d out %d offset %d: sum %v, ExpSum %v", n, on, off, sum, want)
					}
					for i := range ewant {
						if ulpsApart(e.guard[i], ewant[i]) != 0 {
							t.Fatalf("n=%d out %d offset %d: e[%d] = %v, ExpSum %v", n, on, off, i, e.guard[i], ewant[i])
						}
					}
					for i := range out {
						if w := in[i] * 0.3; out[i] != w {
							t.Fatalf("n=%d out %d offset %d: out[%d] = %v, want %v", n, on, off, i, out[i], w)
						}
					}
				}
			}
		}
	})
	out, in, x, e := make([]float32, 3), make([]float32, 2), make([]float32, 3), make([]float32, 3)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("ExpSumFlush with a short in did not panic")
			}
		}()
		ExpSumFlush(e, x, nil, 1, 0, out, in, 1)
	}()
}
