package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// EnvNCCL overrides libnccl discovery: when set, only that file is tried.
const EnvNCCL = "SOFTMAX_NCCL"

// libncclName is the soname NotFoundError reports for NCCL.
const libncclName = "libnccl.so.2"

// EnvNVLS is NCCL's switch for NVLink multicast (NVLS). OpenNCCL sets it to
// "0" when the environment leaves it unset: NVLS needs multicast objects,
// which the machines this library is tested on must not create.
const EnvNVLS = "NCCL_NVLS_ENABLE"

type ncclSym int

const (
	symNcclGetVersion ncclSym = iota
	symNcclGetUniqueID
	symNcclCommInitRank
	symNcclCommInitAll
	symNcclCommDestroy
	symNcclCommCount
	symNcclCommCuDevice
	symNcclCommUserRank
	symNcclCommGetAsyncError
	symNcclGetErrorString
	symNcclAllReduce
	symNcclAllGather
	symNcclGroupStart
	symNcclGroupEnd
	numNcclSyms
)

var ncclSymNames = [numNcclSyms]string{
	symNcclGetVersion:        "ncclGetVersion",
	symNcclGetUniqueID:       "ncclGetUniqueId",
	symNcclCommInitRank:      "ncclCommInitRank",
	symNcclCommInitAll:       "ncclCommInitAll",
	symNcclCommDestroy:       "ncclCommDestroy",
	symNcclCommCount:         "ncclCommCount",
	symNcclCommCuDevice:      "ncclCommCuDevice",
	symNcclCommUserRank:      "ncclCommUserRank",
	symNcclCommGetAsyncError: "ncclCommGetAsyncError",
	symNcclGetErrorString:    "ncclGetErrorString",
	symNcclAllReduce:         "ncclAllReduce",
	symNcclAllGather:         "ncclAllGather",
	symNcclGroupStart:        "ncclGroupStart",
	symNcclGroupEnd:          "ncclGroupEnd",
}

// NCCL is a loaded NCCL library (libnccl.so.2). It is immutable after
// OpenNCCL and safe for concurrent use; the communicators it makes follow
// NCCL's own rules (one thread a communicator at a time).
type NCCL struct {
	path    string
	handle  uintptr
	fns     [numNcclSyms]uintptr
	version int
}

// UniqueID is an ncclUniqueId: the 128 opaque bytes rank 0 makes and every
// rank passes to CommInitRank.
type UniqueID [128]byte

// Comm is an ncclComm_t.
type Comm uintptr

// NCCLDataType is an ncclDataType_t.
type NCCLDataType int32

// NCCL data types (nccl.h).
const (
	NCCLInt32    NCCLDataType = 2
	NCCLInt64    NCCLDataType = 4
	NCCLFloat16  NCCLDataType = 6
	NCCLFloat32  NCCLDataType = 7
	NCCLFloat64  NCCLDataType = 8
	NCCLBFloat16 NCCLDataType = 9
)

// NCCLRedOp is an ncclRedOp_t.
type NCCLRedOp int32

// NCCL reduction operators (nccl.h).
const (
	NCCLSum NCCLRedOp = 0
	NCCLMax NCCLRedOp = 2
	NCCLMin NCCLRedOp = 3
)

// NCCLError is a failed NCCL call: an ncclResult_t other than ncclSuccess.
type NCCLError struct {
	Op   string // e.g. "ncclCommInitRank"
	Code int    // the ncclResult_t
	Desc string // from ncclGetErrorString, when the library is loaded
}

// Error implements the error interface.
func (e *NCCLError) Error() string {
	if e.Desc != "" {
		return fmt.Sprintf("%s: ncclResult %d (%s)", e.Op, e.Code, e.Desc)
	}
	return fmt.Sprintf("%s: ncclResult %d", e.Op, e.Code)
}

var (
	ncclOnce sync.Once
	ncclLib  *NCCL
	ncclErr  error
)

// OpenNCCL loads libnccl once per process and returns it, or the first
// error: a *NotFoundError ("no NCCL: ...") when no candidate loads. The
// search order is $SOFTMAX_NCCL alone when set; else the soname through the
// dynamic loader, the CUDA folders, and the nvidia/nccl/lib and
// nvidia/cu13/lib folders of Python's site-packages (NCCLCandidates).
// Nothing else in the library needs NCCL.
func OpenNCCL() (*NCCL, error) {
	ncclOnce.Do(func() {
		if _, set := os.LookupEnv(EnvNVLS); !set {
			os.Setenv(EnvNVLS, "0")
		}
		ncclLib, ncclErr = loadNCCL(os.LookupEnv, filepath.Glob, runtime.GOARCH)
	})
	return ncclLib, ncclErr
}

func loadNCCL(lookup lookupFunc, glob globFunc, goarch string) (*NCCL, error) {
	if !canLoadNCCL {
		return nil, &NotFoundError{Library: libncclName, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	}
	cands, env := ncclCandidates(lookup, glob, goarch)
	path, h, err := dlopenFirst(libncclName, env, cands)
	if err != nil {
		return nil, err
	}
	n := &NCCL{path: path, handle: h}
	for i, name := range ncclSymNames {
		n.fns[i] = dlsym(h, name)
	}
	var v int32
	if err := n.call(symNcclGetVersion, uintptr(unsafe.Pointer(&v))); err != nil {
		return nil, fmt.Errorf("%s does not look like NCCL: %w", path, err)
	}
	n.version = int(v)
	return n, nil
}

// NCCLCandidates returns NCCL's search list for this process (diagnostics).
func NCCLCandidates() []string {
	if !canLoadNCCL {
		return nil
	}
	c, _ := ncclCandidates(os.LookupEnv, filepath.Glob, runtime.GOARCH)
	return c
}

// ncclCandidates lists where libnccl is looked for, in order: $SOFTMAX_NCCL
// alone if set; else the soname, the CUDA folders, and the Python wheels'
// folders (torch ships NCCL as nvidia-nccl-cu12/cu13).
func ncclCandidates(lookup lookupFunc, glob globFunc, goarch string) ([]string, string) {
	if p := envValue(lookup, EnvNCCL); p != "" {
		return []string{p}, EnvNCCL
	}
	if glob == nil {
		glob = func(string) ([]string, error) { return nil, nil }
	}
	out := []string{libncclName}
	var dirs []string
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if v := envValue(lookup, env); v != "" {
			v = strings.TrimRight(v, "/")
			dirs = append(dirs, v+"/lib64", v+"/"+cudaTargetDir(goarch))
		}
	}
	dirs = append(dirs, multiarchDir(goarch), "/usr/local/cuda/lib64", "/usr/local/cuda/"+cudaTargetDir(goarch))
	for _, pat := range sitePackagePatterns(lookup) {
		sps, _ := glob(pat)
		sort.Strings(sps)
		for _, sp := range sps {
			dirs = append(dirs, sp+"/nvidia/nccl/lib", sp+"/nvidia/cu13/lib")
		}
	}
	for _, d := range dirs {
		out = append(out, d+"/"+libncclName)
	}
	return dedupe(out), ""
}

// Path returns the file or soname NCCL was loaded from.
func (n *NCCL) Path() string { return n.path }

// Version returns NCCL's version code (e.g. 22703 for 2.27.3).
func (n *NCCL) Version() int { return n.version }

// VersionString formats Version as major.minor.patch.
func (n *NCCL) VersionString() string {
	v := n.version
	if v >= 10000 { // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
		return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v/100%10, v%100)
}

//go:uintptrescapes
func (n *NCCL) call(s ncclSym, args ...uintptr) error {
	fn := n.fns[s]
	if fn == 0 {
		return &SymbolError{Library: n.path, Symbol: ncclSymNames[s], Version: 0}
	}
	if r := int(int32(uint32(callC(fn, args...)))); r != 0 {
		return n.newError(ncclSymNames[s], r)
	}
	return nil
}

func (n *NCCL) newError(op string, code int) *NCCLError {
	e := &NCCLError{Op: op, Code: code}
	if fn := n.fns[symNcclGetErrorString]; fn != 0 {
		if p := callC(fn, uintptr(code)); p != 0 {
			e.Desc = goString(*(**byte)(unsafe.Pointer(&p))) // a static C string
		}
	}
	return e
}

// UniqueID makes the id rank 0 shares with the other ranks.
func (n *NCCL) UniqueID() (UniqueID, error) {
	var id UniqueID
	err := n.call(symNcclGetUniqueID, uintptr(unsafe.Pointer(&id)))
	return id, err
}

// CommInitRank joins rank of an nranks communicator named by id, on the
// device current in the calling thread's context (run it in Context.Do).
func (n *NCCL) CommInitRank(nranks int, id UniqueID, rank int) (Comm, error) {
	if nranks < 1 || rank < 0 || rank >= nranks {
		return 0, fmt.Errorf("ncclCommInitRank: rank %d of %d ranks", rank, nranks)
	}
	var c Comm
	err := n.commInitRank(&c, nranks, &id, rank)
	return c, err
}

// CommInitAll makes one communicator per local device in devs (one process
// driving several GPUs), in the order given.
func (n *NCCL) CommInitAll(devs []int) ([]Comm, error) {
	if len(devs) == 0 {
		return nil, fmt.Errorf("ncclCommInitAll: no devices")
	}
	comms := make([]Comm, len(devs))
	ids := make([]int32, len(devs))
	for i, d := range devs {
		ids[i] = int32(d)
	}
	err := n.call(symNcclCommInitAll, uintptr(unsafe.Pointer(&comms[0])), uintptr(len(devs)), uintptr(unsafe.Pointer(&ids[0])))
	return comms, err
}

// CommDestroy frees a communicator.
func (n *NCCL) CommDestroy(c Comm) error { return n.call(symNcclCommDestroy, uintptr(c)) }

// CommCount, CommCuDevice and CommUserRank query a communicator.
func (n *NCCL) CommCount(c Comm) (int, error) { return n.commInt(symNcclCommCount, c) }

// CommCuDevice returns the CUDA device of a communicator.
func (n *NCCL) CommCuDevice(c Comm) (int, error) { return n.commInt(symNcclCommCuDevice, c) }

// CommUserRank returns the rank of a communicator.
func (n *NCCL) CommUserRank(c Comm) (int, error) { return n.commInt(symNcclCommUserRank, c) }

func (n *NCCL) commInt(s ncclSym, c Comm) (int, error) {
	var v int32
	err := n.call(s, uintptr(c), uintptr(unsafe.Pointer(&v)))
	return int(v), err
}

// CommAsyncError returns the communicator's asynchronous error, if any.
func (n *NCCL) CommAsyncError(c Comm) error {
	var r int32
	if err := n.call(symNcclCommGetAsyncError, uintptr(c), uintptr(unsafe.Pointer(&r))); err != nil {
		return err
	}
	if r != 0 {
		return n.newError("ncclCommGetAsyncError", int(r))
	}
	return nil
}

// AllReduce reduces count elements of send across the ranks into recv
// (send may equal recv), ordered on stream.
func (n *NCCL) AllReduce(send, recv DevicePtr, count int, dt NCCLDataType, op NCCLRedOp, c Comm, s Stream) error {
	return n.call(symNcclAllReduce, uintptr(send), uintptr(recv), uintptr(count), uintptr(dt), uintptr(op), uintptr(c), uintptr(s))
}

// AllGather gathers count elements from every rank into recv (rank r's at
// r·count), ordered on stream.
func (n *NCCL) AllGather(send, recv DevicePtr, count int, dt NCCLDataType, c Comm, s Stream) error {
	return n.call(symNcclAllGather, uintptr(send), uintptr(recv), uintptr(count), uintptr(dt), uintptr(c), uintptr(s))
}

// GroupStart and GroupEnd bracket calls one thread makes for several
// communicators (one process driving several GPUs).
func (n *NCCL) GroupStart() error { return n.call(symNcclGroupStart) }

// GroupEnd closes a GroupStart.
func (n *NCCL) GroupEnd() error { return n.call(symNcclGroupEnd) }

// IsNoNCCL reports whether err means NCCL could not be loaded.
func IsNoNCCL(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf) && nf.Library == libncclName
}
