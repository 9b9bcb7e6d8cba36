package cuda

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/errs"
	"github.com/gofused/softmax/internal/memlimit"
	"github.com/gofused/softmax/internal/spec"
)

// Tensor is a contiguous (C order) tensor in device memory: Shape and DType
// over Buf starting at byte Offset.
type Tensor struct {
	Buf    *Buffer
	Offset int64
	Shape  []int
	DType  softmax.DType
}

// NewTensor allocates an uninitialised device tensor.
func (d *Device) NewTensor(dt softmax.DType, shape ...int) (Tensor, error) {
	return d.newTensorAt(dt, 0, shape)
}

// newTensorAt allocates a buffer offset bytes longer than the tensor, the
// tensor starting offset bytes into it.
func (d *Device) newTensorAt(dt softmax.DType, offset int64, shape []int) (Tensor, error) {
	if err := checkDType(dt); err != nil {
		return Tensor{}, err
	}
	if offset < 0 || offset%int64(dt.Size()) != 0 {
		return Tensor{}, fmt.Errorf("cuda: tensor offset %d bytes is not a non-negative multiple of the %v element size (%d)", offset, dt, dt.Size())
	}
	n, err := spec.NumElements(shape)
	if err != nil {
		return Tensor{}, fmt.Errorf("cuda: %w", err)
	}
	// Device memory is the driver's to refuse; only the arithmetic is checked.
	size, err := memlimit.Size("cuda: tensor", shape, n, dt.Size())
	if err != nil || size > math.MaxInt64-uint64(offset) {
		return Tensor{}, errs.Kind(errs.ErrBadShape, "cuda: tensor of shape %v and %v: byte size overflows", shape, dt)
	}
	b, err := d.Alloc(offset + int64(size))
	if err != nil {
		return Tensor{}, err
	}
	return Tensor{Buf: b, Offset: offset, Shape: append([]int(nil), shape...), DType: dt}, nil
}

// Upload allocates a device tensor holding a copy of h.
func (d *Device) Upload(h softmax.Tensor) (Tensor, error) { return d.UploadAt(h, 0) }

// UploadAt is Upload into a buffer offset bytes longer, the tensor
// starting offset bytes into it: an offset that is not a multiple of 16
// gives the misaligned pointer of a view into a larger tensor (for tests
// and benchmarks of such inputs). offset must be a multiple of the element
// size.
func (d *Device) UploadAt(h softmax.Tensor, offset int64) (Tensor, error) {
	t, err := d.newTensorAt(h.DType, offset, h.Shape)
	if err != nil {
		return t, err
	}
	if err := t.CopyFrom(h); err != nil {
		t.Buf.Free()
		return Tensor{}, err
	}
	return t, nil
}

// Len returns the element count.
func (t Tensor) Len() int {
	n, _ := spec.NumElements(t.Shape)
	return n
}

// Bytes returns the tensor's size in bytes.
func (t Tensor) Bytes() int64 { return int64(t.Len()) * int64(t.DType.Size()) }

// Ptr returns the device address of the first element.
func (t Tensor) Ptr() uintptr { return t.Buf.Ptr() + uintptr(t.Offset) }

// Free frees the underlying buffer.
func (t Tensor) Free() error { return t.Buf.Free() }

// hostBytes views a host tensor's data as bytes, checking it matches t.
func (t Tensor) hostBytes(h softmax.Tensor) ([]byte, error) {
	if h.DType != t.DType {
		return nil, fmt.Errorf("cuda: dtype mismatch: host %v, device %v", h.DType, t.DType)
	}
	if h.Len() != t.Len() {
		return nil, fmt.Errorf("cuda: length mismatch: host %d elements, device %d", h.Len(), t.Len())
	}
	switch h.DType {
	case softmax.Float32:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h.F32))), 4*len(h.F32)), nil
	case softmax.Float64:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h.F64))), 8*len(h.F64)), nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(h.U16))), 2*len(h.U16)), nil
}

// CopyFrom copies a host tensor of the same dtype and length into t.
func (t Tensor) CopyFrom(h softmax.Tensor) error {
	b, err := t.hostBytes(h)
	if err != nil {
		return err
	}
	return t.Buf.Write(t.Offset, b)
}

// CopyTo copies t into a host tensor of the same dtype and length, after
// the default stream's work (use Device.Wait first for other streams).
func (t Tensor) CopyTo(h softmax.Tensor) error {
	b, err := t.hostBytes(h)
	if err != nil {
		return err
	}
	return t.Buf.Read(t.Offset, b)
}
