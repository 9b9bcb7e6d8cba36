package plan

import (
	"fmt"
	"math/bits"
)

func init() {
	register(strategy{name: "naive", file: "naive.cu", make: planNaive})
	register(strategy{name: "smem_tree", file: "smem_tree.cu", make: planSmemTree})
	register(strategy{name: "block_vec", file: "block_vec.cu", make: planBlockVec})
	register(strategy{name: "split_row", file: "split_row.cu", make: planSplitRow})
	register(strategy{name: "split_cluster", file: "split_cluster.cu", make: planSplitCluster})
	register(strategy{name: "strided", file: "strided.cu", make: planStrided})
}

func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// naiveMaxAxis bounds the slices naive serves: one thread sums the whole
// slice sequentially in float32, which measured (H200, 2026-11-22) beyond
// 1e-6 relative error from about 4K elements on (7.7e-5 at 70000).
const naiveMaxAxis = 2048

// naive: one thread per slice, any layout; short slices only (accuracy).
func planNaive(p Problem, d Device, occ Occupancy) (Plan, error) {
	if p.Axis > naiveMaxAxis {
		return Plan{}, fmt.Errorf("its sequential float32 sum is not accurate to 1e-6 beyond %d elements", naiveMaxAxis)
	}
	const nt = 128
	sym := fmt.Sprintf("naive_%s_%v", dir(p.Op), p.DType)
	occN := occupancy(occ, "naive.cu", sym, nt, 0, 16)
	slices := p.Outer * p.Inner
	return Plan{Strategy: "naive", File: "naive.cu", Split: 1,
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{nt, 1, 1}, Grid: [3]uint32{gridFor((slices+nt-1)/nt, d, occN), 1, 1}}}}, nil
}

// smem_tree: block per row, tree reduction of per-thread pairs in smem.
func planSmemTree(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	nt := min(max(nextPow2(p.Axis/4), 32), 512)
	sym := fmt.Sprintf("smem_tree_%s_%v", dir(p.Op), p.DType)
	smem := int(nt * 8)
	occN := occupancy(occ, "smem_tree.cu", sym, int(nt), smem, max(1, 2048/int(nt)))
	return Plan{Strategy: "smem_tree", File: "smem_tree.cu", Split: 1,
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{uint32(nt), 1, 1}, Smem: smem, Grid: rowGrid(p, d, occN)}}}, nil
}

// block_vec: block per row, 16-byte loads, exp written then normalized.
func planBlockVec(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	if p.Op.Backward() {
		return Plan{}, fmt.Errorf("it has no backward kernels")
	}
	nt := int64(512)
	if p.Axis < 4096 {
		nt = 256
	}
	sym := fmt.Sprintf("block_vec_fwd_%v", p.DType)
	occN := occupancy(occ, "block_vec.cu", sym, int(nt), 0, max(1, 2048/int(nt)))
	return Plan{Strategy: "block_vec", File: "block_vec.cu", Split: 1, Vec: vecOK(p, p.Axis),
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{uint32(nt), 1, 1}, Grid: rowGrid(p, d, occN)}}}, nil
}

// split_row: `split` blocks per row, partial pairs in the workspace, then a
// merge-and-write phase. The split is sized so rows·split fills the GPU.
func planSplitRow(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	if p.Outer > 65535 {
		return Plan{}, fmt.Errorf("%d rows exceed its grid's y limit of 65535", p.Outer)
	}
	const nt = 512
	P := pack(p.DType)
	target := int64(max(d.SMs, 1) * 4)
	split := max(1, min((target+p.Outer-1)/p.Outer, (p.Axis+8*nt-1)/(8*nt), 1024))
	chunk := roundUp((p.Axis+split-1)/split, P)
	split = (p.Axis + chunk - 1) / chunk
	vec := vecOK(p, p.Axis) // chunk is a multiple of the pack, so chunk starts stay aligned
	ph := func(n int) string { return fmt.Sprintf("split_row_%s_%v_phase%d", dir(p.Op), p.DType, n) }
	grid := [3]uint32{uint32(split), uint32(p.Outer), 1}
	return Plan{Strategy: "split_row", File: "split_row.cu", Split: int(split), Chunk: chunk, Vec: vec,
		Workspace: p.Outer * split * 8,
		Launches: []Launch{{Symbol: ph(1), Block: [3]uint32{nt, 1, 1}, Grid: grid},
			{Symbol: ph(2), Block: [3]uint32{nt, 1, 1}, Grid: grid}}}, nil
}

// split_cluster: a cluster of C blocks per row holds the row in their
// shared memory (one DRAM read, one launch).
func planSplitCluster(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	if d.Major < 9 || !d.Cluster {
		return Plan{}, fmt.Errorf("thread-block clusters need sm_90 or newer")
	}
	nin := int64(1)
	if p.Op.Backward() {
		nin = 2
	}
	P := pack(p.DType)
	limit := int64(max(d.SmemOptin, d.SmemPerBlock)) - 1024
	for _, c := range []int64{2, 4, 8} {
		chunk := roundUp((p.Axis+c-1)/c, P)
		smem := nin * roundUp(chunk*int64(p.DType.Size()), 16)
		if smem > limit {
			continue
		}
		const nt = 512
		sym := fmt.Sprintf("split_cluster_%s_%v", dir(p.Op), p.DType)
		return Plan{Strategy: "split_cluster", File: "split_cluster.cu", Split: int(c), Chunk: chunk, Vec: vecOK(p, p.Axis),
			Launches: []Launch{{Symbol: sym, Block: [3]uint32{nt, 1, 1}, Smem: int(smem),
				Grid: [3]uint32{uint32(c), uint32(min(p.Outer, 65535)), 1}, Cluster: [3]uint32{uint32(c), 1, 1}}}}, nil
	}
	return Plan{}, fmt.Errorf("a row of %d elements does not fit the shared memory of an 8-block cluster", p.Axis)
}

// strided: tiles of TX inner indices × TY threads along the axis; split
// along the axis when the tiles alone cannot fill the GPU.
func planStrided(p Problem, d Device, occ Occupancy) (Plan, error) {
	tx := min(nextPow2(p.Inner), 32)
	ty := int64(256) / tx
	tiles := p.Outer * ((p.Inner + tx - 1) / tx)
	base := fmt.Sprintf("strided_%s_%v", dir(p.Op), p.DType)
	block := [3]uint32{uint32(tx), uint32(ty), 1}
	target := int64(max(d.SMs, 1) * 8)
	if tiles >= target || p.Axis < 4*ty*8 {
		occN := occupancy(occ, "strided.cu", base, int(tx*ty), 0, 8)
		return Plan{Strategy: "strided", File: "strided.cu", Split: 1,
			Launches: []Launch{{Symbol: base, Block: block, Grid: [3]uint32{gridFor(tiles, d, occN), 1, 1}}}}, nil
	}
	split := max(1, min((target+tiles-1)/tiles, p.Axis/(ty*8), 65535))
	chunk := (p.Axis + split - 1) / split
	split = (p.Axis + chunk - 1) / chunk
	grid := [3]uint32{uint32(min(tiles, 1<<31-1)), uint32(split), 1}
	return Plan{Strategy: "strided", File: "strided.cu", Split: int(split), Chunk: chunk,
		Workspace: p.Outer * p.Inner * split * 8,
		Launches: []Launch{{Symbol: base + "_split1", Block: block, Grid: grid},
			{Symbol: base + "_split2", Block: block, Grid: grid}}}, nil
}
