package bench

import (
	"testing"
)

// TestCUDAFlushedTiming times a case on the GPU with the L2 flush on and
// off: both give one positive sample a rep for the op and the copy, and
// the flush overwrites at least 256 MB and four L2s.
func TestCUDAFlushedTiming(t *testing.T) {
	b, err := Open("cuda")
	if err != nil {
		t.Skip("no CUDA backend: " + err.Error())
	}
	defer b.Close()
	cb := b.(*cudaBackend)
	cases, err := ParseSpecs("512x1000:f32")
	if err != nil {
		t.Fatal(err)
	}
	for _, flush := range []bool{true, false} {
		cb.SetFlushL2(flush)
		w, err := b.Prepare(cases[0], "auto")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := w.Time("auto", 1, 4)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := w.TimeCopy(1, 4)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if len(ts) != 4 || len(cs) != 4 || ts[0] <= 0 || cs[0] <= 0 {
			t.Errorf("flush %v: op samples %v, copy samples %v", flush, ts, cs)
		}
	}
	l2 := int64(cb.dev.Props().L2CacheSize)
	if cb.l2 == nil || cb.l2.Bytes() < 256<<20 || cb.l2.Bytes() < 4*l2 {
		t.Errorf("flush buffer %v for an L2 of %d bytes", cb.l2, l2)
	}
}
