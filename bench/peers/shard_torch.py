"""torch's vocab-parallel cross-entropy (loss_parallel over a DTensor whose
class dim is sharded) timed as `softmax bench-shard` times ours (issue 77).

Run one process a GPU, as torchrun starts them:
  torchrun --nproc-per-node P shard_torch.py ROWS V DTYPE [REPS]
ROWS x V is the whole problem; each rank holds ROWS x V/P (V/P whole).
Each rep: forward and backward of F.cross_entropy (torch's defaults) under
loss_parallel, after an L2 flush, timed with CUDA events; rank 0 prints one
JSON line: the median over reps of the slowest rank, in microseconds.
Keep NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 set.
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Shard
from torch.distributed.tensor.parallel import loss_parallel


def main():
    rows, v, dt = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dt]
    world = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    mesh = init_device_mesh("cuda", (world,))
    assert v % world == 0, "V must split evenly"
    torch.manual_seed(int(os.environ["RANK"]))
    local = torch.randn(rows, v // world, device="cuda", dtype=dtype)
    torch.manual_seed(0)
    target = torch.randint(0, v, (rows,), device="cuda")
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def step():
        leaf = local.detach().requires_grad_()
        x = DTensor.from_local(leaf, mesh, [Shard(1)])
        with loss_parallel():
            loss = F.cross_entropy(x, target)
            loss.backward()
        return leaf.grad

    for _ in range(3):
        step()
    times = []
    for _ in range(reps):
        flush.zero_()
        dist.barrier()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        t = torch.tensor([a.elapsed_time(b) * 1e3], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(t.item())
    times.sort()
    if dist.get_rank() == 0:
        print(json.dumps({"peer": "torch.loss_parallel", "gpus": world, "rows": rows, "v": v, "dtype": dt,
                          "us": times[len(times) // 2], "torch": torch.__version__}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
