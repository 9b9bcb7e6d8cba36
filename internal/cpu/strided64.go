package cpu

import (
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// The Float64 schedules of a non-last axis (strided.go's, in float64): w
// side-by-side lanes starting at base, step j of lane i at base + j·Inner +
// i, each pass reading w contiguous elements a step.

// lanes64 is lanes for Float64.
func (c *call) lanes64(base, w int, s *scratch) {
	switch {
	case c.op.Backward():
		c.gradLanes64(base, w, s)
	case c.slab:
		c.lanesCached64(base, w, s)
	default:
		m, d := grow64(&s.c64, w), grow64(&s.d64, w)
		c.lanesStats64(base, w, 0, c.l.Axis, m, d, s)
		c.lanesWrite64(base, w, 0, c.l.Axis, m, c.laneConsts64(grow64(&s.e64, w), d))
	}
}

// lanesStats64 sets m[i], d[i] to the max of scale·x and the sum of
// exp(scale·x − m) of lane i over axis steps [j0, j1), a block of steps
// that stays in L2 at a time: its max pass, then its exp-sum pass, then
// the block's sums folded into d, rescaled where the block raised the max.
func (c *call) lanesStats64(base, w, j0, j1 int, m, d []float64, s *scratch) {
	I := c.l.Inner
	R := max(1, blockBytes/(8*w))
	bm, ms, bd := grow64(&s.a64, w), grow64(&s.b64, w), grow64(&s.m, w)
	tmp := grow64(&s.s, w)
	for i := range m {
		m[i], d[i] = negInf, 0
	}
	for b0 := j0; b0 < j1; b0 += R {
		b1 := min(b0+R, j1)
		copy(bm, m)
		for j := b0; j < b1; j++ {
			vec.MaxLanes64(bm, c.x.F64[base+j*I:base+j*I+w], c.scale64)
		}
		// Exponent offsets: the block's running max, or 0 for lanes still
		// all −∞ (whose exps are then 0, not NaN).
		for i, v := range bm {
			ms[i] = v
			if v == negInf {
				ms[i] = 0
			}
		}
		clear(bd)
		for j := b0; j < b1; j++ {
			vec.ExpSumLanes64(tmp, bd, c.x.F64[base+j*I:base+j*I+w], ms, c.scale64)
		}
		// d = d·exp(m_old − m_new) + block sum (exp(−∞) = 0 while the lane
		// has seen only −∞; a +∞ max makes the factor NaN, as it must).
		for i := range d {
			if d[i] != 0 {
				d[i] *= vec.Exp64(m[i] - ms[i])
			}
			d[i] += bd[i]
		}
		copy(m, bm)
	}
}

// laneConsts64 sets k[i] to lane i's write factor for sum d[i] (1/d for
// softmax, log d for log-softmax) and returns k. The logs go a vector of
// lanes at a time: one math.Log a lane of a short axis took longer than
// its exps (4096×4×1024 f64 log_softmax on 2 cores: 240 ms, softmax 103).
func (c *call) laneConsts64(k, d []float64) []float64 {
	if c.op == spec.LogSoftmax {
		// d ≥ 1 (the max's own exp is 1), or NaN, or 0 for a lane of only
		// −∞, whose outputs are NaN whatever k is.
		vec.LogLanes64(k, d)
		return k
	}
	for i := range k {
		k[i] = 1 / d[i]
	}
	return k
}

// mergeLanes64 merges the axis parts' lane pairs of the lane block whose
// first item is first, and returns the block's lane maxima and write
// factors.
func (c *call) mergeLanes64(first, w int, s *scratch) (m, k []float64) {
	m, d := grow64(&s.c64, w), grow64(&s.d64, w)
	at := func(p int) int { return (first + p) * c.width }
	copy(m, c.laneM64[at(0):at(0)+w])
	for p := 1; p < c.axisParts; p++ {
		vec.MaxLanes64(m, c.laneM64[at(p):at(p)+w], 1)
	}
	clear(d)
	for p := 0; p < c.axisParts; p++ {
		mp, dp := c.laneM64[at(p):at(p)+w], c.laneD[at(p):at(p)+w]
		for i := range d {
			off := m[i]
			if off == negInf {
				off = 0
			}
			if dp[i] != 0 { // 0: a part of −∞ only (its max may be −∞ too)
				d[i] += dp[i] * vec.Exp64(mp[i]-off)
			}
		}
	}
	return m, c.laneConsts64(grow64(&s.e64, w), d)
}

// lanesWrite64 writes the forward output of axis steps [j0, j1) given the
// lane maxima m and factors k (laneConsts64).
func (c *call) lanesWrite64(base, w, j0, j1 int, m, k []float64) {
	I := c.l.Inner
	for j := j0; j < j1; j++ {
		off := base + j*I
		x, o := c.x.F64[off:off+w], c.dst.F64[off:off+w]
		if c.op == spec.LogSoftmax {
			vec.LogNormLanes64(o, x, m, k, c.scale64)
		} else {
			vec.ExpScaleLanes64(o, x, m, k, c.scale64)
		}
	}
}

// lanesCached64 is lanesCached for Float64: a max pass reads the block's
// Axis × w slab from memory, an exp pass stores the exps to scratch and
// sums them, and a normalizing pass writes dst from cache.
func (c *call) lanesCached64(base, w int, s *scratch) {
	A, I := c.l.Axis, c.l.Inner
	m := grow64(&s.c64, w)
	for i := range m {
		m[i] = negInf
	}
	for j := 0; j < A; j++ {
		vec.MaxLanes64(m, c.x.F64[base+j*I:base+j*I+w], c.scale64)
	}
	// A lane of −∞ (max −∞) gets NaN exps and so NaN outputs, as required.
	e, d := grow64(&s.b64, A*w), grow64(&s.d64, w)
	clear(d)
	for j := 0; j < A; j++ {
		vec.ExpSumLanes64(e[j*w:(j+1)*w], d, c.x.F64[base+j*I:base+j*I+w], m, c.scale64)
	}
	k := c.laneConsts64(grow64(&s.e64, w), d)
	for j := 0; j < A; j++ {
		off := base + j*I
		if c.op == spec.LogSoftmax {
			vec.LogNormLanes64(c.dst.F64[off:off+w], c.x.F64[off:off+w], m, k, c.scale64)
		} else {
			vec.NormalizeLanes64(c.dst.F64[off:off+w], e[j*w:(j+1)*w], k)
		}
	}
}

// gradLanes64 is lanes for the backward ops: the lanes' sums over the
// axis, then dx a step at a time.
func (c *call) gradLanes64(base, w int, s *scratch) {
	A, I := c.l.Axis, c.l.Inner
	logGrad := c.op == spec.LogSoftmaxBackward
	acc := grow64(&s.c64, w)
	clear(acc)
	for j := 0; j < A; j++ {
		off := base + j*I
		if logGrad {
			vec.Add64(acc, c.dy.F64[off:off+w])
		} else {
			vec.MulAdd64(acc, c.x.F64[off:off+w], c.dy.F64[off:off+w])
		}
	}
	for j := 0; j < A; j++ {
		off := base + j*I
		y, dy, o := c.x.F64[off:off+w], c.dy.F64[off:off+w], c.dst.F64[off:off+w]
		if logGrad {
			vec.LogSoftmaxGradLanes64(o, y, dy, acc)
		} else {
			vec.SoftmaxGradLanes64(o, y, dy, acc)
		}
		c.scaleGrad64(o)
	}
}
