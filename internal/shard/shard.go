// Package shard holds the arithmetic of softmax and cross-entropy over a
// class axis split across ranks (tensor-parallel vocabularies): what each
// rank computes over its own columns, the per-row record the ranks
// exchange in one collective, and how every rank merges the records into
// the row's global statistics. It is pure Go, used as the CPU model the
// GPU kernels and the NCCL exchange are tested against.
//
// Rank r owns the columns [Lo_r, Hi_r) of every row. A row's record over
// those columns is (Max, Sum, Target, Dot): the largest scaled logit, the
// sum of exp(logit − Max), the target's logit when r owns the target, and
// Σ w_j·logit_j for label smoothing (w_j = 1 without class weights). Max and
// Sum merge as the online softmax does; Target comes from its owner; Dot
// adds. One all-gather of the records (or two all-reduces: max, then the
// rescaled sums) gives every rank the row's log-sum-exp, so the forward
// needs one collective and the cross-entropy gradient none.
package shard

import (
	"fmt"
	"math"
)

// Range is the half-open column range [Lo, Hi) a rank owns.
type Range struct{ Lo, Hi int }

// Even splits v columns over p ranks as torch's vocab-parallel layers do:
// ceil(v/p) columns each, the last ranks taking what is left (possibly
// none).
func Even(v, p int) ([]Range, error) {
	if v < 1 || p < 1 {
		return nil, fmt.Errorf("shard: %d columns over %d ranks", v, p)
	}
	w := (v + p - 1) / p
	out := make([]Range, p)
	for r := range out {
		lo, hi := min(r*w, v), min((r+1)*w, v)
		out[r] = Range{lo, hi}
	}
	return out, nil
}

// Check reports whether the ranges tile [0, v) in rank order.
func Check(rs []Range, v int) error {
	at := 0
	for r, s := range rs {
		if s.Lo != at || s.Hi < s.Lo {
			return fmt.Errorf("shard: rank %d owns [%d, %d), want it to start at %d", r, s.Lo, s.Hi, at)
		}
		at = s.Hi
	}
	if at != v {
		return fmt.Errorf("shard: ranks cover [0, %d) of %d columns", at, v)
	}
	return nil
}

// Record is one row's statistics over one rank's columns.
type Record struct {
	Max    float64 // max of the scaled logits (−inf when none or all −inf)
	Sum    float64 // Σ exp(logit − Max); 0 when Max is −inf
	Target float64 // the target's scaled logit, when the rank owns it
	Dot    float64 // Σ w_j·logit_j (label smoothing)
	Weight float64 // Σ w_j (label smoothing with class weights)
}

// Local computes a rank's record of one row: x holds the rank's columns
// (already scaled), lo is the global index of x[0], target the row's global
// class id, w the class weights of those columns (nil: all 1).
func Local(x []float64, lo, target int, w []float64) Record {
	r := Record{Max: math.Inf(-1)}
	for _, v := range x {
		if v > r.Max || math.IsNaN(v) {
			r.Max = v
		}
	}
	for j, v := range x {
		wj := 1.0
		if w != nil {
			wj = w[j]
		}
		if !math.IsInf(r.Max, -1) {
			r.Sum += math.Exp(v - r.Max)
		}
		r.Dot += wj * v // −inf logits make the smoothing term +inf, as in torch
		r.Weight += wj
		if lo+j == target {
			r.Target = v
		}
	}
	return r
}

// Merge combines the records of all ranks of one row (rank order) into the
// row's global Max and Sum, the target's logit (from owner, −1 when no rank
// owns it) and the summed Dot and Weight.
func Merge(recs []Record, owner int) Record {
	g := Record{Max: math.Inf(-1)}
	for _, r := range recs {
		if r.Max > g.Max || math.IsNaN(r.Max) {
			g.Max = r.Max
		}
	}
	for _, r := range recs {
		if !math.IsInf(r.Max, -1) {
			g.Sum += r.Sum * math.Exp(r.Max-g.Max)
		}
		g.Dot += r.Dot
		g.Weight += r.Weight
	}
	if owner >= 0 {
		g.Target = recs[owner].Target
	}
	return g
}

// LSE is the row's log-sum-exp from its merged record (−inf for a row of
// −inf logits; NaN when a logit was NaN or +inf).
func (g Record) LSE() float64 {
	if math.IsInf(g.Max, 1) {
		return math.NaN()
	}
	return g.Max + math.Log(g.Sum)
}

// Owner returns the rank whose range holds column c, or −1.
func Owner(rs []Range, c int) int {
	for r, s := range rs {
		if c >= s.Lo && c < s.Hi {
			return r
		}
	}
	return -1
}

// Loss is torch's cross-entropy of one non-ignored row from its merged
// record: (1−ε)·w_t·(lse − x_t) + ε/V·(lse·W − Dot) + z·lse², where w_t is
// the target's weight (1 without weights), W = Σ w_j, ε the label smoothing,
// v the number of classes and z the z-loss coefficient.
func (g Record) Loss(eps, wt float64, v int, z float64) float64 {
	lse := g.LSE()
	l := (1-eps)*wt*(lse-g.Target) + z*lse*lse
	if eps != 0 {
		l += eps / float64(v) * (lse*g.Weight - g.Dot)
	}
	return l
}

// Grad is d loss / d x_j of one column of a non-ignored row, from the row's
// log-sum-exp alone (no exchange in the backward): with p_j = exp(x_j − lse),
// (1−ε)·w_t·(p_j − [j = t]) + ε/V·(W·p_j − w_j) + 2z·lse·p_j, times gout.
func Grad(x, lse float64, isTarget bool, wj, wt, wsum, eps float64, v int, z, gout float64) float64 {
	p := math.Exp(x - lse)
	d := p
	if isTarget {
		d -= 1
	}
	g := (1-eps)*wt*d + 2*z*lse*p
	if eps != 0 {
		g += eps / float64(v) * (wsum*p - wj)
	}
	return gout * g
}
