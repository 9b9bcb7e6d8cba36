// Package plan turns a problem (layout, dtype, op, alignment) and the
// device's properties into a kernel strategy and its launch configuration.
// It is a pure function of its inputs (the occupancy query is injected), so
// every rule is unit-tested on the CPU.
//
// Rules (first match wins; Inner == 1 means contiguous rows):
//   - Inner > 1: strided, coalesced across the inner dimension.
//   - rows of up to 1024 f32 / 2048 f16 columns: warp_row, a sub-warp group
//     per row sized to the row, the row held in registers, one DRAM read.
//   - longer rows that fit the register cache of one block: block_reg.
//   - rows that fit the opt-in shared memory with at least one block per SM:
//     block_smem (one DRAM read).
//   - fewer rows than SMs with long rows: split_row (partials in a
//     workspace), so every SM streams part of the row.
//   - otherwise online_2pass: one block per row, the second read mostly
//     from L2.
//
// A forced strategy (Options.Algo) is checked against what its kernels can
// serve and refused with an error otherwise.
package plan

import (
	"fmt"

	"github.com/gofused/softmax/internal/spec"
)

// Device is the part of the device properties the planner uses.
type Device struct {
	Name               string
	Major, Minor       int
	SMs                int
	L2Bytes            int
	SmemPerBlock       int // default dynamic limit
	SmemOptin          int // opt-in limit per block
	SmemPerSM          int
	MaxThreadsPerSM    int
	MaxThreadsPerBlock int
	Cluster            bool
}

// Problem is one operation to plan.
type Problem struct {
	Outer, Axis, Inner int64
	DType              spec.DType
	Op                 spec.Op
	// Aligned reports that every pointer is 16-byte aligned; the row stride
	// is checked here.
	Aligned bool
}

// Launch is one kernel launch of a plan.
type Launch struct {
	Symbol  string
	Grid    [3]uint32
	Block   [3]uint32
	Smem    int       // dynamic shared memory, bytes
	Cluster [3]uint32 // zero: no cluster launch
}

// Plan is a strategy with its launches, in order.
type Plan struct {
	Strategy  string
	File      string // kernel source file
	Launches  []Launch
	Workspace int64 // bytes of float workspace needed
	Split     int   // chunks per slice (split strategies), else 1
	Chunk     int64 // axis elements per chunk (split strategies)
	Vec       bool  // 16-byte path enabled
}

// Occupancy returns the max active blocks per SM of a kernel for a block
// size and dynamic shared memory (cuOccupancyMaxActiveBlocksPerMultiprocessor).
type Occupancy func(file, symbol string, block, smem int) (int, error)

// strategy is one kernel family the planner knows.
type strategy struct {
	name string
	file string
	// make returns the plan, or an error saying why it cannot serve p.
	make func(p Problem, d Device, occ Occupancy) (Plan, error)
}

var strategies []strategy

func register(s strategy) { strategies = append(strategies, s) }

// Strategies lists the strategy names the planner can use.
func Strategies() []string {
	names := make([]string, len(strategies))
	for i, s := range strategies {
		names[i] = s.name
	}
	return names
}

// Make plans p on d. force names a strategy ("" or "auto": the rules).
func Make(p Problem, d Device, occ Occupancy, force string) (Plan, error) {
	if p.Outer <= 0 || p.Axis <= 0 || p.Inner <= 0 {
		return Plan{}, fmt.Errorf("plan: empty problem %d×%d×%d (nothing to launch)", p.Outer, p.Axis, p.Inner)
	}
	if force != "" && force != "auto" {
		for _, s := range strategies {
			if s.name == force {
				pl, err := s.make(p, d, occ)
				if err != nil {
					return Plan{}, fmt.Errorf("plan: %s cannot serve %v %v %d×%d×%d: %w", force, p.Op, p.DType, p.Outer, p.Axis, p.Inner, err)
				}
				return pl, nil
			}
		}
		return Plan{}, fmt.Errorf("plan: unknown strategy %q (have %v)", force, Strategies())
	}
	for _, name := range choose(p, d) {
		for _, s := range strategies {
			if s.name == name {
				if pl, err := s.make(p, d, occ); err == nil {
					return pl, nil
				}
			}
		}
	}
	return Plan{}, fmt.Errorf("plan: no strategy serves %v %v %d×%d×%d", p.Op, p.DType, p.Outer, p.Axis, p.Inner)
}

// choose lists strategies in order of preference for p; the first that can
// serve it wins.
func choose(p Problem, d Device) []string {
	if p.Inner > 1 {
		return []string{"strided", "naive"}
	}
	few := p.Outer < int64(max(d.SMs, 1))
	if few && p.Axis > 16384 {
		// Long rows, too few to fill the GPU one block each.
		return []string{"split_cluster", "split_row", "online_2pass", "naive"}
	}
	return []string{"warp_row", "block_reg", "block_smem", "online_2pass", "split_row", "block_vec", "smem_tree", "naive"}
}

// vecOK reports whether the 16-byte path may be used for rows of n elements.
func vecOK(p Problem, n int64) bool {
	return p.Aligned && (n*int64(p.DType.Size()))%16 == 0
}

// pack is the number of elements in 16 bytes.
func pack(dt spec.DType) int64 { return int64(16 / dt.Size()) }

func dir(op spec.Op) string {
	if op.Backward() {
		return "bwd"
	}
	return "fwd"
}

// gridFor caps a block count by what can be resident (grid-stride kernels
// loop over the rest) and by the grid limit.
func gridFor(blocksNeeded int64, d Device, perSM int) uint32 {
	limit := int64(max(1, d.SMs) * max(1, perSM))
	g := min(blocksNeeded, limit, 1<<31-1)
	return uint32(max(g, 1))
}

func occupancy(occ Occupancy, file, sym string, block, smem, fallback int) int {
	if occ == nil {
		return fallback
	}
	n, err := occ(file, sym, block, smem)
	if err != nil || n <= 0 {
		return fallback
	}
	return n
}
