package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// limitEnv is the variable of internal/memlimit that bounds the memory the
// reader may allocate.
const limitEnv = "SOFTMAX_MEMORY_LIMIT"

// readPipe streams data through a real pipe into Read, as `cat x.npy |
// softmax apply --in -` does: no length is known up front. The writer's
// error is ignored (the reader may stop early and close its end).
func readPipe(t *testing.T, data []byte) (*Array, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Skip("no pipes here: " + err.Error())
	}
	go func() {
		w.Write(data)
		w.Close()
	}()
	defer r.Close()
	return Read(r)
}

// A header claiming more than the process may have is refused before its
// data is read, whatever the input: a file, a pipe, a reader of unknown
// length.
func TestReadClaimTooLarge(t *testing.T) {
	t.Setenv(limitEnv, "1000000")
	huge := npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }", f32Bytes(binary.LittleEndian, 1, 2, 3))
	check := func(name string, err error, want error, mentions ...string) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s: %v, want %v", name, err, want)
		}
		for _, m := range mentions {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: %q lacks %q", name, err, m)
			}
		}
	}
	_, err := readPipe(t, huge)
	check("pipe", err, ErrTooLarge, "[1000000 1000000]", "4000000000000 bytes", limitEnv)
	_, err = Read(iotest.OneByteReader(bytes.NewReader(huge)))
	check("reader", err, ErrTooLarge, "4000000000000 bytes")
	// A file knows its length: 12 bytes of data is the first problem.
	path := filepath.Join(t.TempDir(), "huge.npy")
	if err := os.WriteFile(path, huge, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(path)
	check("file", err, ErrTruncated, path, "12 of 4000000000000")

	// Within the limit but Fortran order, which needs a second copy.
	fortran := npyFile(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (500, 200), }", make([]byte, 800000))
	_, err = Read(bytes.NewReader(fortran))
	check("fortran", err, ErrTooLarge, "1600000 bytes")
	t.Setenv(limitEnv, "2000000")
	if _, err := Read(bytes.NewReader(fortran)); err != nil {
		t.Errorf("fortran within the limit: %v", err)
	}
}

// Data that ends early through a pipe is ErrTruncated, naming how much came.
func TestReadPipeTruncated(t *testing.T) {
	full := npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1000000), }", make([]byte, 12000000))
	_, err := readPipe(t, full[:len(full)-5])
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "11999995 of 12000000") {
		t.Errorf("pipe ending 5 bytes early: %v", err)
	}
	a, err := readPipe(t, full)
	if err != nil || len(a.F32) != 3000000 {
		t.Errorf("the whole file through a pipe: %v", err)
	}
	// No read-ahead past the array, through a pipe too.
	r := io.MultiReader(bytes.NewReader(full), strings.NewReader("rest"))
	if _, err := Read(r); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "rest" {
		t.Errorf("Read consumed past the array: %q left", rest)
	}
}
