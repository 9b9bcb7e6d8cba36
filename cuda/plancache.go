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
// the driver reports for each kernel, and a forced strategy.
type planKey struct {
	prob plan.Problem
	algo string
}

// occKey names one occupancy query.
type occKey struct {
	file, symbol string
	dt           spec.DType
	block, smem  int
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
	c.mu.Lock()
	pl, ok := c.plans[k]
	c.mu.Unlock()
	if ok {
		return pl, nil
	}
	pl, err := build()
	if err != nil {
		return pl, err
	}
	c.mu.Lock()
	if c.plans == nil || len(c.plans) >= maxCachedPlans {
		c.plans = map[planKey]plan.Plan{}
	}
	c.plans[k] = pl
	c.mu.Unlock()
	return pl, nil
}

// occupancy returns the cached answer for k, or asks query and stores a
// successful answer. The answer is fixed for a loaded kernel, a block size
// and a dynamic shared memory size, so it is asked once per process.
func (c *planCache) occupancy(k occKey, query func() (int, error)) (int, error) {
	c.mu.Lock()
	n, ok := c.occ[k]
	c.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := query()
	if err != nil {
		return n, err
	}
	c.mu.Lock()
	if c.occ == nil {
		c.occ = map[occKey]int{}
	}
	c.occ[k] = n
	c.mu.Unlock()
	return n, nil
}

// size returns the number of cached plans and occupancy answers.
func (c *planCache) size() (plans, occ int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.plans), len(c.occ)
}
