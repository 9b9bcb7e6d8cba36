package kernels

import (
	"fmt"
	"strings"

	"github.com/gofused/softmax/internal/spec"
)

// The sharded kernels (shard.cuh, compiled with xent.cu: issue 77) serve a
// class axis split across ranks: ShardStats writes a rank's per-row
// records, the ranks all-gather them, ShardApply merges them and writes
// softmax, log-softmax, the log-sum-exp or the cross-entropy's loss and
// gradient; ShardDot and ShardBwd are the softmax backward's two passes
// around one all-reduce.
const (
	ShardStats = "shard_stats"
	ShardApply = "shard_apply"
	ShardDot   = "shard_dot"
	ShardBwd   = "shard_bwd"
)

// ShardRecord is the values of one row's record (m, d, z_t, dot), each of
// the call's math type (float32; float64 for Float64).
const ShardRecord = 4

// ShardOp is XParams.ShOp of ShardApply and ShardBwd (SH_* in shard.cuh).
const (
	ShardSoftmax = 0 // softmax (ShardApply), its gradient (ShardBwd)
	ShardLog     = 1 // log-softmax, its gradient
	ShardXent    = 2 // ShardApply: the cross-entropy's lse, loss and gradient
)

// shardThreads are the block sizes of every sharded kernel: ShardThreads
// picks one for a row.
var shardThreads = []int{128, 512}

// ShardThreads is the block size for rows of v elements of dt: 512 threads
// once each has four packs to stream, else 128.
func ShardThreads(v int64, dt spec.DType) int {
	if v >= int64(4*512*Pack(dt)) {
		return 512
	}
	return 128
}

// ShardSymbol is the name of one sharded kernel: shard_stats_bf16_t512.
func ShardSymbol(kind string, dt spec.DType, threads int) string {
	return fmt.Sprintf("%s_%v_t%d", kind, dt, threads)
}

// shardInstances are the sharded kernels of every dtype and block size.
func shardInstances() []Instance {
	var out []Instance
	for _, dt := range xentDTypes {
		for _, kind := range []string{ShardStats, ShardApply, ShardDot, ShardBwd} {
			for _, nt := range shardThreads {
				out = append(out, Instance{Symbol: ShardSymbol(kind, dt, nt), Threads: nt, MinBlocks: shardMinBlocks(nt),
					Body: body("smx::"+kind, "smx::"+strings.ToUpper(dt.String()), nt)})
			}
		}
	}
	return out
}

// shardMinBlocks bounds the 512-thread kernels to two blocks an SM (64
// registers): unbounded, NVRTC 13 gave shard_apply 96, one block an SM, a
// quarter of the warps (nvidia-h200-2026-11-29-s71.txt call 2).
func shardMinBlocks(threads int) int {
	if threads == 512 {
		return 2
	}
	return 0
}
