package cuda

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// backendAt runs a verify case on tensors that start offs[i] elements into
// their buffers (output first, then the inputs): views into larger
// tensors, misaligned unless the offset is a whole 16 bytes. The output's
// buffer gets the poisoned output first, as the aligned backend's does.
func backendAt(d *Device, opt Options, offs []int) verify.Backend {
	return func(c verify.Case, out verify.Host, in []verify.Host) error {
		hs := append([]verify.Host{out}, in...)
		ts := make([]Tensor, len(hs))
		defer func() {
			for _, t := range ts {
				if t.Buf != nil {
					t.Free()
				}
			}
		}()
		host := func(x verify.Host) softmax.Tensor {
			return softmax.Tensor{Shape: c.Shape, DType: x.DType, F32: x.F32, U16: x.U16}
		}
		for i, h := range hs {
			var err error
			if ts[i], err = d.UploadAt(host(h), int64(offs[i]*c.DType.Size())); err != nil {
				return err
			}
		}
		opt.Axis, opt.Scale = c.Axis, c.Scale
		var err error
		if c.Op.Backward() {
			err = d.ApplyBackward(c.Op, ts[0], ts[1], ts[2], opt, nil)
		} else {
			err = d.Apply(c.Op, ts[0], ts[1], opt, nil)
		}
		if err != nil {
			return err
		}
		return ts[0].CopyTo(host(out))
	}
}

// Tensors that start inside a 16-byte pack (each by its own offset, or all
// by the same, whose rows the ragged-row twins read in packs) against the
// float64 reference, for the planner's pick and for the strategies that
// take any element alignment, on short rows of whole and ragged packs,
// rows past flat_rows' reach and a non-last axis. The planner's picks are
// logged.
func TestMisalignedRows(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(8, uint64(rand.Int64())))
	shapes := []struct {
		shape []int
		axis  int
	}{{[]int{37, 5}, -1}, {[]int{300, 13}, -1}, {[]int{1000, 64}, -1}, {[]int{1000, 100}, -1}, {[]int{257, 128}, -1},
		{[]int{333, 129}, -1}, {[]int{64, 300}, -1}, {[]int{50, 512}, -1}, {[]int{40, 513}, -1}, {[]int{7, 1000}, -1},
		{[]int{1, 77}, -1}, {[]int{30, 7, 33}, 1},
		// past flat_rows: tensors at one offset take the ragged-row twins
		{[]int{33, 1024}, -1}, {[]int{9, 2001}, -1}, {[]int{5, 4096}, -1}, {[]int{3, 9000}, -1}, {[]int{4, 33000}, -1},
		// past the few-row rules: block_reg's 16-bit twins sized by the
		// row, thread 0 holding the span's overhang (the last row's element
		// by element)
		{[]int{600, 1024}, -1}, {[]int{600, 2047}, -1},
		// backward f32 spans past 1024 packs: block_reg's four-pack twin
		// at up to 384 threads
		{[]int{300, 5001}, -1},
		// f32 spans on either side of (NP-1) packs a thread as the shift
		// varies by row (t256_p5: 4096 columns): block_reg's NP-1 masked body
		{[]int{300, 4095}, -1},
		// block_hybrid's twins: 512 threads (as many rows as SMs) past
		// their registers; 4×33000 above takes the 1024-thread ones
		{[]int{140, 20001}, -1}}
	offsets := [][]int{{1, 1, 1}, {3, 1, 2}, {0, 1, 0}, {1, 0, 0}, {3, 3, 3}, {7, 7, 7}}
	fills := []verify.Fill{verify.Random, verify.NegInf, verify.NaN}
	for _, algo := range []string{"auto", "flat_rows", "warp_row", "block_reg", "block_hybrid", "block_smem", "online_2pass"} {
		t.Run(algo, func(t *testing.T) {
			run, skipped, planned := 0, 0, map[string]int{}
			for _, s := range shapes {
				for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
					for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
						for k, offs := range offsets {
							c := verify.Case{Shape: s.shape, Axis: s.axis, DType: dt, Op: op, Fill: fills[k%len(fills)]}
							r := verify.Run(c, rng, backendAt(d, Options{Algo: algo}, offs))
							if unsupported(r.Err) {
								skipped++
								continue
							}
							run++
							if !r.OK() {
								t.Errorf("%s offsets %v: rel %.3g (tol %.0e) err %v", c.Name(), offs, r.Rel, r.Tol, r.Err)
							}
							if algo == "auto" {
								picked, err := planAt(d, c, offs)
								if err != nil {
									t.Fatalf("%s offsets %v: PlanFor: %v", c.Name(), offs, err)
								}
								planned[picked]++
							}
						}
					}
				}
			}
			t.Logf("%s: %d cases run, %d not served by this strategy; planner's picks %v", algo, run, skipped, planned)
			if algo == "auto" && skipped > 0 {
				t.Errorf("the planner refused %d cases", skipped)
			}
		})
	}
}

// planAt returns the strategy PlanFor picks for case c on tensors offs
// elements into their buffers.
func planAt(d *Device, c verify.Case, offs []int) (string, error) {
	ts := make([]Tensor, 2)
	if c.Op.Backward() {
		ts = make([]Tensor, 3)
	}
	for i := range ts {
		var err error
		if ts[i], err = d.newTensorAt(c.DType, int64(offs[i]*c.DType.Size()), c.Shape); err != nil {
			return "", err
		}
		defer ts[i].Free()
	}
	pl, err := d.PlanFor(c.Op, Options{Axis: c.Axis}, ts[0], ts[1:]...)
	return pl.Strategy, err
}

// placement gives the planner Aligned and Skew from the pointers: the
// forward ops' zero dy is skipped, and pointers the same distance past a
// 16-byte boundary share it as the skew.
func TestPlacement(t *testing.T) {
	for _, c := range []struct {
		ptrs    []uintptr
		aligned bool
		skew    int
	}{
		{nil, true, 0},
		{[]uintptr{0x1000, 0x2000, 0}, true, 0},
		{[]uintptr{0x1002, 0x2002, 0}, false, 2},
		{[]uintptr{0x100c, 0x201c, 0x30c}, false, 12},
		{[]uintptr{0x1002, 0x2004, 0}, false, 0},
		{[]uintptr{0x1000, 0x2004}, false, 0},
		{[]uintptr{0x1004, 0x2004, 0x3000}, false, 0},
	} {
		if a, s := placement(c.ptrs...); a != c.aligned || s != c.skew {
			t.Errorf("placement(%#x) = %v, %d; want %v, %d", c.ptrs, a, s, c.aligned, c.skew)
		}
	}
}

// PlanFor sees each pointer: the plan of aligned tensors is Plan's, one
// misaligned tensor among them changes it (no 16-byte path), tensors all
// the same distance past a 16-byte boundary take a ragged-row twin; a wrong
// number of inputs and an offset that is not a whole element are errors.
func TestPlanFor(t *testing.T) {
	d := openOrSkip(t)
	shape := []int{4096, 1024}
	mk := func(off int64) Tensor {
		x, err := d.newTensorAt(softmax.Float32, off, shape)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Free() })
		return x
	}
	a, b, m := mk(0), mk(0), mk(4)
	want, err := d.Plan(softmax.OpSoftmax, softmax.Float32, shape, Options{Axis: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.PlanFor(softmax.OpSoftmax, Options{Axis: -1}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("aligned tensors: PlanFor %+v, Plan %+v", got, want)
	}
	mis, err := d.PlanFor(softmax.OpSoftmax, Options{Axis: -1}, a, m)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(mis) == fmt.Sprint(want) {
		t.Errorf("a misaligned input left the plan as for aligned ones: %+v", mis)
	}
	sk, err := d.PlanFor(softmax.OpSoftmax, Options{Axis: -1}, m, mk(4))
	if err != nil {
		t.Fatal(err)
	}
	if !sk.Shift || !strings.HasSuffix(sk.Launches[0].Symbol, "_shift") {
		t.Errorf("tensors 4 bytes past a 16-byte boundary: %s (shift %v), want a ragged-row twin", sk.Launches[0].Symbol, sk.Shift)
	}
	if _, err := d.PlanFor(softmax.OpSoftmaxBackward, Options{Axis: -1}, a, b); err == nil {
		t.Error("PlanFor of a backward op with one input: no error")
	}
	if _, err := d.newTensorAt(softmax.Float32, 2, shape); err == nil {
		t.Error("an f32 tensor 2 bytes into its buffer: no error")
	}
}
