package cuda

import (
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// Every kernel compiles, reports its resources, and every launch the
// planner makes for it can be resident (at least one block per SM).
func TestKernelResources(t *testing.T) {
	d := openOrSkip(t)
	rs, err := d.KernelResources()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, in := range kernels.All() {
		if in.Cluster && !d.Props().ClusterLaunch {
			continue
		}
		for _, dt := range []spec.DType{spec.Float32, spec.Float16, spec.BFloat16} {
			want += len(in.Symbols(dt))
		}
	}
	if len(rs) != want {
		t.Errorf("%d kernels reported, the catalogue has %d for this device", len(rs), want)
	}
	for _, r := range rs {
		if r.Registers <= 0 || r.MaxThreads < 32 {
			t.Errorf("%s: implausible attributes %+v", r.Symbol, r)
		}
		if r.Shape != nil && r.BlocksPerSM < 1 {
			t.Errorf("%s: planned launch of %d threads and %d B dynamic smem for %v cannot be resident", r.Symbol, r.Block, r.DynSmem, r.Shape)
		}
		if r.LocalBytes > 0 {
			t.Logf("%s spills: %d local bytes per thread", r.Symbol, r.LocalBytes)
		}
	}
}
