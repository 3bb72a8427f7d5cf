#!/usr/bin/env bash
# Evaluation throughput on one GPU: candidates per minute for relu on 64Mi floats (NVRTC compile, 11+1 correctness
# trials, >= 100 timed runs each of candidate and PyTorch), split into compile, checking and timing.
# Usage: tests/bench/bench_evaluation.sh [build-dir] [candidates] [report.md]
# Builds the driver if needed and prints a Markdown section for docs/benchmarks.md (also written to report.md).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
candidates=${2:-8}
report=${3:-}
cmake --build "$build" --target bench_evaluation >/dev/null
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  [ -z "$(git -C "$root" status --porcelain 2>/dev/null | head -1)" ] || commit="$commit (with uncommitted changes)"
else
  commit=uncommitted
fi
if [ -n "$report" ]; then
  "$build/bin/bench_evaluation" --candidates "$candidates" --commit "$commit" | tee "$report"
else
  "$build/bin/bench_evaluation" --candidates "$candidates" --commit "$commit"
fi
