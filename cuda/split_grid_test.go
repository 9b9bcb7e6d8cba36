package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// splitGridRows plans split_grid with waves of rw rows.
func splitGridRows(rw int64) Options {
	return Options{planWith: func(p plan.Problem, d plan.Device, occ plan.Occupancy) (plan.Plan, error) {
		return plan.SplitGrid(p, d, occ, rw)
	}}
}

// waveSizes returns the wave sizes to try for rows: every row at once, then
// halving down to one row a wave, plus a size that leaves a short last wave.
func waveSizes(rows int64) []int64 {
	var out []int64
	for rw := rows; rw >= 1; rw /= 2 {
		out = append(out, rw)
	}
	if rows > 3 {
		out = append(out, rows/2+1)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// split_grid's wave loop (each wave's first read fused into the previous
// wave's writes) at every wave size, against the float64 reference: rows
// wholly cached and rows partly streamed, the element path (columns not a
// pack multiple), more rows than blocks, every op and dtype.
func TestSplitGridWaves(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(8, uint64(rand.Int64())))
	all := []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	two := []spec.Op{spec.Softmax, spec.LogSoftmaxBackward}
	f16 := []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}
	// Rows of 4M and 8M columns leave f16 out: with σ = 3 inputs nearly
	// every output is an f16 subnormal (spacing s = 6e-8), and that rounding
	// alone is about cols·s/(sqrt(12)·e^(σ²/2)) of the outputs' L2 norm:
	// 0.8e-3 at 4M, 1.6e-3 at 8M, against the f16 tolerance of 1e-3 (a 4M
	// row in waves of one row measured 1.08e-3 on H200).
	noF16 := []spec.DType{spec.Float32, spec.BFloat16}
	cases := []struct {
		shape []int
		dts   []spec.DType
		ops   []spec.Op
	}{
		{[]int{5, 300007}, f16, all}, {[]int{7, 65536}, f16, all}, {[]int{300, 1000}, f16, all}, {[]int{130, 20000}, f16, all},
		// Rows past the grid's cache (~29 MB on H100/H200) in some waves:
		// the streamed part of the chunks.
		{[]int{2, 8388608}, noF16, two}, {[]int{3, 1 << 22}, noF16, two},
	}
	for _, tc := range cases {
		sh := tc.shape
		for _, rw := range waveSizes(int64(min(sh[0], 132))) {
			t.Run(fmt.Sprintf("%dx%d/%d", sh[0], sh[1], rw), func(t *testing.T) {
				for _, dt := range tc.dts {
					for _, op := range tc.ops {
						c := verify.Case{Shape: sh, Axis: -1, DType: dt, Op: op, Fill: verify.Random}
						if r := verify.Run(c, rng, backendWith(d, splitGridRows(rw))); !r.OK() {
							t.Errorf("%s: rel %.3g (tol %.0e) err %v", c.Name(), r.Rel, r.Tol, r.Err)
						}
					}
				}
				c := verify.Case{Shape: sh, Axis: -1, DType: spec.Float32, Op: spec.Softmax, Fill: verify.NaN}
				if r := verify.Run(c, rng, backendWith(d, splitGridRows(rw))); !r.OK() {
					t.Errorf("%s: rel %.3g err %v", c.Name(), r.Rel, r.Err)
				}
			})
		}
	}
}

// BenchmarkSplitGridWaves times split_grid's forward softmax at every wave
// size of waveSizes on the shapes it serves (few long rows), each against a
// device copy of the same bytes, L2 flushed before every rep as softmax
// bench times: the measurements behind the planner's wave rule. Metrics:
// median µs and copy ratio, t(copy)/t(softmax).
func BenchmarkSplitGridWaves(b *testing.B) {
	d := openOrSkip(b)
	timer, err := d.NewTimer()
	if err != nil {
		b.Fatal(err)
	}
	defer timer.Destroy()
	l2, err := d.NewL2Flush()
	if err != nil {
		b.Fatal(err)
	}
	defer l2.Free()
	flush := func() error { return l2.Run(nil) }
	cases := []struct {
		shape []int
		dt    spec.DType
	}{
		{[]int{4, 1048576}, spec.Float16}, {[]int{16, 262144}, spec.Float32}, {[]int{4, 4194304}, spec.Float16},
		{[]int{64, 262144}, spec.Float16}, {[]int{128, 128256}, spec.BFloat16}, {[]int{120, 100000}, spec.Float32},
		{[]int{100, 200000}, spec.BFloat16}, {[]int{128, 262144}, spec.BFloat16}, {[]int{2, 8388608}, spec.Float32},
		{[]int{1, 1 << 24}, spec.Float32}, {[]int{8, 4194304}, spec.Float32}, {[]int{32, 2097152}, spec.Float16},
		{[]int{4, 16777216}, spec.Float16}, {[]int{4, 33554432}, spec.Float16}, {[]int{1, 100000000}, spec.Float32},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		x, y := benchTensors(b, d, rng, c.dt, c.shape)
		copyT, err := timer.TimeWith(nil, 2, 20, flush, func() error { return CopyAsync(y.Buf, 0, x.Buf, 0, x.Bytes(), nil) })
		if err != nil {
			b.Fatal(err)
		}
		for _, rw := range waveSizes(int64(c.shape[0])) {
			name := fmt.Sprintf("%dx%d_%v/rows_per_wave=%d", c.shape[0], c.shape[1], c.dt, rw)
			b.Run(name, func(b *testing.B) {
				opt := splitGridRows(rw)
				opt.Axis = -1
				var t []float64
				for range b.N {
					if t, err = timer.TimeWith(nil, 2, 20, flush, func() error { return d.Apply(spec.Softmax, y, x, opt, nil) }); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(medianSorted(t)*1e6, "µs")
				b.ReportMetric(medianSorted(copyT)/medianSorted(t), "copy_ratio")
			})
		}
		x.Free()
		y.Free()
	}
}
