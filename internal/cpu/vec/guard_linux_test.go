//go:build linux

package vec

import (
	"sync"
	"syscall"
	"testing"
	"unsafe"
)

// guardPool keeps mapped regions for reuse, by size: tests allocate
// guarded slices by the hundred thousand.
var guardPool = struct {
	sync.Mutex
	free map[int][][]byte
}{free: map[int][][]byte{}}

// guardedBytes returns n bytes that end right before an inaccessible page
// and start right after one (when n is a multiple of the page size; else
// only the end is guarded): any access past either end faults. The region
// is reused after the test ends.
func guardedBytes(t testing.TB, n int) []byte {
	t.Helper()
	ps := syscall.Getpagesize()
	body := (n + ps - 1) / ps * ps
	guardPool.Lock()
	var mem []byte
	if l := guardPool.free[body]; len(l) > 0 {
		mem, guardPool.free[body] = l[len(l)-1], l[:len(l)-1]
	}
	guardPool.Unlock()
	if mem == nil {
		var err error
		mem, err = syscall.Mmap(-1, 0, body+2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Skipf("mmap: %v", err)
		}
		if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mprotect(mem[ps+body:], syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		guardPool.Lock()
		guardPool.free[body] = append(guardPool.free[body], mem)
		guardPool.Unlock()
	})
	end := ps + body
	clear(mem[ps:end])
	return mem[end-n : end : end]
}

const haveGuardPages = true

// guardedF32 returns a float32 slice of length and capacity n whose end
// touches an inaccessible page.
func guardedF32(t testing.TB, n int) []float32 {
	b := guardedBytes(t, 4*n)
	if n == 0 {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

// guardedU16 is guardedF32 for uint16.
func guardedU16(t testing.TB, n int) []uint16 {
	b := guardedBytes(t, 2*n)
	if n == 0 {
		return []uint16{}
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), n)
}
