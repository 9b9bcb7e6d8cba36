package cpu

import (
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// lanes does w side-by-side slices of a non-last axis whose first elements
// start at base: step j of lane i is at base + j·Inner + i. Each pass walks
// the axis reading w contiguous elements per step, so memory is streamed,
// not gathered.
func (c *call) lanes(base, w int, s *scratch) {
	if c.op.Backward() {
		c.gradLanes(base, w, s)
		return
	}
	A, I := c.l.Axis, c.l.Inner
	m64, d64 := grow64(&s.m, w), grow64(&s.s, w)
	for i := range m64 {
		m64[i], d64[i] = negInf, 0
	}
	bm, bd := grow32(&s.c, w), grow32(&s.d, w)
	tx := grow32(&s.a, w)
	for j0 := 0; j0 < A; j0 += axisBlock {
		for i := range bm {
			bm[i], bd[i] = vec.NegInf, 0
		}
		for j := j0; j < min(j0+axisBlock, A); j++ {
			vec.OnlineUpdate(bm, bd, c.x.load(tx, base+j*I, w), c.scale)
		}
		for i := range bm {
			p := pair{m64[i], d64[i]}.fold(bm[i], bd[i])
			m64[i], d64[i] = p.m, p.d
		}
	}
	// Reuse the block lanes for the write constants: m, and 1/d or log d.
	mm, k := bm, bd
	for i := range mm {
		m, mul, logd := forwardParams(pair{m64[i], d64[i]})
		mm[i], k[i] = m, mul
		if c.op == spec.LogSoftmax {
			k[i] = logd
		}
	}
	to := grow32(&s.b, w)
	for j := 0; j < A; j++ {
		off := base + j*I
		x := c.x.load(tx, off, w)
		o := c.dst.out(to, off, w)
		if c.op == spec.LogSoftmax {
			vec.LogOutLanes(o, x, mm, c.scale)
			vec.LogOutLanes(o, o, k, 1)
		} else {
			vec.ExpScaleLanes(o, x, mm, k, c.scale)
		}
		c.dst.commit(o, off)
	}
}

// gradLanes is lanes for the backward ops.
func (c *call) gradLanes(base, w int, s *scratch) {
	A, I := c.l.Axis, c.l.Inner
	logGrad := c.op == spec.LogSoftmaxBackward
	acc := grow64(&s.m, w)
	clear(acc)
	bacc := grow32(&s.c, w)
	ty, tdy := grow32(&s.a, w), grow32(&s.b, w)
	for j0 := 0; j0 < A; j0 += axisBlock {
		clear(bacc)
		for j := j0; j < min(j0+axisBlock, A); j++ {
			off := base + j*I
			dy := c.dy.load(tdy, off, w)
			if logGrad {
				vec.Add(bacc, dy)
			} else {
				vec.MulAdd(bacc, c.x.load(ty, off, w), dy)
			}
		}
		for i := range bacc {
			acc[i] += float64(bacc[i])
		}
	}
	sum := grow32(&s.d, w)
	for i := range sum {
		sum[i] = float32(acc[i])
	}
	to := grow32(&s.e, w)
	for j := 0; j < A; j++ {
		off := base + j*I
		y, dy := c.x.load(ty, off, w), c.dy.load(tdy, off, w)
		o := c.dst.out(to, off, w)
		if logGrad {
			vec.LogSoftmaxGradLanes(o, y, dy, sum)
		} else {
			vec.SoftmaxGradLanes(o, y, dy, sum)
		}
		c.dst.commit(o, off)
	}
}
