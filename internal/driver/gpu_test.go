package driver

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// GPU tests skip, with the reason, when Open fails (no driver library, no
// device). They run on the lead's GPU machine.

func gpuOrSkip(t *testing.T) (*API, *Context) {
	t.Helper()
	a, err := Open()
	if err != nil {
		t.Skip("no CUDA driver: " + err.Error())
	}
	ctx, err := a.PrimaryContext(0)
	if err != nil {
		t.Fatalf("PrimaryContext(0): %v", err)
	}
	return a, ctx
}

const gpuKernels = `
extern "C" __global__ void axpb(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) { }
}
`

const clusterKernel = `
extern "C" __global__ void cluster_id(unsigned* out) {
    unsigned rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) out[blockIdx.x] = rank + 100u * size;
}
`

// loadForDevice compiles src for the context's device and loads it.
func loadForDevice(t *testing.T, ctx *Context, src string) Module {
	t.Helper()
	props, err := ctx.Properties()
	if err != nil {
		t.Fatal(err)
	}
	n, err := OpenNVRTC()
	if err != nil {
		t.Skip("no NVRTC: " + err.Error())
	}
	arch, err := n.ArchFor(props.Major, props.Minor)
	if err != nil {
		t.Skip(err.Error())
	}
	opts := []string{"--gpu-architecture=" + arch, "-default-device", "--std=c++17", "-lineinfo"}
	cubin, log, err := n.Compile(src, "test.cu", nil, opts)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, log)
	}
	m, err := ctx.LoadModule(cubin)
	if err != nil {
		t.Fatalf("load module: %v", err)
	}
	t.Cleanup(func() {
		if err := ctx.UnloadModule(m); err != nil {
			t.Errorf("unload: %v", err)
		}
	})
	return m
}

func TestGPUDevice(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	if a.Version() < 11000 {
		t.Errorf("driver version %d", a.Version())
	}
	n, err := a.DeviceCount()
	if err != nil || n < 1 {
		t.Fatalf("DeviceCount = %d, %v", n, err)
	}
	name, err := a.DeviceName(ctx.Device())
	if err != nil || name == "" {
		t.Fatalf("DeviceName = %q, %v", name, err)
	}
	p, err := ctx.Properties()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("driver %d (%s), %d device(s); device 0: %+v", a.Version(), a.Path(), n, p)
	if p.WarpSize != 32 || p.Major < 5 || p.Multiprocessors < 1 || p.MaxThreadsPerBlock < 512 ||
		p.SharedMemPerBlock < 16<<10 || p.SharedMemPerBlockOptin < p.SharedMemPerBlock || p.L2CacheSize <= 0 ||
		p.MaxGridDim[0] < 65535 || p.TotalMem == 0 {
		t.Errorf("implausible properties: %+v", p)
	}
	if v, err := a.DeviceAttribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, ctx.Device()); err != nil || v != 32 {
		t.Errorf("warp size attribute = %d, %v", v, err)
	}
	free, total, err := ctx.MemGetInfo()
	if err != nil || free == 0 || total < free {
		t.Errorf("MemGetInfo = %d/%d, %v", free, total, err)
	}
	ctx2, err := a.PrimaryContext(0)
	if err != nil || ctx2 != ctx {
		t.Errorf("PrimaryContext not cached: %p %p %v", ctx, ctx2, err)
	}
	if _, err := a.PrimaryContext(n); !IsCode(err, CUDA_ERROR_INVALID_DEVICE) {
		t.Errorf("out-of-range ordinal: %v", err)
	}
	// A failing call yields a typed error with the driver's name.
	err = ctx.Do(func() error { _, err := a.MemAlloc(1 << 50); return err })
	if !IsOutOfMemory(err) && !IsCode(err, CUDA_ERROR_INVALID_VALUE) {
		t.Errorf("1 PiB alloc: want a typed OOM error, got %T %v", err, err)
	} else {
		t.Logf("1 PiB alloc: %v", err)
	}
}

func TestGPUMemoryRoundTrip(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	const n = 1 << 20
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	err := ctx.Do(func() error {
		d1, err := a.MemAlloc(n * 4)
		if err != nil {
			return err
		}
		defer a.MemFree(d1)
		d2, err := a.MemAlloc(n * 4)
		if err != nil {
			return err
		}
		defer a.MemFree(d2)

		if ord, err := a.PointerDeviceOrdinal(d1); err != nil || ord != ctx.Ordinal() {
			return fmt.Errorf("pointer ordinal %d, %v", ord, err)
		}
		if mt, err := a.PointerMemoryType(d1); err != nil || mt != CU_MEMORYTYPE_DEVICE {
			return fmt.Errorf("pointer memory type %d, %v", mt, err)
		}
		if err := CopyHtoD(a, d1, host); err != nil {
			return err
		}
		if err := a.MemcpyDtoD(d2, d1, n*4); err != nil {
			return err
		}
		// 0x3f800000 is 1.0f: overwrite the first 16 words.
		if err := a.MemsetD32(d2, 0x3f800000, 16); err != nil {
			return err
		}
		// Zero bytes 64..127 (words 16..31).
		if err := a.MemsetD8(d2+64, 0, 64); err != nil {
			return err
		}
		back := make([]float32, n)
		if err := CopyDtoH(a, back, d2); err != nil {
			return err
		}
		for i := range back {
			want := host[i]
			switch {
			case i < 16:
				want = 1
			case i < 32:
				want = 0
			}
			if back[i] != want {
				return fmt.Errorf("element %d = %v, want %v", i, back[i], want)
			}
		}

		// Async variants on a stream.
		s, err := a.StreamCreate(CU_STREAM_NON_BLOCKING)
		if err != nil {
			return err
		}
		defer a.StreamDestroy(s)
		if err := a.MemsetD32Async(d2, 0, n, s); err != nil {
			return err
		}
		if err := a.MemsetD8Async(d2, 0, 4, s); err != nil {
			return err
		}
		if err := a.MemcpyHtoDAsync(d2, unsafe.Pointer(&host[0]), n*4, s); err != nil {
			return err
		}
		if err := a.MemcpyDtoDAsync(d1, d2, n*4, s); err != nil {
			return err
		}
		clear(back)
		if err := a.MemcpyDtoHAsync(unsafe.Pointer(&back[0]), d1, n*4, s); err != nil {
			return err
		}
		if err := a.StreamSynchronize(s); err != nil {
			return err
		}
		runtime.KeepAlive(host)
		for i := range back {
			if back[i] != host[i] {
				return fmt.Errorf("async: element %d = %v, want %v", i, back[i], host[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPULaunch(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	m := loadForDevice(t, ctx, gpuKernels)
	fn, err := ctx.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.Function(m, "no_such_kernel"); !IsCode(err, CUDA_ERROR_NOT_FOUND) {
		t.Errorf("missing kernel: %v", err)
	}
	const n = 10000
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i % 1000)
	}
	y := make([]float32, n)
	err = ctx.Do(func() error {
		regs, err := a.FuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
		if err != nil {
			return err
		}
		maxT, err := a.FuncGetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)
		if err != nil || maxT < 256 {
			return fmt.Errorf("max threads %d, %v", maxT, err)
		}
		occ, err := a.OccupancyMaxActiveBlocksPerMultiprocessor(fn, 256, 0)
		if err != nil || occ < 1 {
			return fmt.Errorf("occupancy %d, %v", occ, err)
		}
		if err := a.FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024); err != nil {
			return err
		}
		t.Logf("axpb: %d regs, max %d threads/block, %d blocks/SM at 256 threads", regs, maxT, occ)

		dx, err := a.MemAlloc(n * 4)
		if err != nil {
			return err
		}
		defer a.MemFree(dx)
		dy, err := a.MemAlloc(n * 4)
		if err != nil {
			return err
		}
		defer a.MemFree(dy)
		if err := CopyHtoD(a, dx, x); err != nil {
			return err
		}
		alpha, beta, cnt := float32(3), float32(-1), int32(n)
		grid := [3]uint32{(n + 255) / 256, 1, 1}
		block := [3]uint32{256, 1, 1}
		if err := a.Launch(fn, grid, block, 0, 0,
			unsafe.Pointer(&dx), unsafe.Pointer(&dy), unsafe.Pointer(&alpha), unsafe.Pointer(&beta), unsafe.Pointer(&cnt)); err != nil {
			return err
		}
		if err := CopyDtoH(a, y, dy); err != nil {
			return err
		}
		for i := range y {
			if want := 3*x[i] - 1; y[i] != want {
				return fmt.Errorf("Launch: y[%d] = %v, want %v", i, y[i], want)
			}
		}
		if !a.Has("cuLaunchKernelEx") {
			t.Log("driver lacks cuLaunchKernelEx; LaunchEx not tested")
			return nil
		}
		alpha = 5
		cfg := LaunchConfig{Grid: grid, Block: block}
		if err := a.LaunchEx(fn, cfg,
			unsafe.Pointer(&dx), unsafe.Pointer(&dy), unsafe.Pointer(&alpha), unsafe.Pointer(&beta), unsafe.Pointer(&cnt)); err != nil {
			return err
		}
		if err := CopyDtoH(a, y, dy); err != nil {
			return err
		}
		for i := range y {
			if want := 5*x[i] - 1; y[i] != want {
				return fmt.Errorf("LaunchEx: y[%d] = %v, want %v", i, y[i], want)
			}
		}
		return a.CtxSynchronize()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPUClusterLaunch(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	p, err := ctx.Properties()
	if err != nil {
		t.Fatal(err)
	}
	if p.Major < 9 || !p.ClusterLaunch || !a.Has("cuLaunchKernelEx") {
		t.Skipf("no cluster launch on %s (sm_%d%d, cluster attr %v)", p.Name, p.Major, p.Minor, p.ClusterLaunch)
	}
	m := loadForDevice(t, ctx, clusterKernel)
	fn, err := ctx.Function(m, "cluster_id")
	if err != nil {
		t.Fatal(err)
	}
	const blocks = 16
	out := make([]uint32, blocks)
	err = ctx.Do(func() error {
		d, err := a.MemAlloc(blocks * 4)
		if err != nil {
			return err
		}
		defer a.MemFree(d)
		for _, cx := range []uint32{2, 4} {
			cfg := LaunchConfig{Grid: [3]uint32{blocks, 1, 1}, Block: [3]uint32{64, 1, 1}, Cluster: [3]uint32{cx, 1, 1}}
			nc, err := a.OccupancyMaxActiveClusters(fn, cfg)
			if err != nil || nc < 1 {
				return fmt.Errorf("OccupancyMaxActiveClusters(%d) = %d, %v", cx, nc, err)
			}
			if err := a.LaunchEx(fn, cfg, unsafe.Pointer(&d)); err != nil {
				return err
			}
			if err := CopyDtoH(a, out, d); err != nil {
				return err
			}
			for b, v := range out {
				if want := uint32(b)%cx + 100*cx; v != want {
					return fmt.Errorf("cluster %d: block %d wrote %d, want %d", cx, b, v, want)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGPUEventTiming(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	m := loadForDevice(t, ctx, gpuKernels)
	fn, err := ctx.Function(m, "spin")
	if err != nil {
		t.Fatal(err)
	}
	err = ctx.Do(func() error {
		s, err := a.StreamCreate(CU_STREAM_DEFAULT)
		if err != nil {
			return err
		}
		defer a.StreamDestroy(s)
		start, err := a.EventCreate(CU_EVENT_DEFAULT)
		if err != nil {
			return err
		}
		defer a.EventDestroy(start)
		stop, err := a.EventCreate(CU_EVENT_BLOCKING_SYNC)
		if err != nil {
			return err
		}
		defer a.EventDestroy(stop)
		cycles := int64(20_000_000) // ~10 ms at 2 GHz
		if err := a.EventRecord(start, s); err != nil {
			return err
		}
		if err := a.Launch(fn, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, s, unsafe.Pointer(&cycles)); err != nil {
			return err
		}
		if err := a.EventRecord(stop, s); err != nil {
			return err
		}
		if err := a.EventSynchronize(stop); err != nil {
			return err
		}
		ms, err := a.EventElapsedTime(start, stop)
		if err != nil {
			return err
		}
		t.Logf("spin(%d cycles) took %.3f ms", cycles, ms)
		if ms <= 0.5 || ms > 10_000 {
			return fmt.Errorf("implausible elapsed time %v ms", ms)
		}
		// Timing a DISABLE_TIMING event is an error, not a crash.
		nt, err := a.EventCreate(CU_EVENT_DISABLE_TIMING)
		if err != nil {
			return err
		}
		defer a.EventDestroy(nt)
		if err := a.EventRecord(nt, s); err != nil {
			return err
		}
		if err := a.StreamSynchronize(s); err != nil {
			return err
		}
		if _, err := a.EventElapsedTime(start, nt); err == nil {
			return fmt.Errorf("elapsed time with a DISABLE_TIMING event succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGPUStress hammers launches and copies from many goroutines with the
// collector running almost continuously (GOGC=1), verifying every result.
// Kernel parameters are freshly allocated heap values each time, so a
// missing pin or keep-alive would show up as wrong results or a crash.
func TestGPUStress(t *testing.T) {
	a, ctx := gpuOrSkip(t)
	m := loadForDevice(t, ctx, gpuKernels)
	fn, err := ctx.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))

	goroutines, iters := 16, 150
	if testing.Short() {
		goroutines, iters = 4, 25
	}
	stop := make(chan struct{})
	var gcs atomic.Int64
	go func() { // extra collector pressure
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				gcs.Add(1)
				time.Sleep(time.Millisecond)
			}
		}
	}()
	defer close(stop)

	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := stressWorker(a, ctx, fn, g, iters); err != nil {
				errs <- fmt.Errorf("goroutine %d: %w", g, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d goroutines x %d iterations, %d forced GCs", goroutines, iters, gcs.Load())
}

func stressWorker(a *API, ctx *Context, fn Function, g, iters int) error {
	s, err := ctx.NewStream(CU_STREAM_NON_BLOCKING)
	if err != nil {
		return err
	}
	defer ctx.DestroyStream(s)
	for it := range iters {
		n := 1 + (g*7919+it*104729)%8192
		x := make([]float32, n)
		for i := range x {
			x[i] = float32((i + g + it) % 1024)
		}
		_ = make([]byte, 64<<10) // garbage
		dx, err := ctx.MemAlloc(uint64(n) * 4)
		if err != nil {
			return err
		}
		dy, err := ctx.MemAlloc(uint64(n) * 4)
		if err != nil {
			return err
		}
		// Parameters as separate heap objects, created right before use.
		px, py := new(DevicePtr), new(DevicePtr)
		*px, *py = dx, dy
		pa, pb, pn := new(float32), new(float32), new(int32)
		*pa, *pb, *pn = float32(g+1), float32(it), int32(n)
		grid := [3]uint32{uint32((n + 127) / 128), 1, 1}
		block := [3]uint32{128, 1, 1}
		y := make([]float32, n)

		if it%2 == 0 {
			// Synchronous path, one Do per call.
			if err := ctx.MemcpyHtoD(dx, unsafe.Pointer(&x[0]), uint64(n)*4); err != nil {
				return err
			}
			if err := ctx.Launch(fn, grid, block, 0, 0,
				unsafe.Pointer(px), unsafe.Pointer(py), unsafe.Pointer(pa), unsafe.Pointer(pb), unsafe.Pointer(pn)); err != nil {
				return err
			}
			if err := ctx.MemcpyDtoH(unsafe.Pointer(&y[0]), dy, uint64(n)*4); err != nil {
				return err
			}
		} else {
			// Stream path, several calls in one Do.
			err := ctx.Do(func() error {
				if err := a.MemcpyHtoDAsync(dx, unsafe.Pointer(&x[0]), uint64(n)*4, s); err != nil {
					return err
				}
				var err error
				if it%4 == 1 && a.Has("cuLaunchKernelEx") {
					err = a.LaunchEx(fn, LaunchConfig{Grid: grid, Block: block, Stream: s},
						unsafe.Pointer(px), unsafe.Pointer(py), unsafe.Pointer(pa), unsafe.Pointer(pb), unsafe.Pointer(pn))
				} else {
					err = a.Launch(fn, grid, block, 0, s,
						unsafe.Pointer(px), unsafe.Pointer(py), unsafe.Pointer(pa), unsafe.Pointer(pb), unsafe.Pointer(pn))
				}
				if err != nil {
					return err
				}
				if err := a.MemcpyDtoHAsync(unsafe.Pointer(&y[0]), dy, uint64(n)*4, s); err != nil {
					return err
				}
				return a.StreamSynchronize(s)
			})
			if err != nil {
				return err
			}
		}
		runtime.KeepAlive(x)
		for i := range y {
			if want := float32(g+1)*x[i] + float32(it); y[i] != want {
				return fmt.Errorf("iteration %d (n=%d): y[%d] = %v, want %v", it, n, i, y[i], want)
			}
		}
		if err := ctx.MemFree(dx); err != nil {
			return err
		}
		if err := ctx.MemFree(dy); err != nil {
			return err
		}
	}
	return nil
}
