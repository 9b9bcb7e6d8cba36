package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// Byte-exact .npy files as NumPy writes them, built by hand.

// numpyF32x2x3 is np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)):
// 10-byte prefix, a 118-byte header (dict, spaces, '\n') so that the data
// starts at offset 128, then six little-endian float32 values 0..5.
const numpyF32x2x3 = "\x93NUMPY\x01\x00\x76\x00" +
	"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
	"                                                          \n" + // 58 spaces
	"\x00\x00\x00\x00" + "\x00\x00\x80\x3f" + "\x00\x00\x00\x40" +
	"\x00\x00\x40\x40" + "\x00\x00\x80\x40" + "\x00\x00\xa0\x40"

// numpyF64Fortran2x3 is np.save(f, np.asfortranarray(
// np.arange(6, dtype='<f8').reshape(2, 3))): the data is stored column by
// column, 0 3 1 4 2 5.
const numpyF64Fortran2x3 = "\x93NUMPY\x01\x00\x76\x00" +
	"{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }" +
	"                                                           \n" + // 59 spaces
	"\x00\x00\x00\x00\x00\x00\x00\x00" + // 0
	"\x00\x00\x00\x00\x00\x00\x08\x40" + // 3
	"\x00\x00\x00\x00\x00\x00\xf0\x3f" + // 1
	"\x00\x00\x00\x00\x00\x00\x10\x40" + // 4
	"\x00\x00\x00\x00\x00\x00\x00\x40" + // 2
	"\x00\x00\x00\x00\x00\x00\x14\x40" // 5

// numpyF16BigEndian4 is np.save(f, np.arange(4, dtype='>f2')).
const numpyF16BigEndian4 = "\x93NUMPY\x01\x00\x76\x00" +
	"{'descr': '>f2', 'fortran_order': False, 'shape': (4,), }" +
	"                                                            \n" + // 60 spaces
	"\x00\x00" + "\x3c\x00" + "\x40\x00" + "\x42\x00"

// numpyF64Scalar is np.save(f, np.float64(1.5)): shape (), one element.
const numpyF64Scalar = "\x93NUMPY\x01\x00\x76\x00" +
	"{'descr': '<f8', 'fortran_order': False, 'shape': (), }" +
	"                                                              \n" + // 62 spaces
	"\x00\x00\x00\x00\x00\x00\xf8\x3f"

func TestFixtureLayout(t *testing.T) {
	// Guard the hand-built fixtures themselves: NumPy aligns the data to 64
	// bytes and the header length field counts everything after it.
	for name, f := range map[string]string{
		"f32": numpyF32x2x3, "fortran": numpyF64Fortran2x3,
		"f16be": numpyF16BigEndian4, "scalar": numpyF64Scalar,
	} {
		hlen := int(binary.LittleEndian.Uint16([]byte(f[8:10])))
		start := 10 + hlen
		if start != 128 || f[start-1] != '\n' {
			t.Errorf("%s: data starts at %d (want 128), byte before is %q", name, start, f[start-1])
		}
	}
}

func readString(t *testing.T, s string) *Array {
	t.Helper()
	a, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return a
}

func TestReadNumPyFixtures(t *testing.T) {
	t.Run("f32 2x3", func(t *testing.T) {
		a := readString(t, numpyF32x2x3)
		want := &Array{Shape: []int{2, 3}, DType: F32, F32: []float32{0, 1, 2, 3, 4, 5}}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("got %+v, want %+v", a, want)
		}
	})
	t.Run("fortran f64 2x3", func(t *testing.T) {
		a := readString(t, numpyF64Fortran2x3)
		want := &Array{Shape: []int{2, 3}, DType: F64, F64: []float64{0, 1, 2, 3, 4, 5}}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("got %+v, want %+v", a, want)
		}
	})
	t.Run("big-endian f16", func(t *testing.T) {
		a := readString(t, numpyF16BigEndian4)
		want := &Array{Shape: []int{4}, DType: F16, F16: []uint16{0x0000, 0x3c00, 0x4000, 0x4200}}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("got %+v, want %+v", a, want)
		}
		if got := a.AsF32(); !reflect.DeepEqual(got, []float32{0, 1, 2, 3}) {
			t.Errorf("AsF32 = %v", got)
		}
	})
	t.Run("scalar f64", func(t *testing.T) {
		a := readString(t, numpyF64Scalar)
		want := &Array{Shape: []int{}, DType: F64, F64: []float64{1.5}}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("got %+v, want %+v", a, want)
		}
		if a.Len() != 1 {
			t.Errorf("Len = %d, want 1", a.Len())
		}
	})
}

func TestWriteMatchesNumPy(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *Array
		want string
	}{
		{"f32 2x3", NewF32([]int{2, 3}, []float32{0, 1, 2, 3, 4, 5}), numpyF32x2x3},
		{"scalar f64", NewF64(nil, []float64{1.5}), numpyF64Scalar},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, tc.a); err != nil {
			t.Fatalf("%s: Write: %v", tc.name, err)
		}
		if got := buf.String(); got != tc.want {
			t.Errorf("%s: Write produced\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// npyFile builds a .npy file with the given version, header dict and data.
// It pads the header like NumPy but does not depend on the package code.
func npyFile(major byte, dict string, data []byte) []byte {
	lenSize := 2
	if major >= 2 {
		lenSize = 4
	}
	hlen := len(dict) + 1
	pad := (64 - (8+lenSize+hlen)%64) % 64
	hlen += pad
	b := []byte("\x93NUMPY")
	b = append(b, major, 0)
	if lenSize == 2 {
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	}
	b = append(b, dict...)
	b = append(b, bytes.Repeat([]byte(" "), pad)...)
	b = append(b, '\n')
	return append(b, data...)
}

func f32Bytes(order binary.AppendByteOrder, vals ...float32) []byte {
	var b []byte
	for _, v := range vals {
		b = order.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func f64Bytes(order binary.AppendByteOrder, vals ...float64) []byte {
	var b []byte
	for _, v := range vals {
		b = order.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func TestReadVersions(t *testing.T) {
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
	for _, major := range []byte{1, 2, 3} {
		a, err := Read(bytes.NewReader(npyFile(major, dict, f32Bytes(binary.LittleEndian, 1.25, -2))))
		if err != nil {
			t.Fatalf("version %d.0: %v", major, err)
		}
		if !reflect.DeepEqual(a.F32, []float32{1.25, -2}) || !reflect.DeepEqual(a.Shape, []int{2}) {
			t.Errorf("version %d.0: got %+v", major, a)
		}
	}
}

func TestReadBigEndian(t *testing.T) {
	a, err := Read(bytes.NewReader(npyFile(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }",
		f32Bytes(binary.BigEndian, 1, -2.5, 1e30))))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, -2.5, 1e30}; !reflect.DeepEqual(a.F32, want) {
		t.Errorf(">f4: got %v, want %v", a.F32, want)
	}
	a, err = Read(bytes.NewReader(npyFile(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1, 2), }",
		f64Bytes(binary.BigEndian, math.Pi, -1e300))))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{math.Pi, -1e300}; !reflect.DeepEqual(a.F64, want) || a.DType != F64 {
		t.Errorf(">f8: got %+v, want %v", a, want)
	}
}

func TestReadFortran3D(t *testing.T) {
	// Shape (2, 3, 4); element (i, j, k) has value i*12 + j*4 + k, which is
	// its C-order index. Lay it out in Fortran order: i varies fastest.
	var fvals []float32
	for k := range 4 {
		for j := range 3 {
			for i := range 2 {
				fvals = append(fvals, float32(i*12+j*4+k))
			}
		}
	}
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		descr := "<f4"
		if order == binary.AppendByteOrder(binary.BigEndian) {
			descr = ">f4"
		}
		file := npyFile(1, "{'descr': '"+descr+"', 'fortran_order': True, 'shape': (2, 3, 4), }", f32Bytes(order, fvals...))
		// Also through a reader without Len, which takes the growing path.
		for _, r := range []io.Reader{bytes.NewReader(file), iotest.HalfReader(bytes.NewReader(file))} {
			a, err := Read(r)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range a.F32 {
				if v != float32(i) {
					t.Fatalf("%s: element %d = %v, want %d (all: %v)", descr, i, v, i, a.F32)
				}
			}
			if len(a.F32) != 24 || !reflect.DeepEqual(a.Shape, []int{2, 3, 4}) {
				t.Errorf("%s: got shape %v len %d", descr, a.Shape, len(a.F32))
			}
		}
	}
	// Fortran order is irrelevant for 1-d and zero-size arrays.
	a, err := Read(bytes.NewReader(npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
		f32Bytes(binary.LittleEndian, 1, 2, 3))))
	if err != nil || !reflect.DeepEqual(a.F32, []float32{1, 2, 3}) {
		t.Errorf("fortran 1-d: %+v, %v", a, err)
	}
	a, err = Read(bytes.NewReader(npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 0), }", nil)))
	if err != nil || len(a.F32) != 0 || a.F32 == nil {
		t.Errorf("fortran zero-size: %+v, %v", a, err)
	}
}

func TestHeaderParsing(t *testing.T) {
	cases := []struct {
		dict    string
		shape   []int
		fortran bool
		dtype   DType
	}{
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", []int{2, 3}, false, F32},
		{"{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}", []int{2, 3}, false, F32},
		{`{"descr":"<f8","fortran_order":True,"shape":(6,)}`, []int{6}, true, F64},
		{"{ 'descr' : '<f2' ,\n\t'fortran_order' : False ,\n 'shape' : ( 6 , ) , }", []int{6}, false, F16},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (), }", []int{}, false, F32},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }", []int{2, 3}, false, F32},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 1, 3,), }", []int{1, 2, 1, 3}, false, F32},
		{"{'descr': '<f4', 'fortran_order': False, 'shape': ((6,)), }", []int{6}, false, F32},
	}
	for _, tc := range cases {
		h, err := parseHeader(tc.dict)
		if err != nil {
			t.Errorf("parseHeader(%q): %v", tc.dict, err)
			continue
		}
		if !reflect.DeepEqual(h.shape, tc.shape) || h.fortran != tc.fortran || h.dtype != tc.dtype {
			t.Errorf("parseHeader(%q) = %+v", tc.dict, h)
		}
	}
}

func TestReadErrors(t *testing.T) {
	good := []byte(numpyF32x2x3)
	withDict := func(dict string) []byte {
		return npyFile(1, dict, f32Bytes(binary.LittleEndian, 1, 2, 3, 4, 5, 6))
	}
	replace := func(old, new string) []byte {
		return []byte(strings.Replace(numpyF32x2x3, old, new, 1))
	}
	cases := []struct {
		name    string
		in      []byte
		want    error
		mention string // substring the message must contain
	}{
		{"empty", nil, ErrTruncated, ""},
		{"bad magic", replace("NUMPY", "NUMPZ"), ErrBadMagic, ""},
		{"zip file", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00"), ErrBadMagic, ""},
		{"short prefix", good[:4], ErrTruncated, ""},
		{"bad magic, short", []byte("\x93NO"), ErrBadMagic, ""},
		{"version 9", replace("\x01\x00\x76", "\x09\x00\x76"), ErrUnsupportedVersion, "9.0"},
		{"version 1.1", replace("\x01\x00\x76", "\x01\x01\x76"), ErrUnsupportedVersion, "1.1"},
		{"version 0", replace("\x01\x00\x76", "\x00\x00\x76"), ErrUnsupportedVersion, "0.0"},
		{"missing header length", good[:9], ErrTruncated, "header length"},
		{"truncated header", good[:60], ErrTruncated, "header"},
		{"truncated data", good[:len(good)-1], ErrTruncated, "23 of 24"},
		{"no data", good[:128], ErrTruncated, "0 of 24"},
		{"header too long", []byte("\x93NUMPY\x02\x00\xff\xff\xff\xff{"), ErrMalformedHeader, "exceeds"},
		{"unsigned dtype", withDict("{'descr': '<u4', 'fortran_order': False, 'shape': (6,), }"), ErrUnsupportedDType, "<u4"},
		{"bool dtype", withDict("{'descr': '|b1', 'fortran_order': False, 'shape': (6,), }"), ErrUnsupportedDType, "|b1"},
		{"complex dtype", withDict("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }"), ErrUnsupportedDType, "<c8"},
		{"object dtype", withDict("{'descr': '|O', 'fortran_order': False, 'shape': (3,), }"), ErrUnsupportedDType, "|O"},
		{"f16 no order", withDict("{'descr': 'f2', 'fortran_order': False, 'shape': (3,), }"), ErrUnsupportedDType, "f2"},
		{"structured dtype", withDict("{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (3,), }"), ErrUnsupportedDType, "('x', '<f4')"},
		{"negative dim", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 6), }"), ErrBadShape, "-1"},
		{"overflowing dim", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"), ErrBadShape, ""},
		{"overflowing product", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"), ErrBadShape, "overflows"},
		{"overflowing bytes", withDict("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }"), ErrBadShape, "overflows"},
		{"not a dict", withDict("['descr', '<f4']"), ErrMalformedHeader, ""},
		{"empty header", withDict(""), ErrMalformedHeader, ""},
		{"unclosed dict", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), "), ErrMalformedHeader, ""},
		{"missing shape", withDict("{'descr': '<f4', 'fortran_order': False}"), ErrMalformedHeader, "shape"},
		{"missing descr", withDict("{'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, "descr"},
		{"missing fortran_order", withDict("{'descr': '<f4', 'shape': (6,)}"), ErrMalformedHeader, "fortran_order"},
		{"extra key", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}"), ErrMalformedHeader, "'x'"},
		{"duplicate key", withDict("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, "duplicate"},
		{"missing colon", withDict("{'descr' '<f4', 'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, ""},
		{"missing comma", withDict("{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, ""},
		{"unterminated string", withDict("{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, ""},
		{"fortran_order string", withDict("{'descr': '<f4', 'fortran_order': 'False', 'shape': (6,)}"), ErrMalformedHeader, "fortran_order"},
		{"fortran_order lowercase", withDict("{'descr': '<f4', 'fortran_order': false, 'shape': (6,)}"), ErrMalformedHeader, "false"},
		{"shape list", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': [6]}"), ErrMalformedHeader, "shape"},
		{"shape int in parens", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (6)}"), ErrMalformedHeader, "shape"},
		{"shape float", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (6.0,)}"), ErrMalformedHeader, ""},
		{"shape None", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (None,)}"), ErrMalformedHeader, "None"},
		{"text after dict", withDict("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x"), ErrMalformedHeader, "after"},
		{"deep nesting", withDict("{'descr': " + strings.Repeat("(", 100) + "}"), ErrMalformedHeader, "deep"},
		{"non-string key", withDict("{1: '<f4', 'fortran_order': False, 'shape': (6,)}"), ErrMalformedHeader, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// With and without a Len-capable reader (different data paths).
			for _, r := range []io.Reader{bytes.NewReader(tc.in), iotest.OneByteReader(bytes.NewReader(tc.in))} {
				a, err := Read(r)
				if !errors.Is(err, tc.want) {
					t.Fatalf("Read = %+v, %v; want error %v", a, err, tc.want)
				}
				if !strings.Contains(err.Error(), tc.mention) {
					t.Errorf("error %q does not mention %q", err, tc.mention)
				}
			}
		})
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("boom")
	for _, n := range []int{0, 5, 10, 50, 130} {
		r := io.MultiReader(strings.NewReader(numpyF32x2x3[:n]), iotest.ErrReader(boom))
		_, err := Read(r)
		if !errors.Is(err, boom) || errors.Is(err, ErrTruncated) {
			t.Errorf("after %d bytes: got %v, want wrapped boom", n, err)
		}
	}
}

func TestReadConsecutive(t *testing.T) {
	var buf bytes.Buffer
	arrays := []*Array{
		NewF32([]int{2, 2}, []float32{1, 2, 3, 4}),
		NewF16([]int{3}, []uint16{0x3c00, 0x4000, 0x7c00}),
		NewF64(nil, []float64{-7}),
	}
	for _, a := range arrays {
		if err := Write(&buf, a); err != nil {
			t.Fatal(err)
		}
	}
	stream := buf.Bytes()
	for _, r := range []io.Reader{bytes.NewReader(stream), iotest.HalfReader(bytes.NewReader(stream))} {
		for i, want := range arrays {
			got, err := Read(r)
			if err != nil {
				t.Fatalf("array %d: %v", i, err)
			}
			if want.Shape == nil {
				want.Shape = []int{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("array %d: got %+v, want %+v", i, got, want)
			}
		}
		if _, err := Read(r); !errors.Is(err, ErrTruncated) {
			t.Errorf("read past end: %v, want ErrTruncated", err)
		}
	}
}

// sample returns n deterministic values including awkward ones.
func sample(n int) []float64 {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-40, 65504, 3.14159}
	out := make([]float64, n)
	for i := range out {
		if i < len(special) {
			out[i] = special[i]
		} else {
			out[i] = math.Sin(float64(i)) * float64(i)
		}
	}
	return out
}

// sameBits compares the data of two arrays bit for bit (NaN-safe).
func sameBits(a, b *Array) bool {
	if a.DType != b.DType || !reflect.DeepEqual(a.Shape, b.Shape) {
		return false
	}
	switch a.DType {
	case F32:
		if len(a.F32) != len(b.F32) {
			return false
		}
		for i := range a.F32 {
			if math.Float32bits(a.F32[i]) != math.Float32bits(b.F32[i]) {
				return false
			}
		}
	case F64:
		if len(a.F64) != len(b.F64) {
			return false
		}
		for i := range a.F64 {
			if math.Float64bits(a.F64[i]) != math.Float64bits(b.F64[i]) {
				return false
			}
		}
	case F16:
		return reflect.DeepEqual(a.F16, b.F16) || len(a.F16) == 0 && len(b.F16) == 0
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {1}, {7}, {2, 3, 4}, {0}, {3, 0, 2}, {1, 1, 1, 1}, {5, 1}, {300000}}
	for _, dt := range []DType{F32, F64, F16} {
		for _, shape := range shapes {
			n := 1
			for _, d := range shape {
				n *= d
			}
			vals := sample(n)
			var a *Array
			switch dt {
			case F32:
				d := make([]float32, n)
				for i, v := range vals {
					d[i] = float32(v)
				}
				a = NewF32(shape, d)
			case F64:
				a = NewF64(shape, vals)
			case F16:
				d := make([]uint16, n)
				for i := range d {
					d[i] = uint16(i * 7919)
				}
				a = NewF16(shape, d)
			}
			var buf bytes.Buffer
			if err := Write(&buf, a); err != nil {
				t.Fatalf("%v %v: Write: %v", dt, shape, err)
			}
			if buf.Len()%64 != (n*dt.Size())%64 {
				t.Errorf("%v %v: header not 64-byte aligned", dt, shape)
			}
			if buf.Bytes()[6] != 1 {
				t.Errorf("%v %v: version %d, want 1", dt, shape, buf.Bytes()[6])
			}
			for _, r := range []io.Reader{bytes.NewReader(buf.Bytes()), iotest.HalfReader(bytes.NewReader(buf.Bytes()))} {
				got, err := Read(r)
				if err != nil {
					t.Fatalf("%v %v: Read: %v", dt, shape, err)
				}
				if !sameBits(got, a) {
					t.Errorf("%v %v: round trip mismatch", dt, shape)
				}
				if got.Len() != n {
					t.Errorf("%v %v: Len = %d, want %d", dt, shape, got.Len(), n)
				}
			}
		}
	}
}

func TestWriteVersion2(t *testing.T) {
	// 22000 dimensions of size 1 need a header longer than 65535 bytes.
	shape := make([]int, 22000)
	for i := range shape {
		shape[i] = 1
	}
	a := NewF32(shape, []float32{42})
	var buf bytes.Buffer
	if err := Write(&buf, a); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if b[6] != 2 || b[7] != 0 {
		t.Fatalf("version %d.%d, want 2.0", b[6], b[7])
	}
	if hlen := binary.LittleEndian.Uint32(b[8:12]); (12+int(hlen))%64 != 0 || b[12+hlen-1] != '\n' {
		t.Errorf("header length %d not aligned or not newline-terminated", hlen)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(got, a) {
		t.Error("round trip mismatch")
	}
}

func TestWriteErrors(t *testing.T) {
	cases := []struct {
		name string
		a    *Array
		want error
	}{
		{"nil", nil, ErrInvalidArray},
		{"too short", NewF32([]int{2, 3}, make([]float32, 5)), ErrInvalidArray},
		{"too long", NewF64([]int{2}, make([]float64, 3)), ErrInvalidArray},
		{"scalar without data", NewF16(nil, nil), ErrInvalidArray},
		{"wrong slice", &Array{Shape: []int{2}, DType: F32, F64: []float64{1, 2}}, ErrInvalidArray},
		{"two slices", &Array{Shape: []int{1}, DType: F32, F32: []float32{1}, F16: []uint16{1}}, ErrInvalidArray},
		{"zero dtype", &Array{Shape: []int{1}, F32: []float32{1}}, ErrUnsupportedDType},
		{"bad dtype", &Array{Shape: []int{1}, DType: 99, F32: []float32{1}}, ErrUnsupportedDType},
		{"negative shape", NewF32([]int{-1}, nil), ErrBadShape},
		{"overflowing shape", NewF32([]int{math.MaxInt, 2}, nil), ErrBadShape},
		{"overflowing bytes", NewF64([]int{math.MaxInt / 4}, nil), ErrBadShape},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		err := Write(&buf, tc.a)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: Write error %v, want %v", tc.name, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes despite the error", tc.name, buf.Len())
		}
	}
	// A zero-size array may leave its data slice nil.
	if err := Write(io.Discard, NewF32([]int{0, 3}, nil)); err != nil {
		t.Errorf("zero-size with nil data: %v", err)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errWriteFailed
	}
	w.after--
	return len(p), nil
}

var errWriteFailed = errors.New("write failed")

func TestWriteIOError(t *testing.T) {
	a := NewF32([]int{3}, []float32{1, 2, 3})
	for _, after := range []int{0, 1} {
		if err := Write(&failWriter{after: after}, a); !errors.Is(err, errWriteFailed) {
			t.Errorf("failing after %d writes: got %v", after, err)
		}
	}
}

func TestDType(t *testing.T) {
	for _, tc := range []struct {
		d    DType
		s    string
		size int
	}{{F32, "<f4", 4}, {F64, "<f8", 8}, {F16, "<f2", 2}, {0, "DType(0)", 0}} {
		if tc.d.String() != tc.s || tc.d.Size() != tc.size {
			t.Errorf("%d: String %q Size %d, want %q %d", int(tc.d), tc.d.String(), tc.d.Size(), tc.s, tc.size)
		}
	}
}

func TestLen(t *testing.T) {
	for _, tc := range []struct {
		shape []int
		want  int
	}{{nil, 1}, {[]int{}, 1}, {[]int{5}, 5}, {[]int{2, 3, 4}, 24}, {[]int{0, 9}, 0},
		{[]int{-1}, -1}, {[]int{math.MaxInt, 2}, -1}, {[]int{math.MaxInt, 2, 0}, 0}} {
		if got := (&Array{Shape: tc.shape}).Len(); got != tc.want {
			t.Errorf("Len(%v) = %d, want %d", tc.shape, got, tc.want)
		}
	}
}

func TestAsF32(t *testing.T) {
	f32 := []float32{1, 2}
	if got := NewF32([]int{2}, f32).AsF32(); &got[0] != &f32[0] {
		t.Error("AsF32 on F32 array copied the data")
	}
	if got := NewF64([]int{2}, []float64{0.5, 1e300}).AsF32(); !reflect.DeepEqual(got, []float32{0.5, float32(math.Inf(1))}) {
		t.Errorf("AsF32 of F64 = %v", got)
	}
	if got := NewF16([]int{3}, []uint16{0x3c00, 0xc000, 0x3555}).AsF32(); !reflect.DeepEqual(got, []float32{1, -2, 0.333251953125}) {
		t.Errorf("AsF32 of F16 = %v", got)
	}
}

func TestNewCopiesShape(t *testing.T) {
	shape := []int{2, 2}
	a := NewF32(shape, make([]float32, 4))
	shape[0] = 9
	if a.Shape[0] != 2 {
		t.Error("NewF32 kept a reference to the caller's shape")
	}
}
