package plan

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// TestEmuCases writes the inputs of the host emulator
// (internal/kernels/emu/run.sh) to $SMX_EMU_OUT: the kernel table and plans
// for a tiny device (2 SMs, 1 block per SM, so grid-stride loops iterate).
func TestEmuCases(t *testing.T) {
	dir := os.Getenv("SMX_EMU_OUT")
	if dir == "" {
		t.Skip("set SMX_EMU_OUT (see internal/kernels/emu/run.sh)")
	}
	dts := []spec.DType{spec.Float32, spec.Float16, spec.BFloat16, spec.Float64}
	if only := os.Getenv("SMX_EMU_DTYPE"); only != "" { // one dtype (run.sh's second argument)
		dt, err := spec.ParseDType(only)
		if err != nil {
			t.Fatal(err)
		}
		dts = []spec.DType{dt}
	}
	dev := Device{Name: "tiny", Major: 9, Minor: 0, SMs: 2, MaxBlocksPerSM: 1, SmemPerBlock: 48 << 10, SmemOptin: 227 << 10, SmemPerSM: 228 << 10,
		MaxThreadsPerSM: 2048, MaxThreadsPerBlock: 1024, Cluster: false}
	// table.inc lists every emulated kernel; plain/table.inc and
	// plain/srcs.txt the strategies with a plain-softmax build
	// (kernels.Info.PlainBuild), which run.sh compiles again with
	// SMX_PLAIN=1 and runs on the plain forward cases.
	var tab, plainTab, plainSrcs strings.Builder
	for _, in := range kernels.All() {
		if in.Cluster || in.Cooperative {
			continue // clusters and split_grid's barriers need the real GPU
		}
		if in.PlainBuild {
			fmt.Fprintln(&plainSrcs, in.File)
		}
		for _, dt := range dts {
			for _, s := range in.Symbols(dt) {
				fmt.Fprintf(&tab, "K(%s)\n", s)
				if in.PlainBuild {
					fmt.Fprintf(&plainTab, "K(%s)\n", s)
				}
			}
		}
	}
	if err := os.MkdirAll(dir+"/plain", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"table.inc": tab.String(), "plain/table.inc": plainTab.String(), "plain/srcs.txt": plainSrcs.String()} {
		if err := os.WriteFile(dir+"/"+name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shapes := [][3]int64{{5, 1, 1}, {7, 13, 1}, {33, 100, 1}, {6, 781, 1}, {9, 1024, 1}, {5, 1500, 1}, {4, 4100, 1},
		{3, 9000, 1}, {2, 20000, 1}, {1, 70001, 1}, {3, 5, 7}, {2, 300, 3}, {1, 30000, 2}, {2, 64, 40}, {40, 8, 1}, {200, 33, 1}, {3, 37, 16}, {2, 700, 64}, {1, 5000, 8}, {3, 9, 264}, {1, 1, 1}, {1, 7, 1}, {1, 781, 1}, {1, 4099, 1},
		// Rows that fill every pack of 128..1024-thread block_reg blocks
		// (cached_row_full).
		{3, 4096, 1}, {3, 8192, 1}, {2, 32768, 1},
		// strided_reg: partial tiles across Inner, axes that leave the last
		// packs of a block empty, one block holding 1024 rows.
		{2, 1024, 36}, {3, 130, 32}, {1, 513, 72}, {2, 7, 64},
		// 16-bit block_reg rows of 16384 (few rows) and f32 rows of 384.
		{3, 16384, 1}, {5, 384, 1},
		// block_hybrid: one shared pack a thread only partly live, every
		// pack full at the f32 limit, 16-bit rows at theirs.
		{2, 16388, 1}, {3, 40960, 1}, {2, 65536, 1},
		// 1024-thread block_hybrid (a row per SM): one live shared pack,
		// the f32 and 16-bit limits.
		{1, 32772, 1}, {1, 81920, 1}, {1, 131072, 1},
		// Fewer rows than SMs of 16-bit rows past block_reg's 32768 and up
		// to 128 KB: the planner's 1024-thread block_hybrid.
		{1, 40000, 1}, {1, 65536, 1},
		// block_reg's one-warp blocks just past 1 KB rows (f32 260, 16-bit
		// 520: three packs a lane, the last partly live).
		{4, 260, 1}, {3, 520, 1},
		// strided's twins (interleaved slices): ragged Inner with a part
		// tile, several tiles, and a split axis of one tile.
		{3, 45, 101}, {2, 5, 1131}, {1, 3000, 33},
		// strided_reg's twins (interleaved columns, any Inner): a part tile
		// after whole ones, a tile wider than Inner, a block of 512 rows
		// and one whose last packs are empty, Inner of one pack or less.
		{3, 100, 333}, {2, 512, 37}, {2, 49, 45}, {1, 300, 1001}, {5, 64, 4}, {2, 200, 9},
		// strided_short: packs over several grid-stride steps, axes of 2
		// to 16 rows, one pack across Inner; 16-bit tiles held packed
		// (backward of 8 rows, forward of 12).
		{80, 4, 64}, {5, 16, 40}, {3, 7, 300}, {9, 2, 1136}, {7, 3, 8}, {6, 8, 64}, {4, 12, 24},
		// strided_short's lane pairs: odd and even axes, a part warp of
		// packs (18 f32 packs), ragged Inner.
		{5, 17, 40}, {3, 32, 24}, {4, 11, 37}, {2, 25, 101},
		// four lanes: 1 and 3 rows short, ragged Inner, backward.
		{3, 33, 24}, {2, 47, 40}, {4, 45, 37}, {5, 19, 16}, {3, 17, 9},
		{7, 100, 4}, {5, 1000, 8}, {3, 333, 2}, {4, 77, 32}, {9, 50, 64}, {6, 129, 16},
		// strided_smem: a ragged Inner past the threads, row groups on a
		// narrow one, a block of one row group, Inner past 512 threads.
		{3, 49, 129}, {5, 40, 6}, {3, 2, 5}, {2, 3, 700},
		// warp_row's half-width groups, two packs a lane: whole packs, and
		// ragged rows through the twins' masked body with a last block step
		// on the general body (77 f32, 201).
		{37, 96, 1}, {41, 77, 1}, {23, 201, 1},
		// ragged rows under 16 packs: twins of one and two packs a lane,
		// and a row left element by element.
		{29, 100, 1}, {45, 10, 1}, {31, 59, 1}, {33, 21, 1}, {27, 126, 1},
		// three packs a lane: whole and ragged rows over 16 and 8 lanes.
		{17, 160, 1}, {19, 150, 1}, {21, 384, 1},
		// block_reg's twins: f32 spans on either side of (NP-1) packs a
		// thread (t256_p5, t128_p5: the NP-1 masked body), 16-bit rows
		// past 8192 (512 and 1024 threads).
		{6, 4095, 1}, {5, 2047, 1}, {3, 9001, 1}, {3, 22001, 1},
		// block_hybrid's twins: a span past the registers by part of a
		// pack, and one filling the last shared packs.
		{3, 20001, 1}, {2, 40955, 1}}
	var out strings.Builder
	strats := append([]string{"auto"}, Strategies()...)
	n, nb := 0, 0
	bwdScales := []float64{1, 0.5, -1.5}
	for _, sh := range shapes {
		for _, st := range strats {
			if st == "split_cluster" {
				continue
			}
			for _, dt := range dts {
				for _, op := range []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward} {
					// Placements (the driver's "aligned" field): 1 aligned,
					// 0 every tensor one element past a 16-byte boundary
					// (Skew), 2 the inputs one element past and y aligned.
					for _, al := range []int{1, 0, 2} {
						skew := 0
						if al == 0 {
							skew = dt.Size()
						}
						p := Problem{Outer: sh[0], Axis: sh[1], Inner: sh[2], DType: dt, Op: op, Aligned: al == 1, Skew: skew}
						// The strategy's plan, then (aligned and skewed
						// placements) each launch configuration the
						// autotuner may time (Configs).
						forces := []string{st}
						if al != 2 {
							configs, _ := Configs(p, dev, st)
							forces = append(forces, configs...)
						}
						for _, force := range forces {
							pl, err := Make(p, dev, nil, force)
							if err != nil {
								continue
							}
							if st == "auto" && pl.Strategy == "split_cluster" {
								continue
							}
							n++
							// The last fields: the forward scale, backward cases
							// cycling through 1, 0.5 and -1.5 (dx carries it),
							// forward ones 0 (the driver's own choice); and
							// where dx and the inputs share a placement, dx
							// in place: 0 apart, 1 over dy, 2 over y.
							scale, alias := 0.0, 0
							if op.Backward() {
								scale = bwdScales[nb%len(bwdScales)]
								if al != 2 {
									alias = nb / len(bwdScales) % 3
								}
								nb++
							}
							fmt.Fprintf(&out, "case %s %s %d %d %d %d %d %d %d %d %d %d %d %g %d\n", pl.Strategy, dt, int(op), sh[0], sh[1], sh[2],
								pl.Params.Chunk, pl.Params.Split, pl.Params.Vec, pl.Params.Log, pl.Workspace, len(pl.Launches), al, scale, alias)
							for _, l := range pl.Launches {
								fmt.Fprintf(&out, "launch %s %d %d %d %d %d %d %d\n", l.Symbol, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2], l.Smem)
							}
						}
					}
				}
			}
		}
	}
	if err := os.WriteFile(dir+"/cases.txt", []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d cases", n)
}
