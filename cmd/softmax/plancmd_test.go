package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gofused/softmax/cuda"
)

func TestPlanUsageErrors(t *testing.T) {
	expectUsageErrors(t, "plan", []usageCase{
		{[]string{"plan"}, "--shapes is required"},
		{[]string{"plan", "--shapes", "garbage"}, "bad shape spec"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--op", "nope"}, "unknown op"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--algo", "nope"}, "--algo \"nope\""},
		{[]string{"plan", "--shapes", "64x1000:f32", "--algo", "block_reg/"}, "--algo \"block_reg/\""},
		{[]string{"plan", "--shapes", "64x1000:f32", "--algo", "nope/t64_p1"}, "or one of them/CONFIG"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--model", "nope"}, "--model \"nope\": want one of a100, h100, h200"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--model", "h200", "--device", "cuda:1"}, "not both"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--model", "h200", "--tuned"}, "--tuned needs the GPU"},
		{[]string{"plan", "--shapes", "64x1000:f32", "--device", "cpu"}, "the planner plans GPU launches"},
		{[]string{"plan", "--shapes", "64x1000:f32", "extra"}, "unexpected argument"},
	})
	expectHelp(t, "plan", "--model", "--shapes", "--json", "register counts")
}

// planJSON runs `softmax plan --json` with args and decodes its plans.
func planJSON(t *testing.T, wantCode int, args ...string) []planned {
	t.Helper()
	r := runCLI(t, append([]string{"plan", "--json"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("plan %v: exit %d, want %d; stderr %q", args, r.code, wantCode, r.stderr)
	}
	var ps []planned
	if err := json.Unmarshal([]byte(r.stdout), &ps); err != nil {
		t.Fatalf("plan %v: %v in %q", args, err, r.stdout)
	}
	return ps
}

// Each regime's case gets its strategy's launches on the H200 model: a
// block a row, cluster tiles on a non-last axis, two launches and a
// workspace for one long row, a cooperative grid that caches rows.
func TestPlanModel(t *testing.T) {
	ps := planJSON(t, 0, "--model", "h200", "--shapes", "4096x32000:f32,4096x65536:f32:0,1x100000000:f32,128x128256:bf16,4096x256:f32:-1:log_softmax_backward")
	if len(ps) != 5 {
		t.Fatalf("%d plans, want 5", len(ps))
	}
	byStrategy := map[string]planned{}
	for i, want := range []string{"block_reg", "strided_reg", "split_row", "split_grid", "warp_row"} {
		p := ps[i]
		if p.Error != "" || p.Strategy != want {
			t.Fatalf("%s: plan %+v, want %s", p.Spec, p, want)
		}
		if len(p.Launches) == 0 || !strings.HasPrefix(p.Launches[0].Symbol, want+"_") || p.Reason == "" || p.Module != want+".cu" {
			t.Errorf("%s: launches %+v, reason %q, module %q", p.Spec, p.Launches, p.Reason, p.Module)
		}
		byStrategy[want] = p
	}
	if l := byStrategy["block_reg"].Launches[0]; l.Grid[0] != 4096 || l.Block[0]*8*4 < 32000 {
		t.Errorf("block_reg: grid %v block %v, want a block per row holding 32000 f32 in 8 packs a thread", l.Grid, l.Block)
	}
	if l := byStrategy["strided_reg"].Launches[0]; len(l.Cluster) != 3 || l.Cluster[0] < 2 {
		t.Errorf("strided_reg: cluster %v, want the tile split over a cluster", l.Cluster)
	}
	if sr := byStrategy["split_row"]; len(sr.Launches) != 2 || sr.Workspace == 0 || sr.Split < 2 {
		t.Errorf("split_row: %d launches, workspace %d, split %d", len(sr.Launches), sr.Workspace, sr.Split)
	}
	if l := byStrategy["split_grid"].Launches[0]; !l.Cooperative || l.Grid[0] != 132 || l.Smem == 0 {
		t.Errorf("split_grid: %+v, want a cooperative grid of one block an SM caching in shared memory", l)
	}
	for _, c := range byStrategy["block_reg"].Configs {
		if !strings.HasPrefix(c, "block_reg/t") {
			t.Errorf("block_reg configuration %q", c)
		}
	}
	if len(byStrategy["block_reg"].Configs) == 0 || byStrategy["split_row"].Configs != nil {
		t.Errorf("configurations: block_reg %v, split_row %v", byStrategy["block_reg"].Configs, byStrategy["split_row"].Configs)
	}
	if !strings.Contains(byStrategy["warp_row"].Launches[0].Symbol, "_bwd_") {
		t.Errorf("a backward op planned %s", byStrategy["warp_row"].Launches[0].Symbol)
	}

	// The text form says the same.
	r := runCLI(t, "plan", "--model", "h200", "--shapes", "128x128256:bf16")
	for _, s := range []string{"model: h200 (H200, sm_90, 132 SMs", "128x128256:bf16 softmax: split_grid: ",
		byStrategy["split_grid"].Launches[0].Symbol, "grid 132×1×1", "cooperative", "16-byte path on"} {
		if r.code != 0 || !strings.Contains(r.stdout, s) {
			t.Errorf("exit %d, output lacks %q:\n%s", r.code, s, r.stdout)
		}
	}
}

// A forced strategy is planned where it serves and refused with its reason
// where it cannot: split_cluster needs a Hopper, not the A100.
func TestPlanForced(t *testing.T) {
	ps := planJSON(t, 0, "--model", "h100", "--algo", "block_smem", "--shapes", "4096x4096:f16")
	if ps[0].Strategy != "block_smem" || !strings.HasPrefix(ps[0].Reason, "forced") || ps[0].Launches[0].Smem == 0 {
		t.Errorf("forced block_smem: %+v", ps[0])
	}
	ps = planJSON(t, 0, "--model", "h200", "--algo", "block_reg/t512_p2", "--shapes", "4096x4096:f32")
	if l := ps[0].Launches; ps[0].Strategy != "block_reg" || l[0].Symbol != "block_reg_fwd_f32_t512_p2" || l[0].Block[0] != 512 {
		t.Errorf("forced block_reg/t512_p2: %+v", ps[0])
	}
	ps = planJSON(t, 1, "--model", "a100", "--algo", "split_cluster", "--shapes", "4x65536:f16,8x1000:f32")
	for _, p := range ps {
		if p.Strategy != "" || p.Launches != nil || !strings.Contains(p.Error, "split_cluster cannot serve") || !strings.Contains(p.Error, "compute capability 9.0") {
			t.Errorf("%s on the A100: %+v", p.Spec, p)
		}
	}
	r := runCLI(t, "plan", "--model", "h200", "--algo", "warp_row", "--shapes", "64x256:f32,128x32000:f32")
	if r.code != 1 || !strings.Contains(r.stdout, "64x256:f32 softmax: warp_row: forced") ||
		!strings.Contains(r.stdout, "128x32000:f32 softmax: no plan: ") || !strings.Contains(r.stderr, "1 of 2 cases could not be planned") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

func TestPlanWithoutGPU(t *testing.T) {
	if n, err := cuda.DeviceCount(); err == nil && n > 0 {
		t.Skip("a GPU is present")
	}
	r := runCLI(t, "plan", "--shapes", "64x1000:f32")
	if r.code != 1 || !strings.Contains(r.stderr, "cuda backend unavailable") || !strings.Contains(r.stderr, "--model a100|h100|h200") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestPlanRules: --rules prints the preference table and its named
// conditions, for a model or the default table.
func TestPlanRules(t *testing.T) {
	for _, args := range [][]string{{"plan", "--rules"}, {"plan", "--rules", "--model", "a100"}} {
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		for _, want := range []string{"id  ", "candidates", "strided.narrow.f32", "online_2pass,split_row ", "# named conditions", "smem_fits(k)"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: no %q in\n%s", args, want, r.stdout)
			}
		}
	}
	expectUsageErrors(t, "plan", []usageCase{
		{[]string{"plan", "--rules", "--model", "nope"}, "--model \"nope\": want one of"},
		{[]string{"plan", "--rules", "--tuned", "--model", "h200"}, "--tuned needs the GPU"},
	})
}
