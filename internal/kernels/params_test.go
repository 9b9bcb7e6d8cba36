package kernels

import (
	"testing"
	"unsafe"
)

// The offsets documented for smx::Params in common.cuh.
func TestParamsLayout(t *testing.T) {
	var p Params
	want := []struct {
		name     string
		got, off uintptr
	}{
		{"x", unsafe.Offsetof(p.X), 0}, {"y", unsafe.Offsetof(p.Y), 8}, {"outer", unsafe.Offsetof(p.Outer), 16},
		{"axis", unsafe.Offsetof(p.Axis), 24}, {"scale", unsafe.Offsetof(p.Scale), 32}, {"log", unsafe.Offsetof(p.Log), 36},
		{"split", unsafe.Offsetof(p.Split), 40}, {"vec", unsafe.Offsetof(p.Vec), 44}, {"dy", unsafe.Offsetof(p.DY), 48},
		{"ws", unsafe.Offsetof(p.WS), 56}, {"inner", unsafe.Offsetof(p.Inner), 64}, {"chunk", unsafe.Offsetof(p.Chunk), 72},
		{"bar", unsafe.Offsetof(p.Bar), 80}, {"scale64", unsafe.Offsetof(p.Scale64), 88},
	}
	for _, w := range want {
		if w.got != w.off {
			t.Errorf("Params.%s at offset %d, C has %d", w.name, w.got, w.off)
		}
	}
	if ParamsSize != 96 || unsafe.Alignof(p) != 8 {
		t.Errorf("Params size %d align %d, C has 96 and 8", ParamsSize, unsafe.Alignof(p))
	}
}
