package main

import (
	"fmt"
	"strings"

	"github.com/gofused/softmax/bench"
)

// runLossBench is `softmax bench --op cross_entropy|logsumexp`: the CPU
// fused cross-entropy forward+backward (traffic: logits read + gradient
// written) or log-sum-exp (logits read), each beside a copy of the same
// bytes. The GPU kernels are not written yet: --device cuda is an error.
func runLossBench(e *env, op, shapes, device string, warmup, reps int) error {
	kind, _, err := bench.ParseDevice(device)
	if err != nil {
		return usagef("--device: %v", err)
	}
	if kind == "cuda" {
		return fmt.Errorf("bench --op cross_entropy/logsumexp: the GPU kernels are not implemented yet (use --device cpu)")
	}
	if shapes == "" {
		return usagef("--op cross_entropy/logsumexp needs --shapes (e.g. 4096x32000:f32)")
	}
	if reps < 1 || warmup < 0 {
		return usagef("--reps %d --warmup %d: want reps ≥ 1, warmup ≥ 0", reps, warmup)
	}
	cases, err := bench.ParseSpecs(shapes)
	if err != nil {
		return usagef("--shapes: %v", err)
	}
	fmt.Fprintf(e.stdout, "%-16s %-5s %-14s %10s %8s %8s\n", "shape", "dtype", "op", "µs (min)", "GB/s", "vs copy")
	for _, c := range cases {
		if c.Axis != -1 && c.NormAxis() != len(c.Shape)-1 {
			return usagef("--shapes: %s ops run along the last axis", op)
		}
		for _, name := range []string{bench.OpCrossEntropy, bench.OpLogSumExp} {
			if op != name {
				continue
			}
			r, err := bench.TimeLossCPU(name, c.Shape, c.DType, warmup, reps)
			if err != nil {
				return err
			}
			t, tc := bench.Min(r.Op), bench.Min(r.Copy)
			fmt.Fprintf(e.stdout, "%-16s %-5v %-14s %10.1f %8.1f %8.2f\n", shapeString(c.Shape), c.DType, name,
				t*1e6, float64(r.Traffic)/t/1e9, tc/t)
		}
	}
	return nil
}

func shapeString(s []int) string {
	p := make([]string, len(s))
	for i, d := range s {
		p[i] = fmt.Sprint(d)
	}
	return strings.Join(p, "x")
}
