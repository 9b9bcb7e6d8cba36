package cpu

import (
	"sync"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// Tuning constants. workBytes is the least traffic (bytes read and written)
// worth one more worker: four wake-ups of a parked worker (7.3 µs mean) at
// one thread's fastest rate (18.5 GB/s, float32 rows), measured in
// bench/results/LOG.md (2026-11-29, CPU speed); minShare is the same in
// float32 forward elements. splitRow is the row length from which a
// row is worth splitting across cores when there are fewer rows than cores;
// minAxisPart is the fewest axis steps of a non-last axis worth splitting
// off to another core.
const (
	workBytes   = 512 << 10
	minShare    = workBytes / 8
	splitRow    = 32768
	minPiece    = 8192
	axisBlock   = 64 // backward: axis steps per float32 block before a float64 merge
	minAxisPart = 64
)

// minWorkBytes is workBytes, a variable so that tests can fan small
// tensors out.
var minWorkBytes = workBytes

type mode int

const (
	modeRows       mode = iota // whole rows per share
	modeSplitStats             // pieces of long rows: partial pairs
	modeSplitWrite             // pieces of long rows: merge pairs, write
	modeStrided                // (outer, lane block) tasks of a non-last axis
	modeAxisStats              // (outer, lane block, axis part) items: partial lane pairs
	modeAxisWrite              // the same items: merge lane pairs, write
)

// call is one operation in flight; pooled so steady-state calls allocate
// nothing.
type call struct {
	op         spec.Op
	l          spec.Layout
	scale      float32 // float32(scale64), for the float32-arithmetic dtypes
	scale64    float64
	dst, x, dy Buf // forward: dst, x; backward: dst = dx, x = y, dy

	mode      mode
	stream    bool      // write float32 outputs with non-temporal stores
	gradNT    bool      // the same for float32 dx of softmax_backward rows
	rowParts  int       // pieces per row (split modes)
	partials  []pair    // rows·rowParts pairs (split modes)
	width     int       // lane block width (strided)
	blocks    int       // lane blocks per outer index (strided)
	slab      bool      // strided forward from a cached slab (lanesCached)
	axisParts int       // axis parts per lane block (axis modes)
	laneM     []float32 // items·width partial lane maxima (axis modes)
	laneD     []float64 // items·width partial lane sums (axis modes)
	laneM64   []float64 // items·width partial lane maxima of Float64 (axis modes)
	wg        sync.WaitGroup
}

var calls = sync.Pool{New: func() any { return new(call) }}

// streamWorkers is the most workers whose large outputs are written with
// non-temporal stores (a variable for tests and softmax bench's
// --cpu-stream-workers): any number. On the Xeon host, alternated runs of
// both kinds had non-temporal stores ahead at 16 threads on every case
// (4096x4096 f32 766 against 1288 µs plain) and at 2 threads on most
// (bench/results/cpu-xeon-2026-11-29-s69-74.txt, bench/cpu-xeon-74.sh).
var streamWorkers = 1 << 20

// streams says whether an output of outBytes written by workers
// goroutines is written with non-temporal stores.
func streams(outBytes, workers int) bool {
	return outBytes >= streamBytes && workers <= streamWorkers
}

// SetStreamWorkers sets the most workers that write large outputs with
// non-temporal stores (0: none) and returns the previous value. It is
// meant for benchmarks and must not run concurrently with calls.
func SetStreamWorkers(n int) (prev int) {
	prev, streamWorkers = streamWorkers, n
	return prev
}

// Forward computes op (Softmax or LogSoftmax) of scale·x into dst.
// dst may be x itself; the caller has checked shapes, lengths and overlap.
// Float64 tensors use scale as it is, the others float32(scale).
func Forward(op spec.Op, l spec.Layout, scale float64, dst, x Buf) {
	run(request{op: op, l: l, scale: scale, dst: dst, x: x})
}

// Backward computes op (SoftmaxBackward or LogSoftmaxBackward) into dx from
// the forward output y and the gradient dy, times scale: the gradient of
// op's forward of scale·x. dx may be y or dy itself: every pass reads an
// element of y and dy before it writes dx there, and no later pass reads it.
// Float64 tensors use scale as it is, the others float32(scale).
func Backward(op spec.Op, l spec.Layout, scale float64, dx, y, dy Buf) {
	run(request{op: op, l: l, scale: scale, dst: dx, x: y, dy: dy})
}

// request is what a caller asks of run, passed by value: a *call built for
// it escaped to the heap on 386 (two allocations a call).
type request struct {
	op         spec.Op
	l          spec.Layout
	scale      float64
	dst, x, dy Buf
}

func run(req request) {
	if req.l.Empty() {
		return
	}
	c := calls.Get().(*call)
	partials, laneM, laneD, laneM64 := c.partials, c.laneM, c.laneD, c.laneM64
	*c = call{op: req.op, l: req.l, scale: float32(req.scale), scale64: req.scale, dst: req.dst, x: req.x, dy: req.dy,
		partials: partials, laneM: laneM, laneD: laneD, laneM64: laneM64}
	defer func() {
		c.dst, c.x, c.dy = Buf{}, Buf{}, Buf{} // drop references to caller memory
		calls.Put(c)
	}()

	p := threads()
	total := c.l.Len()
	es := c.dst.DType.Size()
	wide := c.dst.DType == spec.Float32 || c.dst.DType == spec.Float64
	tensors := 2
	if c.op.Backward() {
		tensors = 3
	}
	byVolume := max(1, total*es*tensors/minWorkBytes)
	nt := streams(total*es, min(p, byVolume))
	c.stream = !c.op.Backward() && wide && nt
	c.gradNT = c.op.Backward() && c.dst.DType == spec.Float32 && c.l.Inner == 1 && nt
	// 16-bit outputs of rows are committed in contiguous chunks: large
	// ones with non-temporal stores too (a strided axis writes partial
	// lines, which non-temporal stores would flush one by one).
	c.dst.nt = !wide && c.l.Inner == 1 && nt
	if c.l.Inner > 1 {
		c.width, c.blocks, c.slab = laneBlocks(c.l, p, c.op.Backward(), c.x.DType == spec.Float64)
		tasks := c.l.Outer * c.blocks
		if c.op.Backward() || c.slab || tasks >= p || c.l.Axis < 2*minAxisPart {
			c.mode = modeStrided
			fanOut(c, tasks, min(p, tasks, byVolume), &c.wg)
			return
		}
		// Too few lane blocks for the cores: split the axis too, as
		// long rows are split, so that every core streams whole rows.
		c.axisParts = min((p+tasks-1)/tasks, c.l.Axis/minAxisPart)
		items := tasks * c.axisParts
		if cap(c.laneD) < items*c.width {
			c.laneD = make([]float64, items*c.width)
		}
		c.laneD = c.laneD[:items*c.width]
		if c.x.DType == spec.Float64 {
			c.laneM64 = grow64(&c.laneM64, items*c.width)
		} else {
			c.laneM = grow32(&c.laneM, items*c.width)
		}
		c.mode = modeAxisStats
		parallel(c, items, &c.wg)
		c.mode = modeAxisWrite
		parallel(c, items, &c.wg)
		return
	}
	rows, n := c.l.Outer, c.l.Axis
	if rows >= p || n < splitRow {
		c.mode = modeRows
		fanOut(c, rows, min(p, rows, byVolume), &c.wg)
		return
	}
	c.rowParts = max(1, min((p+rows-1)/rows, n/minPiece))
	items := rows * c.rowParts
	if cap(c.partials) < items {
		c.partials = make([]pair, items)
	}
	c.partials = c.partials[:items]
	c.mode = modeSplitStats
	parallel(c, items, &c.wg)
	c.mode = modeSplitWrite
	parallel(c, items, &c.wg)
}

// laneBlocks picks the lane block width for a non-last axis and, for
// forward ops, the schedule. When the Axis × width slab and its exps fit
// slabBytes with a width of at least 256 (1 KiB steps) or the whole inner
// dimension, lanesCached reads the slab from memory once; otherwise
// lanesBlocked reads it twice, blockWidth lanes at a time (run splits the
// axis across cores when that leaves too few blocks). For the backward ops
// the block's Axis × width slab should stay in a core's L2 between the two
// passes. Where the axis is not split, a narrower width gives every core a
// block. Float64 elements (f64) take twice the bytes of float32 ones, so
// the widths that fit are half as wide.
func laneBlocks(l spec.Layout, p int, backward, f64 bool) (width, blocks int, slab bool) {
	es := 4
	if f64 {
		es = 8
	}
	w := min(l.Inner, blockWidth)
	switch ws := slabBytes / (2 * es * l.Axis) &^ 15; {
	case backward:
		w = max(256, (1<<20)/(es*l.Axis))
	case ws >= 256 || ws >= l.Inner:
		w, slab = min(ws, 4096), true
	}
	if (backward || slab) && l.Outer*((l.Inner+w-1)/w) < p && l.Inner > 16*p {
		w = (l.Inner + p - 1) / p
	}
	w = min((w+15)&^15, l.Inner)
	return w, (l.Inner + w - 1) / w, slab
}

func (c *call) run(i, parts int, s *scratch) {
	if c.stream || c.dst.nt || c.gradNT {
		// The share's non-temporal stores must be visible before the
		// caller is told it is done.
		defer vec.Fence()
	}
	if c.x.DType == spec.Float64 {
		c.run64(i, parts, s)
		return
	}
	switch c.mode {
	case modeRows:
		lo, hi := share(c.l.Outer, i, parts)
		var pend pending
		for r := lo; r < hi; r++ {
			c.row(r*c.l.Axis, c.l.Axis, r+1 < hi, s, &pend)
		}
	case modeSplitStats:
		off, n := c.piece(i)
		c.partials[i] = c.stats(off, n, s)
	case modeSplitWrite:
		first := i - i%c.rowParts
		p := c.partials[first]
		for k := first + 1; k < first+c.rowParts; k++ {
			p = p.mergeOrAdd(c.partials[k], c.op.Backward())
		}
		off, n := c.piece(i)
		c.write(off, n, p, s)
	case modeStrided:
		tasks := c.l.Outer * c.blocks
		lo, hi := share(tasks, i, parts)
		for t := lo; t < hi; t++ {
			base, w := c.laneBlock(t)
			var next laneBlock
			if t+1 < hi {
				next.base, next.w = c.laneBlock(t + 1)
			}
			c.lanes(base, w, next, s)
		}
	case modeAxisStats:
		base, w := c.laneBlock(i / c.axisParts)
		jlo, jhi := share(c.l.Axis, i%c.axisParts, c.axisParts)
		at := i * c.width
		c.lanesStats(base, w, jlo, jhi, c.laneM[at:at+w], c.laneD[at:at+w], s)
	case modeAxisWrite:
		base, w := c.laneBlock(i / c.axisParts)
		jlo, jhi := share(c.l.Axis, i%c.axisParts, c.axisParts)
		m, k := c.mergeLanes(i-i%c.axisParts, w, s)
		c.lanesWrite(base, w, jlo, jhi, m, k, s)
	}
}

// laneBlock returns the first element and the width of lane block t (of
// Outer × blocks).
func (c *call) laneBlock(t int) (base, w int) {
	o, b := t/c.blocks, t%c.blocks
	i0 := b * c.width
	return o*c.l.Axis*c.l.Inner + i0, min(c.width, c.l.Inner-i0)
}

// piece returns the element range of split item i.
func (c *call) piece(i int) (off, n int) {
	r, k := i/c.rowParts, i%c.rowParts
	lo, hi := share(c.l.Axis, k, c.rowParts)
	return r*c.l.Axis + lo, hi - lo
}

// mergeOrAdd merges online pairs (forward) or adds plain sums (backward).
func (p pair) mergeOrAdd(q pair, sums bool) pair {
	if sums {
		return pair{d: p.d + q.d}
	}
	return p.merge(q)
}
