package bench

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/spec"
)

// Backend is a compute device: it runs the softmax ops on host tensors (for
// `softmax apply` and `softmax verify`) and prepares timed workloads (for
// `softmax bench`).
type Backend interface {
	// Kind is the registry name of the backend: "cpu" or "cuda".
	Kind() string
	// Name describes the device for headers and records, e.g.
	// "cpu (avx512 kernels, 2 threads)" or "cuda:0 NVIDIA H100 80GB HBM3".
	Name() string
	// Apply computes a forward op of src into dst; both are host tensors of
	// the same shape and dtype.
	Apply(op spec.Op, dst, src softmax.Tensor, opt softmax.Options) error
	// ApplyBackward computes a backward op into dx from y and dy (host tensors).
	ApplyBackward(op spec.Op, dx, y, dy softmax.Tensor, opt softmax.Options) error
	// Algos lists the strategies a benchmark may select by name, in a
	// stable order. On the CPU they are the kernel sets this machine can
	// run ("go", "avx2", "avx512").
	Algos() []string
	// Prepare allocates the case's tensors on the device and fills the
	// inputs with random data (never all zeros). algo is the strategy the
	// caller will time: "auto", "all" or one name of Algos (a backend may use
	// it to compile only what is needed).
	Prepare(c Case, algo string) (Workload, error)
	// Info returns lines describing the backend for `softmax info`.
	Info() []string
	// Close releases the device.
	Close() error
}

// Workload is one benchmark case prepared on a device.
type Workload interface {
	// Chosen names the strategy the backend's planner picks for this case
	// (what "auto" resolves to).
	Chosen() string
	// Run executes the op once with strategy algo ("auto" for the
	// planner's pick). It may return before a GPU finishes.
	Run(algo string) error
	// Time runs the op warmup times, then reps times, and returns the
	// duration of each rep in seconds (GPU: CUDA events; the call
	// synchronises). An algo that cannot serve the case returns an error
	// wrapping ErrUnsupported.
	Time(algo string, warmup, reps int) ([]float64, error)
	// TimeCopy times a plain device copy that moves the op's minimum memory
	// traffic (Case.Traffic bytes read and written in total), the same way
	// as Time.
	TimeCopy(warmup, reps int) ([]float64, error)
	// Close frees the workload's buffers.
	Close() error
}

// KernelReporter is implemented by backends that can describe their
// compiled kernels for `softmax info --kernels`: per strategy, registers,
// shared memory, spills and occupancy.
type KernelReporter interface {
	// KernelInfo returns one line per kernel (or a small table's lines).
	KernelInfo() ([]string, error)
}

// Tunable is implemented by backends whose planner can consult the
// autotuning cache written by `softmax tune`: after SetTuned(true), the
// planner's pick ("auto" in Prepare, Run and Time, and Apply /
// ApplyBackward) prefers the cached winner of the case's shape class.
type Tunable interface {
	SetTuned(on bool)
}

// L2Flusher is implemented by backends that can flush the device's L2
// cache before each timed rep: after SetFlushL2(true), Workload.Time and
// TimeCopy overwrite a buffer larger than the L2 ahead of every rep,
// outside the timed span, so a rep finds none of its data cached, and no
// dirty lines of its own previous rep, as triton.testing.do_bench and
// bench/peers/peers.py time. Without it, a case whose tensors fit the L2
// is timed reading it from the cache.
type L2Flusher interface {
	SetFlushL2(on bool)
}

// CopyDescriber is implemented by workloads that can say how their
// reference copy was done (for example "copy" or "parallel copy, 2
// goroutines"), after TimeCopy; the text goes into the records' copy_kind.
type CopyDescriber interface {
	CopyKind() string
}

// ErrUnsupported is wrapped by Workload.Time (and Prepare) when a strategy
// cannot serve a case; `--algo all` skips such strategies.
var ErrUnsupported = errors.New("unsupported")

// IsUnsupported reports whether err says a strategy cannot serve a case:
// it wraps ErrUnsupported, or (for errors from other packages) its message
// contains "unsupported".
func IsUnsupported(err error) bool {
	return err != nil && (errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "unsupported"))
}

// Opener opens the device with the given ordinal (the N of cuda:N; 0 when
// none was given).
type Opener func(ordinal int) (Backend, error)

var registry struct {
	sync.Mutex
	open map[string]Opener
}

// Register makes a backend kind available to Open. It is meant to be
// called from init functions; registering a kind twice panics.
func Register(kind string, open Opener) {
	registry.Lock()
	defer registry.Unlock()
	if registry.open == nil {
		registry.open = map[string]Opener{}
	}
	if _, dup := registry.open[kind]; dup {
		panic("bench: backend " + kind + " registered twice")
	}
	registry.open[kind] = open
}

// Kinds returns the registered backend kinds, sorted.
func Kinds() []string {
	registry.Lock()
	defer registry.Unlock()
	var ks []string
	for k := range registry.open {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func opener(kind string) Opener {
	registry.Lock()
	defer registry.Unlock()
	return registry.open[kind]
}

// UnavailableError says a backend could not be opened, and why.
type UnavailableError struct {
	Kind string // "cuda"
	Err  error
}

// Error implements the error interface: "cuda backend unavailable: <reason>".
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s backend unavailable: %v", e.Kind, e.Err)
}

// Unwrap returns the reason.
func (e *UnavailableError) Unwrap() error { return e.Err }

// errNotBuilt is the reason given for a known kind nobody registered.
var errNotBuilt = errors.New("not built into this binary (no backend registered)")

// knownKinds are the device kinds accepted by ParseDevice even when not
// registered (so that --device cuda gives "unavailable", not "unknown").
var knownKinds = []string{"cpu", "cuda"}

// ParseDevice parses a device string: auto, cpu, cuda or cuda:N (any
// registered kind may take :N). It returns kind "auto" for auto.
func ParseDevice(s string) (kind string, ordinal int, err error) {
	if s == "auto" {
		return "auto", 0, nil
	}
	kind, num, hasNum := strings.Cut(s, ":")
	known := opener(kind) != nil
	for _, k := range knownKinds {
		known = known || k == kind
	}
	if !known || kind == "" {
		return "", 0, fmt.Errorf("unknown device %q (want auto, cpu, cuda or cuda:N)", s)
	}
	if hasNum {
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || num != strconv.Itoa(n) {
			return "", 0, fmt.Errorf("bad device ordinal in %q (want %s:N with N ≥ 0)", s, kind)
		}
		if kind == "cpu" && n != 0 {
			return "", 0, fmt.Errorf("bad device %q: there is one cpu device (cpu or cpu:0)", s)
		}
		ordinal = n
	}
	return kind, ordinal, nil
}

// Open opens a device (see ParseDevice). auto opens cuda:0 when a cuda
// backend is registered and opens, else the CPU. A device that cannot be
// opened gives an *UnavailableError ("cuda backend unavailable: <reason>").
func Open(device string) (Backend, error) {
	kind, ordinal, err := ParseDevice(device)
	if err != nil {
		return nil, err
	}
	if kind == "auto" {
		if b, err := openKind("cuda", 0); err == nil {
			return b, nil
		}
		return openKind("cpu", 0)
	}
	return openKind(kind, ordinal)
}

func openKind(kind string, ordinal int) (b Backend, err error) {
	open := opener(kind)
	if open == nil {
		return nil, &UnavailableError{Kind: kind, Err: errNotBuilt}
	}
	defer func() {
		// A backend that panics while probing the machine is unavailable,
		// not a crash of the CLI.
		if r := recover(); r != nil {
			b, err = nil, &UnavailableError{Kind: kind, Err: fmt.Errorf("panic while opening: %v", r)}
		}
	}()
	b, err = open(ordinal)
	if err != nil {
		var ue *UnavailableError
		if errors.As(err, &ue) {
			return nil, err
		}
		return nil, &UnavailableError{Kind: kind, Err: err}
	}
	return b, nil
}

// DeviceKinds returns the backend kinds `softmax info` reports on: cpu and
// cuda (registered or not), then any other registered kind.
func DeviceKinds() []string {
	kinds := append([]string(nil), knownKinds...)
	for _, k := range Kinds() {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}
