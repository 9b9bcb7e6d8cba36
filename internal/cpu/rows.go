package cpu

import (
	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// row does one contiguous slice [off, off+n) start to finish. more says
// whether the same goroutine does the next slice, at off+n, next; pend
// carries a normalization that rowCached leaves to the next slice.
func (c *call) row(off, n int, more bool, s *scratch, pend *pending) {
	switch {
	case c.op.Backward() && n <= chunk:
		c.gradRow(off, n, s)
	case n <= rowCache && !c.op.Backward():
		c.rowCached(off, n, more, s, pend)
	default:
		c.write(off, n, c.stats(off, n, s), s)
	}
}

// gradRow does a backward slice of at most a chunk from one load of y and
// dy: 16-bit ones are converted once, not once for the sum and again for
// dx (the same float32 sum as gradSumChunked's one chunk). 8192x1024 bf16
// softmax_backward on 2 cores, best of 4 alternated runs: 2518 to 2068 µs
// (CPU time 4939 to 3880 µs an op). bfloat16 throughout (bf16Grad) skips
// the conversions: 1907 to 1262 µs, best of 6 alternated runs.
func (c *call) gradRow(off, n int, s *scratch) {
	if c.bf16Grad() {
		y, dy, dx := c.x.U16[off:off+n], c.dy.U16[off:off+n], c.dst.U16[off:off+n]
		sum := vec.DotBF16(y, dy)
		if c.dst.nt {
			vec.SoftmaxGradBF16Stream(dx, y, dy, sum, c.scale)
		} else {
			vec.SoftmaxGradBF16(dx, y, dy, sum, c.scale)
		}
		return
	}
	if c.log16Grad() {
		c.logGrad16(off, n, vec.Sum16(c.dy.U16[off:off+n], c.x.DType == spec.BFloat16))
		return
	}
	y := c.x.load(grow32(&s.a, chunk), off, n)
	dy := c.dy.load(grow32(&s.b, chunk), off, n)
	var sum float32
	if c.op == spec.LogSoftmaxBackward {
		sum = vec.Sum(dy)
	} else {
		sum = vec.Dot(y, dy)
	}
	c.gradOut(off, y, dy, sum, s)
}

// bf16Grad says whether softmax_backward reads and writes bfloat16 only:
// then a row is two passes over its 16-bit data (vec.DotBF16 and
// vec.SoftmaxGradBF16), not conversions to and from float32 scratch.
func (c *call) bf16Grad() bool {
	return c.op == spec.SoftmaxBackward && c.x.DType == spec.BFloat16 &&
		c.dy.DType == spec.BFloat16 && c.dst.DType == spec.BFloat16
}

// log16Grad says whether log_softmax_backward reads and writes one 16-bit
// format with assembly to do it: then a row is two passes over its 16-bit
// data (vec.Sum16 and vec.LogSoftmaxGrad16), not conversions to and from
// float32 scratch.
func (c *call) log16Grad() bool {
	t := c.x.DType
	return c.op == spec.LogSoftmaxBackward && (t == spec.BFloat16 || t == spec.Float16) &&
		c.dy.DType == t && c.dst.DType == t && vec.Grad16Fused()
}

// logGrad16 writes the log16Grad dx of [off, off+n) given the gradient
// sum, non-temporally where dx streams (the engine fences).
func (c *call) logGrad16(off, n int, sum float32) {
	y, dy, dx := c.x.U16[off:off+n], c.dy.U16[off:off+n], c.dst.U16[off:off+n]
	bf := c.x.DType == spec.BFloat16
	if c.dst.nt {
		vec.LogSoftmaxGrad16Stream(dx, y, dy, bf, sum, c.scale)
		return
	}
	vec.LogSoftmaxGrad16(dx, y, dy, bf, sum, c.scale)
}

// pending is a float32 slice whose exps e are computed but not yet
// normalized into dst at off: streamed rows defer that write to the next
// slice's exp pass, so that memory writes while the core computes exps.
// For log-softmax (log) e is the slice's float32 input and the output
// (scale·e − m) − logd (128×32000 f32 on 2 cores: 944 to 909 µs, the
// fastest of 8 alternated runs; each run's best 5-15% faster).
type pending struct {
	off     int
	e       []float32 // nil: nothing pending
	mul     float32
	m16     float32 // rowCached16: the max of the slice at off, when has16
	has16   bool
	log     bool
	m, logd float32
}

// flush writes elements [lo, hi) of the pending slice.
func (c *call) flush(pend *pending, lo, hi int) {
	out := c.dst.F32[pend.off+lo : pend.off+hi]
	if pend.log {
		vec.LogNormStream(out, pend.e[lo:hi], c.scale, pend.m, pend.logd)
		return
	}
	vec.NormalizeStream(out, pend.e[lo:hi], pend.mul)
}

// rowCached does a forward slice that fits in cache with one exp per
// element: the slice is loaded (converted) once, then a max pass, a pass
// that stores exp(s·x − m) to scratch and sums it, and a pass that
// normalizes into dst all run from cache, so memory sees one read of x and
// one write of y. The exp pass is compute-bound, so it also prefetches the
// next slice (whose max pass then finds it in L2) and, for streamed
// float32 output, writes the previous slice's output (vec.ExpSumFlush).
func (c *call) rowCached(off, n int, more bool, s *scratch, pend *pending) {
	if c.half16() {
		c.rowCached16(off, n, more, s, pend)
		return
	}
	x := c.x.load(grow32(&s.a, n), off, n)
	m := vec.Max(x, c.scale)
	// Two exp buffers: one may be pending.
	e := grow32(&s.b, n)
	if pend.e != nil && &pend.e[0] == &e[0] {
		e = grow32(&s.f, n)
	}
	// Float32 sums of chunks, merged in float64, as in statsChunked; with
	// each chunk, the same chunk of the pending slice is written.
	var d float64
	for k := 0; k < n; k += chunk {
		cn := min(chunk, n-k)
		var nk []float32 // the same chunk of the next slice
		if more {
			nk = c.x.ahead(off+n+k, cn)
		}
		hi := min(k+cn, len(pend.e))
		switch {
		case k < hi && !pend.log:
			d += float64(vec.ExpSumFlush(e[k:k+cn], x[k:k+cn], nk, c.scale, m,
				c.dst.F32[pend.off+k:pend.off+hi], pend.e[k:hi], pend.mul))
		case k < hi:
			d += float64(vec.ExpSumAhead(e[k:k+cn], x[k:k+cn], nk, c.scale, m))
			c.flush(pend, k, hi)
		default:
			d += float64(vec.ExpSumAhead(e[k:k+cn], x[k:k+cn], nk, c.scale, m))
		}
	}
	if pend.e != nil {
		if n < len(pend.e) {
			c.flush(pend, n, len(pend.e))
		}
		pend.e = nil
	}
	// m = −∞ (a slice of −∞) makes d NaN, and so every output, as required.
	if c.op == spec.LogSoftmax {
		_, _, logd := forwardParams(pair{m: float64(m), d: d})
		if c.stream && more && c.x.DType == spec.Float32 {
			// x is the caller's storage, which the next slice leaves alone.
			*pend = pending{off: off, e: x, log: true, m: m, logd: logd}
			return
		}
		if c.stream {
			vec.LogNormStream(c.dst.F32[off:off+n], x, c.scale, m, logd)
			return
		}
		o := c.dst.out(e, off, n) // e is free again
		vec.LogNorm(o, x, c.scale, m, logd)
		c.dst.commit(o, off)
		return
	}
	mul := float32(1 / d)
	switch {
	case c.dst.DType != spec.Float32:
		vec.Normalize(e, e, mul)
		c.dst.commit(e, off)
	case c.stream && more:
		*pend = pending{off: off, e: e, mul: mul}
	case c.stream:
		vec.NormalizeStream(c.dst.F32[off:off+n], e, mul)
	default:
		vec.Normalize(c.dst.F32[off:off+n], e, mul)
	}
}

// half16 says whether a softmax reads and writes one 16-bit format: then
// rowCached16 runs its passes on the 16-bit rows.
func (c *call) half16() bool {
	return c.op == spec.Softmax && c.x.DType != spec.Float32 && c.x.DType == c.dst.DType
}

// rowCached16 is rowCached for half16: the max and the exp pass read the
// 16-bit row, converting in registers, and the normalizing pass rounds to
// 16 bits as it stores (vec.Max16, vec.ExpSum16Ahead, vec.Normalize16), not
// through a float32 copy of the row and two more passes. The next slice's
// max is taken in this one's normalizing pass (vec.Normalize16Max), whose
// idle pipes its loads and max ops fill, where the assembly has it (bfloat16
// rows of 1024 on one core, fastest of 300 calls, three runs: 8192x1024
// 0.307 -> 0.290 ns/element, 512x1024 0.288 -> 0.276; float16's, tried,
// lost 2% on 1024x4096); the exp pass prefetched that slice. The exp pass
// writing the slice before's output instead, as ExpSumFlush does, lost
// (session 71, one core, fastest of 8 alternated runs: 8192x1024 bf16 2069
// -> 2214 µs, 1024x4096 f16 953 -> 979): the passes are bound by vector ops,
// and the max, free beside the streamed stores, then costs a pass.
func (c *call) rowCached16(off, n int, more bool, s *scratch, pend *pending) {
	bf := c.x.DType == spec.BFloat16
	x := c.x.U16[off : off+n]
	m := pend.m16
	if !pend.has16 || pend.off != off {
		m = vec.Max16(x, bf, c.scale)
	}
	pend.has16 = false
	e := grow32(&s.b, n)
	var d float64
	for k := 0; k < n; k += chunk {
		cn := min(chunk, n-k)
		var nk []float32 // the same chunk of the next slice
		if more {
			nk = c.x.ahead(off+n+k, cn)
		}
		d += float64(vec.ExpSum16Ahead(e[k:k+cn], x[k:k+cn], bf, nk, c.scale, m))
	}
	out := c.dst.U16[off : off+n]
	if !more {
		vec.Normalize16(out, bf, e, float32(1/d), c.dst.nt)
		return
	}
	pend.off, pend.has16 = off+n, true
	pend.m16 = vec.Normalize16Max(out, bf, e, float32(1/d), c.dst.nt, c.x.U16[off+n:off+2*n], c.scale)
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
	switch {
	case c.op == spec.LogSoftmax && c.stream:
		vec.LogNormStream(o, x, c.scale, m, logd)
	case c.op == spec.LogSoftmax:
		vec.LogNorm(o, x, c.scale, m, logd)
	case c.stream:
		vec.ExpScaleStream(o, x, c.scale, m, mul)
	default:
		vec.ExpScale(o, x, c.scale, m, mul)
	}
	c.dst.commit(o, off)
}

// gradChunk writes dx for [off, off+n) given the slice's gradient sum.
// Streamed float32 dx (gradNT, see streams) is written scaled with
// non-temporal stores in one pass, no scratch (vec.SoftmaxGradStream,
// vec.LogSoftmaxGradStream), so that its lines are not first read from
// memory: a quarter of the traffic (softmax_backward 4096x4096 f32 on 2
// cores, best of 4 alternated runs: 6993 to 5898 µs). A two-pass form for
// log_softmax_backward (into scratch, then NormalizeStream) had lost on the
// 2-core machine (128x32000: 1176 to 1395 µs); the one-pass one is in
// bench/results/cpu-dev-2026-11-29-s69-bwd.txt.
func (c *call) gradChunk(off, n int, sum float32, s *scratch) {
	if c.log16Grad() {
		c.logGrad16(off, n, sum)
		return
	}
	y := c.x.load(grow32(&s.a, chunk), off, n)
	dy := c.dy.load(grow32(&s.b, chunk), off, n)
	c.gradOut(off, y, dy, sum, s)
}

// gradOut writes dx at off from the loaded chunk y, dy and the gradient sum.
func (c *call) gradOut(off int, y, dy []float32, sum float32, s *scratch) {
	n := len(y)
	switch {
	case c.gradNT && c.op == spec.LogSoftmaxBackward:
		vec.LogSoftmaxGradStream(c.dst.F32[off:off+n], y, dy, sum, c.scale)
		return
	case c.gradNT:
		vec.SoftmaxGradStream(c.dst.F32[off:off+n], y, dy, sum, c.scale)
		return
	}
	o := c.dst.out(grow32(&s.c, chunk), off, n)
	if c.op == spec.LogSoftmaxBackward {
		vec.LogSoftmaxGrad(o, y, dy, sum)
	} else {
		vec.SoftmaxGrad(o, y, dy, sum)
	}
	c.scaleGrad(o)
	c.dst.commit(o, off)
}

// scaleGrad multiplies a chunk of dx, still in L1, by the scale: a pass
// only where the scale is not 1, so the unscaled gradient runs as before.
func (c *call) scaleGrad(o []float32) {
	if c.scale != 1 {
		vec.Normalize(o, o, c.scale)
	}
}
