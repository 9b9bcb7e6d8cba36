package cuda

import (
	"fmt"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// KernelResource is what one compiled kernel uses on the device, as the
// driver reports it (cuFuncGetAttribute), with its occupancy at a launch
// the planner makes for it.
type KernelResource struct {
	Strategy string
	DType    softmax.DType
	Symbol   string
	// Registers per thread, static shared memory and local memory (register
	// spills and stack) per thread, in bytes.
	Registers, StaticSmem, LocalBytes int
	// MaxThreads is the largest block the compiled kernel accepts.
	MaxThreads int
	// Block and DynSmem are the launch the occupancy is computed for: the
	// first launch of this kernel in the plans of Shape, or (Shape nil) the
	// kernel's own block limit with no dynamic shared memory.
	Block, DynSmem int
	Shape          []int
	Axis           int
	// BlocksPerSM is cuOccupancyMaxActiveBlocksPerMultiprocessor at Block
	// and DynSmem.
	BlocksPerSM int
}

// reportShapes are problems whose plans exercise every kernel variant the
// planner can launch: short, medium and long rows, few huge rows and
// strided axes. Shapes are small in elements only where that does not
// change the variant.
var reportShapes = []struct {
	shape []int
	axis  int
}{
	{[]int{8192, 2}, -1}, {[]int{8192, 4}, -1}, {[]int{8192, 8}, -1}, {[]int{8192, 16}, -1},
	{[]int{8192, 32}, -1}, {[]int{8192, 64}, -1}, {[]int{8192, 128}, -1}, {[]int{4096, 512}, -1}, {[]int{4096, 1024}, -1},
	{[]int{4096, 2048}, -1}, {[]int{1 << 16, 1024}, -1}, {[]int{1 << 16, 256}, -1},
	{[]int{4096, 4096}, -1}, {[]int{1024, 8192}, -1}, {[]int{256, 16384}, -1}, {[]int{256, 32768}, -1},
	{[]int{4, 1 << 22}, -1}, {[]int{1, 1 << 24}, -1}, {[]int{64, 1 << 20}, -1},
	{[]int{4096, 4096}, 0}, {[]int{64, 1024, 512}, 1}, {[]int{4, 1 << 16, 3}, 1},
}

// KernelResources compiles (or takes from the cache) every strategy's
// kernels for the given dtypes (all when none are given), as many at once
// as GOMAXPROCS allows, and reports each kernel's resources. Strategies
// that cannot run on the device (clusters before sm_90) are left out.
func (d *Device) KernelResources(dts ...softmax.DType) ([]KernelResource, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	dts = dtypesOrAll(dts)
	infos := d.strategyInfos()
	if err := d.preload(d.kernelKeys(infos, dts, false)); err != nil {
		return nil, err
	}
	var out []KernelResource
	for _, in := range infos {
		for _, dt := range dts {
			launches := d.reportLaunches(string(in.Strategy), dt)
			for _, sym := range in.Symbols(dt) {
				r, err := d.kernelResource(in, dt, sym, launches[sym])
				if err != nil {
					return out, err
				}
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// reportLaunch is a planned launch of a kernel with the problem it serves.
type reportLaunch struct {
	launch plan.Launch
	shape  []int
	axis   int
}

// reportLaunches plans every report shape with strategy s forced, forward
// and backward, and keeps the first launch of each symbol.
func (d *Device) reportLaunches(s string, dt spec.DType) map[string]reportLaunch {
	found := map[string]reportLaunch{}
	for _, op := range []softmax.Op{softmax.OpSoftmax, softmax.OpSoftmaxBackward} {
		for _, rs := range reportShapes {
			pl, err := d.Plan(op, dt, rs.shape, Options{Axis: rs.axis, Algo: s})
			if err != nil {
				continue // this strategy does not serve the shape
			}
			for _, l := range pl.Launches {
				if _, ok := found[l.Symbol]; !ok {
					found[l.Symbol] = reportLaunch{l, rs.shape, rs.axis}
				}
			}
		}
	}
	return found
}

func (d *Device) kernelResource(in kernels.Info, dt spec.DType, sym string, rl reportLaunch) (KernelResource, error) {
	f, _, err := d.function(in.File, dt, false, sym)
	if err != nil {
		return KernelResource{}, err
	}
	r := KernelResource{Strategy: string(in.Strategy), DType: dt, Symbol: sym, Shape: rl.shape, Axis: rl.axis}
	attrs := []struct {
		a   driver.FunctionAttribute
		dst *int
	}{
		{driver.CU_FUNC_ATTRIBUTE_NUM_REGS, &r.Registers},
		{driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &r.StaticSmem},
		{driver.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &r.LocalBytes},
		{driver.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &r.MaxThreads},
	}
	err = d.ctx.Do(func() error {
		for _, at := range attrs {
			v, err := d.api.FuncGetAttribute(at.a, f)
			if err != nil {
				return err
			}
			*at.dst = v
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("cuda: attributes of %s: %w", sym, err)
	}
	r.Block, r.DynSmem = r.MaxThreads, 0
	if rl.shape != nil {
		b := rl.launch.Block
		r.Block, r.DynSmem = int(b[0]*b[1]*b[2]), rl.launch.Smem
	}
	r.BlocksPerSM, err = d.occupancy(dt, false)(in.File, sym, r.Block, r.DynSmem)
	if err != nil {
		return r, fmt.Errorf("cuda: occupancy of %s (block %d, %d B dynamic smem): %w", sym, r.Block, r.DynSmem, err)
	}
	return r, nil
}
