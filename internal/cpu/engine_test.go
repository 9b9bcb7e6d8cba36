package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/ref"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// The engine's schedules (cached rows with the streamed pipeline, long and
// split rows, cached slabs, blocked lanes with and without an axis split)
// are chosen by size. These tests shrink the size thresholds so that small
// tensors take every path, at several thread counts, and compare with the
// float64 reference through the accuracy battery's checks.

func engineBackend(c verify.Case, out verify.Host, in []verify.Host) error {
	l, err := spec.Decompose(c.Shape, c.Axis)
	if err != nil {
		return err
	}
	buf := func(h verify.Host) Buf { return Buf{DType: h.DType, F32: h.F32, U16: h.U16, F64: h.F64} }
	scale := c.Scale
	if scale == 0 {
		scale = 1
	}
	if c.Op.Backward() {
		Backward(c.Op, l, scale, buf(out), buf(in[0]), buf(in[1]))
	} else {
		Forward(c.Op, l, scale, buf(out), buf(in[0]))
	}
	return nil
}

// withThresholds runs f with the tuning variables set to small values (or
// the defaults, with small false) and GOMAXPROCS at procs.
func withThresholds(t *testing.T, small bool, procs int, f func(t *testing.T)) {
	saved := [...]int{rowCache, streamBytes, slabBytes, blockWidth, blockBytes, minWorkBytes, streamWorkers}
	defer func() {
		rowCache, streamBytes, slabBytes, blockWidth, blockBytes = saved[0], saved[1], saved[2], saved[3], saved[4]
		minWorkBytes, streamWorkers = saved[5], saved[6]
	}()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	if small {
		// Rows over 300 take the two-pass path; every float32 output is
		// streamed, at any thread count; slabs hold 16 KiB (so axes over
		// 8 steps go blocked, unless the inner dimension is narrow); lanes
		// go 32 at a time in blocks of 8 steps; every share goes to its
		// own worker.
		rowCache, streamBytes, slabBytes, blockWidth, blockBytes = 300, 0, 16<<10, 32, 1<<10
		minWorkBytes, streamWorkers = 1, 1<<30
	}
	f(t)
}

// engineShapes exercise each schedule under the small thresholds.
var engineShapes = []struct {
	shape []int
	axis  int
	path  string
}{
	{[]int{37, 300}, -1, "cached rows, pipelined"},
	{[]int{5, 301}, -1, "two-pass rows"},
	{[]int{1, 40001}, -1, "split row"},
	{[]int{3, 7, 50}, 1, "cached slab"},
	{[]int{3, 400, 70}, 1, "blocked lanes"},
	{[]int{1, 700, 20}, 1, "blocked lanes, axis split"},
	{[]int{1, 300, 5}, 1, "blocked lanes, narrow"},
	{[]int{2, 129, 33}, 1, "blocked lanes, ragged"},
}

func TestEnginePaths(t *testing.T) {
	fills := []verify.Fill{verify.Random, verify.NegInf, verify.AllNegInf, verify.NaN, verify.PosInf,
		verify.Huge, verify.Constant, verify.Wide}
	ops := []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	for _, small := range []bool{true, false} {
		for _, procs := range []int{1, 2, 5} {
			if !small && procs != 2 {
				continue // the defaults send these shapes down few paths
			}
			name := fmt.Sprintf("small=%v/procs=%d", small, procs)
			t.Run(name, func(t *testing.T) {
				withThresholds(t, small, procs, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(uint64(procs), 7))
					for _, sh := range engineShapes {
						for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16, spec.Float64} {
							for _, op := range ops {
								for _, f := range fills {
									if op.Backward() && f != verify.Random && f != verify.NegInf && f != verify.NaN {
										continue
									}
									if f == verify.Constant && dt == spec.Float16 && sh.shape[len(sh.shape)-1] > 2048 {
										// 1/40001 is a float16 subnormal: its
										// storage alone is 1e-3 off.
										continue
									}
									for _, sc := range []float64{1, -2} {
										c := verify.Case{Shape: sh.shape, Axis: sh.axis, DType: dt, Op: op, Scale: sc, Fill: f}
										if r := verify.Run(c, rng, engineBackend); !r.OK() {
											t.Errorf("%s: %s: rel %.3g (tol %.3g), %v", sh.path, c.Name(), r.Rel, r.Tol, r.Err)
										}
									}
								}
							}
						}
					}
				})
			})
		}
	}
}

// TestEngineLaneEdges plants −∞, +∞ and NaN at chosen steps of chosen
// lanes of a non-last axis, so that blocks of all −∞ come before finite
// ones, a later block raises the max, and the axis parts of a split
// disagree, and compares with the reference exactly in the NaN/±∞ pattern.
func TestEngineLaneEdges(t *testing.T) {
	const A, I = 200, 40
	x := make([]float64, A*I)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range x {
		x[i] = r.NormFloat64() * 3
	}
	at := func(j, i int) *float64 { return &x[j*I+i] }
	for j := 0; j < A; j++ {
		*at(j, 0) = math.Inf(-1) // lane 0: all −∞ → NaN
		if j < 150 {
			*at(j, 1) = math.Inf(-1) // lane 1: finite only at the end
		}
		*at(j, 2) = float64(j) // lane 2: rising, every block raises the max
		if j%2 == 0 {
			*at(j, 3) = math.Inf(-1) // lane 3: half −∞
		}
	}
	*at(170, 4) = math.Inf(1) // lane 4: +∞ late → NaN
	*at(5, 5) = math.NaN()    // lane 5: NaN early → NaN
	*at(199, 6) = 80          // lane 6: a dominant last step
	l := spec.Layout{Outer: 1, Axis: A, Inner: I}
	for _, small := range []bool{true, false} {
		for _, procs := range []int{1, 2, 3} {
			withThresholds(t, small, procs, func(t *testing.T) {
				for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
					want, _ := ref.Forward(op, l, x, 1)
					xs := make([]float32, len(x))
					for i, v := range x {
						xs[i] = float32(v)
					}
					y := make([]float32, len(x))
					Forward(op, l, 1, Buf{DType: spec.Float32, F32: y}, Buf{DType: spec.Float32, F32: xs})
					for i := range y {
						g, w := float64(y[i]), want[i]
						bad := math.IsNaN(g) != math.IsNaN(w)
						if !bad && !math.IsNaN(w) {
							bad = math.Abs(g-w) > 1e-5*math.Max(1, math.Abs(w))
						}
						if bad {
							t.Fatalf("small=%v procs=%d %v: step %d lane %d: got %v, want %v", small, procs, op, i/I, i%I, g, w)
						}
					}
					// Float64, against the compensated reference.
					want, _ = ref.ForwardCompensated(op, l, x, 1)
					y64 := make([]float64, len(x))
					Forward(op, l, 1, Buf{DType: spec.Float64, F64: y64}, Buf{DType: spec.Float64, F64: x})
					for i, g := range y64 {
						w := want[i]
						bad := math.IsNaN(g) != math.IsNaN(w)
						if !bad && !math.IsNaN(w) {
							bad = math.Abs(g-w) > 1e-13*math.Max(1, math.Abs(w))
						}
						if bad {
							t.Fatalf("f64 small=%v procs=%d %v: step %d lane %d: got %v, want %v", small, procs, op, i/I, i%I, g, w)
						}
					}
				}
			})
		}
	}
}

// TestEngineInPlace runs the streamed, pipelined paths with dst = x.
func TestEngineInPlace(t *testing.T) {
	withThresholds(t, true, 2, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		inPlace := func(c verify.Case, out verify.Host, in []verify.Host) error {
			copy(out.F32, in[0].F32)
			copy(out.U16, in[0].U16)
			copy(out.F64, in[0].F64)
			return engineBackend(c, out, []verify.Host{out})
		}
		for _, sh := range engineShapes {
			for _, dt := range []spec.DType{spec.Float32, spec.Float64} {
				for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
					c := verify.Case{Shape: sh.shape, Axis: sh.axis, DType: dt, Op: op, Fill: verify.Random}
					if r := verify.Run(c, rng, inPlace); !r.OK() {
						t.Errorf("%s: %s: rel %.3g, %v", sh.path, c.Name(), r.Rel, r.Err)
					}
				}
			}
		}
	})
}

// TestEngineBackwardInPlace runs every backward schedule with dx = y and
// dx = dy, every dtype, scaled and not: each pass must read an element of
// y and dy before writing dx there, and none may read it after.
func TestEngineBackwardInPlace(t *testing.T) {
	for _, procs := range []int{1, 3} {
		withThresholds(t, true, procs, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(procs)))
			for _, sh := range engineShapes {
				for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16, spec.Float64} {
					for _, op := range []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
						for k, a := range []verify.Alias{verify.AliasY, verify.AliasDY} {
							sc := []float64{-0.5, 1}[(k+procs)%2] // each alias scaled at one thread count
							c := verify.Case{Shape: sh.shape, Axis: sh.axis, DType: dt, Op: op, Scale: sc, Fill: verify.Random, Alias: a}
							if r := verify.Run(c, rng, engineBackend); !r.OK() {
								t.Errorf("procs=%d %s: %s: rel %.3g, %v", procs, sh.path, c.Name(), r.Rel, r.Err)
							}
						}
					}
				}
			}
		})
	}
}

// TestAheadView: Buf.ahead's 16-bit view covers whole 4-byte words from the boundary at or
// below element off and never reaches past element off+n-1 (checkptr and
// -race builds reject a view past the array's end).
func TestAheadView(t *testing.T) {
	u := make([]uint16, 37)
	b := Buf{DType: spec.Float16, U16: u}
	for off := range len(u) {
		for n := 1; off+n <= len(u); n++ {
			v := b.ahead(off, n)
			first := uintptr(unsafe.Pointer(&u[off]))
			last := uintptr(unsafe.Pointer(&u[off+n-1])) + 2
			if len(v) == 0 {
				if last-first&^3 >= 4 {
					t.Errorf("ahead(%d, %d): no words, want %d", off, n, (last-first&^3)/4)
				}
				continue
			}
			p := uintptr(unsafe.Pointer(&v[0]))
			if p != first&^3 || p+4*uintptr(len(v)) > last || p+4*uintptr(len(v))+4 <= last {
				t.Errorf("ahead(%d, %d): [%#x, %#x) for elements [%#x, %#x)", off, n, p, p+4*uintptr(len(v)), first, last)
			}
		}
	}
	if b.ahead(3, 0) != nil {
		t.Error("empty view not nil")
	}
	f := Buf{DType: spec.Float32, F32: make([]float32, 10)}
	if v := f.ahead(2, 5); &v[0] != &f.F32[2] || len(v) != 5 {
		t.Error("float32 view is not the storage")
	}
}

// TestRows16 checks rowCached16's rows (each one's max taken in the
// previous one's normalizing pass) bit for bit against the same kernels
// run a row at a time, for every row count a share can have, rows with NaN
// and of −∞ among them, at several thread counts.
func TestRows16(t *testing.T) {
	rng := rand.New(rand.NewPCG(70, 74))
	for _, procs := range []int{1, 2, 3} {
		withThresholds(t, false, procs, func(t *testing.T) {
			minWorkBytes = 1
			for _, bf := range []bool{true, false} {
				dt := spec.Float16
				if bf {
					dt = spec.BFloat16
				}
				for _, rows := range []int{1, 2, 3, 4, 5, 6, 7, 9, 37} {
					for _, n := range []int{16, 33, 1024, 3000} {
						for _, scale := range []float32{1, 0.5, -2} {
							x, y := benchBuf(dt, rows*n), Buf{DType: dt, U16: make([]uint16, rows*n)}
							negInf := uint16(0xfc00)
							if bf {
								negInf = 0xff80
							}
							for r := 0; r < rows; r++ {
								switch rng.IntN(6) {
								case 0:
									x.U16[r*n+rng.IntN(n)] = 0x7fc0 // a NaN in bfloat16 and float16
								case 1:
									for i := r * n; i < (r+1)*n; i++ {
										x.U16[i] = negInf
									}
								}
							}
							l, _ := spec.Decompose([]int{rows, n}, -1)
							Forward(spec.Softmax, l, float64(scale), y, x)
							e := make([]float32, n)
							want := make([]uint16, n)
							for r := 0; r < rows; r++ {
								u := x.U16[r*n : (r+1)*n]
								m := vec.Max16(u, bf, scale)
								var d float64 // float32 sums of chunks, as rowCached16's
								for k := 0; k < n; k += chunk {
									d += float64(vec.ExpSum16Ahead(e[k:min(k+chunk, n)], u[k:], bf, nil, scale, m))
								}
								vec.Normalize16(want, bf, e, float32(1/d), false)
								for i, w := range want {
									if g := y.U16[r*n+i]; g != w && !(nan16(g) && nan16(w)) {
										t.Fatalf("procs=%d %s %dx%d scale=%v: row %d [%d] = %#x, row alone %#x", procs, dt, rows, n, scale, r, i, g, w)
									}
								}
							}
						}
					}
				}
			}
		})
	}
}

// nan16 says whether u is above 0x7f80 in magnitude: a NaN in bfloat16
// and in float16 (whose other NaNs, 0x7c01–0x7f80, the tests do not make).
func nan16(u uint16) bool { return u&0x7fff > 0x7f80 }
