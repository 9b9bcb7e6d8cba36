package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randGrad16 fills n float16 or bfloat16 values (bf) ending at a guard page,
// from f of a normal draw, with NaN, ±∞ and huge ones (special).
func randGrad16(t *testing.T, rng *rand.Rand, n int, bf, special bool, f func(float64) float64) []uint16 {
	v := guardedU16(t, n)
	to := func(x float64) uint16 {
		if bf {
			return FloatToBF16(float32(x))
		}
		return FloatToHalf(float32(x))
	}
	for i := range v {
		v[i] = to(f(rng.NormFloat64()))
		if special {
			switch i % 7 {
			case 1:
				v[i] = to(math.NaN())
			case 3:
				v[i] = to(math.Inf(1 - 2*(i/7%2)))
			case 5:
				v[i] = to(6e4)
			}
		}
	}
	return v
}

// lanes16 is the float32 lanes a vector of the kernel set in use (the
// twin's 8 where there is no assembly).
func lanes16(name string) int {
	if name == "avx512" && Grad16Fused() {
		return 16
	}
	return 8
}

// Sum16 of every kernel set bit for bit its twin's order, and close to the
// float64 sum.
func TestSum16(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 3))
	eachImpl(t, func(name string) {
		for _, bf := range []bool{false, true} {
			for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1024, 1031, 2049} {
				a := randGrad16(t, rng, n, bf, false, func(x float64) float64 { return x })
				m := n &^ 15
				want := sum16Lanes(a[:m], bf, lanes16(name)) + sum16Rest(a[m:], bf)
				got := Sum16(a, bf)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s bf=%v n=%d: Sum16 = %v, twin %v", name, bf, n, got, want)
				}
				var ref, mag float64
				for _, u := range a {
					ref += float64(to32(u, bf))
					mag += math.Abs(float64(to32(u, bf)))
				}
				if math.Abs(float64(got)-ref) > 1e-6*mag+1e-30 {
					t.Fatalf("%s bf=%v n=%d: Sum16 = %v, float64 %v", name, bf, n, got, ref)
				}
			}
		}
	})
}

// LogSoftmaxGrad16 of every kernel set within 16-bit roundings of its twin
// (their exps may differ in the last float32 bit), specials included, and
// the twin of the float32 path it replaces (conversions,
// logSoftmaxGradGeneric with its own exp, the scale, the conversion back).
func TestLogSoftmaxGrad16(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 4))
	eachImpl(t, func(name string) {
		for _, bf := range []bool{false, true} {
			for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1024, 1031, 2049} {
				for _, special := range []bool{false, true} {
					y := randGrad16(t, rng, n, bf, special, func(x float64) float64 { return -math.Abs(x) * 4 })
					dy := randGrad16(t, rng, n, bf, special, func(x float64) float64 { return x })
					for _, scale := range []float32{1, 0.7} {
						s := float32(rng.NormFloat64())
						checkGrad16(t, fmt.Sprintf("%s bf=%v n=%d special=%v scale=%g", name, bf, n, special, scale), y, dy, bf, s, scale)
					}
				}
			}
		}
	})
}

func checkGrad16(t *testing.T, what string, y, dy []uint16, bf bool, s, scale float32) {
	n := len(y)
	want := make([]uint16, n)
	logSoftmaxGrad16Generic(want, y, dy, bf, s, scale)
	fy, fdy, f := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range y {
		fy[i], fdy[i] = to32(y[i], bf), to32(dy[i], bf)
	}
	logSoftmaxGradGeneric(f, fy, fdy, s)
	normalizeGeneric(f, f, scale)
	for _, stream := range []bool{false, true} {
		checkGrad16Out(t, fmt.Sprintf("%s stream=%v", what, stream), y, dy, fy, fdy, f, want, bf, s, scale, stream)
	}
}

func checkGrad16Out(t *testing.T, what string, y, dy []uint16, fy, fdy, f []float32, want []uint16, bf bool, s, scale float32, stream bool) {
	n := len(y)
	buf := make([]uint16, n+32)
	dx := buf[rng16(n):][:n]
	for i := range buf {
		buf[i] = 0xdead
	}
	if stream {
		LogSoftmaxGrad16Stream(dx, y, dy, bf, s, scale)
		Fence()
	} else {
		LogSoftmaxGrad16(dx, y, dy, bf, s, scale)
	}
	ulp := 0x1p-8
	if !bf {
		ulp = 0x1p-11
	}
	for i := range dx {
		g, w := float64(to32(dx[i], bf)), float64(to32(want[i], bf))
		chain := float64(f[i])
		if bf {
			chain = float64(BF16ToFloat(FloatToBF16(f[i])))
		} else {
			chain = float64(HalfToFloat(FloatToHalf(f[i])))
		}
		mag := (math.Abs(float64(Exp(fy[i])*s)) + math.Abs(float64(fdy[i]))) * float64(scale)
		if !close16(w, chain, mag, ulp, bf) {
			t.Fatalf("%s: twin dx[%d] = %v, float32 path %v (y %v dy %v)", what, i, w, chain, fy[i], fdy[i])
		}
		if !close16(g, w, mag, ulp, bf) {
			t.Fatalf("%s: dx[%d] = %v, twin %v (y %v dy %v)", what, i, g, w, fy[i], fdy[i])
		}
	}
	for i, u := range buf {
		if (i < rng16(n) || i >= rng16(n)+n) && u != 0xdead {
			t.Fatalf("%s: wrote outside dx at %d", what, i)
		}
	}
}

// close16 says whether 16-bit results a and b agree: both NaN, the same
// infinity, or within two ulps (ulp: the format's relative one) of mag,
// the size of the terms (float16: or its smallest denormal step).
func close16(a, b, mag, ulp float64, bf bool) bool {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.IsNaN(a) == math.IsNaN(b) && (math.IsNaN(a) || a == b)
	}
	d := math.Abs(a - b)
	return d <= 2*ulp*mag+1e-30 || (!bf && d <= 0x1p-24)
}

// rng16 is the offset of dx in its buffer (any 16-bit alignment).
func rng16(n int) int { return n % 13 }
