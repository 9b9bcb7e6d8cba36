package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gofused/softmax/bench"
	"github.com/gofused/softmax/cuda"
	"github.com/gofused/softmax/internal/spec"
)

func init() {
	addCommand(&command{name: "bench-shard", summary: "time a sharded op over the local GPUs (scaling)", run: runBenchShard})
}

const benchShardSynopsis = `softmax bench-shard --shape ROWSxV [--op OP] [--dtype DT] [--gpus 1,2,4,8] [--weak]

Times an op whose class axis is split across the local GPUs (package cuda's
Comm: one process, a goroutine a GPU, NCCL over them) at each GPU count,
against the single-GPU op on GPU 0, and prints the time a call and the
scaling efficiency: t(1)/(P·t(P)) for the same problem (strong), or
t(1)/t(P) with --weak, where V is each GPU's width. Each time is the
median over reps of the slowest rank, after an L2 flush on every GPU.
docs/multi-gpu.md says what the sharded ops do.
`

func runBenchShard(e *env, args []string) error {
	fs := flagSet("bench-shard")
	shape := fs.String("shape", "", "ROWSxV: rows and classes (each GPU's classes with --weak)")
	op := fs.String("op", bench.OpCrossEntropy, "cross_entropy, logsumexp, softmax or log_softmax")
	dt := fs.String("dtype", "bf16", "f32, f16, bf16 or f64")
	gpus := fs.String("gpus", "", "GPU counts, comma-separated (default: 1, 2, 4, … up to the GPUs here)")
	weak := fs.Bool("weak", false, "weak scaling: V classes a GPU")
	warmup := fs.Int("warmup", 5, "untimed calls first")
	reps := fs.Int("reps", 20, "timed calls")
	if err := parseFlags(e, fs, benchShardSynopsis, args); err != nil {
		return err
	}
	var rows, v int
	if n, err := fmt.Sscanf(strings.ToLower(*shape), "%dx%d", &rows, &v); err != nil || n != 2 || rows < 1 || v < 1 {
		return usagef("--shape %q: want ROWSxV, e.g. 16384x256000", *shape)
	}
	dtype, err := spec.ParseDType(*dt)
	if err != nil {
		return usagef("--dtype: %v", err)
	}
	switch *op {
	case bench.OpCrossEntropy, bench.OpLogSumExp, "softmax", "log_softmax":
	default:
		return usagef("--op %q: want cross_entropy, logsumexp, softmax or log_softmax", *op)
	}
	if *reps < 1 || *warmup < 0 {
		return usagef("--reps %d --warmup %d: want reps ≥ 1, warmup ≥ 0", *reps, *warmup)
	}
	n, err := cuda.DeviceCount()
	if err != nil {
		return err
	}
	counts := []int{}
	if *gpus == "" {
		for p := 1; p <= n; p *= 2 {
			counts = append(counts, p)
		}
	} else {
		for _, f := range strings.Split(*gpus, ",") {
			p, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || p < 1 || p > n {
				return usagef("--gpus: %q: want GPU counts from 1 to %d", f, n)
			}
			counts = append(counts, p)
		}
	}
	if counts[0] != 1 {
		counts = append([]int{1}, counts...) // the efficiencies' baseline
	}
	rowsOut, err := bench.ShardScaling(bench.ShardConfig{Op: *op, Rows: rows, V: v, DType: dtype, GPUs: counts,
		Weak: *weak, Warmup: *warmup, Reps: *reps, Log: &logWriter{w: e.stderr}})
	kind := "strong"
	if *weak {
		kind = "weak"
	}
	fmt.Fprintf(e.stdout, "%s %s %dx%d (%s scaling), %d reps\n", *op, dtype, rows, v, kind, *reps)
	fmt.Fprintf(e.stdout, "%-5s %-14s %-8s %-10s %s\n", "GPUs", "shape", "V/GPU", "µs/call", "efficiency")
	for _, r := range rowsOut {
		fmt.Fprintf(e.stdout, "%-5d %-14s %-8d %-10.1f %.2f\n", r.GPUs, fmt.Sprintf("%dx%d", r.Rows, r.V), r.Width, r.Micros, r.Efficiency)
	}
	return err
}
