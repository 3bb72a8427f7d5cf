#!/usr/bin/env bash
# The yardstick: kx coverage --gpu on the fixed list of KernelBench problems (tests/bench/yardstick.txt), with
# the best kernel of each against eager PyTorch and torch.compile (Inductor) under one precision policy.
#   tests/bench/bench_yardstick.sh KX KERNELBENCH_DIR OUT_PREFIX [PRECISION] [BUDGET_SECONDS] [LEVEL]
# KERNELBENCH_DIR holds level1/ and level2/ (KernelBench's KernelBench/ folder); LEVEL (1 or 2) runs one half.
# Writes OUT_PREFIX.md (the table and its summary lines), .csv, .log and the archive OUT_PREFIX.kxdb.
# KX_LIST names another list of the same form (a part of the yardstick, to measure one change quickly).
# Run it on the GPU machine; record the table in docs/benchmarks.md with the date, GPU and commit.
set -euo pipefail
kx=${1:?usage: bench_yardstick.sh KX KERNELBENCH_DIR OUT_PREFIX [PRECISION] [BUDGET] [LEVEL]}
source_dir=${2:?KernelBench folder}
out=${3:?output prefix}
precision=${4:-fp32}
budget=${5:-30}
level=${6:-}
list=${KX_LIST:-"$(dirname "${BASH_SOURCE[0]}")/yardstick.txt"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
while read -r path; do
  case "$path" in ''|'#'*) continue ;; esac
  [ -n "$level" ] && [ "${path%%/*}" != "level$level" ] && continue
  mkdir -p "$dir/$(dirname "$path")"
  cp "$source_dir/$path" "$dir/$path"
done < "$list"
# KernelBench's own problem files: run unconfined where bubblewrap is missing (the GPU machine has none).
sandbox=$(command -v bwrap > /dev/null || echo --no-sandbox)
"$kx" coverage "$dir" $sandbox --gpu --device cuda --max-mb 20000 -j "${KX_JOBS:-8}" --budget "$budget" --precision "$precision" \
  -a "$out.kxdb" --csv "$out.csv" --markdown "$out.md" ${KX_RESUME:+--resume} > /dev/null 2> "$out.log"
cat "$out.md"
