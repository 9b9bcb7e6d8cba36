package cuda

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	softmax "github.com/gofused/softmax"
	"github.com/gofused/softmax/internal/driver"
	"github.com/gofused/softmax/internal/shard"
)

// commCases split three shapes of every dtype over exactly p ranks: evenly
// (torch's split), and, from four ranks, with an empty and a one-column
// rank.
func commCases(p int) []shardCase {
	var out []shardCase
	for _, dt := range []softmax.DType{softmax.Float32, softmax.Float16, softmax.BFloat16, softmax.Float64} {
		for _, s := range []struct{ rows, v int }{{9, 781}, {6, 50257}, {2, 1000003}} {
			rs, _ := shard.Even(s.v, p)
			out = append(out, shardCase{dt, s.rows, s.v, rs})
		}
		if p >= 4 {
			rs := []shard.Range{{Lo: 0, Hi: 1}, {Lo: 1, Hi: 1}}
			rest, _ := shard.Even(999, p-2)
			for _, r := range rest {
				rs = append(rs, shard.Range{Lo: r.Lo + 1, Hi: r.Hi + 1})
			}
			out = append(out, shardCase{dt, 7, 1000, rs})
		}
	}
	return out
}

// checkCommShards runs commCases over the ranks exs on devs (only ≥ 0:
// this process is that rank alone).
func checkCommShards(t *testing.T, devs []*Device, exs []exchange, only int) {
	t.Helper()
	for i, c := range commCases(exs[0].Size()) {
		rr := rankRun{devs, exs, c, only}
		if err := rr.checkSoftmax(uint64(100 + i)); err != nil {
			t.Errorf("%v: %v", c, err)
		}
		if err := rr.checkXent(uint64(100 + i)); err != nil {
			t.Errorf("%v: cross-entropy: %v", c, err)
		}
	}
}

// openAll opens every GPU, skipping with fewer than two or without NCCL.
func openAll(t *testing.T) []*Device {
	n, err := DeviceCount()
	if err != nil || n < 2 {
		t.Skipf("fewer than two GPUs (%d, %v)", n, err)
	}
	if _, err := driver.OpenNCCL(); err != nil {
		t.Skipf("no NCCL: %v", err)
	}
	devs := make([]*Device, n)
	for i := range devs {
		if devs[i], err = Open(i); err != nil {
			t.Fatal(err)
		}
	}
	return devs
}

// rankCounts are the communicator sizes a machine of n GPUs is tested at.
func rankCounts(n int) []int {
	var out []int
	for p := 2; p <= n; p *= 2 {
		out = append(out, p)
	}
	return out
}

// One process driving P GPUs (ncclCommInitAll), a goroutine a rank: the
// sharded ops against the single-GPU ops on GPU 0, P = 2, 4, 8 as the
// machine has.
func TestCommShards(t *testing.T) {
	devs := openAll(t)
	for _, p := range rankCounts(len(devs)) {
		cs, err := OpenComms(devs[:p])
		if err != nil {
			t.Fatal(err)
		}
		exs := make([]exchange, p)
		for i, c := range cs {
			exs[i] = c
		}
		t.Run(fmt.Sprintf("P=%d", p), func(t *testing.T) { checkCommShards(t, devs[:p], exs, -1) })
		for _, c := range cs {
			c.Close()
		}
	}
}

// envShardChild marks a child process of TestJoinCommShards.
const envShardChild = "SOFTMAX_TEST_SHARD_ID_FILE"

// P processes, one a GPU, joining through an id file rank 0 writes
// (JoinComm, RANK/WORLD_SIZE/LOCAL_RANK as torchrun sets them): each
// checks its columns against the single-GPU ops on its GPU.
func TestJoinCommShards(t *testing.T) {
	if path := os.Getenv(envShardChild); path != "" {
		env, err := RankFromEnv()
		if err != nil {
			t.Fatal(err)
		}
		d, err := Open(env.LocalRank)
		if err != nil {
			t.Fatal(err)
		}
		c, err := JoinComm(d, env, path, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		devs, exs := make([]*Device, env.WorldSize), make([]exchange, env.WorldSize)
		for i := range devs {
			devs[i], exs[i] = d, c
		}
		checkCommShards(t, devs, exs, env.Rank)
		return
	}
	devs := openAll(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a rank that fails leaves the others waiting
	defer cancel()
	for _, p := range rankCounts(len(devs)) {
		idPath := filepath.Join(t.TempDir(), "nccl-id")
		cmds := make([]*exec.Cmd, p)
		outs := make([][]byte, p)
		done := make(chan int, p)
		for r := range p {
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestJoinCommShards$", "-test.count=1")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, EnvNCCLID+"=") }),
				envShardChild+"="+idPath, "RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(p), "LOCAL_RANK="+strconv.Itoa(r),
				driver.EnvNVLS+"=0")
			cmds[r] = cmd
			go func() {
				outs[r], _ = cmd.CombinedOutput()
				done <- r
			}()
		}
		for range p {
			<-done
		}
		for r, cmd := range cmds {
			if !cmd.ProcessState.Success() {
				t.Errorf("P=%d rank %d: %v\n%s", p, r, cmd.ProcessState, outs[r])
			}
		}
	}
}
