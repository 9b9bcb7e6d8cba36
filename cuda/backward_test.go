package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
	"github.com/x448/float16"
)

// Backward on the device against a float64 reference computed here from
// the stored (rounded) y and dy: the forward scale (issue 72 §3), in-place
// calls with dx == dy or dx == y (§4), and edge values (§5).

// bwdFill says how a backward case's inputs are drawn.
type bwdFill int

const (
	bwdRandom  bwdFill = iota // x ~ N(0, 3²), y its forward output; dy ~ N(0, 1)
	bwdNaNDy                  // as bwdRandom, one dy element NaN in every third slice
	bwdNegInfX                // a quarter of x −inf: y = 0 (softmax) or −inf (log_softmax)
	bwdZeroDy                 // as bwdRandom, every dy 0
)

// bwdAlias says which input dx is, if any.
type bwdAlias int

const (
	aliasNone bwdAlias = iota
	aliasDy
	aliasY
)

func (a bwdAlias) String() string { return [...]string{"dx", "dx=dy", "dx=y"}[a] }

// bwdCase is one backward call.
type bwdCase struct {
	op    spec.Op
	dt    spec.DType
	shape []int
	axis  int
	scale float64
	algo  string
	alias bwdAlias
	fill  bwdFill
}

func (c bwdCase) String() string {
	return fmt.Sprintf("%s %v %v %v axis %d scale %g %s fill %d", c.algo, c.op, c.dt, c.shape, c.axis, c.scale, c.alias, c.fill)
}

// rounded returns v as dt stores it, and that tensor.
func rounded(dt spec.DType, shape []int, v []float64) ([]float64, softmax.Tensor) {
	h := softmax.Tensor{Shape: shape, DType: dt}
	out := make([]float64, len(v))
	switch dt {
	case spec.Float32:
		h.F32 = make([]float32, len(v))
		for i, x := range v {
			h.F32[i] = float32(x)
			out[i] = float64(h.F32[i])
		}
	default:
		h.U16 = make([]uint16, len(v))
		for i, x := range v {
			if dt == spec.Float16 {
				h.U16[i] = softmax.FloatToHalfBits(float32(x))
			} else {
				h.U16[i] = uint16(softmax.BFloat16From(float32(x)))
			}
		}
		out = hostValues(h)
	}
	return out, h
}

// hostValues returns a host tensor's values as float64.
func hostValues(h softmax.Tensor) []float64 {
	out := make([]float64, h.Len())
	for i := range out {
		switch h.DType {
		case spec.Float32:
			out[i] = float64(h.F32[i])
		case spec.Float16:
			out[i] = float64(float16.Frombits(h.U16[i]).Float32())
		default:
			out[i] = float64(softmax.BFloat16Value(h.U16[i]).Float32())
		}
	}
	return out
}

// bwdInputs draws a case's y and dy (float64, before rounding).
func bwdInputs(c bwdCase, l spec.Layout, rng *rand.Rand) (y, dy []float64) {
	n := l.Outer * l.Axis * l.Inner
	y, dy = make([]float64, n), make([]float64, n)
	x := make([]float64, l.Axis)
	for s := 0; s < l.Outer*l.Inner; s++ {
		o, in := s/l.Inner, s%l.Inner
		at := func(j int) int { return (o*l.Axis+j)*l.Inner + in }
		m := math.Inf(-1)
		for j := range x {
			x[j] = 3 * rng.NormFloat64()
			if c.fill == bwdNegInfX && j%4 == s%4 && j != l.Axis-1 {
				x[j] = math.Inf(-1)
			}
			m = max(m, x[j])
		}
		sum := 0.0
		for _, v := range x {
			sum += math.Exp(v - m)
		}
		for j, v := range x {
			if c.op.Log() {
				y[at(j)] = v - m - math.Log(sum)
			} else {
				y[at(j)] = math.Exp(v-m) / sum
			}
			switch {
			case c.fill == bwdZeroDy:
				dy[at(j)] = 0
			case c.fill == bwdNaNDy && s%3 == 1 && j == l.Axis/2:
				dy[at(j)] = math.NaN()
			default:
				dy[at(j)] = rng.NormFloat64()
			}
		}
	}
	return y, dy
}

// bwdRef returns the float64 gradient and, per element, the size of the
// terms it sums (the error scale of a float32 computation).
func bwdRef(op spec.Op, l spec.Layout, scale float64, y, dy []float64) (ref, cond []float64) {
	ref, cond = make([]float64, len(y)), make([]float64, len(y))
	for s := 0; s < l.Outer*l.Inner; s++ {
		o, in := s/l.Inner, s%l.Inner
		at := func(j int) int { return (o*l.Axis+j)*l.Inner + in }
		sum, asum := 0.0, 0.0
		for j := 0; j < l.Axis; j++ {
			t := dy[at(j)]
			if !op.Log() {
				t *= y[at(j)]
			}
			sum += t
			asum += math.Abs(t)
		}
		for j := 0; j < l.Axis; j++ {
			yy, g := y[at(j)], dy[at(j)]
			if op.Log() {
				ref[at(j)] = scale * (g - math.Exp(yy)*sum)
				cond[at(j)] = math.Abs(scale) * (math.Abs(g) + math.Exp(yy)*asum)
			} else {
				ref[at(j)] = scale * yy * (g - sum)
				cond[at(j)] = math.Abs(scale) * math.Abs(yy) * (math.Abs(g) + asum)
			}
		}
	}
	return ref, cond
}

// bwdTol returns the elementwise tolerance: rel·(|ref| + cond) + abs.
func bwdTol(dt spec.DType) (rel, abs float64) {
	switch dt {
	case spec.Float32:
		return 1e-5, 1e-30
	case spec.Float16:
		return 2e-3, 1e-7
	}
	return 1.6e-2, 1e-30
}

// bwdData is a case's rounded inputs, as values and host tensors, and
// its reference.
type bwdData struct {
	yv, dyv   []float64
	yh, dyh   softmax.Tensor
	ref, cond []float64
}

func newBwdData(c bwdCase, rng *rand.Rand) (bwdData, error) {
	l, err := spec.Decompose(c.shape, c.axis)
	if err != nil {
		return bwdData{}, err
	}
	var b bwdData
	yv, dyv := bwdInputs(c, l, rng)
	b.yv, b.yh = rounded(c.dt, c.shape, yv)
	b.dyv, b.dyh = rounded(c.dt, c.shape, dyv)
	b.ref, b.cond = bwdRef(c.op, l, float64(float32(c.scale)), b.yv, b.dyv)
	return b, nil
}

// check compares dx with the reference, elementwise.
func (b bwdData) check(dt spec.DType, dx softmax.Tensor) error {
	rel, abs := bwdTol(dt)
	bad, first := 0, ""
	for i, got := range hostValues(dx) {
		r := b.ref[i]
		ok := false
		switch {
		case math.IsNaN(r) || math.IsNaN(got):
			ok = math.IsNaN(r) && math.IsNaN(got)
		case math.IsInf(r, 0) || math.IsInf(got, 0):
			ok = r == got
		default:
			ok = math.Abs(got-r) <= rel*(math.Abs(r)+b.cond[i])+abs
		}
		if !ok {
			if bad == 0 {
				first = fmt.Sprintf("element %d: got %g, want %g (y %g dy %g)", i, got, r, b.yv[i], b.dyv[i])
			}
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d elements wrong, first %s", bad, len(b.ref), first)
	}
	return nil
}

// errNotServed marks a case the forced strategy cannot serve.
var errNotServed = errors.New("not served")

// runBwd runs c on the device (outputs poisoned with NaN unless aliased)
// and compares with the reference; errNotServed when the forced strategy
// refuses the case.
func runBwd(d *Device, c bwdCase, rng *rand.Rand) error {
	b, err := newBwdData(c, rng)
	if err != nil {
		return err
	}
	y, err := d.Upload(b.yh)
	if err != nil {
		return err
	}
	defer y.Free()
	dy, err := d.Upload(b.dyh)
	if err != nil {
		return err
	}
	defer dy.Free()
	var dx Tensor
	switch c.alias {
	case aliasDy:
		dx = dy
	case aliasY:
		dx = y
	default:
		if dx, err = d.NewTensor(c.dt, c.shape...); err != nil {
			return err
		}
		defer dx.Free()
		nan := make([]byte, dx.Bytes()) // 0xff bytes: NaN in every dtype
		for i := range nan {
			nan[i] = 0xff
		}
		if err := dx.Buf.Write(dx.Offset, nan); err != nil {
			return err
		}
	}
	opt := Options{Axis: c.axis, Scale: c.scale, Algo: c.algo}
	if err := d.ApplyBackward(c.op, dx, y, dy, opt, nil); err != nil {
		if unsupported(err) {
			return errNotServed
		}
		return err
	}
	out := softmax.Tensor{Shape: c.shape, DType: c.dt}
	if c.dt == spec.Float32 {
		out.F32 = make([]float32, len(b.ref))
	} else {
		out.U16 = make([]uint16, len(b.ref))
	}
	if err := dx.CopyTo(out); err != nil {
		return err
	}
	return b.check(c.dt, out)
}

// bwdShape is a shape along an axis.
type bwdShape struct {
	shape []int
	axis  int
}

// bwdShapes cover every backward strategy: short, ragged and long rows
// (up to split_row's, split_grid's and split_cluster's), and non-last axes
// for the strided kernels (short, narrow Inner, shared-memory blocks,
// long axes).
var bwdShapes = []bwdShape{
	{[]int{300, 781}, -1}, {[]int{512, 256}, -1}, {[]int{100, 100}, -1}, {[]int{3000, 1024}, -1},
	{[]int{64, 4096}, -1}, {[]int{16, 16384}, -1}, {[]int{8, 50257}, -1}, {[]int{2, 300007}, -1},
	{[]int{3, 1 << 20}, -1},
	{[]int{64, 6, 256}, 1}, {[]int{16, 100, 4}, 1}, {[]int{8, 781, 33}, 1}, {[]int{4, 4096, 64}, 1},
}

// forEachServed runs body, a subtest a strategy (and auto), for shapes ×
// dtypes × backward ops, skipping what the forced strategy cannot serve
// (-short: shapes under a million elements).
func forEachServed(t *testing.T, d *Device, shapes []bwdShape, dts []spec.DType, body func(c bwdCase) error) {
	t.Helper()
	for _, algo := range append([]string{"auto"}, Strategies()...) {
		t.Run(algo, func(t *testing.T) {
			served := 0
			for _, sh := range shapes {
				if n, _ := spec.NumElements(sh.shape); testing.Short() && n >= 1<<20 {
					continue
				}
				for _, dt := range dts {
					for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
						c := bwdCase{op: op, dt: dt, shape: sh.shape, axis: sh.axis, algo: algo}
						if _, err := d.Plan(op, dt, c.shape, Options{Axis: c.axis, Algo: algo}); unsupported(err) {
							continue
						}
						served++
						if err := body(c); err != nil && !errors.Is(err, errNotServed) {
							t.Errorf("%v: %v", c, err)
						}
					}
				}
			}
			t.Logf("%s: %d backward cases served", algo, served)
		})
	}
}

// The forward scale in backward: dx = c·y·(dy − Σ dy·y), c·(dy − exp(y)·Σ dy)
// for every strategy that serves backward, several scales (negative too),
// every dtype.
func TestBackwardScale(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(72, uint64(rand.Int64())))
	scales := []float64{0.5, -1.5, 1, 2.75, -0.3}
	i := 0
	forEachServed(t, d, bwdShapes, []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}, func(c bwdCase) error {
		c.scale = scales[i%len(scales)]
		i++
		return runBwd(d, c, rng)
	})
}

// In place: dx may be dy or y itself (issue 72 §4); every strategy reads a
// row's inputs for its sum before it writes any of the row's outputs, and
// each element's own inputs before its output, so each must be exact.
func TestBackwardAlias(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(73, uint64(rand.Int64())))
	forEachServed(t, d, bwdShapes, []spec.DType{spec.Float32, spec.BFloat16}, func(c bwdCase) error {
		c.scale = -1.5
		for _, a := range []bwdAlias{aliasDy, aliasY} {
			c.alias = a
			if err := runBwd(d, c, rng); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
		}
		return nil
	})
}

// Edge values: NaN in dy (its slice's gradient NaN), −inf inputs (y = 0,
// or −inf for log_softmax: exp(y) = 0), all-zero dy (dx = 0), with and
// without a scale, in place too.
func TestBackwardEdgeValues(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(74, uint64(rand.Int64())))
	algos := []string{"auto", "block_reg", "warp_row", "online_2pass", "split_row", "split_grid", "split_cluster",
		"strided", "strided_smem", "strided_short", "strided_narrow"}
	for _, algo := range algos {
		t.Run(algo, func(t *testing.T) {
			served := 0
			for _, sh := range bwdShapes {
				if n, _ := spec.NumElements(sh.shape); n >= 1<<20 {
					continue // 36 cases a shape: the long rows stop at 300007 here
				}
				for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
					for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
						for _, fill := range []bwdFill{bwdNaNDy, bwdNegInfX, bwdZeroDy} {
							for _, scale := range []float64{1, -0.5} {
								c := bwdCase{op: op, dt: dt, shape: sh.shape, axis: sh.axis, algo: algo, fill: fill,
									scale: scale, alias: bwdAlias(served % 3)}
								if _, err := d.Plan(op, dt, c.shape, Options{Axis: c.axis, Algo: algo}); unsupported(err) {
									continue
								}
								served++
								if err := runBwd(d, c, rng); err != nil {
									t.Errorf("%v: %v", c, err)
								}
							}
						}
					}
				}
			}
			if served == 0 {
				t.Errorf("%s served no edge-value case", algo)
			}
		})
	}
}

// bwdSanitizeShapes are small shapes for compute-sanitizer (memcheck,
// racecheck) that still reach each backward strategy: split kernels'
// rows (70000), ragged rows, and the strided kernels' axes.
var bwdSanitizeShapes = []bwdShape{
	{[]int{3, 781}, -1}, {[]int{2, 70000}, -1}, {[]int{5, 4097}, -1}, {[]int{64, 24}, -1}, {[]int{41, 77}, -1},
	{[]int{16, 300, 8}, 1}, {[]int{9, 12, 64}, 1}, {[]int{5, 64, 4}, 1}, {[]int{3, 49, 129}, 1}, {[]int{2, 4000, 3}, 1},
}

// A small subset for compute-sanitizer: every strategy in place, over dy
// and over y (TestSanitize has them apart), with a negative scale.
func TestBackwardSanitize(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(75, 76))
	forEachServed(t, d, bwdSanitizeShapes, []spec.DType{spec.Float32, spec.Float16}, func(c bwdCase) error {
		c.scale = -1.5
		for _, a := range []bwdAlias{aliasDy, aliasY} {
			c.alias = a
			if err := runBwd(d, c, rng); err != nil {
				return fmt.Errorf("%s: %w", a, err)
			}
		}
		return nil
	})
}

// Any partial overlap of dx with y or dy is an error (nothing launched);
// exact aliasing is not.
func TestBackwardPartialOverlap(t *testing.T) {
	d := openOrSkip(t)
	const n = 1024
	buf, err := d.Alloc(4 * (3*n + 16))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	at := func(elem int64) Tensor {
		return Tensor{Buf: buf, Offset: 4 * elem, Shape: []int{4, n / 4}, DType: spec.Float32}
	}
	y, dy := at(0), at(2*n) // elements [0, n) and [2n, 3n)
	for _, tc := range []struct {
		name      string
		dx, y, dy Tensor
		overlap   bool
	}{
		{"dx starts inside y", at(4), y, dy, true},
		{"dx ends inside dy", at(n + 8), y, dy, true},
		{"dx starts inside dy", at(2*n + 4), y, dy, true},
		{"dx = dy", dy, y, dy, false},
		{"dx = y", y, y, dy, false},
		{"dx between them", at(n), y, dy, false},
	} {
		err := d.ApplyBackward(spec.SoftmaxBackward, tc.dx, tc.y, tc.dy, Options{Axis: -1, Scale: 2}, nil)
		if got := errors.Is(err, softmax.ErrOverlap); got != tc.overlap {
			t.Errorf("%s: err %v, want an overlap error: %v", tc.name, err, tc.overlap)
		}
		if !tc.overlap && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
