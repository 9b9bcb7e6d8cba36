package cpu

import (
	"math"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// chunk is the number of elements a kernel call handles at once: small
// enough for L1/L2 and to keep float32 partial sums accurate, large enough
// to amortise the call.
const chunk = 2048

// Cache-size tuning of the forward schedules (variables so that tests can
// send small tensors down every path). Measured on Zen 5 with 1 MiB of L2
// per core.
var (
	// rowCache is the longest forward slice (elements) done from cache
	// with one exp per element (rowCached): the slice, its exps and the
	// next slice being prefetched, 3·4·rowCache bytes, stay in a core's L2.
	// Longer slices take two exps per element and read x twice.
	rowCache = 65536

	// streamBytes is the output size from which float32 results are
	// written with non-temporal stores: too large to stay in cache for the
	// next op, and plain stores would first read every output line from
	// memory (a third of the traffic of a bandwidth-bound softmax).
	streamBytes = 8 << 20

	// slabBytes bounds lanesCached's Axis × width inputs and exps: half a
	// core's L2.
	slabBytes = 512 << 10

	// blockWidth is the lane block width of lanesBlocked: 8 KiB steps.
	// 4096x4096 f32 axis 0 on the 2-core Zen 4, alternated rounds in one
	// process: 1024 lanes (4 KiB steps) 8.5 ms, 2048 7.8, 4096 (an axis
	// split) 8.8 (load 1.1); the softmax binaries, 6 pairs, 7.7 -> 7.5
	// (bench/results/cpu-dev-2026-11-29-s69-c.txt).
	blockWidth = 2048

	// blockBytes is the size of lanesStats' blocks of steps, which stay in
	// L2 between the max pass and the exp pass, beside the next block being
	// prefetched.
	blockBytes = 256 << 10
)

var negInf = math.Inf(-1)

// pair is an online softmax statistic: the running max and the sum of
// exp(x − max), or for backward ops just a sum (m unused).
type pair struct{ m, d float64 }

var emptyPair = pair{m: negInf}

// merge combines two pairs; −∞-safe (two empty pairs stay empty) and NaN
// in either sum propagates.
func (p pair) merge(q pair) pair {
	if q.m > p.m {
		p, q = q, p
	}
	off := p.m
	if math.IsInf(off, -1) {
		off = 0
	}
	return pair{p.m, p.d + q.d*math.Exp(q.m-off)}
}

// fold merges a float32 chunk result into p.
func (p pair) fold(m, d float32) pair { return p.merge(pair{float64(m), float64(d)}) }

// forwardParams turns a slice's final pair into the write pass's constants:
// for softmax exp(s·x − m)·mul, for log-softmax (s·x − m) − logd, rounded
// in that order as PyTorch does, so a huge max never swallows log d.
func forwardParams(p pair) (m, mul, logd float32) {
	return float32(p.m), float32(1 / p.d), float32(math.Log(p.d))
}

// statsChunked returns the pair of scale·x over elements [off, off+n) of
// src, chunk by chunk: the chunk's max, then the sum of its exps (stored to
// scratch and dropped), which prefetches the chunk after next so memory
// keeps streaming while the exps run.
func statsChunked(src Buf, off, n int, scale float32, s *scratch) pair {
	p := emptyPair
	tmp, e := grow32(&s.a, chunk), grow32(&s.b, chunk)
	for k := 0; k < n; k += chunk {
		c := min(chunk, n-k)
		x := src.load(tmp, off+k, c)
		m := vec.Max(x, scale)
		if m == vec.NegInf {
			// All −∞: the chunk adds nothing (its exps would be NaN).
			continue
		}
		// Two chunks ahead: one chunk (8 KB) of exps is too short a lead
		// for the prefetches to land (1×2^24 f32 on 2 cores, median of
		// same-run pairs: stats pass 3-7% faster, the whole op 1-6%; three
		// chunks ahead gains nothing).
		next := src.ahead(off+k+2*c, min(chunk, n-k-2*c))
		p = p.fold(m, vec.ExpSumAhead(e[:c], x, next, scale, m))
	}
	return p
}

// gradSumChunked returns Σ dy·y (softmax) or Σ dy (log-softmax) over
// elements [off, off+n).
func gradSumChunked(logGrad bool, y, dy Buf, off, n int, s *scratch) float64 {
	var total float64
	ty, tdy := grow32(&s.a, chunk), grow32(&s.b, chunk)
	for k := 0; k < n; k += chunk {
		c := min(chunk, n-k)
		switch {
		case logGrad && sum16(dy):
			total += float64(vec.Sum16(dy.U16[off+k:off+k+c], dy.DType == spec.BFloat16))
		case logGrad:
			total += float64(vec.Sum(dy.load(tdy, off+k, c)))
		default:
			total += float64(vec.Dot(y.load(ty, off+k, c), dy.load(tdy, off+k, c)))
		}
	}
	return total
}

// sum16 says whether the sum of 16-bit dy runs on its 16-bit data
// (vec.Sum16), not on a float32 copy: where the assembly has it.
func sum16(dy Buf) bool {
	return (dy.DType == spec.BFloat16 || dy.DType == spec.Float16) && vec.Grad16Fused()
}
