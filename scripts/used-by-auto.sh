#!/usr/bin/env bash
# Regenerates docs/generated/used-by-auto.md, the strategies' "used by auto"
# column, from the preference table (internal/plan/table/default.tsv).
# TestUsedByAutoDoc fails in CI when the file and the table disagree.
# The strategy table in docs/gpu-strategies.md takes its column from it.
set -euo pipefail
cd "$(dirname "$0")/.."
go test ./internal/plan -run '^TestUsedByAutoDoc$' -count=1 -update
