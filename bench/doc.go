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
// flatter small cases (see [CPU]).
//
// # Devices
//
// A device string is auto, cpu, cuda or cuda:N. The CPU backend registers
// itself; the CUDA backend registers itself under "cuda" with [Register]
// from its own file. auto means cuda:0 when that opens, else cpu.
package bench
