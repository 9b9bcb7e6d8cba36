#!/bin/sh
# Writes the per-architecture resource tables, resources/<arch>.tsv: every
# catalogue kernel's registers per thread and static shared memory, as
# NVRTC compiles it with the library's options. Runs where NVRTC and
# cuobjdump are (the device machine; no Go, no GPU needed), from the jit
# test binary that scripts/gpu-build.sh builds into .devbin/:
#   sh internal/kernels/resources.sh [ARCH...]      # default: sm_80 sm_90
# It writes into internal/kernels/resources/ (OUT=DIR to write elsewhere);
# commit the files. Then `go test ./internal/kernels` checks that each
# covers exactly the catalogue kernels the architecture runs.
set -eu
cd "$(dirname "$0")/../.."
archs=${*:-sm_80 sm_90}
out=${OUT:-internal/kernels/resources}
cubins=$(mktemp -d)
trap 'rm -rf "$cubins"' EXIT
SMX_CUBIN_OUT="$cubins" SMX_CUBIN_ARCHS="$archs" SOFTMAX_CACHE=off \
	.devbin/jit.test -test.run '^TestWriteCubins$' -test.v >"$cubins/log" 2>&1 || { cat "$cubins/log"; exit 1; }
compiler=$(sed -n 's/.*compiler \(.*\)/\1/p' "$cubins/log" | head -1)
mkdir -p "$out"
for arch in $archs; do
	{
		printf '# Kernel resources compiled for %s: registers per thread and static shared\n' "$arch"
		printf '# memory bytes, per kernel symbol (resources.sh writes this file; do not edit).\n'
		printf '# compiler\t%s\n' "$compiler"
		printf 'symbol\tregs\tsmem\n'
		for f in "$cubins/$arch"/*.cubin; do
			cuobjdump -res-usage "$f"
		done | awk '
			/Function [A-Za-z0-9_]+:/ { fn = $2; sub(/:$/, "", fn) }
			/REG:/ && fn != "" {
				for (i = 1; i <= NF; i++) { split($i, kv, ":"); v[kv[1]] = kv[2] }
				printf "%s\t%s\t%s\n", fn, v["REG"], v["SHARED"]; fn = ""
			}' | LC_ALL=C sort
	} >"$out/$arch.tsv"
	echo "$out/$arch.tsv: $(grep -c '	' "$out/$arch.tsv") kernels ($compiler)"
	awk -F'\t' '$1 != "symbol" && $2 == 0 && $1 !~ /^#/ { bad = 1; print "no registers: " $0 } END { exit bad }' "$out/$arch.tsv"
done
