package shard

import (
	"math"
	"math/rand/v2"
	"testing"
)

// problem is a set of rows: logits, targets, class weights (nil: none),
// label smoothing and z-loss.
type problem struct {
	x      [][]float64
	target []int
	w      []float64
	eps, z float64
}

// refLoss is the unsharded float64 reference: log-softmax of the whole row.
func refLoss(p problem, i int) float64 {
	x := p.x[i]
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	lse := m + math.Log(s)
	wt := 1.0
	if p.w != nil {
		wt = p.w[p.target[i]]
	}
	l := (1-p.eps)*wt*(lse-x[p.target[i]]) + p.z*lse*lse
	if p.eps != 0 {
		var sm float64
		for j, v := range x {
			wj := 1.0
			if p.w != nil {
				wj = p.w[j]
			}
			sm += wj * (lse - v)
		}
		l += p.eps / float64(len(x)) * sm
	}
	return l
}

// sharded runs every rank's Local, gathers and merges as each rank will.
func sharded(p problem, rs []Range, i int) Record {
	recs := make([]Record, len(rs))
	for r, s := range rs {
		var w []float64
		if p.w != nil {
			w = p.w[s.Lo:s.Hi]
		}
		recs[r] = Local(p.x[i][s.Lo:s.Hi], s.Lo, p.target[i], w)
	}
	return Merge(recs, Owner(rs, p.target[i]))
}

func randomRanges(rng *rand.Rand, v, p int) []Range {
	cuts := []int{0, v}
	for len(cuts) < p+1 {
		cuts = append(cuts, rng.IntN(v+1)) // empty shards allowed
	}
	for i := 1; i < len(cuts); i++ { // insertion sort
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	rs := make([]Range, p)
	for r := range rs {
		rs[r] = Range{cuts[r], cuts[r+1]}
	}
	return rs
}

func TestShardedMatchesUnsharded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, v = 24, 781
	for p := 1; p <= 8; p++ {
		for _, opts := range []struct {
			eps, z  float64
			weights bool
		}{{0, 0, false}, {0.1, 0, false}, {0, 1e-4, true}, {0.2, 1e-3, true}} {
			prob := problem{eps: opts.eps, z: opts.z}
			if opts.weights {
				prob.w = make([]float64, v)
				for j := range prob.w {
					prob.w[j] = 0.5 + rng.Float64()
				}
			}
			rs := randomRanges(rng, v, p)
			if err := Check(rs, v); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < rows; i++ {
				x := make([]float64, v)
				for j := range x {
					x[j] = 8 * rng.NormFloat64()
				}
				if i%5 == 1 && p > 1 && opts.eps == 0 { // a shard of −inf (masked vocabulary)
					s := rs[rng.IntN(p)]
					for j := s.Lo; j < s.Hi; j++ {
						x[j] = math.Inf(-1)
					}
				}
				prob.x = append(prob.x, x)
				tg := rng.IntN(v)
				for math.IsInf(x[tg], -1) {
					tg = rng.IntN(v)
				}
				prob.target = append(prob.target, tg)
				i := len(prob.x) - 1
				g := sharded(prob, rs, i)
				wt := 1.0
				if prob.w != nil {
					wt = prob.w[tg]
				}
				got, want := g.Loss(prob.eps, wt, v, prob.z), refLoss(prob, i)
				if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Fatalf("P=%d %+v row %d: loss %v, want %v", p, opts, i, got, want)
				}
			}
		}
	}
}

// TestGradFiniteDifference: the gradient from the merged log-sum-exp alone
// (class weights, smoothing and z-loss on) matches a central difference.
func TestGradFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const v = 13
	w := make([]float64, v)
	for j := range w {
		w[j] = 0.5 + rng.Float64()
	}
	x := make([]float64, v)
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	const tg, eps, z, gout = 4, 0.1, 1e-2, 0.7
	var wsum float64
	for _, wj := range w {
		wsum += wj
	}
	loss := func(x []float64) float64 {
		p := problem{x: [][]float64{x}, target: []int{tg}, w: w, eps: eps, z: z}
		return refLoss(p, 0)
	}
	g := sharded(problem{x: [][]float64{x}, target: []int{tg}, w: w, eps: eps, z: z}, []Range{{0, 6}, {6, v}}, 0)
	for j := range x {
		h := 1e-6
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		fd := gout * (loss(xp) - loss(xm)) / (2 * h)
		got := Grad(x[j], g.LSE(), j == tg, w[j], w[tg], wsum, eps, v, z, gout)
		if math.Abs(got-fd) > 1e-6 {
			t.Errorf("column %d: grad %v, finite difference %v", j, got, fd)
		}
	}
}

func TestMergeEdgeValues(t *testing.T) {
	inf := math.Inf(1)
	allMasked := Merge([]Record{Local([]float64{-inf, -inf}, 0, 0, nil), Local(nil, 2, 0, nil)}, 0)
	if !math.IsInf(allMasked.LSE(), -1) {
		t.Errorf("all −inf row: lse %v, want −inf", allMasked.LSE())
	}
	for _, bad := range []float64{math.NaN(), inf} {
		g := Merge([]Record{Local([]float64{1, 2}, 0, 0, nil), Local([]float64{bad, 0}, 2, 0, nil)}, 0)
		if l := g.Loss(0, 1, 4, 0); !math.IsNaN(l) {
			t.Errorf("row with %v: loss %v, want NaN", bad, l)
		}
	}
}

func TestRanges(t *testing.T) {
	rs, err := Even(10, 4)
	if err != nil || Check(rs, 10) != nil || rs[3] != (Range{9, 10}) {
		t.Errorf("Even(10, 4) = %v, %v", rs, err)
	}
	rs, _ = Even(3, 8) // more ranks than columns: trailing ranks own nothing
	if Check(rs, 3) != nil || rs[7] != (Range{3, 3}) {
		t.Errorf("Even(3, 8) = %v", rs)
	}
	if Check([]Range{{0, 4}, {5, 9}}, 9) == nil || Check([]Range{{0, 4}}, 9) == nil {
		t.Error("Check accepted a gap or a short cover")
	}
	if _, err := Even(0, 2); err == nil {
		t.Error("Even(0, 2) accepted")
	}
	if Owner(rs, 2) != 2 || Owner(rs, 3) != -1 {
		t.Errorf("Owner(2) = %d, Owner(3) = %d", Owner(rs, 2), Owner(rs, 3))
	}
}
