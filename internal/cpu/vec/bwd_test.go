package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randBF16 fills n bfloat16 values ending at a guard page, with NaN, ±∞
// and huge ones (special).
func randBF16(t *testing.T, rng *rand.Rand, n int, special bool) []uint16 {
	v := guardedU16(t, n)
	for i := range v {
		v[i] = FloatToBF16(float32(rng.NormFloat64() * 3))
		if special {
			switch i % 7 {
			case 1:
				v[i] = FloatToBF16(float32(math.NaN()))
			case 3:
				v[i] = FloatToBF16(float32(math.Inf(1 - 2*(i/7%2))))
			case 5:
				v[i] = FloatToBF16(1e38)
			}
		}
	}
	return v
}

// The bfloat16 gradient of every kernel set, plain and streamed to any
// alignment, bit for bit the twin, and the twin bit for bit the float32
// path it replaces (conversions, SoftmaxGrad, the scale, F32ToBF16); the
// dot close to the twin and, without specials, equal to AVX-512's twin
// dotBF16EOGeneric (AVX2: on whole vectors, to Dot of the converted values).
func TestBF16Grad(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, 2))
	eachImpl(t, func(name string) {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1024, 1031, 2049} {
			for _, special := range []bool{false, true} {
				y, dy := randBF16(t, rng, n, special), randBF16(t, rng, n, special)
				fy, fdy := make([]float32, n), make([]float32, n)
				BF16ToF32(fy, y)
				BF16ToF32(fdy, dy)
				for _, scale := range []float32{1, 0.7} {
					s := float32(rng.NormFloat64())
					want := make([]uint16, n)
					softmaxGradBF16Generic(want, y, dy, s, scale)
					f := make([]float32, n)
					softmaxGradGeneric(f, fy, fdy, s)
					normalizeGeneric(f, f, scale)
					chain := make([]uint16, n)
					f32ToBF16Generic(chain, f)
					for i := range want {
						if want[i] != chain[i] {
							t.Fatalf("twin n=%d: dx[%d] = %#x, float32 path %#x", n, i, want[i], chain[i])
						}
					}
					for _, stream := range []bool{false, true} {
						buf := make([]uint16, n+32)
						dx := buf[rng.IntN(16):][:n]
						for i := range buf {
							buf[i] = 0xdead
						}
						if stream {
							SoftmaxGradBF16Stream(dx, y, dy, s, scale)
							Fence()
						} else {
							SoftmaxGradBF16(dx, y, dy, s, scale)
						}
						for i := range dx {
							if dx[i] != want[i] {
								t.Fatalf("%s n=%d stream=%v scale=%g: dx[%d] = %#x, twin %#x", name, n, stream, scale, i, dx[i], want[i])
							}
						}
					}
				}
				got, tw := DotBF16(y, dy), dotBF16Generic(y, dy)
				var mag float64
				for i := range fy {
					mag += math.Abs(float64(fy[i]) * float64(fdy[i]))
				}
				switch {
				case special && n > 2:
					if got == got || tw == tw {
						t.Fatalf("%s n=%d: dot with NaN = %g, twin %g", name, n, got, tw)
					}
				case math.Abs(float64(got-tw)) > float64(n+8)*0x1p-23*mag:
					t.Fatalf("%s n=%d: dot = %g, twin %g", name, n, got, tw)
				case name == "avx512" && !special && got != dotBF16EOGeneric(y, dy):
					t.Fatalf("%s n=%d: dot = %g, dotBF16EOGeneric %g", name, n, got, dotBF16EOGeneric(y, dy))
				case n%16 == 0 && name == "avx2" && got != Dot(fy, fdy):
					t.Fatalf("%s n=%d: dot = %g, Dot of the converted values %g", name, n, got, Dot(fy, fdy))
				}
			}
		}
	})
}

// SoftmaxGradStream of every kernel set, to any alignment, bit for bit the
// twin (SoftmaxGrad's then Normalize's twins), NaN for NaN.
func TestSoftmaxGradStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, 3))
	eachImpl(t, func(name string) {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 63, 64, 65, 129, 2048, 2049} {
			y, dy := guardedF32(t, n), guardedF32(t, n)
			for i := range y {
				y[i], dy[i] = float32(rng.Float64()), float32(rng.NormFloat64())
				if i%9 == 4 {
					dy[i] = float32([]float64{math.NaN(), math.Inf(1), -math.MaxFloat32}[i%3])
				}
			}
			for _, scale := range []float32{1, 0.7} {
				s := float32(rng.NormFloat64())
				want := make([]float32, n)
				softmaxGradScaleGeneric(want, y, dy, s, scale)
				buf := make([]float32, n+32)
				dx := buf[rng.IntN(16):][:n]
				SoftmaxGradStream(dx, y, dy, s, scale)
				Fence()
				for i := range dx {
					if math.Float32bits(dx[i]) != math.Float32bits(want[i]) && !(dx[i] != dx[i] && want[i] != want[i]) {
						t.Fatalf("%s n=%d scale=%g: dx[%d] = %g, twin %g", name, n, scale, i, dx[i], want[i])
					}
				}
			}
		}
	})
}

// LogSoftmaxGradStream of every kernel set, to any alignment, bit for bit
// the same set's LogSoftmaxGrad then Normalize by scale, NaN for NaN, with
// y's edge values (−∞, +∞, NaN, beyond the exp's clamps) and dy's.
func TestLogSoftmaxGradStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, 4))
	edges := []float64{math.Inf(-1), math.Inf(1), math.NaN(), -120, 95, 0, -math.MaxFloat32}
	eachImpl(t, func(name string) {
		for _, n := range []int{0, 1, 7, 15, 16, 17, 63, 64, 65, 129, 2048, 2049} {
			y, dy := guardedF32(t, n), guardedF32(t, n)
			for i := range y {
				y[i], dy[i] = float32(-8*rng.Float64()), float32(rng.NormFloat64())
				switch i % 11 {
				case 4:
					y[i] = float32(edges[rng.IntN(len(edges))])
				case 7:
					dy[i] = float32(edges[rng.IntN(len(edges))])
				}
			}
			for _, scale := range []float32{1, 0.7} {
				s := float32(rng.NormFloat64() * 40)
				want := make([]float32, n)
				LogSoftmaxGrad(want, y, dy, s)
				Normalize(want, want, scale)
				buf := make([]float32, n+32)
				dx := buf[rng.IntN(16):][:n]
				LogSoftmaxGradStream(dx, y, dy, s, scale)
				Fence()
				for i := range dx {
					if math.Float32bits(dx[i]) != math.Float32bits(want[i]) && !(dx[i] != dx[i] && want[i] != want[i]) {
						t.Fatalf("%s n=%d scale=%g: dx[%d] = %g (y %g, dy %g), plain %g", name, n, scale, i, dx[i], y[i], dy[i], want[i])
					}
				}
			}
		}
	})
}
