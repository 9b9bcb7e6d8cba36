package plan_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gofused/softmax/internal/kernels"
	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/plan/testdata/oracle"
	"github.com/gofused/softmax/internal/spec"
)

// The differential test: the planner against the oracle (the planner before
// its preferences became the table, internal/plan/testdata/oracle) on a
// dense grid of problems: strategy, kernel symbols, grids, blocks, dynamic
// shared memory, clusters, cooperative flags and every other field of the
// plan but its Reason must be identical, errors too, with the occupancy
// estimates (TestDifferential, TestDifferentialForced) and with the
// driver's queries answered (TestDifferentialQueries). A difference you
// intend needs its measurement (or a row marked pending one), and then the
// oracle's pick for those problems is no longer the reference: it goes in
// intended, with its issue, matching exactly the problems it changes.

// intended lists the differences from the oracle made on purpose. Each
// matches the problems (and forced strategy) whose plans it changes, given
// the planner's plan (err: the planner's error); every other problem must
// still plan exactly as the oracle does.
var intended = []struct {
	why   string
	match func(p plan.Problem, force string, got plan.Plan, err error) bool
}{
	{"issue 72: strided_reg has backward kernels (threads hold half the forward's rows: other blocks, other axis limits) " +
		"and the table's strided.reg.bwd row offers them ahead of strided",
		func(p plan.Problem, force string, got plan.Plan, err error) bool {
			if !p.Op.Backward() {
				return false
			}
			if force == string(kernels.StridedReg) {
				return true
			}
			return force == "" && err == nil && got.Strategy == string(kernels.StridedReg)
		}},
	{"issue 72: block_hybrid has backward kernels (y and dy in registers and shared memory, whole packs), and the " +
		"table's bwd.block_hybrid row offers them from a row an SM (nvidia-h200-2026-11-29-s70.txt call 3)",
		func(p plan.Problem, force string, got plan.Plan, err error) bool {
			if !p.Op.Backward() {
				return false
			}
			return force == string(kernels.BlockHybrid) || force == "" && err == nil && got.Strategy == string(kernels.BlockHybrid)
		}},
}

// isIntended reports whether a difference is one of intended's.
func isIntended(p plan.Problem, force string, got plan.Plan, err error) bool {
	for _, in := range intended {
		if in.match(p, force, got, err) {
			return true
		}
	}
	return false
}

var (
	diffOps    = []spec.Op{spec.Softmax, spec.LogSoftmax, spec.SoftmaxBackward, spec.LogSoftmaxBackward}
	diffDTypes = []spec.DType{spec.Float32, spec.Float16, spec.BFloat16}
)

// placement is how a problem's tensors lie: aligned (ragged rows come from
// columns not of whole packs), unaligned at differing distances (Skew 0),
// or all skewed by one or three elements.
type placement struct {
	name    string
	aligned bool
	skew    int // elements
}

var diffPlacements = []placement{{"aligned", true, 0}, {"unaligned", false, 0}, {"skew1", false, 1}, {"skew3", false, 3}}

// rowCounts lists the row counts of the grid for a device of sms SMs: 1, 2,
// SMs−1, SMs, SMs+1, powers of two to 2^20, and the rows-per-SM edges of the
// table (half, 90%, 2, 7 and 24 rows an SM, ±1).
func rowCounts(sms int64) []int64 {
	set := map[int64]bool{}
	add := func(vs ...int64) {
		for _, v := range vs {
			if v >= 1 {
				set[v] = true
			}
		}
	}
	add(1, 2, sms-1, sms, sms+1)
	for k := 0; k <= 20; k++ {
		add(1 << k)
	}
	for _, e := range []int64{sms / 2, sms * 9 / 10, 2 * sms, 7 * sms, 24 * sms} {
		add(e-1, e, e+1)
	}
	return slices.Sorted(maps.Keys(set))
}

// colCounts lists the columns of the grid for a dtype: every threshold's
// edge ±1 (byte thresholds over the element size, and over both inputs of
// backward ops; column and pack thresholds; every strategy's register
// cache) and powers of two to 2^27.
func colCounts(dt spec.DType) []int64 {
	es := int64(dt.Size())
	P := 16 / es
	set := map[int64]bool{}
	edge := func(v int64) {
		for _, x := range []int64{v - 1, v, v + 1} {
			if x >= 1 && x <= 1<<27 {
				set[x] = true
			}
		}
	}
	for k := 0; k <= 27; k++ {
		set[1<<k] = true
	}
	for _, kb := range []int64{1, 32, 48, 64, 84, 96, 104, 112, 116, 120, 128, 192, 256, 384, 400, 512, 1024, 4096} {
		edge(kb << 10 / es)
		edge(kb << 10 / (2 * es))
	}
	for _, c := range []int64{5, 8, 10, 13, 16, 24, 30, 32, 48, 60, 64, 100, 126, 128, 256, 257, 300, 384, 512,
		1024, 2048, 4096, 8192, 16384, 20480, 21000, 24576, 28672, 32768, 40960, 49152, 65536, 81920, 98304, 131072} {
		edge(c)
	}
	for _, packs := range []int64{2, 3, 4, 5, 8, 9, 12, 15, 16, 17, 24, 32, 33, 48, 64, 1024, 2048, 6 * 1024, 512 * 8} {
		edge(packs * P)
	}
	for _, s := range kernels.Strategies() {
		in := s.Info()
		for _, op := range diffOps {
			if m := in.MaxCols(op, dt); m > 0 {
				edge(m)
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// stridedShapes lists non-last-axis problems (Outer, Axis, Inner > 1) with
// axes and Inner at every edge of the strided rows.
func stridedShapes(sms int64) [][3]int64 {
	axes := []int64{2, 3, 4, 7, 8, 9, 15, 16, 17, 18, 23, 24, 25, 31, 32, 33, 47, 48, 49, 64, 100, 255, 256, 257, 1000, 1023, 1024, 1025, 2048, 4096, 8191, 8192, 8193, 16384, 65536}
	inners := []int64{2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 36, 63, 64, 65, 127, 128, 129, 256, 333, 512, 1001, 1024, 4096, 65536}
	outers := []int64{1, 2, 8, sms - 1, sms, sms + 1, 1024, 16384, 200000}
	var out [][3]int64
	for _, o := range outers {
		for _, a := range axes {
			for _, i := range inners {
				out = append(out, [3]int64{o, a, i})
			}
		}
	}
	return out
}

// comparable strips a plan's Reason, the one field the table writes its own.
func comparablePlan(pl plan.Plan) plan.Plan {
	pl.Reason = ""
	return pl
}

func fromOracle(o oracle.Plan) plan.Plan {
	pl := plan.Plan{Strategy: o.Strategy, File: o.File, Workspace: o.Workspace, Barriers: o.Barriers, Split: o.Split,
		Chunk: o.Chunk, Vec: o.Vec, Shift: o.Shift, General: o.General, Params: o.Params}
	for _, l := range o.Launches {
		pl.Launches = append(pl.Launches, plan.Launch(l))
	}
	return pl
}

type diffStats struct {
	problems, diffs atomic.Int64
	intended        atomic.Int64 // differences listed in intended
	mu              sync.Mutex
	first           []string
}

func (s *diffStats) compare(t *testing.T, model string, d plan.Device, p plan.Problem, force string) {
	s.compareWith(t, model, d, p, force, plan.Queries{})
}

func (s *diffStats) compareWith(t *testing.T, model string, d plan.Device, p plan.Problem, force string, q plan.Queries) {
	s.problems.Add(1)
	got, gerr := plan.MakeWith(p, d, q, force)
	want, werr := oracle.MakeWith(oracle.Problem(p), oracle.Device(d), oracle.Queries{Blocks: oracle.Occupancy(q.Blocks), Clusters: oracle.Clusters(q.Clusters)}, force)
	var diff string
	switch {
	case (gerr != nil) != (werr != nil):
		diff = fmt.Sprintf("error %v, oracle's %v", gerr, werr)
	case gerr != nil:
		return
	default:
		g, w := comparablePlan(got), fromOracle(want)
		if !reflect.DeepEqual(g, w) {
			diff = fmt.Sprintf("\n  got    %s %+v (%s)\n  oracle %s %+v (%s)", g.Strategy, g.Launches, got.Reason, w.Strategy, w.Launches, want.Reason)
			if g.Strategy == w.Strategy && reflect.DeepEqual(g.Launches, w.Launches) {
				diff += fmt.Sprintf("\n  got %+v\n  oracle %+v", g, w)
			}
		}
	}
	if diff == "" {
		return
	}
	if isIntended(p, force, got, gerr) {
		s.intended.Add(1)
		return
	}
	s.diffs.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.first) < 20 {
		s.first = append(s.first, fmt.Sprintf("%s %v %v %d×%d×%d aligned %v skew %d force %q: %s", model, p.Op, p.DType, p.Outer, p.Axis, p.Inner, p.Aligned, p.Skew, force, diff))
	}
}

// TestDifferential runs the grid: 3 device models × f32/f16/bf16 × the four
// ops × aligned/unaligned/skewed placements × rows × columns, plus non-last
// axes, automatic picks; and every strategy forced on a coarser grid. With
// -short it takes every 7th problem of the automatic grid.
func TestDifferential(t *testing.T) {
	var s diffStats
	stride := 1
	if testing.Short() {
		stride = 7
	}
	var wg sync.WaitGroup
	for _, model := range []string{"h200", "h100", "a100"} {
		d := plan.Models[model]
		sms := int64(d.SMs)
		for _, dt := range diffDTypes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 0
				rows, cols := rowCounts(sms), colCounts(dt)
				for _, op := range diffOps {
					for _, pc := range diffPlacements {
						p := plan.Problem{DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew * dt.Size(), Inner: 1}
						for _, r := range rows {
							for _, c := range cols {
								if n++; n%stride != 0 {
									continue
								}
								p.Outer, p.Axis = r, c
								s.compare(t, model, d, p, "")
							}
						}
						if pc.skew != 0 {
							continue // skew matters for rows only
						}
						for _, sh := range stridedShapes(sms) {
							if n++; n%stride != 0 {
								continue
							}
							p.Outer, p.Axis, p.Inner = sh[0], sh[1], sh[2]
							s.compare(t, model, d, p, "")
						}
						p.Inner = 1
					}
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d problems, %d differences, %d intended", s.problems.Load(), s.diffs.Load(), s.intended.Load())
	for _, f := range s.first {
		t.Error(f)
	}
}

// TestDifferentialForced forces every strategy (and every launch
// configuration of those that have them) on a coarser grid: the strategies'
// feasibility and launches must not move either.
func TestDifferentialForced(t *testing.T) {
	var s diffStats
	rows := []int64{1, 3, 131, 132, 133, 4096, 1 << 20}
	var wg sync.WaitGroup
	for _, model := range []string{"h200", "a100"} {
		d := plan.Models[model]
		for _, dt := range diffDTypes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cols := colCounts(dt)
				for _, op := range diffOps {
					for _, pc := range diffPlacements[:3] {
						p := plan.Problem{DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew * dt.Size(), Inner: 1}
						for _, r := range rows {
							for i, c := range cols {
								if i%3 != 0 {
									continue
								}
								p.Outer, p.Axis = r, c
								for _, st := range plan.Strategies() {
									s.compare(t, model, d, p, st)
								}
								for _, st := range []string{"block_reg", "warp_row"} {
									names, _ := plan.Configs(p, d, st)
									if want, _ := oracle.Configs(oracle.Problem(p), oracle.Device(d), st); !slices.Equal(names, want) {
										t.Errorf("%s %v %v %d×%d aligned %v: Configs(%s) %v, oracle's %v", model, op, dt, r, c, pc.aligned, st, names, want)
									}
									for _, n := range names {
										s.compare(t, model, d, p, n)
									}
								}
							}
						}
						for _, sh := range [][3]int64{{1, 7, 3}, {100, 64, 4}, {4096, 48, 512}, {16, 4096, 8192}, {2000, 1000, 8}, {3000, 49, 129}, {8, 2048, 4096}, {1, 65536, 2}} {
							p.Outer, p.Axis, p.Inner = sh[0], sh[1], sh[2]
							for _, st := range plan.Strategies() {
								s.compare(t, model, d, p, st)
							}
						}
					}
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d problems, %d differences, %d intended", s.problems.Load(), s.diffs.Load(), s.intended.Load())
	for _, f := range s.first {
		t.Error(f)
	}
}

// fakeQueries stands in for the driver: blocks an SM from a hash of the
// kernel and its launch (1..8, 0 for some: "does not fit"), clusters
// resident a fraction of what those blocks allow; deterministic, so both
// planners see the same answers.
func fakeQueries(sms int) plan.Queries {
	blocks := func(file, symbol string, block, smem int) (int, error) {
		h := uint32(2166136261)
		for _, b := range []byte(fmt.Sprintf("%s|%s|%d|%d", file, symbol, block, smem)) {
			h = (h ^ uint32(b)) * 16777619
		}
		return int(h % 9), nil
	}
	return plan.Queries{
		Blocks: blocks,
		Clusters: func(file, symbol string, block, smem, cluster int) (int, error) {
			n, _ := blocks(file, symbol, block, smem)
			return n * sms * 7 / (8 * cluster), nil
		},
	}
}

// TestDifferentialQueries runs every third problem of the automatic grid
// with the driver's queries answered (fakeQueries), where the estimates
// answer in TestDifferential: the conditions that turn on occupancy and
// resident clusters take other branches.
func TestDifferentialQueries(t *testing.T) {
	var s diffStats
	stride := 3
	if testing.Short() {
		stride = 21
	}
	var wg sync.WaitGroup
	for _, model := range []string{"h200", "a100"} {
		d := plan.Models[model]
		q := fakeQueries(d.SMs)
		for _, dt := range diffDTypes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 0
				for _, op := range diffOps {
					for _, pc := range diffPlacements {
						p := plan.Problem{DType: dt, Op: op, Aligned: pc.aligned, Skew: pc.skew * dt.Size(), Inner: 1}
						for _, r := range rowCounts(int64(d.SMs)) {
							for _, c := range colCounts(dt) {
								if n++; n%stride != 0 {
									continue
								}
								p.Outer, p.Axis = r, c
								s.compareWith(t, model, d, p, "", q)
							}
						}
						if pc.skew != 0 {
							continue
						}
						for _, sh := range stridedShapes(int64(d.SMs)) {
							if n++; n%stride != 0 {
								continue
							}
							p.Outer, p.Axis, p.Inner = sh[0], sh[1], sh[2]
							s.compareWith(t, model, d, p, "", q)
						}
						p.Inner = 1
					}
				}
			}()
		}
	}
	wg.Wait()
	t.Logf("%d problems, %d differences, %d intended", s.problems.Load(), s.diffs.Load(), s.intended.Load())
	for _, f := range s.first {
		t.Error(f)
	}
}
