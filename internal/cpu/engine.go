package cpu

import (
	"sync"

	"github.com/gofused/softmax/internal/spec"
)

// Tuning constants. minShare keeps each goroutine's share large enough that
// the hand-off (~1 µs) is noise; splitRow is the row length from which a
// row is worth splitting across cores when there are fewer rows than cores.
const (
	minShare  = 16384
	splitRow  = 32768
	minPiece  = 8192
	axisBlock = 64 // axis steps per float32 block before a float64 merge
)

type mode int

const (
	modeRows       mode = iota // whole rows per share
	modeSplitStats             // pieces of long rows: partial pairs
	modeSplitWrite             // pieces of long rows: merge pairs, write
	modeStrided                // (outer, lane block) tasks of a non-last axis
)

// call is one operation in flight; pooled so steady-state calls allocate
// nothing.
type call struct {
	op         spec.Op
	l          spec.Layout
	scale      float32
	dst, x, dy Buf // forward: dst, x; backward: dst = dx, x = y, dy

	mode     mode
	rowParts int    // pieces per row (split modes)
	partials []pair // rows·rowParts pairs (split modes)
	width    int    // lane block width (strided)
	blocks   int    // lane blocks per outer index (strided)
	wg       sync.WaitGroup
}

var calls = sync.Pool{New: func() any { return new(call) }}

// Forward computes op (Softmax or LogSoftmax) of scale·x into dst.
// dst may be x itself; the caller has checked shapes, lengths and overlap.
func Forward(op spec.Op, l spec.Layout, scale float32, dst, x Buf) {
	run(&call{op: op, l: l, scale: scale, dst: dst, x: x})
}

// Backward computes op (SoftmaxBackward or LogSoftmaxBackward) into dx from
// the forward output y and the gradient dy. dx may be y or dy itself.
func Backward(op spec.Op, l spec.Layout, dx, y, dy Buf) {
	run(&call{op: op, l: l, scale: 1, dst: dx, x: y, dy: dy})
}

func run(req *call) {
	if req.l.Empty() {
		return
	}
	c := calls.Get().(*call)
	partials := c.partials
	*c = call{op: req.op, l: req.l, scale: req.scale, dst: req.dst, x: req.x, dy: req.dy, partials: partials}
	defer func() {
		c.dst, c.x, c.dy = Buf{}, Buf{}, Buf{} // drop references to caller memory
		calls.Put(c)
	}()

	p := threads()
	total := c.l.Len()
	byVolume := max(1, total/minShare)
	if c.l.Inner > 1 {
		c.mode = modeStrided
		c.width, c.blocks = laneBlocks(c.l, p)
		parallel(c, min(p, c.l.Outer*c.blocks, byVolume), &c.wg)
		return
	}
	rows, n := c.l.Outer, c.l.Axis
	if rows >= p || n < splitRow {
		c.mode = modeRows
		parallel(c, min(p, rows, byVolume), &c.wg)
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

// laneBlocks picks the lane block width for a non-last axis: the block's
// Axis × width slab should stay in a core's L2 between the two passes, the
// width should keep whole cache lines streaming, and there should be enough
// blocks for every core.
func laneBlocks(l spec.Layout, p int) (width, blocks int) {
	const slabBytes = 1 << 20
	w := max(256, slabBytes/(4*l.Axis))
	if l.Outer*((l.Inner+w-1)/w) < p && l.Inner > 16*p {
		w = (l.Inner + p - 1) / p
	}
	w = min((w+15)&^15, l.Inner)
	return w, (l.Inner + w - 1) / w
}

func (c *call) run(i, parts int, s *scratch) {
	switch c.mode {
	case modeRows:
		lo, hi := share(c.l.Outer, i, parts)
		for r := lo; r < hi; r++ {
			c.row(r*c.l.Axis, c.l.Axis, s)
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
			o, b := t/c.blocks, t%c.blocks
			i0 := b * c.width
			c.lanes(o*c.l.Axis*c.l.Inner+i0, min(c.width, c.l.Inner-i0), s)
		}
	}
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
