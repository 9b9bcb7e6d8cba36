package vec

import (
	"math"
	"math/rand"
	"testing"
)

// TestSoftcap checks Softcap's kernels against the twin (values around the
// polynomial's cut, ±0, ±inf, NaN, huge and denormal inputs, at every
// length to the masked tails): the same bits below the cut, within the
// vector exp's maxUlps of the twin's Exp carried through 1 − 2/(e+1) above
// it; the twin against float64 tanh; nothing outside the outputs written.
func TestSoftcap(t *testing.T) {
	inf := float32(math.Inf(1))
	forSets(t, func(t *testing.T, s *kernelSet) {
		r := rand.New(rand.NewSource(21))
		for _, capv := range []float32{30, 1, 0.5, 50} {
			cut := 0.625 * capv
			edges := []float32{0, float32(math.Copysign(0, -1)), inf, -inf, float32(math.NaN()), 1e30, -1e30, 1e-40, -1e-40,
				cut, -cut, math.Nextafter32(cut, 0), math.Nextafter32(-cut, 0), math.Nextafter32(cut, inf), math.Nextafter32(-cut, -inf),
				40 * capv, -40 * capv, 9 * capv, -9 * capv}
			for _, n := range append(testLengths(), 4096) {
				x := input(t, n, func(i int) float32 {
					if r.Intn(4) == 0 {
						return edges[r.Intn(len(edges))]
					}
					return float32(r.NormFloat64() * float64(capv) * []float64{0.1, 0.7, 3}[i%3])
				})
				dst, dz := newOutput(t, n), newOutput(t, n)
				s.softcap(dst.guard, dz.guard, x, capv, 1/capv, 2/capv)
				s.softcap(dst.mid, dz.mid, x, capv, 1/capv, 2/capv)
				dst.checkNeighbours(t)
				dz.checkNeighbours(t)
				want, wz := make([]float32, n), make([]float32, n)
				softcapGeneric(want, wz, x, capv, 1/capv, 2/capv)
				for i := range want {
					tol, ztol := int64(0), 0.0
					if y := float32(x[i] * (1 / capv)); !(y > -0.625 && y < 0.625) { // the exp's branch
						// dy = 2e/(e+1)²·de ≤ de/2 relative: y moves an ulp or
						// two; 1 − y² moves 2y·dy.
						tol, ztol = 2, 5e-7
					}
					if ulpsApart(dst.guard[i], want[i]) > tol || !closeTo(dz.guard[i], wz[i], 1, ztol) ||
						ulpsApart(dst.mid[i], dst.guard[i]) != 0 || ulpsApart(dz.mid[i], dz.guard[i]) != 0 {
						t.Fatalf("cap %v n=%d x[%d]=%v: (%v, %v), twin (%v, %v)", capv, n, i, x[i], dst.guard[i], dz.guard[i], want[i], wz[i])
					}
					th := math.Tanh(float64(x[i]) / float64(capv))
					if !closeTo(want[i], float32(float64(capv)*th), float64(capv), 4e-7) || !closeTo(wz[i], float32(1-th*th), 1, 1e-6) {
						t.Fatalf("cap %v x=%v: twin (%v, %v), float64 (%v, %v)", capv, x[i], want[i], wz[i], float64(capv)*th, 1-th*th)
					}
				}
			}
		}
	})
}
