package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gofused/softmax/internal/driver"
)

// Buffer is a range of device memory: allocated by Alloc (and freed by
// Free) or wrapped with WrapPointer (owned by someone else).
type Buffer struct {
	dev   *Device
	ptr   driver.DevicePtr
	size  int64
	owned bool

	mu    sync.Mutex
	freed bool
}

// Alloc allocates bytes of device memory (cuMemAlloc).
func (d *Device) Alloc(bytes int64) (*Buffer, error) {
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: Alloc of %d bytes", bytes)
	}
	b := &Buffer{dev: d, size: bytes, owned: true}
	if bytes == 0 {
		return b, nil
	}
	p, err := d.ctx.MemAlloc(uint64(bytes))
	if err != nil {
		return nil, fmt.Errorf("cuda: allocating %d bytes on %s: %w", bytes, d, err)
	}
	b.ptr = p
	return b, nil
}

// WrapPointer wraps device memory that another library allocated (e.g. a
// framework's tensor storage) without taking ownership: Free is a no-op.
// The pointer must belong to this device.
func (d *Device) WrapPointer(ptr uintptr, bytes int64) (*Buffer, error) {
	if ptr == 0 && bytes > 0 {
		return nil, fmt.Errorf("cuda: WrapPointer: nil device pointer")
	}
	if bytes < 0 {
		return nil, fmt.Errorf("cuda: WrapPointer: negative size %d", bytes)
	}
	if ptr != 0 {
		var ord int
		err := d.ctx.Do(func() error {
			var e error
			ord, e = d.api.PointerDeviceOrdinal(driver.DevicePtr(ptr))
			return e
		})
		if err != nil {
			return nil, fmt.Errorf("cuda: WrapPointer %#x: not device memory: %w", ptr, err)
		}
		if ord != d.Ordinal() {
			return nil, fmt.Errorf("cuda: WrapPointer %#x: memory of device %d, not %d", ptr, ord, d.Ordinal())
		}
	}
	return &Buffer{dev: d, ptr: driver.DevicePtr(ptr), size: bytes}, nil
}

// Ptr returns the device address.
func (b *Buffer) Ptr() uintptr { return uintptr(b.ptr) }

// Size returns the size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Free releases memory that Alloc allocated; wrapped memory is left alone.
// Freeing twice is an error.
func (b *Buffer) Free() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return fmt.Errorf("cuda: buffer %#x freed twice", b.ptr)
	}
	b.freed = true
	if !b.owned || b.ptr == 0 {
		return nil
	}
	return b.dev.ctx.MemFree(b.ptr)
}

func (b *Buffer) live() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.freed {
		return fmt.Errorf("cuda: use of freed buffer %#x", b.ptr)
	}
	return nil
}

func (b *Buffer) span(off, n int64) error {
	if err := b.live(); err != nil {
		return err
	}
	if off < 0 || n < 0 || off+n > b.size {
		return fmt.Errorf("cuda: range [%d, %d) outside buffer of %d bytes", off, off+n, b.size)
	}
	return nil
}

// Write copies host bytes to the buffer at byte offset off (synchronous).
func (b *Buffer) Write(off int64, src []byte) error {
	if err := b.span(off, int64(len(src))); err != nil || len(src) == 0 {
		return err
	}
	return b.dev.ctx.MemcpyHtoD(b.ptr+driver.DevicePtr(off), unsafe.Pointer(&src[0]), uint64(len(src)))
}

// Read copies buffer bytes at byte offset off into dst (synchronous: it
// waits for work on the default stream, and for streams that sync with it).
func (b *Buffer) Read(off int64, dst []byte) error {
	if err := b.span(off, int64(len(dst))); err != nil || len(dst) == 0 {
		return err
	}
	return b.dev.ctx.MemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr+driver.DevicePtr(off), uint64(len(dst)))
}

// CopyAsync copies n bytes device to device on stream s.
func CopyAsync(dst *Buffer, dstOff int64, src *Buffer, srcOff int64, n int64, s *Stream) error {
	if err := dst.span(dstOff, n); err != nil {
		return err
	}
	if err := src.span(srcOff, n); err != nil {
		return err
	}
	d := dst.dev
	return d.ctx.Do(func() error {
		return d.api.MemcpyDtoDAsync(dst.ptr+driver.DevicePtr(dstOff), src.ptr+driver.DevicePtr(srcOff), uint64(n), s.handle())
	})
}

// Fill sets n 32-bit words at byte offset off to the bit pattern v (e.g.
// NaN, to poison outputs in tests), asynchronously on stream s.
func (b *Buffer) Fill(off int64, v uint32, words int64, s *Stream) error {
	if off%4 != 0 {
		return fmt.Errorf("cuda: Fill offset %d not 4-byte aligned", off)
	}
	if err := b.span(off, 4*words); err != nil {
		return err
	}
	return b.dev.ctx.Do(func() error {
		return b.dev.api.MemsetD32Async(b.ptr+driver.DevicePtr(off), v, uint64(words), s.handle())
	})
}
