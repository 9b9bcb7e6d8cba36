package driver

// DeviceAttribute is a CUdevice_attribute, the argument of cuDeviceGetAttribute.
type DeviceAttribute int32

// Device attributes (values from cuda.h, enum CUdevice_attribute_enum).
const (
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK                DeviceAttribute = 1
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X                      DeviceAttribute = 2
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y                      DeviceAttribute = 3
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z                      DeviceAttribute = 4
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X                       DeviceAttribute = 5
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y                       DeviceAttribute = 6
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z                       DeviceAttribute = 7
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK          DeviceAttribute = 8
	CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY                DeviceAttribute = 9
	CU_DEVICE_ATTRIBUTE_WARP_SIZE                            DeviceAttribute = 10
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK              DeviceAttribute = 12
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE                           DeviceAttribute = 13
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT                 DeviceAttribute = 16
	CU_DEVICE_ATTRIBUTE_INTEGRATED                           DeviceAttribute = 18
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID                           DeviceAttribute = 33
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID                        DeviceAttribute = 34
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE                    DeviceAttribute = 36
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH              DeviceAttribute = 37
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE                        DeviceAttribute = 38
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR       DeviceAttribute = 39
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING                   DeviceAttribute = 41
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID                        DeviceAttribute = 50
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR             DeviceAttribute = 75
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR             DeviceAttribute = 76
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR DeviceAttribute = 81
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR     DeviceAttribute = 82
	CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH                   DeviceAttribute = 95
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN    DeviceAttribute = 97
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR        DeviceAttribute = 106
	CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE         DeviceAttribute = 108
	CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK     DeviceAttribute = 111
	CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED               DeviceAttribute = 115
	CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH                       DeviceAttribute = 120
)

// FunctionAttribute is a CUfunction_attribute, used by cuFuncGetAttribute
// and cuFuncSetAttribute.
type FunctionAttribute int32

// Function attributes (values from cuda.h, enum CUfunction_attribute_enum).
const (
	CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK                FunctionAttribute = 0
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES                    FunctionAttribute = 1
	CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES                     FunctionAttribute = 2
	CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES                     FunctionAttribute = 3
	CU_FUNC_ATTRIBUTE_NUM_REGS                             FunctionAttribute = 4
	CU_FUNC_ATTRIBUTE_PTX_VERSION                          FunctionAttribute = 5
	CU_FUNC_ATTRIBUTE_BINARY_VERSION                       FunctionAttribute = 6
	CU_FUNC_ATTRIBUTE_CACHE_MODE_CA                        FunctionAttribute = 7
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES        FunctionAttribute = 8
	CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT     FunctionAttribute = 9
	CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET             FunctionAttribute = 10
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH               FunctionAttribute = 11
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT              FunctionAttribute = 12
	CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH               FunctionAttribute = 13
	CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED    FunctionAttribute = 14
	CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE FunctionAttribute = 15
)

// PointerAttribute is a CUpointer_attribute, the argument of cuPointerGetAttribute.
type PointerAttribute int32

// Pointer attributes (values from cuda.h, enum CUpointer_attribute_enum).
const (
	CU_POINTER_ATTRIBUTE_CONTEXT        PointerAttribute = 1 // CUcontext
	CU_POINTER_ATTRIBUTE_MEMORY_TYPE    PointerAttribute = 2 // unsigned int (CUmemorytype)
	CU_POINTER_ATTRIBUTE_DEVICE_POINTER PointerAttribute = 3 // CUdeviceptr
	CU_POINTER_ATTRIBUTE_HOST_POINTER   PointerAttribute = 4 // void*
	CU_POINTER_ATTRIBUTE_IS_MANAGED     PointerAttribute = 8 // unsigned int (bool)
	CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL PointerAttribute = 9 // int
)

// Memory types returned for CU_POINTER_ATTRIBUTE_MEMORY_TYPE (CUmemorytype).
const (
	CU_MEMORYTYPE_HOST    = 1
	CU_MEMORYTYPE_DEVICE  = 2
	CU_MEMORYTYPE_ARRAY   = 3
	CU_MEMORYTYPE_UNIFIED = 4
)

// Stream creation flags (cuStreamCreate).
const (
	CU_STREAM_DEFAULT      uint32 = 0x0
	CU_STREAM_NON_BLOCKING uint32 = 0x1
)

// Event creation flags (cuEventCreate).
const (
	CU_EVENT_DEFAULT        uint32 = 0x0
	CU_EVENT_BLOCKING_SYNC  uint32 = 0x1
	CU_EVENT_DISABLE_TIMING uint32 = 0x2
)

// Launch attribute identifiers (enum CUlaunchAttributeID) used by
// cuLaunchKernelEx.
const (
	CU_LAUNCH_ATTRIBUTE_IGNORE                               = 0
	CU_LAUNCH_ATTRIBUTE_COOPERATIVE                          = 2
	CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION                    = 4
	CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5
)
