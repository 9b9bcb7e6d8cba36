package cuda

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/kernels"
)

// The registers and local memory of every xent.cu row kernel and sharded
// kernel as this device's compiler builds them, logged for the planner's
// table. The
// "_tail" kernels hold the 32-register cache while their tail streams
// (1024 threads: 64 registers) and spill a little with NVRTC 13 on sm_90
// (16 bytes a thread f32, 40-56 16-bit, 120 f64; still ahead of the
// streaming kernel, nvidia-h200-2026-11-29-s70.txt call 5): more than
// tailSpillMax bytes fails.
func TestXentKernelResources(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, in := range kernels.XentInstances() {
		if !strings.HasPrefix(in.Symbol, "xent_row_") && !strings.HasPrefix(in.Symbol, "shard_") {
			continue
		}
		f, err := d.xentFunction(in.Symbol)
		if err != nil {
			t.Fatal(err)
		}
		var regs, local int
		if err := d.ctx.Do(func() (err error) {
			if regs, err = d.api.FuncGetAttribute(driver.CU_FUNC_ATTRIBUTE_NUM_REGS, f); err != nil {
				return err
			}
			local, err = d.api.FuncGetAttribute(driver.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", in.Symbol, err)
		}
		t.Logf("%-44s %3d registers, %4d bytes local", in.Symbol, regs, local)
		if strings.Contains(in.Symbol, "_tail") && local > tailSpillMax {
			t.Errorf("%s spills: %d bytes of local memory a thread (%d registers)", in.Symbol, local, regs)
		}
	}
}

// tailSpillMax bounds the "_tail" kernels' local memory a thread (see
// TestXentKernelResources).
const tailSpillMax = 128
