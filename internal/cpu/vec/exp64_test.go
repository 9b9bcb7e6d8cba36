package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax/internal/ref"
)

// ulps64 returns |got − want| in ulps of want (denormal ulps below the
// normal range).
func ulps64(got, want float64) float64 {
	if got == want {
		return 0
	}
	u := math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want)
	return math.Abs(got-want) / u
}

// TestExp64AgainstBig: the scalar twin of the float64 vector exp is within
// 1 ulp of the correctly rounded e^x (math/big) on random arguments over
// the whole range, denormal results included.
func TestExp64AgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 64))
	worst, at := 0.0, 0.0
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for k := 0; k < n; k++ {
		var x float64
		switch k % 4 {
		case 0:
			x = rng.Float64()*1455 - 745 // everything
		case 1:
			x = rng.Float64()*30 - 745 // denormal results
		case 2:
			x = rng.NormFloat64() // near 0
		default:
			x = rng.Float64()*2 - 1 + 709 // near overflow
		}
		got, want := Exp64(x), ref.ExpBig(x)
		if math.IsInf(want, 1) {
			if !math.IsInf(got, 1) {
				t.Fatalf("Exp64(%v) = %v, want +Inf", x, got)
			}
			continue
		}
		if d := ulps64(got, want); d > worst {
			worst, at = d, x
		}
	}
	if worst > 1 {
		t.Fatalf("Exp64 off by %.3f ulp at %v", worst, at)
	}
	t.Logf("worst %.4f ulp at %v", worst, at)
}

// TestExp64Edges: special values and the cut-offs.
func TestExp64Edges(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct{ x, want float64 }{
		{math.Inf(-1), 0}, {inf, inf}, {-746, 0}, {-1e300, 0}, {1e300, inf},
		{710, inf}, {709.79, inf}, {0, 1}, {math.Copysign(0, -1), 1},
		{-745.13321910194122, 5e-324}, {-745.2, 0},
		{709.782712893384, 1.7976931348622732e+308}, {709.5, 1.3549863193146328e+308}, // math/big (Go's amd64 math.Exp overflows from 709.08)
	}
	for _, c := range cases {
		if got := Exp64(c.x); got != c.want && !(ulps64(got, c.want) <= 1 && c.want != 0 && !math.IsInf(c.want, 0)) {
			t.Errorf("Exp64(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Exp64(math.NaN())) {
		t.Error("Exp64(NaN) is not NaN")
	}
	for x := -1.0; x <= 1; x += 1.0 / 64 {
		if d := ulps64(Exp64(x), math.Exp(x)); d > 1 {
			t.Errorf("Exp64(%v) off math.Exp by %.2f ulp", x, d)
		}
	}
}
