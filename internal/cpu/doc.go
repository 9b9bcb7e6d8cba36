// Package cpu is the CPU backend's engine: it splits a softmax over the
// outer × axis × inner layout into chunks, runs them on a pool of worker
// goroutines (GOMAXPROCS of them), and drives the vector kernels of package
// vec on float32 chunks, converting f16/bf16 storage on the fly.
//
// Every slice is done in two passes: an online (max, sum) pass whose
// per-chunk float32 results are merged in float64, then a write pass. Rows
// are handed out whole when there are enough of them; a few long rows are
// split across cores and their partial (max, sum) pairs merged; a non-last
// axis is walked contiguously, lanes of the inner dimension side by side,
// so no element is gathered with a stride.
//
// Callers (the public package) validate shapes and buffers; this package
// assumes its inputs are consistent.
package cpu
