package driver

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// drvSym indexes the driver entry points resolved at load time.
type drvSym int

const (
	symGetErrorName drvSym = iota
	symGetErrorString
	symInit
	symDriverGetVersion
	symDeviceGetCount
	symDeviceGet
	symDeviceGetName
	symDeviceGetAttribute
	symDeviceTotalMem
	symDevicePrimaryCtxRetain
	symDevicePrimaryCtxRelease
	symCtxSetCurrent
	symCtxGetCurrent
	symCtxSynchronize
	symMemAlloc
	symMemFree
	symMemGetInfo
	symMemcpyHtoD
	symMemcpyDtoH
	symMemcpyDtoD
	symMemcpyHtoDAsync
	symMemcpyDtoHAsync
	symMemcpyDtoDAsync
	symMemsetD8
	symMemsetD32
	symMemsetD8Async
	symMemsetD32Async
	symPointerGetAttribute
	symModuleLoadData
	symModuleUnload
	symModuleGetFunction
	symFuncGetAttribute
	symFuncSetAttribute
	symLaunchKernel
	symLaunchKernelEx
	symOccupancyMaxActiveBlocksPerMultiprocessor
	symOccupancyMaxActiveClusters
	symStreamCreate
	symStreamDestroy
	symStreamSynchronize
	symEventCreate
	symEventRecord
	symEventSynchronize
	symEventElapsedTime
	symEventDestroy
	numDrvSyms
)

// drvSymNames lists, for each entry point, the exported names to try in
// order (versioned names first). The first name is the one used in errors.
var drvSymNames = [numDrvSyms][]string{
	symGetErrorName:            {"cuGetErrorName"},
	symGetErrorString:          {"cuGetErrorString"},
	symInit:                    {"cuInit"},
	symDriverGetVersion:        {"cuDriverGetVersion"},
	symDeviceGetCount:          {"cuDeviceGetCount"},
	symDeviceGet:               {"cuDeviceGet"},
	symDeviceGetName:           {"cuDeviceGetName"},
	symDeviceGetAttribute:      {"cuDeviceGetAttribute"},
	symDeviceTotalMem:          {"cuDeviceTotalMem_v2"},
	symDevicePrimaryCtxRetain:  {"cuDevicePrimaryCtxRetain"},
	symDevicePrimaryCtxRelease: {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"},
	symCtxSetCurrent:           {"cuCtxSetCurrent"},
	symCtxGetCurrent:           {"cuCtxGetCurrent"},
	symCtxSynchronize:          {"cuCtxSynchronize"},
	symMemAlloc:                {"cuMemAlloc_v2"},
	symMemFree:                 {"cuMemFree_v2"},
	symMemGetInfo:              {"cuMemGetInfo_v2"},
	symMemcpyHtoD:              {"cuMemcpyHtoD_v2"},
	symMemcpyDtoH:              {"cuMemcpyDtoH_v2"},
	symMemcpyDtoD:              {"cuMemcpyDtoD_v2"},
	symMemcpyHtoDAsync:         {"cuMemcpyHtoDAsync_v2"},
	symMemcpyDtoHAsync:         {"cuMemcpyDtoHAsync_v2"},
	symMemcpyDtoDAsync:         {"cuMemcpyDtoDAsync_v2"},
	symMemsetD8:                {"cuMemsetD8_v2"},
	symMemsetD32:               {"cuMemsetD32_v2"},
	symMemsetD8Async:           {"cuMemsetD8Async"},
	symMemsetD32Async:          {"cuMemsetD32Async"},
	symPointerGetAttribute:     {"cuPointerGetAttribute"},
	symModuleLoadData:          {"cuModuleLoadData"},
	symModuleUnload:            {"cuModuleUnload"},
	symModuleGetFunction:       {"cuModuleGetFunction"},
	symFuncGetAttribute:        {"cuFuncGetAttribute"},
	symFuncSetAttribute:        {"cuFuncSetAttribute"},
	symLaunchKernel:            {"cuLaunchKernel"},
	symLaunchKernelEx:          {"cuLaunchKernelEx"},
	symOccupancyMaxActiveBlocksPerMultiprocessor: {"cuOccupancyMaxActiveBlocksPerMultiprocessor"},
	symOccupancyMaxActiveClusters:                {"cuOccupancyMaxActiveClusters"},
	symStreamCreate:                              {"cuStreamCreate"},
	symStreamDestroy:                             {"cuStreamDestroy_v2"},
	symStreamSynchronize:                         {"cuStreamSynchronize"},
	symEventCreate:                               {"cuEventCreate"},
	symEventRecord:                               {"cuEventRecord"},
	symEventSynchronize:                          {"cuEventSynchronize"},
	// _v2 (CUDA 12.8+) differs only in not reporting errors of unrelated
	// pending work; the plain symbol stays exported for older binaries.
	symEventElapsedTime: {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
	symEventDestroy:     {"cuEventDestroy_v2"},
}

// Handle types. They are the raw driver handles; the zero value of Stream is
// the legacy default stream.
type (
	// Device is a CUdevice (an ordinal-like handle from cuDeviceGet).
	Device int32
	// DevicePtr is a CUdeviceptr, a device memory address.
	DevicePtr uint64
	// Module is a CUmodule.
	Module uintptr
	// Function is a CUfunction (a kernel of a loaded module).
	Function uintptr
	// Stream is a CUstream; 0 is the default (NULL) stream.
	Stream uintptr
	// Event is a CUevent.
	Event uintptr
	// CUcontext is a raw CUcontext handle.
	CUcontext uintptr
)

// API is a loaded and initialised CUDA driver library. It holds the resolved
// entry points; it is immutable after Open and safe for concurrent use.
//
// The methods are thin wrappers over the driver calls of the same name.
// Those that need a context (everything but device queries and context
// management) must run where a context is current: use [Context.Do].
type API struct {
	path    string
	handle  uintptr
	fns     [numDrvSyms]uintptr
	version int

	ctxMu sync.Mutex
	ctxs  map[int]*Context
}

var (
	openOnce sync.Once
	openAPI  *API
	openErr  error
)

// Open loads libcuda and calls cuInit(0), once per process. Every call
// returns the same *API, or the same error: a *NotFoundError when no driver
// library can be loaded ("no GPU: libcuda.so.1 not found (tried: ...)"), an
// *Error when cuInit fails (e.g. CUDA_ERROR_NO_DEVICE). Use IsNoGPU to test
// for "no usable GPU".
//
// The search order is: $SOFTMAX_LIBCUDA (alone, when set); the soname
// libcuda.so.1 through the dynamic loader; the usual driver directories
// (see DriverCandidates).
func Open() (*API, error) {
	openOnce.Do(func() {
		openAPI, openErr = openDriver(os.LookupEnv, runtime.GOARCH)
	})
	return openAPI, openErr
}

// openDriver loads and initialises the driver (uncached).
func openDriver(lookup lookupFunc, goarch string) (*API, error) {
	a, err := loadDriver(lookup, goarch)
	if err != nil {
		return nil, err
	}
	err = a.Init(0)
	keepSignalStacks()
	if err != nil {
		return nil, err
	}
	v, err := a.DriverVersion()
	if err != nil {
		return nil, err
	}
	a.version = v
	return a, nil
}

// loadDriver dlopens libcuda and resolves its entry points without calling
// cuInit.
func loadDriver(lookup lookupFunc, goarch string) (*API, error) {
	cands, env := driverCandidates(lookup, goarch)
	path, h, err := dlopenFirst(libcudaName, env, cands)
	keepSignalStacks()
	if err != nil {
		return nil, err
	}
	a := &API{path: path, handle: h, ctxs: map[int]*Context{}}
	for i, names := range drvSymNames {
		for _, n := range names {
			if p := dlsym(h, n); p != 0 {
				a.fns[i] = p
				break
			}
		}
	}
	if a.fns[symInit] == 0 {
		return nil, fmt.Errorf("%s does not look like the CUDA driver: %w", path, a.missing(symInit))
	}
	return a, nil
}

// Path returns the file or soname the driver was loaded from.
func (a *API) Path() string { return a.path }

// Version returns the driver's CUDA version as 1000*major + 10*minor (e.g.
// 12080 for CUDA 12.8), as reported by cuDriverGetVersion at Open.
func (a *API) Version() int { return a.version }

// Has reports whether the loaded driver exports the named entry point, e.g.
// "cuLaunchKernelEx".
func (a *API) Has(symbol string) bool {
	return a.handle != 0 && dlsym(a.handle, symbol) != 0
}

func (a *API) missing(s drvSym) error {
	return &SymbolError{Library: a.path, Symbol: drvSymNames[s][0], Version: a.version}
}

// call invokes a driver entry point and converts its CUresult.
//
// The //go:uintptrescapes directive gives call the same guarantee as
// syscall.SyscallN: a pointer converted to uintptr in the argument list of a
// call to it is moved to the heap and kept alive until call returns, so the
// driver never sees a stack address that could move or an object the GC
// could free.
//
//go:uintptrescapes
func (a *API) call(s drvSym, args ...uintptr) error {
	fn := a.fns[s]
	if fn == 0 {
		return a.missing(s)
	}
	r := callC(fn, args...)
	if code := int(int32(uint32(r))); code != CUDA_SUCCESS {
		return a.newError(drvSymNames[s][0], code)
	}
	return nil
}

// newError builds an *Error, asking the driver for the name and description
// when it is loaded. a may be nil.
func (a *API) newError(op string, code int) *Error {
	e := &Error{Op: op, Code: code}
	if a != nil {
		e.Name = a.errorText(symGetErrorName, code)
		e.Desc = a.errorText(symGetErrorString, code)
	}
	if e.Name == "" {
		e.Name = fallbackCUName(code)
	}
	return e
}

// errorText calls cuGetErrorName or cuGetErrorString; "" when unavailable.
// Both work before cuInit and return pointers to static strings.
func (a *API) errorText(s drvSym, code int) string {
	fn := a.fns[s]
	if fn == 0 {
		return ""
	}
	var p *byte
	r := callC(fn, uintptr(int32(code)), uintptr(unsafe.Pointer(&p)))
	if uint32(r) != CUDA_SUCCESS || p == nil {
		return ""
	}
	return goString(p)
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cString returns s as a NUL-terminated byte slice.
func cString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// ---- initialisation and devices ----

// Init calls cuInit. Open already did; calling it again is harmless.
func (a *API) Init(flags uint32) error {
	return a.call(symInit, uintptr(flags))
}

// DriverVersion calls cuDriverGetVersion (1000*major + 10*minor).
func (a *API) DriverVersion() (int, error) {
	var v int32
	err := a.call(symDriverGetVersion, uintptr(unsafe.Pointer(&v)))
	return int(v), err
}

// DeviceCount calls cuDeviceGetCount.
func (a *API) DeviceCount() (int, error) {
	var n int32
	err := a.call(symDeviceGetCount, uintptr(unsafe.Pointer(&n)))
	return int(n), err
}

// DeviceGet calls cuDeviceGet for the given ordinal.
func (a *API) DeviceGet(ordinal int) (Device, error) {
	var d int32
	err := a.call(symDeviceGet, uintptr(unsafe.Pointer(&d)), uintptr(int32(ordinal)))
	return Device(d), err
}

// DeviceName calls cuDeviceGetName.
func (a *API) DeviceName(d Device) (string, error) {
	buf := make([]byte, 256)
	if err := a.call(symDeviceGetName, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d)); err != nil {
		return "", err
	}
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i]), nil
		}
	}
	return string(buf), nil
}

// DeviceAttribute calls cuDeviceGetAttribute.
func (a *API) DeviceAttribute(attr DeviceAttribute, d Device) (int, error) {
	var v int32
	err := a.call(symDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(d))
	return int(v), err
}

// DeviceTotalMem calls cuDeviceTotalMem_v2 (bytes).
func (a *API) DeviceTotalMem(d Device) (uint64, error) {
	var n uint64
	err := a.call(symDeviceTotalMem, uintptr(unsafe.Pointer(&n)), uintptr(d))
	return n, err
}

// DeviceProperties is a summary of the device attributes the kernels and the
// planner care about.
type DeviceProperties struct {
	Name                      string
	Major, Minor              int // compute capability
	Multiprocessors           int
	WarpSize                  int
	MaxThreadsPerBlock        int
	MaxThreadsPerSM           int
	MaxBlocksPerSM            int
	MaxRegistersPerBlock      int
	MaxRegistersPerSM         int
	SharedMemPerBlock         int // default (non opt-in) limit, bytes
	SharedMemPerBlockOptin    int // opt-in limit, bytes
	SharedMemPerSM            int // bytes
	ReservedSharedMemPerBlock int // bytes the driver reserves per block
	L2CacheSize               int // bytes
	MemoryClockKHz            int // 0 when the driver no longer reports it
	MemoryBusWidth            int // bits
	MaxGridDim                [3]int
	ClusterLaunch             bool
	CooperativeLaunch         bool   // cooperative (grid-synchronising) launches supported
	TotalMem                  uint64 // bytes
}

// Arch returns the NVRTC architecture name, e.g. "sm_90".
func (p DeviceProperties) Arch() string { return fmt.Sprintf("sm_%d%d", p.Major, p.Minor) }

// DeviceProperties queries the attributes summarised in DeviceProperties.
// Attributes a driver rejects (CUDA_ERROR_INVALID_VALUE or
// CUDA_ERROR_NOT_SUPPORTED, for ones it no longer reports) are left zero.
func (a *API) DeviceProperties(d Device) (DeviceProperties, error) {
	var p DeviceProperties
	var err error
	if p.Name, err = a.DeviceName(d); err != nil {
		return p, err
	}
	if p.TotalMem, err = a.DeviceTotalMem(d); err != nil {
		return p, err
	}
	attrs := []struct {
		attr DeviceAttribute
		dst  *int
	}{
		{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &p.Major},
		{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &p.Minor},
		{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &p.Multiprocessors},
		{CU_DEVICE_ATTRIBUTE_WARP_SIZE, &p.WarpSize},
		{CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &p.MaxThreadsPerBlock},
		{CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &p.MaxThreadsPerSM},
		{CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &p.MaxBlocksPerSM},
		{CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &p.MaxRegistersPerBlock},
		{CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &p.MaxRegistersPerSM},
		{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &p.SharedMemPerBlock},
		{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &p.SharedMemPerBlockOptin},
		{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &p.SharedMemPerSM},
		{CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, &p.ReservedSharedMemPerBlock},
		{CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &p.L2CacheSize},
		{CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &p.MemoryClockKHz},
		{CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &p.MemoryBusWidth},
		{CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &p.MaxGridDim[0]},
		{CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &p.MaxGridDim[1]},
		{CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &p.MaxGridDim[2]},
	}
	for _, at := range attrs {
		v, err := a.DeviceAttribute(at.attr, d)
		if err != nil {
			if IsCode(err, CUDA_ERROR_INVALID_VALUE) || IsCode(err, CUDA_ERROR_NOT_SUPPORTED) {
				continue
			}
			return p, err
		}
		*at.dst = v
	}
	if v, err := a.DeviceAttribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, d); err == nil {
		p.ClusterLaunch = v != 0
	}
	if v, err := a.DeviceAttribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, d); err == nil {
		p.CooperativeLaunch = v != 0
	}
	return p, nil
}

// ---- contexts ----

// PrimaryCtxRetain calls cuDevicePrimaryCtxRetain. Prefer PrimaryContext,
// which retains once per device and caches the result.
func (a *API) PrimaryCtxRetain(d Device) (CUcontext, error) {
	var c uintptr
	err := a.call(symDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&c)), uintptr(d))
	return CUcontext(c), err
}

// PrimaryCtxRelease calls cuDevicePrimaryCtxRelease_v2.
func (a *API) PrimaryCtxRelease(d Device) error {
	return a.call(symDevicePrimaryCtxRelease, uintptr(d))
}

// CtxSetCurrent calls cuCtxSetCurrent on the calling OS thread. Only
// meaningful with the goroutine locked to its thread; see Context.Do.
func (a *API) CtxSetCurrent(c CUcontext) error {
	return a.call(symCtxSetCurrent, uintptr(c))
}

// CtxGetCurrent calls cuCtxGetCurrent for the calling OS thread.
func (a *API) CtxGetCurrent() (CUcontext, error) {
	var c uintptr
	err := a.call(symCtxGetCurrent, uintptr(unsafe.Pointer(&c)))
	return CUcontext(c), err
}

// CtxSynchronize calls cuCtxSynchronize (needs a current context).
func (a *API) CtxSynchronize() error {
	return a.call(symCtxSynchronize)
}

// ---- memory ----

// MemAlloc calls cuMemAlloc_v2.
func (a *API) MemAlloc(bytes uint64) (DevicePtr, error) {
	var p uint64
	err := a.call(symMemAlloc, uintptr(unsafe.Pointer(&p)), uintptr(bytes))
	return DevicePtr(p), err
}

// MemFree calls cuMemFree_v2.
func (a *API) MemFree(p DevicePtr) error {
	return a.call(symMemFree, uintptr(p))
}

// MemGetInfo calls cuMemGetInfo_v2 (free and total bytes of the current
// context's device).
func (a *API) MemGetInfo() (free, total uint64, err error) {
	err = a.call(symMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))
	return free, total, err
}

// MemcpyHtoD calls cuMemcpyHtoD_v2, copying bytes from host memory src.
func (a *API) MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	return a.call(symMemcpyHtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// MemcpyDtoH calls cuMemcpyDtoH_v2, copying bytes into host memory dst.
func (a *API) MemcpyDtoH(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	return a.call(symMemcpyDtoH, uintptr(dst), uintptr(src), uintptr(bytes))
}

// MemcpyDtoD calls cuMemcpyDtoD_v2.
func (a *API) MemcpyDtoD(dst, src DevicePtr, bytes uint64) error {
	return a.call(symMemcpyDtoD, uintptr(dst), uintptr(src), uintptr(bytes))
}

// MemcpyHtoDAsync calls cuMemcpyHtoDAsync_v2. With pageable (ordinary Go)
// memory the driver stages src before returning, but the caller must still
// keep src alive and unmodified until the stream is synchronised if it may
// be page-locked memory.
func (a *API) MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes uint64, s Stream) error {
	return a.call(symMemcpyHtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
}

// MemcpyDtoHAsync calls cuMemcpyDtoHAsync_v2. The caller must keep dst alive
// (runtime.KeepAlive after the stream synchronisation) and must not read it
// before the stream is synchronised.
func (a *API) MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes uint64, s Stream) error {
	return a.call(symMemcpyDtoHAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
}

// MemcpyDtoDAsync calls cuMemcpyDtoDAsync_v2.
func (a *API) MemcpyDtoDAsync(dst, src DevicePtr, bytes uint64, s Stream) error {
	return a.call(symMemcpyDtoDAsync, uintptr(dst), uintptr(src), uintptr(bytes), uintptr(s))
}

// MemsetD8 calls cuMemsetD8_v2 (n bytes).
func (a *API) MemsetD8(dst DevicePtr, v uint8, n uint64) error {
	return a.call(symMemsetD8, uintptr(dst), uintptr(v), uintptr(n))
}

// MemsetD32 calls cuMemsetD32_v2 (n 32-bit words).
func (a *API) MemsetD32(dst DevicePtr, v uint32, n uint64) error {
	return a.call(symMemsetD32, uintptr(dst), uintptr(v), uintptr(n))
}

// MemsetD8Async calls cuMemsetD8Async (n bytes).
func (a *API) MemsetD8Async(dst DevicePtr, v uint8, n uint64, s Stream) error {
	return a.call(symMemsetD8Async, uintptr(dst), uintptr(v), uintptr(n), uintptr(s))
}

// MemsetD32Async calls cuMemsetD32Async (n 32-bit words).
func (a *API) MemsetD32Async(dst DevicePtr, v uint32, n uint64, s Stream) error {
	return a.call(symMemsetD32Async, uintptr(dst), uintptr(v), uintptr(n), uintptr(s))
}

// PointerGetAttribute calls cuPointerGetAttribute; data must point to a
// value of the type the attribute returns (see the PointerAttribute
// constants).
func (a *API) PointerGetAttribute(data unsafe.Pointer, attr PointerAttribute, p DevicePtr) error {
	return a.call(symPointerGetAttribute, uintptr(data), uintptr(attr), uintptr(p))
}

// PointerDeviceOrdinal returns the ordinal of the device p was allocated on.
func (a *API) PointerDeviceOrdinal(p DevicePtr) (int, error) {
	var v int32
	err := a.PointerGetAttribute(unsafe.Pointer(&v), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p)
	return int(v), err
}

// PointerMemoryType returns the CU_MEMORYTYPE_* of p.
func (a *API) PointerMemoryType(p DevicePtr) (int, error) {
	var v uint32
	err := a.PointerGetAttribute(unsafe.Pointer(&v), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p)
	return int(v), err
}

// ---- modules and functions ----

// ModuleLoadData calls cuModuleLoadData with a CUBIN, fatbin or
// NUL-terminated PTX image.
func (a *API) ModuleLoadData(image []byte) (Module, error) {
	if len(image) == 0 {
		return 0, a.newError("cuModuleLoadData", CUDA_ERROR_INVALID_VALUE)
	}
	var m uintptr
	err := a.call(symModuleLoadData, uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&image[0])))
	return Module(m), err
}

// ModuleUnload calls cuModuleUnload.
func (a *API) ModuleUnload(m Module) error {
	return a.call(symModuleUnload, uintptr(m))
}

// ModuleGetFunction calls cuModuleGetFunction.
func (a *API) ModuleGetFunction(m Module, name string) (Function, error) {
	cname := cString(name)
	var f uintptr
	err := a.call(symModuleGetFunction, uintptr(unsafe.Pointer(&f)), uintptr(m), uintptr(unsafe.Pointer(&cname[0])))
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Op += "(" + name + ")"
		}
	}
	return Function(f), err
}

// FuncGetAttribute calls cuFuncGetAttribute.
func (a *API) FuncGetAttribute(attr FunctionAttribute, f Function) (int, error) {
	var v int32
	err := a.call(symFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(f))
	return int(v), err
}

// FuncSetAttribute calls cuFuncSetAttribute, e.g. to raise
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES above 48 KiB.
func (a *API) FuncSetAttribute(f Function, attr FunctionAttribute, value int) error {
	return a.call(symFuncSetAttribute, uintptr(f), uintptr(attr), uintptr(int32(value)))
}

// OccupancyMaxActiveBlocksPerMultiprocessor calls the driver function of the
// same name.
func (a *API) OccupancyMaxActiveBlocksPerMultiprocessor(f Function, blockSize int, dynamicSmem uint64) (int, error) {
	var n int32
	err := a.call(symOccupancyMaxActiveBlocksPerMultiprocessor, uintptr(unsafe.Pointer(&n)), uintptr(f), uintptr(int32(blockSize)), uintptr(dynamicSmem))
	return int(n), err
}

// ---- streams and events ----

// StreamCreate calls cuStreamCreate with CU_STREAM_* flags.
func (a *API) StreamCreate(flags uint32) (Stream, error) {
	var s uintptr
	err := a.call(symStreamCreate, uintptr(unsafe.Pointer(&s)), uintptr(flags))
	return Stream(s), err
}

// StreamDestroy calls cuStreamDestroy_v2.
func (a *API) StreamDestroy(s Stream) error {
	return a.call(symStreamDestroy, uintptr(s))
}

// StreamSynchronize calls cuStreamSynchronize.
func (a *API) StreamSynchronize(s Stream) error {
	return a.call(symStreamSynchronize, uintptr(s))
}

// EventCreate calls cuEventCreate with CU_EVENT_* flags.
func (a *API) EventCreate(flags uint32) (Event, error) {
	var e uintptr
	err := a.call(symEventCreate, uintptr(unsafe.Pointer(&e)), uintptr(flags))
	return Event(e), err
}

// EventRecord calls cuEventRecord.
func (a *API) EventRecord(e Event, s Stream) error {
	return a.call(symEventRecord, uintptr(e), uintptr(s))
}

// EventSynchronize calls cuEventSynchronize.
func (a *API) EventSynchronize(e Event) error {
	return a.call(symEventSynchronize, uintptr(e))
}

// EventElapsedTime calls cuEventElapsedTime(_v2) and returns milliseconds.
func (a *API) EventElapsedTime(start, end Event) (float32, error) {
	var ms float32
	err := a.call(symEventElapsedTime, uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end))
	return ms, err
}

// EventDestroy calls cuEventDestroy_v2.
func (a *API) EventDestroy(e Event) error {
	return a.call(symEventDestroy, uintptr(e))
}

// ---- typed copies ----

// CopyHtoD copies src into device memory at dst (synchronous).
func CopyHtoD[T any](a *API, dst DevicePtr, src []T) error {
	if len(src) == 0 {
		return nil
	}
	n := uint64(len(src)) * uint64(unsafe.Sizeof(src[0]))
	return a.MemcpyHtoD(dst, unsafe.Pointer(&src[0]), n)
}

// CopyDtoH copies len(dst) elements from device memory at src (synchronous).
func CopyDtoH[T any](a *API, dst []T, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	n := uint64(len(dst)) * uint64(unsafe.Sizeof(dst[0]))
	return a.MemcpyDtoH(unsafe.Pointer(&dst[0]), src, n)
}
