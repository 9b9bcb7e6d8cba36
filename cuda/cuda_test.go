package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
	"github.com/gofused/softmax/internal/verify"
)

// openOrSkip opens device 0, or skips the test with the reason there is no GPU.
func openOrSkip(t testing.TB) *Device {
	t.Helper()
	d, err := Open(0)
	if err != nil {
		t.Skip("no CUDA device: " + err.Error())
	}
	return d
}

// openClustersOrSkip opens device 0 for a test of thread-block clusters,
// skipping without a device or without cluster launch, and closes it when
// the test ends.
func openClustersOrSkip(t testing.TB) *Device {
	t.Helper()
	d := openOrSkip(t)
	t.Cleanup(func() { d.Close() })
	if !d.props.ClusterLaunch {
		t.Skip("no thread-block clusters on " + d.String())
	}
	return d
}

// backend runs a verify case on the device with a forced strategy.
func backend(d *Device, algo string) verify.Backend { return backendWith(d, Options{Algo: algo}) }

// backendWith runs a verify case on the device with opt (its axis and scale
// set from the case).
func backendWith(d *Device, opt Options) verify.Backend {
	return func(c verify.Case, out verify.Host, in []verify.Host) error {
		h := func(x verify.Host) softmax.Tensor {
			return softmax.Tensor{Shape: c.Shape, DType: x.DType, F32: x.F32, U16: x.U16, F64: x.F64}
		}
		opt.Axis, opt.Scale = c.Axis, c.Scale
		if c.Op.Backward() {
			return d.ApplyBackwardHost(c.Op, h(out), h(in[0]), h(in[1]), opt)
		}
		return d.ApplyHost(c.Op, h(out), h(in[0]), opt)
	}
}

// unsupported reports a planner refusal (the strategy cannot serve the case).
func unsupported(err error) bool { return err != nil && strings.Contains(err.Error(), "cannot serve") }

// Every strategy × dtype × op × shape of the battery, against the float64
// reference, outputs poisoned with NaN before each run.
func TestStrategiesAgainstReference(t *testing.T) {
	d := openOrSkip(t)
	t.Logf("device: %s", d)
	rng := rand.New(rand.NewPCG(3, uint64(rand.Int64())))
	for _, algo := range append([]string{"auto"}, Strategies()...) {
		t.Run(algo, func(t *testing.T) {
			run, skipped := 0, 0
			for _, c := range verify.Battery(testing.Short()) {
				if c.DType == softmax.Float64 {
					continue // TestFloat64AgainstReference
				}
				r := verify.Run(c, rng, backend(d, algo))
				if unsupported(r.Err) {
					skipped++
					continue
				}
				run++
				if !r.OK() {
					t.Errorf("%s: rel %.3g (tol %.0e) err %v", c.Name(), r.Rel, r.Tol, r.Err)
				}
			}
			t.Logf("%s: %d cases run, %d not served by this strategy", algo, run, skipped)
			if algo == "auto" && skipped > 0 {
				t.Errorf("the planner refused %d cases", skipped)
			}
		})
	}
}

// Every launch configuration the autotuner may time (Device.Configs:
// block_reg's block sizes, warp_row's lanes a row), forced by its
// NAME/CONFIG, over the battery against the float64 reference: a tuned
// cache may pick any of them, so each must be as exact as the planner's own.
func TestConfigurationsAgainstReference(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(5, uint64(rand.Int64())))
	for _, strategy := range []string{"block_reg", "warp_row"} {
		t.Run(strategy, func(t *testing.T) {
			run, configs := 0, map[string]bool{}
			for _, c := range verify.Battery(testing.Short()) {
				if slices.Contains(c.Shape, 0) || c.DType == softmax.Float64 {
					continue // nothing to launch: the planner has no configurations (nor f64 kernels)
				}
				names, err := d.Configs(c.Op, c.DType, c.Shape, Options{Axis: c.Axis}, strategy)
				if err != nil {
					t.Fatalf("%s: Configs: %v", c.Name(), err)
				}
				for _, name := range names {
					configs[name] = true
					run++
					if r := verify.Run(c, rng, backend(d, name)); !r.OK() {
						t.Errorf("%s %s: rel %.3g (tol %.0e) err %v", name, c.Name(), r.Rel, r.Tol, r.Err)
					}
				}
			}
			if run == 0 {
				t.Fatalf("no battery case has a configuration of %s", strategy)
			}
			t.Logf("%s: %d runs over %d configurations", strategy, run, len(configs))
		})
	}
}

// Long rows and big problems for the split / two-pass / cluster paths.
func TestLargeShapes(t *testing.T) {
	d := openOrSkip(t)
	if testing.Short() {
		t.Skip("large shapes in -short mode")
	}
	rng := rand.New(rand.NewPCG(4, uint64(rand.Int64())))
	shapes := []struct {
		shape []int
		axis  int
	}{{[]int{4, 1 << 22}, -1}, {[]int{1, 10000019}, -1}, {[]int{3, 100003}, -1}, {[]int{2048, 3, 4096}, 1},
		{[]int{5000, 1000}, 0}, {[]int{1, 200000, 2}, 1}, {[]int{4096, 2048}, 0}, {[]int{8, 1024, 4096}, 1},
		{[]int{4, 16384}, -1}, {[]int{4096, 384}, -1}, {[]int{200, 36000}, -1}, {[]int{150, 28672}, -1},
		{[]int{140, 32768}, -1}, {[]int{3072, 1024}, 0}, {[]int{3500, 520}, 0}, // strided_reg's paired clusters
		{[]int{1000, 21, 1025}, 1},                         // strided_short's lane-pair twins, odd axis
		{[]int{56, 100, 12269}, 1}, {[]int{3986, 1001}, 0}, // strided_reg's twins (the second over 8-block clusters)
		{[]int{20000, 64, 4}, 1}, {[]int{600, 1000, 8}, 1}, // strided_narrow: a warp (since session 37 600×1000×8 is strided_smem's)
		{[]int{2000, 49, 129}, 1}, {[]int{60000, 64, 3}, 1}, // strided_smem: one outer index a block, and tiles of them
		// Few rows the planner gives block_hybrid (16-bit) or split_grid
		// with one or two blocks a row.
		{[]int{96, 50000}, -1}, {[]int{64, 65536}, -1}, {[]int{66, 131072}, -1},
		// As many rows as SMs or more, past block_hybrid's 512-thread
		// blocks: split_grid (264×65536 f32, 1000×100000 f32) and
		// 1024-thread block_hybrid (1000×100000 bf16).
		{[]int{264, 65536}, -1}, {[]int{1000, 100000}, -1},
		// Rows that would fill block_hybrid's or split_grid's slots unevenly:
		// split_cluster (clusterUnevenRows; 166×65536 f32 from split_grid,
		// bf16 from block_hybrid, 100×61440 bf16 with fewer rows than SMs).
		{[]int{166, 65536}, -1}, {[]int{100, 61440}, -1}}
	for _, algo := range append([]string{"auto"}, Strategies()...) {
		t.Run(algo, func(t *testing.T) {
			for _, s := range shapes {
				for _, dt := range []spec.DType{spec.Float32, spec.BFloat16} {
					for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmaxBackward} {
						c := verify.Case{Shape: s.shape, Axis: s.axis, DType: dt, Op: op, Fill: verify.Random}
						r := verify.Run(c, rng, backend(d, algo))
						if unsupported(r.Err) {
							continue
						}
						if !r.OK() {
							t.Errorf("%s %s: rel %.3g err %v", algo, c.Name(), r.Rel, r.Err)
						}
					}
				}
			}
		})
	}
}

// A small, fast subset for compute-sanitizer (memcheck, racecheck).
func TestSanitize(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(5, 6))
	shapes := [][]int{{3, 781}, {2, 70000}, {5, 4097}, {37, 5, 3}, {7}, {2, 40000, 3}, {64, 24}, {16, 300, 8},
		// strided_short: a packed 16-bit tile, lane pairs and four lanes
		// (odd and short axes, whole packs and ragged Inner)
		{9, 12, 64}, {9, 21, 40}, {5, 24, 37}, {3, 37, 64}, {4, 45, 37}, {5, 19, 40},
		// strided_reg's twins: part tiles, a 2-block cluster (f32 520 rows)
		{3, 100, 333}, {2, 60, 37}, {2, 520, 9},
		// strided_narrow: rows within a pack, its twin, 4-8 warps an outer index
		{5, 64, 4}, {3, 333, 2}, {2, 1000, 8},
		// strided_smem: a ragged Inner past the block's threads, row groups
		{3, 49, 129}, {4, 30, 6},
		// warp_row's two-pack groups: whole packs, and ragged rows through
		// the twins' masked body, which reads each row's last pack whole
		{37, 96}, {41, 77}, {23, 201},
		// ragged rows under 16 packs: twins of one and two packs a lane,
		// and a row left element by element
		{29, 100}, {45, 10}, {31, 59}, {33, 21}, {27, 126},
		// three packs a lane over 16 lanes (f16 over 8), ragged and whole
		{19, 150}, {21, 384}}
	for _, algo := range Strategies() {
		t.Run(algo, func(t *testing.T) {
			for _, shape := range shapes {
				for _, dt := range []spec.DType{spec.Float32, spec.Float16} {
					for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
						axis := -1
						if len(shape) == 3 {
							axis = 1
						}
						c := verify.Case{Shape: shape, Axis: axis, DType: dt, Op: op, Fill: verify.Random}
						r := verify.Run(c, rng, backend(d, algo))
						if !unsupported(r.Err) && !r.OK() {
							t.Errorf("%s %s: rel %.3g err %v", algo, c.Name(), r.Rel, r.Err)
						}
					}
				}
			}
		})
	}
}

// Pointers that are element-aligned but not 16-byte aligned take the scalar
// path; pointers that are not even element-aligned are refused.
func TestMisaligned(t *testing.T) {
	d := openOrSkip(t)
	const rows, cols = 33, 1000
	n := rows * cols
	buf, err := d.Alloc(int64(4*n + 64))
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	host := softmax.Tensor{Shape: []int{rows, cols}, DType: softmax.Float32, F32: x}
	want := softmax.Tensor{Shape: host.Shape, DType: softmax.Float32, F32: make([]float32, n)}
	if err := softmax.Apply(softmax.OpSoftmax, want, host, softmax.Options{Axis: -1}); err != nil {
		t.Fatal(err)
	}
	for _, algo := range append([]string{"auto"}, Strategies()...) {
		src := Tensor{Buf: buf, Offset: 4, Shape: host.Shape, DType: softmax.Float32} // 4-byte, not 16-byte aligned
		if err := src.CopyFrom(host); err != nil {
			t.Fatal(err)
		}
		err := d.Apply(softmax.OpSoftmax, src, src, Options{Axis: -1, Algo: algo}, nil)
		if unsupported(err) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", algo, err)
		}
		got := softmax.Tensor{Shape: host.Shape, DType: softmax.Float32, F32: make([]float32, n)}
		if err := src.CopyTo(got); err != nil {
			t.Fatal(err)
		}
		for i := range got.F32 {
			if math.Abs(float64(got.F32[i]-want.F32[i])) > 1e-6 {
				t.Fatalf("%s misaligned: y[%d] = %v, want %v", algo, i, got.F32[i], want.F32[i])
			}
		}
	}
	bad := Tensor{Buf: buf, Offset: 2, Shape: []int{rows, cols}, DType: softmax.Float32}
	if err := d.Apply(softmax.OpSoftmax, bad, bad, Options{Axis: -1}, nil); err == nil || !strings.Contains(err.Error(), "misaligned") {
		t.Errorf("2-byte offset f32: err = %v, want misaligned pointer", err)
	}
}

// Bad calls are errors naming the problem.
func TestErrors(t *testing.T) {
	d := openOrSkip(t)
	a, _ := d.NewTensor(softmax.Float32, 4, 8)
	b, _ := d.NewTensor(softmax.Float16, 4, 8)
	defer a.Free()
	defer b.Free()
	cases := []struct {
		err  error
		want string
	}{
		{d.Apply(softmax.OpSoftmax, a, b, Options{Axis: -1}, nil), "dtype mismatch"},
		{d.Apply(softmax.OpSoftmax, a, a, Options{Axis: 2}, nil), "axis 2 out of range"},
		{d.Apply(softmax.OpSoftmax, Tensor{Shape: []int{4, 8}}, a, Options{}, nil), "no buffer"},
		{d.Apply(softmax.OpSoftmax, Tensor{Buf: a.Buf, Shape: []int{4, 9}}, Tensor{Buf: a.Buf, Shape: []int{4, 9}}, Options{}, nil), "outside buffer"},
		{d.Apply(softmax.OpSoftmax, Tensor{Buf: a.Buf, Offset: 4, Shape: []int{2, 8}}, Tensor{Buf: a.Buf, Shape: []int{2, 8}}, Options{}, nil), "partially overlaps"},
		{d.Apply(softmax.OpSoftmax, a, a, Options{Algo: "nope"}, nil), "unknown strategy"},
		{d.Apply(softmax.OpSoftmaxBackward, a, a, Options{}, nil), "forward op"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("err = %v, want it to mention %q", c.err, c.want)
		}
	}
}

// 8 goroutines, each with its own stream and shapes, on one device.
func TestConcurrent(t *testing.T) {
	d := openOrSkip(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			s, err := d.NewStream()
			if err != nil {
				errs <- err
				return
			}
			defer s.Destroy()
			rows, cols := 17+g*13, 100+g*997
			x := make([]float32, rows*cols)
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			h := softmax.Tensor{Shape: []int{rows, cols}, DType: softmax.Float32, F32: x}
			want := softmax.Tensor{Shape: h.Shape, DType: softmax.Float32, F32: make([]float32, len(x))}
			_ = softmax.Apply(softmax.OpSoftmax, want, h, softmax.Options{Axis: -1})
			dx, err := d.Upload(h)
			if err != nil {
				errs <- err
				return
			}
			defer dx.Free()
			dy, _ := d.NewTensor(softmax.Float32, rows, cols)
			defer dy.Free()
			for it := 0; it < 20; it++ {
				if err := d.Apply(softmax.OpSoftmax, dy, dx, Options{Axis: -1}, s); err != nil {
					errs <- err
					return
				}
			}
			if err := d.Wait(s); err != nil {
				errs <- err
				return
			}
			got := softmax.Tensor{Shape: h.Shape, DType: softmax.Float32, F32: make([]float32, len(x))}
			if err := dy.CopyTo(got); err != nil {
				errs <- err
				return
			}
			for i := range got.F32 {
				if math.Abs(float64(got.F32[i]-want.F32[i])) > 1e-6 {
					errs <- fmt.Errorf("goroutine %d: y[%d] = %v, want %v", g, i, got.F32[i], want.F32[i])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A bf16 tensor of more than 2^31 elements (64-bit indexing): sampled slices
// are checked against the reference.
func TestHuge64BitIndexing(t *testing.T) {
	d := openOrSkip(t)
	if testing.Short() {
		t.Skip("4.3 GB tensor in -short mode")
	}
	const rows, cols = 1 << 16, 32769 // 2,147,549,184 elements > 2^31
	n := int64(rows) * cols
	x, err := d.NewTensor(softmax.BFloat16, rows, cols)
	if err != nil {
		t.Skip("cannot allocate: " + err.Error())
	}
	defer x.Free()
	// Fill row r with a pattern computed from r, upload in row blocks.
	rowVals := func(r int) []uint16 {
		v := make([]uint16, cols)
		for j := range v {
			v[j] = uint16(softmax.BFloat16From(float32((r*31+j*17)%1000)/250 - 2))
		}
		return v
	}
	block := make([]uint16, 0, 256*cols)
	for r := 0; r < rows; r += 256 {
		block = block[:0]
		for k := r; k < r+256; k++ {
			block = append(block, rowVals(k)...)
		}
		bytes := make([]byte, 2*len(block))
		for i, v := range block {
			bytes[2*i], bytes[2*i+1] = byte(v), byte(v>>8)
		}
		if err := x.Buf.Write(int64(r)*cols*2, bytes); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Apply(softmax.OpSoftmax, x, x, Options{Axis: -1}, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range []int{0, 1, rows/2 + 3, rows - 2, rows - 1} {
		raw := make([]byte, 2*cols)
		if err := x.Buf.Read(int64(r)*cols*2, raw); err != nil {
			t.Fatal(err)
		}
		in := rowVals(r)
		ref := softmax.Tensor{Shape: []int{cols}, DType: softmax.BFloat16, U16: in}
		_ = softmax.Apply(softmax.OpSoftmax, ref, ref, softmax.Options{Axis: 0})
		for j := 0; j < cols; j++ {
			got := softmax.BFloat16Value(uint16(raw[2*j]) | uint16(raw[2*j+1])<<8).Float32()
			want := softmax.BFloat16Value(ref.U16[j]).Float32()
			if math.Abs(float64(got-want)) > 1.6e-2*math.Abs(float64(want))+1e-9 { // two bf16 ulps: both sides rounded
				t.Fatalf("row %d col %d: %v, want %v", r, j, got, want)
			}
		}
	}
	t.Logf("%d elements (> 2^31) done", n)
}

// pipelined on problems with more rows than its workers times ring slots,
// so every ring slot is refilled several times (the cp.async refill of a
// slot read in the previous iteration is the part sanitizers should see):
// a block per row (4096 f32 columns, 7 slots of 16 KB on a Hopper-class
// GPU) and a warp per row (64 f32 columns, 8 slots per warp), forward and
// backward, with a fused scale.
func TestPipelinedRingWraps(t *testing.T) {
	d := openOrSkip(t)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range [][]int{{3000, 4096}, {70000, 64}, {5000, 1024}} {
		for _, dt := range []spec.DType{spec.Float32, spec.BFloat16} {
			for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward} {
				c := verify.Case{Shape: shape, Axis: -1, DType: dt, Op: op, Scale: 0.75, Fill: verify.Random}
				if r := verify.Run(c, rng, backend(d, "pipelined")); !r.OK() {
					t.Errorf("%s: rel %.3g err %v", c.Name(), r.Rel, r.Err)
				}
			}
		}
	}
}
