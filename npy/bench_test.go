package npy

import (
	"bytes"
	"io"
	"testing"
)

func benchArray() *Array {
	data := make([]float32, 4<<20)
	for i := range data {
		data[i] = float32(i)
	}
	return NewF32([]int{1024, 4096}, data)
}

func BenchmarkWriteF32(b *testing.B) {
	a := benchArray()
	b.SetBytes(int64(4 * len(a.F32)))
	for b.Loop() {
		if err := Write(io.Discard, a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadF32(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, benchArray()); err != nil {
		b.Fatal(err)
	}
	file := buf.Bytes()
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(file)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadF32Stream reads without a size hint, so the result slice
// grows as data arrives.
func BenchmarkReadF32Stream(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, benchArray()); err != nil {
		b.Fatal(err)
	}
	file := buf.Bytes()
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := Read(io.MultiReader(bytes.NewReader(file))); err != nil {
			b.Fatal(err)
		}
	}
}
