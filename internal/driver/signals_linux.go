//go:build linux && !android && (amd64 || arm64)

package driver

import (
	"sync"
	"syscall"
	"unsafe"
)

// Go runs its signal handlers on a per-thread alternate signal stack and
// throws "non-Go code set up signal handler without SA_ONSTACK flag" when
// one runs anywhere else. The CUDA 13 stack re-installs the handlers of
// SIGINT, SIGTERM and SIGXFSZ with the same function but without SA_ONSTACK
// and SA_SIGINFO (H200, driver 580.159.04, NVRTC 13: Go's flags 0x1c000004
// became 0x14000000 during the first NVRTC compile and module load). A
// process using the GPU then died with "signal 15 received but handler not
// on signal stack" when SIGTERM or Ctrl-C landed on a Go thread (a probe
// sending the signals to each of its 17 threads died on the first).
// keepSignalStacks mends that after every call that may load CUDA code, as
// the Go runtime itself adds SA_ONSTACK to libc's handlers at start-up.

// kernelSigaction is the kernel's struct sigaction on amd64 and arm64
// (rt_sigaction, with an 8-byte signal mask).
type kernelSigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

const (
	saOnStack = 0x08000000
	sigDfl    = 0 // SIG_DFL
	sigIgn    = 1 // SIG_IGN
	numSigs   = 64
	sigKill   = 9
	sigStop   = 19
)

// startActions returns every signal's action as the Go runtime left it:
// read once, before this package loads its first library (dlopenFirst
// calls saveSignalActions), rather than at start-up in every program that
// links the package.
var startActions = sync.OnceValue(readActions)

// saveSignalActions takes the start-up snapshot if it is not taken yet.
func saveSignalActions() { startActions() }

func readAction(sig int) (a kernelSigaction, ok bool) {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), 0,
		uintptr(unsafe.Pointer(&a)), unsafe.Sizeof(a.mask), 0, 0)
	return a, errno == 0
}

func writeAction(sig int, a kernelSigaction) bool {
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig),
		uintptr(unsafe.Pointer(&a)), 0, unsafe.Sizeof(a.mask), 0, 0)
	return errno == 0
}

func readActions() (as [numSigs + 1]kernelSigaction) {
	for sig := 1; sig <= numSigs; sig++ {
		as[sig], _ = readAction(sig)
	}
	return as
}

// mendAction says what a signal's action should be put back to: start is
// the action at start-up, now the current one. A handler that lost
// SA_ONSTACK while keeping its function gets its start-up action back
// whole (the flags lost with it, SA_SIGINFO among them, matter to Go's
// handler); another function installed without SA_ONSTACK keeps everything
// but gains the flag, so that it runs on the alternate stack and can chain
// to Go's. Default and ignored actions, and handlers with SA_ONSTACK, stay.
func mendAction(start, now kernelSigaction) (kernelSigaction, bool) {
	if now.handler == sigDfl || now.handler == sigIgn || now.flags&saOnStack != 0 {
		return now, false
	}
	if now.handler == start.handler && start.flags&saOnStack != 0 {
		return start, true
	}
	now.flags |= saOnStack
	return now, true
}

// keepSignalStacks restores SA_ONSTACK on every signal handler that lacks
// it (see mendAction) and returns the signals it changed. It reads the 64
// actions (64 system calls), so it runs after one-off calls only: opening
// the libraries, creating contexts, compiling, loading modules and
// functions.
func keepSignalStacks() []int {
	var mended []int
	start := startActions()
	for sig := 1; sig <= numSigs; sig++ {
		if sig == sigKill || sig == sigStop {
			continue
		}
		now, ok := readAction(sig)
		if !ok {
			continue
		}
		if a, change := mendAction(start[sig], now); change && writeAction(sig, a) {
			mended = append(mended, sig)
		}
	}
	return mended
}
