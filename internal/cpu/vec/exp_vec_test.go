package vec

import (
	"math"
	"testing"
)

// expVec is the vector exp of a kernel set: ExpScale with scale 1, offset
// 0 and factor 1 is exact apart from the exp itself.
func expVec(s *kernelSet, dst, x []float32) { s.expScale(dst, x, 1, 0, 1) }

// TestExpVecUlpSweep checks every set's exp within 2 ulp of float64 over a
// dense sweep of [−104, 89] (normal, denormal, zero and overflowing
// results).
func TestExpVecUlpSweep(t *testing.T) {
	var xs []float32
	for x := float32(-104); x < 89; x += 0.0001 {
		xs = append(xs, x)
	}
	forSets(t, func(t *testing.T, s *kernelSet) {
		got := make([]float32, len(xs))
		expVec(s, got, xs)
		worst, at := 0.0, float32(0)
		for i, x := range xs {
			want := math.Exp(float64(x))
			if x > expHi {
				if got[i] != inf {
					t.Fatalf("exp(%v) = %v, want +Inf", x, got[i])
				}
				continue
			}
			if d := ulpDiff(got[i], want); d > worst {
				worst, at = d, x
			}
		}
		if worst > 2 {
			t.Fatalf("exp off by %.2f ulp at %v", worst, at)
		}
		t.Logf("worst %.3f ulp at %v", worst, at)
	})
}

// TestExpVecEdges checks special inputs and every float32 around the
// overflow and underflow thresholds against the scalar Exp.
func TestExpVecEdges(t *testing.T) {
	xs := []float32{
		float32(math.Inf(-1)), inf, nan, -nan, 0, float32(math.Copysign(0, -1)),
		denorm, -denorm, math.MaxFloat32, -math.MaxFloat32, 1e-30, -1e-30,
		expHi, expLo, -87.33654, -87.33655, 88.37626, 88.72283, -150, -1000, 1000,
	}
	for x := float32(expHi); x < 89.5; x = math.Nextafter32(x, 100) {
		xs = append(xs, x)
	}
	for x := float32(88.70); x < expHi; x = math.Nextafter32(x, 100) {
		xs = append(xs, x)
	}
	for x := float32(-110); x < -103; x = math.Nextafter32(x, 0) {
		xs = append(xs, x)
	}
	forSets(t, func(t *testing.T, s *kernelSet) {
		got := make([]float32, len(xs))
		expVec(s, got, xs)
		for i, x := range xs {
			want := Exp(x)
			switch {
			case isNaN32(want):
				if !isNaN32(got[i]) {
					t.Fatalf("exp(%v) = %v, want NaN", x, got[i])
				}
			case x > expHi || x < expLo:
				// The thresholds are exactly the scalar's: +Inf and 0.
				if math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("exp(%v) = %v, scalar %v", x, got[i], want)
				}
			case want == 0 || math.IsInf(float64(want), 0) || x < -87.33655:
				// Overflow and denormal results: at most one denormal ulp
				// apart (both round once).
				if ulpsApart(got[i], want) > 1 {
					t.Fatalf("exp(%v) = %v (%#x), scalar %v (%#x)", x, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
				}
			default:
				if d := ulpDiff(got[i], math.Exp(float64(x))); d > 2 {
					t.Fatalf("exp(%v) = %v, %.2f ulp off", x, got[i], d)
				}
			}
		}
	})
}
