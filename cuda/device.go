package cuda

import (
	"fmt"
	"sync"

	"github.com/gofused/softmax/internal/driver"
)

// Properties are the device attributes the planner uses.
type Properties = driver.DeviceProperties

// Device is one GPU, through its primary context.
type Device struct {
	api   *driver.API
	ctx   *driver.Context
	props Properties

	mu        sync.Mutex
	modules   map[moduleKey]*module
	workspace map[driver.Stream]*streamBuf // split strategies' scratch, one per stream
	barrier   map[driver.Stream]*streamBuf // split_grid's barrier words, per stream
	closed    bool

	plans planCache // plans and occupancy answers, by problem and by kernel
	res   resourceCheck
}

// Available reports whether a CUDA driver can be loaded and initialised,
// and if not, why (the error names what was looked for).
func Available() error {
	_, err := driver.Open()
	return err
}

// DeviceCount returns the number of CUDA devices.
func DeviceCount() (int, error) {
	api, err := driver.Open()
	if err != nil {
		return 0, err
	}
	return api.DeviceCount()
}

// Open opens device ordinal (0 is the first GPU). It fails with the driver
// discovery error when there is no driver, or a range error for a bad
// ordinal. NVRTC is only needed, and looked for, when a kernel is first
// compiled.
func Open(ordinal int) (*Device, error) {
	api, err := driver.Open()
	if err != nil {
		return nil, err
	}
	ctx, err := api.PrimaryContext(ordinal)
	if err != nil {
		return nil, err
	}
	props, err := ctx.Properties()
	if err != nil {
		return nil, err
	}
	return &Device{api: api, ctx: ctx, props: props,
		modules: map[moduleKey]*module{}, workspace: map[driver.Stream]*streamBuf{},
		barrier: map[driver.Stream]*streamBuf{}}, nil
}

// Props returns the device's properties.
func (d *Device) Props() Properties { return d.props }

// Name returns the device name, e.g. "NVIDIA H100 80GB HBM3".
func (d *Device) Name() string { return d.props.Name }

// Ordinal returns the device's ordinal.
func (d *Device) Ordinal() int { return d.ctx.Ordinal() }

// String describes the device, e.g. "cuda:0 NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
func (d *Device) String() string {
	return fmt.Sprintf("cuda:%d %s (%s, %d SMs)", d.Ordinal(), d.props.Name, d.props.Arch(), d.props.Multiprocessors)
}

// Synchronize waits for all work on the device.
func (d *Device) Synchronize() error { return d.ctx.Synchronize() }

// Close waits for the device, then frees the workspaces and unloads the
// modules this Device created. Buffers and streams are the caller's to free.
// The primary context stays retained for the life of the process.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	err := d.ctx.Synchronize()
	for _, w := range d.workspace {
		if e := d.ctx.MemFree(w.ptr); err == nil {
			err = e
		}
	}
	for _, b := range d.barrier {
		if e := d.ctx.MemFree(b.ptr); err == nil {
			err = e
		}
	}
	for _, m := range d.modules {
		if m.handle != 0 {
			if e := d.ctx.UnloadModule(m.handle); err == nil {
				err = e
			}
		}
	}
	return err
}

func (d *Device) checkOpen() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return fmt.Errorf("cuda: device %d is closed", d.Ordinal())
	}
	return nil
}
