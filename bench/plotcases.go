package bench

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file decides what the plot shows (pure functions, tested without
// drawing): the cases of a run, the series each carries, and the panels
// the cases land in.

// Names of the plot's series that are not peers.
const (
	pickSeries = "ours (auto)" // the planner's pick
	copySeries = "copy"        // the same-run copy of the same bytes
	// strategyPrefix names a strategy timed beside the pick ("forced block_reg").
	strategyPrefix = "forced "
	// maxStrategyLines is how many strategies other than the pick a run may
	// time and still get one series each; a run of every strategy (--algo
	// all) shows the pick alone, as the table marks it.
	maxStrategyLines = 4
	// minSweep is the fewest cases that make a sweep (a line chart).
	minSweep = 3
	// maxDotCases is the most cases in one copy-ratio panel.
	maxDotCases = 16
)

// plotCase is one case of a run as the plot sees it.
type plotCase struct {
	Shape  []int
	DType  string
	Axis   int // counted from the front
	Op     string
	Offset int
	Bytes  int64   // the op's minimum traffic
	CopyUS float64 // the same-run copy's median, 0 if none
	// Times holds each series' median µs on this case: the pick, the
	// strategies drawn beside it, the peers.
	Times map[string]float64
}

// key identifies the case (peerKey's fields).
func (c plotCase) key() string { return peerKey(c.Shape, c.DType, c.Axis, c.Op, c.Offset) }

// family is what the cases of a sweep share besides all dimensions but one.
func (c plotCase) family() string {
	return c.DType + "|" + c.Op + "|" + strconv.Itoa(len(c.Shape)) + "|" + strconv.Itoa(c.Axis) + "|" + strconv.Itoa(c.Offset)
}

// label names the case on a copy-ratio panel: "4096×65536 f32 axis 0",
// "128×32000 f32 log_softmax", "4096×4096 f16 +1" (offset).
func (c plotCase) label() string {
	s := shapeLabel(c.Shape, -1) + " " + c.DType
	if c.Axis != len(c.Shape)-1 {
		s += " axis " + strconv.Itoa(c.Axis)
	}
	if c.Op != "softmax" {
		s += " " + c.Op
	}
	if c.Offset != 0 {
		s += " +" + strconv.Itoa(c.Offset)
	}
	return s
}

// shapeLabel writes a shape with × between dimensions, dimension vary as N.
func shapeLabel(shape []int, vary int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		if i == vary {
			parts[i] = "N"
		} else {
			parts[i] = strconv.Itoa(d)
		}
	}
	return strings.Join(parts, "×")
}

// gbps returns the series' rate on the case in GB/s (0 if it has no time).
func (c plotCase) gbps(series string) float64 {
	us := c.CopyUS
	if series != copySeries {
		us = c.Times[series]
	}
	return rate(c.Bytes, us)
}

// ratio returns t(copy)/t(series) on the case (0 without either time).
func (c plotCase) ratio(series string) float64 {
	us := c.Times[series]
	if us <= 0 || c.CopyUS <= 0 {
		return 0
	}
	return c.CopyUS / us
}

// plotCases gathers the run's records into cases, in the order of their
// first record, and returns them with the series to draw: the pick, the
// other strategies when the run timed at most maxStrategyLines of them
// (or some case lacks a pick, as a run of forced strategies does), the
// peers, and the copy. Failed timings are left out.
func plotCases(recs []Record) ([]plotCase, []string) {
	var cases []plotCase
	index := map[string]int{}
	others := map[string]bool{}
	picked := map[string]bool{}
	peers := map[string]bool{}
	haveCopy := false
	for _, r := range recs {
		if r.US <= 0 {
			continue
		}
		c := plotCase{Shape: slices.Clone(r.Shape), DType: r.DType, Axis: r.Axis, Op: r.Op, Offset: r.Offset, Bytes: r.Bytes}
		if c.Axis < 0 {
			c.Axis += len(c.Shape)
		}
		k := c.key()
		i, ok := index[k]
		if !ok {
			i = len(cases)
			index[k] = i
			c.Times = map[string]float64{}
			cases = append(cases, c)
		}
		pc := &cases[i]
		if pc.CopyUS <= 0 && r.CopyUS > 0 {
			pc.CopyUS = r.CopyUS
			haveCopy = true
		}
		if r.IsChosen {
			pc.Times[pickSeries] = r.US
			picked[k] = true
		} else {
			pc.Times[strategyPrefix+r.Algo] = r.US
			others[r.Algo] = true
		}
		for p, us := range r.Peers {
			if us > 0 {
				pc.Times[p] = us
				peers[p] = true
			}
		}
	}
	showOthers := len(others) <= maxStrategyLines || len(picked) < len(cases)
	var series []string
	if len(picked) > 0 {
		series = append(series, pickSeries)
	}
	if showOthers {
		series = append(series, prefixed(sortedKeys(others))...)
	} else {
		for i := range cases {
			for s := range cases[i].Times {
				if strings.HasPrefix(s, strategyPrefix) {
					delete(cases[i].Times, s)
				}
			}
		}
	}
	series = append(series, orderPeers(sortedKeys(peers))...)
	if haveCopy {
		series = append(series, copySeries)
	}
	return cases, series
}

func prefixed(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strategyPrefix + n
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// knownPeers is the order peers take in the legend; others follow by name.
var knownPeers = []string{TorchPeer, "torch.compile", "triton", "cudnn", "jax"}

func orderPeers(names []string) []string {
	rank := func(n string) int {
		if i := slices.Index(knownPeers, n); i >= 0 {
			return i
		}
		return len(knownPeers)
	}
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
	return names
}

// panel is one chart of the figure: a sweep (cases differing in dimension
// Dim alone, drawn as GB/s against it) or a set of cases drawn as copy
// ratios side by side.
type panel struct {
	Sweep bool
	Dim   int   // the dimension a sweep varies
	Cases []int // indices into the cases: a sweep's by Dim, others in run order
}

// title returns the panel's title: a sweep's shape with N for the
// dimension it varies ("4096×N f32 softmax"), or what a copy-ratio panel
// holds.
func (p panel) title(cases []plotCase) string {
	if !p.Sweep {
		return "copy ratio by case"
	}
	c := cases[p.Cases[0]]
	s := shapeLabel(c.Shape, p.Dim) + " " + c.DType + " " + c.Op
	if c.Axis != len(c.Shape)-1 {
		s += ", axis " + strconv.Itoa(c.Axis)
	}
	if c.Offset != 0 {
		s += ", offset " + strconv.Itoa(c.Offset)
	}
	return s
}

// xLabel names a sweep's dimension: columns (the last), rows (the first of
// two), else its index; and says when it is the softmax axis of a non-last
// axis.
func (p panel) xLabel(cases []plotCase) string {
	c := cases[p.Cases[0]]
	rank := len(c.Shape)
	name := "dimension " + strconv.Itoa(p.Dim)
	switch {
	case p.Dim == rank-1:
		name = "columns"
	case rank == 2:
		name = "rows"
	}
	if p.Dim == c.Axis && c.Axis != rank-1 {
		name += ", the softmax axis"
	}
	return "N (" + name + ")"
}

// groupPanels places every case in exactly one panel. Sweeps come first:
// repeatedly the largest set of at least minSweep cases of one family
// (dtype, op, rank, axis, offset) whose shapes differ in one dimension
// alone (ties: the set whose first case comes first), sorted by that
// dimension. The cases left over fill copy-ratio panels of at most
// maxDotCases cases each, in run order.
func groupPanels(cases []plotCase) []panel {
	free := make([]bool, len(cases))
	for i := range free {
		free[i] = true
	}
	var panels []panel
	for {
		best := panel{Sweep: true}
		for _, s := range sweepCandidates(cases, free) {
			if better(s, best.Cases) {
				best.Dim, best.Cases = s.dim, s.cases
			}
		}
		if len(best.Cases) < minSweep {
			break
		}
		d := best.Dim
		sort.SliceStable(best.Cases, func(i, j int) bool {
			return cases[best.Cases[i]].Shape[d] < cases[best.Cases[j]].Shape[d]
		})
		for _, i := range best.Cases {
			free[i] = false
		}
		panels = append(panels, best)
	}
	// Sweeps in the order of their first case in the run.
	sort.SliceStable(panels, func(i, j int) bool { return slices.Min(panels[i].Cases) < slices.Min(panels[j].Cases) })
	var rest []int
	for i, f := range free {
		if f {
			rest = append(rest, i)
		}
	}
	for n := 0; n < len(rest); n += maxDotCases {
		panels = append(panels, panel{Cases: rest[n:min(n+maxDotCases, len(rest))]})
	}
	return panels
}

// sweepSet is a candidate sweep: free cases of one family sharing every
// dimension but dim.
type sweepSet struct {
	dim   int
	cases []int // in run order
}

// sweepCandidates lists the candidate sweeps among the free cases, in a
// fixed order (family and rest-of-shape of their first case, then dim).
func sweepCandidates(cases []plotCase, free []bool) []sweepSet {
	var out []sweepSet
	at := map[string]int{}
	for i, c := range cases {
		if !free[i] {
			continue
		}
		for d := range c.Shape {
			k := c.family() + "|" + strconv.Itoa(d) + "|" + shapeLabel(c.Shape, d)
			j, ok := at[k]
			if !ok {
				j = len(out)
				at[k] = j
				out = append(out, sweepSet{dim: d})
			}
			out[j].cases = append(out[j].cases, i)
		}
	}
	return out
}

// better reports whether a candidate beats the best so far: more cases,
// or as many with an earlier first case.
func better(s sweepSet, best []int) bool {
	if len(s.cases) != len(best) {
		return len(s.cases) > len(best)
	}
	return len(best) > 0 && s.cases[0] < best[0]
}
