package cuda

import (
	"fmt"
	"github.com/gofused/softmax/internal/plan"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/kernels"
)

// xentSanitizeV are row lengths that reach every row kernel of the
// planner's table for every dtype (float64's half-size packs move each to
// the next kernel), ragged.
var xentSanitizeV = []int{999, 1501, 3001, 7001, 15001, 30001, 70001}

// Small calls of every xent.cu kernel for compute-sanitizer (memcheck,
// racecheck; scripts/gpu-tests-73.sh): each row kernel of every dtype
// forward with the gradient (out of place at another skew, and in place),
// backward in place, log p[target], log-sum-exp of rows and of columns,
// and a grid that loops over rows. Each result is
// checked against the float64 CPU reference.
func TestCrossEntropySanitize(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	seen := map[string]bool{}
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		for _, v := range xentSanitizeV {
			pl, err := d.XentPlan(plan.XentProblem{Rows: 3, V: int64(v), DType: dt})
			if err != nil {
				t.Fatal(err)
			}
			seen[pl.Symbol] = true
			opt := softmax.CrossEntropyOptions{LabelSmoothing: 0.1, Weights: weights(v, 2), ZLoss: 1e-4, Softcap: 9, Scale: 1.1}
			ceRun{dt: dt, rows: 4, v: v, opt: opt, gradSkew2: true}.check(t, d, uint64(v))
			ceRun{dt: dt, rows: 4, v: v, inPlace: true, skew: int64(dt.Size()), opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone}}.check(t, d, uint64(v)+1)
			sanitizeOthers(t, d, dt, v)
			sanitizeLSERows(t, d, dt, v, seen)
		}
	}
	// Plain calls (kernels.XentPlain: no softcap, weights or smoothing,
	// whole packs from aligned starts) take the "_plain" twins.
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		// 30000, 40000 and 140000: the stash kernels of f64, f32 and f64, and
		// 16-bit; 170000 (16-bit), 140000 (f32, f64): the 192 KB stash's tail
		// kernels.
		for _, v := range append(xentSanitizeV, 30000, 40000, 140000, 170000) {
			v &^= 7
			pl, err := d.XentPlan(plan.XentProblem{Rows: 3, V: int64(v), DType: dt, Plain: true})
			if err != nil {
				t.Fatal(err)
			}
			seen[pl.Symbol] = true
			ceRun{dt: dt, rows: 4, v: v, opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone, ZLoss: 1e-4, Scale: 1.1}}.check(t, d, uint64(v)+2)
			ceRun{dt: dt, rows: 4, v: v, inPlace: true}.check(t, d, uint64(v)+3)
			sanitizeLSERows(t, d, dt, v, seen)
		}
	}
	// Devices with less shared memory, as the planner sees them: the 128 KB
	// stash's tail kernels (an A100's 163 KB), and with no room for a stash
	// the streaming kernels' plain twins (the tail kernels take those rows
	// where a stash fits).
	optin := d.props.SharedMemPerBlockOptin
	defer func() { d.props.SharedMemPerBlockOptin = optin }()
	for _, lim := range []int{166912, 48 << 10} {
		d.props.SharedMemPerBlockOptin = min(lim, optin)
		for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
			for _, v := range []int{40000, 140000, 170000} {
				pl, err := d.XentPlan(plan.XentProblem{Rows: 3, V: int64(v), DType: dt, Plain: true})
				if err != nil {
					t.Fatal(err)
				}
				seen[pl.Symbol] = true
				ceRun{dt: dt, rows: 4, v: v, opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionNone, ZLoss: 1e-4}}.check(t, d, uint64(v)+4)
				ceRun{dt: dt, rows: 4, v: v, inPlace: true}.check(t, d, uint64(v)+5)
			}
		}
	}
	d.props.SharedMemPerBlockOptin = optin
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		for _, k := range rowKernels(dt) {
			if !seen[k] {
				t.Errorf("no case reaches %s", k)
			}
		}
	}
	// More rows than the grid's blocks: each block loops.
	ceRun{dt: softmax.BFloat16, rows: 2500, v: 33, opt: softmax.CrossEntropyOptions{Reduction: softmax.ReductionSum}}.check(t, d, 5)
}

// rowKernels are the row kernels the catalogue holds for dt.
func rowKernels(dt softmax.DType) []string {
	var out []string
	for _, in := range kernels.XentInstances() {
		if strings.HasPrefix(in.Symbol, "xent_row_"+dt.String()+"_") {
			out = append(out, in.Symbol)
		}
	}
	return out
}

// sanitizeOthers runs the backward (in place), log p[target] and the
// log-sum-exp of rows and columns of one shape, each checked.
func sanitizeOthers(t *testing.T, d *Device, dt softmax.DType, v int) {
	t.Helper()
	const rows = 3
	name := fmt.Sprintf("%v V=%d", dt, v)
	x, tg := ceHost(rand.New(rand.NewPCG(uint64(v), 3)), dt, rows, v, -100)
	x64 := toF64(x)
	opt := softmax.CrossEntropyOptions{Softcap: 6}
	ref := softmax.CrossEntropyOutput{LSE: make([]float64, rows)}
	g64, _ := softmax.NewTensor(softmax.Float64, rows, v)
	ref.Grad = &g64
	if err := softmax.CrossEntropy(x64, softmax.Targets{I64: tg}, opt, ref); err != nil {
		t.Fatal(err)
	}
	dx, _ := d.UploadAt(x, int64(dt.Size()))
	defer dx.Free()
	dtg, _ := d.UploadTargets(softmax.Targets{I64: tg})
	defer dtg.Buf.Free()
	sdt := XentStatDType(dt)
	lse, _ := d.NewTensor(sdt, rows)
	defer lse.Free()
	tlp, _ := d.NewTensor(sdt, rows)
	defer tlp.Free()
	if err := d.TargetLogProbs(tlp, dx, dtg, softmax.CrossEntropyOptions{Softcap: 6}, nil); err != nil {
		t.Fatalf("%s: target log-probs: %v", name, err)
	}
	if err := d.CrossEntropy(dx, dtg, opt, CrossEntropyOutput{LSE: &lse}, nil); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	gotLSE := readStat(t, lse)
	for i, got := range readStat(t, tlp) {
		want := 0.0
		if tg[i] != -100 {
			z := x64.F64[i*v+int(tg[i])]
			want = 6*math.Tanh(z/6) - ref.LSE[i]
		}
		if !near(got, want, 5e-5*(math.Abs(want)+1)) || !near(gotLSE[i], ref.LSE[i], 2e-5*(math.Abs(ref.LSE[i])+1)) {
			t.Errorf("%s: row %d: log p[t] %v, want %v; lse %v, want %v", name, i, got, want, gotLSE[i], ref.LSE[i])
		}
	}
	if err := d.CrossEntropyBackward(dx, dx, dtg, lse, opt, softmax.GradOutput{}, nil); err != nil {
		t.Fatalf("%s: backward: %v", name, err)
	}
	hg, _ := softmax.NewTensor(dt, rows, v)
	if err := dx.CopyTo(hg); err != nil {
		t.Fatal(err)
	}
	got := toF64(hg)
	for i, w := range g64.F64 {
		if !near(got.F64[i], w, ceTol(dt)*(math.Abs(w)+0.05)) {
			t.Fatalf("%s: backward in place grad[%d] = %v, want %v", name, i, got.F64[i], w)
		}
	}
	// Columns: the logits seen as [v, rows] along axis 0.
	col, _ := softmax.NewTensor(softmax.Float64, rows)
	if err := softmax.LogSumExp(col, softmax.Tensor{Shape: []int{v, rows}, DType: softmax.Float64, F64: x64.F64}, softmax.Options{Axis: 0}); err != nil {
		t.Fatal(err)
	}
	x2, _ := d.Upload(x)
	defer x2.Free()
	x2.Shape = []int{v, rows}
	dcol, _ := d.NewTensor(dt, 1, rows)
	defer dcol.Free()
	if err := d.LogSumExp(dcol, x2, Options{Axis: 0}, nil); err != nil {
		t.Fatalf("%s: columns: %v", name, err)
	}
	hc, _ := softmax.NewTensor(dt, 1, rows)
	if err := dcol.CopyTo(hc); err != nil {
		t.Fatal(err)
	}
	for i, g := range toF64(hc).F64 {
		if !near(g, col.F64[i], ceTol(dt)*(math.Abs(col.F64[i])+1)) {
			t.Errorf("%s: column lse[%d] = %v, want %v", name, i, g, col.F64[i])
		}
	}
}

// sanitizeLSERows runs the log-sum-exp of rows alone, from a skewed start
// (the general kernels) and an aligned one (plain where v is whole packs),
// each checked, and marks the kernels its plans name in seen.
func sanitizeLSERows(t *testing.T, d *Device, dt softmax.DType, v int, seen map[string]bool) {
	t.Helper()
	const rows = 3
	x, _ := ceHost(rand.New(rand.NewPCG(uint64(v), 5)), dt, rows, v, -100)
	want, _ := softmax.NewTensor(softmax.Float64, rows)
	if err := softmax.LogSumExp(want, toF64(x), softmax.Options{Axis: -1}); err != nil {
		t.Fatal(err)
	}
	for _, skew := range []int64{int64(dt.Size()), 0} {
		pl, err := d.XentPlan(plan.XentProblem{Rows: rows, V: int64(v), DType: dt, LSE: true,
			Plain: skew == 0 && v%kernels.Pack(dt) == 0})
		if err != nil {
			t.Fatal(err)
		}
		seen[pl.Symbol] = true
		dx, _ := d.UploadAt(x, skew)
		dst, _ := d.NewTensor(dt, rows)
		err = d.LogSumExp(dst, dx, Options{Axis: -1}, nil)
		h, _ := softmax.NewTensor(dt, rows)
		if err == nil {
			err = dst.CopyTo(h)
		}
		dx.Free()
		dst.Free()
		if err != nil {
			t.Fatalf("%v V=%d skew %d: log-sum-exp: %v", dt, v, skew, err)
		}
		for i, g := range toF64(h).F64 {
			if w := want.F64[i]; !near(g, w, ceTol(dt)*(math.Abs(w)+1)) {
				t.Errorf("%v V=%d skew %d (%s): lse[%d] = %v, want %v", dt, v, skew, pl.Symbol, i, g, w)
			}
		}
	}
}
