package npy

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// Integer arrays (class ids) read in both byte orders and round-trip.
func TestIntegerArrays(t *testing.T) {
	var be []byte
	for _, v := range []int64{3, -100, 1 << 40} {
		be = binary.BigEndian.AppendUint64(be, uint64(v))
	}
	a, err := Read(bytes.NewReader(npyFile(1, "{'descr': '>i8', 'fortran_order': False, 'shape': (3,), }", be)))
	if err != nil || a.DType != I64 || !slices.Equal(a.I64, []int64{3, -100, 1 << 40}) {
		t.Fatalf("'>i8': %+v, %v", a, err)
	}
	for _, in := range []*Array{
		{Shape: []int{2, 2}, DType: I32, I32: []int32{0, -1, 7, 2147483647}},
		{Shape: []int{3}, DType: I64, I64: []int64{5, -100, -1 << 62}},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, in); err != nil {
			t.Fatal(err)
		}
		out, err := Read(&buf)
		if err != nil || out.DType != in.DType || !slices.Equal(out.I32, in.I32) || !slices.Equal(out.I64, in.I64) || !slices.Equal(out.Shape, in.Shape) {
			t.Errorf("round trip of %+v: %+v, %v", in, out, err)
		}
	}
	if err := Write(&bytes.Buffer{}, &Array{Shape: []int{1}, DType: I32, I32: []int32{1}, F32: []float32{1}}); err == nil {
		t.Error("an I32 array with F32 data too was written")
	}
}
