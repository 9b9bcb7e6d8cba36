package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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

// WriteFile writes a to the file at path, atomically: the data goes to a
// temporary file in the same directory, which is synced and then renamed
// over path. On error, path is neither created nor modified and the
// temporary file is removed. The file gets permissions 0644. If path is a
// symbolic link, the link itself is replaced, not the file it points to.
func WriteFile(path string, a *Array) (err error) {
	if _, err := a.validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // may already be closed; the error is irrelevant then
			os.Remove(tmp)
		}
	}()
	if err := Write(f, a); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("npy: writing %s: %w", path, err)
	}
	// Make the rename durable. Not every platform can sync a directory, so
	// this is best effort: the file itself is complete either way.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
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
