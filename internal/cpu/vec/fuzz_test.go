package vec

import (
	"encoding/binary"
	"math"
	"testing"
)

// floatsOf reads little-endian float32 bit patterns (any: NaN, ±Inf,
// denormals) from fuzz bytes.
func floatsOf(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

func bytesOf(x ...float32) []byte {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func addSeeds(f *testing.F) {
	f.Add(bytesOf(), float32(1))
	f.Add(bytesOf(1, 2, 3), float32(1))
	f.Add(bytesOf(-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf), float32(1))
	f.Add(bytesOf(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, nan, 19), float32(0.5))
	f.Add(bytesOf(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, inf, 19), float32(-2))
	f.Add(bytesOf(1e30, -1e30, 5, -5, 1e-30, denorm, 0, -0.0, 3e38, -3e38, 88, -88, 104, -104), float32(1e-30))
	big := make([]float32, 333)
	for i := range big {
		big[i] = float32(i%37)*2.5 - float32(i%11)*7
	}
	f.Add(bytesOf(big...), float32(3))
}

// FuzzMaxSum compares every assembly MaxSum with the twin on arbitrary
// float32 data and scale.
func FuzzMaxSum(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, scale float32) {
		x := floatsOf(b)
		tm, td := maxSumGeneric(x, scale)
		// The twin's float32 lane sums may each add n/8 rounding errors.
		tol := float64(len(x)/8+16) * 6e-8
		for _, s := range sets[1:] {
			m, d := s.maxSum(x, scale)
			if isNaN32(td) != isNaN32(d) {
				t.Fatalf("%s: d=%v, twin %v (x=%v scale=%v)", s.name, d, td, x, scale)
			}
			if isNaN32(td) {
				continue
			}
			if m != tm {
				t.Fatalf("%s: m=%v, twin %v (x=%v scale=%v)", s.name, m, tm, x, scale)
			}
			if !closeTo(d, td, float64(td), tol) {
				t.Fatalf("%s: d=%v, twin %v (x=%v scale=%v)", s.name, d, td, x, scale)
			}
		}
	})
}

// FuzzOnlineUpdate folds the fuzz data into lanes in several steps with
// every assembly set and the twin.
func FuzzOnlineUpdate(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, scale float32) {
		x := floatsOf(b)
		lanes := 1 + len(x)%37
		for _, s := range sets[1:] {
			m, d := make([]float32, lanes), make([]float32, lanes)
			tm, td := make([]float32, lanes), make([]float32, lanes)
			for i := range m {
				m[i], tm[i] = -inf, -inf
			}
			for off := 0; off+lanes <= len(x); off += lanes {
				s.onlineUpdate(m, d, x[off:off+lanes], scale)
				onlineUpdateGeneric(tm, td, x[off:off+lanes], scale)
			}
			for i := range m {
				if m[i] != tm[i] || !closeTo(d[i], td[i], float64(td[i]), 1e-6) {
					t.Fatalf("%s lane %d: (%v, %v), twin (%v, %v)", s.name, i, m[i], d[i], tm[i], td[i])
				}
			}
		}
	})
}

// FuzzConvert checks the f16/bf16 conversions bit for bit.
func FuzzConvert(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, _ float32) {
		x := floatsOf(b)
		h := make([]uint16, len(b)/2)
		for i := range h {
			h[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		for _, s := range sets[1:] {
			for _, c := range []struct {
				name      string
				run, twin func([]uint16, []float32)
			}{{"f16", s.f32ToF16, f32ToF16Generic}, {"bf16", s.f32ToBF16, f32ToBF16Generic},
				{"f16 stream", s.f32ToF16Stream, f32ToF16Generic}, {"bf16 stream", s.f32ToBF16Stream, f32ToBF16Generic}} {
				got, want := make([]uint16, len(x)), make([]uint16, len(x))
				c.run(got, x)
				c.twin(want, x)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s %s(%#08x) = %#04x, twin %#04x", s.name, c.name, math.Float32bits(x[i]), got[i], want[i])
					}
				}
			}
			for _, c := range []struct {
				name      string
				run, twin func([]float32, []uint16)
			}{{"f16", s.f16ToF32, f16ToF32Generic}, {"bf16", s.bf16ToF32, bf16ToF32Generic}} {
				got, want := make([]float32, len(h)), make([]float32, len(h))
				c.run(got, h)
				c.twin(want, h)
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %s(%#04x) = %v, twin %v", s.name, c.name, h[i], got[i], want[i])
					}
				}
			}
		}
	})
}
