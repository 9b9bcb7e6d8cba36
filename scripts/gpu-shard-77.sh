#!/bin/bash
# Issue 77 on a multi-GPU kind, one call (~400 s on 4 GPUs): the sharded tests (P = 2, 4, 8 as the machine
# has; OpenComms and one process a GPU), bench-shard strong and weak scaling, torch's loss_parallel.
# Needs .devbin/{cuda.test,softmax} (gzipped or not) built here; logs and a tarball under $OUT/m1.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT/.devbin"
[ -f cuda.test.gz ] && gunzip -f *.gz; chmod +x softmax *.test
L=$OUT/m1; mkdir -p $L
N=$(nvidia-smi -L | wc -l); echo "GPUs $N"
nvidia-smi topo -m > $L/topo.txt 2>&1
# One GPU's tests beside the multi-GPU ones (correctness only: the benches run after both).
(timeout 300 ./cuda.test -test.v -test.run 'TestShardLocalRanks|TestCommOneRank|TestXentKernelResources|TestCrossEntropy|TestLogSumExp|TestTargetLogProbs' > $L/one.txt 2>&1; echo "one-GPU tests rc $?" > $L/one.rc) &
timeout 300 ./cuda.test -test.v -test.run 'TestCommShards|TestJoinCommShards' > $L/multi.txt 2>&1; echo "multi-GPU tests rc $? at $SECONDS s"
wait; cat $L/one.rc
grep -E "^(--- |ok|FAIL|PASS|panic)|^    --- " $L/one.txt $L/multi.txt | head -20
grep -E "shard_test|shard_ops|comm_test|shard_comm" $L/one.txt $L/multi.txt | head -10
grep -E " shard_[a-z]+_[a-z0-9]+_t[0-9]+ " $L/one.txt | grep -v " 0 bytes local" | head -8  # spills
B="--reps 10 --warmup 3"
timeout 90 ./softmax bench-shard --shape 16384x256000 --op cross_entropy --dtype bf16 $B > $L/ce-strong.txt 2>&1
timeout 60 ./softmax bench-shard --shape 4096x131072 --op softmax --dtype f32 $B > $L/sm-strong.txt 2>&1
timeout 60 ./softmax bench-shard --shape 16384x32000 --op cross_entropy --dtype bf16 --weak $B > $L/ce-weak.txt 2>&1
timeout 60 ./softmax bench-shard --shape 4096x16384 --op softmax --dtype f32 --weak $B > $L/sm-weak.txt 2>&1
echo "bench done at $SECONDS s"
for P in 1 2 4 8; do
  [ $P -le $N ] || break
  [ $SECONDS -lt 520 ] || break
  timeout 60 python3 -m torch.distributed.run --nproc-per-node $P "$ROOT/bench/peers/shard_torch.py" 16384 256000 bf16 10 2>>$L/torch-err.txt | grep '^{' >> $L/torch.txt
done
cat $L/ce-strong.txt $L/sm-strong.txt $L/ce-weak.txt $L/sm-weak.txt | grep -v "^softmax: bench:"
cat $L/torch.txt; tail -3 $L/torch-err.txt
tar czf $OUT/m1.tgz -C $OUT m1
echo done $SECONDS
