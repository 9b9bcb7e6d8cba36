//go:build linux && !android && (amd64 || arm64)

package driver

import (
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

// signalsOffStack lists the signals whose handler would run off the
// alternate signal stack: installed (not default or ignored) without
// SA_ONSTACK.
func signalsOffStack() []int {
	var off []int
	for sig := 1; sig <= numSigs; sig++ {
		if a, ok := readAction(sig); ok && a.handler != sigDfl && a.handler != sigIgn && a.flags&saOnStack == 0 {
			off = append(off, sig)
		}
	}
	return off
}

func TestMendAction(t *testing.T) {
	const goFlags = 0x1c000004 // SA_ONSTACK|SA_RESTART|SA_RESTORER|SA_SIGINFO
	goH := kernelSigaction{handler: 0x489100, flags: goFlags, restorer: 0x401000, mask: 0}
	stripped := goH
	stripped.flags = 0x14000000
	stripped.mask = 0x4000
	other := kernelSigaction{handler: 0x7f0000001000, flags: 0x04000004, restorer: 0x7f0000002000}
	cases := []struct {
		name        string
		start, now  kernelSigaction
		want        kernelSigaction
		wantChanged bool
	}{
		{"same handler lost its flags: start-up action back", goH, stripped, goH, true},
		{"untouched Go handler", goH, goH, goH, false},
		{"default", goH, kernelSigaction{}, kernelSigaction{}, false},
		{"ignored", goH, kernelSigaction{handler: sigIgn}, kernelSigaction{handler: sigIgn}, false},
		{"another handler without SA_ONSTACK gains it", goH, other,
			kernelSigaction{handler: other.handler, flags: other.flags | saOnStack, restorer: other.restorer}, true},
		{"another handler with SA_ONSTACK", goH, kernelSigaction{handler: 0x5000, flags: saOnStack}, kernelSigaction{handler: 0x5000, flags: saOnStack}, false},
		{"handler that never had SA_ONSTACK gains it", kernelSigaction{handler: 0x5000}, kernelSigaction{handler: 0x5000},
			kernelSigaction{handler: 0x5000, flags: saOnStack}, true},
	}
	for _, c := range cases {
		got, changed := mendAction(c.start, c.now)
		if got != c.want || changed != c.wantChanged {
			t.Errorf("%s: mendAction = %+v, %v; want %+v, %v", c.name, got, changed, c.want, c.wantChanged)
		}
	}
}

// TestKeepSignalStacksMends does to SIGUSR2 what the CUDA libraries do to
// SIGTERM (same handler, SA_ONSTACK and SA_SIGINFO gone) and checks that
// keepSignalStacks puts the start-up action back. Nothing sends SIGUSR2
// while it is broken.
func TestKeepSignalStacksMends(t *testing.T) {
	sig := int(syscall.SIGUSR2)
	start := startActions()[sig]
	if start.handler == sigDfl || start.handler == sigIgn || start.flags&saOnStack == 0 {
		t.Skipf("SIGUSR2 has no Go handler here (%+v)", start)
	}
	if got := keepSignalStacks(); len(got) != 0 {
		t.Fatalf("keepSignalStacks changed %v before anything was broken", got)
	}
	broken := start
	broken.flags &^= saOnStack | 0x4 // SA_SIGINFO
	if !writeAction(sig, broken) {
		t.Fatal("rt_sigaction(SIGUSR2) failed")
	}
	if off := signalsOffStack(); !slices.Contains(off, sig) {
		t.Fatalf("after breaking SIGUSR2, signalsOffStack = %v", off)
	}
	mended := keepSignalStacks()
	now, _ := readAction(sig)
	if !slices.Equal(mended, []int{sig}) || now != start {
		writeAction(sig, start)
		t.Fatalf("keepSignalStacks = %v, SIGUSR2 action %+v; want [%d] and %+v", mended, now, sig, start)
	}
	if off := signalsOffStack(); len(off) != 0 {
		t.Errorf("signals off the alternate stack after mending: %v", off)
	}
}

// TestSignalStacksAfterCUDA checks every handler keeps SA_ONSTACK through
// each step that loads CUDA code: without keepSignalStacks, SIGINT, SIGTERM
// and SIGXFSZ lose it and a SIGTERM on a Go thread crashes the process.
func TestSignalStacksAfterCUDA(t *testing.T) {
	check := func(step string) {
		t.Helper()
		if off := signalsOffStack(); len(off) != 0 {
			t.Errorf("after %s, handlers without SA_ONSTACK: signals %v", step, off)
		}
	}
	check("start")
	_, ctx := gpuOrSkip(t)
	check("Open and PrimaryContext")
	m := loadForDevice(t, ctx, gpuKernels)
	check("NVRTC compile and module load")
	f, err := ctx.Function(m, "axpb")
	if err != nil {
		t.Fatal(err)
	}
	check("Function")
	x, err := ctx.MemAlloc(4 * 256)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.MemFree(x)
	a, b, n := float32(2), float32(1), int32(256)
	if err := ctx.Launch(f, [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}, 0, 0,
		unsafe.Pointer(&x), unsafe.Pointer(&x), unsafe.Pointer(&a), unsafe.Pointer(&b), unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Synchronize(); err != nil {
		t.Fatal(err)
	}
	check("launch and synchronize")
}
