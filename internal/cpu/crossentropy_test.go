package cpu

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/xent"
)

// The streamed schedule (non-temporal gradient stores, deferred to the
// next row's exp pass) runs only on large tensors: with streamBytes
// shrunk, small ones take it, at 1 to 3 threads, in place and not, and
// must give what the plain schedule gives.
func TestCrossEntropyStreamedMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const rows, v = 13, 3001
	for _, dt := range []spec.DType{spec.Float32, spec.Float64, spec.BFloat16, spec.Float16} {
		for _, opt := range []xent.Options{{}, {LabelSmoothing: 0.1}, {Softcap: 3, Scale: 2}} {
			x := Buf{DType: dt}
			n := rows * v
			switch dt {
			case spec.Float32:
				x.F32 = make([]float32, n)
				for i := range x.F32 {
					x.F32[i] = float32(rng.NormFloat64())
				}
			case spec.Float64:
				x.F64 = make([]float64, n)
				for i := range x.F64 {
					x.F64[i] = rng.NormFloat64()
				}
			default:
				x.U16 = make([]uint16, n)
				for i := range x.U16 {
					x.U16[i] = uint16(math.Float32bits(float32(rng.NormFloat64())) >> 16)
				}
			}
			tg := make([]int64, rows)
			for i := range tg {
				tg[i] = int64(rng.IntN(v))
			}
			tg[4] = -100
			tg[rows-1] = -100 // an ignored last row leaves a pending row to flush
			run := func(inPlace bool) ([]float64, []float64) {
				g := Buf{DType: dt, F32: append([]float32(nil), x.F32...), F64: append([]float64(nil), x.F64...), U16: append([]uint16(nil), x.U16...)}
				xin := x
				if inPlace {
					xin = g
				}
				loss := make([]float64, rows)
				CrossEntropy(CE{Rows: rows, V: v, X: xin, Grad: g, HasGrad: true, Targets: xent.Targets{I64: tg}, Ignore: -100,
					Opt: opt, WSum: v, GScale: 1, Loss: loss})
				out := make([]float64, n)
				for i := range out {
					switch dt {
					case spec.Float32:
						out[i] = float64(g.F32[i])
					case spec.Float64:
						out[i] = g.F64[i]
					default:
						out[i] = float64(math.Float32frombits(uint32(g.U16[i]) << 16)) // the bits, compared exactly (float16 too)
					}
				}
				return loss, out
			}
			wantL, want := run(false)
			saved := streamBytes
			defer func() { streamBytes = saved; runtime.GOMAXPROCS(runtime.GOMAXPROCS(0)) }()
			streamBytes = 1
			for _, p := range []int{1, 2, 3} {
				prev := runtime.GOMAXPROCS(p)
				for _, inPlace := range []bool{false, true} {
					gotL, got := run(inPlace)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%v %+v %d threads in place %v: grad[%d] = %v, plain schedule %v", dt, opt, p, inPlace, i, got[i], want[i])
						}
					}
					for i := range wantL {
						if gotL[i] != wantL[i] {
							t.Fatalf("%v %+v: loss[%d] = %v, plain schedule %v", dt, opt, i, gotL[i], wantL[i])
						}
					}
				}
				runtime.GOMAXPROCS(prev)
			}
			streamBytes = saved
		}
	}
}

// Rows that take exps1's rare turns, against a float64 reference and with
// both schedules (streamBytes 1 and the default), float32 and bfloat16:
// a chunk far above the chunks before it (its exps overflow, recomputed
// against the row's max), two steps of 50 (exps up to e^50, the middle
// chunk 100 below the max: recomputed, as its multiplier would underflow
// where its p are ~e^-50), a first chunk of
// −MaxFloat32 (a masked_fill with finfo.min), a +∞ (NaN loss), a row of
// −∞ (lse −∞) and NaN (NaN loss).
func TestCrossEntropyOneExpPassEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(68, 1))
	const rows, v = 6, 3*chunk + 100
	xs := make([]float64, rows*v)
	for r := range rows {
		for j := range v {
			val := rng.NormFloat64()
			switch {
			case r == 0 && j < chunk:
				val -= 100
			case r == 1 && j < chunk:
				val -= 100
			case r == 1 && j < 2*chunk:
				val -= 50
			case r == 2 && j < chunk:
				val = -math.MaxFloat32
			case r == 3 && j == 2*chunk+7:
				val = math.Inf(1)
			case r == 4:
				val = math.Inf(-1)
			case r == 5 && j == 5:
				val = math.NaN()
			}
			xs[r*v+j] = val
		}
	}
	tg := []int64{5, chunk + 3, 2*chunk + 1, 0, 1, 2}
	for _, dt := range []spec.DType{spec.Float32, spec.BFloat16} {
		x := Buf{DType: dt}
		if dt == spec.Float32 {
			x.F32 = make([]float32, len(xs))
			for i, f := range xs {
				x.F32[i] = float32(f)
				xs[i] = float64(x.F32[i])
			}
		} else {
			x.U16 = make([]uint16, len(xs))
			for i, f := range xs {
				b := math.Float32bits(float32(f))
				if f == -math.MaxFloat32 {
					b = 0xff7f0000 // bfloat16's most negative finite
				}
				x.U16[i] = uint16(b >> 16)
				xs[i] = float64(math.Float32frombits(uint32(x.U16[i]) << 16))
			}
		}
		for _, sb := range []int{streamBytes, 1} {
			saved := streamBytes
			streamBytes = sb
			g := Buf{DType: dt, F32: make([]float32, len(x.F32)), U16: make([]uint16, len(x.U16))}
			loss, lse := make([]float64, rows), make([]float64, rows)
			CrossEntropy(CE{Rows: rows, V: v, X: x, Grad: g, HasGrad: true, Targets: xent.Targets{I64: tg}, Ignore: -100,
				WSum: v, GScale: 1, Loss: loss, LSE: lse})
			streamBytes = saved
			tol := 2e-5
			if dt == spec.BFloat16 {
				tol = 1e-2
			}
			for r := range rows {
				row := xs[r*v : r*v+v]
				m := math.Inf(-1)
				for _, f := range row {
					m = max(m, f)
				}
				var d float64
				for _, f := range row {
					d += math.Exp(f - m)
				}
				wl := m + math.Log(d)
				switch r {
				case 3, 5:
					if !math.IsNaN(loss[r]) {
						t.Errorf("%v row %d: loss %v, want NaN", dt, r, loss[r])
					}
					continue
				case 4:
					if !math.IsInf(lse[r], -1) {
						t.Errorf("%v row %d: lse %v, want −∞", dt, r, lse[r])
					}
					continue
				}
				if math.Abs(lse[r]-wl) > tol*(1+math.Abs(wl)) || math.Abs(loss[r]-(wl-row[tg[r]])) > tol*(1+math.Abs(wl)) {
					t.Errorf("%v stream %d row %d: lse %v loss %v, want %v %v", dt, sb, r, lse[r], loss[r], wl, wl-row[tg[r]])
				}
				for j, f := range row {
					want := math.Exp(f - wl)
					if int64(j) == tg[r] {
						want--
					}
					var got float64
					if dt == spec.Float32 {
						got = float64(g.F32[r*v+j])
					} else {
						got = float64(math.Float32frombits(uint32(g.U16[r*v+j]) << 16))
					}
					if math.Abs(got-want) > 4*tol*math.Abs(want)+1e-37 && (j != int(tg[r]) || math.Abs(got-want) > 4*tol) {
						t.Fatalf("%v stream %d row %d: grad[%d] = %v, want %v", dt, sb, r, j, got, want)
					}
				}
			}
		}
	}
}
