package cpu

import (
	"math"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// The Float64 passes: the schedules of rows.go, stats.go and strided.go on
// float64 storage with float64 arithmetic. Nothing is converted, so a pass
// reads the tensor in place; sums are float64 throughout, their chunks
// merged with compensated (Neumaier) additions so that a long slice keeps
// the 1e-13 accuracy the float64 contract promises.

// rowCache64 is rowCache in float64 elements: the same bytes of L2.
func rowCache64() int { return rowCache / 2 }

// run64 is run for Float64 tensors.
func (c *call) run64(i, parts int, s *scratch) {
	switch c.mode {
	case modeRows:
		lo, hi := share(c.l.Outer, i, parts)
		var pend pending64
		for r := lo; r < hi; r++ {
			c.row64(r*c.l.Axis, c.l.Axis, r+1 < hi, s, &pend)
		}
	case modeSplitStats:
		off, n := c.piece(i)
		c.partials[i] = c.stats64(off, n, s)
	case modeSplitWrite:
		first := i - i%c.rowParts
		p := c.partials[first]
		for k := first + 1; k < first+c.rowParts; k++ {
			p = p.mergeOrAdd(c.partials[k], c.op.Backward())
		}
		off, n := c.piece(i)
		c.write64(off, n, p, s)
	case modeStrided:
		tasks := c.l.Outer * c.blocks
		lo, hi := share(tasks, i, parts)
		for t := lo; t < hi; t++ {
			base, w := c.laneBlock(t)
			c.lanes64(base, w, s)
		}
	case modeAxisStats:
		base, w := c.laneBlock(i / c.axisParts)
		jlo, jhi := share(c.l.Axis, i%c.axisParts, c.axisParts)
		at := i * c.width
		c.lanesStats64(base, w, jlo, jhi, c.laneM64[at:at+w], c.laneD[at:at+w], s)
	case modeAxisWrite:
		base, w := c.laneBlock(i / c.axisParts)
		jlo, jhi := share(c.l.Axis, i%c.axisParts, c.axisParts)
		m, k := c.mergeLanes64(i-i%c.axisParts, w, s)
		c.lanesWrite64(base, w, jlo, jhi, m, k)
	}
}

// ksum is a compensated (Neumaier) sum.
type ksum struct{ s, c float64 }

func (k *ksum) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

// value returns the sum; a NaN or ±∞ term makes it NaN or ±∞, as a plain
// sum would (the compensation of an infinite sum is NaN and is dropped).
func (k ksum) value() float64 {
	if math.IsInf(k.s, 0) || math.IsNaN(k.s) {
		return k.s
	}
	return k.s + k.c
}

// row64 does one contiguous slice [off, off+n); more says whether the same
// goroutine does the next slice, which the exp pass prefetches; pend
// carries a normalization that rowCached64 leaves to the next slice.
func (c *call) row64(off, n int, more bool, s *scratch, pend *pending64) {
	if n <= rowCache64() && !c.op.Backward() {
		c.rowCached64(off, n, more, s, pend)
		return
	}
	c.write64(off, n, c.stats64(off, n, s), s)
}

// pending64 is pending for Float64: a slice's exps e, to be normalized by
// mul into dst at off during the next slice's exp pass.
type pending64 struct {
	off int
	e   []float64 // nil: nothing pending
	mul float64
}

// rowCached64 is rowCached for Float64: a max pass, a pass that stores the
// exps to scratch and sums them (prefetching the next slice and, for
// streamed output, writing the previous slice's: vec.ExpSumFlush64), and a
// pass that normalizes them into dst, so memory sees one read of x and one
// write of y, and writes while the core computes exps.
func (c *call) rowCached64(off, n int, more bool, s *scratch, pend *pending64) {
	x := c.x.F64[off : off+n]
	m := vec.Max64(x, c.scale64)
	// Two exp buffers: one may be pending.
	e := grow64(&s.a64, n)
	if pend.e != nil && &pend.e[0] == &e[0] {
		e = grow64(&s.b64, n)
	}
	var d ksum
	for k := 0; k < n; k += chunk {
		cn := min(chunk, n-k)
		var next []float64
		if more {
			next = c.x.F64[off+n+k : off+n+k+cn]
		}
		if hi := min(k+cn, len(pend.e)); k < hi {
			d.add(vec.ExpSumFlush64(e[k:k+cn], x[k:k+cn], next, c.scale64, m,
				c.dst.F64[pend.off+k:pend.off+hi], pend.e[k:hi], pend.mul))
		} else {
			d.add(vec.ExpSum64(e[k:k+cn], x[k:k+cn], next, c.scale64, m))
		}
	}
	if pend.e != nil {
		if n < len(pend.e) {
			vec.NormalizeStream64(c.dst.F64[pend.off+n:pend.off+len(pend.e)], pend.e[n:], pend.mul)
		}
		pend.e = nil
	}
	// m = −∞ (a slice of −∞) makes the exps, d and so every output NaN,
	// as required.
	dst := c.dst.F64[off : off+n]
	if c.op == spec.LogSoftmax {
		logd := math.Log(d.value())
		if c.stream {
			vec.LogNormStream64(dst, x, c.scale64, m, logd)
		} else {
			vec.LogNorm64(dst, x, c.scale64, m, logd)
		}
		return
	}
	mul := 1 / d.value()
	switch {
	case c.stream && more:
		*pend = pending64{off: off, e: e, mul: mul}
	case c.stream:
		vec.NormalizeStream64(dst, e, mul)
	default:
		vec.Normalize64(dst, e, mul)
	}
}

// stats64 is the first pass over [off, off+n): the online pair (forward)
// or the gradient sum in d (backward), chunk by chunk.
func (c *call) stats64(off, n int, s *scratch) pair {
	if c.op.Backward() {
		var total ksum
		y, dy := c.x.F64, c.dy.F64
		for k := off; k < off+n; k += chunk {
			hi := min(k+chunk, off+n)
			if c.op == spec.LogSoftmaxBackward {
				total.add(vec.Sum64(dy[k:hi]))
			} else {
				total.add(vec.Dot64(y[k:hi], dy[k:hi]))
			}
		}
		return pair{d: total.value()}
	}
	// Each chunk's (max, sum) is folded into the running pair; the sums of
	// chunks under the same max are added with compensation.
	e := grow64(&s.a64, chunk)
	m, d := negInf, ksum{}
	for k := off; k < off+n; k += chunk {
		hi := min(k+chunk, off+n)
		x := c.x.F64[k:hi]
		cm := vec.Max64(x, c.scale64)
		if cm == negInf {
			continue // all −∞: adds nothing (its exps would be NaN)
		}
		if cm > m || math.IsNaN(cm) {
			if m != negInf {
				f := math.Exp(m - cm)
				d = ksum{s: d.s * f, c: d.c * f}
			}
			m = cm
		}
		var next []float64
		if k2 := hi + chunk; k2 < off+n {
			next = c.x.F64[k2:min(k2+chunk, off+n)]
		}
		d.add(vec.ExpSum64(e[:hi-k], x, next, c.scale64, m))
	}
	return pair{m: m, d: d.value()}
}

// write64 is the second pass over [off, off+n) given the slice's pair.
func (c *call) write64(off, n int, p pair, s *scratch) {
	for k := off; k < off+n; k += chunk {
		hi := min(k+chunk, off+n)
		dst := c.dst.F64[k:hi]
		switch {
		case c.op == spec.SoftmaxBackward:
			vec.SoftmaxGrad64(dst, c.x.F64[k:hi], c.dy.F64[k:hi], p.d)
			c.scaleGrad64(dst)
		case c.op == spec.LogSoftmaxBackward:
			vec.LogSoftmaxGrad64(dst, c.x.F64[k:hi], c.dy.F64[k:hi], p.d)
			c.scaleGrad64(dst)
		case c.op == spec.LogSoftmax && c.stream:
			vec.LogNormStream64(dst, c.x.F64[k:hi], c.scale64, p.m, math.Log(p.d))
		case c.op == spec.LogSoftmax:
			vec.LogNorm64(dst, c.x.F64[k:hi], c.scale64, p.m, math.Log(p.d))
		case c.stream:
			vec.ExpScaleStream64(dst, c.x.F64[k:hi], c.scale64, p.m, 1/p.d)
		default:
			vec.ExpScale64(dst, c.x.F64[k:hi], c.scale64, p.m, 1/p.d)
		}
	}
}

// scaleGrad64 is scaleGrad for Float64.
func (c *call) scaleGrad64(o []float64) {
	if c.scale64 != 1 {
		vec.Normalize64(o, o, c.scale64)
	}
}
