package cuda

import (
	"sync"

	"github.com/gofused/softmax/internal/plan"
	"github.com/gofused/softmax/internal/spec"
)

// maxCachedPlans bounds a device's plan cache. A caller that cycles through
// more distinct problems than this (every sequence length of a serving
// loop, say) pays for planning again after the cache is emptied, never for
// unbounded memory.
const maxCachedPlans = 4096

// planKey is what a plan depends on besides the device: plan.Make is a
// pure function of the problem, the device's properties, the occupancy
// the driver reports for each kernel (of the plain-softmax build or the
// general one, whose registers differ), and a forced strategy.
type planKey struct {
	prob  plan.Problem
	algo  string
	plain bool
}

// occKey names one occupancy query: blocks per SM, or with cluster > 0
// the clusters of that many blocks resident at once.
type occKey struct {
	file, symbol string
	dt           spec.DType
	plain        bool
	block, smem  int
	cluster      int
}

// planCache memoises a device's plans and occupancy queries. Planning a
// shape costs the host 2-10 µs (measured on an H200 host: several
// cuOccupancyMaxActiveBlocksPerMultiprocessor calls, each with a context
// check, plus the reasons' formatting), as much as queuing the kernel
// itself; a cached plan costs one map lookup. Errors are not cached: they
// are rare and their messages name the call.
type planCache struct {
	mu    sync.Mutex
	plans map[planKey]plan.Plan
	occ   map[occKey]int
}

// plan returns the cached plan for k, or builds, stores and returns it.
// The returned plan shares its Launches with the cache: callers must not
// modify it (Device.Plan hands out a copy).
func (c *planCache) plan(k planKey, build func() (plan.Plan, error)) (plan.Plan, error) {
	return memo(&c.mu, &c.plans, k, build, maxCachedPlans)
}

// occupancy returns the cached answer for k, or asks query and stores a
// successful answer. The answer is fixed for a loaded kernel, a block size
// and a dynamic shared memory size, so it is asked once per process.
func (c *planCache) occupancy(k occKey, query func() (int, error)) (int, error) {
	return memo(&c.mu, &c.occ, k, query, 0)
}

// memo returns (*m)[k], or the value build returns, stored in *m when build
// succeeds. A map of limit entries (0: no limit) is emptied before the next
// store. mu guards *m; build runs without it, so two callers may both build
// a key that neither has stored yet (both get equal values).
func memo[K comparable, V any](mu *sync.Mutex, m *map[K]V, k K, build func() (V, error), limit int) (V, error) {
	mu.Lock()
	v, ok := (*m)[k]
	mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	mu.Lock()
	if *m == nil || (limit > 0 && len(*m) >= limit) {
		*m = map[K]V{}
	}
	(*m)[k] = v
	mu.Unlock()
	return v, nil
}

// size returns the number of cached plans and occupancy answers.
func (c *planCache) size() (plans, occ int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.plans), len(c.occ)
}
