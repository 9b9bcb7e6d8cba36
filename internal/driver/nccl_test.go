package driver

import (
	"encoding/binary"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func TestNCCLCandidatesEnvOverrideIsExclusive(t *testing.T) {
	got, env := ncclCandidates(fakeEnv(map[string]string{EnvNCCL: "/x/libnccl.so.2", "CUDA_HOME": "/cuda"}), fakeGlob(nil, nil), "amd64")
	if !reflect.DeepEqual(got, []string{"/x/libnccl.so.2"}) || env != EnvNCCL {
		t.Fatalf("got %v, %q", got, env)
	}
}

func TestNCCLCandidatesOrder(t *testing.T) {
	env := fakeEnv(map[string]string{"CUDA_HOME": "/opt/cuda/", "VIRTUAL_ENV": "/venv"})
	globs := map[string][]string{"/venv/lib/python3*/site-packages": {"/venv/lib/python3.12/site-packages"}}
	got, _ := ncclCandidates(env, fakeGlob(globs, nil), "arm64")
	want := []string{
		"libnccl.so.2",
		"/opt/cuda/lib64/libnccl.so.2",
		"/opt/cuda/targets/sbsa-linux/lib/libnccl.so.2",
		"/usr/lib/aarch64-linux-gnu/libnccl.so.2",
		"/usr/local/cuda/lib64/libnccl.so.2",
		"/usr/local/cuda/targets/sbsa-linux/lib/libnccl.so.2",
		"/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2",
		"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libnccl.so.2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates\n got %q\nwant %q", got, want)
	}
}

func TestNCCLNotFoundMessage(t *testing.T) {
	if !canLoadNCCL {
		_, err := loadNCCL(fakeEnv(nil), fakeGlob(nil, nil), "amd64")
		if !IsNoNCCL(err) || !strings.Contains(err.Error(), "no NCCL: NCCL is not available on") {
			t.Fatalf("got %v", err)
		}
		return
	}
	_, err := loadNCCL(fakeEnv(map[string]string{EnvNCCL: "/nonexistent/libnccl.so.2"}), fakeGlob(nil, nil), "amd64")
	if !IsNoNCCL(err) || IsNoGPU(err) {
		t.Fatalf("IsNoNCCL/IsNoGPU wrong for %v", err)
	}
	if !strings.HasPrefix(err.Error(), "no NCCL: libnccl.so.2 not found ($SOFTMAX_NCCL=/nonexistent/libnccl.so.2") {
		t.Errorf("message %q", err)
	}
}

func TestNCCLVersionString(t *testing.T) {
	for v, want := range map[int]string{22703: "2.27.3", 2804: "2.8.4"} {
		if got := (&NCCL{version: v}).VersionString(); got != want {
			t.Errorf("%d: %s, want %s", v, got, want)
		}
	}
}

// TestNCCLOneRank runs a one-rank communicator both ways (a unique id, and
// CommInitAll) and all-reduces and all-gathers on it.
func TestNCCLOneRank(t *testing.T) {
	_, ctx := gpuOrSkip(t)
	n, err := OpenNCCL()
	if err != nil {
		t.Skip(err.Error())
	}
	if os.Getenv(EnvNVLS) != "0" {
		t.Fatalf("%s=%q, want 0", EnvNVLS, os.Getenv(EnvNVLS))
	}
	t.Logf("NCCL %s from %s", n.VersionString(), n.Path())
	var comms []Comm
	err = ctx.Do(func() error {
		id, err := n.UniqueID()
		if err != nil {
			return err
		}
		c, err := n.CommInitRank(1, id, 0)
		if err != nil {
			return err
		}
		all, err := n.CommInitAll([]int{ctx.Ordinal()})
		comms = append([]Comm{c}, all...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range comms {
		checkOneRankComm(t, n, ctx, c)
		if err := n.CommDestroy(c); err != nil {
			t.Error(err)
		}
	}
}

func checkOneRankComm(t *testing.T, n *NCCL, ctx *Context, c Comm) {
	t.Helper()
	if cnt, err := n.CommCount(c); err != nil || cnt != 1 {
		t.Errorf("CommCount = %d, %v", cnt, err)
	}
	if r, err := n.CommUserRank(c); err != nil || r != 0 {
		t.Errorf("CommUserRank = %d, %v", r, err)
	}
	if d, err := n.CommCuDevice(c); err != nil || d != ctx.Ordinal() {
		t.Errorf("CommCuDevice = %d, %v", d, err)
	}
	in := []float32{1, -2, 3.5, float32(math.Inf(-1))}
	buf, err := ctx.MemAlloc(32)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.MemFree(buf)
	if err := ctx.MemcpyHtoD(buf, unsafe.Pointer(&in[0]), 16); err != nil {
		t.Fatal(err)
	}
	err = ctx.Do(func() error {
		if err := n.AllReduce(buf, buf, 4, NCCLFloat32, NCCLMax, c, 0); err != nil {
			return err
		}
		if err := n.AllGather(buf, buf+16, 4, NCCLFloat32, c, 0); err != nil {
			return err
		}
		return ctx.API().CtxSynchronize()
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 32)
	if err := ctx.MemcpyDtoH(unsafe.Pointer(&out[0]), buf, 32); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != in[i%4] {
			t.Errorf("element %d = %v, want %v", i, got, in[i%4])
		}
	}
	if err := n.CommAsyncError(c); err != nil {
		t.Error(err)
	}
}
