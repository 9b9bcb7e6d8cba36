package cpu

import (
	"unsafe"

	"github.com/gofused/softmax/internal/cpu/vec"
	"github.com/gofused/softmax/internal/spec"
)

// Buf is a typed view of a tensor's storage: F32 for float32, U16 for the
// raw bits of float16 or bfloat16, F64 for float64 (whose passes are in
// engine64.go and never convert).
type Buf struct {
	DType spec.DType
	F32   []float32
	U16   []uint16
	F64   []float64

	// nt: commit writes 16-bit outputs with non-temporal stores (set by
	// run for large outputs written in contiguous chunks; the caller
	// fences).
	nt bool
}

// load returns elements [off, off+n) as float32: the storage itself for
// float32, else a conversion into tmp.
func (b Buf) load(tmp []float32, off, n int) []float32 {
	switch b.DType {
	case spec.Float16:
		vec.F16ToF32(tmp[:n], b.U16[off:off+n])
		return tmp[:n]
	case spec.BFloat16:
		vec.BF16ToF32(tmp[:n], b.U16[off:off+n])
		return tmp[:n]
	}
	return b.F32[off : off+n]
}

// out returns where elements [off, off+n) should be computed: the storage
// itself for float32, else tmp, to be stored back with commit.
func (b Buf) out(tmp []float32, off, n int) []float32 {
	if b.DType == spec.Float32 {
		return b.F32[off : off+n]
	}
	return tmp[:n]
}

// commit stores a chunk computed in the slice that out returned.
func (b Buf) commit(v []float32, off int) {
	switch {
	case b.DType == spec.Float16 && b.nt:
		vec.F32ToF16Stream(b.U16[off:off+len(v)], v)
	case b.DType == spec.Float16:
		vec.F32ToF16(b.U16[off:off+len(v)], v)
	case b.DType == spec.BFloat16 && b.nt:
		vec.F32ToBF16Stream(b.U16[off:off+len(v)], v)
	case b.DType == spec.BFloat16:
		vec.F32ToBF16(b.U16[off:off+len(v)], v)
	}
}

// ahead returns the memory of elements [off, off+n) as a float32 slice
// for the prefetching kernels (vec.ExpSumAhead), which only take its
// addresses: 16-bit storage is viewed as the whole 4-byte words from the
// boundary at or below its start up to its end (nil when there are none).
// The view never reaches past element off+n-1: (n+1)/2 words from an
// aligned start with n odd did, one element past the array's end when the
// range ended there, which checkptr and -race builds reject.
func (b Buf) ahead(off, n int) []float32 {
	if n <= 0 {
		return nil
	}
	if b.DType == spec.Float32 {
		return b.F32[off : off+n]
	}
	start := uintptr(unsafe.Pointer(&b.U16[off]))
	end := uintptr(unsafe.Pointer(&b.U16[off+n-1])) + 2
	words := int((end - start&^3) / 4)
	if words == 0 {
		return nil
	}
	// Rounding down stays inside the allocation: Go aligns its start.
	return unsafe.Slice((*float32)(unsafe.Pointer(uintptr(unsafe.Pointer(&b.U16[off]))&^3)), words)
}
