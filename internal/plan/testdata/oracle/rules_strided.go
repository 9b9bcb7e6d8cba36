package oracle

import (
	"fmt"

	"github.com/gofused/softmax/internal/kernels"
)

// stridedShortFirst reports whether strided_short is the measured winner:
// it has a kernel for the axis (2..48 rows forward, 2..32 backward, every
// dtype; lane pairs past 16 and 8 rows, four lanes past 32 and 16), with
// Inner of whole packs and aligned pointers or (its twins) any other Inner.
// Session 33
// (H200, softmax bench, L2 flushed, median µs, strided_short vs strided,
// the previous pick; -ab-s33.txt): it led on every case, at 0.47-1.16 of
// copy speed where strided ran 0.01-0.86. 16-byte kernels (§1):
// 131072×4×64 f16 38.6 vs 372.5, 16384×4×512 f16 38.2 vs 151.5,
// 5350×8×784 bf16 39.3 vs 157.8, 4096×16×512 f32 74.0 vs 121.2, 16×8×8192
// f16 (2 MB) 6.78 vs 11.1, 2089×8×1004 f32 log_softmax 40.1 vs 64.2,
// 32768×4×128 f32 softmax_backward 52.8 vs 60.6, 1024×8×4096 f32
// log_softmax_backward 101.0 vs 115.6. Twins (§2): 20000×16×101 f32 94.5
// vs 205.6, 16384×4×500 f16 57.5 vs 282.0, 100000×3×7 f32 13.1 vs 127.2,
// 1000000×2×2 bf16 14.1 vs 1077.8, 8192×4×37 bf16 log_softmax_backward
// 11.1 vs 19.6, 20000×8×101 f32 softmax_backward 63.8 vs 69.6 (the
// closest). Session 34 (-ab-s34.txt §1), the 16-bit tiles held packed
// (forward 9-16 rows, backward 5-8) against strided: 4096×9×1024 f16 43.6
// vs 134.9, 4096×16×1024 bf16 log_softmax 86.2 vs 194.7, 2048×16×512 f16
// 30.2 vs 55.8, 4096×8×1024 bf16 softmax_backward 59.3 vs 66.0 (the
// closest), 4096×5×1024 f16 log_softmax_backward 38.3 vs 60.8; their twins
// 65536×8×9 f16 softmax_backward 22.1 vs 209.0, 20000×16×101 bf16 63.2 vs
// 397.5. Lane pairs (-ab-s34.txt §2, 17-32 rows, backward 9-16), against
// strided: 1024×17×4096 f32 145.0 vs 278.2, 4096×32×512 f32 137.4 vs
// 287.2, 2048×20×1024 bf16 log_softmax 46.9 vs 125.1, 4096×16×1024 f32
// softmax_backward 196.4 vs 235.1, 4096×22×256 f16 31.2 vs 72.0; twins
// 8192×32×37 bf16 28.5 vs 159.2, 20000×24×101 f32 147.3 vs 296.0,
// 65536×9×9 f16 softmax_backward 21.1 vs 209.6, 3000×13×333 f32
// log_softmax_backward 61.9 vs 63.0 (the closest). Four lanes (§3, 33-48
// rows, backward 17-32), against strided and, where it serves, strided_reg:
// 1024×33×4096 f32 290.8 vs 668.0 / 578.9, 2048×36×1024 bf16 log_softmax
// 84.5 vs 234.5 / 276.7, 1024×48×2048 f32 211.0 vs 411.8 / 291.1,
// 2048×48×512 bf16 87.0 vs 160.3 / 144.8 (so 48 rows stay here, ahead of
// strided_reg's range), 8192×45×37 bf16 46.8 vs 194.0, 4096×24×1024 f32
// softmax_backward 295.0 vs 431.3, 4096×17×512 f16 log_softmax_backward
// 68.4 vs 83.1 (the closest).
func (c *ctx) stridedShortFirst() bool {
	_, _, ok := c.stridedShortVariant()
	return ok
}

// stridedNarrowMinAxis is the shortest axis strided_narrow takes ahead of
// strided_short (which serves up to 48 rows forward, 32 backward): 24 rows
// for f32 forward, 32 otherwise (see stridedNarrowFirst).
func (c *ctx) stridedNarrowMinAxis() int64 {
	if c.es == 4 && !c.bwd {
		return 24
	}
	return 32
}

// stridedNarrowFirst reports whether strided_narrow is the measured winner
// for a non-last axis: an Inner it takes (a power of two up to 8 packs)
// narrower than the 8-pack tiles strided_reg wants, a block it holds, and
// an axis of at least stridedNarrowMinAxis. H200, softmax bench, L2
// flushed, µs, strided_narrow against the pick before (-ab-s36.txt §1):
// 100000×64×4 f32 61.9 vs strided 346.1 (0.85 of copy; torch 262),
// 20000×100×8 f16 28.6 vs 157.4, 10000×256×4 f32 34.5 vs 138.5,
// 2000×1000×8 f32 (8 warps an outer index) 68.3 vs 76.1, 100000×99×2 f32
// (its twin) 59.6 vs 405.4, 100000×64×4 bf16 63.0 vs 970.1, 30000×200×4
// f16 39.6 vs 332.8, 10000×100×16 f32 67.7 vs strided_reg 80.3 and strided
// 143.1, 50000×100×8 bf16 log_softmax 61.1 vs 385.6, 100000×50×2 f16
// (twin, 13 packs a warp) 68.6 vs 218.3; backward 100000×64×4 f32 79.8 vs
// 154.4 (0.96 of copy), 20000×100×8 f16 log_softmax_backward 53.2 vs 79.2,
// 2000×1000×8 f32 66.3 vs 65.6 (a tie). At 8 packs strided_reg's tiles
// lead (4000×128×32 f32 40.8 vs 61.7, 2000×128×64 f16 33.2 vs 39.3).
// Against strided_short (§1-2): f32 forward it leads from 24 rows
// (200000×24×4 80.9 vs 88.3, log_softmax 100000×24×4 39.6 vs 49.6,
// 200000×32×4 82.5 vs 126.2, 100000×33×4 52.5 vs 60.8) but not at 17 or 16
// (78.9 vs 67.8, 76.7 vs 71.9); f16 only from 32 (100000×32×8 60.4 vs
// 70.6; 24 rows 60.0 vs 55.9, 17 rows 59.4 vs 36.6), bf16 ties at 40
// (76.1 vs 76.7); backward at 32 rows (200000×32×4 f32 84.0 vs 145.0), not
// 24 (100000×24×8 f16 log_softmax_backward 51.4 vs 48.5; 17 rows f32 a
// tie); backward groups of at most stridedNarrowMaxBackwardWarps. Few
// outer indices need no floor: with one to eight blocks it
// still led strided's split axis (§2: 16×2000×4 f32 9.60 vs 14.4,
// 8×1000×8 f16 10.1 vs 17.4, 128×256×4 f32 7.33 vs 8.75).
func (c *ctx) stridedNarrowFirst() bool {
	p := c.p
	if p.Inner >= 8*c.P || p.Axis < c.stridedNarrowMinAxis() {
		return false
	}
	gw, _, ok := kernels.StridedNarrowShape(p.Op, c.dt, p.Axis, p.Inner)
	return ok && (!c.bwd || gw <= stridedNarrowMaxBackwardWarps)
}

// stridedSmemFirst reports whether strided_smem is the measured winner
// for a non-last axis: its tiles fit at least stridedSmemMinBlocks blocks
// an SM and there are at least as many tiles as SMs. H200, softmax bench,
// L2 flushed, µs, against the pick before (-ab-s37.txt §1, §4): a ragged
// Inner, 3000×49×129 f16 56.2 vs strided_reg 166.6 (torch 108),
// 2000×63×333 bf16 log_softmax 121.2 vs 200.2, 1000×50×333 f32 55.1 vs
// 73.9, 4000×60×37 bf16 26.0 vs 77.2, 22982×113×3 bf16 log_softmax 26.9
// vs strided 240.4, 1020×567×10 bf16 log_softmax 20.8 vs 56.8; whole packs,
// 4096×128×36 f32 58.3 vs strided_reg 67.8, 2048×64×72 f16 27.9 vs 53.7,
// 248×353×122 bf16 42.9 vs 54.0; backward, 3000×49×129 f16 53.8 vs strided
// 128.4, 5000×64×45 bf16 33.1 vs 89.7. It lost with one block an SM
// (500×64×1001 f16, 128 KB: 121.1 vs strided_reg 100.9; 1024×49×1001 f32
// 185.3 vs 180.3) and with few tiles (34×160×185 f32 19.6 vs 11.2,
// 8×4096×4 f32 15.6 vs 9.42), and strided_reg keeps Inner of whole 8-pack
// tiles (§5: 4000×128×32 f32 40.1 vs 48.1, 2000×128×64 f16 33.4 vs 39.6,
// 1024×128×128 f32 44.5 vs 57.4, 512×64×256 f16 24.4 vs 31.6).
func (c *ctx) stridedSmemFirst() bool {
	if err := c.check(kernels.StridedSmem); err != nil {
		return false
	}
	sh := c.stridedSmemShape()
	if ceilDiv(c.p.Outer, sh.tile) < int64(c.d.SMs) {
		return false
	}
	occ, err := c.fits(kernels.StridedSmem.Info().File, sh.sym, int(sh.nt), sh.smem)
	return err == nil && occ >= stridedSmemMinBlocks
}

// stridedSmemMinBlocks is the fewest strided_smem blocks an SM the planner
// takes it at (see stridedSmemFirst): with one, a block's staging and its
// column pass do not overlap another's.
const stridedSmemMinBlocks = 2

// stridedSmemMaxShortInner is the narrowest Inner strided_short keeps ahead
// of strided_smem. H200, µs (-ab-s37.txt §4): strided_smem led at Inner 3-10
// (182495×20×3 bf16 log_softmax 30.1 vs 56.1, 40045×21×5 bf16 20.1 vs
// 23.5, 157361×10×6 bf16 softmax_backward 28.7 vs 34.9, 23205×9×10 f32
// softmax_backward 14.9 vs 15.9, 50000×40×5 f32 41.4 vs 60.6), strided_short
// from 16 (6145×9×16 f32 softmax_backward 8.72 vs 10.7, 6284×25×20 f16 13.2
// vs 15.0, 11815×21×26 f32 24.6 vs 29.1, 2615×28×68 bf16 17.0 vs 20.7,
// 1349×13×154 bf16 log_softmax 12.0 vs 17.3); and on axes of under
// stridedSmemMinShortAxis rows (§5: 100000×4×8 f16 8.78 vs 14.9, 300000×2×6
// f32 16.4 vs 25.8; at 8 rows strided_smem led, 200000×8×4 f32 30.1 vs
// 36.5).
const stridedSmemMaxShortInner = 16

// stridedSmemMinShortAxis: see stridedSmemMaxShortInner.
const stridedSmemMinShortAxis = 8

// stridedNarrowAheadOfSmem reports where strided_narrow leads strided_smem
// (both serving): one warp an outer index, a block of at least a warp's 32
// packs. H200, µs (-ab-s37.txt §1, §4-5): 100000×64×4 f32 61.7 vs 90.5,
// 1606×374×4 f16 log_softmax 9.36 vs 13.9, 20000×100×8 f16 28.2 vs 39.7,
// 200000×32×4 f32 softmax_backward 83.8 vs 104.4; strided_smem led on
// smaller blocks (100000×50×2 f16, 13 packs, 30.2 vs 68.0; 200000×24×4
// f32 72.6 vs 80.8), on groups of warps (4642×1137×4 f16 log_softmax 46.1
// vs 121.1; 1000×2000×8 f32 57.4 vs strided 70.7) and backward
// (2796×75×16 bf16 log_softmax_backward 16.0 vs 21.0, two warps;
// 600×1000×8 f32 softmax_backward 23.5 vs 26.2; 11775×210×8 f16
// log_softmax_backward 51.7 vs 70.7).
func (c *ctx) stridedNarrowAheadOfSmem() bool {
	gw, _, ok := kernels.StridedNarrowShape(c.p.Op, c.dt, c.p.Axis, c.p.Inner)
	return ok && gw == 1 && ceilDiv(c.p.Axis*c.p.Inner, c.P) >= 32
}

// stridedNarrowMaxBackwardWarps is the most warps an outer index that
// strided_narrow takes for backward ops. With 8 (two 256-thread blocks an
// SM, each one outer index, three barriers a block) strided's one slice a
// thread kept up (H200, -ab-s36.txt §5: 2000×1000×8 f32 softmax_backward
// 66.3 vs 65.6) or led (5212×693×8 f16 softmax_backward 115.5 vs 79.9);
// forward 8-warp groups led (2000×1000×8 f32 68.3 vs 76.1, 2157×1708×8
// bf16 98.3 vs 118.0), as did backward groups of 1-2 warps (11775×210×8
// f16 log_softmax_backward 71.7 vs 92.1, 25724×33×32 f16 softmax_backward
// 100.7 vs 156.5).
const stridedNarrowMaxBackwardWarps = 4

// stridedShortVariant names strided_short's kernel for this axis ("a5", or
// "p9" for a lane pair's 17 or 18 rows) and its lanes a slice, ok false
// when it has none for the dtype and direction.
func (c *ctx) stridedShortVariant() (string, int64, bool) {
	name, lanes, ok := kernels.StridedShortVariant(c.p.Axis, c.bwd)
	if !ok {
		return "", 0, false
	}
	v, ok := kernels.StridedShort.Info().Variant(c.bwd, name)
	return name, lanes, ok && v.Serves(c.dt)
}

// stridedRegMinAxis is the shortest axis strided_reg takes. Session 32
// (H200, softmax bench, strided_reg vs strided, µs, -ab-s32.txt §1; the
// rule had asked for an axis of 128 and Inner a multiple of 8 packs):
// from 48 rows it led on every Inner and dtype swept (4..256 rows × Inner
// 4096/1004/128 f32, 2896/512/64 f16, 784 bf16, 8 and 64 MB): 85×48×4096
// f32 62.6 vs 75.3, 10923×48×64 f16 116.5 vs 170.7, 892×48×784 bf16 128.0
// vs 137.8, 64×64×4096 f32 51.9 vs 71.0 (the axis of 64 that strided had
// kept in session 11, since strided_reg's later work), 131×128×1004 f32
// 47.6 vs 71.3, 45×256×2896 f16 53.5 vs 107.3, 167×256×784 bf16 69.7 vs
// 171.5; behind only at 44×48×1004 f32 (11 MB: 16.9 vs 15.8 in §5). At 32 rows and
// fewer strided led (128×32×4096 f32 77.6 vs 90.7, 696×24×1004 f32 89.6
// vs 132.7). Part tiles across Inner cost little: 4096×128×36 f32 (9
// packs) 68.2 vs 128.4, 2048×64×72 f16 54.2 vs 62.3. Since session 34
// strided_short comes first up to 48 rows (ahead of strided_reg there:
// see stridedShortFirst), so strided_reg's picks start at 49.
const stridedRegMinAxis = 48

// stridedRegTwinMinInner is the narrowest Inner strided_reg's twins take
// in the planner's pick (see stridedRegFirst).
const stridedRegTwinMinInner = 32

// stridedRegFirst reports whether strided_reg is the measured winner for a
// non-last axis: forward with the 16-byte path, an axis of at least
// stridedRegMinAxis (it holds up to 8192 with 8-block clusters, 1024
// without) and at least one whole 8-pack tile across Inner. On H200 (harness, same run, copy ratio
// strided_reg vs strided): 4096x65536 axis 0 0.56 vs 0.44; 4096x4096 axis 0
// 0.55 vs 0.41 (split); 32x512x8192 0.80 vs 0.51; 1x1024x65536 0.67 vs 0.41;
// 8x2048x4096 0.59 vs 0.44; 128x128x8192 0.62 vs 0.51; an axis of 64
// (256x64x4096) 0.44 vs 0.50 then (see stridedRegMinAxis). f16 with its
// values held as floats gained little (64x512x4096 0.35 vs 0.32, 64x1024x512
// 0.31 vs 0.32; see the end for the packed version). Through the library (NVRTC 13, bench/results/nvidia-h200-
// 2026-11-22-sweep-axis.txt): 0.53 vs 0.44, 0.48 vs 0.41, 0.75 vs 0.51,
// 0.64 vs 0.41, 0.56 vs 0.48, 0.62 vs 0.51 in the order above; axis 64 0.43
// vs 0.49. It also needs blocks for at least half the SMs (strided
// splits the axis of a few tiles over the whole GPU; 4096x1024 axis 0, 128
// blocks on 132 SMs: strided_reg 36.3 µs vs strided 39.2). f16/bf16 since
// their values stay packed in registers (64 a thread, so a block holds 1024
// axis rows of a 64-column tile; H200, µs, strided_reg before / after /
// strided, bench/results/nvidia-h200-2026-11-22-strided16-ab.txt):
// 64×1024×512 f16 axis 1 125.5 / 88.1 / 122.0; bf16 127.3 / 92.7 / 126.6;
// 64×512×4096 f16 371.8 / 293.2 / 417.0; 4096×4096 f16 axis 0 83.6 / 72.0 /
// 104.4; 1024×4096 f16 axis 0 22.8 / 24.4 / 43.7; 8×2048×4096 f16 256.2 /
// 182.0 / 205.5.
//
// Inner not of whole packs (or unaligned pointers) takes the "_shift"
// twins, from stridedRegTwinMinInner slices (H200, -ab-s35.txt §1, twin vs
// strided, µs): 1000×50×333 f32 73.5 vs 122.7, 56×100×12269 f32 207.4 vs
// 417.3, 100×1000×999 f32 311.8 vs 557.4, 2000×200×45 f32 75.5 vs 144.5,
// 1024×49×1001 f32 181.1 vs 348.0, 500×64×1001 f16 120.8 vs 212.4,
// 64×500×1001 bf16 140.9 vs 181.4, 4000×60×37 bf16 73.7 vs 107.1,
// 3986×12487 f16 axis 0 258.6 vs 298.1, 2000×63×333 bf16 log_softmax
// 273.7 vs 287.8; even at 3000×49×129 f16 (177.8 vs 174.7). Narrower
// Inner lose: 100000×64×4 f32 462.4 vs 346.1, 20000×100×8 f16 211.9 vs
// 156.8 (a tile of 8 packs' columns holds 4 or 8).
func (c *ctx) stridedRegFirst() bool {
	p := c.p
	minInner := 8 * c.P // one whole 8-pack tile
	if !c.innerPacks() {
		minInner = stridedRegTwinMinInner
	}
	if p.Op.Backward() || p.Axis < stridedRegMinAxis || p.Inner < minInner {
		return false
	}
	// Counted in the blocks of the undoubled cluster, as measured.
	k, _, g, _, err := c.stridedRegShapeWith(0, 0, false)
	return err == nil && 2*p.Outer*ceilDiv(p.Inner, g*c.P)*k >= int64(c.d.SMs)
}

// forwardRows lists the fallbacks for forward rows beyond warp_row that
// block_reg does not take (or, ahead of it, cannot serve); a choice that
// cannot serve the problem (unaligned rows for pipelined, shared memory)
// falls through to the next one.
func (c *ctx) forwardRows() []choice {
	f32 := c.es == 4
	pipe := choice{kernels.Pipelined, "f32 rows beyond block_reg: cp.async ring of rows per worker"}
	if f32 && c.p.Axis < 2048 {
		// Rows block_reg leaves (unaligned): pipelined if it can, else
		// online_2pass; block_smem was not measured on them.
		return []choice{pipe}
	}
	if c.skewedRows() || c.es == 2 && c.raggedRows() {
		// online_2pass's twins lead block_smem's on skewed rows and on
		// aligned ragged 16-bit ones that block_reg leaves
		// (raggedBlockRegFwd16; H200, -ab-s46.txt §1: 2048×8191 bf16
		// 32.3 vs 36.7 µs, 2207×14634 bf16 55.0 vs 67.3), or tie them
		// (H100, -ab-s49.txt §3b: 4096×17001 f16 129.0 vs 129.6; but
		// 4096×20001 f16 143.4 vs 137.4)
		return nil
	}
	var out []choice
	if occ, err := c.blockSmemOccupancy(); err == nil && occ >= 2 {
		out = append(out, choice{kernels.BlockSmem, fmt.Sprintf("row in shared memory with %d blocks per SM: one read", occ)})
	}
	if f32 {
		out = append(out, pipe)
	}
	return out
}
