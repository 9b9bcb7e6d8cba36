package cpu

import (
	"sync"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// lseWidth is the lane block width of a log-sum-exp over a non-last axis:
// 1 KiB (float32) steps, and its lane arrays fit L1.
const lseWidth = 256

// lseCall is a LogSumExp in flight; pooled so that calls allocate nothing.
type lseCall struct {
	l       spec.Layout
	scale   float32
	scale64 float64
	dst, x  Buf
	blocks  int // lane blocks per outer index (Inner > 1)
	wg      sync.WaitGroup
}

var lseCalls = sync.Pool{New: func() any { return new(lseCall) }}

// LogSumExp writes log Σ_j exp(scale·x_j) along the layout's axis into dst,
// which holds l.Slices() elements (outer-major, then inner) of x's dtype.
// A slice of −inf gives −inf; a NaN or +inf in a slice gives NaN.
func LogSumExp(l spec.Layout, scale float64, dst, x Buf) {
	if l.Empty() {
		return
	}
	c := lseCalls.Get().(*lseCall)
	*c = lseCall{l: l, scale: float32(scale), scale64: scale, dst: dst, x: x}
	defer func() {
		c.dst, c.x = Buf{}, Buf{}
		lseCalls.Put(c)
	}()
	tasks := l.Outer
	if l.Inner > 1 {
		c.blocks = (l.Inner + lseWidth - 1) / lseWidth
		tasks = l.Outer * c.blocks
	}
	// One worker per minWorkBytes read, as Forward.
	parallel(c, min(threads(), tasks, max(1, l.Len()*x.DType.Size()/minWorkBytes)), &c.wg)
}

func (c *lseCall) run(i, parts int, s *scratch) {
	tasks := c.l.Outer
	if c.l.Inner > 1 {
		tasks *= c.blocks
	}
	lo, hi := share(tasks, i, parts)
	for t := lo; t < hi; t++ {
		switch {
		case c.l.Inner > 1 && c.x.DType == spec.Float64:
			c.lanes64(t, s)
		case c.l.Inner > 1:
			c.lanes32(t, s)
		case c.x.DType == spec.Float64:
			c.store(t, c.row64(t*c.l.Axis, s))
		default:
			p := statsChunked(c.x, t*c.l.Axis, c.l.Axis, c.scale, s)
			c.store(t, rowLSE(p.m, p.d))
		}
	}
}

// row64 is the log-sum-exp of the Float64 row at off.
func (c *lseCall) row64(off int, s *scratch) float64 {
	x := c.x.F64[off : off+c.l.Axis]
	m := vec.Max64(x, c.scale64)
	e := grow64(&s.a64, chunk)
	var d ksum
	for k := 0; k < len(x); k += chunk {
		hi := min(k+chunk, len(x))
		d.add(vec.ExpSum64(e[:hi-k], x[k:hi], nil, c.scale64, m))
	}
	return rowLSE(m, d.value())
}

// lanes32 does lane block t: a max pass over the axis, then an exp pass.
func (c *lseCall) lanes32(t int, s *scratch) {
	o, b := t/c.blocks, t%c.blocks
	i0 := b * lseWidth
	w := min(lseWidth, c.l.Inner-i0)
	base := o*c.l.Axis*c.l.Inner + i0
	m, d := grow32(&s.lm, w), grow32(&s.f, w)
	tmp := grow32(&s.a, w)
	for i := range m {
		m[i], d[i] = vec.NegInf, 0
	}
	for j := 0; j < c.l.Axis; j++ {
		vec.MaxLanes(m, c.x.load(tmp, base+j*c.l.Inner, w), c.scale)
	}
	for j := 0; j < c.l.Axis; j++ {
		vec.ExpAddLanes(d, c.x.load(tmp, base+j*c.l.Inner, w), m, nil, c.scale)
	}
	for i := range m {
		c.store(o*c.l.Inner+i0+i, rowLSE(float64(m[i]), float64(d[i])))
	}
}

// lanes64 is lanes32 for Float64.
func (c *lseCall) lanes64(t int, s *scratch) {
	o, b := t/c.blocks, t%c.blocks
	i0 := b * lseWidth
	w := min(lseWidth, c.l.Inner-i0)
	base := o*c.l.Axis*c.l.Inner + i0
	m, d, e := grow64(&s.a64, w), grow64(&s.c64, w), grow64(&s.e64, w)
	for i := range m {
		m[i], d[i] = negInf, 0
	}
	for j := 0; j < c.l.Axis; j++ {
		at := base + j*c.l.Inner
		vec.MaxLanes64(m, c.x.F64[at:at+w], c.scale64)
	}
	for j := 0; j < c.l.Axis; j++ {
		at := base + j*c.l.Inner
		vec.ExpSumLanes64(e, d, c.x.F64[at:at+w], m, c.scale64)
	}
	for i := range m {
		c.store(o*c.l.Inner+i0+i, rowLSE(m[i], d[i]))
	}
}

// store writes one result in dst's dtype.
func (c *lseCall) store(i int, v float64) {
	switch c.dst.DType {
	case spec.Float64:
		c.dst.F64[i] = v
	case spec.Float32:
		c.dst.F32[i] = float32(v)
	case spec.Float16:
		c.dst.U16[i] = vec.FloatToHalf(float32(v))
	case spec.BFloat16:
		c.dst.U16[i] = vec.FloatToBF16(float32(v))
	}
}
