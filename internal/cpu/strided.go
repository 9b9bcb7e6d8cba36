package cpu

import (
	"math"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// lanes does w side-by-side slices of a non-last axis whose first elements
// start at base: step j of lane i is at base + j·Inner + i. Each pass walks
// the axis reading w contiguous elements per step, so memory is streamed,
// not gathered. next is the block the caller does after this one (w = 0:
// none), which a cached slab prefetches.
func (c *call) lanes(base, w int, next laneBlock, s *scratch) {
	switch {
	case c.op.Backward():
		c.gradLanes(base, w, s)
	case c.slab:
		c.lanesCached(base, w, next, s)
	default:
		c.lanesBlocked(base, w, s)
	}
}

// laneBlock is a lane block's first element and width.
type laneBlock struct{ base, w int }

// lanesBlocked is the forward schedule of a long axis: a stats pass and a
// write pass, each reading the input from memory once, in wide steps.
func (c *call) lanesBlocked(base, w int, s *scratch) {
	m, d := grow32(&s.lm, w), grow64(&s.ld, w)
	c.lanesStats(base, w, 0, c.l.Axis, m, d, s)
	c.lanesWrite(base, w, 0, c.l.Axis, m, c.writeConsts(m, d, s), s)
}

// lanesStats sets m[i], d[i] to the max of scale·x and the sum of
// exp(scale·x − m) (in float64) of lane i over axis steps [j0, j1). It goes
// through blocks of steps that stay in L2 between a max pass and a pass that
// sums the exps (and prefetches the next block), and folds each block's
// sums into d, rescaled where the block raised the max. The float32 sums
// are moved into float64 every axisBlock steps: narrow lane blocks have
// blocks of thousands of steps, and one float32 sum over them drifted by
// n·ulp (1500×40 axis 0: 1.5e-6, 3000×40: 2.7e-6 of the norm). The lane
// bookkeeping between blocks runs through the vector kernels but for one
// float64 loop: its scalar loops had been 6-10% of the CPU samples of
// 4096x4096 and 256x4096 f32 axis 0.
func (c *call) lanesStats(base, w, j0, j1 int, m []float32, d []float64, s *scratch) {
	I := c.l.Inner
	R := max(1, blockBytes/(4*w))
	tx := grow32(&s.a, w)
	bm, ms, bd := grow32(&s.c, w), grow32(&s.d, w), grow32(&s.e, w)
	bs := grow64(&s.s, w)
	f := grow32(&s.f, w)
	ones, floor := fill32(&s.ones, w, 1), fill32(&s.negMax, w, -math.MaxFloat32)
	for i := range m {
		m[i], d[i] = vec.NegInf, 0
	}
	for b0 := j0; b0 < j1; b0 += R {
		b1 := min(b0+R, j1)
		one := b1-b0 <= axisBlock // bd is the block's sum: no float64 merge
		copy(bm, m)
		for j := b0; j < b1; j++ {
			vec.MaxLanes(bm, c.x.load(tx, base+j*I, w), c.scale)
		}
		// The block's exponent offsets: its running max, or −MaxFloat32
		// for lanes still all −∞ (whose exps are then 0, not NaN).
		copy(ms, bm)
		vec.MaxLanes(ms, floor, 1)
		clear(bd)
		if !one {
			clear(bs)
		}
		for j := b0; j < b1; j++ {
			var next []float32
			if j+R < j1 {
				next = c.x.ahead(base+(j+R)*I, w)
			}
			vec.ExpAddLanes(bd, c.x.load(tx, base+j*I, w), ms, next, c.scale)
			if !one && ((j-b0+1)%axisBlock == 0 || j == b1-1) {
				for i, v := range bd {
					bs[i] += float64(v)
				}
				clear(bd)
			}
		}
		// d = d·exp(m_old − m_new) + block sum: exp(−∞) = 0 while the lane
		// has seen only −∞, and a +∞ max makes the factor NaN, as it must.
		vec.ExpScaleLanes(f, m, ms, ones, 1)
		if one {
			for i := range d {
				d[i] = d[i]*float64(f[i]) + float64(bd[i])
			}
		} else {
			for i := range d {
				d[i] = d[i]*float64(f[i]) + bs[i]
			}
		}
		copy(m, bm)
	}
}

// fill32 returns n elements of *v, all v: grown (and filled) on first use.
func fill32(v *[]float32, n int, val float32) []float32 {
	if len(*v) < n {
		*v = make([]float32, n)
		for i := range *v {
			(*v)[i] = val
		}
	}
	return (*v)[:n]
}

// writeConsts turns the lane pairs into lanesWrite's factors: 1/d for
// softmax, log d for log-softmax.
func (c *call) writeConsts(m []float32, d []float64, s *scratch) []float32 {
	k := grow32(&s.g, len(m))
	c.laneConsts(k, d)
	return k
}

// laneConsts sets k[i] to lane i's write factor for sum d[i]: 1/d for
// softmax, log d for log-softmax, each as forwardParams rounds it. Only the
// one the op needs is computed: on a short axis a lane has a few elements,
// and a math.Log per lane was half of softmax's time (4096×4×1024 f32 on 2
// cores: 32.8 ms, 1.3 s of samples 0.65 s in math.Log).
func (c *call) laneConsts(k []float32, d []float64) {
	if c.op == spec.LogSoftmax {
		for i := range k {
			k[i] = float32(math.Log(d[i]))
		}
		return
	}
	for i := range k {
		k[i] = float32(1 / d[i])
	}
}

// mergeLanes merges the axis parts' lane pairs of the lane block whose
// first item is first, and returns the block's lane maxima and write
// factors.
func (c *call) mergeLanes(first, w int, s *scratch) (m, k []float32) {
	m, ms, f, ones := grow32(&s.lm, w), grow32(&s.d, w), grow32(&s.f, w), fill32(&s.ones, w, 1)
	d := grow64(&s.ld, w)
	at := func(p int) int { return (first + p) * c.width }
	copy(m, c.laneM[at(0):at(0)+w])
	for p := 1; p < c.axisParts; p++ {
		vec.MaxLanes(m, c.laneM[at(p):at(p)+w], 1)
	}
	copy(ms, m)
	for i, v := range ms {
		if v == vec.NegInf {
			ms[i] = 0
		}
	}
	clear(d)
	for p := 0; p < c.axisParts; p++ {
		vec.ExpScaleLanes(f, c.laneM[at(p):at(p)+w], ms, ones, 1)
		dp := c.laneD[at(p) : at(p)+w]
		for i := range d {
			d[i] += dp[i] * float64(f[i])
		}
	}
	return m, c.writeConsts(m, d, s)
}

// writeAhead is how many axis steps ahead lanesWrite's streamed exps
// prefetch (4096x4096 f32 axis 0 on 2 cores: 8.4 to 7.5 ms; 4 to 16 alike).
const writeAhead = 8

// lanesWrite writes the forward output of axis steps [j0, j1) given the
// lane maxima m and factors k (writeConsts).
func (c *call) lanesWrite(base, w, j0, j1 int, m, k []float32, s *scratch) {
	for j := j0; j < j1; j++ {
		c.writeStep(base, w, j, j1, m, k, &s.a, &s.b)
	}
}

// writeStep writes step j of lanesWrite's range ending at j1, with
// scratch tx and tmp for 16-bit inputs and outputs.
func (c *call) writeStep(base, w, j, j1 int, m, k []float32, tx, tmp *[]float32) {
	off := base + j*c.l.Inner
	x := c.x.load(grow32(tx, w), off, w)
	switch {
	case c.op == spec.LogSoftmax && c.stream:
		vec.LogNormLanesStream(c.dst.F32[off:off+w], x, m, k, c.scale)
	case c.op == spec.LogSoftmax:
		o := c.dst.out(grow32(tmp, w), off, w)
		vec.LogNormLanes(o, x, m, k, c.scale)
		c.dst.commit(o, off)
	case c.stream:
		var next []float32
		if j+writeAhead < j1 {
			next = c.x.ahead(off+writeAhead*c.l.Inner, w)
		}
		vec.ExpScaleLanesStreamAhead(c.dst.F32[off:off+w], x, m, k, next, c.scale)
	default:
		o := c.dst.out(grow32(tmp, w), off, w)
		vec.ExpScaleLanes(o, x, m, k, c.scale)
		c.dst.commit(o, off)
	}
}

// gradLanes is lanes for the backward ops.
func (c *call) gradLanes(base, w int, s *scratch) {
	A, I := c.l.Axis, c.l.Inner
	logGrad := c.op == spec.LogSoftmaxBackward
	acc := grow64(&s.m, w)
	if A > axisBlock {
		clear(acc) // more than one float32 block: merged in float64
	}
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
		if A <= axisBlock {
			break // one block: bacc is the sum, as the float64 round trip gives it
		}
		for i := range bacc {
			acc[i] += float64(bacc[i])
		}
	}
	sum := bacc
	if A > axisBlock {
		sum = grow32(&s.d, w)
		for i := range sum {
			sum[i] = float32(acc[i])
		}
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
		c.scaleGrad(o)
		c.dst.commit(o, off)
	}
}

// lanesCached is lanes with one exp per element for a block whose slab
// (Axis × w inputs and as many exps) fits in L2: a max pass reads the slab
// from memory, an exp pass stores the exps to scratch and sums them, and a
// normalizing pass writes dst, the last two from cache. The exp pass
// prefetches the next block's slab row by row, so its max pass does not
// wait on memory: without it a short axis (a few rows of a slab, each
// block's reads a stall) ran at half the speed of rows of the same bytes.
func (c *call) lanesCached(base, w int, next laneBlock, s *scratch) {
	A, I := c.l.Axis, c.l.Inner
	tx := grow32(&s.a, w)
	m := grow32(&s.c, w)
	for i := range m {
		m[i] = vec.NegInf
	}
	e := grow32(&s.slab, A*w)
	// load converts 16-bit rows into the slab, once: the exp pass reads
	// them there and overwrites them with the exps (float32 rows are read
	// in place both times).
	row := func(j int) []float32 { return c.x.load(e[j*w:(j+1)*w], base+j*I, w) }
	if c.x.DType != spec.Float32 {
		row = func(j int) []float32 { return e[j*w : (j+1)*w] }
	}
	for j := 0; j < A; j++ {
		vec.MaxLanes(m, c.x.load(e[j*w:(j+1)*w], base+j*I, w), c.scale)
	}
	// A lane of −∞ (max −∞) gets NaN exps and so NaN outputs, as required.
	d64 := grow64(&s.s, w)
	bd := grow32(&s.d, w)
	one := A <= axisBlock // one float32 block: bd is the lanes' sum, no float64 merge
	if !one {
		clear(d64)
	}
	for j0 := 0; j0 < A; j0 += axisBlock {
		clear(bd)
		for j := j0; j < min(j0+axisBlock, A); j++ {
			var ahead []float32
			if next.w > 0 {
				ahead = c.x.ahead(next.base+j*I, next.w)
			}
			vec.ExpSumLanesAhead(e[j*w:(j+1)*w], bd, row(j), m, ahead, c.scale)
		}
		if !one {
			for i := range bd {
				d64[i] += float64(bd[i])
			}
		}
	}
	k := bd // the write constants: 1/d, or log d
	switch {
	case !one:
		c.laneConsts(k, d64)
	case c.op == spec.LogSoftmax:
		vec.LogLanes(k, bd) // within 1 ulp of math.Log, a vector of lanes at a time
	default:
		// A short axis has a few elements a lane: one vector division
		// for the lanes, not a scalar one each (a quarter of the time
		// of 4096×4×1024 f32 had gone to them; cpu-dev-2026-11-23-s34.txt).
		vec.RecipLanes(k, bd)
	}
	to := grow32(&s.b, w)
	for j := 0; j < A; j++ {
		off := base + j*I
		if c.op == spec.LogSoftmax {
			x := c.x.load(tx, off, w)
			if c.stream {
				vec.LogNormLanesStream(c.dst.F32[off:off+w], x, m, k, c.scale)
				continue
			}
			o := c.dst.out(to, off, w)
			vec.LogNormLanes(o, x, m, k, c.scale)
			c.dst.commit(o, off)
			continue
		}
		ej := e[j*w : (j+1)*w]
		switch {
		case c.dst.DType != spec.Float32:
			o := to[:w]
			vec.NormalizeLanes(o, ej, k)
			c.dst.commit(o, off)
		case c.stream:
			vec.NormalizeLanesStream(c.dst.F32[off:off+w], ej, k)
		default:
			vec.NormalizeLanes(c.dst.F32[off:off+w], ej, k)
		}
	}
}
