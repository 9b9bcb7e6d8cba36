package cpu

import (
	"math"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// The forward pass of a cross-entropy row (float32 arithmetic): the exps
// of the row's logits x into e, kept for the gradient, their sum and the
// row's log-sum-exp. Each chunk prefetches the same chunk of the next row
// and writes the same chunk of the pending gradient row (pend), so that
// memory streams both ways while the core computes exps.

// exps1 is the pass without a max pass (vec.ExpSumMax): chunk i's exps
// are taken against a running offset (the max of chunk 0, then of every
// chunk so far), which is at most the row's max, so no exp underflows more
// than against the max. They are p·d·exp(max − offset_i), and fk[i] holds
// exp(offset_i − max) for the gradient's multipliers (chunkMuls). A chunk
// whose offset lies more than vec.ExpSumMaxLimit below the row's max is
// recomputed against the max once the row is done: its exps may have
// overflowed (ExpSumMax has no upper clamp), or its multiplier underflow
// where the exps are large. It returns false for a row whose max is not
// finite (all −∞ or NaN, or a +∞), after finishing the pending row: exps2
// then does it.
//
// Saving the max pass's read of the row from L2 and using xentExp's
// shorter exp took the fused op from 0.59 to ≥ 0.7 of a copy on 4096×32000
// float32 (bench/results/cpu-dev-2026-11-29-s68-xent.txt).
func (c *ceCall) exps1(x, e []float32, off int, more, smooth bool, s *scratch, pend *ceFlush) (lse, d, dot float64, fk []float64, ok bool) {
	v := c.V
	nch := (v + chunk - 1) / chunk
	st := grow64(&s.ld, 2*nch)
	offs, sums := st[:nch], st[nch:]
	m := vec.Max(x[:min(chunk, v)], c.scale)
	if m == vec.NegInf {
		m = -math.MaxFloat32 // exp(−∞ − m) = 0; a finite element later exceeds the limit
	}
	rowMax, bad := negInf, false
	for k, i := 0, 0; k < v; k, i = k+chunk, i+1 {
		cn := min(chunk, v-k)
		var next, out, in []float32
		var mul float32
		if more {
			next = c.X.ahead(off+v+k, cn)
		}
		hi := min(k+cn, len(pend.e))
		if k < hi && c.Grad.DType == spec.Float32 {
			out, in, mul = c.Grad.F32[pend.off+k:pend.off+hi], pend.e[k:hi], pend.muls[i]
		}
		sm, mx := vec.ExpSumMax(e[k:k+cn], x[k:k+cn], next, out, in, c.scale, m, mul, pend.c)
		if k < hi && c.Grad.DType != spec.Float32 {
			c.flushHalf(pend, k, hi, s)
		}
		offs[i], sums[i] = float64(m), float64(sm)
		if mx > math.MaxFloat32 { // +∞ − m: the row's loss is NaN
			bad = true
		} else if mx > vec.NegInf {
			cm := float64(m) + float64(mx)
			rowMax = max(rowMax, cm)
			if cm > float64(m) {
				m = float32(cm)
			}
		}
		if smooth { // while the chunk is in L1
			dot += c.dot32(x, k, k+cn)
		}
	}
	if pend.e != nil {
		c.flush(pend, v, s)
	}
	if bad || math.IsInf(rowMax, -1) {
		return 0, 0, 0, nil, false
	}
	for i, o := range offs {
		if rowMax-o > vec.ExpSumMaxLimit {
			k := i * chunk
			cn := min(chunk, v-k)
			mf := float32(rowMax)
			sm, _ := vec.ExpSumMax(e[k:k+cn], x[k:k+cn], nil, nil, nil, c.scale, mf, 0, 0)
			offs[i], sums[i] = float64(mf), float64(sm)
		}
	}
	for i, o := range offs {
		offs[i] = 1
		if o != rowMax {
			offs[i] = math.Exp(o - rowMax)
		}
		d += sums[i] * offs[i]
	}
	return rowLSE(rowMax, d), d, dot, offs, true
}

// exps2 is the pass after a max pass over the row (vec.Max, then
// vec.ExpSumFlush or ExpSumAhead against the max): the kernel sets without
// ExpSumMax's assembly, and the rows exps1 gives back.
func (c *ceCall) exps2(x, e []float32, off int, more, smooth bool, s *scratch, pend *ceFlush) (lse, d, dot float64) {
	v := c.V
	m := vec.Max(x, c.scale)
	// Float32 sums of chunks, added in float64.
	for k := 0; k < v; k += chunk {
		cn := min(chunk, v-k)
		var next []float32
		if more {
			next = c.X.ahead(off+v+k, cn)
		}
		if hi := min(k+cn, len(pend.e)); k < hi && c.Grad.DType != spec.Float32 {
			d += float64(vec.ExpSumAhead(e[k:k+cn], x[k:k+cn], next, c.scale, m))
			c.flushHalf(pend, k, hi, s)
		} else if k < hi && pend.c != 0 { // ExpSumFlush has no offset
			d += float64(vec.ExpSumAhead(e[k:k+cn], x[k:k+cn], next, c.scale, m))
			vec.LogNormStream(c.Grad.F32[pend.off+k:pend.off+hi], pend.e[k:hi], pend.muls[k/chunk], pend.c, 0)
		} else if k < hi {
			d += float64(vec.ExpSumFlush(e[k:k+cn], x[k:k+cn], next, c.scale, m,
				c.Grad.F32[pend.off+k:pend.off+hi], pend.e[k:hi], pend.muls[k/chunk]))
		} else {
			d += float64(vec.ExpSumAhead(e[k:k+cn], x[k:k+cn], next, c.scale, m))
		}
		if smooth { // while the chunk is in L1
			dot += c.dot32(x, k, k+cn)
		}
	}
	if pend.e != nil {
		c.flush(pend, v, s)
	}
	return rowLSE(float64(m), d), d, dot
}

// chunkMuls fills muls with the gradient's multiplier of each chunk:
// base·fk[i] (base alone where fk is nil), rounded to float32.
func chunkMuls(muls []float32, base float64, fk []float64) []float32 {
	for i := range muls {
		if fk == nil {
			muls[i] = float32(base)
		} else {
			muls[i] = float32(base * fk[i])
		}
	}
	return muls
}
