package npy

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func FuzzRead(f *testing.F) {
	for _, s := range []string{numpyF32x2x3, numpyF64Fortran2x3, numpyF16BigEndian4, numpyF64Scalar} {
		f.Add([]byte(s))
		f.Add([]byte(s[:len(s)-3]))
		f.Add([]byte(s[:20]))
	}
	data := f32Bytes(binary.LittleEndian, 1, 2, 3, 4, 5, 6)
	for _, dict := range []string{
		"{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 3), }",
		"{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }",
		"{'descr': '<f2', 'fortran_order': True, 'shape': (3, 2, 2), }",
		"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (-6,), }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (0, 99999999999999), }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }",
		"{'descr': '<f4', 'fortran_order': False, 'shape': ((((6,),),),), }",
		"{'descr': \"<f4\\\", 'fortran_order': False, 'shape': (6L,), }",
	} {
		for _, major := range []byte{1, 2, 3} {
			f.Add(npyFile(major, dict, data))
		}
	}
	f.Add([]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"))
	f.Add([]byte("\x93NUMPY\x01\x00\x00\x00"))
	f.Add([]byte{})

	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Read(bytes.NewReader(in))
		if err != nil {
			if a != nil {
				t.Fatalf("non-nil array with error %v", err)
			}
			return
		}
		// A successfully read array is consistent and survives a round trip.
		if _, err := a.validate(); err != nil {
			t.Fatalf("Read returned an invalid array: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, a); err != nil {
			t.Fatalf("Write of a read array: %v", err)
		}
		b, err := Read(&buf)
		if err != nil {
			t.Fatalf("re-reading written array: %v", err)
		}
		if !sameBits(a, b) {
			t.Fatalf("round trip changed the array: %+v vs %+v", a, b)
		}
	})
}
