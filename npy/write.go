package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/gofused/softmax/internal/safefile"
)

// Write writes a to w in .npy format: format version 1.0 (2.0 if the header
// needs it), little-endian, C order, with the same header bytes NumPy
// writes. It returns an error wrapping ErrInvalidArray, ErrBadShape or
// ErrUnsupportedDType, before writing anything, if the data slice does not
// match DType or its length differs from the product of Shape.
func Write(w io.Writer, a *Array) error {
	if _, err := a.validate(); err != nil {
		return err
	}
	if _, err := w.Write(formatHeader(a.DType, a.Shape)); err != nil {
		return fmt.Errorf("npy: writing header: %w", err)
	}
	var err error
	switch a.DType {
	case F32:
		err = writeData(w, a.F32, 4, encodeF32)
	case F64:
		err = writeData(w, a.F64, 8, encodeF64)
	case F16:
		err = writeData(w, a.F16, 2, encodeF16)
	case I32:
		err = writeData(w, a.I32, 4, func(dst []byte, src []int32) {
			for i, v := range src {
				binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
			}
		})
	case I64:
		err = writeData(w, a.I64, 8, func(dst []byte, src []int64) {
			for i, v := range src {
				binary.LittleEndian.PutUint64(dst[8*i:], uint64(v))
			}
		})
	}
	if err != nil {
		return fmt.Errorf("npy: writing data: %w", err)
	}
	return nil
}

// WriteFile writes a to the file at path, atomically where it can: the
// data goes to a temporary file in the same folder, which is synced and
// renamed over path, and removed on error, so path is never half-written.
// A symbolic link is followed (its target is written, the link stays); an
// existing file keeps its mode and owner (a new one gets 0666 less the
// umask); a device or FIFO, or a file with other hard links, is written in
// place (see internal/safefile).
func WriteFile(path string, a *Array) error {
	if _, err := a.validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var encErr error
	err := safefile.WriteFile(path, func(w io.Writer) error {
		encErr = Write(w, a)
		return encErr
	})
	if err != nil && err == encErr {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	return nil
}

// writeData encodes data in chunks and writes them to w.
func writeData[T any](w io.Writer, data []T, size int, enc func(dst []byte, src []T)) error {
	perChunk := chunkBytes / size
	buf := make([]byte, min(len(data), perChunk)*size)
	for len(data) > 0 {
		k := min(len(data), perChunk)
		enc(buf[:k*size], data[:k])
		if _, err := w.Write(buf[:k*size]); err != nil {
			return err
		}
		data = data[k:]
	}
	return nil
}

func encodeF32(dst []byte, src []float32) {
	dst = dst[:4*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

func encodeF64(dst []byte, src []float64) {
	dst = dst[:8*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint64(dst[8*i:], math.Float64bits(v))
	}
}

func encodeF16(dst []byte, src []uint16) {
	dst = dst[:2*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint16(dst[2*i:], v)
	}
}
