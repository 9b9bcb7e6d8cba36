package driver

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"
)

// The C sizes and offsets below are those of cuda.h on LP64 (linux amd64
// and arm64): CUlaunchAttribute is {id u32, pad[4], 64-byte union} and
// CUlaunchConfig is seven unsigned ints, a CUstream at 32, the attrs pointer
// at 40 and numAttrs at 48, 56 bytes in all.
func TestLaunchStructLayout(t *testing.T) {
	if !canLoadCUDA {
		t.Skip("the C layouts are those of the 64-bit platforms CUDA runs on")
	}
	var at cuLaunchAttribute
	if s := unsafe.Sizeof(at); s != 72 {
		t.Errorf("sizeof(CUlaunchAttribute) = %d, want 72", s)
	}
	if a := unsafe.Alignof(at); a != 8 {
		t.Errorf("alignof(CUlaunchAttribute) = %d, want 8", a)
	}
	if o := unsafe.Offsetof(at.value); o != 8 {
		t.Errorf("offsetof(value) = %d, want 8", o)
	}
	if s := unsafe.Sizeof(at.value); s != 64 {
		t.Errorf("sizeof(value) = %d, want 64", s)
	}

	var c cuLaunchConfig
	checks := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof", unsafe.Sizeof(c), 56},
		{"gridDimX", unsafe.Offsetof(c.gridDimX), 0},
		{"gridDimY", unsafe.Offsetof(c.gridDimY), 4},
		{"gridDimZ", unsafe.Offsetof(c.gridDimZ), 8},
		{"blockDimX", unsafe.Offsetof(c.blockDimX), 12},
		{"blockDimY", unsafe.Offsetof(c.blockDimY), 16},
		{"blockDimZ", unsafe.Offsetof(c.blockDimZ), 20},
		{"sharedMemBytes", unsafe.Offsetof(c.sharedMemBytes), 24},
		{"hStream", unsafe.Offsetof(c.hStream), 32},
		{"attrs", unsafe.Offsetof(c.attrs), 40},
		{"numAttrs", unsafe.Offsetof(c.numAttrs), 48},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("CUlaunchConfig %s = %d, want %d", ch.name, ch.got, ch.want)
		}
	}
}

func TestBuildLaunchConfig(t *testing.T) {
	var pin runtime.Pinner
	defer pin.Unpin()
	cfg := LaunchConfig{
		Grid: [3]uint32{8, 2, 1}, Block: [3]uint32{128, 1, 1}, SharedMem: 4096, Stream: 0x1234,
		Cluster: [3]uint32{2, 1, 1}, ClusterSchedulingPolicy: 1,
	}
	c := buildLaunchConfig(&pin, &cfg)
	raw := (*[14]uint32)(unsafe.Pointer(c))
	want := []uint32{8, 2, 1, 128, 1, 1, 4096}
	for i, w := range want {
		if raw[i] != w {
			t.Errorf("word %d = %d, want %d", i, raw[i], w)
		}
	}
	if c.hStream != 0x1234 || c.numAttrs != 2 || c.attrs == nil {
		t.Fatalf("stream/attrs: %+v", c)
	}
	attrs := unsafe.Slice(c.attrs, c.numAttrs)
	if attrs[0].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
		t.Errorf("attr 0 id = %d", attrs[0].id)
	}
	b := (*[72]byte)(unsafe.Pointer(&attrs[0]))
	le := func(off int) uint32 {
		return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
	}
	if le(0) != 4 || le(8) != 2 || le(12) != 1 || le(16) != 1 {
		t.Errorf("cluster attribute bytes: id=%d x=%d y=%d z=%d", le(0), le(8), le(12), le(16))
	}
	if attrs[1].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE || uint32(attrs[1].value[0]) != 1 {
		t.Errorf("policy attribute: %+v", attrs[1])
	}

	// Cooperative alone: one attribute, id 2, int value 1.
	c3 := buildLaunchConfig(&pin, &LaunchConfig{Grid: [3]uint32{132, 1, 1}, Block: [3]uint32{1024, 1, 1}, Cooperative: true})
	if c3.numAttrs != 1 {
		t.Fatalf("cooperative launch: %d attributes, want 1", c3.numAttrs)
	}
	if a := unsafe.Slice(c3.attrs, 1)[0]; a.id != CU_LAUNCH_ATTRIBUTE_COOPERATIVE || int32(a.value[0]) != 1 {
		t.Errorf("cooperative attribute: %+v", a)
	}

	// No cluster: no attributes.
	c2 := buildLaunchConfig(&pin, &LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1}})
	if c2.attrs != nil || c2.numAttrs != 0 {
		t.Errorf("unexpected attributes: %+v", c2)
	}
}

var globalParam int32 = 3

func TestPinParams(t *testing.T) {
	var pin runtime.Pinner
	defer pin.Unpin()
	x, y := int32(7), uint64(9)
	params := []unsafe.Pointer{unsafe.Pointer(&x), unsafe.Pointer(&y)}
	kp, err := pinParams(&pin, params)
	if err != nil || kp != unsafe.Pointer(&params[0]) {
		t.Fatalf("pinParams = %v, %v", kp, err)
	}
	arr := (*[2]unsafe.Pointer)(kp)
	if *(*int32)(arr[0]) != 7 || *(*uint64)(arr[1]) != 9 {
		t.Error("kernelParams array does not point at the values")
	}
	// The same object twice (e.g. in-place kernels passing one pointer for
	// input and output), a global, and an interior pointer are all fine.
	buf := make([]int64, 4)
	if _, err := pinParams(&pin, []unsafe.Pointer{unsafe.Pointer(&x), unsafe.Pointer(&x), unsafe.Pointer(&globalParam), unsafe.Pointer(&buf[2])}); err != nil {
		t.Errorf("repeated/global/interior params: %v", err)
	}
	if kp, err := pinParams(&pin, nil); kp != nil || err != nil {
		t.Errorf("no params: %v, %v", kp, err)
	}
	if _, err := pinParams(&pin, []unsafe.Pointer{unsafe.Pointer(&x), nil}); !errors.Is(err, errNilParam) {
		t.Errorf("nil param: %v", err)
	}
	a := &API{path: "fake"}
	if err := a.Launch(0, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, 0, nil); !errors.Is(err, errNilParam) {
		t.Errorf("Launch with nil param: %v", err)
	}
}

func TestCStrings(t *testing.T) {
	b := cString("abc")
	if len(b) != 4 || b[3] != 0 || string(b[:3]) != "abc" {
		t.Errorf("cString = %q", b)
	}
	if got := goString(&b[0]); got != "abc" {
		t.Errorf("goString = %q", got)
	}
	if goString(nil) != "" {
		t.Error("goString(nil)")
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	arr := cStringArray(&pin, []string{"x.h", "dir/y.h"})
	ptrs := (*[2]*byte)(arr)
	if goString(ptrs[0]) != "x.h" || goString(ptrs[1]) != "dir/y.h" {
		t.Error("cStringArray contents")
	}
	if cStringArray(&pin, nil) != nil {
		t.Error("empty cStringArray must be nil")
	}
}
