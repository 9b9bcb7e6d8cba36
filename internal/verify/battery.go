package verify

import "github.com/gofused/softmax/internal/spec"

var (
	allDTypes = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16, spec.Float64}
	allOps    = []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	edgeFills = []Fill{NegInf, AllNegInf, NaN, PosInf, Huge, Constant, Wide}
	// Backward edges: y with zeros (softmax) or −∞ (log-softmax) from −∞
	// inputs and underflow, y all NaN, NaN in y or dy, all-zero dy.
	backwardFills = []Fill{NegInf, AllNegInf, NaN, Wide, DYNaN, DYZero}
	backwardOps   = []spec.Op{spec.SoftmaxBackward, spec.LogSoftmaxBackward}
)

// shapeAxis is a shape with the axis to reduce.
type shapeAxis struct {
	shape []int
	axis  int
}

// Battery returns the standard checks: every op × dtype over ragged
// last-axis sizes (1, 7, 781, 1000, 4096, 4097, 20000, 1000003), 2-D and 3-D tensors
// along every axis, scales, zero-size tensors, a scalar, and every edge fill;
// backward with the scale, its edge fills and in place (backwardCases).
// With quick set, the million-element row is left out (fast unit tests).
func Battery(quick bool) []Case {
	shapes := []shapeAxis{
		{[]int{1}, -1}, {[]int{7}, -1}, {[]int{781}, 0}, {[]int{3, 1000}, -1},
		{[]int{5, 4097}, 1}, {[]int{300, 33}, -1}, {[]int{2, 70000}, -1},
		{[]int{1000, 7}, 0}, {[]int{781, 33}, 0}, {[]int{64, 300}, -2},
		{[]int{4, 5, 6}, 0}, {[]int{4, 5, 6}, 1}, {[]int{4, 5, 6}, 2},
		{[]int{2, 1000, 3}, 1}, {[]int{3, 129, 70}, -2}, {[]int{2, 3, 4097}, 2},
		{[]int{3, 130, 64}, 1}, {[]int{1500, 40}, 0}, // whole packs across Inner (strided_reg)
		{[]int{3, 20000}, -1}, // rows past 512 threads' registers, last shared pack partial (block_hybrid)
		{[]int{6, 4096}, -1},  // few whole-pack rows: 512 threads × 1-2 packs (block_reg)
		// Short rows in half-width lane groups, two packs a lane (warp_row
		// w*_p2): whole packs (96; 16 for f32), and ragged rows through the
		// twins' masked body (77 f32, 201), whose last block step takes the
		// general body.
		{[]int{37, 96}, -1}, {[]int{50, 16}, -1}, {[]int{41, 77}, -1}, {[]int{23, 201}, -1},
		// Ragged rows under 16 packs: warp_row's twins (100 and 126
		// 16-bit, two packs a lane; 21 16-bit, one; 10 f32, two), and 59,
		// whose span would take twice the lanes, element by element
		// (16-bit: the general build).
		{[]int{29, 100}, -1}, {[]int{45, 10}, -1}, {[]int{31, 59}, -1}, {[]int{33, 21}, -1}, {[]int{27, 126}, -1},
		// Three packs a lane (w*_p3; also 96 and 77 above, 59 and 126
		// 16-bit): 160 over 16 f32 lanes and 8 16-bit, ragged 150 over 16
		// and 8, 384 16-bit over 16.
		{[]int{17, 160}, -1}, {[]int{19, 150}, -1}, {[]int{21, 384}, -1},
		// Short axes (strided_short): whole packs across Inner, and a ragged
		// Inner (3×7×300 16-bit, its twin); 16-bit 5×16×40 and 7×6×64
		// backward hold their tiles packed.
		{[]int{9, 4, 64}, 1}, {[]int{5, 16, 40}, 1}, {[]int{3, 7, 300}, 1}, {[]int{7, 6, 64}, 1},
		// Lane pairs (17-32 rows, backward 9-16): odd and even axes, whole
		// packs and a ragged Inner.
		{[]int{5, 17, 40}, 1}, {[]int{3, 13, 64}, 1}, {[]int{4, 24, 37}, 1},
		// Four lanes a slice (33-48 rows, backward 17-32), the last lane
		// short of rows: 37 (3 short), 45 on a ragged Inner (3), 19 (1).
		{[]int{3, 37, 64}, 1}, {[]int{4, 45, 37}, 1}, {[]int{5, 19, 40}, 1},
		// strided_reg's twins (Inner not whole packs): a 2-block cluster
		// over a ragged Inner, and part tiles of a wider one.
		{[]int{2, 600, 45}, 1}, {[]int{3, 70, 333}, 1},
		// strided_narrow (a power-of-two Inner up to 8 packs): a pack
		// holding several rows (Inner 4 of 16-bit), a block not of whole
		// packs (its twin), 4-8 warps an outer index, 4-pack rows.
		{[]int{5, 64, 4}, 1}, {[]int{3, 333, 2}, 1}, {[]int{4, 1000, 8}, 1}, {[]int{3, 99, 16}, 1},
		// strided_smem (any Inner, the block staged in shared memory): a
		// ragged Inner wider than a small block's threads, and a narrow one
		// that is not a power of two (row groups merging a column).
		{[]int{3, 49, 129}, 1}, {[]int{5, 40, 6}, 1},
		{[]int{}, -1}, {[]int{0, 5}, 1}, {[]int{5, 0}, -1}, {[]int{0}, 0},
	}
	if !quick {
		shapes = append(shapes, shapeAxis{[]int{1000003}, -1}, shapeAxis{[]int{2, 1000003}, 0})
	}
	var cases []Case
	for _, sa := range shapes {
		for _, dt := range allDTypes {
			for _, op := range allOps {
				cases = append(cases, Case{Shape: sa.shape, Axis: sa.axis, DType: dt, Op: op, Fill: Random})
			}
		}
	}
	for _, dt := range allDTypes {
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			for _, sc := range []float64{0.5, -2} {
				cases = append(cases, Case{Shape: []int{9, 781}, Axis: -1, DType: dt, Op: op, Scale: sc, Fill: Random},
					Case{Shape: []int{5, 30, 45}, Axis: 1, DType: dt, Op: op, Scale: sc, Fill: Random}, // strided_short's lane-pair twin (strided's when forced)
					Case{Shape: []int{5, 6, 80}, Axis: 1, DType: dt, Op: op, Scale: sc, Fill: Random},  // strided_short's packs
					Case{Shape: []int{3, 50, 45}, Axis: 1, DType: dt, Op: op, Scale: sc, Fill: Random}, // strided_reg's twin
					Case{Shape: []int{4, 50, 8}, Axis: 1, DType: dt, Op: op, Scale: sc, Fill: Random})  // strided_narrow
			}
			for _, f := range edgeFills {
				cases = append(cases,
					Case{Shape: []int{16, 781}, Axis: -1, DType: dt, Op: op, Fill: f},
					Case{Shape: []int{37, 5, 3}, Axis: 1, DType: dt, Op: op, Fill: f},
					Case{Shape: []int{6, 200, 32}, Axis: 1, DType: dt, Op: op, Fill: f},
					Case{Shape: []int{6, 40, 37}, Axis: 1, DType: dt, Op: op, Fill: f},  // ragged Inner: strided's twin
					Case{Shape: []int{4, 60, 37}, Axis: 1, DType: dt, Op: op, Fill: f},  // ragged Inner past 48 rows: strided_reg's twin
					Case{Shape: []int{12, 3, 64}, Axis: 1, DType: dt, Op: op, Fill: f},  // short axis, whole packs
					Case{Shape: []int{10, 12, 64}, Axis: 1, DType: dt, Op: op, Fill: f}, // 16-bit: a packed tile
					Case{Shape: []int{6, 21, 64}, Axis: 1, DType: dt, Op: op, Fill: f},  // a lane pair, odd axis
					Case{Shape: []int{6, 35, 64}, Axis: 1, DType: dt, Op: op, Fill: f},  // four lanes, the last one short
					Case{Shape: []int{6, 100, 8}, Axis: 1, DType: dt, Op: op, Fill: f},  // strided_narrow
					Case{Shape: []int{2, 24576}, Axis: -1, DType: dt, Op: op, Fill: f})
			}
		}
	}
	return append(cases, backwardCases()...)
}

// backwardCases are the backward checks beyond the random ones: the scale
// (positive, negative) through each kind of strategy, the edge fills, and
// dx in place of y or dy (forward: dst in place of x), on shapes the CPU
// shares out to workers.
func backwardCases() []Case {
	scaled := []shapeAxis{
		{[]int{9, 781}, -1}, {[]int{37, 96}, -1}, {[]int{6, 4096}, -1}, {[]int{3, 20000}, -1}, {[]int{2, 70000}, -1},
		{[]int{5, 30, 45}, 1}, {[]int{5, 6, 80}, 1}, {[]int{3, 50, 45}, 1}, {[]int{4, 50, 8}, 1},
	}
	edges := []shapeAxis{{[]int{16, 781}, -1}, {[]int{37, 5, 3}, 1}, {[]int{6, 200, 32}, 1}, {[]int{6, 40, 37}, 1}, {[]int{2, 24576}, -1}}
	// 24×4096 and 6×300×64 f32 go to two CPU workers (more: TestEngineBackwardInPlace).
	aliased := []shapeAxis{{[]int{9, 781}, -1}, {[]int{24, 4096}, -1}, {[]int{5, 30, 45}, 1}, {[]int{6, 300, 64}, 1}}
	var cases []Case
	for _, dt := range allDTypes {
		for _, op := range backwardOps {
			for _, sc := range []float64{0.5, -2} {
				for _, sa := range scaled {
					cases = append(cases, Case{Shape: sa.shape, Axis: sa.axis, DType: dt, Op: op, Scale: sc, Fill: Random})
				}
			}
			for _, f := range backwardFills {
				for _, sa := range edges {
					cases = append(cases, Case{Shape: sa.shape, Axis: sa.axis, DType: dt, Op: op, Fill: f})
				}
				cases = append(cases, Case{Shape: []int{16, 781}, Axis: -1, DType: dt, Op: op, Scale: -0.5, Fill: f})
			}
			for k, sa := range aliased {
				for _, a := range []Alias{AliasY, AliasDY} {
					sc := []float64{1, -2}[k%2]
					cases = append(cases, Case{Shape: sa.shape, Axis: sa.axis, DType: dt, Op: op, Scale: sc, Fill: Random, Alias: a})
				}
			}
		}
		for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax} {
			for _, sa := range aliased {
				cases = append(cases, Case{Shape: sa.shape, Axis: sa.axis, DType: dt, Op: op, Scale: 0.5, Fill: Random, Alias: AliasX})
			}
		}
	}
	return cases
}
