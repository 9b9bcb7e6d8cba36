package cuda

import (
	"errors"
	"reflect"
	"testing"

	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

func TestPlanCacheBuildsOncePerKey(t *testing.T) {
	var c planCache
	builds := 0
	build := func(k planKey) func() (plan.Plan, error) {
		return func() (plan.Plan, error) {
			builds++
			return plan.Make(k.prob, fakeH100, nil, k.algo)
		}
	}
	a := planKey{prob(4096, 1024, 1, spec.Float32, spec.Softmax, true), "", true}
	b := planKey{prob(4096, 1024, 1, spec.Float32, spec.Softmax, false), "", true} // unaligned: another plan
	f := planKey{a.prob, "block_smem", true}
	g := planKey{a.prob, "", false} // the general build's kernels: another plan
	for range 3 {
		for _, k := range []planKey{a, b, f, g} {
			got, err := c.plan(k, build(k))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := plan.Make(k.prob, fakeH100, nil, k.algo)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: cached plan %+v differs from the planner's %+v", k, got, want)
			}
		}
	}
	if builds != 4 {
		t.Errorf("4 keys planned 3 times each: %d builds, want 4", builds)
	}
	if n, _ := c.size(); n != 4 {
		t.Errorf("%d cached plans, want 4", n)
	}
}

func TestPlanCacheKeepsNoErrors(t *testing.T) {
	var c planCache
	k := planKey{prob(4096, 1024, 1, spec.Float32, spec.Softmax, true), "no_such_strategy", true}
	calls := 0
	fail := func() (plan.Plan, error) { calls++; return plan.Plan{}, errors.New("boom") }
	for range 2 {
		if _, err := c.plan(k, fail); err == nil {
			t.Fatal("a failed build returned no error")
		}
	}
	if calls != 2 {
		t.Errorf("a failing key was built %d times in 2 calls: its error was cached", calls)
	}
	if n, _ := c.size(); n != 0 {
		t.Errorf("%d cached plans after failures only", n)
	}
}

func TestPlanCacheIsBounded(t *testing.T) {
	var c planCache
	ok := func() (plan.Plan, error) { return plan.Plan{Strategy: "x"}, nil }
	for i := range maxCachedPlans + 10 {
		if _, err := c.plan(planKey{prob(int64(i+1), 1024, 1, spec.Float32, spec.Softmax, true), "", true}, ok); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.size(); n > maxCachedPlans {
			t.Fatalf("after %d problems the cache holds %d plans, over its bound %d", i+1, n, maxCachedPlans)
		}
	}
	if n, _ := c.size(); n != 10 {
		t.Errorf("the cache holds %d plans after emptying at its bound and 10 more problems, want 10", n)
	}
}

func TestOccupancyAskedOncePerQuery(t *testing.T) {
	var c planCache
	asked := map[occKey]int{}
	query := func(k occKey) func() (int, error) {
		return func() (int, error) { asked[k]++; return k.block / 64, nil }
	}
	keys := []occKey{
		{"block_reg.cu", "k", spec.Float32, false, 256, 0, 0},
		{"block_reg.cu", "k", spec.Float32, false, 512, 0, 0},
		{"block_reg.cu", "k", spec.Float16, false, 256, 0, 0},
		{"block_reg.cu", "k", spec.Float32, false, 256, 4096, 0},
		{"block_reg.cu", "k", spec.Float32, true, 256, 0, 0},
		{"block_reg.cu", "k", spec.Float32, true, 256, 0, 8},
	}
	for range 3 {
		for _, k := range keys {
			if n, err := c.occupancy(k, query(k)); err != nil || n != k.block/64 {
				t.Fatalf("%+v: %d, %v; want %d", k, n, err, k.block/64)
			}
		}
	}
	for _, k := range keys {
		if asked[k] != 1 {
			t.Errorf("%+v asked %d times, want once", k, asked[k])
		}
	}
	bad := occKey{"x.cu", "k", spec.Float32, false, 128, 0, 0}
	fails := 0
	for range 2 {
		if _, err := c.occupancy(bad, func() (int, error) { fails++; return 0, errors.New("no") }); err == nil {
			t.Fatal("a failed query returned no error")
		}
	}
	if fails != 2 {
		t.Errorf("a failing query was asked %d times in 2 calls: its error was cached", fails)
	}
}

// TestDevicePlanCache checks on a GPU that plans through the cache equal
// plans made from live driver answers, and that a caller changing the plan
// Device.Plan returned does not change the next one.
func TestDevicePlanCache(t *testing.T) {
	d := openOrSkip(t)
	defer d.Close()
	live := func(dt spec.DType) plan.Queries { // softmax at scale 1: the plain build's kernels
		return plan.Queries{
			Blocks: func(file, symbol string, block, smem int) (int, error) {
				return d.askOccupancy(file, dt, true, symbol, block, smem)
			},
			Clusters: func(file, symbol string, block, smem, cluster int) (int, error) {
				return d.askClusters(file, dt, true, symbol, block, smem, cluster)
			},
		}
	}
	algos := append([]string{""}, Strategies()...)
	for _, rs := range reportShapes {
		for _, dt := range []spec.DType{spec.Float32, spec.BFloat16} {
			l, err := spec.Decompose(rs.shape, rs.axis)
			if err != nil {
				t.Fatal(err)
			}
			p := plan.Problem{Outer: int64(l.Outer), Axis: int64(l.Axis), Inner: int64(l.Inner), DType: dt, Op: spec.Softmax, Aligned: true}
			for _, algo := range algos {
				want, werr := plan.MakeWith(p, d.planDevice(), live(dt), algo)
				for range 2 {
					got, err := d.Plan(spec.Softmax, dt, rs.shape, Options{Axis: rs.axis, Algo: algo})
					if (err != nil) != (werr != nil) {
						t.Fatalf("%v %v axis %d algo %q: cached error %v, live error %v", rs.shape, dt, rs.axis, algo, err, werr)
					}
					if err == nil && !reflect.DeepEqual(got, want) {
						t.Fatalf("%v %v axis %d algo %q: cached plan\n%+v\nlive plan\n%+v", rs.shape, dt, rs.axis, algo, got, want)
					}
					if err == nil {
						got.Launches[0].Grid[0]++ // must not reach the cache
					}
				}
			}
		}
	}
	plans, occ := d.plans.size()
	t.Logf("%d plans and %d occupancy answers cached", plans, occ)
	if plans == 0 || occ == 0 {
		t.Errorf("nothing cached: %d plans, %d occupancy answers", plans, occ)
	}
}
