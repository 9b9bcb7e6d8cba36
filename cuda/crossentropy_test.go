package cuda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/x448/float16"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/errs"
)

// ceHost returns rows × v logits of dt (normal, σ 3) with special rows: row
// 2 masks every other class (−inf), row 3 holds a NaN, and targets (row 1
// ignored, row 2 a class not masked).
func ceHost(rng *rand.Rand, dt softmax.DType, rows, v int, ignore int64) (softmax.Tensor, []int64) {
	x, _ := softmax.NewTensor(dt, rows, v)
	vals := make([]float32, rows*v)
	for i := range vals {
		vals[i] = float32(3 * rng.NormFloat64())
	}
	if rows > 3 && v > 2 {
		for j := 0; j < v; j += 2 {
			vals[2*v+j] = float32(math.Inf(-1))
		}
		vals[3*v+v/2] = float32(math.NaN())
	}
	setF32(x, vals)
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

func setF32(x softmax.Tensor, vals []float32) {
	for i, f := range vals {
		switch x.DType {
		case softmax.Float32:
			x.F32[i] = f
		case softmax.Float16:
			x.U16[i] = softmax.FloatToHalfBits(f)
		case softmax.Float64:
			x.F64[i] = float64(f)
		default:
			x.U16[i] = uint16(softmax.BFloat16From(f))
		}
	}
}

// toF64 widens a host tensor to float64 (the reference's input: the
// stored values exactly).
func toF64(x softmax.Tensor) softmax.Tensor {
	y, _ := softmax.NewTensor(softmax.Float64, x.Shape...)
	for i := range y.F64 {
		switch x.DType {
		case softmax.Float64:
			y.F64[i] = x.F64[i]
		case softmax.Float32:
			y.F64[i] = float64(x.F32[i])
		case softmax.Float16:
			y.F64[i] = float64(float16.Frombits(x.U16[i]).Float32())
		default:
			y.F64[i] = float64(softmax.BFloat16Value(x.U16[i]).Float32())
		}
	}
	return y
}

// ceTol is the gradient tolerance of dt relative to the row's largest
// gradient (the output's rounding; float32 arithmetic for f32).
func ceTol(dt softmax.DType) float64 {
	switch dt {
	case softmax.Float32:
		return 2e-5
	case softmax.Float16:
		return 2e-3
	}
	return 1.6e-2
}

func near(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}

// ceRun is one device cross-entropy call compared with the float64 CPU
// reference (softmax.CrossEntropy on the widened logits).
type ceRun struct {
	dt        softmax.DType
	rows, v   int
	opt       softmax.CrossEntropyOptions
	g         softmax.GradOutput
	inPlace   bool
	skew      int64 // bytes the logits (and grad) start past a 16-byte boundary
	t32       bool
	noGrad    bool
	gradSkew2 bool // the gradient at another skew than the logits
}

func (c ceRun) check(t *testing.T, d *Device, seed uint64) {
	t.Helper()
	name := fmt.Sprintf("%v %dx%d %+v in-place %v skew %d", c.dt, c.rows, c.v, c.opt, c.inPlace, c.skew)
	rng := rand.New(rand.NewPCG(seed, 73))
	x, tg := ceHost(rng, c.dt, c.rows, c.v, c.opt.Ignored())
	// Reference.
	nloss := 1
	if c.opt.Reduction == softmax.ReductionNone {
		nloss = c.rows
	}
	ref := softmax.CrossEntropyOutput{Loss: make([]float64, nloss), LSE: make([]float64, c.rows), GradOutput: c.g}
	x64 := toF64(x)
	var g64 softmax.Tensor
	if !c.noGrad {
		g64, _ = softmax.NewTensor(softmax.Float64, c.rows, c.v)
		ref.Grad = &g64
	}
	if err := softmax.CrossEntropy(x64, softmax.Targets{I64: tg}, c.opt, ref); err != nil {
		t.Fatalf("%s: reference: %v", name, err)
	}
	// Device.
	dx, err := d.UploadAt(x, c.skew)
	if err != nil {
		t.Fatal(err)
	}
	defer dx.Free()
	ht := softmax.Targets{I64: tg}
	if c.t32 {
		ht = softmax.Targets{I32: make([]int32, len(tg))}
		for i, v := range tg {
			ht.I32[i] = int32(v)
		}
	}
	dt, err := d.UploadTargets(ht)
	if err != nil {
		t.Fatal(err)
	}
	defer dt.Buf.Free()
	sdt := XentStatDType(c.dt)
	loss, _ := d.NewTensor(sdt, nloss)
	lse, _ := d.NewTensor(sdt, c.rows)
	defer loss.Free()
	defer lse.Free()
	nan := math.Float32bits(float32(math.NaN())) // f64: NaN halves
	loss.Buf.Fill(0, nan, loss.Buf.Size()/4, nil)
	lse.Buf.Fill(0, nan, lse.Buf.Size()/4, nil)
	out := CrossEntropyOutput{Loss: &loss, LSE: &lse, GradOutput: c.g}
	var grad Tensor
	if !c.noGrad {
		if c.inPlace {
			grad = dx
		} else {
			gs := c.skew
			if c.gradSkew2 {
				gs += int64(c.dt.Size())
			}
			grad, err = d.newTensorAt(c.dt, gs, x.Shape)
			if err != nil {
				t.Fatal(err)
			}
			defer grad.Free()
			grad.Buf.Fill(0, 0x7fc07fc0, grad.Buf.Size()/4, nil) // NaN in every dtype
		}
		out.Grad = &grad
	}
	if err := d.CrossEntropy(dx, dt, c.opt, out, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	gotLoss, gotLSE := readStat(t, loss), readStat(t, lse)
	for i := range gotLSE {
		if !near(gotLSE[i], ref.LSE[i], 2e-5*(math.Abs(ref.LSE[i])+1)) {
			t.Errorf("%s: lse[%d] = %v, want %v", name, i, gotLSE[i], ref.LSE[i])
			break
		}
	}
	for i := range gotLoss {
		if !near(gotLoss[i], ref.Loss[i], 5e-5*(math.Abs(ref.Loss[i])+1)) {
			t.Errorf("%s: loss[%d] = %v, want %v", name, i, gotLoss[i], ref.Loss[i])
			break
		}
	}
	if c.noGrad {
		return
	}
	hg, _ := softmax.NewTensor(c.dt, c.rows, c.v)
	if err := grad.CopyTo(hg); err != nil {
		t.Fatal(err)
	}
	got := toF64(hg)
	bad := 0
	for r := 0; r < c.rows; r++ {
		row := g64.F64[r*c.v : (r+1)*c.v]
		mx := 0.0
		for _, v := range row {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				mx = max(mx, math.Abs(v))
			}
		}
		tol := ceTol(c.dt)
		// The target's gradient is g·w·(p − 1): where p is near 1 the float32
		// p carries a few ulp of 1 times g·w into the difference (5 ulp seen
		// on an H200, f32 37x7), which the row's small result does not bound.
		cancel := 8 * 0x1p-24 * c.oneHotScale(tg, r)
		for j, w := range row {
			if g := got.F64[r*c.v+j]; !near(g, w, tol*(math.Abs(w)+mx)+cancel+1e-30) {
				if bad++; bad <= 3 {
					t.Errorf("%s: grad[%d][%d] = %v, want %v (row max %v)", name, r, j, g, w, mx)
				}
			}
		}
	}
}

// oneHotScale bounds |g·w| of row r's target term: the grad-output (scalar
// times the row's), the largest class weight, over the mean's denominator.
func (c ceRun) oneHotScale(tg []int64, r int) float64 {
	g := 1.0
	if c.g.Scalar != 0 {
		g = math.Abs(c.g.Scalar)
	}
	if c.g.Rows != nil {
		g *= math.Abs(c.g.Rows[r])
	}
	wmax, den := 1.0, 0.0
	for _, w := range c.opt.Weights {
		wmax = max(wmax, math.Abs(float64(w)))
	}
	for _, t := range tg {
		if t == c.opt.Ignored() {
			continue
		}
		if c.opt.Weights != nil {
			den += float64(c.opt.Weights[t])
		} else {
			den++
		}
	}
	if c.opt.Reduction == softmax.ReductionMean && den > 0 {
		g /= den
	}
	return g * wmax
}

// readStat reads a Float32 or Float64 device tensor widened to float64.
func readStat(t *testing.T, x Tensor) []float64 {
	t.Helper()
	h, _ := softmax.NewTensor(x.DType, x.Len())
	if err := x.CopyTo(h); err != nil {
		t.Fatal(err)
	}
	return toF64(h).F64
}

func readF32(t *testing.T, x Tensor, dst []float32) {
	t.Helper()
	h := softmax.Tensor{Shape: []int{len(dst)}, DType: softmax.Float32, F32: dst}
	if err := x.CopyTo(h); err != nil {
		t.Fatal(err)
	}
}

func weights(v int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := make([]float32, v)
	for i := range w {
		w[i] = float32(rng.Float64() * 2)
	}
	return w
}

// Every option alone and combined, every dtype, ragged and round V.
func TestCrossEntropyOptions(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16} {
		for _, v := range []int{1, 7, 781, 4096, 32000, 50257} {
			rows := 37
			w := weights(v, uint64(v))
			for i, c := range []ceRun{
				{},
				{opt: softmax.CrossEntropyOptions{IgnoreIndex: softmax.Ignore(0)}},
				{opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.1}},
				{opt: softmax.CrossEntropyOptions{Weights: w}},
				{opt: softmax.CrossEntropyOptions{ZLoss: 1e-3}},
				{opt: softmax.CrossEntropyOptions{Softcap: 5}},
				{opt: softmax.CrossEntropyOptions{Scale: 0.7}},
				{opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionSum}, g: softmax.GradOutput{Scalar: 0.5}, t32: true},
				{opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone}, g: softmax.GradOutput{Rows: rowsOf(rows)}},
				{opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.2, Weights: w, ZLoss: 1e-4, Softcap: 4, Scale: 1.5}, skew: int64(dt.Size())},
				{opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.1, Weights: w, Reduction: softmax.ReductionNone}, inPlace: true, skew: int64(dt.Size())},
				{opt: softmax.CrossEntropyOptions{}, gradSkew2: true},
				{opt: softmax.CrossEntropyOptions{}, noGrad: true},
			} {
				if v == 1 && i > 0 && i != 1 {
					continue
				}
				c.dt, c.rows, c.v = dt, rows, v
				c.check(t, d, uint64(i*1000+v))
			}
		}
	}
}

func rowsOf(n int) []float64 {
	g := make([]float64, n)
	for i := range g {
		g[i] = float64(i%5) - 1.5
	}
	return g
}

// The shapes, few rows: the streamed kernels and 16-bit rows of
// 151936 and 262144 classes.
func TestCrossEntropyLongRows(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, c := range []ceRun{
		{dt: softmax.BFloat16, rows: 9, v: 131072},
		{dt: softmax.BFloat16, rows: 9, v: 151936, opt: softmax.CrossEntropyOptions{LabelSmoothing: 0.1, ZLoss: 1e-4}},
		{dt: softmax.BFloat16, rows: 5, v: 262144, inPlace: true},
		{dt: softmax.Float32, rows: 9, v: 32000, opt: softmax.CrossEntropyOptions{Softcap: 30}},
		{dt: softmax.Float16, rows: 7, v: 151936, skew: 2, opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone}},
	} {
		c.check(t, d, uint64(c.v))
	}
}

// The backward from the forward's saved lse gives the forward's gradient.
func TestCrossEntropyBackward(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, dt := range []softmax.DType{softmax.Float32, softmax.BFloat16} {
		for _, v := range []int{781, 151936} {
			rows := 11
			rng := rand.New(rand.NewPCG(uint64(v), 5))
			opt := softmax.CrossEntropyOptions{LabelSmoothing: 0.1, ZLoss: 1e-3, Softcap: 8, Weights: weights(v, 3)}
			x, tg := ceHost(rng, dt, rows, v, opt.Ignored())
			dx, _ := d.Upload(x)
			defer dx.Free()
			dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
			defer dtg.Buf.Free()
			g1, _ := d.NewTensor(dt, rows, v)
			g2, _ := d.NewTensor(dt, rows, v)
			lse, _ := d.NewTensor(softmax.Float32, rows)
			defer g1.Free()
			defer g2.Free()
			defer lse.Free()
			g := softmax.GradOutput{Scalar: 2}
			if err := d.CrossEntropy(dx, dtg, opt, CrossEntropyOutput{LSE: &lse, Grad: &g1, GradOutput: g}, nil); err != nil {
				t.Fatal(err)
			}
			if err := d.CrossEntropyBackward(g2, dx, dtg, lse, opt, g, nil); err != nil {
				t.Fatal(err)
			}
			h1, _ := softmax.NewTensor(dt, rows, v)
			h2, _ := softmax.NewTensor(dt, rows, v)
			g1.CopyTo(h1)
			g2.CopyTo(h2)
			a, b := toF64(h1), toF64(h2)
			for i := range a.F64 {
				if !near(b.F64[i], a.F64[i], ceTol(dt)*(math.Abs(a.F64[i])+1e-6)) {
					t.Fatalf("%v V=%d: backward grad[%d] = %v, forward's %v", dt, v, i, b.F64[i], a.F64[i])
				}
			}
			// In place.
			if err := d.CrossEntropyBackward(dx, dx, dtg, lse, opt, g, nil); err != nil {
				t.Fatal(err)
			}
			dx.CopyTo(h2)
			b = toF64(h2)
			for i := range a.F64 {
				if !near(b.F64[i], a.F64[i], ceTol(dt)*(math.Abs(a.F64[i])+1e-6)) {
					t.Fatalf("%v V=%d: in-place backward grad[%d] = %v, forward's %v", dt, v, i, b.F64[i], a.F64[i])
				}
			}
		}
	}
}

// A target outside [0, V): an ErrBadTarget naming the row, nothing written.
func TestCrossEntropyBadTarget(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	rows, v := 64, 1000
	x, tg := ceHost(rand.New(rand.NewPCG(1, 2)), softmax.Float32, rows, v, -100)
	tg[40], tg[50] = int64(v), -3
	dx, _ := d.Upload(x)
	defer dx.Free()
	dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
	defer dtg.Buf.Free()
	grad, _ := d.NewTensor(softmax.Float32, rows, v)
	loss, _ := d.NewTensor(softmax.Float32, rows)
	defer grad.Free()
	defer loss.Free()
	grad.Buf.Fill(0, 0x12345678, int64(rows*v), nil)
	loss.Buf.Fill(0, 0x12345678, int64(rows), nil)
	err := d.CrossEntropy(dx, dtg, softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone},
		CrossEntropyOutput{Loss: &loss, Grad: &grad}, nil)
	if !errors.Is(err, errs.ErrBadTarget) || !strings.Contains(err.Error(), "row 40") || !strings.Contains(err.Error(), "target 1000") {
		t.Fatalf("err = %v, want an ErrBadTarget naming row 40", err)
	}
	h := make([]float32, rows*v)
	readF32(t, grad, h)
	hl := make([]float32, rows)
	readF32(t, loss, hl)
	for _, f := range append(h, hl...) {
		if math.Float32bits(f) != 0x12345678 {
			t.Fatal("a call with a bad target wrote its outputs")
		}
	}
}

func TestCrossEntropyErrors(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	b, _ := d.Alloc(8 * 40)
	defer b.Free()
	x := Tensor{Buf: b, Shape: []int{4, 10}, DType: softmax.Float64}
	tg, _ := d.UploadTargets(softmax.Targets{I32: []int32{1, 2, 3, 4}})
	defer tg.Buf.Free()
	l32, _ := d.NewTensor(softmax.Float32, 1)
	defer l32.Free()
	err := d.CrossEntropy(x, tg, softmax.CrossEntropyOptions{}, CrossEntropyOutput{Loss: &l32}, nil)
	if !errors.Is(err, errs.ErrBadDType) || !strings.Contains(err.Error(), "want f64") {
		t.Errorf("f64 logits, f32 loss: %v", err)
	}
	x32, _ := d.NewTensor(softmax.Float32, 4, 10)
	defer x32.Free()
	for _, c := range []struct {
		opt  softmax.CrossEntropyOptions
		out  CrossEntropyOutput
		kind error
	}{
		{softmax.CrossEntropyOptions{LabelSmoothing: 2}, CrossEntropyOutput{}, errs.ErrBadOption},
		{softmax.CrossEntropyOptions{Weights: make([]float32, 3)}, CrossEntropyOutput{}, errs.ErrBadOption},
		{softmax.CrossEntropyOptions{}, CrossEntropyOutput{Grad: &x32, GradOutput: softmax.GradOutput{Rows: make([]float64, 4)}}, errs.ErrBadOption},
		{softmax.CrossEntropyOptions{}, CrossEntropyOutput{Loss: &x32}, errs.ErrBadShape},
	} {
		if err := d.CrossEntropy(x32, tg, c.opt, c.out, nil); !errors.Is(err, c.kind) {
			t.Errorf("%+v: %v, want %v", c.opt, err, c.kind)
		}
	}
	short, _ := d.UploadTargets(softmax.Targets{I32: []int32{1}})
	defer short.Buf.Free()
	if err := d.CrossEntropy(x32, short, softmax.CrossEntropyOptions{}, CrossEntropyOutput{}, nil); !errors.Is(err, errs.ErrBadTarget) {
		t.Errorf("1 target for 4 rows: %v", err)
	}
}

func TestTargetLogProbsAndLogSumExp(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16} {
		for _, v := range []int{33, 50257} {
			rows := 13
			x, tg := ceHost(rand.New(rand.NewPCG(uint64(v), 9)), dt, rows, v, -100)
			opt := softmax.CrossEntropyOptions{Scale: 0.9, Softcap: 10}
			want := make([]float64, rows)
			if err := softmax.TargetLogProbs(want, toF64(x), softmax.Targets{I64: tg}, opt); err != nil {
				t.Fatal(err)
			}
			dx, _ := d.Upload(x)
			defer dx.Free()
			dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
			defer dtg.Buf.Free()
			dst, _ := d.NewTensor(softmax.Float32, rows)
			defer dst.Free()
			if err := d.TargetLogProbs(dst, dx, dtg, opt, nil); err != nil {
				t.Fatal(err)
			}
			got := make([]float32, rows)
			readF32(t, dst, got)
			for i := range got {
				if !near(float64(got[i]), want[i], 5e-5*(math.Abs(want[i])+1)) {
					t.Errorf("%v V=%d: log p[t] row %d = %v, want %v", dt, v, i, got[i], want[i])
				}
			}
			// Log-sum-exp of the rows, in the logits' dtype.
			lw, _ := softmax.NewTensor(softmax.Float64, rows)
			if err := softmax.LogSumExp(lw, toF64(x), softmax.Options{Axis: -1, Scale: 0.5}); err != nil {
				t.Fatal(err)
			}
			ld, _ := d.NewTensor(dt, rows)
			defer ld.Free()
			if err := d.LogSumExp(ld, dx, Options{Axis: -1, Scale: 0.5}, nil); err != nil {
				t.Fatal(err)
			}
			hl, _ := softmax.NewTensor(dt, rows)
			ld.CopyTo(hl)
			gl := toF64(hl)
			for i := range gl.F64 {
				if !near(gl.F64[i], lw.F64[i], ceTol(dt)*(math.Abs(lw.F64[i])+1)) {
					t.Errorf("%v V=%d: lse row %d = %v, want %v", dt, v, i, gl.F64[i], lw.F64[i])
				}
			}
		}
	}
}

// More than 2^31 logits: 64-bit indexing. Rows repeat a block of 16 random
// rows (device-to-device copies), so the reference is the block's.
func TestCrossEntropyHuge(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	if testing.Short() {
		t.Skip("4.3 GB of logits in -short mode")
	}
	const blk, v = 16, 151936
	rows := (1<<31)/v + 2*blk // 14166 rows: 2,152,325,376 elements
	rows -= rows % blk
	x, tg := ceHost(rand.New(rand.NewPCG(7, 7)), softmax.BFloat16, blk, v, -100)
	ref := softmax.CrossEntropyOutput{Loss: make([]float64, blk), LSE: make([]float64, blk)}
	if err := softmax.CrossEntropy(toF64(x), softmax.Targets{I64: tg}, softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone}, ref); err != nil {
		t.Fatal(err)
	}
	dx, err := d.NewTensor(softmax.BFloat16, rows, v)
	if err != nil {
		t.Skip("cannot allocate: " + err.Error())
	}
	defer dx.Free()
	hb, _ := d.Upload(x)
	defer hb.Free()
	bb := hb.Bytes()
	for off := int64(0); off < dx.Bytes(); off += bb {
		if err := CopyAsync(dx.Buf, off, hb.Buf, 0, bb, nil); err != nil {
			t.Fatal(err)
		}
	}
	all := make([]int64, rows)
	for i := range all {
		all[i] = tg[i%blk]
	}
	dtg, _ := d.UploadTargets(softmax.Targets{I64: all})
	defer dtg.Buf.Free()
	loss, _ := d.NewTensor(softmax.Float32, rows)
	defer loss.Free()
	if err := d.CrossEntropy(dx, dtg, softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone},
		CrossEntropyOutput{Loss: &loss, Grad: &dx}, nil); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, rows)
	readF32(t, loss, got)
	for i, g := range got {
		if w := ref.Loss[i%blk]; !near(float64(g), w, 5e-5*(math.Abs(w)+1)) {
			t.Fatalf("row %d: loss %v, want %v", i, g, w)
		}
	}
	// The last block's gradient, past element 2^31.
	last, _ := softmax.NewTensor(softmax.BFloat16, blk, v)
	raw := make([]byte, 2*blk*v)
	if err := dx.Buf.Read(dx.Bytes()-int64(len(raw)), raw); err != nil {
		t.Fatal(err)
	}
	for i := range last.U16 {
		last.U16[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	g64, _ := softmax.NewTensor(softmax.Float64, blk, v)
	ref.Grad = &g64
	softmax.CrossEntropy(toF64(x), softmax.Targets{I64: tg}, softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone}, ref)
	gl := toF64(last)
	for i, w := range g64.F64 {
		if !near(gl.F64[i], w, 1.6e-2*(math.Abs(w)+1e-3)) {
			t.Fatalf("last block grad[%d] = %v, want %v", i, gl.F64[i], w)
		}
	}
}
