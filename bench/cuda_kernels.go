package bench

import (
	"fmt"
	"strings"
)

// KernelInfo lists every compiled kernel's registers, shared memory,
// spills and occupancy, one table row per kernel (softmax info --kernels).
func (b *cudaBackend) KernelInfo() ([]string, error) {
	rs, err := b.dev.KernelResources()
	if err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("%-42s %5s %7s %6s %5s %6s %8s %7s  %s",
		"kernel", "regs", "static", "local", "maxT", "block", "dyn smem", "blk/SM", "launch seen in")}
	for _, r := range rs {
		seen := "(not planned; block = maxT)"
		if r.Shape != nil {
			dims := make([]string, len(r.Shape))
			for i, n := range r.Shape {
				dims[i] = fmt.Sprint(n)
			}
			seen = fmt.Sprintf("%s axis %d", strings.Join(dims, "x"), r.Axis)
		}
		lines = append(lines, fmt.Sprintf("%-42s %5d %7d %6d %5d %6d %8d %7d  %s",
			r.Symbol, r.Registers, r.StaticSmem, r.LocalBytes, r.MaxThreads, r.Block, r.DynSmem, r.BlocksPerSM, seen))
	}
	return lines, nil
}
