package plan

import "fmt"

func init() {
	register(strategy{name: "block_reg", file: "block_reg.cu", make: planBlockReg})
	register(strategy{name: "block_smem", file: "block_smem.cu", make: planBlockSmem})
	register(strategy{name: "online_2pass", file: "online_2pass.cu", make: planOnline2Pass})
}

func roundUp(n, m int64) int64 { return (n + m - 1) / m * m }

func lastAxisOnly(p Problem) error {
	if p.Inner != 1 {
		return fmt.Errorf("needs a last-axis layout (inner = 1)")
	}
	return nil
}

// rowGrid is one block per row, capped at what is resident (the kernels
// grid-stride over the remaining rows).
func rowGrid(p Problem, d Device, occN int) [3]uint32 {
	return [3]uint32{gridFor(p.Outer, d, occN), 1, 1}
}

// block_reg: NP packs per thread; the smallest NP whose block fits.
func planBlockReg(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	P := pack(p.DType)
	for _, np := range []int64{1, 2, 4} {
		limit := int64(1024)
		if np == 4 {
			limit = 512
		}
		nt := max(roundUp((p.Axis+np*P-1)/(np*P), 32), 32)
		if nt > limit {
			continue
		}
		sym := fmt.Sprintf("block_reg_%s_%v_p%d", dir(p.Op), p.DType, np)
		occN := occupancy(occ, "block_reg.cu", sym, int(nt), 0, max(1, 2048/int(nt)))
		return Plan{Strategy: "block_reg", File: "block_reg.cu", Split: 1, Vec: vecOK(p, p.Axis),
			Launches: []Launch{{Symbol: sym, Block: [3]uint32{uint32(nt), 1, 1}, Grid: rowGrid(p, d, occN)}}}, nil
	}
	return Plan{}, fmt.Errorf("rows of %d elements exceed its register cache (%d)", p.Axis, 2048*P)
}

// block_smem: the row (backward: y and dy) in dynamic shared memory.
func planBlockSmem(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	nin := int64(1)
	if p.Op.Backward() {
		nin = 2
	}
	smem := nin * roundUp(p.Axis*int64(p.DType.Size()), 16)
	limit := int64(max(d.SmemOptin, d.SmemPerBlock)) - 1024 // static smem and reserve
	if smem > limit {
		return Plan{}, fmt.Errorf("a row needs %d bytes of shared memory, the device allows %d per block", smem, limit)
	}
	nt := min(max(roundUp(p.Axis/pack(p.DType), 32), 128), 512)
	sym := fmt.Sprintf("block_smem_%s_%v", dir(p.Op), p.DType)
	occN := occupancy(occ, "block_smem.cu", sym, int(nt), int(smem), 1)
	return Plan{Strategy: "block_smem", File: "block_smem.cu", Split: 1, Vec: vecOK(p, p.Axis),
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{uint32(nt), 1, 1}, Smem: int(smem), Grid: rowGrid(p, d, occN)}}}, nil
}

// online_2pass: any row length, one block per row.
func planOnline2Pass(p Problem, d Device, occ Occupancy) (Plan, error) {
	if err := lastAxisOnly(p); err != nil {
		return Plan{}, err
	}
	nt := min(max(roundUp(p.Axis/(4*pack(p.DType)), 32), 128), 512)
	sym := fmt.Sprintf("online_2pass_%s_%v", dir(p.Op), p.DType)
	occN := occupancy(occ, "online_2pass.cu", sym, int(nt), 0, max(1, 2048/int(nt)))
	return Plan{Strategy: "online_2pass", File: "online_2pass.cu", Split: 1, Vec: vecOK(p, p.Axis),
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{uint32(nt), 1, 1}, Grid: rowGrid(p, d, occN)}}}, nil
}
