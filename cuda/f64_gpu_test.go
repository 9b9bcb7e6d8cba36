package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// float64 on the GPU: every f64 case of the battery (the four ops, last and
// non-last axes, ragged and edge-value fills) through the planner and
// through each strategy with f64 kernels, against the compensated float64
// reference (verify.Tolerance: 1e-13 relative), outputs poisoned first.
func TestFloat64AgainstReference(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(7, uint64(rand.Int64())))
	algos := []string{"auto"}
	for _, in := range kernels.Production() {
		if len(in.Symbols(spec.Float64)) > 0 {
			algos = append(algos, string(in.Strategy))
		}
	}
	for _, algo := range algos {
		t.Run(algo, func(t *testing.T) {
			run, skipped := 0, 0
			for _, c := range verify.Battery(testing.Short()) {
				if c.DType != softmax.Float64 {
					continue
				}
				r := verify.Run(c, rng, backend(d, algo))
				if algo != "auto" && unsupported(r.Err) {
					skipped++
					continue
				}
				run++
				if !r.OK() {
					t.Errorf("%s: rel %.3g (tol %.0e) err %v", c.Name(), r.Rel, r.Tol, r.Err)
				}
			}
			t.Logf("%s: %d f64 cases run, %d not served by this strategy", algo, run, skipped)
			if run == 0 {
				t.Error("no f64 case ran")
			}
		})
	}
}

// A float64 tensor of more than 2^31 elements (64-bit indexing), softmax
// and log_softmax in place along the last axis and along the first; sampled
// slices checked against a float64 host computation with compensated sums.
func TestFloat64Huge(t *testing.T) {
	d := openOrSkip(t)
	if testing.Short() {
		t.Skip("17 GB tensor in -short mode")
	}
	const rows, cols = 1 << 15, 65537 // 2,147,516,416 elements > 2^31
	val := func(r, j int) float64 { return float64((r*31+j*17)%1000)/125 - 4 + float64(j%7)*1e-9 }
	x, err := d.NewTensor(softmax.Float64, rows, cols)
	if err != nil {
		t.Skip("cannot allocate: " + err.Error())
	}
	defer x.Free()
	upload := func() {
		h := softmax.Tensor{Shape: []int{512, cols}, DType: softmax.Float64, F64: make([]float64, 512*cols)}
		for r := 0; r < rows; r += 512 {
			for k := 0; k < 512; k++ {
				for j := 0; j < cols; j++ {
					h.F64[k*cols+j] = val(r+k, j)
				}
			}
			b, _ := Tensor{DType: softmax.Float64, Shape: h.Shape}.hostBytes(h)
			if err := x.Buf.Write(int64(r)*cols*8, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	read := func(off, n int64) []float64 {
		h := softmax.Tensor{Shape: []int{int(n)}, DType: softmax.Float64, F64: make([]float64, n)}
		b, _ := Tensor{DType: softmax.Float64, Shape: h.Shape}.hostBytes(h)
		if err := x.Buf.Read(off*8, b); err != nil {
			t.Fatal(err)
		}
		return h.F64
	}
	// ref returns softmax or log_softmax of v, sums in Neumaier form.
	ref := func(v []float64, log bool) []float64 {
		m := math.Inf(-1)
		for _, a := range v {
			m = math.Max(m, a)
		}
		s, c := 0.0, 0.0
		for _, a := range v {
			e := math.Exp(a - m)
			t := s + e
			if math.Abs(s) >= math.Abs(e) {
				c += (s - t) + e
			} else {
				c += (e - t) + s
			}
			s = t
		}
		s += c
		out := make([]float64, len(v))
		for i, a := range v {
			if log {
				out[i] = (a - m) - math.Log(s)
			} else {
				out[i] = math.Exp(a-m) / s
			}
		}
		return out
	}
	relNorm := func(got, want []float64) float64 {
		var num, den float64
		for i := range got {
			num += (got[i] - want[i]) * (got[i] - want[i])
			den += want[i] * want[i]
		}
		return math.Sqrt(num / den)
	}
	for _, log := range []bool{false, true} {
		op := softmax.OpSoftmax
		if log {
			op = softmax.OpLogSoftmax
		}
		upload()
		if err := d.Apply(op, x, x, Options{Axis: -1}, nil); err != nil {
			t.Fatal(err)
		}
		for _, r := range []int{0, 1, rows/2 + 3, rows - 1} {
			v := make([]float64, cols)
			for j := range v {
				v[j] = val(r, j)
			}
			if e := relNorm(read(int64(r)*cols, cols), ref(v, log)); !(e <= 1e-12) {
				t.Errorf("%v axis -1 row %d: relative error %.3g", op, r, e)
			}
		}
		upload()
		if err := d.Apply(op, x, x, Options{Axis: 0}, nil); err != nil {
			t.Fatal(err)
		}
		for _, j := range []int{0, 5, cols - 1} {
			v, got := make([]float64, rows), make([]float64, rows)
			for r := range v {
				v[r] = val(r, j)
				got[r] = read(int64(r)*cols+int64(j), 1)[0]
			}
			if e := relNorm(got, ref(v, log)); !(e <= 1e-12) {
				t.Errorf("%v axis 0 column %d: relative error %.3g", op, j, e)
			}
		}
	}
}
