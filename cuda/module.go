package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/jit"
	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// module is one kernel compiled alone from its strategy file for one dtype
// (and op kind, see moduleKey) and loaded in the device's context. A
// kernel's first use on a machine compiles it (kernels.KernelSource: 0.6 s
// on average on an H100 host, where its whole file took up to a minute);
// later uses load it from the disk cache.
type module struct {
	once   sync.Once
	err    error
	handle driver.Module

	mu   sync.Mutex
	fns  map[string]driver.Function
	smem map[string]int // dynamic smem limit already raised to
	maxT map[string]int // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
}

// moduleKey names a module: one kernel of a strategy file compiled for one
// dtype, either for every launch or, plain, for plain softmax launches only
// (see plainLaunch).
type moduleKey struct {
	file   string
	dt     spec.DType
	plain  bool
	symbol string
}

func dtypeBit(dt spec.DType) int { return 1 << int(dt) }

// module returns the loaded module of kernel symbol of file for dt (plain:
// the plain-softmax build), compiling it with NVRTC (or taking the CUBIN
// from the cache) on first use.
func (d *Device) module(file string, dt spec.DType, plain bool, symbol string) (*module, error) {
	plain = plain && kernels.HasPlainBuild(file) // the others have one build
	key := moduleKey{file, dt, plain, symbol}
	d.mu.Lock()
	m, ok := d.modules[key]
	if !ok {
		m = &module{fns: map[string]driver.Function{}, smem: map[string]int{}, maxT: map[string]int{}}
		d.modules[key] = m
	}
	d.mu.Unlock()
	m.once.Do(func() {
		req, err := d.kernelRequest(file, dt, plain, symbol)
		if err != nil {
			m.err = err
			return
		}
		res, err := jit.Default().Get(req)
		if err != nil {
			m.err = fmt.Errorf("cuda: compiling %s from %s for %v%s on %s: %w", symbol, file, dt, plainSuffix(plain), d.props.Arch(), err)
			return
		}
		m.handle, m.err = d.ctx.LoadModule(res.CUBIN)
		if m.err != nil {
			m.err = fmt.Errorf("cuda: loading %s (%v%s): %w", symbol, dt, plainSuffix(plain), m.err)
		}
	})
	return m, m.err
}

// kernelRequest is the NVRTC request that compiles kernel symbol of file
// alone for dt (plain: the plain-softmax build) on this device.
func (d *Device) kernelRequest(file string, dt spec.DType, plain bool, symbol string) (jit.Request, error) {
	src, hdrs, err := kernels.KernelSource(file, dtypeBit(dt), plain, symbol)
	if err != nil {
		return jit.Request{}, err
	}
	return jit.Request{Name: file, Source: src, Headers: hdrs, Arch: d.props.Arch()}, nil
}

// Precompile compiles (or takes from the disk cache) and loads every kernel
// this device can run, of both builds (general and plain softmax), for the
// given dtypes (all when none are given), and the cross-entropy kernels
// (xent.cu, every dtype), as many at once as GOMAXPROCS
// allows, and returns how many it loaded. A launch compiles only the kernel
// it needs, on its first use; Precompile pays for all of them at once, as
// an install step that fills the disk cache for later processes might (the
// CLI's softmax precompile).
func (d *Device) Precompile(dts ...softmax.DType) (int, error) {
	if err := d.checkOpen(); err != nil {
		return 0, err
	}
	dts = dtypesOrAll(dts)
	for _, dt := range dts {
		if !dt.Valid() {
			return 0, fmt.Errorf("cuda: precompiling for dtype %v: not f32, f16, bf16 or f64", dt)
		}
	}
	keys := d.kernelKeys(d.strategyInfos(), dts, true)
	if err := d.preload(keys); err != nil {
		return 0, err
	}
	xs := kernels.XentInstances()
	errs := make([]error, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Go(func() { _, errs[i] = d.xentFunction(x.Symbol) })
	}
	wg.Wait()
	return len(keys) + len(xs), errors.Join(errs...)
}

// kernelKeys names the modules of every kernel of the strategies infos for
// dts, of the general build and, with plain, of the plain one where a file
// has it.
func (d *Device) kernelKeys(infos []kernels.Info, dts []softmax.DType, plain bool) []moduleKey {
	var keys []moduleKey
	for _, in := range infos {
		for _, dt := range dts {
			for _, sym := range in.Symbols(dt) {
				keys = append(keys, moduleKey{in.File, dt, false, sym})
				if plain && kernels.HasPlainBuild(in.File) {
					keys = append(keys, moduleKey{in.File, dt, true, sym})
				}
			}
		}
	}
	return keys
}

// strategyInfos lists the strategies the device can run: all but the
// cluster ones before sm_90.
func (d *Device) strategyInfos() []kernels.Info {
	var out []kernels.Info
	for _, in := range kernels.All() {
		if d.props.Major >= in.MinMajor && (!in.Cluster || d.props.ClusterLaunch) {
			out = append(out, in)
		}
	}
	return out
}

// dtypesOrAll is dts, or every dtype when it is empty.
func dtypesOrAll(dts []softmax.DType) []softmax.DType {
	if len(dts) == 0 {
		return []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64}
	}
	return dts
}

// preload compiles (or takes from the cache) and loads the modules of keys
// in parallel, one NVRTC compilation a CPU: KernelResources asks for the
// 1279 kernels of the general build, about 13 minutes of compilation
// one at a time on a cold cache (74 s with 16 CPUs, H100 host).
func (d *Device) preload(keys []moduleKey) error {
	errs := make([]error, len(keys))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, errs[i] = d.module(k.file, k.dt, k.plain, k.symbol)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// plainSuffix names the plain-softmax build in messages.
func plainSuffix(plain bool) string {
	if plain {
		return ", plain softmax build"
	}
	return ""
}

// function resolves a kernel symbol of file/dt (plain: the plain-softmax
// build).
func (d *Device) function(file string, dt spec.DType, plain bool, symbol string) (driver.Function, *module, error) {
	m, err := d.module(file, dt, plain, symbol)
	if err != nil {
		return 0, nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if f, ok := m.fns[symbol]; ok {
		return f, m, nil
	}
	f, err := d.ctx.Function(m.handle, symbol)
	if err != nil {
		return 0, nil, fmt.Errorf("cuda: kernel %s in %s: %w", symbol, file, err)
	}
	m.fns[symbol] = f
	if !plain { // the table holds the general build's kernels
		d.confirmResources(f, symbol)
	}
	return f, m, nil
}

// raiseSmem lets f use smem bytes of dynamic shared memory. Without the
// opt-in a block gets 48 KB of static and dynamic shared memory together,
// so a request of exactly 48 KB beside a kernel's static reduction arrays
// already needs it (block_hybrid's 6-pack kernels: the occupancy query gave
// 0 blocks); every request is opted into, once per symbol and size.
func (d *Device) raiseSmem(m *module, f driver.Function, symbol string, smem int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.smem[symbol] >= smem {
		return nil
	}
	err := d.ctx.Do(func() error {
		return d.api.FuncSetAttribute(f, driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
	})
	if err != nil {
		return fmt.Errorf("cuda: raising %s's shared memory to %d bytes: %w", symbol, smem, err)
	}
	m.smem[symbol] = smem
	return nil
}

// maxThreads returns the largest block the compiled kernel accepts (its
// register use can make it less than 1024).
func (d *Device) maxThreads(m *module, f driver.Function, symbol string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.maxT[symbol]; ok {
		return n, nil
	}
	var n int
	err := d.ctx.Do(func() error {
		var e error
		n, e = d.api.FuncGetAttribute(driver.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)
		return e
	})
	if err == nil {
		m.maxT[symbol] = n
	}
	return n, err
}

// occupancy is the planner's occupancy query, answered once per kernel
// (of the build the launches will use: plain or not), block size and
// dynamic shared memory size.
func (d *Device) occupancy(dt spec.DType, plain bool) func(file, symbol string, block, smem int) (int, error) {
	return func(file, symbol string, block, smem int) (int, error) {
		plain := plain && kernels.HasPlainBuild(file) // one answer for a strategy with one build
		return d.plans.occupancy(occKey{file, symbol, dt, plain, block, smem, 0}, func() (int, error) {
			return d.askOccupancy(file, dt, plain, symbol, block, smem)
		})
	}
}

// clusterOccupancy is the planner's cluster query, answered once per
// kernel, block size, dynamic shared memory size and cluster size.
func (d *Device) clusterOccupancy(dt spec.DType, plain bool) plan.Clusters {
	return func(file, symbol string, block, smem, cluster int) (int, error) {
		plain := plain && kernels.HasPlainBuild(file)
		return d.plans.occupancy(occKey{file, symbol, dt, plain, block, smem, cluster}, func() (int, error) {
			return d.askClusters(file, dt, plain, symbol, block, smem, cluster)
		})
	}
}

// queries are the driver queries the planner asks, for dt's plain build
// or its general one; where the kernels' resource table holds for this
// device (resources), occupancy is estimated from it instead, and planning
// compiles nothing but split_cluster's kernel for its cluster query.
func (d *Device) queries(dt spec.DType, plain bool) plan.Queries {
	q := plan.Queries{Blocks: d.occupancy(dt, plain), Clusters: d.clusterOccupancy(dt, plain)}
	if _, trusted := d.resources(); trusted {
		q.Blocks = nil
	}
	return q
}

// functionFor loads a kernel for an occupancy query at smem bytes of
// dynamic shared memory, its limit raised to that first.
func (d *Device) functionFor(file string, dt spec.DType, plain bool, symbol string, smem int) (driver.Function, error) {
	f, m, err := d.function(file, dt, plain, symbol)
	if err != nil {
		return f, err
	}
	if smem > 0 {
		if err := d.raiseSmem(m, f, symbol, smem); err != nil {
			return f, err
		}
	}
	return f, nil
}

// askClusters asks the driver how many clusters of cluster blocks of a
// kernel (block threads, smem bytes of dynamic shared memory each) are
// resident at once. Portable sizes only: the launches set no non-portable
// attribute.
func (d *Device) askClusters(file string, dt spec.DType, plain bool, symbol string, block, smem, cluster int) (int, error) {
	if cluster < 1 || cluster > 8 {
		return 0, fmt.Errorf("cuda: resident clusters of %d blocks: only portable cluster sizes (1-8) are asked", cluster)
	}
	f, err := d.functionFor(file, dt, plain, symbol, smem)
	if err != nil {
		return 0, err
	}
	cfg := driver.LaunchConfig{Grid: [3]uint32{uint32(cluster), 1, 1}, Block: [3]uint32{uint32(block), 1, 1},
		SharedMem: uint32(smem), Cluster: [3]uint32{uint32(cluster), 1, 1}}
	var n int
	err = d.ctx.Do(func() error {
		var e error
		n, e = d.api.OccupancyMaxActiveClusters(f, cfg)
		return e
	})
	return n, err
}

// askOccupancy asks the driver for the resident blocks per SM of a kernel
// at a block size and dynamic shared memory size.
func (d *Device) askOccupancy(file string, dt spec.DType, plain bool, symbol string, block, smem int) (int, error) {
	f, err := d.functionFor(file, dt, plain, symbol, smem)
	if err != nil {
		return 0, err
	}
	var n int
	err = d.ctx.Do(func() error {
		var e error
		n, e = d.api.OccupancyMaxActiveBlocksPerMultiprocessor(f, block, uint64(smem))
		return e
	})
	return n, err
}

// streamBuf is device memory private to one stream: split strategies'
// scratch, split_grid's barrier words (work on one stream is ordered, so
// reuse across its calls is safe).
type streamBuf struct {
	ptr  driver.DevicePtr
	size int64 // bytes
}

// streamBufFor returns the buffer of stream s in bufs, of at least n bytes
// (no less than least when allocated), replacing a smaller one once the stream's
// queued work is done with it; zero clears a new buffer (a multiple of 4
// bytes). what names the buffer in errors.
func (d *Device) streamBufFor(bufs map[driver.Stream]*streamBuf, s *Stream, n, least int64, zero bool, what string) (driver.DevicePtr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := s.handle()
	b := bufs[h]
	if b != nil && b.size >= n {
		return b.ptr, nil
	}
	if b != nil {
		// Work queued on s may still use the old buffer.
		if err := d.ctx.SynchronizeStream(h); err != nil {
			return 0, err
		}
		if err := d.ctx.MemFree(b.ptr); err != nil {
			return 0, err
		}
		delete(bufs, h)
	}
	size := max(n, least)
	p, err := d.ctx.MemAlloc(uint64(size))
	if err != nil {
		return 0, fmt.Errorf("cuda: %s of %d bytes: %w", what, size, err)
	}
	if zero {
		if err := d.ctx.Do(func() error { return d.api.MemsetD32(p, 0, uint64(size/4)) }); err != nil {
			_ = d.ctx.MemFree(p)
			return 0, fmt.Errorf("cuda: zeroing the %s: %w", what, err)
		}
	}
	bufs[h] = &streamBuf{ptr: p, size: size}
	return p, nil
}

// workspaceFor returns at least n bytes of scratch private to stream s.
func (d *Device) workspaceFor(s *Stream, n int64) (driver.DevicePtr, error) {
	return d.streamBufFor(d.workspace, s, n, 1<<20, false, "workspace")
}

// minBarrierWords is the least barrierFor allocates: more than split_grid's
// rows per wave on any current GPU (at most one per SM), so one allocation
// serves a stream for good.
const minBarrierWords = 1024

// barrierFor returns at least n barrier words of stream s (split_grid),
// zeroed when allocated. Every launch that uses them leaves their low 31
// bits zero (see split_grid.cu), so they serve every later launch on the
// stream whatever its grid; launches on one stream never overlap, and other
// streams have words of their own.
func (d *Device) barrierFor(s *Stream, n int64) (driver.DevicePtr, error) {
	return d.streamBufFor(d.barrier, s, 4*n, 4*minBarrierWords, true, "barrier words")
}

// dropWorkspace frees a destroyed stream's scratch and barrier word.
func (d *Device) dropWorkspace(h driver.Stream) {
	d.mu.Lock()
	defer d.mu.Unlock()
	w, bar := d.workspace[h], d.barrier[h]
	if w != nil || bar != nil {
		_ = d.ctx.SynchronizeStream(h)
	}
	if w != nil {
		_ = d.ctx.MemFree(w.ptr)
		delete(d.workspace, h)
	}
	if bar != nil {
		_ = d.ctx.MemFree(bar.ptr)
		delete(d.barrier, h)
	}
}
