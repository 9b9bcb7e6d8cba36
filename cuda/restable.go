package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/kernels"
)

// resourceCheck decides whether the planner estimates occupancy from the
// kernels' resource table (kernels.Resources) rather than asking the
// driver, which compiles every candidate kernel: only where the table was
// written for this device's architecture by this NVRTC
// (internal/kernels/resources.sh). Each kernel loaded then confirms it: a
// difference from the driver's registers or static shared memory is
// logged once (Warnf) and planning goes back to the driver's queries.
type resourceCheck struct {
	once    sync.Once
	table   *kernels.ResourceTable
	trusted atomic.Bool
	warned  sync.Map // symbol -> true
}

// resources returns the resource table for the device's architecture and
// whether the planner may use it in place of the occupancy query.
func (d *Device) resources() (*kernels.ResourceTable, bool) {
	d.res.once.Do(func() {
		t, err := kernels.Resources(d.props.Arch())
		if err != nil {
			return
		}
		d.res.table = t
		v, err := jit.NVRTCBackend{}.Version()
		d.res.trusted.Store(err == nil && t.Arch == d.props.Arch() && t.Compiler == v)
	})
	return d.res.table, d.res.trusted.Load()
}

// confirmResources compares a loaded kernel's registers and static shared
// memory, as the driver reports them, with the resource table.
func (d *Device) confirmResources(f driver.Function, symbol string) {
	t, trusted := d.resources()
	if !trusted {
		return
	}
	var regs, smem int
	err := d.ctx.Do(func() error {
		var e error
		if regs, e = d.api.FuncGetAttribute(driver.CU_FUNC_ATTRIBUTE_NUM_REGS, f); e != nil {
			return e
		}
		smem, e = d.api.FuncGetAttribute(driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)
		return e
	})
	wantRegs, wantSmem, ok := t.Kernel(symbol)
	if err == nil && ok && regs == wantRegs && smem == wantSmem {
		return
	}
	d.res.trusted.Store(false)
	if _, dup := d.res.warned.LoadOrStore(symbol, true); !dup {
		msg := fmt.Sprintf("%s: the driver reports %d registers and %d bytes of static shared memory", symbol, regs, smem)
		if err != nil {
			msg = fmt.Sprintf("%s: its attributes: %v", symbol, err)
		}
		Warnf("kernel resources for %s (%s): %s, the table %d and %d (found %v); planning asks the driver from now on",
			t.Arch, t.Compiler, msg, wantRegs, wantSmem, ok)
	}
}
