package plan

import (
	"strings"
	"testing"

	"github.com/gofused/softmax/internal/spec"
)

func TestPlanXent(t *testing.T) {
	dev := Device{SMs: 132}
	for _, c := range []struct {
		v    int64
		dt   spec.DType
		want string
	}{
		{1, spec.Float32, "xent_row_f32_t128_p4"},
		{2041, spec.BFloat16, "xent_row_bf16_t128_p4"},
		{2042, spec.BFloat16, "xent_row_bf16_t256_p4"},
		{32000, spec.Float32, "xent_row_f32_t1024_p8"},
		{32000, spec.BFloat16, "xent_row_bf16_t1024_p8"},
		{50257, spec.BFloat16, "xent_row_bf16_t1024_p8"},
		{50257, spec.Float32, "xent_row_f32_t1024_p0"},
		{131072, spec.BFloat16, "xent_row_bf16_t1024_p0"},
		{262144, spec.BFloat16, "xent_row_bf16_t1024_p0"},
	} {
		pl, err := PlanXent(XentProblem{Rows: 1000, V: c.v, DType: c.dt}, dev)
		if err != nil || pl.Symbol != c.want {
			t.Errorf("V=%d %v: %s (%v), want %s", c.v, c.dt, pl.Symbol, err, c.want)
			continue
		}
		if k := pl.Kernel; !k.Holds(c.v+int64(16/c.dt.Size())-1, c.dt) {
			t.Errorf("V=%d %v: %s cannot hold the row", c.v, c.dt, pl.Symbol)
		}
		if pl.Grid < 1 || pl.Grid > 1000 || int(pl.Block) != pl.Kernel.Threads || !strings.Contains(pl.Reason, "xent.tsv row") {
			t.Errorf("V=%d: launch %+v", c.v, pl)
		}
	}
	// Plain calls' rows start on their 16-byte boundary: a power-of-two
	// vocabulary fills a kernel exactly, and their symbols are the twins.
	for _, c := range []struct {
		v    int64
		dt   spec.DType
		want string
	}{
		{32768, spec.Float32, "xent_row_f32_t1024_p8_plain"},
		{8192, spec.BFloat16, "xent_row_bf16_t256_p8_plain"},
		{32769, spec.Float32, "xent_row_f32_t1024_p0_plain"},
		{32000, spec.Float64, "xent_row_f64_t1024_p0"}, // f64 streams: no plain twin
	} {
		pl, err := PlanXent(XentProblem{Rows: 1000, V: c.v, DType: c.dt, Plain: true}, dev)
		if err != nil || pl.Symbol != c.want {
			t.Errorf("plain V=%d %v: %s (%v), want %s", c.v, c.dt, pl.Symbol, err, c.want)
		}
	}
	// The stash kernels: plain calls only, where the device has the shared
	// memory (H200 227 KB; an A100's 163 KB holds the 128 KB stash only).
	h200, a100 := Device{SMs: 132, SmemOptin: 232448}, Device{SMs: 108, SmemOptin: 166912}
	for _, c := range []struct {
		dev   Device
		v     int64
		dt    spec.DType
		plain bool
		want  string
		smem  uint32
	}{
		{h200, 131072, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s8_plain", 131072},
		{h200, 151936, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s12_plain", 196608},
		{h200, 65536, spec.Float32, true, "xent_row_f32_t1024_p8_s8_plain", 131072},
		{h200, 32000, spec.Float64, true, "xent_row_f64_t1024_p8_s8_plain", 131072},
		{h200, 131072, spec.BFloat16, false, "xent_row_bf16_t1024_p0", 0},
		{a100, 131072, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s8_plain", 131072},
		// Past the stash the tail kernels keep the cache's part (plain calls),
		// the 128 KB stash's where 192 KB does not fit.
		{h200, 262144, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s12_tail_plain", 196608},
		{h200, 163848, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s12_tail_plain", 196608},
		{h200, 262144, spec.Float32, true, "xent_row_f32_t1024_p8_s12_tail_plain", 196608},
		{h200, 65536, spec.Float64, true, "xent_row_f64_t1024_p8_s12_tail_plain", 196608},
		{h200, 262144, spec.BFloat16, false, "xent_row_bf16_t1024_p0", 0},
		{a100, 151936, spec.BFloat16, true, "xent_row_bf16_t1024_p8_s8_tail_plain", 131072},
		{Device{SMs: 132}, 262144, spec.BFloat16, true, "xent_row_bf16_t1024_p0_plain", 0},
	} {
		pl, err := PlanXent(XentProblem{Rows: 1000, V: c.v, DType: c.dt, Plain: c.plain}, c.dev)
		if err != nil || pl.Symbol != c.want || pl.Smem != c.smem {
			t.Errorf("V=%d %v plain %v (smem limit %d): %s, %d bytes (%v), want %s, %d", c.v, c.dt, c.plain,
				c.dev.SmemOptin, pl.Symbol, pl.Smem, err, c.want, c.smem)
		}
	}
	// Log-sum-exp alone takes the table's lse row past the short cached rows.
	if pl, _ := PlanXent(XentProblem{Rows: 1000, V: 8192, DType: spec.BFloat16, Plain: true, LSE: true}, h200); pl.Symbol != "xent_row_bf16_t256_p8_plain" {
		t.Errorf("log-sum-exp V=8192: %s, want the cached xent_row_bf16_t256_p8_plain", pl.Symbol)
	}
	for _, v := range []int64{16385, 32000, 1 << 20} {
		pl, err := PlanXent(XentProblem{Rows: 1000, V: v, DType: spec.BFloat16, Plain: true, LSE: true}, h200)
		if err != nil || pl.Symbol != "xent_row_bf16_t512_p0_plain" || pl.Grid != 264 {
			t.Errorf("log-sum-exp V=%d: %s, grid %d (%v), want xent_row_bf16_t512_p0_plain, 264", v, pl.Symbol, pl.Grid, err)
		}
	}
	if pl, _ := PlanXent(XentProblem{Rows: 3, V: 10, DType: spec.Float32}, dev); pl.Grid != 3 {
		t.Errorf("3 rows: grid %d", pl.Grid)
	}
	// float64: the same registers hold half the elements, so rows pass to
	// the next kernel that holds them.
	for _, c := range []struct {
		v    int64
		want string
	}{{1, "xent_row_f64_t128_p4"}, {1023, "xent_row_f64_t128_p4"}, {1024, "xent_row_f64_t256_p4"},
		{16383, "xent_row_f64_t1024_p8"}, {16384, "xent_row_f64_t1024_p0"}, {32000, "xent_row_f64_t1024_p0"}} {
		if pl, err := PlanXent(XentProblem{Rows: 3, V: c.v, DType: spec.Float64}, dev); err != nil || pl.Symbol != c.want {
			t.Errorf("f64 V=%d: %s (%v), want %s", c.v, pl.Symbol, err, c.want)
		}
	}
}

func TestParseXentTable(t *testing.T) {
	head := "esize\tcols\tthreads\tpacks\tblocks_per_sm\tevidence\n"
	for _, bad := range []string{
		head + "*\t4096\t256\t4\t8\tx\n",                       // no streaming row last
		head + "*\t*\t1000\t0\t2\tx\n",                         // unknown kernel
		head + "*\t99999\t128\t4\t2\tx\n*\t*\t1024\t0\t2\tx\n", // cols beyond the cache
		head + "*\t*\t1024\t0\t2\n",                            // columns
	} {
		if _, err := ParseXentTable(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	// With every column: a tail is 0 or 1, and of a kernel the catalogue has.
	full := "calls\tesize\tcols\tthreads\tpacks\tstash\ttail\tblocks_per_sm\tevidence\n"
	last := "*\t*\t*\t1024\t0\t0\t0\t1\tx\n"
	if _, err := ParseXentTable(full + "*\t*\t*\t1024\t8\t12\t1\t1\tx\n" + last); err != nil {
		t.Errorf("a tail row: %v", err)
	}
	for _, bad := range []string{"*\t*\t*\t1024\t8\t12\t2\t1\tx\n", "*\t*\t*\t512\t8\t0\t1\t1\tx\n"} {
		if _, err := ParseXentTable(full + bad + last); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if len(XentTable) < 2 {
		t.Errorf("table of %d rows", len(XentTable))
	}
}

func TestPlanXentCols(t *testing.T) {
	dev := Device{SMs: 132}
	for _, c := range []struct {
		p    XentColsProblem
		grid uint32
	}{
		{XentColsProblem{Rows: 1, V: 1000, Inner: 2, DType: spec.Float32}, 1},
		{XentColsProblem{Rows: 3, V: 10, Inner: 65, DType: spec.BFloat16}, 9},
		{XentColsProblem{Rows: 4096, V: 10, Inner: 4096, DType: spec.Float64}, 132 * xentColsBlocksPerSM},
	} {
		pl, err := PlanXentCols(c.p, dev)
		if err != nil || pl.Grid != c.grid || pl.Block != 256 || pl.Symbol != "xent_lse_cols_"+c.p.DType.String()+"_t256" {
			t.Errorf("%+v: %+v (%v), want grid %d", c.p, pl, err, c.grid)
		}
	}
	if _, err := PlanXentCols(XentColsProblem{Rows: 1, V: 0, Inner: 2, DType: spec.Float32}, dev); err == nil {
		t.Error("an empty axis was planned")
	}
}
