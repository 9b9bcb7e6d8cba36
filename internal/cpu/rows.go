package cpu

import (
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// row does one contiguous slice [off, off+n) start to finish.
func (c *call) row(off, n int, s *scratch) {
	if n <= chunk && !c.op.Backward() {
		// One chunk: load (convert) once and reuse it for the write.
		x := c.x.load(grow32(&s.a, chunk), off, n)
		m, d := vec.MaxSum(x, c.scale)
		c.writeChunk(x, off, emptyPair.fold(m, d), s)
		return
	}
	c.write(off, n, c.stats(off, n, s), s)
}

// stats is the first pass over [off, off+n): the online pair (forward) or
// the gradient sum in d (backward).
func (c *call) stats(off, n int, s *scratch) pair {
	if c.op.Backward() {
		return pair{d: gradSumChunked(c.op == spec.LogSoftmaxBackward, c.x, c.dy, off, n, s)}
	}
	return statsChunked(c.x, off, n, c.scale, s)
}

// write is the second pass over [off, off+n) given the slice's statistic.
func (c *call) write(off, n int, p pair, s *scratch) {
	tx := grow32(&s.a, chunk)
	for k := 0; k < n; k += chunk {
		cn := min(chunk, n-k)
		if c.op.Backward() {
			c.gradChunk(off+k, cn, float32(p.d), s)
			continue
		}
		c.writeChunk(c.x.load(tx, off+k, cn), off+k, p, s)
	}
}

// writeChunk writes the forward output of one loaded chunk x at off.
func (c *call) writeChunk(x []float32, off int, p pair, s *scratch) {
	m, mul, logd := forwardParams(p)
	o := c.dst.out(grow32(&s.b, chunk), off, len(x))
	if c.op == spec.LogSoftmax {
		vec.LogOut(o, x, c.scale, m)
		vec.LogOut(o, o, 1, logd)
	} else {
		vec.ExpScale(o, x, c.scale, m, mul)
	}
	c.dst.commit(o, off)
}

// gradChunk writes dx for [off, off+n) given the slice's gradient sum.
func (c *call) gradChunk(off, n int, sum float32, s *scratch) {
	y := c.x.load(grow32(&s.a, chunk), off, n)
	dy := c.dy.load(grow32(&s.b, chunk), off, n)
	o := c.dst.out(grow32(&s.c, chunk), off, n)
	if c.op == spec.LogSoftmaxBackward {
		vec.LogSoftmaxGrad(o, y, dy, sum)
	} else {
		vec.SoftmaxGrad(o, y, dy, sum)
	}
	c.dst.commit(o, off)
}
