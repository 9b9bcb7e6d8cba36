package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax"
)

// f64Logits returns rows × v float64 logits (normal, σ 3, not rounded to
// float32) with ceHost's special rows, and targets (row 1 ignored).
func f64Logits(rng *rand.Rand, rows, v int, ignore int64) (softmax.Tensor, []int64) {
	x, _ := softmax.NewTensor(softmax.Float64, rows, v)
	for i := range x.F64 {
		x.F64[i] = 3 * rng.NormFloat64()
	}
	if rows > 3 && v > 2 {
		for j := 0; j < v; j += 2 {
			x.F64[2*v+j] = math.Inf(-1)
		}
		x.F64[3*v+v/2] = math.NaN()
	}
	tg := make([]int64, rows)
	for i := range tg {
		tg[i] = int64(rng.IntN(v))
	}
	if rows > 2 {
		tg[1] = ignore
		tg[2] = int64(min(1, v-1))
	}
	return x, tg
}

// rel12 reports got within 1e-12 of want relative to max(|want|, 1).
func rel12(got, want float64) bool { return near(got, want, 1e-12*max(math.Abs(want), 1)) }

func readF64(t *testing.T, x Tensor, n int) []float64 {
	t.Helper()
	h, _ := softmax.NewTensor(softmax.Float64, n)
	if err := x.CopyTo(h); err != nil {
		t.Fatal(err)
	}
	return h.F64
}

// Float64 logits: f64 storage and double arithmetic on the GPU, within
// 1e-12 of the float64 CPU reference (loss, lse, gradient relative to its
// row's largest entry, backward, log p[target], log-sum-exp), cached and
// streamed rows, options alone and combined.
func TestCrossEntropyFloat64(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	const rows = 13
	for _, v := range []int{1, 7, 781, 16383, 16384, 50257} {
		w := weights(v, 11)
		for ci, c := range []struct {
			opt softmax.CrossEntropyOptions
			g   softmax.GradOutput
		}{
			{},
			{opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.2, Weights: w, ZLoss: 1e-3, Softcap: 7, Scale: 1.3}, g: softmax.GradOutput{Scalar: 0.5}},
			{opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone, IgnoreIndex: softmax.Ignore(0), Scale: 1e-300},
				g: softmax.GradOutput{Rows: rowsOf(rows)}},
			{opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionSum, LabelSmoothing: 0.1}},
		} {
			name := fmt.Sprintf("f64 V=%d case %d", v, ci)
			x, tg := f64Logits(rand.New(rand.NewPCG(uint64(v), uint64(ci))), rows, v, c.opt.Ignored())
			nl := 1
			if c.opt.Reduction == softmax.ReductionNone {
				nl = rows
			}
			g64, _ := softmax.NewTensor(softmax.Float64, rows, v)
			ref := softmax.CrossEntropyOutput{Loss: make([]float64, nl), LSE: make([]float64, rows), Grad: &g64, GradOutput: c.g}
			if err := softmax.CrossEntropy(x, softmax.Targets{I64: tg}, c.opt, ref); err != nil {
				t.Fatalf("%s: reference: %v", name, err)
			}
			dx, _ := d.UploadAt(x, 8) // rows off their 16-byte boundary
			dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
			loss, _ := d.NewTensor(softmax.Float64, nl)
			lse, _ := d.NewTensor(softmax.Float64, rows)
			grad, _ := d.NewTensor(softmax.Float64, rows, v)
			bwd, _ := d.NewTensor(softmax.Float64, rows, v)
			for _, b := range []*Buffer{loss.Buf, lse.Buf, grad.Buf, bwd.Buf} {
				b.Fill(0, 0x7ff80001, b.Size()/4, nil) // NaN halves: poison
				defer b.Free()
			}
			defer dx.Free()
			defer dtg.Buf.Free()
			if err := d.CrossEntropy(dx, dtg, c.opt, CrossEntropyOutput{Loss: &loss, LSE: &lse, Grad: &grad, GradOutput: c.g}, nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := d.CrossEntropyBackward(bwd, dx, dtg, lse, c.opt, c.g, nil); err != nil {
				t.Fatalf("%s: backward: %v", name, err)
			}
			for i, got := range readF64(t, loss, nl) {
				if !rel12(got, ref.Loss[i]) {
					t.Errorf("%s: loss[%d] = %v, want %v", name, i, got, ref.Loss[i])
				}
			}
			for i, got := range readF64(t, lse, rows) {
				if !rel12(got, ref.LSE[i]) {
					t.Errorf("%s: lse[%d] = %v, want %v", name, i, got, ref.LSE[i])
				}
			}
			for k, gt := range []Tensor{grad, bwd} {
				got := readF64(t, gt, rows*v)
				bad := 0
				for r := range rows {
					mx := 0.0
					for _, g := range g64.F64[r*v : (r+1)*v] {
						if !math.IsNaN(g) {
							mx = max(mx, math.Abs(g))
						}
					}
					for j := range v {
						i := r*v + j
						if !near(got[i], g64.F64[i], 1e-12*max(mx, 1e-300)) {
							if bad++; bad <= 3 {
								t.Errorf("%s: %s grad[%d][%d] = %v, want %v (row max %v)", name, []string{"forward", "backward"}[k], r, j, got[i], g64.F64[i], mx)
							}
						}
					}
				}
			}
		}
		// log p[target] and the log-sum-exp of rows.
		x, tg := f64Logits(rand.New(rand.NewPCG(uint64(v), 99)), rows, v, -100)
		opt := softmax.CrossEntropyOptions{Scale: 0.9, Softcap: 10}
		want := make([]float64, rows)
		if err := softmax.TargetLogProbs(want, x, softmax.Targets{I64: tg}, opt); err != nil {
			t.Fatal(err)
		}
		lw, _ := softmax.NewTensor(softmax.Float64, rows)
		if err := softmax.LogSumExp(lw, x, softmax.Options{Axis: -1, Scale: 1e5}); err != nil {
			t.Fatal(err)
		}
		dx, _ := d.Upload(x)
		dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
		dst, _ := d.NewTensor(softmax.Float64, rows)
		ld, _ := d.NewTensor(softmax.Float64, rows)
		if err := d.TargetLogProbs(dst, dx, dtg, opt, nil); err != nil {
			t.Fatal(err)
		}
		if err := d.LogSumExp(ld, dx, Options{Axis: -1, Scale: 1e5}, nil); err != nil {
			t.Fatal(err)
		}
		for i, got := range readF64(t, dst, rows) {
			if !rel12(got, want[i]) {
				t.Errorf("f64 V=%d: log p[t] row %d = %v, want %v", v, i, got, want[i])
			}
		}
		for i, got := range readF64(t, ld, rows) {
			if !rel12(got, lw.F64[i]) {
				t.Errorf("f64 V=%d: lse row %d = %v, want %v", v, i, got, lw.F64[i])
			}
		}
		for _, b := range []*Buffer{dx.Buf, dtg.Buf, dst.Buf, ld.Buf} {
			b.Free()
		}
	}
}
