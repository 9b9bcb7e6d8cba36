package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// rand16 fills n 16-bit values (bfloat16 with bf) ending at a guard page,
// with NaN, ±∞ and huge ones (special).
func rand16(t *testing.T, rng *rand.Rand, n int, bf, special bool) []uint16 {
	if bf {
		return randBF16(t, rng, n, special)
	}
	v := guardedU16(t, n)
	for i := range v {
		f := float32(rng.NormFloat64() * 3)
		if special {
			switch i % 7 {
			case 1:
				f = float32(math.NaN())
			case 3:
				f = float32(math.Inf(1 - 2*(i/7%2)))
			case 5:
				f = 6e4
			}
		}
		v[i] = FloatToHalf(f)
	}
	return v
}

// The 16-bit forward kernels of every set, against the float32 path they
// replace (conversion, Max, ExpSum, Normalize, conversion back) and their
// twins: max and exps bit for bit, the sum equal on whole vectors of 16
// (the same kernel order) and close otherwise, the 16-bit outputs bit for
// bit, plain and streamed to any alignment.
func TestFwd16(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, 16))
	prev, _ := UseImpl(Impls()[len(Impls())-1])
	defer UseImpl(prev)
	for _, name := range Impls() {
		if _, err := UseImpl(name); err != nil {
			t.Fatal(err)
		}
		for _, bf := range []bool{false, true} {
			to32, to16 := F16ToF32, F32ToF16
			if bf {
				to32, to16 = BF16ToF32, F32ToBF16
			}
			for _, n := range []int{0, 1, 15, 16, 17, 64, 65, 127, 1024, 1031, 2048, 4096} {
				for _, special := range []bool{false, true} {
					u := rand16(t, rng, n, bf, special)
					x := make([]float32, n)
					to32(x, u)
					for _, scale := range []float32{1, 0.7} {
						m := Max16(u, bf, scale)
						if want := maxOfGeneric(x, scale); m != want && !(m != m && want != want) {
							t.Fatalf("%s bf=%v n=%d: Max16 %v, float32 path %v", name, bf, n, m, want)
						}
						if special {
							m = 3 // a finite offset: every exp a number or ±∞
						}
						e, want := make([]float32, n), make([]float32, n)
						s := ExpSum16Ahead(e, u, bf, nil, scale, m)
						ws := ExpSum(want, x, scale, m)
						for i := range e {
							if math.Float32bits(e[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s bf=%v n=%d: exp[%d] = %v, float32 path %v", name, bf, n, i, e[i], want[i])
							}
						}
						if n%16 == 0 && math.Float32bits(s) != math.Float32bits(ws) || !close32(s, ws) {
							t.Fatalf("%s bf=%v n=%d: sum %v, float32 path %v", name, bf, n, s, ws)
						}
						k := 1 / (s + 1)
						f := make([]float32, n)
						normalizeGeneric(f, e, k)
						chain := make([]uint16, n)
						to16(chain, f)
						for _, stream := range []bool{false, true} {
							for _, off := range []int{0, 1, 7} {
								if off > n {
									continue
								}
								got := make([]uint16, n+8)[off : off+n-off]
								Normalize16(got, bf, e[off:], k, stream)
								Fence()
								for i := range got {
									if got[i] != chain[off+i] {
										t.Fatalf("%s bf=%v n=%d stream=%v off=%d: out[%d] = %#x, float32 path %#x", name, bf, n, stream, off, i, got[i], chain[off+i])
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// close32 says whether a and b agree to 1e-5 relative, or are both NaN or
// the same infinity.
func close32(a, b float32) bool {
	if a == b || a != a && b != b {
		return true
	}
	return math.Abs(float64(a-b)) <= 1e-5*math.Abs(float64(b))
}
