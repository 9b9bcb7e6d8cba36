package vec

import (
	"math"
	"testing"
)

// TestExpScaleLanesStreamAhead: the prefetching stream kernel writes what
// its set's ExpScaleLanes writes, bit for bit, and so within maxUlps of the
// pure-Go twin, at every misalignment and length, whatever next it is given.
func TestExpScaleLanesStreamAhead(t *testing.T) {
	defer findSet(impl).install()
	for _, s := range sets {
		s.install()
		for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 65, 200, 1031} {
			for _, lead := range []int{0, 1, 3} {
				x := benchFloats(n+lead, -30, 30)[lead:]
				m := benchFloats(n+lead, -5, 5)[lead:]
				k := benchFloats(n+lead, 0.5, 2)[lead:]
				next := benchFloats(2*n+7, -1, 1)
				got := make([]float32, n+lead)[lead:]
				want, twin := make([]float32, n), make([]float32, n)
				ExpScaleLanesStreamAhead(got, x, m, k, next, 0.7)
				Fence()
				s.expScaleLanes(want, x, m, k, 0.7)
				expScaleLanesGeneric(twin, x, m, k, 0.7)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) || ulpsApart(got[i], twin[i]) > maxUlps {
						t.Fatalf("%s n=%d lead=%d: [%d] = %v, want %v (twin %v)", s.name, n, lead, i, got[i], want[i], twin[i])
					}
				}
			}
		}
	}
}
