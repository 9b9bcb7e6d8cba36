package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// xentExp1 is within 2 ulp of the float64 exp over ExpSumMax's domain
// (and exact 0 below it, denormals within one denormal step).
func TestXentExpAccuracy(t *testing.T) {
	worst := int64(0)
	for i := 0; i <= 2_000_000; i++ {
		x := float32(-104 + (60+104)*float64(i)/2_000_000)
		got, want := xentExp1(x), float32(math.Exp(float64(x)))
		if want < 0x1p-126 {
			if math.Abs(float64(got)-math.Exp(float64(x))) > 0x1p-149 {
				t.Fatalf("xentExp1(%g) = %g, want %g", x, got, want)
			}
			continue
		}
		if u := ulpsApart(got, want); u > worst {
			worst = u
		}
	}
	if worst > 2 {
		t.Errorf("xentExp1 is %d ulps from exp", worst)
	}
	for _, c := range []struct{ x, want float32 }{{NegInf, 0}, {-200, 0}, {0, 1}} {
		if got := xentExp1(c.x); got != c.want {
			t.Errorf("xentExp1(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if got := xentExp1(float32(math.NaN())); got == got {
		t.Errorf("xentExp1(NaN) = %g", got)
	}
	t.Logf("worst %d ulps", worst)
}

// ExpSumMax of every kernel set against the twin: exps within maxUlps,
// the max exact, the sum close, the previous row's chunk out = in·k − c
// exactly, on lengths with every tail, unaligned outputs, scale 1 and not,
// NaN and −∞ elements.
func TestExpSumMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 1))
	eachImpl(t, func(name string) {
		for _, n := range []int{1, 7, 15, 16, 17, 63, 64, 65, 129, 2048, 2049} {
			for _, scale := range []float32{1, 0.7} {
				for _, special := range []bool{false, true} {
					x := guardedF32(t, n)
					for i := range x {
						x[i] = float32(rng.NormFloat64() * 8)
						if special && i%5 == 1 {
							x[i] = NegInf
						}
						if special && i == n/2 && n > 2 {
							x[i] = float32(math.NaN())
						}
					}
					m := float32(rng.NormFloat64() * 4)
					dst := guardedF32(t, n)
					want := make([]float32, n)
					nOut := n - rng.IntN(min(n, 20)) // shorter or as long as x
					in := guardedF32(t, nOut)
					for i := range in {
						in[i] = float32(rng.Float64())
					}
					outBuf := make([]float32, nOut+16)
					out := outBuf[rng.IntN(16):][:nOut] // any alignment
					c := float32(0)
					if special {
						c = 0.01
					}
					ws, wm, _ := xentExpGeneric(want, x, nil, make([]float32, nOut), in, scale, m, 0.3, c)
					s, mx := ExpSumMax(dst, x, x, out, in, scale, m, 0.3, c)
					Fence()
					for i := range dst {
						if u := ulpsApart(dst[i], want[i]); u > maxUlps {
							t.Fatalf("%s n=%d scale=%g: dst[%d] = %g, twin %g (%d ulps)", name, n, scale, i, dst[i], want[i], u)
						}
					}
					if mx != wm {
						t.Fatalf("%s n=%d scale=%g: mx = %g, twin %g", name, n, scale, mx, wm)
					}
					if special && n > 2 {
						if s == s {
							t.Fatalf("%s n=%d: a NaN element gives sum %g", name, n, s)
						}
					} else if math.Abs(float64(s-ws)) > 1e-5*float64(ws) {
						t.Fatalf("%s n=%d scale=%g: s = %g, twin %g", name, n, scale, s, ws)
					}
					for i := range out {
						if want := float32(in[i]*0.3) - c; out[i] != want {
							t.Fatalf("%s n=%d: out[%d] = %g, want %g", name, n, i, out[i], want)
						}
					}
				}
			}
		}
	})
}

// An all −∞ chunk: exps 0, sum 0, max −∞ (the caller's safe offset m is
// finite).
func TestExpSumMaxAllNegInf(t *testing.T) {
	eachImpl(t, func(name string) {
		x := make([]float32, 100)
		for i := range x {
			x[i] = NegInf
		}
		dst := make([]float32, 100)
		s, mx := ExpSumMax(dst, x, nil, nil, nil, 1, -math.MaxFloat32, 1, 0)
		if s != 0 || mx != NegInf {
			t.Errorf("%s: sum %g max %g, want 0 and −∞", name, s, mx)
		}
		for _, e := range dst {
			if e != 0 {
				t.Fatalf("%s: exp(−∞) = %g", name, e)
			}
		}
	})
}

// BenchmarkExpSumMax times a 32000-element row (L2-resident) in 2048-element
// chunks: the cross-entropy's old pass (Max, then ExpSum) against ExpSumMax,
// each also with the previous row's gradient chunk (ExpSumFlush; out
// L2-resident too, so this is the compute, not the memory traffic).
func BenchmarkExpSumMax(b *testing.B) {
	const v, ch = 32000, 2048
	rng := rand.New(rand.NewPCG(1, 2))
	x, e, pe, out := make([]float32, v), make([]float32, v), make([]float32, v), make([]float32, v)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 3)
		pe[i] = float32(rng.Float64())
	}
	rows := map[string]func(){
		"max+expSum": func() {
			m := Max(x, 1)
			for k := 0; k < v; k += ch {
				ExpSum(e[k:min(k+ch, v)], x[k:min(k+ch, v)], 1, m)
			}
		},
		"max+expSumFlush": func() {
			m := Max(x, 1)
			for k := 0; k < v; k += ch {
				ExpSumFlush(e[k:min(k+ch, v)], x[k:min(k+ch, v)], nil, 1, m, out[k:min(k+ch, v)], pe[k:min(k+ch, v)], 0.5)
			}
		},
		"expSumMax": func() {
			m := Max(x[:ch], 1)
			for k := 0; k < v; k += ch {
				ExpSumMax(e[k:min(k+ch, v)], x[k:min(k+ch, v)], nil, nil, nil, 1, m, 0, 0)
			}
		},
		"expSumMax+flush": func() {
			m := Max(x[:ch], 1)
			for k := 0; k < v; k += ch {
				ExpSumMax(e[k:min(k+ch, v)], x[k:min(k+ch, v)], nil, out[k:min(k+ch, v)], pe[k:min(k+ch, v)], 1, m, 0.5, 0)
			}
		},
	}
	for _, name := range []string{"max+expSum", "expSumMax", "max+expSumFlush", "expSumMax+flush"} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(4 * v)
			for b.Loop() {
				rows[name]()
			}
		})
	}
}
