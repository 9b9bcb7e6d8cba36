//go:build !linux

package vec

import "testing"

const haveGuardPages = false

func guardedF32(t testing.TB, n int) []float32 { return make([]float32, n) }

func guardedU16(t testing.TB, n int) []uint16 { return make([]uint16, n) }
