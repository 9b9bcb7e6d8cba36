package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/spec"
)

// Every configuration Configs lists plans, within the kernels' launch
// contracts (check), with the named kernel (or its "_tail" kernel), for
// rows of every size class, dtype, op and pointer placement; and a listed
// forward block_reg configuration holds the row within BlockRegValues
// values a thread.
func TestConfigsPlan(t *testing.T) {
	cols := []int64{1, 7, 64, 100, 256, 781, 1000, 1024, 2047, 4096, 6144, 8191, 8192, 12000, 16384, 32000, 40000, 65536}
	total := 0
	for _, s := range []string{"block_reg", "warp_row"} {
		for _, dt := range dtypes {
			for _, op := range ops {
				for _, pc := range placements(dt) {
					for _, sh := range [][2]int64{{300, 0}, {1, 0}, {7, 0}} {
						for _, n := range cols {
							total += checkConfigs(t, s, Problem{Outer: sh[0], Axis: n, Inner: 1, DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew})
						}
					}
				}
			}
		}
	}
	// A non-last axis: neither strategy serves it, so neither lists any.
	for _, s := range []string{"block_reg", "warp_row"} {
		if names, err := Configs(prob(64, 1000, 8, spec.Float32, spec.Softmax), h100, s); names != nil || err != nil {
			t.Errorf("%s on a non-last axis: %v, %v", s, names, err)
		}
	}
	if total < 3000 {
		t.Errorf("only %d configurations planned", total)
	}
}

// checkConfigs plans every configuration Configs lists for strategy s on p
// (within the launch contracts, check) and returns how many there were.
func checkConfigs(t *testing.T, s string, p Problem) int {
	t.Helper()
	names, err := Configs(p, h100, s)
	if err != nil {
		t.Fatalf("Configs(%+v, %s): %v", p, s, err)
	}
	if _, err := Make(p, h100, nil, s); err == nil && len(names) == 0 && s == "warp_row" {
		t.Errorf("%s serves %+v but lists no configuration", s, p)
	}
	seen := map[string]bool{}
	for _, name := range names {
		strategy, config, ok := strings.Cut(name, ConfigSep)
		if !ok || strategy != s || config == "" || seen[name] {
			t.Errorf("%+v: configuration %q", p, name)
			continue
		}
		seen[name] = true
		pl := mustMake(t, p, h100, name)
		if pl.Strategy != s || !strings.HasPrefix(pl.Reason, "forced: ") {
			t.Errorf("%s: plan %s (%s)", name, pl.Strategy, pl.Reason)
		}
		if sym := pl.Launches[0].Symbol; !strings.Contains(sym, "_"+config) {
			t.Errorf("%s for %+v: kernel %s", name, p, sym)
		}
		values := func(v kernels.Variant) int { return v.Packs * (16 / p.DType.Size()) }
		v, _ := kernels.BlockReg.Info().Variant(false, config)
		if s == "block_reg" && !p.Op.Backward() && !v.Exact && values(v) > kernels.BlockRegValues {
			t.Errorf("%s for %+v: %d values a thread listed", name, p, values(v))
		}
		if v.Exact && (p.DType.Size() != 2 || !p.Aligned || p.Op.Backward() || p.Axis != int64(v.FixedBlock*v.Packs*8)) {
			t.Errorf("%s for %+v: an exact kernel for another row", name, p)
		}
	}
	return len(names)
}

// The configurations of a 4096-column f32 row are its block sizes, one
// each, at the fewest packs a thread that hold the row; forced, each runs
// its kernel; one that does not hold the row, or a strategy without
// configurations, is refused with the list.
func TestConfigsChoices(t *testing.T) {
	if names, _ := Configs(prob(64, 100, 1, spec.Float32, spec.Softmax), h100, "block_reg"); strings.Join(names, " ") != "block_reg/t32_p1" {
		t.Errorf("100 f32 (25 packs): %v, want one warp of one pack a thread", names)
	}
	p := prob(4096, 4096, 1, spec.Float32, spec.Softmax)
	names, err := Configs(p, h100, "block_reg")
	want := []string{"block_reg/t128_p8", "block_reg/t256_p4", "block_reg/t512_p2", "block_reg/t1024_p1"}
	if err != nil || strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("Configs = %v, %v; want %v", names, err, want)
	}
	if pl := mustMake(t, p, h100, "block_reg/t512_p2"); pl.Launches[0].Symbol != "block_reg_fwd_f32_t512_p2" || pl.Launches[0].Block[0] != 512 {
		t.Errorf("t512_p2: %+v", pl.Launches)
	}
	// A row that ends inside the last pack of 1024 threads × 8 takes the tail kernel, as the rules' pick does.
	if pl := mustMake(t, prob(64, 32000, 1, spec.Float32, spec.Softmax), h100, "block_reg/t1024_p8"); pl.Launches[0].Symbol != "block_reg_fwd_f32_t1024_p8_tail" {
		t.Errorf("32000 f32 on t1024_p8: %s", pl.Launches[0].Symbol)
	}
	// The 16-bit exact twin is a configuration where it serves.
	names, _ = Configs(prob(2048, 8192, 1, spec.Float16, spec.Softmax), h100, "block_reg")
	if !strings.Contains(strings.Join(names, " "), "block_reg/t128_p8_exact") {
		t.Errorf("2048×8192 f16 configurations %v lack the exact twin", names)
	}
	for force, msg := range map[string]string{
		"block_reg/t64_p1":        "configurations: t128_p8, t256_p4, t512_p2, t1024_p1",
		"block_reg/t9_p9":         "no configuration \"t9_p9\"",
		"block_reg/t128_p8_exact": "no configuration \"t128_p8_exact\"",
		"block_vec/t64_p1":        "has no launch configurations",
		"warp_row/w32_p1":         "no configuration of it serves this problem",
		"nope/t64_p1":             "unknown strategy",
	} {
		if _, err := Make(p, h100, nil, force); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Make(%s) = %v, want an error containing %q", force, err, msg)
		}
	}
	// warp_row: one configuration a lane count, up to the row's packs.
	for _, c := range []struct {
		cols int64
		dt   spec.DType
		want string
	}{
		{256, spec.Float32, "warp_row/w32_p2"},
		{128, spec.Float16, "warp_row/w8_p2 warp_row/w16_p1"},
		{24, spec.Float32, "warp_row/w4_p2 warp_row/w8_p1"},
		{100, spec.Float16, "warp_row/w8_p2 warp_row/w16_p1"},
	} {
		names, err := Configs(prob(4096, c.cols, 1, c.dt, spec.Softmax), h100, "warp_row")
		if err != nil || strings.Join(names, " ") != c.want {
			t.Errorf("warp_row, %d %v: %v, %v; want %s", c.cols, c.dt, names, err, c.want)
		}
	}
	// A backward problem refuses a forward kernel's name (and does not
	// divide by its zero packs); an empty configuration is refused.
	bwd := prob(4096, 4096, 1, spec.Float32, spec.SoftmaxBackward)
	if _, err := Make(bwd, h100, nil, "block_reg/t256_p4"); err == nil || !strings.Contains(err.Error(), "configurations: p1, p2, p4") {
		t.Errorf("backward block_reg/t256_p4: %v", err)
	}
	if _, err := Make(bwd, h100, nil, "warp_row/t256_p4"); err == nil || !strings.Contains(err.Error(), "no configuration") {
		t.Errorf("backward warp_row/t256_p4: %v", err)
	}
	if _, err := Make(p, h100, nil, "block_reg/"); err == nil || !strings.Contains(err.Error(), "an empty configuration") {
		t.Errorf("block_reg/: %v", err)
	}
	// A ragged 16-bit row whose twin holds the overhang in thread 0 takes
	// the block the rules give it (8191 f16: 256 threads × 4 packs).
	ragged := prob(2048, 8191, 1, spec.Float16, spec.Softmax)
	names, _ = Configs(ragged, h100, "block_reg")
	if auto := mustMake(t, ragged, h100, "block_reg"); auto.Launches[0].Symbol != "block_reg_fwd_f16_t256_p4_shift" ||
		!strings.Contains(strings.Join(names, " "), "block_reg/t256_p4") ||
		mustMake(t, ragged, h100, "block_reg/t256_p4").Launches[0].Symbol != auto.Launches[0].Symbol {
		t.Errorf("8191 f16: rules %s, configurations %v", auto.Launches[0].Symbol, names)
	}
	// Strategies with no free shape list none.
	if names, err := Configs(p, h100, "split_row"); names != nil || err != nil {
		t.Errorf("split_row: %v, %v", names, err)
	}
	if _, err := Configs(p, h100, "nope"); err == nil {
		t.Error("an unknown strategy was accepted")
	}
}

// split_cluster's configurations are its cluster sizes whose chunks fit a
// block's shared memory, up to the model's largest cluster; forced, each
// launches clusters of its size over chunks that cover the row; a size
// that is not listed is refused with the list.
func TestSplitClusterConfigs(t *testing.T) {
	for _, c := range []struct {
		cols  int64
		sizes string
	}{
		{32768, "c2 c4 c8"}, // 256 KB f64 rows: 128 KB a block from two
		{65536, "c4 c8"},    // 512 KB: 256 KB blocks do not fit
	} {
		p := prob(4096, c.cols, 1, spec.Float64, spec.Softmax)
		names, err := Configs(p, h100, "split_cluster")
		if got := strings.ReplaceAll(strings.Join(names, " "), "split_cluster/", ""); err != nil || got != c.sizes {
			t.Errorf("4096×%d f64: %v, %v; want %s", c.cols, names, err, c.sizes)
		}
		for _, name := range names {
			pl := mustMake(t, p, h100, name)
			var cs int64
			fmt.Sscanf(name, "split_cluster/c%d", &cs)
			if l := pl.Launches[0]; int64(l.Cluster[0]) != cs || int64(l.Grid[0]) != cs || cs*pl.Chunk < p.Axis {
				t.Errorf("%s: cluster %v grid %v chunk %d", name, l.Cluster, l.Grid, pl.Chunk)
			}
		}
	}
	if _, err := Make(prob(64, 65536, 1, spec.Float64, spec.Softmax), h100, nil, "split_cluster/c2"); err == nil || !strings.Contains(err.Error(), "c4") {
		t.Errorf("c2 on 512 KB rows: %v, want a refusal listing c4", err)
	}
}
