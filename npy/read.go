package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/gofused/softmax/internal/memlimit"
)

// chunkBytes is the size of the buffer used to move array data between
// the byte stream and the typed slices.
const chunkBytes = 1 << 20

// Read reads one .npy array from r.
//
// Read consumes exactly the bytes of one array and does no read-ahead, so
// several arrays saved back to back into one stream can be read in turn.
// The result is always in C order with native values, whatever the byte
// order and memory order recorded in the file. The data is read in chunks
// of at most 1 MiB; a header claiming more bytes than the process may have
// is an ErrTooLarge, and data that ends early an ErrTruncated, before the
// claimed size is allocated when the input's length is not known.
func Read(r io.Reader) (*Array, error) {
	// Readers that know exactly how much is left let read allocate the
	// result at once. Other Len methods are not trusted: the hint must
	// never exceed the real input, or a corrupt header could make read
	// allocate far more memory than the input justifies.
	remaining := int64(-1)
	switch r := r.(type) {
	case *bytes.Reader:
		remaining = int64(r.Len())
	case *bytes.Buffer:
		remaining = int64(r.Len())
	case *strings.Reader:
		remaining = int64(r.Len())
	}
	return read(r, remaining)
}

// ReadFile reads the .npy file at path. See [Read].
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	remaining := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		remaining = fi.Size()
	}
	a, err := read(f, remaining)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// read implements Read. remaining is the number of bytes left in r, or -1
// if unknown; it is only used as a hint for preallocation.
func read(r io.Reader, remaining int64) (*Array, error) {
	var pre [prefixLen]byte
	n, err := io.ReadFull(r, pre[:])
	if m := min(n, len(magic)); string(pre[:m]) != magic[:m] {
		return nil, fmt.Errorf("%w: file starts with %q", ErrBadMagic, pre[:m])
	}
	if err != nil {
		return nil, eofErr(err, "prefix", n, prefixLen)
	}
	major, minor := pre[len(magic)], pre[len(magic)+1]
	var lenSize int
	switch {
	case minor != 0:
	case major == 1:
		lenSize = 2
	case major == 2 || major == 3:
		lenSize = 4
	}
	if lenSize == 0 {
		return nil, fmt.Errorf("%w: %d.%d (supported: 1.0, 2.0, 3.0)", ErrUnsupportedVersion, major, minor)
	}

	var lb [4]byte
	if n, err := io.ReadFull(r, lb[:lenSize]); err != nil {
		return nil, eofErr(err, "header length", n, lenSize)
	}
	var hlen uint32
	if lenSize == 2 {
		hlen = uint32(binary.LittleEndian.Uint16(lb[:2]))
	} else {
		hlen = binary.LittleEndian.Uint32(lb[:4])
	}
	if hlen > maxHeaderLen {
		return nil, fmt.Errorf("%w: header length %d exceeds limit of %d bytes", ErrMalformedHeader, hlen, maxHeaderLen)
	}
	hbuf := make([]byte, hlen)
	if n, err := io.ReadFull(r, hbuf); err != nil {
		return nil, eofErr(err, "header", n, int(hlen))
	}
	h, err := parseHeader(string(hbuf))
	if err != nil {
		return nil, err
	}

	count, err := numElements(h.shape)
	if err != nil {
		return nil, err
	}
	size := h.dtype.Size()
	nbytes, err := byteSize(count, size, h.shape)
	if err != nil {
		return nil, err
	}
	// A length known up front (a file) that is too short is truncated
	// before anything is allocated; then the array, twice its bytes when
	// Fortran order is reordered into a copy, must fit in memory.
	prealloc := false
	if remaining >= 0 {
		left := remaining - int64(prefixLen+lenSize) - int64(hlen)
		if left < int64(nbytes) {
			return nil, fmt.Errorf("%w: data has %d of %d bytes", ErrTruncated, max(left, 0), nbytes)
		}
		prealloc = true
	}
	need := uint64(nbytes)
	if h.fortran && len(h.shape) > 1 {
		need *= 2
	}
	if err := memlimit.CheckBytes("npy: array", h.shape, need); err != nil {
		return nil, err
	}

	a := &Array{Shape: h.shape, DType: h.dtype}
	switch h.dtype {
	case F32:
		dec := decodeF32LE
		if h.bigEndian {
			dec = decodeF32BE
		}
		a.F32, err = readData(r, count, size, prealloc, dec)
		if err == nil && h.fortran {
			a.F32 = fortranToC(a.F32, h.shape)
		}
	case F64:
		dec := decodeF64LE
		if h.bigEndian {
			dec = decodeF64BE
		}
		a.F64, err = readData(r, count, size, prealloc, dec)
		if err == nil && h.fortran {
			a.F64 = fortranToC(a.F64, h.shape)
		}
	case F16:
		dec := decodeF16LE
		if h.bigEndian {
			dec = decodeF16BE
		}
		a.F16, err = readData(r, count, size, prealloc, dec)
		if err == nil && h.fortran {
			a.F16 = fortranToC(a.F16, h.shape)
		}
	case I32:
		dec := decodeI32LE
		if h.bigEndian {
			dec = decodeI32BE
		}
		a.I32, err = readData(r, count, size, prealloc, dec)
		if err == nil && h.fortran {
			a.I32 = fortranToC(a.I32, h.shape)
		}
	case I64:
		dec := decodeI64LE
		if h.bigEndian {
			dec = decodeI64BE
		}
		a.I64, err = readData(r, count, size, prealloc, dec)
		if err == nil && h.fortran {
			a.I64 = fortranToC(a.I64, h.shape)
		}
	}
	if err != nil {
		return nil, err
	}
	return a, nil
}

// eofErr turns an io.ReadFull error into ErrTruncated, or wraps other I/O
// errors as they are.
func eofErr(err error, what string, got, want int) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %s has %d of %d bytes", ErrTruncated, what, got, want)
	}
	return fmt.Errorf("npy: reading %s: %w", what, err)
}

// readData reads n elements of size bytes each and decodes them with dec.
// If prealloc is false the input may be shorter than claimed, so the
// result grows as data arrives instead of trusting n up front.
func readData[T any](r io.Reader, n, size int, prealloc bool, dec func(dst []T, src []byte)) ([]T, error) {
	total := n * size // overflow already checked by the caller
	buf := make([]byte, min(total, chunkBytes))
	perChunk := len(buf) / size
	var dst []T
	if prealloc {
		dst = make([]T, n)
	} else {
		dst = make([]T, min(n, perChunk))
	}
	for filled := 0; filled < n; {
		k := min(n-filled, perChunk)
		got, err := io.ReadFull(r, buf[:k*size])
		if err != nil {
			return nil, eofErr(err, "data", filled*size+got, total)
		}
		if filled+k > len(dst) {
			grown := make([]T, min(n, max(2*len(dst), filled+k)))
			copy(grown, dst[:filled])
			dst = grown
		}
		dec(dst[filled:filled+k], buf[:k*size])
		filled += k
	}
	return dst, nil
}

func decodeF32LE(dst []float32, src []byte) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func decodeF32BE(dst []float32, src []byte) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.BigEndian.Uint32(src[4*i:]))
	}
}

func decodeF64LE(dst []float64, src []byte) {
	src = src[:8*len(dst)]
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
	}
}

func decodeF64BE(dst []float64, src []byte) {
	src = src[:8*len(dst)]
	for i := range dst {
		dst[i] = math.Float64frombits(binary.BigEndian.Uint64(src[8*i:]))
	}
}

func decodeF16LE(dst []uint16, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint16(src[2*i:])
	}
}

func decodeF16BE(dst []uint16, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = binary.BigEndian.Uint16(src[2*i:])
	}
}

// fortranToC reorders src, the elements of an array of the given shape in
// Fortran (column-major) order, into C (row-major) order.
func fortranToC[T any](src []T, shape []int) []T {
	nd := len(shape)
	if nd < 2 || len(src) == 0 {
		return src
	}
	// C-order strides, in elements.
	stride := make([]int, nd)
	s := 1
	for i := nd - 1; i >= 0; i-- {
		stride[i] = s
		s *= shape[i]
	}
	dst := make([]T, len(src))
	idx := make([]int, nd)
	off := 0 // C-order offset of idx
	for _, v := range src {
		dst[off] = v
		// Advance idx in Fortran order: first index fastest.
		for d := range nd {
			idx[d]++
			off += stride[d]
			if idx[d] < shape[d] {
				break
			}
			off -= stride[d] * shape[d]
			idx[d] = 0
		}
	}
	return dst
}

func decodeI32LE(dst []int32, src []byte) {
	for i := range dst {
		dst[i] = int32(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func decodeI32BE(dst []int32, src []byte) {
	for i := range dst {
		dst[i] = int32(binary.BigEndian.Uint32(src[4*i:]))
	}
}

func decodeI64LE(dst []int64, src []byte) {
	for i := range dst {
		dst[i] = int64(binary.LittleEndian.Uint64(src[8*i:]))
	}
}

func decodeI64BE(dst []int64, src []byte) {
	for i := range dst {
		dst[i] = int64(binary.BigEndian.Uint64(src[8*i:]))
	}
}
