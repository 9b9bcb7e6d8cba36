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
	for _, dt := range []spec.DType{spec.Float32, spec.Float64, spec.BFloat16} {
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
						out[i] = float64(math.Float32frombits(uint32(g.U16[i]) << 16))
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
