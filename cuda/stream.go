package cuda

import (
	"fmt"
	"time"

	"github.com/gofused/softmax/internal/driver"
)

// Stream is a CUDA stream. A nil *Stream means the default stream.
type Stream struct {
	dev   *Device
	h     driver.Stream
	owned bool
}

// NewStream creates a non-blocking stream.
func (d *Device) NewStream() (*Stream, error) {
	const nonBlocking = 1 // CU_STREAM_NON_BLOCKING
	h, err := d.ctx.NewStream(nonBlocking)
	if err != nil {
		return nil, err
	}
	return &Stream{dev: d, h: h, owned: true}, nil
}

// WrapStream wraps a raw CUstream created by another library (e.g.
// torch.cuda.current_stream().cuda_stream). Destroy leaves it alone.
func (d *Device) WrapStream(raw uintptr) *Stream {
	return &Stream{dev: d, h: driver.Stream(raw)}
}

func (s *Stream) handle() driver.Stream {
	if s == nil {
		return 0
	}
	return s.h
}

// Raw returns the CUstream handle (0 for the default stream).
func (s *Stream) Raw() uintptr { return uintptr(s.handle()) }

// Wait blocks until the work queued on stream s (nil: the default stream) is done.
func (d *Device) Wait(s *Stream) error { return d.ctx.SynchronizeStream(s.handle()) }

// Destroy destroys a stream NewStream created after its work is done.
func (s *Stream) Destroy() error {
	if s == nil || !s.owned {
		return nil
	}
	s.dev.dropWorkspace(s.h)
	return s.dev.ctx.DestroyStream(s.h)
}

// Event is a CUDA event, for timing and ordering.
type Event struct {
	dev *Device
	h   driver.Event
}

// NewEvent creates a timing event.
func (d *Device) NewEvent() (*Event, error) {
	h, err := d.ctx.NewEvent(0)
	if err != nil {
		return nil, err
	}
	return &Event{dev: d, h: h}, nil
}

// Record records the event on stream s.
func (e *Event) Record(s *Stream) error {
	return e.dev.ctx.Do(func() error { return e.dev.api.EventRecord(e.h, s.handle()) })
}

// Synchronize waits for the event.
func (e *Event) Synchronize() error {
	return e.dev.ctx.Do(func() error { return e.dev.api.EventSynchronize(e.h) })
}

// Since returns the time between start and e, both recorded and complete.
func (e *Event) Since(start *Event) (time.Duration, error) {
	var ms float32
	err := e.dev.ctx.Do(func() error {
		var err error
		ms, err = e.dev.api.EventElapsedTime(start.h, e.h)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cuda: event timing: %w", err)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Destroy releases the event.
func (e *Event) Destroy() error { return e.dev.ctx.DestroyEvent(e.h) }
