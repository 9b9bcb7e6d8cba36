package bench

import (
	"math"
	"slices"
)

// Stats summarises per-rep times (seconds).
type Stats struct {
	Median, Min, Max, P10, P90 float64
	N                          int
}

// Summarize returns the statistics of the samples (seconds). An empty
// slice gives all NaN.
func Summarize(samples []float64) Stats {
	if len(samples) == 0 {
		nan := math.NaN()
		return Stats{nan, nan, nan, nan, nan, 0}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return Stats{
		Median: quantileSorted(s, 0.5),
		Min:    s[0],
		Max:    s[len(s)-1],
		P10:    quantileSorted(s, 0.1),
		P90:    quantileSorted(s, 0.9),
		N:      len(s),
	}
}

// Median returns the median of the samples: the middle value, or the mean
// of the two middle values for an even count. Empty gives NaN.
func Median(samples []float64) float64 { return Quantile(samples, 0.5) }

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of the samples with linear
// interpolation between closest ranks (NumPy's default method). Empty
// gives NaN.
func Quantile(samples []float64, q float64) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return quantileSorted(s, q)
}

func quantileSorted(s []float64, q float64) float64 {
	q = min(max(q, 0), 1)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	frac := pos - float64(lo)
	return s[lo] + (s[hi]-s[lo])*frac
}
