package plan

import (
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
	cols := []int64{1, 7, 100, 256, 781, 1000, 1024, 2047, 4096, 6144, 8192, 12000, 16384, 32000}
	total := 0
	for _, s := range []string{"block_reg", "warp_row"} {
		for _, dt := range dtypes {
			for _, op := range ops {
				for _, pc := range placements(dt) {
					for _, n := range cols {
						p := Problem{Outer: 300, Axis: n, Inner: 1, DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew}
						names, err := Configs(p, h100, s)
						if err != nil {
							t.Fatalf("Configs(%+v, %s): %v", p, s, err)
						}
						if _, err := Make(p, h100, nil, s); err == nil && len(names) == 0 && s == "warp_row" {
							t.Errorf("%s serves %+v but lists no configuration", s, p)
						}
						seen := map[string]bool{}
						for _, name := range names {
							total++
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
							sym := pl.Launches[0].Symbol
							if !strings.Contains(sym, "_"+config) {
								t.Errorf("%s for %+v: kernel %s", name, p, sym)
							}
							v, _ := kernels.BlockReg.Info().Variant(false, config)
							if s == "block_reg" && !op.Backward() && !v.Exact && int64(v.Packs*(16/dt.Size())) > kernels.BlockRegValues {
								t.Errorf("%s for %+v: %d values a thread listed", name, p, v.Packs*(16/dt.Size()))
							}
						}
					}
				}
			}
		}
	}
	if total < 1000 {
		t.Errorf("only %d configurations planned", total)
	}
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
	// Strategies with no free shape list none.
	if names, err := Configs(p, h100, "split_row"); names != nil || err != nil {
		t.Errorf("split_row: %v, %v", names, err)
	}
	if _, err := Configs(p, h100, "nope"); err == nil {
		t.Error("an unknown strategy was accepted")
	}
}
