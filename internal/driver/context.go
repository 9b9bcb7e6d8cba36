package driver

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Context is the primary context of one device, retained once per process
// by API.PrimaryContext and shared by every caller (primary contexts are what
// the CUDA runtime, and hence other libraries in the process, use too).
// Contexts are never released: they live as long as the process.
//
// A Context is safe for concurrent use. Driver calls that need a current
// context must run inside Do; the convenience methods below do that for
// single calls.
type Context struct {
	api     *API
	device  Device
	ordinal int
	handle  CUcontext
}

// PrimaryContext returns the primary context of the device with the given
// ordinal, retaining it on first use (cuDevicePrimaryCtxRetain) and
// returning the same *Context afterwards.
func (a *API) PrimaryContext(ordinal int) (*Context, error) {
	a.ctxMu.Lock()
	defer a.ctxMu.Unlock()
	if c, ok := a.ctxs[ordinal]; ok {
		return c, nil
	}
	n, err := a.DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("driver: device ordinal %d out of range (%d devices): %w",
			ordinal, n, a.newError("cuDeviceGet", CUDA_ERROR_INVALID_DEVICE))
	}
	d, err := a.DeviceGet(ordinal)
	if err != nil {
		return nil, err
	}
	h, err := a.PrimaryCtxRetain(d)
	keepSignalStacks()
	if err != nil {
		return nil, err
	}
	c := &Context{api: a, device: d, ordinal: ordinal, handle: h}
	a.ctxs[ordinal] = c
	return c, nil
}

// API returns the driver the context belongs to.
func (c *Context) API() *API { return c.api }

// Device returns the context's device.
func (c *Context) Device() Device { return c.device }

// Ordinal returns the device ordinal the context was created for.
func (c *Context) Ordinal() int { return c.ordinal }

// Handle returns the raw CUcontext.
func (c *Context) Handle() CUcontext { return c.handle }

// Do runs f on the calling goroutine's OS thread with c current.
//
// It locks the goroutine to its thread (runtime.LockOSThread), makes c
// current if it is not already (cuCtxSetCurrent), runs f and unlocks. When a
// different context was current before, it is restored afterwards, so Do
// calls for different devices nest correctly. f must not start goroutines
// that make driver calls expecting c to be current: they run on other
// threads.
func (c *Context) Do(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, err := c.api.CtxGetCurrent()
	if err != nil {
		return err
	}
	if prev != c.handle {
		if err := c.api.CtxSetCurrent(c.handle); err != nil {
			return err
		}
		if prev != 0 {
			defer c.api.CtxSetCurrent(prev) // best effort restore
		}
	}
	return f()
}

// Properties returns DeviceProperties for the context's device.
func (c *Context) Properties() (DeviceProperties, error) {
	return c.api.DeviceProperties(c.device)
}

// Synchronize waits for all work in the context (cuCtxSynchronize).
func (c *Context) Synchronize() error {
	return c.Do(c.api.CtxSynchronize)
}

// MemAlloc allocates device memory in the context.
func (c *Context) MemAlloc(bytes uint64) (p DevicePtr, err error) {
	err = c.Do(func() error {
		p, err = c.api.MemAlloc(bytes)
		return err
	})
	return p, err
}

// MemFree frees device memory allocated in the context.
func (c *Context) MemFree(p DevicePtr) error {
	return c.Do(func() error { return c.api.MemFree(p) })
}

// MemGetInfo returns the free and total memory of the context's device.
func (c *Context) MemGetInfo() (free, total uint64, err error) {
	err = c.Do(func() error {
		free, total, err = c.api.MemGetInfo()
		return err
	})
	return free, total, err
}

// MemcpyHtoD copies bytes from host memory src to dst (synchronous).
func (c *Context) MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	return c.Do(func() error { return c.api.MemcpyHtoD(dst, src, bytes) })
}

// MemcpyDtoH copies bytes from src to host memory dst (synchronous).
func (c *Context) MemcpyDtoH(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	return c.Do(func() error { return c.api.MemcpyDtoH(dst, src, bytes) })
}

// LoadModule loads a CUBIN/fatbin/PTX image into the context.
func (c *Context) LoadModule(image []byte) (m Module, err error) {
	err = c.Do(func() error {
		m, err = c.api.ModuleLoadData(image)
		keepSignalStacks()
		return err
	})
	return m, err
}

// UnloadModule unloads a module loaded into the context.
func (c *Context) UnloadModule(m Module) error {
	return c.Do(func() error { return c.api.ModuleUnload(m) })
}

// Function looks up a kernel by name in a module of the context.
func (c *Context) Function(m Module, name string) (f Function, err error) {
	err = c.Do(func() error {
		f, err = c.api.ModuleGetFunction(m, name)
		keepSignalStacks()
		return err
	})
	return f, err
}

// Launch launches fn in the context; see API.Launch for the params rules.
func (c *Context) Launch(fn Function, grid, block [3]uint32, smem uint32, stream Stream, params ...unsafe.Pointer) error {
	return c.Do(func() error { return c.api.Launch(fn, grid, block, smem, stream, params...) })
}

// LaunchEx launches fn with cuLaunchKernelEx in the context; see API.LaunchEx.
func (c *Context) LaunchEx(fn Function, cfg LaunchConfig, params ...unsafe.Pointer) error {
	return c.Do(func() error { return c.api.LaunchEx(fn, cfg, params...) })
}

// NewStream creates a stream in the context (CU_STREAM_* flags).
func (c *Context) NewStream(flags uint32) (s Stream, err error) {
	err = c.Do(func() error {
		s, err = c.api.StreamCreate(flags)
		return err
	})
	return s, err
}

// DestroyStream destroys a stream of the context.
func (c *Context) DestroyStream(s Stream) error {
	return c.Do(func() error { return c.api.StreamDestroy(s) })
}

// SynchronizeStream waits for the work queued on s.
func (c *Context) SynchronizeStream(s Stream) error {
	return c.Do(func() error { return c.api.StreamSynchronize(s) })
}

// NewEvent creates an event in the context (CU_EVENT_* flags).
func (c *Context) NewEvent(flags uint32) (e Event, err error) {
	err = c.Do(func() error {
		e, err = c.api.EventCreate(flags)
		return err
	})
	return e, err
}

// DestroyEvent destroys an event of the context.
func (c *Context) DestroyEvent(e Event) error {
	return c.Do(func() error { return c.api.EventDestroy(e) })
}
