package softmax

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/shard"
)

// ceRef is the float64 reference of one call, written from the formula of
// CrossEntropyOptions' doc (the gradient from shard.Grad).
type ceRef struct {
	loss, lse []float64 // per row
	grad      []float64 // d loss_i/d x (unscaled by any reduction)
	reduced   float64
	wtSum     float64
}

func refCE(x []float64, rows, v int, tg []int64, opt CrossEntropyOptions) ceRef {
	r := ceRef{loss: make([]float64, rows), lse: make([]float64, rows), grad: make([]float64, rows*v)}
	s, capv := opt.ScaleOrOne(), opt.Softcap
	w := func(j int) float64 {
		if opt.Weights == nil {
			return 1
		}
		return float64(opt.Weights[j])
	}
	var W float64
	for j := range v {
		W += w(j)
	}
	eps := opt.LabelSmoothing
	var total float64
	for i := range rows {
		z, dz := make([]float64, v), make([]float64, v)
		m := math.Inf(-1)
		for j := range v {
			xv := x[i*v+j]
			dz[j] = s
			if capv > 0 {
				th := math.Tanh(xv / capv)
				xv = capv * th
				dz[j] = s * (1 - th*th)
			}
			z[j] = s * xv
			if z[j] > m || math.IsNaN(z[j]) {
				m = z[j]
			}
		}
		var d float64
		for j := range v {
			d += math.Exp(z[j] - m)
		}
		lse := m + math.Log(d)
		if math.IsInf(m, 1) || math.IsNaN(m) {
			lse = math.NaN()
		}
		if math.IsInf(m, -1) {
			lse = m
		}
		r.lse[i] = lse
		t := tg[i]
		if t == opt.Ignored() {
			continue
		}
		wt := w(int(t))
		l := (1-eps)*wt*(lse-z[t]) + opt.ZLoss*lse*lse
		if eps != 0 {
			var sm float64
			for j := range v {
				sm += w(j) * (lse - z[j])
			}
			l += eps / float64(v) * sm
		}
		r.loss[i] = l
		total += l
		r.wtSum += wt
		for j := range v {
			r.grad[i*v+j] = dz[j] * shard.Grad(z[j], lse, j == int(t), w(j), wt, W, eps, v, opt.ZLoss, 1)
		}
	}
	r.reduced = total
	if opt.Reduction == ReductionMean {
		r.reduced = total / r.wtSum
	}
	return r
}

// ceInput makes rows × v logits of dtype dt (the reference gets the
// stored values), with a few −inf entries when masked.
func ceInput(rng *rand.Rand, dt DType, rows, v int, masked bool) (Tensor, []float64) {
	x, _ := NewTensor(dt, rows, v)
	f := make([]float64, rows*v)
	for i := range f {
		val := rng.NormFloat64() * 3
		if masked && i%7 == 3 {
			val = math.Inf(-1)
		}
		f[i] = setElem(x, i, val)
	}
	return x, f
}

// setElem stores val in t[i] and returns the stored value.
func setElem(t Tensor, i int, val float64) float64 {
	switch t.DType {
	case Float32:
		t.F32[i] = float32(val)
		return float64(t.F32[i])
	case Float64:
		t.F64[i] = val
		return val
	case Float16:
		t.U16[i] = FloatToHalfBits(float32(val))
		return float64(HalfFrom(float32(val)).Float32())
	default:
		b := BFloat16From(float32(val))
		t.U16[i] = uint16(b)
		return float64(b.Float32())
	}
}

func elem(t Tensor, i int) float64 {
	switch t.DType {
	case Float32:
		return float64(t.F32[i])
	case Float64:
		return t.F64[i]
	case Float16:
		return float64(Half(t.U16[i]).Float32())
	default:
		return float64(BFloat16Value(t.U16[i]).Float32())
	}
}

// ceTol is the relative tolerance of a dtype's results.
func ceTol(dt DType) float64 {
	switch dt {
	case Float64:
		return 1e-11
	case Float32:
		return 2e-5
	case Float16:
		return 2e-3
	}
	return 1.6e-2
}

func closeTo(got, want, tol, scale float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) && math.IsNaN(want) || got == want
	}
	return math.Abs(got-want) <= tol*(math.Abs(want)+scale)
}

var ceOptionSets = []struct {
	name string
	opt  func(v int) CrossEntropyOptions
}{
	{"default", func(int) CrossEntropyOptions { return CrossEntropyOptions{} }},
	{"sum", func(int) CrossEntropyOptions { return CrossEntropyOptions{Reduction: ReductionSum} }},
	{"none", func(int) CrossEntropyOptions { return CrossEntropyOptions{Reduction: ReductionNone} }},
	{"smooth", func(int) CrossEntropyOptions { return CrossEntropyOptions{LabelSmoothing: 0.1} }},
	{"weights", func(v int) CrossEntropyOptions { return CrossEntropyOptions{Weights: weights(v)} }},
	{"scale", func(int) CrossEntropyOptions { return CrossEntropyOptions{Scale: 0.7} }},
	{"zloss", func(int) CrossEntropyOptions { return CrossEntropyOptions{ZLoss: 1e-3} }},
	{"softcap", func(int) CrossEntropyOptions { return CrossEntropyOptions{Softcap: 5} }},
	{"ignore0", func(int) CrossEntropyOptions { return CrossEntropyOptions{IgnoreIndex: Ignore(0)} }},
	{"all", func(v int) CrossEntropyOptions {
		return CrossEntropyOptions{LabelSmoothing: 0.2, Weights: weights(v), Scale: 1.3, ZLoss: 1e-2, Softcap: 4,
			Reduction: ReductionNone, IgnoreIndex: Ignore(1)}
	}},
	{"all-mean", func(v int) CrossEntropyOptions {
		return CrossEntropyOptions{LabelSmoothing: 0.05, Weights: weights(v), Scale: 0.5, ZLoss: 1e-4, Softcap: 30}
	}},
}

func weights(v int) []float32 {
	w := make([]float32, v)
	for j := range w {
		w[j] = 0.25 + float32(j%5)/4
	}
	return w
}

func targetsFor(rng *rand.Rand, rows, v int, ign int64) []int64 {
	t := make([]int64, rows)
	for i := range t {
		t[i] = int64(rng.IntN(v))
		if i%4 == 2 {
			t[i] = ign
		}
	}
	return t
}

// runCE checks one call (loss, lse, gradient; out of place and in place)
// against the reference.
func runCE(t *testing.T, rng *rand.Rand, dt DType, rows, v int, opt CrossEntropyOptions, masked bool) {
	t.Helper()
	x, xf := ceInput(rng, dt, rows, v, masked)
	runCEOn(t, rng, x, xf, dt, rows, v, opt)
}

// runCEOn is runCE on given logits x (xf: their stored values).
func runCEOn(t *testing.T, rng *rand.Rand, x Tensor, xf []float64, dt DType, rows, v int, opt CrossEntropyOptions) {
	t.Helper()
	tg := targetsFor(rng, rows, v, opt.Ignored())
	ref := refCE(xf, rows, v, tg, opt)
	nLoss := 1
	if opt.Reduction == ReductionNone {
		nLoss = rows
	}
	loss, lse := make([]float64, nLoss), make([]float64, rows)
	grad, _ := NewTensor(dt, rows, v)
	for i := 0; i < grad.Len(); i++ {
		setElem(grad, i, math.NaN()) // poison
	}
	gout := GradOutput{Scalar: 0.5}
	tgt := Targets{I64: tg}
	if rows%2 == 1 {
		t32 := make([]int32, rows)
		for i, c := range tg {
			t32[i] = int32(c)
		}
		tgt = Targets{I32: t32}
	}
	if err := CrossEntropy(x, tgt, opt, CrossEntropyOutput{Loss: loss, LSE: lse, Grad: &grad, GradOutput: gout}); err != nil {
		t.Fatal(err)
	}
	tol := ceTol(dt)
	name := fmt.Sprintf("%v %dx%d %+v", dt, rows, v, opt)
	for i := range rows {
		if !closeTo(lse[i], ref.lse[i], tol, 1) {
			t.Errorf("%s: lse[%d] = %v, want %v", name, i, lse[i], ref.lse[i])
		}
		if opt.Reduction == ReductionNone && !closeTo(loss[i], ref.loss[i], tol, 1) {
			t.Errorf("%s: loss[%d] = %v, want %v", name, i, loss[i], ref.loss[i])
		}
	}
	if opt.Reduction != ReductionNone && !closeTo(loss[0], ref.reduced, tol, 1) {
		t.Errorf("%s: loss = %v, want %v", name, loss[0], ref.reduced)
	}
	gs := 0.5
	if opt.Reduction == ReductionMean {
		gs /= ref.wtSum
		if ref.wtSum == 0 {
			gs = 0 // every row ignored: no gradient
		}
	}
	checkGrad := func(what string, g Tensor) {
		t.Helper()
		for i := range rows {
			// Float32 errors scale with gout·scale (p_t − 1 rounds to 0 when
			// p_t is within 2^-24 of 1), however small the exact values.
			big := math.Abs(gs * opt.ScaleOrOne())
			for j := range v {
				big = max(big, math.Abs(ref.grad[i*v+j]*gs))
			}
			for j := range v {
				k := i*v + j
				if got, want := elem(g, k), ref.grad[k]*gs; !closeTo(got, want, 4*tol, big) {
					t.Fatalf("%s %s: grad[%d][%d] = %v, want %v", name, what, i, j, got, want)
				}
			}
		}
	}
	checkGrad("fused", grad)
	// Backward from the saved lse, in place over a copy of the logits.
	y, _ := NewTensor(dt, rows, v)
	copy(y.F32, x.F32)
	copy(y.U16, x.U16)
	copy(y.F64, x.F64)
	if err := CrossEntropyBackward(y, y, tgt, lse, opt, gout); err != nil {
		t.Fatal(err)
	}
	checkGrad("backward in place", y)
	// Fused in place, lse wanted: ignored rows read their logits before
	// zeroing them.
	copy(y.F32, x.F32)
	copy(y.U16, x.U16)
	copy(y.F64, x.F64)
	lse2 := make([]float64, rows)
	if err := CrossEntropy(y, tgt, opt, CrossEntropyOutput{LSE: lse2, Grad: &y, GradOutput: gout}); err != nil {
		t.Fatal(err)
	}
	checkGrad("fused in place", y)
	for i := range lse2 {
		if lse2[i] != lse[i] && !(math.IsNaN(lse[i]) && math.IsNaN(lse2[i])) {
			t.Fatalf("%s: in place, lse[%d] = %v, out of place %v", name, i, lse2[i], lse[i])
		}
	}
}

func TestCrossEntropyAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, uint64(rand.Int64())))
	for _, dt := range []DType{Float32, Float64, Float16, BFloat16} {
		for _, o := range ceOptionSets {
			for _, sz := range [][2]int{{1, 1}, {5, 7}, {6, 33}, {3, 2500}} {
				runCE(t, rng, dt, sz[0], sz[1], o.opt(sz[1]), false)
			}
			runCE(t, rng, dt, 4, 61, o.opt(61), true)
		}
	}
}

func TestCrossEntropyRaggedVocabularies(t *testing.T) {
	rng := rand.New(rand.NewPCG(74, uint64(rand.Int64())))
	for _, v := range []int{50257, 151936} {
		runCE(t, rng, Float32, 3, v, CrossEntropyOptions{}, false)
		runCE(t, rng, BFloat16, 2, v, ceOptionSets[len(ceOptionSets)-1].opt(v), true)
	}
	if !testing.Short() {
		runCE(t, rng, Float64, 2, 151936, CrossEntropyOptions{LabelSmoothing: 0.1}, false)
	}
}

// Finite differences of the float64 loss agree with the gradient.
func TestCrossEntropyFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(75, 1))
	const rows, v = 3, 6
	for _, o := range ceOptionSets {
		opt := o.opt(v)
		x, _ := ceInput(rng, Float64, rows, v, false)
		tg := Targets{I64: []int64{2, 5, 0}}
		loss := func() float64 {
			l := make([]float64, 1)
			if opt.Reduction == ReductionNone {
				l = make([]float64, rows)
			}
			if err := CrossEntropy(x, tg, opt, CrossEntropyOutput{Loss: l}); err != nil {
				t.Fatal(err)
			}
			var s float64
			for _, v := range l {
				s += v
			}
			return s
		}
		grad, _ := NewTensor(Float64, rows, v)
		if err := CrossEntropy(x, tg, opt, CrossEntropyOutput{Grad: &grad}); err != nil {
			t.Fatal(err)
		}
		for k := range x.F64 {
			const h = 1e-6
			x0 := x.F64[k]
			x.F64[k] = x0 + h
			up := loss()
			x.F64[k] = x0 - h
			down := loss()
			x.F64[k] = x0
			if fd := (up - down) / (2 * h); math.Abs(fd-grad.F64[k]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%s: element %d: finite difference %v, gradient %v", o.name, k, fd, grad.F64[k])
			}
		}
	}
}

func TestCrossEntropyEdgeValues(t *testing.T) {
	for _, dt := range []DType{Float32, Float64, BFloat16} {
		x, _ := NewTensor(dt, 4, 5)
		vals := []float64{
			1, 2, math.Inf(-1), 3, 0, // −inf masked class
			1, math.NaN(), 0, 0, 0, // NaN row
			1, math.Inf(1), 0, 0, 0, // +inf row
			math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1),
		}
		for i, v := range vals {
			setElem(x, i, v)
		}
		loss, lse := make([]float64, 4), make([]float64, 4)
		opt := CrossEntropyOptions{Reduction: ReductionNone}
		if err := CrossEntropy(x, Targets{I32: []int32{3, 0, 0, 1}}, opt, CrossEntropyOutput{Loss: loss, LSE: lse}); err != nil {
			t.Fatal(err)
		}
		want := math.Log(math.Exp(1)+math.Exp(2)+math.Exp(3)+1) - 3
		if !closeTo(loss[0], want, 1e-6, 1) || !math.IsNaN(loss[1]) || !math.IsNaN(loss[2]) || !math.IsNaN(loss[3]) {
			t.Errorf("%v: losses %v, want [%v NaN NaN NaN]", dt, loss, want)
		}
		if !math.IsInf(lse[3], -1) {
			t.Errorf("%v: lse of a row of −inf is %v, want −inf", dt, lse[3])
		}
	}
}

func TestCrossEntropyAllIgnored(t *testing.T) {
	x, _ := NewTensor(Float32, 2, 3)
	grad, _ := NewTensor(Float32, 2, 3)
	for i := range grad.F32 {
		grad.F32[i] = 9
	}
	loss := []float64{7}
	tg := Targets{I64: []int64{-100, -100}}
	if err := CrossEntropy(x, tg, CrossEntropyOptions{}, CrossEntropyOutput{Loss: loss, Grad: &grad}); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(loss[0]) {
		t.Errorf("mean over no rows = %v, want NaN as torch", loss[0])
	}
	for _, g := range grad.F32 {
		if g != 0 {
			t.Fatalf("ignored rows have gradient %v", grad.F32)
		}
	}
	if err := CrossEntropy(x, tg, CrossEntropyOptions{Reduction: ReductionSum}, CrossEntropyOutput{Loss: loss}); err != nil || loss[0] != 0 {
		t.Errorf("sum over no rows = %v (%v), want 0", loss[0], err)
	}
}

func TestCrossEntropyErrors(t *testing.T) {
	x, _ := NewTensor(Float32, 3, 4)
	good := Targets{I32: []int32{0, 1, 2}}
	grad, _ := NewTensor(Float32, 3, 4)
	for i := range grad.F32 {
		grad.F32[i] = 5
	}
	loss := []float64{42}
	cases := []struct {
		tg   Targets
		opt  CrossEntropyOptions
		kind error
		msg  string
	}{
		{Targets{I32: []int32{0, 4, 1}}, CrossEntropyOptions{}, ErrBadTarget, "row 1"},
		{Targets{I64: []int64{0, 1, -1}}, CrossEntropyOptions{}, ErrBadTarget, "row 2"},
		{Targets{I64: []int64{0, 1, -100}}, CrossEntropyOptions{IgnoreIndex: Ignore(3)}, ErrBadTarget, "row 2"},
		{Targets{I32: []int32{0, 1}}, CrossEntropyOptions{}, ErrBadTarget, "2 targets for 3 rows"},
		{good, CrossEntropyOptions{LabelSmoothing: 1.5}, ErrBadOption, "label smoothing"},
		{good, CrossEntropyOptions{Weights: []float32{1, 2}}, ErrBadOption, "2 class weights"},
		{good, CrossEntropyOptions{Weights: []float32{1, 2, float32(math.NaN()), 1}}, ErrBadOption, "class weight 2"},
		{good, CrossEntropyOptions{ZLoss: -1}, ErrBadOption, "z-loss"},
		{good, CrossEntropyOptions{Softcap: math.Inf(1)}, ErrBadOption, "softcap"},
		{good, CrossEntropyOptions{Reduction: 7}, ErrBadOption, "reduction"},
		{good, CrossEntropyOptions{Scale: math.NaN()}, ErrBadScale, "scale"},
	}
	for _, c := range cases {
		err := CrossEntropy(x, c.tg, c.opt, CrossEntropyOutput{Loss: loss, Grad: &grad})
		if !errors.Is(err, c.kind) || !strings.Contains(fmt.Sprint(err), c.msg) {
			t.Errorf("%+v: error %v, want %v naming %q", c.opt, err, c.kind, c.msg)
		}
	}
	short, _ := NewTensor(Float32, 3, 3)
	if err := CrossEntropy(x, good, CrossEntropyOptions{}, CrossEntropyOutput{Grad: &short}); !errors.Is(err, ErrBadShape) {
		t.Errorf("grad of the wrong shape: %v", err)
	}
	buf := make([]float32, 13)
	copy(buf, x.F32)
	x2 := Tensor{Shape: []int{3, 4}, DType: Float32, F32: buf[:12]}
	over := Tensor{Shape: []int{3, 4}, DType: Float32, F32: buf[1:13]}
	if err := CrossEntropy(x2, good, CrossEntropyOptions{}, CrossEntropyOutput{Grad: &over}); !errors.Is(err, ErrOverlap) {
		t.Errorf("grad partially over the logits: %v", err)
	}
	if err := CrossEntropy(x, good, CrossEntropyOptions{}, CrossEntropyOutput{Loss: make([]float64, 3)}); !errors.Is(err, ErrBadShape) {
		t.Errorf("3 losses for a mean: %v", err)
	}
	if err := CrossEntropy(x, good, CrossEntropyOptions{}, CrossEntropyOutput{Grad: &grad, GradOutput: GradOutput{Rows: []float64{1, 1, 1}}}); !errors.Is(err, ErrBadOption) {
		t.Errorf("per-row grad-outputs with mean: %v", err)
	}
	if loss[0] != 42 || grad.F32[0] != 5 {
		t.Errorf("an error wrote outputs: loss %v grad %v", loss, grad.F32[:4])
	}
}

func TestTargetLogProbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(76, 2))
	for _, dt := range []DType{Float32, Float64, Float16} {
		x, xf := ceInput(rng, dt, 5, 40, true)
		tg := []int64{3, -100, 39, 0, 7}
		opt := CrossEntropyOptions{Scale: 1.5, Softcap: 6}
		dst := make([]float64, 5)
		if err := TargetLogProbs(dst, x, Targets{I64: tg}, opt); err != nil {
			t.Fatal(err)
		}
		ref := refCE(xf, 5, 40, tg, CrossEntropyOptions{Scale: 1.5, Softcap: 6, Reduction: ReductionNone})
		for i := range dst {
			if !closeTo(dst[i], -ref.loss[i], ceTol(dt), 1) {
				t.Errorf("%v row %d: %v, want %v", dt, i, dst[i], -ref.loss[i])
			}
		}
	}
	if err := TargetLogProbs(make([]float64, 1), Tensor{Shape: []int{1, 2}, DType: Float32, F32: []float32{1, 2}},
		Targets{I32: []int32{0}}, CrossEntropyOptions{ZLoss: 1}); !errors.Is(err, ErrBadOption) {
		t.Errorf("TargetLogProbs with a z-loss: %v", err)
	}
}

func TestLogSumExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 3))
	for _, dt := range []DType{Float32, Float64, Float16, BFloat16} {
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{3, 70}, -1}, {[]int{4, 300, 5}, 1}, {[]int{600, 2}, 0}, {[]int{2, 3, 1000}, 2}, {[]int{7}, 0}} {
			l := 1
			for _, d := range c.shape {
				l *= d
			}
			x, _ := NewTensor(dt, c.shape...)
			xf := make([]float64, l)
			for i := range xf {
				v := rng.NormFloat64() * 4
				if i%11 == 0 {
					v = math.Inf(-1)
				}
				xf[i] = setElem(x, i, v)
			}
			ax := (c.axis + len(c.shape)) % len(c.shape)
			outShape := append(append([]int{}, c.shape[:ax]...), c.shape[ax+1:]...)
			dst, _ := NewTensor(dt, outShape...)
			if err := LogSumExp(dst, x, Options{Axis: c.axis, Scale: 0.8}); err != nil {
				t.Fatal(err)
			}
			outer, n, inner := 1, c.shape[ax], 1
			for _, d := range c.shape[:ax] {
				outer *= d
			}
			for _, d := range c.shape[ax+1:] {
				inner *= d
			}
			for o := range outer {
				for i := range inner {
					var s float64
					for j := range n {
						s += math.Exp(0.8 * xf[(o*n+j)*inner+i])
					}
					want, got := math.Log(s), elem(dst, o*inner+i)
					if !closeTo(got, want, ceTol(dt), 1) {
						t.Fatalf("%v %v axis %d: [%d,%d] = %v, want %v", dt, c.shape, c.axis, o, i, got, want)
					}
				}
			}
		}
	}
	x := Tensor{Shape: []int{2, 3}, DType: Float32, F32: []float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1)), 0, float32(math.NaN()), 0}}
	dst := Tensor{Shape: []int{2, 1}, DType: Float32, F32: make([]float32, 2)}
	if err := LogSumExp(dst, x, Options{Axis: 1}); err != nil || !math.IsInf(float64(dst.F32[0]), -1) || !math.IsNaN(float64(dst.F32[1])) {
		t.Errorf("LogSumExp of (−inf row, NaN row) = %v (%v), want [−inf NaN]", dst.F32, err)
	}
	if err := LogSumExp(Tensor{Shape: []int{2}, DType: Float32, F32: make([]float32, 2)}, x, Options{Axis: 0}); !errors.Is(err, ErrBadShape) {
		t.Errorf("wrong dst shape: %v", err)
	}
}

func TestCrossEntropyNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(78, 4))
	x, _ := ceInput(rng, Float32, 64, 4096, false)
	grad, _ := NewTensor(Float32, 64, 4096)
	tg := Targets{I64: targetsFor(rng, 64, 4096, -100)}
	loss, lse := make([]float64, 1), make([]float64, 64)
	opt := CrossEntropyOptions{LabelSmoothing: 0.1, Weights: weights(4096)}
	out := CrossEntropyOutput{Loss: loss, LSE: lse, Grad: &grad}
	if n := testing.AllocsPerRun(5, func() {
		if err := CrossEntropy(x, tg, opt, out); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("CrossEntropy allocates %v times per call", n)
	}
	// 8 MiB of gradient and more: the streamed schedule (gradient rows deferred to the
	// next row's pass), torch's defaults and label smoothing, float32 and
	// bfloat16.
	for _, dt := range []DType{Float32, BFloat16} {
		big, _ := ceInput(rng, dt, 1040, 4096, false)
		bigGrad, _ := NewTensor(dt, 1040, 4096)
		btg := Targets{I64: targetsFor(rng, 1040, 4096, -100)}
		for _, o := range []CrossEntropyOptions{{}, {LabelSmoothing: 0.1}} {
			bout := CrossEntropyOutput{Loss: loss, Grad: &bigGrad}
			if n := testing.AllocsPerRun(3, func() {
				if err := CrossEntropy(big, btg, o, bout); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%v 1040×4096 %+v: CrossEntropy allocates %v times per call", dt, o, n)
			}
		}
	}
	d := Tensor{Shape: []int{64}, DType: Float32, F32: make([]float32, 64)}
	if n := testing.AllocsPerRun(5, func() { _ = LogSumExp(d, x, Options{Axis: -1}) }); n != 0 {
		t.Errorf("LogSumExp allocates %v times per call", n)
	}
}

// FuzzCrossEntropy checks option combinations against the reference on
// float32 logits.
func FuzzCrossEntropy(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint16(7), 0.1, 1.0, 0.0, 0.0, uint8(0), true)
	f.Add(uint64(2), uint8(1), uint16(1), 0.0, 0.5, 1e-3, 3.0, uint8(2), false)
	f.Fuzz(func(t *testing.T, seed uint64, rows uint8, v uint16, eps, scale, z, capv float64, red uint8, w bool) {
		r, n := int(rows%9)+1, int(v%300)+1
		opt := CrossEntropyOptions{LabelSmoothing: eps, Scale: scale, ZLoss: z, Softcap: capv, Reduction: Reduction(red % 3)}
		if w {
			opt.Weights = weights(n)
		}
		x, _ := NewTensor(Float32, r, n)
		err := CrossEntropy(x, Targets{I64: make([]int64, r)}, opt, CrossEntropyOutput{})
		if err != nil {
			if !errors.Is(err, ErrBadOption) && !errors.Is(err, ErrBadScale) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		if math.Abs(scale) > 10 || capv > 1e6 || z > 1 || capv != 0 && capv < 1e-3 {
			return // the float32 tolerance below is for moderate values
		}
		runCE(t, rand.New(rand.NewPCG(seed, 5)), Float32, r, n, opt, seed%2 == 0)
	})
}

// FuzzCrossEntropyRows checks every dtype against the reference on rows
// longer than the CPU's 2048-element chunks, whose logits climb (or fall)
// by step from chunk to chunk: the one-pass schedule takes each chunk's
// exps against the max of the chunks before it and recomputes those far
// below the row's max. Options: label smoothing, weights, an ignore index
// that some targets hit, and all rows' −∞ pattern.
func FuzzCrossEntropyRows(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint8(3), uint16(5000), 100.0, uint8(0))
	f.Add(uint64(2), uint8(1), uint8(2), uint16(4097), -80.0, uint8(7))
	f.Add(uint64(3), uint8(3), uint8(1), uint16(6500), 45.0, uint8(2))
	f.Add(uint64(4), uint8(3), uint8(4), uint16(6200), 0.0, uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, dtc, rows uint8, v uint16, step float64, opts uint8) {
		dt := []DType{Float32, Float64, Float16, BFloat16}[dtc%4]
		r, n := int(rows%5)+1, int(v%7000)+1
		if math.IsNaN(step) || math.Abs(step) > 200 || dt == Float16 && math.Abs(step) > 2 {
			return // float16 logits stop at ±65504; larger steps are the same test
		}
		var opt CrossEntropyOptions
		if opts&1 != 0 {
			opt.LabelSmoothing = 0.1
		}
		if opts&2 != 0 {
			opt.Weights = weights(n)
		}
		if opts&4 != 0 {
			opt.IgnoreIndex = Ignore(0)
		}
		rng := rand.New(rand.NewPCG(seed, 6))
		x, _ := NewTensor(dt, r, n)
		xf := make([]float64, r*n)
		for i := range xf {
			val := rng.NormFloat64()*3 + step*float64(i%n/2048)
			if opts&8 != 0 && i%7 == 3 {
				val = math.Inf(-1)
			}
			xf[i] = setElem(x, i, val)
		}
		runCEOn(t, rng, x, xf, dt, r, n, opt)
	})
}

// BenchmarkCrossEntropy times the fused forward+backward on 512×32000
// float32 logits (65 MB, larger than the caches); bytes: logits read and
// gradient written.
func BenchmarkCrossEntropy(b *testing.B) {
	rng := rand.New(rand.NewPCG(79, 5))
	const rows, v = 512, 32000
	x, _ := ceInput(rng, Float32, rows, v, false)
	grad, _ := NewTensor(Float32, rows, v)
	tg := Targets{I64: targetsFor(rng, rows, v, -100)}
	out := CrossEntropyOutput{Loss: make([]float64, 1), Grad: &grad}
	b.SetBytes(2 * rows * v * 4)
	for b.Loop() {
		if err := CrossEntropy(x, tg, CrossEntropyOptions{}, out); err != nil {
			b.Fatal(err)
		}
	}
}

// Rows are done chunk by chunk, each chunk's exps relative to its own max:
// a whole chunk of −inf (first, or after larger values) adds nothing and
// gets gradient 0; a whole chunk of NaN makes the row NaN.
func TestCrossEntropyChunkEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(80, 6))
	const v = 7000
	for _, dt := range []DType{Float32, BFloat16, Float64} {
		x, _ := NewTensor(dt, 3, v)
		xf := make([]float64, 3*v)
		for i := range xf {
			val := rng.NormFloat64() * 5
			j := i % v
			switch {
			case i/v == 0 && j < 2048, i/v == 1 && j >= 2048 && j < 4096:
				val = math.Inf(-1)
			case i/v == 2 && j >= 4096 && j < 6144:
				val = math.NaN()
			}
			xf[i] = setElem(x, i, val)
		}
		tg := []int64{3000, 100, 5}
		ref := refCE(xf, 3, v, tg, CrossEntropyOptions{Reduction: ReductionNone})
		loss := make([]float64, 3)
		grad, _ := NewTensor(dt, 3, v)
		if err := CrossEntropy(x, Targets{I64: tg}, CrossEntropyOptions{Reduction: ReductionNone}, CrossEntropyOutput{Loss: loss, Grad: &grad}); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if !closeTo(loss[i], ref.loss[i], ceTol(dt), 1) {
				t.Errorf("%v row %d: loss %v, want %v", dt, i, loss[i], ref.loss[i])
			}
			for j := range v {
				if got, want := elem(grad, i*v+j), ref.grad[i*v+j]; !closeTo(got, want, 4*ceTol(dt), 1) {
					t.Fatalf("%v row %d: grad[%d] = %v, want %v", dt, i, j, got, want)
				}
			}
		}
		if !math.IsNaN(loss[2]) {
			t.Errorf("%v: a chunk of NaN gives loss %v, want NaN", dt, loss[2])
		}
	}
}

// Zero rows or zero classes: valid calls; a mean over no rows is NaN.
func TestCrossEntropyEmpty(t *testing.T) {
	loss, lse := []float64{5, 5}, []float64{5, 5}
	x := Tensor{Shape: []int{2, 0}, DType: Float32, F32: []float32{}}
	opt := CrossEntropyOptions{Reduction: ReductionNone}
	if err := CrossEntropy(x, Targets{I32: []int32{-100, -100}}, opt, CrossEntropyOutput{Loss: loss, LSE: lse}); err != nil {
		t.Fatal(err)
	}
	if loss[0] != 0 || loss[1] != 0 || !math.IsInf(lse[0], -1) {
		t.Errorf("2×0 logits: loss %v lse %v, want 0 and −inf", loss, lse)
	}
	if err := CrossEntropy(x, Targets{I32: []int32{0, -100}}, opt, CrossEntropyOutput{}); !errors.Is(err, ErrBadTarget) {
		t.Errorf("target 0 of no classes: %v", err)
	}
	m := []float64{5}
	if err := CrossEntropy(Tensor{Shape: []int{0, 3}, DType: Float32, F32: []float32{}}, Targets{}, CrossEntropyOptions{}, CrossEntropyOutput{Loss: m}); err != nil || !math.IsNaN(m[0]) {
		t.Errorf("mean over 0 rows: %v (%v), want NaN", m[0], err)
	}
}
