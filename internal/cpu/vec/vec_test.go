package vec

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Every kernel of every set the CPU runs is compared with its pure-Go twin
// and with a float64 reference, on random and edge inputs, at every length
// around the vector widths and a few large ones. Inputs end at a guard page
// (reads or writes past len fault) and outputs also sit between sentinel
// neighbours in a larger backing array.

var (
	inf    = float32(math.Inf(1))
	nan    = float32(math.NaN())
	denorm = math.Float32frombits(1)
)

// testLengths covers 0…67 (every tail of 8- and 16-lane vectors, one to four
// vectors) and a few long slices.
func testLengths() []int {
	var ns []int
	for n := 0; n <= 67; n++ {
		ns = append(ns, n)
	}
	return append(ns, 127, 128, 129, 1000, 4099)
}

// forSets runs f for every kernel set of this CPU (the twins included, so
// the references are checked against float64 too).
func forSets(t *testing.T, f func(t *testing.T, s *kernelSet)) {
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) { f(t, s) })
	}
}

// asmSetsOnly is forSets without the pure-Go set.
func asmSetsOnly(t *testing.T, f func(t *testing.T, s *kernelSet)) {
	if len(sets) == 1 {
		t.Skip("no assembly kernels on this build")
	}
	for _, s := range sets[1:] {
		t.Run(s.name, func(t *testing.T) { f(t, s) })
	}
}

// ordered maps float32 bits to integers that count ulps across the line.
func ordered(f float32) int64 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		return -int64(b & 0x7fffffff)
	}
	return int64(b)
}

func isNaN32(f float32) bool { return f != f }

// ulpsApart is the distance in ulps of two float32 values (0 when both are
// NaN, a huge number when only one is).
func ulpsApart(a, b float32) int64 {
	if isNaN32(a) || isNaN32(b) {
		if isNaN32(a) && isNaN32(b) {
			return 0
		}
		return math.MaxInt64
	}
	d := ordered(a) - ordered(b)
	if d < 0 {
		d = -d
	}
	return d
}

// closeTo reports whether got is within tol·mag of want, with equal
// NaN-ness and equal infinities.
func closeTo(got, want float32, mag, tol float64) bool {
	if isNaN32(got) || isNaN32(want) {
		return isNaN32(got) && isNaN32(want)
	}
	if math.IsInf(float64(want), 0) || math.IsInf(float64(got), 0) {
		return got == want
	}
	return math.Abs(float64(got)-float64(want)) <= tol*mag+1e-44
}

// input makes a float32 slice that ends at a guard page, filled by fill.
func input(t testing.TB, n int, fill func(i int) float32) []float32 {
	x := guardedF32(t, n)
	for i := range x {
		x[i] = fill(i)
	}
	return x
}

const sentinel = 0x7fc0dead // a NaN pattern no kernel produces

// output is a destination of length n in two forms: one ending at a guard
// page, one inside a larger array between sentinel neighbours.
type output struct {
	guard, mid, back []float32
}

func newOutput(t testing.TB, n int) *output {
	o := &output{guard: guardedF32(t, n), back: make([]float32, n+64)}
	for i := range o.back {
		o.back[i] = math.Float32frombits(sentinel)
	}
	o.mid = o.back[32 : 32+n : 32+n]
	return o
}

// checkNeighbours fails if anything outside mid was written.
func (o *output) checkNeighbours(t testing.TB) {
	t.Helper()
	for i, v := range o.back {
		if (i < 32 || i >= 32+len(o.mid)) && math.Float32bits(v) != sentinel {
			t.Fatalf("wrote outside the slice at offset %d: %v", i-32, v)
		}
	}
}

// patterns are named input generators of a length.
type pattern struct {
	name string
	gen  func(r *rand.Rand, n int) func(i int) float32
}

func randPatterns() []pattern {
	return []pattern{
		{"normal", func(r *rand.Rand, n int) func(int) float32 {
			return func(int) float32 { return float32(r.NormFloat64() * 3) }
		}},
		{"wide", func(r *rand.Rand, n int) func(int) float32 {
			return func(int) float32 { return float32(r.Float64()*200 - 100) }
		}},
		{"rising", func(r *rand.Rand, n int) func(int) float32 {
			return func(i int) float32 { return float32(i)*0.37 - 40 }
		}},
		{"huge", func(r *rand.Rand, n int) func(int) float32 {
			return func(int) float32 { return float32((r.Float64()*2 - 1) * 1e30) }
		}},
		{"neginf", func(r *rand.Rand, n int) func(int) float32 {
			return func(i int) float32 {
				if r.Intn(3) == 0 {
					return -inf
				}
				return float32(r.NormFloat64() * 5)
			}
		}},
		{"allneginf", func(r *rand.Rand, n int) func(int) float32 {
			return func(int) float32 { return -inf }
		}},
		{"nan", func(r *rand.Rand, n int) func(int) float32 {
			at := r.Intn(n + 1)
			return func(i int) float32 {
				if i == at {
					return nan
				}
				return float32(r.NormFloat64())
			}
		}},
		{"posinf", func(r *rand.Rand, n int) func(int) float32 {
			at := r.Intn(n + 1)
			return func(i int) float32 {
				if i == at {
					return inf
				}
				return float32(r.NormFloat64())
			}
		}},
		{"underflow", func(r *rand.Rand, n int) func(int) float32 {
			// One big value and the rest 87…110 below it: denormal and
			// zero terms.
			return func(i int) float32 {
				if i == n/2 {
					return 20
				}
				return 20 - 87 - float32(r.Float64()*23)
			}
		}},
	}
}

var scales = []float32{1, 0.5, -2, 1e-30}

// ---- MaxSum -----------------------------------------------------------

// maxSumRef is the float64 reference of MaxSum on the float32 products.
func maxSumRef(x []float32, scale float32) (m, d float64) {
	m = math.Inf(-1)
	for _, v := range x {
		if p := float64(v * scale); p > m {
			m = p
		}
	}
	if math.IsInf(m, -1) {
		m0 := 0.0
		for _, v := range x {
			d += math.Exp(float64(v*scale) - m0)
		}
		return m, d
	}
	for _, v := range x {
		d += math.Exp(float64(v*scale) - m)
	}
	return m, d
}

func TestMaxSum(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(1))
		worst := 0.0
		for _, n := range testLengths() {
			for _, p := range randPatterns() {
				for _, scale := range scales {
					x := input(t, n, p.gen(r, n))
					m, d := s.maxSum(x, scale)
					tm, td := maxSumGeneric(x, scale)
					rm, rd := maxSumRef(x, scale)
					where := fmt.Sprintf("n=%d %s scale=%g", n, p.name, scale)
					if isNaN32(td) != isNaN32(d) {
						t.Fatalf("%s: d=%v, twin %v", where, d, td)
					}
					if isNaN32(td) {
						continue
					}
					if m != tm || float64(m) != rm {
						t.Fatalf("%s: m=%v, twin %v, ref %v", where, m, tm, rm)
					}
					if !closeTo(d, td, float64(td), 2e-6) {
						t.Fatalf("%s: d=%v, twin %v", where, d, td)
					}
					if e := math.Abs(float64(d)-rd) / math.Max(rd, 1e-300); rd != 0 && e > worst {
						worst = e
					}
					if !closeTo(d, float32(rd), rd, 2e-6) {
						t.Fatalf("%s: d=%v, ref %v", where, d, rd)
					}
				}
			}
		}
		t.Logf("worst relative error of d vs float64: %.3g", worst)
	})
}

func TestMaxSumSpecial(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		for _, n := range []int{0, 1, 7, 16, 33, 100} {
			x := input(t, n, func(int) float32 { return -inf })
			if m, d := s.maxSum(x, 1); m != -inf || d != 0 {
				t.Fatalf("all −∞ n=%d: (%v, %v)", n, m, d)
			}
			if n == 0 {
				continue
			}
			for at := 0; at < n; at += 1 + n/5 {
				for _, bad := range []float32{nan, inf} {
					x := input(t, n, func(i int) float32 {
						if i == at {
							return bad
						}
						return float32(i % 5)
					})
					if _, d := s.maxSum(x, 1); !isNaN32(d) {
						t.Fatalf("n=%d %v at %d: d=%v, want NaN", n, bad, at, d)
					}
				}
			}
			// A single finite value among −∞ gives (v, 1).
			x = input(t, n, func(i int) float32 {
				if i == n-1 {
					return 3
				}
				return -inf
			})
			if m, d := s.maxSum(x, 2); m != 6 || d != 1 {
				t.Fatalf("one finite n=%d: (%v, %v)", n, m, d)
			}
		}
		// NaN scale: every product is NaN.
		x := input(t, 40, func(i int) float32 { return float32(i) })
		if _, d := s.maxSum(x, nan); !isNaN32(d) {
			t.Fatalf("NaN scale: d=%v", d)
		}
	})
}

// ---- exp-based element-wise kernels ---------------------------------

// maxUlps is the largest ulp distance allowed between an exp-based output
// and its twin: ≤ 1 ulp for the twin's exp, ≤ 2 for the vector exp, and
// the final product's rounding.
const maxUlps = 3

func TestExpScale(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(2))
		for _, n := range testLengths() {
			for _, p := range randPatterns() {
				for _, scale := range scales {
					x := input(t, n, p.gen(r, n))
					m, _ := maxSumGeneric(x, scale)
					if math.IsInf(float64(m), 0) || isNaN32(m) {
						m = 0
					}
					mul := float32(r.Float64() + 0.5)
					o := newOutput(t, n)
					s.expScale(o.guard, x, scale, m, mul)
					s.expScale(o.mid, x, scale, m, mul)
					o.checkNeighbours(t)
					want := make([]float32, n)
					expScaleGeneric(want, x, scale, m, mul)
					for i := range want {
						if u := ulpsApart(o.guard[i], want[i]); u > maxUlps || ulpsApart(o.mid[i], o.guard[i]) != 0 {
							t.Fatalf("n=%d %s scale=%g x=%v: got %v (%v), twin %v", n, p.name, scale, x[i], o.guard[i], o.mid[i], want[i])
						}
						a := float32(x[i]*scale) - m
						ref := float32(math.Exp(float64(a)) * float64(mul))
						if a > expHi {
							ref = inf
						}
						if !closeTo(o.guard[i], ref, float64(ref), 4e-7) {
							t.Fatalf("n=%d %s x=%v: got %v, ref %v", n, p.name, x[i], o.guard[i], ref)
						}
					}
				}
			}
		}
	})
}

func TestExpScaleLanes(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(3))
		for _, n := range testLengths() {
			for _, p := range randPatterns() {
				for _, scale := range scales {
					x := input(t, n, p.gen(r, n))
					m := input(t, n, func(i int) float32 {
						v := x[i] * scale
						if math.IsInf(float64(v), 0) || isNaN32(v) {
							return 0
						}
						return v + float32(r.Float64()*30)
					})
					mul := input(t, n, func(int) float32 { return float32(r.Float64()) })
					o := newOutput(t, n)
					s.expScaleLanes(o.guard, x, m, mul, scale)
					s.expScaleLanes(o.mid, x, m, mul, scale)
					o.checkNeighbours(t)
					want := make([]float32, n)
					expScaleLanesGeneric(want, x, m, mul, scale)
					for i := range want {
						if u := ulpsApart(o.guard[i], want[i]); u > maxUlps || ulpsApart(o.mid[i], o.guard[i]) != 0 {
							t.Fatalf("n=%d %s x=%v m=%v mul=%v: got %v, twin %v", n, p.name, x[i], m[i], mul[i], o.guard[i], want[i])
						}
					}
				}
			}
		}
	})
}

func TestLogSoftmaxGrad(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(4))
		for _, n := range testLengths() {
			for _, p := range randPatterns() {
				y := input(t, n, func(i int) float32 {
					v := p.gen(r, n)(i)
					if v > 0 && !math.IsInf(float64(v), 1) {
						v = -v // log-probabilities
					}
					return v
				})
				dy := input(t, n, func(int) float32 { return float32(r.NormFloat64()) })
				sc := float32(r.NormFloat64())
				sl := input(t, n, func(int) float32 { return float32(r.NormFloat64()) })
				o, ol := newOutput(t, n), newOutput(t, n)
				s.logSoftmaxGrad(o.guard, y, dy, sc)
				s.logSoftmaxGrad(o.mid, y, dy, sc)
				s.logSoftmaxGradLanes(ol.guard, y, dy, sl)
				s.logSoftmaxGradLanes(ol.mid, y, dy, sl)
				o.checkNeighbours(t)
				ol.checkNeighbours(t)
				want, wantl := make([]float32, n), make([]float32, n)
				logSoftmaxGradGeneric(want, y, dy, sc)
				logSoftmaxGradLanesGeneric(wantl, y, dy, sl)
				for i := range want {
					mag := math.Abs(float64(Exp(y[i])*sc)) + math.Abs(float64(dy[i]))
					magl := math.Abs(float64(Exp(y[i])*sl[i])) + math.Abs(float64(dy[i]))
					if !closeTo(o.guard[i], want[i], mag, 3e-7) || !closeTo(o.mid[i], want[i], mag, 3e-7) {
						t.Fatalf("n=%d %s y=%v: got %v, twin %v", n, p.name, y[i], o.guard[i], want[i])
					}
					if !closeTo(ol.guard[i], wantl[i], magl, 3e-7) || !closeTo(ol.mid[i], wantl[i], magl, 3e-7) {
						t.Fatalf("lanes n=%d %s y=%v: got %v, twin %v", n, p.name, y[i], ol.guard[i], wantl[i])
					}
					ref := float64(dy[i]) - math.Exp(float64(y[i]))*float64(sc)
					if !closeTo(o.guard[i], float32(ref), mag, 4e-7) {
						t.Fatalf("n=%d %s y=%v: got %v, ref %v", n, p.name, y[i], o.guard[i], ref)
					}
				}
			}
		}
	})
}

// ---- OnlineUpdate -----------------------------------------------------

func TestOnlineUpdate(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(5))
		for _, n := range testLengths() {
			for _, scale := range scales {
				m, d := guardedF32(t, n), guardedF32(t, n)
				tm, td := make([]float32, n), make([]float32, n)
				rm, rd := make([]float64, n), make([]float64, n)
				for i := range m {
					m[i], tm[i], rm[i] = -inf, -inf, math.Inf(-1)
				}
				pats := randPatterns()
				for step := 0; step < 12; step++ {
					p := pats[(step+n)%len(pats)]
					x := input(t, n, p.gen(r, n))
					s.onlineUpdate(m, d, x, scale)
					onlineUpdateGeneric(tm, td, x, scale)
					for i := range m {
						// float64 reference of the same merge.
						v := float64(x[i] * scale)
						if v > rm[i] {
							rd[i] *= math.Exp(rm[i] - safe64(v))
							rm[i] = v
						}
						rd[i] += math.Exp(v - safe64(rm[i]))
						where := fmt.Sprintf("n=%d step=%d %s scale=%g lane %d x=%v", n, step, p.name, scale, i, x[i])
						if m[i] != tm[i] && !(isNaN32(m[i]) && isNaN32(tm[i])) {
							t.Fatalf("%s: m=%v, twin %v", where, m[i], tm[i])
						}
						if !closeTo(d[i], td[i], float64(td[i]), 1e-6) {
							t.Fatalf("%s: d=%v, twin %v", where, d[i], td[i])
						}
						if !closeTo(d[i], float32(rd[i]), rd[i], 1e-6) {
							t.Fatalf("%s: d=%v, ref %v", where, d[i], rd[i])
						}
					}
				}
			}
		}
	})
}

func safe64(m float64) float64 {
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

// ---- reductions ---------------------------------------------------------

func TestDotSum(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(6))
		worst := 0.0
		for _, n := range append(testLengths(), 4096, 8192) {
			for k := 0; k < 4; k++ {
				off := float64(k % 2) // positive data, then centred
				a := input(t, n, func(int) float32 { return float32(r.Float64() + off - 0.5) })
				b := input(t, n, func(int) float32 { return float32(r.Float64()) })
				var rdot, rsum, adot, asum float64
				for i := range a {
					rdot += float64(a[i]) * float64(b[i])
					adot += math.Abs(float64(a[i]) * float64(b[i]))
					rsum += float64(a[i])
					asum += math.Abs(float64(a[i]))
				}
				gd, gs := s.dot(a, b), s.sum(a)
				td, ts := dotGeneric(a, b), sumGeneric(a)
				// Error bound relative to Σ|terms|: float32 accumulators
				// with up to n/8 additions each (the twin) or n/64 (AVX-512).
				tol := 1e-6
				if n > 4096 || s == goSet {
					tol = 4e-6
				}
				if !closeTo(gd, float32(rdot), adot, tol) || !closeTo(gs, float32(rsum), asum, tol) {
					t.Fatalf("n=%d: dot %v (ref %v, twin %v), sum %v (ref %v, twin %v)", n, gd, rdot, td, gs, rsum, ts)
				}
				if !closeTo(gd, td, adot, 4e-6) || !closeTo(gs, ts, asum, 4e-6) {
					t.Fatalf("n=%d: dot %v (twin %v), sum %v (twin %v)", n, gd, td, gs, ts)
				}
				if asum > 0 {
					worst = math.Max(worst, math.Abs(float64(gs)-rsum)/asum)
				}
			}
		}
		t.Logf("worst Sum error / Σ|a|: %.3g", worst)
		// Special values propagate.
		a := input(t, 37, func(i int) float32 { return 1 })
		a[30] = nan
		if !isNaN32(s.sum(a)) || !isNaN32(s.dot(a, a)) {
			t.Fatal("NaN lost")
		}
		a[30] = inf
		if s.sum(a) != inf || s.dot(a, a) != inf {
			t.Fatal("+Inf lost")
		}
		if s.sum(nil) != 0 || s.dot(nil, nil) != 0 {
			t.Fatal("empty sums not 0")
		}
	})
}

// ---- plain arithmetic kernels ---------------------------------------------

// arith checks an element-wise kernel against its twin: out has n elements
// computed from freshly generated inputs; mag gives the size of element i
// for the tolerance.
func TestArithmetic(t *testing.T) {
	type kernel struct {
		name string
		run  func(s *kernelSet, out []float32, in [][]float32, c float32)
		ins  int
		acc  bool // out is also an input
		mag  func(in [][]float32, out0 []float32, c float32, i int) float64
		ref  func(in [][]float32, out0 []float32, c float32, i int) float64
	}
	f := func(v float32) float64 { return float64(v) }
	abs := func(v float32) float64 { return math.Abs(float64(v)) }
	kernels := []kernel{
		{"LogOut", func(s *kernelSet, out []float32, in [][]float32, c float32) { s.logOut(out, in[0], c, c*3) }, 1, false,
			func(in [][]float32, _ []float32, c float32, i int) float64 { return abs(in[0][i]*c) + abs(c*3) },
			func(in [][]float32, _ []float32, c float32, i int) float64 { return f(in[0][i])*f(c) - f(c*3) }},
		{"LogOutLanes", func(s *kernelSet, out []float32, in [][]float32, c float32) { s.logOutLanes(out, in[0], in[1], c) }, 2, false,
			func(in [][]float32, _ []float32, c float32, i int) float64 { return abs(in[0][i]*c) + abs(in[1][i]) },
			func(in [][]float32, _ []float32, c float32, i int) float64 { return f(in[0][i])*f(c) - f(in[1][i]) }},
		{"SoftmaxGrad", func(s *kernelSet, out []float32, in [][]float32, c float32) { s.softmaxGrad(out, in[0], in[1], c) }, 2, false,
			func(in [][]float32, _ []float32, c float32, i int) float64 {
				return abs(in[0][i]) * (abs(in[1][i]) + abs(c))
			},
			func(in [][]float32, _ []float32, c float32, i int) float64 { return f(in[0][i]) * (f(in[1][i]) - f(c)) }},
		{"SoftmaxGradLanes", func(s *kernelSet, out []float32, in [][]float32, c float32) {
			s.softmaxGradLanes(out, in[0], in[1], in[2])
		}, 3, false,
			func(in [][]float32, _ []float32, c float32, i int) float64 {
				return abs(in[0][i]) * (abs(in[1][i]) + abs(in[2][i]))
			},
			func(in [][]float32, _ []float32, c float32, i int) float64 {
				return f(in[0][i]) * (f(in[1][i]) - f(in[2][i]))
			}},
		{"MulAdd", func(s *kernelSet, out []float32, in [][]float32, c float32) { s.mulAdd(out, in[0], in[1]) }, 2, true,
			func(in [][]float32, o []float32, c float32, i int) float64 { return abs(in[0][i]*in[1][i]) + abs(o[i]) },
			func(in [][]float32, o []float32, c float32, i int) float64 { return f(o[i]) + f(in[0][i])*f(in[1][i]) }},
		{"Add", func(s *kernelSet, out []float32, in [][]float32, c float32) { s.add(out, in[0]) }, 1, true,
			func(in [][]float32, o []float32, c float32, i int) float64 { return abs(in[0][i]) + abs(o[i]) },
			func(in [][]float32, o []float32, c float32, i int) float64 { return f(o[i]) + f(in[0][i]) }},
	}
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			forSets(t, func(t *testing.T, s *kernelSet) {
				r := rand.New(rand.NewSource(7))
				for _, n := range testLengths() {
					for _, p := range randPatterns() {
						for _, c := range scales {
							in := make([][]float32, k.ins)
							for j := range in {
								in[j] = input(t, n, p.gen(r, n))
							}
							start := input(t, n, func(int) float32 { return float32(r.NormFloat64()) })
							o := newOutput(t, n)
							if k.acc {
								copy(o.guard, start)
								copy(o.mid, start)
							}
							k.run(s, o.guard, in, c)
							k.run(s, o.mid, in, c)
							o.checkNeighbours(t)
							want := append([]float32(nil), start...)
							k.run(goSet, want, in, c)
							for i := range want {
								mag := k.mag(in, start, c, i)
								if !closeTo(o.guard[i], want[i], mag, 1.2e-7) || ulpsApart(o.mid[i], o.guard[i]) != 0 {
									t.Fatalf("n=%d %s c=%g i=%d: got %v/%v, twin %v", n, p.name, c, i, o.guard[i], o.mid[i], want[i])
								}
								if ref := k.ref(in, start, c, i); !closeTo(o.guard[i], float32(ref), mag, 2.4e-7) && !(math.IsInf(mag, 0) || math.IsNaN(mag)) {
									t.Fatalf("n=%d %s c=%g i=%d: got %v, float64 %v", n, p.name, c, i, o.guard[i], ref)
								}
							}
						}
					}
				}
			})
		})
	}
}

// ---- dispatch -----------------------------------------------------------

func TestImpls(t *testing.T) {
	names := Impls()
	if names[0] != "go" {
		t.Fatalf("Impls() = %v", names)
	}
	t.Logf("kernel sets: %v, in use: %s, guard pages: %v", names, Impl(), haveGuardPages)
	defer func(prev string) { _, _ = UseImpl(prev) }(Impl())
	for _, name := range names {
		if _, err := UseImpl(name); err != nil || Impl() != name {
			t.Fatalf("UseImpl(%q): %v, Impl() = %s", name, err, Impl())
		}
		// The exported wrappers reach the set.
		x := []float32{1, 2, 3}
		if m, d := MaxSum(x, 1); m != 3 || math.Abs(float64(d)-(1+math.Exp(-1)+math.Exp(-2))) > 1e-6 {
			t.Fatalf("%s: MaxSum = %v, %v", name, m, d)
		}
	}
	if _, err := UseImpl("sse9"); err == nil {
		t.Fatal("UseImpl of an unknown set succeeded")
	}
}

// eachImpl runs f with each kernel set of Impls in use in turn, then puts
// back the set that was in use.
func eachImpl(t *testing.T, f func(name string)) {
	t.Helper()
	defer func(prev string) { _, _ = UseImpl(prev) }(Impl())
	for _, name := range Impls() {
		if _, err := UseImpl(name); err != nil {
			t.Fatal(err)
		}
		f(name)
	}
}

// TestExportedWrappers checks that every exported function reaches its
// table entry and reslices inputs like the twins (short inputs panic).
func TestExportedWrappers(t *testing.T) {
	x := []float32{0.5, -1, 2, 3, -4}
	y := []float32{-0.5, -1, -2, -3, -4}
	out := make([]float32, len(x))
	want := make([]float32, len(x))
	eq := func(name string) {
		t.Helper()
		for i := range out {
			if !closeTo(out[i], want[i], math.Abs(float64(want[i]))+1, 1e-6) {
				t.Fatalf("%s[%d] = %v, want %v", name, i, out[i], want[i])
			}
		}
	}
	ExpScale(out, x, 2, 1, 0.5)
	expScaleGeneric(want, x, 2, 1, 0.5)
	eq("ExpScale")
	LogOut(out, x, 2, 1)
	logOutGeneric(want, x, 2, 1)
	eq("LogOut")
	SoftmaxGrad(out, x, y, 0.25)
	softmaxGradGeneric(want, x, y, 0.25)
	eq("SoftmaxGrad")
	LogSoftmaxGrad(out, y, x, 0.25)
	logSoftmaxGradGeneric(want, y, x, 0.25)
	eq("LogSoftmaxGrad")
	ExpScaleLanes(out, x, y, x, 2)
	expScaleLanesGeneric(want, x, y, x, 2)
	eq("ExpScaleLanes")
	LogOutLanes(out, x, y, 2)
	logOutLanesGeneric(want, x, y, 2)
	eq("LogOutLanes")
	SoftmaxGradLanes(out, x, y, x)
	softmaxGradLanesGeneric(want, x, y, x)
	eq("SoftmaxGradLanes")
	LogSoftmaxGradLanes(out, y, x, x)
	logSoftmaxGradLanesGeneric(want, y, x, x)
	eq("LogSoftmaxGradLanes")
	copy(out, x)
	copy(want, x)
	MulAdd(out, x, y)
	mulAddGeneric(want, x, y)
	eq("MulAdd")
	Add(out, y)
	addGeneric(want, y)
	eq("Add")
	m, d := make([]float32, len(x)), make([]float32, len(x))
	for i := range m {
		m[i] = -inf
	}
	OnlineUpdate(m, d, x, 1)
	for i := range m {
		if m[i] != x[i] || d[i] != 1 {
			t.Fatalf("OnlineUpdate lane %d: (%v, %v)", i, m[i], d[i])
		}
	}
	if v := Dot(x, y); !closeTo(v, dotGeneric(x, y), 40, 1e-6) {
		t.Fatalf("Dot = %v", v)
	}
	if v := Sum(x); !closeTo(v, sumGeneric(x), 20, 1e-6) {
		t.Fatalf("Sum = %v", v)
	}
	h := make([]uint16, len(x))
	F32ToF16(h, x)
	F16ToF32(out, h)
	F32ToBF16(h, x)
	BF16ToF32(out, h)
	for i := range x {
		if out[i] != x[i] {
			t.Fatalf("bf16 round trip %v → %v", x[i], out[i])
		}
	}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Fatalf("%s with a short input did not panic", name)
			}
		}()
		f()
	}
	short := make([]float32, 2)
	mustPanic("ExpScale", func() { ExpScale(out, short, 1, 0, 1) })
	mustPanic("Dot", func() { Dot(x, short) })
	mustPanic("OnlineUpdate", func() { OnlineUpdate(m, short, x, 1) })
	mustPanic("F16ToF32", func() { F16ToF32(out, h[:2:2]) })
	mustPanic("LogSoftmaxGradLanes", func() { LogSoftmaxGradLanes(out, y, x, short) })
}

// TestEnvOverride runs the test binary again with EnvKernels set and checks
// the set it starts with.
func TestEnvOverride(t *testing.T) {
	if os.Getenv("VEC_ENV_CHILD") != "" {
		fmt.Printf("impl=%s\n", Impl())
		return
	}
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	best := sets[len(sets)-1].name
	cases := map[string]string{"bogus": best, "": best}
	for _, s := range sets {
		cases[s.name] = s.name
	}
	if findSet("avx512") == nil {
		cases["avx512"] = best // not available: ignored
	}
	for env, want := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvOverride$", "-test.count=1")
		cmd.Env = append(os.Environ(), "VEC_ENV_CHILD=1", EnvKernels+"="+env)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%q: %v\n%s", EnvKernels, env, err, out)
		}
		if !strings.Contains(string(out), "impl="+want+"\n") {
			t.Errorf("%s=%q: want %s, got\n%s", EnvKernels, env, want, out)
		}
	}
}

// LogLanes stays within 1 ulp of the correctly rounded log over the sums
// it is given (1 up to 2^24, dense near 1 and around √2 and the powers of
// two), and passes NaN and +Inf through, in every kernel set.
func TestLogLanes(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	var d []float32
	for _, v := range []float64{1, 2, 4, 1 << 24, math.Sqrt2, math.Sqrt2 * 2, 3, 64, 1.0000001} {
		f := float32(v)
		d = append(d, f, math.Nextafter32(f, 0), math.Nextafter32(f, 10*f))
	}
	for range 5000 {
		d = append(d, float32(math.Exp(r.Float64()*math.Log(1<<24))), float32(1+r.Float64()*1e-3))
	}
	d = d[1:] // 1's neighbour below is outside the domain
	want := make([]float32, len(d))
	for i, v := range d {
		want[i] = float32(math.Log(float64(v)))
	}
	forSets(t, func(t *testing.T, s *kernelSet) {
		got := make([]float32, len(d))
		s.logLanes(got, d)
		worst := int64(0)
		for i := range d {
			u := ulpsApart(got[i], want[i])
			worst = max(worst, u)
			if u > 1 {
				t.Errorf("log(%g) = %g, want %g (%d ulps)", d[i], got[i], want[i], u)
				return
			}
		}
		t.Logf("worst %d ulps over %d sums", worst, len(d))
		sp := []float32{float32(math.NaN()), float32(math.Inf(1))}
		out := make([]float32, 2)
		s.logLanes(out, sp)
		if !math.IsNaN(float64(out[0])) || !math.IsInf(float64(out[1]), 1) {
			t.Errorf("log(NaN, +Inf) = %v", out)
		}
	})
}
