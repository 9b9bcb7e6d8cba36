package plan

import (
	"fmt"
)

func init() {
	register(strategy{name: "warp_row", file: "warp_row.cu", make: planWarpRow})
}

// warp_row: a group of W lanes per row holding NP 16-byte packs each;
// 128-thread blocks grid-stride over row groups.
func planWarpRow(p Problem, d Device, occ Occupancy) (Plan, error) {
	if p.Inner != 1 {
		return Plan{}, fmt.Errorf("needs a last-axis layout (inner = 1)")
	}
	P := pack(p.DType)
	maxNP := int64(8)
	if p.Op.Backward() {
		maxNP = 4
	}
	w, np := int64(1), int64(1)
	for w < 32 && w*P < p.Axis {
		w *= 2
	}
	for np < maxNP && w*np*P < p.Axis {
		np *= 2
	}
	if w*np*P < p.Axis {
		return Plan{}, fmt.Errorf("rows of %d elements exceed its register cache (%d)", p.Axis, w*np*P)
	}
	sym := fmt.Sprintf("warp_row_%s_%v_w%d_p%d", dir(p.Op), p.DType, w, np)
	const block = 128
	rowsPerBlock := int64(block) / w
	occN := occupancy(occ, "warp_row.cu", sym, block, 0, 8)
	return Plan{
		Strategy: "warp_row", File: "warp_row.cu", Split: 1, Vec: vecOK(p, p.Axis),
		Launches: []Launch{{Symbol: sym, Block: [3]uint32{block, 1, 1},
			Grid: [3]uint32{gridFor((p.Outer+rowsPerBlock-1)/rowsPerBlock, d, occN), 1, 1}}},
	}, nil
}
