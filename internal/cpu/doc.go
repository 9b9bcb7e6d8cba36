// Package cpu is the CPU backend's engine: it splits a softmax over the
// outer × axis × inner layout into chunks, runs them on a pool of worker
// goroutines (GOMAXPROCS of them), and drives the vector kernels of package
// vec on float32 chunks, converting f16/bf16 storage on the fly. Float64
// tensors take the same schedules in float64 (engine64.go, strided64.go)
// on vec's float64 kernels, with compensated sums.
//
// A forward slice that fits in cache is read from memory once and visited
// three times there, with one exp per element: a max pass, a pass that
// stores exp(s·x − max) to scratch and sums it (prefetching the next slice
// meanwhile), and a normalizing pass. A slice too long for the cache takes
// a stats pass (chunk max, then the chunk's exp sum; the chunks' pairs are
// merged in float64) and a write pass; a few long rows are split across
// cores and their partial pairs merged. A non-last axis is walked
// contiguously, lanes of the inner dimension side by side, so no element is
// gathered with a stride: from a cached slab when the axis is short, else
// in the same stats and write passes per lane, split along the axis when
// there are too few lane blocks for the cores. Rows and lane blocks go out
// in a few shares a worker, claimed as they are finished, and workers poll
// briefly for the next call before they park. Large outputs of calls on a
// few workers are written with non-temporal stores (streams), a cached
// slice's write overlapping the next slice's exps. The backward ops take a
// gradient-sum pass and a write pass, which multiplies each chunk of dx by
// the scale while it is in L1 (not at all for a scale of 1), from one load
// of y and dy when the slice is one chunk; large float32 dx is written
// scaled in one pass under the same rule. Every element of y and dy is
// read before dx is written there, so dx may be either.
//
// Callers (the public package) validate shapes and buffers; this package
// assumes its inputs are consistent.
package cpu
