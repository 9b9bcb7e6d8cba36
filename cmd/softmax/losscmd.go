package main

import (
	"fmt"

	"github.com/gofused/softmax/bench"
)

// lossBenchFlags are the `softmax bench` flags that --op cross_entropy and
// --op logsumexp use.
type lossBenchFlags struct {
	op, shapes, suite, algo, device string
	warmup, reps, offset            int
	json, plot, peers               string
}

// runLossBench is `softmax bench --op cross_entropy|logsumexp`: the CPU
// fused cross-entropy forward+backward (traffic: logits read + gradient
// written) or log-sum-exp (logits read + one value per row), each beside a
// copy of the same bytes, printed, written (--json, --plot) and merged
// with peers.py's timings (--peers) as the softmax ops are; --device cuda
// times package cuda's kernels (bench.SweepLossCUDA).
func runLossBench(e *env, f lossBenchFlags) error {
	kind, ordinal, err := bench.ParseDevice(f.device)
	if err != nil {
		return usagef("--device: %v", err)
	}
	if f.shapes == "" || f.suite != "" {
		return usagef("--op cross_entropy/logsumexp needs --shapes (e.g. 4096x32000:f32), not --suite")
	}
	if f.reps < 1 || f.warmup < 0 {
		return usagef("--reps %d --warmup %d: want reps ≥ 1, warmup ≥ 0", f.reps, f.warmup)
	}
	if f.offset != 0 {
		return usagef("--offset: not supported with --op %s", f.op)
	}
	cases, err := bench.ParseSpecs(f.shapes)
	if err != nil {
		return usagef("--shapes: %v", err)
	}
	for _, c := range cases {
		if c.NormAxis() != len(c.Shape)-1 {
			return usagef("--shapes: %s: %s runs along the last axis", c, f.op)
		}
	}
	if kind == "cuda" && f.algo != "" && f.algo != "auto" {
		return usagef("--algo %s: the GPU loss ops run the planner's kernel (auto)", f.algo)
	}
	if _, err := bench.ParseAlgo(f.algo, bench.KnownAlgos(bench.NewCPU())); kind != "cuda" && err != nil {
		return usagef("--algo: %v", err)
	}
	for _, o := range []struct{ flag, path string }{{"--json", f.json}, {"--plot", f.plot}} {
		if o.path != "" {
			if err := checkWritable(o.path); err != nil {
				return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
			}
		}
	}
	var peers []bench.PeerRecord
	if f.peers != "" {
		if peers, err = bench.LoadPeers(f.peers); err != nil {
			return fmt.Errorf("--peers: %w", err)
		}
	}
	if kind == "cuda" {
		fmt.Fprintf(e.stdout, "device: cuda:%d\n", ordinal)
	} else {
		for _, l := range bench.Header(bench.NewCPU()) {
			fmt.Fprintln(e.stdout, l)
		}
	}
	fmt.Fprintf(e.stdout, "shapes %s; op %s; algo %s; %d reps after %d warm-up\n\n", f.shapes, f.op, f.algo, f.reps, f.warmup)
	stopCh, release := interrupted()
	defer release()
	so := bench.SweepOptions{Algo: f.algo, Warmup: f.warmup, Reps: f.reps, Log: &logWriter{w: e.stderr}, Stop: stopCh}
	var recs []bench.Record
	var sweepErr error
	if kind == "cuda" {
		recs, sweepErr = bench.SweepLossCUDA(ordinal, f.op, cases, so)
	} else {
		recs, sweepErr = bench.SweepLoss(f.op, cases, so)
	}
	if err := reportBench(e, recs, peers, f.peers, f.json, f.plot); err != nil {
		return err
	}
	return sweepErr
}
