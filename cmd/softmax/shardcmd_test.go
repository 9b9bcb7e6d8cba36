package main

import "testing"

// bench-shard checks its flags before it looks for GPUs.
func TestBenchShardUsageErrors(t *testing.T) {
	expectUsageErrors(t, "bench-shard", []usageCase{
		{[]string{"bench-shard"}, `--shape "": want ROWSxV`},
		{[]string{"bench-shard", "--shape", "16384"}, "want ROWSxV"},
		{[]string{"bench-shard", "--shape", "0x5"}, "want ROWSxV"},
		{[]string{"bench-shard", "--shape", "4x5", "--dtype", "f8"}, "--dtype"},
		{[]string{"bench-shard", "--shape", "4x5", "--op", "nope"}, `--op "nope"`},
		{[]string{"bench-shard", "--shape", "4x5", "--reps", "0"}, "--reps 0"},
	})
	expectHelp(t, "bench-shard", "--weak", "efficiency", "docs/multi-gpu.md")
}
