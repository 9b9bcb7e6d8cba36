// Package bench is the benchmark system of gofused/softmax: the compute
// device abstraction shared by the `softmax` CLI and the tests ([Backend],
// [Workload] and the device registry), the benchmark cases and suites
// ([Case], [ParseSpecs], [Suite]), the timing sweep ([Sweep]) and its
// outputs: a text table, JSON records, an SVG plot, and the comparison with
// the peer timings (PyTorch, torch.compile, Triton) written by
// bench/peers/peers.py.
//
// # Method
//
// Every (case, strategy) pair is run warm-up times, then timed rep times;
// the median is the reported time and the 10th/90th percentiles (plus the
// min and max in the JSON records) its spread. In the same run the backend
// times a plain device copy that moves the op's minimum memory traffic (a
// forward op reads x and writes y: 2·bytes; a backward op reads y and dy
// and writes dx: 3·bytes), the same way; copy_ratio = t(copy)/t(op) says how
// close the op comes to the memory bound (1 is copy speed). GB/s is the
// op's minimum traffic divided by its median time.
//
// On the CPU, inputs of cases smaller than a few tens of MB are replicated
// into several buffer sets used in turn, so the last-level cache does not
// flatter small cases (see [CPU]). A CPU rep times a batch of calls that
// spans at least 100 µs (or 100 ticks of the clock, if coarser) and is
// their mean, so a case shorter than a tick does not read 0; on Windows the
// clock is the performance counter, since Go's monotonic clock there steps
// once a timer tick.
//
// On a GPU each timed rep sits between its own pair of CUDA events, the
// reps are queued back to back and the host waits once, after the last.
// By default each rep (op and copy alike) is preceded, outside its span,
// by an overwrite of a buffer of at least 256 MB ([L2Flusher]), as
// triton.testing.do_bench and bench/peers/peers.py time: the rep reads its
// inputs from memory, finds no dirty lines of the rep before, and, since
// the overwrite keeps the GPU busy while the host queues the launch, its
// span holds no launch latency. (With a host wait after every rep and no
// flush, the timing this package used first, a rep's span also held the
// 2–5 µs from recording its start event to its launch reaching the GPU: on
// an H200, 4096×8192 f32 block_reg 74.8 µs against 70.5 flushed, the copy
// 69.2 against 67.3. --no-flush now times back-to-back reps without that
// wait.)
//
// # Devices
//
// A device string is auto, cpu, cuda or cuda:N. The CPU backend registers
// itself; the CUDA backend registers itself under "cuda" with [Register]
// from its own file. auto means cuda:0 when that opens, else cpu.
package bench
