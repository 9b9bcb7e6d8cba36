package cpu

import (
	"math"
	"sync"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/shard"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/xent"
)

// CE is one cross-entropy call over Rows × V logits (class axis last), as
// the caller has checked it: shapes, targets, options, overlap.
type CE struct {
	Rows, V int
	X       Buf
	Grad    Buf  // the gradient's storage (may be X itself)
	HasGrad bool // write the gradient
	Targets xent.Targets
	Ignore  int64
	Opt     xent.Options
	WSum    float64   // W = Σ_j w_j (V without weights)
	GScale  float64   // every row's grad-output factor (the mean's 1/Σ w_t included)
	GRows   []float64 // optional per-row grad-output, times GScale
	LSEIn   []float64 // backward from saved lse: no loss, only the gradient
	Loss    []float64 // optional: per-row losses out
	LSE     []float64 // optional: per-row log-sum-exp out
}

// ceCall is a CE in flight; pooled so that calls allocate nothing.
type ceCall struct {
	CE
	scale   float32
	scale64 float64
	stream  bool      // float32/float64 gradient written with non-temporal stores
	w64     []float64 // Weights as float64, for Float64 rows
	sums    []float64 // per-share loss sums
	wg      sync.WaitGroup
}

var ceCalls = sync.Pool{New: func() any { return new(ceCall) }}

// CrossEntropy runs the fused forward (and, with HasGrad, backward) of a,
// or the backward alone when a.LSEIn is set: each row's logits are read
// from memory once and its gradient written once. It returns the sum of
// the per-row losses (0 for a backward).
func CrossEntropy(a CE) float64 {
	if a.V == 0 { // no classes: every row was checked to be ignored
		for r := range a.Rows {
			if a.Loss != nil {
				a.Loss[r] = 0
			}
			if a.LSE != nil {
				a.LSE[r] = negInf // log of an empty sum, as torch.logsumexp
			}
		}
		return 0
	}
	if a.Rows == 0 {
		return 0
	}
	c := ceCalls.Get().(*ceCall)
	w64, sums := c.w64, c.sums
	*c = ceCall{CE: a, w64: w64, sums: sums}
	defer func() {
		c.CE = CE{} // drop references to caller memory
		ceCalls.Put(c)
	}()
	c.scale64 = a.Opt.ScaleOrOne()
	c.scale = float32(c.scale64)
	total := a.Rows * a.V
	es := a.X.DType.Size()
	wide := a.X.DType == spec.Float32 || a.X.DType == spec.Float64
	if a.X.DType == spec.Float64 && a.Opt.Weights != nil {
		c.w64 = grow64(&c.w64, a.V)
		for j, w := range a.Opt.Weights {
			c.w64[j] = float64(w)
		}
	}
	// One worker per minWorkBytes moved, as Forward: the logits read,
	// the gradient written.
	tensors := 1
	if a.HasGrad {
		tensors = 2
	}
	parts := min(threads(), a.Rows, max(1, total*es*tensors/minWorkBytes))
	nt := a.HasGrad && streams(total*a.Grad.DType.Size(), parts)
	c.stream = wide && nt
	c.Grad.nt = !wide && nt
	c.sums = grow64(&c.sums, parts)
	parallel(c, parts, &c.wg)
	var sum float64
	for _, v := range c.sums {
		sum += v
	}
	return sum
}

func (c *ceCall) run(i, parts int, s *scratch) {
	if c.stream || c.Grad.nt {
		defer vec.Fence() // the share's non-temporal stores, before the caller hears it is done
	}
	lo, hi := share(c.Rows, i, parts)
	var total float64
	var pend ceFlush
	for r := lo; r < hi; r++ {
		if c.X.DType == spec.Float64 {
			total += c.row64(r, r+1 < hi, s)
		} else {
			total += c.row32(r, r+1 < hi, s, &pend)
		}
	}
	if pend.e != nil {
		c.flush(&pend, 0, s)
	}
	c.sums[i] = total
}

// ceFlush is a gradient row whose write is deferred to the next row's exp
// pass (as rowCached's pending): the row at off is e·muls[chunk] − c,
// then minus tv at the target t. Streaming it while the core computes
// exps, rather than in a burst, keeps memory busy in both directions.
// (The cross-entropy borrows scratch fields the other ops name for their
// own use: lm for these multipliers, ld for exps1's chunk offsets and
// sums, e for grad32's multipliers, slab for −C.)
type ceFlush struct {
	off, t int
	e      []float32 // nil: nothing pending
	muls   []float32 // chunk i's multiplier (scratch lm)
	c      float32   // label smoothing's offset C (grad32's cw), or 0
	tv     float32
}

// flush writes what is left of pend from element from on (a multiple of
// chunk).
func (c *ceCall) flush(pend *ceFlush, from int, s *scratch) {
	if c.Grad.DType != spec.Float32 {
		for k := from; k < len(pend.e); k += chunk {
			c.flushHalf(pend, k, min(k+chunk, len(pend.e)), s)
		}
		pend.e = nil
		return
	}
	for k := from; k < len(pend.e); k += chunk {
		hi := min(k+chunk, len(pend.e))
		vec.LogNormStream(c.Grad.F32[pend.off+k:pend.off+hi], pend.e[k:hi], pend.muls[k/chunk], pend.c, 0)
	}
	// The target's value from the exps, stored rather than read back: a
	// load of a line just written non-temporally waits for memory.
	c.Grad.F32[pend.off+pend.t] = pend.value() // rounded as LogNorm, not fused
	pend.e = nil
}

// value is the pending row's gradient at its target: grad32's e·mul − C,
// then − T.
func (pend *ceFlush) value() float32 {
	return float32(float32(pend.e[pend.t]*pend.muls[pend.t/chunk])-pend.c) - pend.tv
}

// flushHalf writes elements [k, hi) (inside chunk k/chunk) of a pending
// 16-bit gradient row: the float32 values grad32 computes (target
// included), then rounded.
func (c *ceCall) flushHalf(pend *ceFlush, k, hi int, s *scratch) {
	o := grow32(&s.c, hi-k)
	vec.LogNorm(o, pend.e[k:hi], pend.muls[k/chunk], pend.c, 0)
	if pend.t >= k && pend.t < hi {
		o[pend.t-k] = pend.value()
	}
	c.Grad.commit(o, pend.off+k)
}

// rowStart handles what every row does first: it returns the row's
// target and whether the row is done (ignored and its lse not wanted).
// An ignored row whose lse is wanted zeroes its gradient after computing
// it: the gradient may be the logits.
func (c *ceCall) rowStart(r int) (t int64, ignored, done bool) {
	t = c.Targets.At(r)
	ignored = t == c.Ignore
	if ignored && c.Loss != nil {
		c.Loss[r] = 0
	}
	done = ignored && c.LSE == nil
	if done && c.HasGrad {
		c.zeroGrad(r * c.V)
	}
	return t, ignored, done
}

func (c *ceCall) zeroGrad(off int) {
	switch c.Grad.DType {
	case spec.Float32:
		clear(c.Grad.F32[off : off+c.V])
	case spec.Float64:
		clear(c.Grad.F64[off : off+c.V])
	default:
		clear(c.Grad.U16[off : off+c.V])
	}
}

// gout returns row r's grad-output.
func (c *ceCall) gout(r int) float64 {
	if c.GRows != nil {
		return c.GScale * c.GRows[r]
	}
	return c.GScale
}

// weight returns class t's weight.
func (c *ceCall) weight(t int64) float64 {
	if c.Opt.Weights == nil {
		return 1
	}
	return float64(c.Opt.Weights[t])
}

// row32 does row r of a float32-arithmetic dtype and returns its loss.
func (c *ceCall) row32(r int, more bool, s *scratch, pend *ceFlush) float64 {
	t, ignored, done := c.rowStart(r)
	if done {
		return 0
	}
	v, off := c.V, r*c.V
	x := c.X.load(grow32(&s.a, v), off, v)
	if c.Opt.Softcap > 0 {
		// s.g: 1 − tanh², for grad32.
		x = softcap32(grow32(&s.d, v), grow32(&s.g, v), x, float32(c.Opt.Softcap))
	}
	var e []float32
	var fk []float64
	var d, lse, dot float64
	smooth := c.LSEIn == nil && !ignored && c.Opt.LabelSmoothing != 0
	if c.LSEIn != nil {
		lse = c.LSEIn[r]
	} else {
		e = grow32(&s.b, v)
		if pend.e != nil && &pend.e[0] == &e[0] {
			e = grow32(&s.f, v) // the other buffer: this one is pending
		}
		ok := false
		if vec.ExpSumMaxNative() {
			lse, d, dot, fk, ok = c.exps1(x, e, off, more, smooth, s, pend)
		}
		if !ok {
			lse, d, dot = c.exps2(x, e, off, more, smooth, s, pend)
		}
		if c.LSE != nil {
			c.LSE[r] = lse
		}
	}
	if ignored {
		if c.HasGrad {
			c.zeroGrad(off)
		}
		return 0
	}
	wt := c.weight(t)
	var loss float64
	if c.LSEIn == nil {
		loss = c.Opt.RowLoss(lse, float64(x[t]*c.scale), dot*c.scale64, c.WSum, wt, v)
		if c.Loss != nil {
			c.Loss[r] = loss
		}
	}
	if c.HasGrad {
		g := c.Opt.Grad(lse, wt, c.WSum, v, c.gout(r))
		// Deferred: no softcap (its derivative pass) and label smoothing
		// only without weights (its C·w_j pass).
		if e != nil && more && (c.stream || c.Grad.nt) && c.Opt.Softcap == 0 && (g.C == 0 || c.Opt.Weights == nil) {
			*pend = ceFlush{off: off, t: int(t), e: e, muls: chunkMuls(grow32(&s.lm, (v+chunk-1)/chunk), g.A*c.scale64/d, fk),
				c: float32(g.C * c.scale64), tv: float32(g.T * c.scale64)}
			return loss
		}
		c.grad32(off, int(t), x, e, fk, d, lse, g, s)
	}
	return loss
}

// rowLSE is the row's log-sum-exp from its max and sum (shard's LSE: NaN
// for a NaN or +inf logit, −inf for a row of −inf, whose exps are NaN).
func rowLSE(m, d float64) float64 {
	if m == negInf {
		d = 0
	}
	return shard.Record{Max: m, Sum: d}.LSE()
}

// dot32 returns Σ_j w_j·x_j over the chunk [k, hi) of the row (w_j = 1
// without weights): summed over the chunks and times the scale, label
// smoothing's Σ_j w_j·z_j.
func (c *ceCall) dot32(x []float32, k, hi int) float64 {
	if c.Opt.Weights != nil {
		return float64(vec.Dot(c.Opt.Weights[k:hi], x[k:hi]))
	}
	return float64(vec.Sum(x[k:hi]))
}

// grad32 writes the row's gradient at off: g = A·p − C·w − T·[j = t]
// (xent.RowGrad) times d z/d x, with p = e·fk[chunk]/d from the forward's
// exps (fk nil: 1), or exp(z − lse) recomputed from a saved lse (e nil).
func (c *ceCall) grad32(off, t int, x, e []float32, fk []float64, d, lse float64, g xent.RowGrad, s *scratch) {
	v := c.V
	o := c.Grad.out(grow32(&s.c, v), off, v)
	// Softcap's gradient is computed in scratch and written once, with
	// non-temporal stores, by its last pass (× 1 − tanh²).
	capStream := c.Opt.Softcap > 0 && c.stream
	if capStream {
		o = grow32(&s.c, v)
	}
	sc := c.scale64
	plain := g.C == 0 && c.Opt.Softcap == 0
	cw := float32(g.C * sc)
	// Label smoothing without weights: A·p − C in one vector pass, the
	// same roundings as p·A then − C (LogNorm's − 0 changes nothing).
	offset := g.C != 0 && c.Opt.Weights == nil && e != nil
	switch {
	case e == nil && c.stream && plain:
		vec.ExpScaleStream(o, x, c.scale, float32(lse), float32(g.A*sc))
	case e == nil:
		vec.ExpScale(o, x, c.scale, float32(lse), float32(g.A*sc))
	default:
		stream := c.stream && c.Opt.Softcap == 0 && (offset || plain)
		muls := chunkMuls(grow32(&s.e, (v+chunk-1)/chunk), g.A*sc/d, fk)
		for k := 0; k < v; k += chunk {
			oc, ec, mul := o[k:min(k+chunk, v)], e[k:min(k+chunk, v)], muls[k/chunk]
			switch {
			case offset && stream:
				vec.LogNormStream(oc, ec, mul, cw, 0)
			case offset:
				vec.LogNorm(oc, ec, mul, cw, 0)
			case stream:
				vec.NormalizeStream(oc, ec, mul)
			default:
				vec.Normalize(oc, ec, mul)
			}
		}
	}
	if g.C != 0 && !offset {
		// o − C·w_j (o − C without weights) by vector kernels with the
		// roundings of o[j] −= cw·w[j]: MulAdd rounds w·(−C), then adds.
		if w := c.Opt.Weights; w != nil {
			ncw := grow32(&s.slab, min(chunk, v))
			for j := range ncw {
				ncw[j] = -cw
			}
			for k := 0; k < v; k += chunk {
				hi := min(k+chunk, v)
				vec.MulAdd(o[k:hi], w[k:hi], ncw[:hi-k])
			}
		} else {
			vec.LogNorm(o, o, 1, cw, 0)
		}
	}
	o[t] -= float32(g.T * sc)
	switch {
	case capStream:
		vec.NormalizeLanesStream(c.Grad.F32[off:off+v], o, s.g[:v]) // × 1 − tanh², softcap32's
		return
	case c.Opt.Softcap > 0:
		vec.NormalizeLanes(o, o, s.g[:v])
	}
	c.Grad.commit(o, off)
}

// softcap32 writes cap·tanh(x/cap) into dst and its derivative 1 − tanh²
// into dz (vec.Softcap).
func softcap32(dst, dz, x []float32, capv float32) []float32 {
	dst = dst[:len(x)]
	vec.Softcap(dst, dz, x, capv)
	return dst
}

// row64 is row32 for Float64 logits: float64 arithmetic, no conversion.
func (c *ceCall) row64(r int, more bool, s *scratch) float64 {
	t, ignored, done := c.rowStart(r)
	if done {
		return 0
	}
	v, off := c.V, r*c.V
	x := c.X.F64[off : off+v]
	if c.Opt.Softcap > 0 {
		xc, capv := grow64(&s.d64, v), c.Opt.Softcap
		for j, xv := range x {
			xc[j] = capv * math.Tanh(xv/capv)
		}
		x = xc
	}
	var e []float64
	var d, lse float64
	if c.LSEIn != nil {
		lse = c.LSEIn[r]
	} else {
		m := vec.Max64(x, c.scale64)
		e = grow64(&s.b64, v)
		var sum ksum
		for k := 0; k < v; k += chunk {
			cn := min(chunk, v-k)
			var next []float64
			if more {
				next = c.X.F64[off+v+k : off+v+k+cn]
			}
			sum.add(vec.ExpSum64(e[k:k+cn], x[k:k+cn], next, c.scale64, m))
		}
		d = sum.value()
		lse = rowLSE(m, d)
		if c.LSE != nil {
			c.LSE[r] = lse
		}
	}
	if ignored {
		if c.HasGrad {
			c.zeroGrad(off)
		}
		return 0
	}
	wt := c.weight(t)
	var loss float64
	if c.LSEIn == nil {
		var dot float64
		if c.Opt.LabelSmoothing != 0 {
			if c.Opt.Weights != nil {
				dot = vec.Dot64(c.w64, x)
			} else {
				dot = vec.Sum64(x)
			}
			dot *= c.scale64
		}
		loss = c.Opt.RowLoss(lse, x[t]*c.scale64, dot, c.WSum, wt, v)
		if c.Loss != nil {
			c.Loss[r] = loss
		}
	}
	if c.HasGrad {
		c.grad64(off, int(t), x, e, d, lse, c.Opt.Grad(lse, wt, c.WSum, v, c.gout(r)))
	}
	return loss
}

// grad64 is grad32 for Float64.
func (c *ceCall) grad64(off, t int, x, e []float64, d, lse float64, g xent.RowGrad) {
	o := c.Grad.F64[off : off+c.V]
	sc := c.scale64
	plain := g.C == 0 && c.Opt.Softcap == 0
	switch {
	case e == nil:
		vec.ExpScale64(o, x, sc, lse, g.A*sc)
	case c.stream && plain:
		vec.NormalizeStream64(o, e, g.A*sc/d)
	default:
		vec.Normalize64(o, e, g.A*sc/d)
	}
	if g.C != 0 {
		cw := g.C * sc
		if c.w64 != nil && c.Opt.Weights != nil {
			for j := range o {
				o[j] -= cw * c.w64[j]
			}
		} else {
			for j := range o {
				o[j] -= cw
			}
		}
	}
	o[t] -= g.T * sc
	if capv := c.Opt.Softcap; capv > 0 {
		for j := range o {
			y := x[j] / capv
			o[j] *= 1 - y*y
		}
	}
}
