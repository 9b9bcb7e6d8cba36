#!/bin/sh
# CPU check of the cross-entropy kernels (xent.cu) and the sharded ones
# (shard.cuh, split over four ranks) without a GPU: writes
# xent.cu with every kernel the catalogue generates (TestWriteXentSources),
# compiles it with the emulator (emu.h, sched.cpp) and xent_driver.cpp, and
# runs its cases against a float64 reference. Needs g++ >= 12. ~1-3 minutes.
#   internal/kernels/emu/xent_run.sh [workdir]
set -e
here=$(cd "$(dirname "$0")" && pwd)
kern=$(dirname "$here")
root=$(cd "$kern/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out/src"
(cd "$root" && SMX_XENT_OUT="$out/src" go test -count=1 -run TestWriteXentSources ./internal/kernels/ >/dev/null)
sed -n 's/^XENT_KERNEL(\([a-z0-9_]*\),.*/K(\1)/p' "$out/src/xent.cu" >"$out/xtable.inc"
g++ -O1 -std=c++17 -include "$here/emu.h" -I"$out/src" -I"$out" -w -o "$out/xemu" \
	"$here/xent_driver.cpp" "$here/sched.cpp" -x c++ "$out/src/xent.cu"
"$out/xemu"
