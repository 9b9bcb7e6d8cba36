// Package driver binds the CUDA driver API (libcuda) and NVRTC (libnvrtc)
// without cgo.
//
// Both libraries are opened at run time (purego's Dlopen on Linux,
// LoadLibraryEx on Windows: dl_linux.go, dl_windows.go); no CUDA header or
// toolkit is needed to build, and binaries build with CGO_ENABLED=0. The
// GPU backend is built for linux/amd64, linux/arm64, windows/amd64 and
// windows/arm64; on every other platform (dl_none.go) opening either
// library reports a *NotFoundError naming the platform, so everything else
// builds and runs on the CPU. The package has two layers, in the manner of
// Rust's cudarc sys/result split:
//
//   - a "sys" layer: the raw function pointers of the loaded libraries,
//     resolved once when the library is opened (a symbol the installed
//     driver lacks is left unresolved and reported as an error by the
//     wrapper that needs it, never as a crash at load time);
//   - a "result" layer: typed Go wrappers that return (value, error) and
//     turn every CUresult / nvrtcResult other than success into an *Error
//     or *NVRTCError carrying the CUDA name and description of the code.
//
// # Entry points
//
// [Open] loads libcuda and calls cuInit once per process; the result (or the
// first error, typically a [*NotFoundError] on machines without a GPU) is
// cached and returned to every caller. [OpenNVRTC] does the same for NVRTC,
// and [Compile] compiles CUDA C++ to a CUBIN with it.
//
// # Threads and contexts
//
// The CUDA driver keeps the "current context" per OS thread, while Go moves
// goroutines between threads. Every API method that needs a context (memory,
// modules, launches, streams, events) must therefore run on a thread where
// the right context is current. [Context.Do] does that: it locks the
// goroutine to its thread, makes the context current, runs the callback and
// unlocks. The convenience methods on [Context] wrap single calls in Do. Any
// goroutine may use the package; the API value itself is immutable after
// Open and safe for concurrent use.
//
// # Signal handlers
//
// The CUDA 13 libraries re-install some signal handlers (SIGINT, SIGTERM,
// SIGXFSZ) without SA_ONSTACK, which makes the Go runtime abort when such a
// signal arrives on a Go thread. After each call that may load CUDA code
// (opening the libraries, creating a context, compiling, loading a module
// or function) the package puts the flags back (signals_linux.go).
//
// # Go memory handed to the driver
//
// Host pointers passed to the driver (copy sources and destinations, kernel
// parameter arrays, launch configurations, NVRTC strings) are Go memory. The
// calls go through callC (purego.SyscallN or syscall.SyscallN), which
// escapes such objects to the heap and keeps them alive for the duration of
// the call; objects that contain Go
// pointers seen by C (the kernelParams void** array, CUlaunchConfig.attrs,
// NVRTC's char** arrays) are additionally pinned with runtime.Pinner, as the
// cgo pointer-passing rules require. See [API.Launch] for the details.
package driver
