//go:build linux && !android && (amd64 || arm64)

package driver

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// These tests run the bindings against testdata/fakecuda.c, a fake libcuda
// built with the system C compiler (skipped when there is none). They check
// argument marshalling, struct layouts as the C compiler sees them, error
// conversion, context handling across OS threads and parameter pinning
// under GC pressure, all without a GPU.

var fakeBuild struct {
	sync.Mutex
	paths map[string]string
}

// fakeDriver builds (once per variant) and opens the fake driver.
func fakeDriver(t *testing.T, defines ...string) *API {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("no C compiler to build the fake driver")
		}
	}
	variant := strings.Join(defines, " ")
	fakeBuild.Lock()
	defer fakeBuild.Unlock()
	if fakeBuild.paths == nil {
		fakeBuild.paths = map[string]string{}
	}
	path, ok := fakeBuild.paths[variant]
	if !ok {
		dir, err := tempDirNoCleanup()
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(dir, "libcuda.so.1")
		args := append([]string{"-shared", "-fPIC", "-O1", "-o", path}, defines...)
		args = append(args, filepath.Join("testdata", "fakecuda.c"))
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Skipf("cannot build the fake driver: %v\n%s", err, out)
		}
		fakeBuild.paths[variant] = path
	}
	a, err := openDriver(fakeEnv(map[string]string{EnvLibCUDA: path}), runtime.GOARCH)
	if err != nil {
		t.Fatalf("opening the fake driver: %v", err)
	}
	return a
}

func fakeCtx(t *testing.T, a *API, ordinal int) *Context {
	t.Helper()
	c, err := a.PrimaryContext(ordinal)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fakeModule(t *testing.T, c *Context) Module {
	t.Helper()
	m, err := c.LoadModule([]byte("FAKEMOD\x00"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.UnloadModule(m) })
	return m
}

func TestFakeDevice(t *testing.T) {
	a := fakeDriver(t)
	if a.Version() != 12080 || !strings.HasSuffix(a.Path(), "libcuda.so.1") {
		t.Errorf("version %d path %s", a.Version(), a.Path())
	}
	if n, err := a.DeviceCount(); err != nil || n != 2 {
		t.Errorf("DeviceCount = %d, %v", n, err)
	}
	d, err := a.DeviceGet(1)
	if err != nil || d != 1 {
		t.Fatalf("DeviceGet = %d, %v", d, err)
	}
	if name, err := a.DeviceName(d); err != nil || name != "Fake GPU 1" {
		t.Errorf("DeviceName = %q, %v", name, err)
	}
	if v, err := a.DeviceAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d); err != nil || v != 38001 {
		t.Errorf("attribute = %d, %v", v, err)
	}
	p, err := a.DeviceProperties(d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "Fake GPU 1" || p.Major != 9 || p.Minor != 0 || p.Arch() != "sm_90" || p.WarpSize != 32 ||
		p.Multiprocessors != 133 || p.SharedMemPerBlockOptin != 97001 || p.MaxGridDim != [3]int{5001, 6001, 7001} ||
		p.MemoryClockKHz != 0 || !p.ClusterLaunch || p.TotalMem != 80<<30+1 {
		t.Errorf("properties: %+v", p)
	}
	if _, err := a.DeviceGet(7); err == nil || err.Error() != "cuDeviceGet: CUDA_ERROR_INVALID_DEVICE (invalid device ordinal)" {
		t.Errorf("bad ordinal: %v", err)
	}
	if _, err := a.PrimaryContext(2); !IsCode(err, CUDA_ERROR_INVALID_DEVICE) {
		t.Errorf("PrimaryContext(2): %v", err)
	}
	c0 := fakeCtx(t, a, 0)
	if c, _ := a.PrimaryContext(0); c != c0 {
		t.Error("PrimaryContext not cached")
	}
	if c0.Ordinal() != 0 || c0.Device() != 0 || c0.Handle() == 0 || c0.API() != a {
		t.Errorf("context accessors: %+v", c0)
	}
	if free, total, err := c0.MemGetInfo(); err != nil || free != 1<<30 || total != 3<<30 {
		t.Errorf("MemGetInfo = %d %d %v", free, total, err)
	}
	if !a.Has("cuLaunchKernelEx") || a.Has("cuEventElapsedTime_v2") || !a.Has("cuEventElapsedTime") {
		t.Error("Has() disagrees with the fake's exports")
	}
}

func TestFakeNoContextIsTypedError(t *testing.T) {
	a := fakeDriver(t)
	var err error
	done := make(chan struct{})
	go func() { // a fresh, locked thread: nothing is current on it
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		a.CtxSetCurrent(0)
		_, err = a.MemAlloc(16)
		close(done)
	}()
	<-done
	if !IsCode(err, CUDA_ERROR_INVALID_CONTEXT) || err.Error() != "cuMemAlloc_v2: CUDA_ERROR_INVALID_CONTEXT (invalid device context)" {
		t.Errorf("got %v", err)
	}
	c := fakeCtx(t, a, 0)
	_, err = c.MemAlloc(1 << 41)
	if !IsOutOfMemory(err) || err.Error() != "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" {
		t.Errorf("OOM: %v", err)
	}
	// A code the fake does not name falls back to the table, then to CUresult(N).
	if e := a.newError("x", CUDA_ERROR_LAUNCH_FAILED); e.Name != "CUDA_ERROR_LAUNCH_FAILED" || e.Desc != "" {
		t.Errorf("fallback: %+v", e)
	}
	if e := a.newError("x", 4242); e.Error() != "x: CUresult(4242)" {
		t.Errorf("unknown: %v", e)
	}
}

func TestFakeContextDo(t *testing.T) {
	a := fakeDriver(t)
	c0, c1 := fakeCtx(t, a, 0), fakeCtx(t, a, 1)
	err := c0.Do(func() error {
		if cur, _ := a.CtxGetCurrent(); cur != c0.Handle() {
			return fmt.Errorf("inside Do: current %x, want %x", cur, c0.Handle())
		}
		if err := c1.Do(func() error {
			cur, _ := a.CtxGetCurrent()
			if cur != c1.Handle() {
				return fmt.Errorf("nested: current %x, want %x", cur, c1.Handle())
			}
			p, err := a.MemAlloc(8)
			if err != nil {
				return err
			}
			defer a.MemFree(p)
			if ord, err := a.PointerDeviceOrdinal(p); err != nil || ord != 1 {
				return fmt.Errorf("nested ordinal %d, %v", ord, err)
			}
			return nil
		}); err != nil {
			return err
		}
		if cur, _ := a.CtxGetCurrent(); cur != c0.Handle() {
			return fmt.Errorf("after nested Do: current %x, want %x (not restored)", cur, c0.Handle())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Errors and panics from f propagate; the thread is unlocked either way.
	sentinel := errors.New("sentinel")
	if err := c0.Do(func() error { return sentinel }); err != sentinel {
		t.Errorf("Do error = %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic not propagated")
			}
		}()
		c0.Do(func() error { panic("boom") })
	}()
}

func TestFakeMemory(t *testing.T) {
	a := fakeDriver(t)
	c := fakeCtx(t, a, 0)
	const n = 1000
	host := make([]uint32, n)
	for i := range host {
		host[i] = uint32(i * 3)
	}
	back := make([]uint32, n)
	err := c.Do(func() error {
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
		if mt, err := a.PointerMemoryType(d1); err != nil || mt != CU_MEMORYTYPE_DEVICE {
			return fmt.Errorf("memory type %d %v", mt, err)
		}
		if err := CopyHtoD(a, d1, host); err != nil {
			return err
		}
		if err := a.MemcpyDtoD(d2, d1, n*4); err != nil {
			return err
		}
		if err := a.MemsetD32(d2, 0xdeadbeef, 10); err != nil {
			return err
		}
		if err := a.MemsetD8(d2+40, 0xab, 8); err != nil {
			return err
		}
		if err := CopyDtoH(a, back, d2); err != nil {
			return err
		}
		for i, v := range back {
			want := host[i]
			switch {
			case i < 10:
				want = 0xdeadbeef
			case i < 12:
				want = 0xabababab
			}
			if v != want {
				return fmt.Errorf("sync: [%d] = %#x, want %#x", i, v, want)
			}
		}
		s, err := a.StreamCreate(CU_STREAM_NON_BLOCKING)
		if err != nil {
			return err
		}
		defer a.StreamDestroy(s)
		if err := a.MemsetD32Async(d1, 7, n, s); err != nil {
			return err
		}
		if err := a.MemsetD8Async(d1, 0, 4, s); err != nil {
			return err
		}
		if err := a.MemcpyDtoDAsync(d2, d1, n*4, s); err != nil {
			return err
		}
		if err := a.MemcpyDtoHAsync(unsafe.Pointer(&back[0]), d2, n*4, s); err != nil {
			return err
		}
		if err := a.StreamSynchronize(s); err != nil {
			return err
		}
		if back[0] != 0 || back[1] != 7 || back[n-1] != 7 {
			return fmt.Errorf("async: %v", back[:3])
		}
		if err := a.MemcpyHtoDAsync(d2, unsafe.Pointer(&host[0]), n*4, s); err != nil {
			return err
		}
		return a.CtxSynchronize()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Single-call wrappers.
	p, err := c.MemAlloc(8)
	if err != nil {
		t.Fatal(err)
	}
	v := uint64(0x1122334455667788)
	var w uint64
	if err := c.MemcpyHtoD(p, unsafe.Pointer(&v), 8); err != nil {
		t.Fatal(err)
	}
	if err := c.MemcpyDtoH(unsafe.Pointer(&w), p, 8); err != nil || w != v {
		t.Errorf("round trip %#x, %v", w, err)
	}
	if err := c.MemFree(p); err != nil {
		t.Error(err)
	}
	if err := c.Synchronize(); err != nil {
		t.Error(err)
	}
}

func TestFakeModuleAndFunctions(t *testing.T) {
	a := fakeDriver(t)
	c := fakeCtx(t, a, 0)
	if _, err := c.LoadModule([]byte("garbage\x00")); !IsCode(err, CUDA_ERROR_INVALID_IMAGE) {
		t.Errorf("bad image: %v", err)
	}
	if _, err := c.LoadModule(nil); !IsCode(err, CUDA_ERROR_INVALID_VALUE) {
		t.Errorf("empty image: %v", err)
	}
	m := fakeModule(t, c)
	f, err := c.Function(m, "echo")
	if err != nil || f != 3 {
		t.Fatalf("Function = %d, %v", f, err)
	}
	_, err = c.Function(m, "nope")
	if !IsCode(err, CUDA_ERROR_NOT_FOUND) || !strings.Contains(err.Error(), "cuModuleGetFunction(nope): CUDA_ERROR_NOT_FOUND") {
		t.Errorf("missing function: %v", err)
	}
	if v, err := a.FuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS, f); err != nil || v != 304 {
		t.Errorf("FuncGetAttribute = %d, %v", v, err)
	}
	if err := a.FuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100<<10); err != nil {
		t.Fatal(err)
	}
	var attr, val int32
	sym := dlsym(a.handle, "fake_last_func_attr")
	if sym == 0 {
		t.Fatal("the fake driver lacks fake_last_func_attr")
	}
	callC(sym, uintptr(unsafe.Pointer(&attr)), uintptr(unsafe.Pointer(&val)))
	if attr != 8 || val != 100<<10 {
		t.Errorf("cuFuncSetAttribute saw (%d, %d)", attr, val)
	}
	if n, err := a.OccupancyMaxActiveBlocksPerMultiprocessor(f, 256, 4096); err != nil || n != 256*10+4096 {
		t.Errorf("occupancy = %d, %v", n, err)
	}
}

func TestFakeLaunchMarshalling(t *testing.T) {
	a := fakeDriver(t)
	c := fakeCtx(t, a, 0)
	m := fakeModule(t, c)
	echo, err := c.Function(m, "echo")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, 16)
	err = c.Do(func() error {
		d, err := a.MemAlloc(64)
		if err != nil {
			return err
		}
		defer a.MemFree(d)
		s, err := a.StreamCreate(0)
		if err != nil {
			return err
		}
		defer a.StreamDestroy(s)
		read := func() error { clear(out); return CopyDtoH(a, out[:13], d) }

		if err := a.Launch(echo, [3]uint32{7, 5, 3}, [3]uint32{128, 2, 1}, 4096, s, unsafe.Pointer(&d)); err != nil {
			return err
		}
		if err := read(); err != nil {
			return err
		}
		want := []uint32{7, 5, 3, 128, 2, 1, 4096, uint32(s), 0, 0, 0, 0, 0}
		for i, w := range want {
			if out[i] != w {
				return fmt.Errorf("Launch: word %d = %d, want %d (%v)", i, out[i], w, out[:13])
			}
		}

		cfg := LaunchConfig{Grid: [3]uint32{8, 4, 2}, Block: [3]uint32{64, 1, 1}, SharedMem: 999, Stream: s,
			Cluster: [3]uint32{2, 2, 1}, ClusterSchedulingPolicy: 2}
		if err := a.LaunchEx(echo, cfg, unsafe.Pointer(&d)); err != nil {
			return err
		}
		if err := read(); err != nil {
			return err
		}
		want = []uint32{8, 4, 2, 64, 1, 1, 999, uint32(s), 2, 2, 1, 2, 2}
		for i, w := range want {
			if out[i] != w {
				return fmt.Errorf("LaunchEx: word %d = %d, want %d (%v)", i, out[i], w, out[:13])
			}
		}
		cfg.Cluster = [3]uint32{3, 1, 1} // does not divide the grid
		if err := a.LaunchEx(echo, cfg, unsafe.Pointer(&d)); !IsCode(err, CUDA_ERROR_INVALID_CLUSTER_SIZE) {
			return fmt.Errorf("bad cluster: %v", err)
		}
		cfg.Cluster = [3]uint32{4, 1, 1}
		if n, err := a.OccupancyMaxActiveClusters(echo, cfg); err != nil || n != 408 {
			return fmt.Errorf("OccupancyMaxActiveClusters = %d, %v", n, err)
		}
		// No parameters: the fake rejects a NULL kernelParams, proving it is NULL.
		if err := a.Launch(echo, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0); !IsCode(err, CUDA_ERROR_INVALID_VALUE) {
			return fmt.Errorf("no params: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFakeOldDriverWithoutLaunchEx(t *testing.T) {
	a := fakeDriver(t, "-DNO_EX")
	if a.Has("cuLaunchKernelEx") {
		t.Fatal("NO_EX variant exports cuLaunchKernelEx")
	}
	c := fakeCtx(t, a, 0)
	err := c.LaunchEx(3, LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}})
	var se *SymbolError
	if !errors.As(err, &se) || se.Symbol != "cuLaunchKernelEx" || se.Version != 12080 {
		t.Fatalf("LaunchEx on an old driver: %v", err)
	}
	if _, err := a.OccupancyMaxActiveClusters(3, LaunchConfig{}); !errors.As(err, &se) {
		t.Errorf("OccupancyMaxActiveClusters: %v", err)
	}
	t.Log(err)
}

func TestFakeEvents(t *testing.T) {
	a := fakeDriver(t)
	c := fakeCtx(t, a, 0)
	err := c.Do(func() error {
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
		if err := a.EventRecord(start, 0); err != nil {
			return err
		}
		time.Sleep(5 * time.Millisecond)
		if err := a.EventRecord(stop, 0); err != nil {
			return err
		}
		if err := a.EventSynchronize(stop); err != nil {
			return err
		}
		ms, err := a.EventElapsedTime(start, stop)
		if err != nil || ms < 4 || ms > 5000 {
			return fmt.Errorf("elapsed %v ms, %v", ms, err)
		}
		nt, err := a.EventCreate(CU_EVENT_DISABLE_TIMING)
		if err != nil {
			return err
		}
		defer a.EventDestroy(nt)
		a.EventRecord(nt, 0)
		if _, err := a.EventElapsedTime(start, nt); !IsCode(err, CUDA_ERROR_INVALID_HANDLE) {
			return fmt.Errorf("disable-timing event: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewStream(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SynchronizeStream(s); err != nil {
		t.Error(err)
	}
	if err := c.DestroyStream(s); err != nil {
		t.Error(err)
	}
	e, err := c.NewEvent(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DestroyEvent(e); err != nil {
		t.Error(err)
	}
}

// TestFakeStress is TestGPUStress against the fake driver: many goroutines,
// GOGC=1 plus forced collections, fresh heap parameters for every launch,
// every result verified. The fake "kernel" dereferences each kernelParams
// element during the call, so a parameter freed or moved too early would
// give wrong results or crash; a Do that failed to keep its context current
// on the executing thread would give CUDA_ERROR_INVALID_CONTEXT.
func TestFakeStress(t *testing.T) {
	a := fakeDriver(t)
	ctx := fakeCtx(t, a, 0)
	m := fakeModule(t, ctx)
	fn, err := ctx.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(1))
	goroutines, iters := 16, 300
	if testing.Short() {
		goroutines, iters = 8, 50
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
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
}
