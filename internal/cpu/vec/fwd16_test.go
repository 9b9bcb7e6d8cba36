package vec

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"
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

// The 16-bit forward kernels of every set, against their twins and the
// float32 path they replace (conversion, Max, ExpSum, Normalize, conversion
// back): max bit for bit, exps within an ulp of exp2Poly16 (which rounds its
// FMAs twice), the sum close, the 16-bit outputs bit for bit the twin's
// rounding of the kernel's own exps, plain and streamed to any alignment,
// and within one 16-bit ulp of the float32 path's (NaNs of either sign).
func TestFwd16(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, 16))
	eachImpl(t, func(name string) {
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
						e, twin, f32 := make([]float32, n), make([]float32, n), make([]float32, n)
						s := ExpSum16Ahead(e, u, bf, nil, scale, m)
						ts := expSum16Generic(twin, u, bf, scale, m)
						ExpSum(f32, x, scale, m)
						for i := range e {
							if ulpsApart(e[i], twin[i]) > 1 {
								t.Fatalf("%s bf=%v n=%d: exp[%d] = %v, twin %v", name, bf, n, i, e[i], twin[i])
							}
						}
						if !close32(s, ts) {
							t.Fatalf("%s bf=%v n=%d: sum %v, twin %v", name, bf, n, s, ts)
						}
						k := 1 / (s + 1)
						want, path := make([]uint16, n), make([]uint16, n)
						normalize16Generic(want, bf, e, k)
						normalizeGeneric(f32, f32, k)
						to16(path, f32)
						for i := range want {
							if d := int(want[i]) - int(path[i]); (d < -1 || d > 1) && !(nan16(want[i], bf) && nan16(path[i], bf)) {
								t.Fatalf("%s bf=%v n=%d: out[%d] = %#x, float32 path %#x", name, bf, n, i, want[i], path[i])
							}
						}
						for _, stream := range []bool{false, true} {
							for _, off := range []int{0, 1, 7} {
								if off > n {
									continue
								}
								got := make([]uint16, n+8)[off:n]
								Normalize16(got, bf, e[off:], k, stream)
								Fence()
								for i := range got {
									if got[i] != want[off+i] && !(nan16(got[i], bf) && nan16(want[off+i], bf)) {
										t.Fatalf("%s bf=%v n=%d stream=%v off=%d: out[%d] = %#x, twin %#x", name, bf, n, stream, off, i, got[i], want[off+i])
									}
								}
								// The fused pass: the same outputs and Max16 of another row.
								next := rand16(t, rng, n-off, bf, special)
								clear(got)
								nm := Normalize16Max(got, bf, e[off:], k, stream, next, scale)
								Fence()
								if wm := Max16(next, bf, scale); nm != wm && !(nm != nm && wm != wm) {
									t.Fatalf("%s bf=%v n=%d stream=%v off=%d: Normalize16Max's max %v, Max16 %v", name, bf, n, stream, off, nm, wm)
								}
								for i := range got {
									if got[i] != want[off+i] && !(nan16(got[i], bf) && nan16(want[off+i], bf)) {
										t.Fatalf("%s bf=%v n=%d stream=%v off=%d: Normalize16Max out[%d] = %#x, twin %#x", name, bf, n, stream, off, i, got[i], want[off+i])
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestExp16 checks every set's 16-bit rows' exp (through ExpSum16Ahead of
// every bfloat16 value in [−110, 88], shifted by offsets m, read as
// bfloat16 and, where it is one, as float16) within its polynomial's error
// plus t's rounding and log2e's and M's (|x|·2^−23, m·2^−23) of float64 for
// normal results,
// within an ulp of exp2Poly16, and Exp's 0 and NaN at the edges.
func TestExp16(t *testing.T) {
	var u []uint16
	for b := uint16(0); b < 0x8000; b++ {
		if v := BF16ToFloat(b); v <= 88 {
			u = append(u, b)
		}
		if v := BF16ToFloat(b | 0x8000); v >= -110 {
			u = append(u, b|0x8000)
		}
	}
	u = append(u, FloatToBF16(float32(math.Inf(-1))), FloatToBF16(float32(math.NaN())))
	// The same values as float16 where they are exact (and the specials).
	var h []uint16
	for _, b := range u {
		if v := BF16ToFloat(b); HalfToFloat(FloatToHalf(v)) == v || v != v {
			h = append(h, FloatToHalf(v))
		}
	}
	u, h = u[:len(u)&^15], h[:len(h)&^15] // whole vectors: every element through the assembly
	eachImpl(t, func(name string) {
		for _, bf := range []bool{true, false} {
			in, poly := h, 7.5e-8
			if bf {
				in, poly = u, 2.63e-6
			}
			e := make([]float32, len(in))
			for _, m := range []float32{0, 0.3, 0.7071, 1e-3} {
				ExpSum16Ahead(e, in, bf, nil, 1, m)
				l, mm, _ := exp2Args(1, m)
				worst := 0.0
				for i, b := range in {
					x := to32(b, bf) - m
					want, twin := math.Exp(float64(x)), exp2Poly16(exp2Arg(b, bf, 1, m, l, mm, false), bf)
					if ulpsApart(e[i], twin) > 1 && !(e[i] != e[i] && twin != twin) {
						t.Fatalf("%s bf=%v: exp(%v) = %v, twin %v", name, bf, x, e[i], twin)
					}
					switch {
					case x != x || x < expLo:
						if math.Float32bits(e[i]) != math.Float32bits(Exp(x)) {
							t.Fatalf("%s bf=%v: exp(%v) = %v, Exp %v", name, bf, x, e[i], Exp(x))
						}
					case want >= 0x1p-126 && want <= math.MaxFloat32:
						rel := math.Abs(float64(e[i])/want - 1)
						if bound := poly + 1.2e-7 + (math.Abs(float64(x))+float64(m))*0x1p-23; rel > bound {
							t.Fatalf("%s bf=%v: exp(%v) = %v, %.3g relative off (bound %.3g)", name, bf, x, e[i], rel, bound)
						}
						worst = max(worst, rel)
					}
				}
				t.Logf("%s bf=%v m=%v: worst %.3g relative", name, bf, m, worst)
			}
		}
	})
}

// TestNormalize16Edges checks Normalize16 of every set against its twin,
// bit for bit, on products that are denormal (which VCVTNE2PS2BF16 would
// read as 0: normalizeBF16Cvt rounds their pairs apart), exact ties, NaNs
// with payloads, infinities, zeros and huge values, at every position of
// a vector pair, plain and streamed.
func TestNormalize16Edges(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 16))
	edges := []float32{1e-39, -3e-40, 0x1p-149, -0x1p-133, 0x1.0001p-126, 0x1p-126, 0x1.ff8p-127,
		math.Float32frombits(0x3f808000), math.Float32frombits(0x3f818000), math.Float32frombits(0x3f80ffff),
		math.Float32frombits(0x7fc01234), math.Float32frombits(0xff812345), float32(math.Inf(1)), float32(math.Inf(-1)),
		0, float32(math.Copysign(0, -1)), math.MaxFloat32, -3e38, 1, 0.5}
	eachImpl(t, func(name string) {
		for _, bf := range []bool{true, false} {
			for _, n := range []int{16, 32, 48, 64, 96, 100} {
				x := make([]float32, n)
				for trial := 0; trial < 40; trial++ {
					for i := range x {
						x[i] = float32(rng.NormFloat64())
						if rng.IntN(4) == 0 {
							x[i] = edges[rng.IntN(len(edges))]
						}
					}
					for _, k := range []float32{1, 0.75, 0x1p-20} {
						want := make([]uint16, n)
						normalize16Generic(want, bf, x, k)
						for _, stream := range []bool{false, true} {
							got := make([]uint16, n+32)
							off := int(64-uintptr(unsafe.Pointer(&got[0]))%64) % 64 / 2 // to a line: whole pairs
							got = got[off : off+n]
							Normalize16(got, bf, x, k, stream)
							Fence()
							for i := range got {
								if got[i] != want[i] && !(nan16(got[i], bf) && nan16(want[i], bf)) {
									t.Fatalf("%s bf=%v n=%d k=%v stream=%v: out[%d] = %#x from %v (%#x), twin %#x",
										name, bf, n, k, stream, i, got[i], x[i]*k, math.Float32bits(x[i]*k), want[i])
								}
							}
						}
					}
				}
			}
		}
	})
}

// TestExpSum16Wide checks the rows whose max times log2e overflows float32
// (bfloat16 above 2.36e38), which take exp2Args' wide form: exps of 1 at
// the max, the rest e^(x − m), as the float32 path's, on every set.
func TestExpSum16Wide(t *testing.T) {
	eachImpl(t, func(name string) {
		x := make([]float32, 35)
		for i := range x {
			x[i] = 3e38 - float32(i%5)*1e36
		}
		x[7], x[20] = 1, float32(math.Inf(-1))
		u := make([]uint16, len(x))
		F32ToBF16(u, x)
		BF16ToF32(x, u)
		for _, scale := range []float32{1, 0.9} {
			m := Max16(u, true, scale)
			e, want := make([]float32, len(x)), make([]float32, len(x))
			s := ExpSum16Ahead(e, u, true, nil, scale, m)
			ws := ExpSum(want, x, scale, m)
			for i := range e {
				if math.Abs(float64(e[i]-want[i])) > 1e-5*float64(want[i]) {
					t.Fatalf("%s scale=%v: exp[%d] = %v, float32 path %v", name, scale, i, e[i], want[i])
				}
			}
			if !close32(s, ws) {
				t.Fatalf("%s scale=%v: sum %v, float32 path %v", name, scale, s, ws)
			}
		}
	})
}

// TestMax16Edges checks Max16 of every set against maxOfGeneric of the
// converted row (float equality: ±0 either way) on rows of NaNs (either
// sign, with payloads), infinities, zeros of both signs and ordinary
// values, at lengths about the vectors of 32 words, with positive, negative
// and zero scales.
func TestMax16Edges(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 17))
	eachImpl(t, func(name string) {
		for _, bf := range []bool{true, false} {
			to32s := F16ToF32
			edges := []uint16{0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe00, 0xffff, 0x7fff, 0, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x7bff, 0xfbff}
			if bf {
				to32s = BF16ToF32
				edges = []uint16{0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc0, 0xffff, 0x7fff, 0, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x7f7f, 0xff7f}
			}
			for _, n := range []int{1, 31, 32, 33, 64, 127, 128, 129, 300} {
				u := make([]uint16, n)
				x := make([]float32, n)
				for trial := 0; trial < 60; trial++ {
					allEdge := trial%3 == 0
					for i := range u {
						if f := float32(rng.NormFloat64() * 3); bf {
							u[i] = FloatToBF16(f)
						} else {
							u[i] = FloatToHalf(f)
						}
						if allEdge || rng.IntN(5) == 0 {
							u[i] = edges[rng.IntN(len(edges))]
						}
						if trial%10 == 1 {
							u[i] = edges[2+rng.IntN(4)] // NaNs only, either sign
						}
					}
					to32s(x, u)
					for _, scale := range []float32{1, 0.7, -0.5, 0, 3e38} {
						got, want := Max16(u, bf, scale), maxOfGeneric(x, scale)
						if got != want && !(got != got && want != want) {
							t.Fatalf("%s bf=%v n=%d scale=%v: Max16 %v, float32 path %v (row %#x)", name, bf, n, scale, got, want, u)
						}
					}
				}
			}
		}
	})
}

// TestFma32Exact checks fma32Exact against math/big's single rounding on
// random operands, on ones whose float64 sum lands on a float32 midpoint
// (where fma32 can round twice) and on overflow.
func TestFma32Exact(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 32))
	exact := func(a, b, c float32) float32 {
		z := new(big.Float).SetPrec(300).SetFloat64(float64(a))
		z.Mul(z, new(big.Float).SetPrec(300).SetFloat64(float64(b)))
		z.Add(z, new(big.Float).SetPrec(300).SetFloat64(float64(c)))
		f, _ := z.Float32()
		return f
	}
	twice := 0
	for i := 0; i < 200000; i++ {
		a := float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		b := float32(rng.NormFloat64())
		c := float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		if i%2 == 1 {
			// a·b is c's half ulp less 2^−46 of it: a float32 midpoint
			// less a tail below float64's reach.
			_, e := math.Frexp(float64(c))
			a = 1 + 0x1p-23
			b = float32(math.Ldexp(1-0x1p-23, e-25))
			if rng.IntN(2) == 0 {
				b = -b
			}
		}
		if got, want := fma32Exact(a, b, c), exact(a, b, c); got != want {
			t.Fatalf("fma32Exact(%v, %v, %v) = %v, want %v", a, b, c, got, want)
		}
		if fma32(a, b, c) != exact(a, b, c) {
			twice++
		}
	}
	if got := fma32Exact(3e38, 3, -1e38); !math.IsInf(float64(got), 1) {
		t.Fatalf("fma32Exact(3e38, 3, -1e38) = %v, want +Inf", got)
	}
	t.Logf("fma32 rounded twice on %d of 200000", twice)
}

// nan16 says whether u is a NaN of its 16-bit format (whose sign the
// kernels and twins may set differently).
func nan16(u uint16, bf bool) bool {
	if bf {
		return u&0x7fff > 0x7f80
	}
	return u&0x7fff > 0x7c00
}

// close32 says whether a and b agree to 1e-5 relative, or are both NaN or
// the same infinity.
func close32(a, b float32) bool {
	if a == b || a != a && b != b {
		return true
	}
	return math.Abs(float64(a-b)) <= 1e-5*math.Abs(float64(b))
}
