#!/usr/bin/env bash
# Builds, on a machine with Go, everything a GPU run needs into .devbin/
# (ignored by git, carried to the device machine, which has no Go).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
mkdir -p .devbin
go build -o .devbin/softmax ./cmd/softmax
for p in ./internal/driver ./internal/jit ./cuda ./bench ./cmd/softmax; do
  go test -c -o ".devbin/$(basename "$p").test" "$p"
done
cp bench/peers/peers.py .devbin/ 2>/dev/null || true
cp scripts/gpu-run.sh scripts/gpu-tests.sh scripts/gpu-tests-f64.sh .devbin/
cp scripts/gpu-tests-73.sh .devbin/ 2>/dev/null || true
ls -la .devbin
