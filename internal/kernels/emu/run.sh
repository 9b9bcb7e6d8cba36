#!/bin/sh
# CPU check of the kernels without a GPU: compiles every strategy (but
# split_cluster and split_grid, which need real clusters and a grid of
# co-resident blocks) as host C++ against emu.h, asks
# the planner for plans of a set of shapes x strategies x dtypes x ops x
# alignments on a tiny device (so grid-stride loops iterate), and runs them
# against a float64 reference, failing a case whose 16-byte reads leave an
# input tensor (emu.h, check_read); then the plain-softmax builds (SMX_PLAIN) on
# the plain cases. Needs g++ >= 12 (_Float16). ~7 minutes.
#   internal/kernels/emu/run.sh [workdir]
# SMX_EMU_GREP=REGEX runs only the cases whose "case ..." line matches
# (an awk regex; '^case [a-z_0-9]+ [a-z0-9]+ [23] ' the backward ops);
# every source is still compiled (table.inc names them all).
set -e
here=$(cd "$(dirname "$0")" && pwd)
kern=$(dirname "$here")
root=$(cd "$kern/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
(cd "$root" && SMX_EMU_OUT="$out" go test -count=1 -run TestEmuCases ./internal/plan/ >/dev/null)
if [ -n "${SMX_EMU_GREP:-}" ]; then
	awk -v re="$SMX_EMU_GREP" '/^case /{keep = ($0 ~ re)} keep' "$out/cases.txt" >"$out/cases.sel"
	mv "$out/cases.sel" "$out/cases.txt"
	echo "SMX_EMU_GREP: $(grep -c '^case ' "$out/cases.txt") cases kept"
fi
# The strategy files with the kernels the catalogue generates for them.
src="$out/src"
(cd "$root" && SMX_SOURCES_OUT="$src" go test -count=1 -run TestWriteSources ./internal/kernels/ >/dev/null)
srcs=$(find "$src" -name '*.cu' | sort | grep -v -e split_cluster -e split_grid)
# build BINARY TABLEDIR FLAGS SOURCES...: the driver with TABLEDIR's kernel
# table (table.inc) and SOURCES, compiled with the extra g++ FLAGS.
build() {
	bin=$1 tab=$2 flags=$3; shift 3
	g++ -O1 -std=c++17 $flags -include "$here/emu.h" -I"$src" -I"$tab" -w -o "$bin" \
		"$here/driver.cpp" "$here/sched.cpp" -x c++ "$@"
}
build "$out/emu" "$out" "" $srcs
"$out/emu" "$out/cases.txt"
# The plain-softmax builds (SMX_PLAIN=1) of the strategies that have one,
# on the forward softmax cases at scale 1 that run their kernels.
psrcs=$(sed "s|^|$src/|" "$out/plain/srcs.txt")
if [ -n "$psrcs" ]; then
	build "$out/emu_plain" "$out/plain" -DSMX_PLAIN=1 $psrcs
	"$out/emu_plain" "$out/cases.txt" plain
fi
