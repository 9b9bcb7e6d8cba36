package driver

import (
	"errors"
	"fmt"
	"runtime"
	"structs"
	"unsafe"
)

// cuLaunchAttribute mirrors the C struct CUlaunchAttribute_st:
//
//	struct CUlaunchAttribute_st {
//	    CUlaunchAttributeID id;                         // offset 0, 4 bytes
//	    char pad[8 - sizeof(CUlaunchAttributeID)];       // offset 4, 4 bytes
//	    CUlaunchAttributeValue value;                   // offset 8, 64-byte union
//	};                                                  // sizeof 72, align 8
//
// The value union starts with char pad[64] and contains pointer-bearing
// members (CUaccessPolicyWindow, CUevent), hence its 8-byte alignment; it is
// modelled as [8]uint64 so the Go type has the same alignment.
type cuLaunchAttribute struct {
	_     structs.HostLayout
	id    uint32
	_     [4]byte
	value [8]uint64
}

// cuLaunchConfig mirrors the C struct CUlaunchConfig_st:
//
//	struct CUlaunchConfig_st {
//	    unsigned int gridDimX, gridDimY, gridDimZ;      // offsets 0, 4, 8
//	    unsigned int blockDimX, blockDimY, blockDimZ;   // offsets 12, 16, 20
//	    unsigned int sharedMemBytes;                    // offset 24
//	    CUstream hStream;                               // offset 32 (after 4 bytes padding)
//	    CUlaunchAttribute *attrs;                       // offset 40
//	    unsigned int numAttrs;                          // offset 48
//	};                                                  // sizeof 56 (4 bytes tail padding)
type cuLaunchConfig struct {
	_              structs.HostLayout
	gridDimX       uint32
	gridDimY       uint32
	gridDimZ       uint32
	blockDimX      uint32
	blockDimY      uint32
	blockDimZ      uint32
	sharedMemBytes uint32
	_              uint32
	hStream        uintptr
	attrs          *cuLaunchAttribute
	numAttrs       uint32
	_              uint32
}

// LaunchConfig describes a cuLaunchKernelEx launch.
type LaunchConfig struct {
	Grid      [3]uint32 // grid dimensions in blocks
	Block     [3]uint32 // block dimensions in threads
	SharedMem uint32    // dynamic shared memory per block, bytes
	Stream    Stream    // 0 for the default stream
	// Cluster is the thread-block cluster shape (sm_90+). All zero means no
	// cluster attribute; otherwise each component must be >= 1 and divide
	// the corresponding grid dimension.
	Cluster [3]uint32
	// ClusterSchedulingPolicy, if non-zero, is passed as
	// CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
	// (1 = spread, 2 = load balancing).
	ClusterSchedulingPolicy uint32
	// Cooperative passes CU_LAUNCH_ATTRIBUTE_COOPERATIVE: the driver
	// refuses the launch (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) unless
	// every block of the grid can be resident at once, as a kernel that
	// synchronises its whole grid needs.
	Cooperative bool
}

// errNilParam is returned when a kernel parameter pointer is nil.
var errNilParam = errors.New("driver: nil kernel parameter pointer")

// pinParams pins every parameter pointee and the parameter array itself and
// returns the address to pass as kernelParams (nil for no parameters).
func pinParams(p *runtime.Pinner, params []unsafe.Pointer) (unsafe.Pointer, error) {
	if len(params) == 0 {
		return nil, nil
	}
	for i, v := range params {
		if v == nil {
			return nil, fmt.Errorf("%w (index %d)", errNilParam, i)
		}
		p.Pin(v)
	}
	p.Pin(&params[0])
	return unsafe.Pointer(&params[0]), nil
}

// Launch calls cuLaunchKernel. Each params[i] must point at the value of the
// i-th kernel argument (e.g. unsafe.Pointer(&n) for an int32 n,
// unsafe.Pointer(&ptr) for a DevicePtr ptr); the driver copies the values
// during the call, so they may be reused once Launch returns. Must run with
// the function's context current (Context.Launch does that).
//
// Why pinning: the driver receives kernelParams, a void** that is Go memory
// holding Go pointers, and dereferences every element during the call. The
// cgo pointer-passing rules, which apply equally to calls without cgo, allow Go
// memory that contains Go pointers to be handed to C only if those pointers
// are pinned; a runtime.Pinner pins each pointee and the array for exactly
// the duration of the call (it also forces them onto the heap, so a stack
// move cannot invalidate the addresses). Without it a parameter living on a
// goroutine stack could move mid-call, or the collector could free an object
// that is referenced only from the array.
func (a *API) Launch(fn Function, grid, block [3]uint32, smem uint32, stream Stream, params ...unsafe.Pointer) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	kp, err := pinParams(&pin, params)
	if err != nil {
		return err
	}
	return a.call(symLaunchKernel, uintptr(fn),
		uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]),
		uintptr(block[0]), uintptr(block[1]), uintptr(block[2]),
		uintptr(smem), uintptr(stream), uintptr(kp), 0)
}

// buildLaunchConfig lays out cfg as the C CUlaunchConfig and its attribute
// array, pinning both (the config holds a Go pointer to the attributes).
func buildLaunchConfig(p *runtime.Pinner, cfg *LaunchConfig) *cuLaunchConfig {
	c := &cuLaunchConfig{
		gridDimX: cfg.Grid[0], gridDimY: cfg.Grid[1], gridDimZ: cfg.Grid[2],
		blockDimX: cfg.Block[0], blockDimY: cfg.Block[1], blockDimZ: cfg.Block[2],
		sharedMemBytes: cfg.SharedMem,
		hStream:        uintptr(cfg.Stream),
	}
	var attrs []cuLaunchAttribute
	if cfg.Cluster != [3]uint32{} {
		var at cuLaunchAttribute
		at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
		dim := (*[3]uint32)(unsafe.Pointer(&at.value))
		*dim = cfg.Cluster
		attrs = append(attrs, at)
	}
	if cfg.ClusterSchedulingPolicy != 0 {
		var at cuLaunchAttribute
		at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
		*(*uint32)(unsafe.Pointer(&at.value)) = cfg.ClusterSchedulingPolicy
		attrs = append(attrs, at)
	}
	if cfg.Cooperative {
		var at cuLaunchAttribute
		at.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE
		*(*int32)(unsafe.Pointer(&at.value)) = 1
		attrs = append(attrs, at)
	}
	if len(attrs) > 0 {
		p.Pin(&attrs[0])
		c.attrs = &attrs[0]
		c.numAttrs = uint32(len(attrs))
	}
	p.Pin(c)
	return c
}

// LaunchEx calls cuLaunchKernelEx (CUDA 11.8+), which supports thread-block
// clusters. params follow the same rules as for Launch; the CUlaunchConfig
// and its attribute array are Go memory laid out as the C ABI requires and
// are pinned for the duration of the call like the parameters. A driver
// without cuLaunchKernelEx yields a *SymbolError.
func (a *API) LaunchEx(fn Function, cfg LaunchConfig, params ...unsafe.Pointer) error {
	if a.fns[symLaunchKernelEx] == 0 {
		return a.missing(symLaunchKernelEx)
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	kp, err := pinParams(&pin, params)
	if err != nil {
		return err
	}
	c := buildLaunchConfig(&pin, &cfg)
	return a.call(symLaunchKernelEx, uintptr(unsafe.Pointer(c)), uintptr(fn), uintptr(kp), 0)
}

// OccupancyMaxActiveClusters calls cuOccupancyMaxActiveClusters: the
// maximum number of clusters of cfg.Cluster shape that can co-exist on the
// device. Grid, Block, SharedMem and Cluster of cfg are used.
func (a *API) OccupancyMaxActiveClusters(fn Function, cfg LaunchConfig) (int, error) {
	if a.fns[symOccupancyMaxActiveClusters] == 0 {
		return 0, a.missing(symOccupancyMaxActiveClusters)
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	c := buildLaunchConfig(&pin, &cfg)
	var n int32
	err := a.call(symOccupancyMaxActiveClusters, uintptr(unsafe.Pointer(&n)), uintptr(fn), uintptr(unsafe.Pointer(c)))
	return int(n), err
}
