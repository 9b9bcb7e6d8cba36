package cuda

import (
	"math"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
)

// The 16-bit exps at the bottom of the range, through every forward
// strategy that serves the rows: f16 computes them with ex2.approx.ftz
// (results below 2^-126 become 0, which no f16 output could hold), bf16
// keeps subnormal results, and both must round like the float64 reference.
// Each row is [0, -88, -100, -16, -1000, ...]: exp(-88) ≈ 6.1e-39 is a bf16
// subnormal (0 in f16), exp(-100) ≈ 3.7e-44 is 0 in both, exp(-16) ≈ 1.1e-7
// is an f16 subnormal.
func TestSixteenBitTinyExps(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	const rows, cols = 64, 1024
	head := []float64{0, -88, -100, -16}
	row := make([]float64, cols)
	for j := range row {
		row[j] = -1000
	}
	copy(row, head)
	sum := 0.0
	for _, v := range row {
		sum += math.Exp(v)
	}
	for _, dt := range []softmax.DType{softmax.BFloat16, softmax.Float16} {
		bits := func(v float64) uint16 {
			if dt == softmax.Float16 {
				return softmax.FloatToHalfBits(float32(v))
			}
			return uint16(softmax.BFloat16From(float32(v)))
		}
		x, err := softmax.NewTensor(dt, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < rows; r++ {
			for j, v := range row {
				x.U16[r*cols+j] = bits(v)
			}
		}
		want := make([]int, len(head))
		for j := range head {
			want[j] = int(bits(math.Exp(row[j]) / sum))
		}
		ran := 0
		for _, algo := range append([]string{""}, Strategies()...) {
			y, _ := softmax.NewTensor(dt, rows, cols)
			for k := range y.U16 {
				y.U16[k] = 0x7fff // poison: a NaN in both formats
			}
			err := d.ApplyHost(spec.Softmax, y, x, Options{Axis: -1, Algo: algo})
			if unsupported(err) {
				continue
			}
			if err != nil {
				t.Fatalf("%v %q: %v", dt, algo, err)
			}
			ran++
			for r := 0; r < rows; r++ {
				for j := range head {
					// Positive values order like their bit patterns: allow the
					// neighbours of the rounded reference (the kernels' exps are
					// approximations), but a zero must be exact.
					w, got := want[j], int(y.U16[r*cols+j])
					if got != w && (w == 0 || got < w-1 || got > w+1) {
						t.Errorf("%v %q row %d: softmax of %v has bits %#04x, want %#04x", dt, algo, r, row[j], got, w)
					}
				}
			}
		}
		if ran == 0 {
			t.Errorf("%v: no strategy served %dx%d", dt, rows, cols)
		}
	}
}
