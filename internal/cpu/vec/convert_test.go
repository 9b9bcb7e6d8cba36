package vec

import (
	"math"
	"math/rand"
	"testing"
)

// The conversion kernels (f16/bf16 <-> f32) against their twins and the
// exact values, every f16 input and the rounding edges of f32.

// ---- conversions ------------------------------------------------------

func TestF16ToF32AllValues(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		src := guardedU16(t, 1<<16)
		for i := range src {
			src[i] = uint16(i)
		}
		for _, conv := range []struct {
			name      string
			run, twin func(dst []float32, src []uint16)
		}{{"f16", s.f16ToF32, f16ToF32Generic}, {"bf16", s.bf16ToF32, bf16ToF32Generic}} {
			dst, want := guardedF32(t, len(src)), make([]float32, len(src))
			conv.run(dst, src)
			conv.twin(want, src)
			for i := range want {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %#04x: got %#08x, twin %#08x", conv.name, i, math.Float32bits(dst[i]), math.Float32bits(want[i]))
				}
			}
			if conv.name == "bf16" {
				for i := range want {
					if want[i] != BF16ToFloat(uint16(i)) && !isNaN32(want[i]) {
						t.Fatalf("bf16 twin %#04x", i)
					}
				}
			}
		}
	})
}

// f32Specials are float32 bit patterns where conversions go wrong:
// zeros, denormals, infinities, NaNs (quiet, signalling, negative), f16/bf16
// overflow and underflow thresholds and rounding ties.
func f32Specials() []uint32 {
	bs := []uint32{
		0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000,
		0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001,
		0x7fbfffff, 0x7fffffff, 0xffffffff, 0x7f7fffff, 0xff7fffff,
		math.Float32bits(65504), math.Float32bits(65519.99), math.Float32bits(65520),
		math.Float32bits(6.1035156e-05), math.Float32bits(5.9604645e-08), math.Float32bits(2.9802322e-08),
		math.Float32bits(2.9802326e-08), math.Float32bits(1), math.Float32bits(-1),
	}
	// bf16 ties: low half exactly 0x8000 with even and odd kept bits, and
	// just either side.
	for _, hi := range []uint32{0x3f80, 0x3f81, 0x7f7f, 0xbf80, 0xbf81, 0x0000, 0x0001, 0x7f7e} {
		for _, lo := range []uint32{0x7fff, 0x8000, 0x8001, 0xffff} {
			bs = append(bs, hi<<16|lo)
		}
	}
	// f16 ties: the 13 dropped mantissa bits exactly half, for normals and
	// for f16 denormals.
	for _, e := range []uint32{0x38000000, 0x3f800000, 0x47000000, 0x33800000, 0x34800000} {
		for _, m := range []uint32{0x1000, 0x3000, 0x0fff, 0x1001, 0x7fe000 | 0x1000} {
			bs = append(bs, e|m, e|m|0x80000000)
		}
	}
	return bs
}

func TestF32ToHalfConversions(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		bits := f32Specials()
		// A strided sweep over all 2^32 patterns (every exponent and sign).
		for b := uint64(0); b < 1<<32; b += 4099 * 7 {
			bs := uint32(b)
			bits = append(bits, bs, bs^0x1000, bs|0x8000)
		}
		r := rand.New(rand.NewSource(8))
		for i := 0; i < 1<<16; i++ {
			bits = append(bits, r.Uint32())
		}
		src := guardedF32(t, len(bits))
		for i, b := range bits {
			src[i] = math.Float32frombits(b)
		}
		for _, conv := range []struct {
			name      string
			run, twin func(dst []uint16, src []float32)
		}{{"f16", s.f32ToF16, f32ToF16Generic}, {"bf16", s.f32ToBF16, f32ToBF16Generic},
			{"f16 stream", s.f32ToF16Stream, f32ToF16Generic}, {"bf16 stream", s.f32ToBF16Stream, f32ToBF16Generic}} {
			dst, want := guardedU16(t, len(src)), make([]uint16, len(src))
			conv.run(dst, src)
			conv.twin(want, src)
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("%s %#08x: got %#04x, twin %#04x", conv.name, bits[i], dst[i], want[i])
				}
			}
		}
		// NaN stays NaN in both.
		for _, b := range []uint32{0x7f800001, 0xff800001, 0x7fc00000, 0x7fbfffff} {
			f := math.Float32frombits(b)
			h := make([]uint16, 1)
			s.f32ToF16(h, []float32{f})
			if !isNaN32(HalfToFloat(h[0])) {
				t.Fatalf("f16 of NaN %#08x is %#04x", b, h[0])
			}
			s.f32ToBF16(h, []float32{f})
			if !isNaN32(BF16ToFloat(h[0])) {
				t.Fatalf("bf16 of NaN %#08x is %#04x", b, h[0])
			}
		}
	})
}

func TestConversionBounds(t *testing.T) {
	forSets(t, func(t *testing.T, s *kernelSet) {
		for _, n := range testLengths() {
			f := input(t, n, func(i int) float32 { return float32(i) + 0.25 })
			h := guardedU16(t, n)
			back := make([]uint16, n+64)
			for i := range back {
				back[i] = 0xdead
			}
			mid := back[32 : 32+n : 32+n]
			check := func(name string) {
				for i, v := range back {
					if (i < 32 || i >= 32+n) && v != 0xdead {
						t.Fatalf("%s n=%d wrote outside at %d", name, n, i-32)
					}
				}
			}
			s.f32ToF16(h, f)
			s.f32ToF16(mid, f)
			check("F32ToF16")
			for i := range h {
				if h[i] != FloatToHalf(f[i]) || mid[i] != h[i] {
					t.Fatalf("F32ToF16 n=%d i=%d", n, i)
				}
			}
			s.f32ToBF16(h, f)
			s.f32ToBF16(mid, f)
			check("F32ToBF16")
			for i := range h {
				if h[i] != FloatToBF16(f[i]) || mid[i] != h[i] {
					t.Fatalf("F32ToBF16 n=%d i=%d", n, i)
				}
			}
			// The stream kernels split at the first 32-byte boundary:
			// every start offset within one, guarded and in the middle
			// of a buffer.
			for off := 0; off < 16; off++ {
				for _, conv := range []struct {
					name string
					run  func(dst []uint16, src []float32)
					one  func(float32) uint16
				}{{"F32ToF16Stream", s.f32ToF16Stream, FloatToHalf}, {"F32ToBF16Stream", s.f32ToBF16Stream, FloatToBF16}} {
					for i := range back {
						back[i] = 0xdead
					}
					m := back[32-off : 32-off+n : 32-off+n]
					conv.run(m, f)
					for i, v := range back {
						if (i < 32-off || i >= 32-off+n) && v != 0xdead {
							t.Fatalf("%s n=%d off=%d wrote outside at %d", conv.name, n, off, i-32+off)
						}
					}
					conv.run(h, f)
					for i := range m {
						if m[i] != conv.one(f[i]) || h[i] != m[i] {
							t.Fatalf("%s n=%d off=%d i=%d", conv.name, n, off, i)
						}
					}
				}
			}
			for _, conv := range []struct {
				name string
				run  func(dst []float32, src []uint16)
				one  func(uint16) float32
			}{{"F16ToF32", s.f16ToF32, HalfToFloat}, {"BF16ToF32", s.bf16ToF32, BF16ToFloat}} {
				o := newOutput(t, n)
				conv.run(o.guard, h)
				conv.run(o.mid, h)
				o.checkNeighbours(t)
				for i := range h {
					if o.guard[i] != conv.one(h[i]) || o.mid[i] != o.guard[i] {
						t.Fatalf("%s n=%d i=%d", conv.name, n, i)
					}
				}
			}
		}
	})
}
