package cuda

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/kernels"
)

// The registers and local memory of every xent.cu row kernel as this
// device's compiler builds them, logged for the planner's table; the
// "_tail" kernels, which hold the 32-register cache while their tail
// streams, must not spill it (launch bounds of 1024 threads: 64 registers).
func TestXentKernelResources(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	for _, in := range kernels.XentInstances() {
		if !strings.HasPrefix(in.Symbol, "xent_row_") {
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
		if strings.Contains(in.Symbol, "_tail") && local > 0 {
			t.Errorf("%s spills: %d bytes of local memory a thread (%d registers)", in.Symbol, local, regs)
		}
	}
}
