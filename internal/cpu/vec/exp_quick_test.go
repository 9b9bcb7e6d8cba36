package vec

import (
	"math"
	"testing"
)

func ulpDiff(a float32, b float64) float64 {
	want := float32(b)
	if a == want {
		return 0
	}
	ulp := math.Abs(float64(math.Nextafter32(want, float32(math.Inf(1))) - want))
	if ulp == 0 || math.IsInf(ulp, 0) {
		ulp = math.Abs(float64(want - math.Nextafter32(want, 0)))
	}
	return math.Abs(float64(a)-b) / ulp
}

func TestExpUlpSweep(t *testing.T) {
	worst, at := 0.0, float32(0)
	for x := float32(-104); x < 89; x += 0.000731 {
		if d := ulpDiff(Exp(x), math.Exp(float64(x))); d > worst {
			worst, at = d, x
		}
	}
	if worst > 2 {
		t.Fatalf("Exp off by %.2f ulp at %g", worst, at)
	}
	t.Logf("worst %.3f ulp at %g", worst, at)
}
