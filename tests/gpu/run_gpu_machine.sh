#!/usr/bin/env bash
# One batch for a GPU machine (no Qt there): build the Qt-free project, run the GPU suites, the evaluation
# benchmark and the per-op search benchmark, and write every log and table to OUT.
#   tests/gpu/run_gpu_machine.sh OUT [all|build-test|search] [OP ...]
# Environment: SEARCH_GENERATIONS (3), SEARCH_CHILDREN (6), KX_BENCH_TIME (per-op wall-time limit, e.g. 15s).
# Expects CMAKE_PREFIX_PATH to reach LibTorch and the -dev packages (see README: building on a GPU machine).
set -o pipefail
out=${1:?usage: run_gpu_machine.sh OUT [all|build-test|search] [OP ...]}
mode=${2:-all}
shift $(( $# < 2 ? $# : 2 ))
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

if [ "$mode" != search ]; then
  nvidia-smi > "$out/nvidia-smi.txt" 2>&1
  cmake -S . -B build-gpu -G Ninja -DKX_BUILD_GUI=OFF -DCMAKE_BUILD_TYPE=Release > "$out/configure.log" 2>&1 \
    || { tail -40 "$out/configure.log"; exit 1; }
  start=$(date +%s)
  cmake --build build-gpu -j "$(nproc)" > "$out/build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"
  grep -E "error|FAILED" "$out/build.log" | head -30
  ctest --test-dir build-gpu -L gpu -V --timeout 600 > "$out/gpu-tests.log" 2>&1
  echo "gpu suites rc=$?"
  grep -E "^[0-9]+/[0-9]+ Test|tests passed|tests failed|test cases:|verified|ERROR" "$out/gpu-tests.log" | head -40
  ctest --test-dir build-gpu -LE gpu --timeout 600 > "$out/cpu-tests.log" 2>&1
  echo "other suites rc=$?"; grep -E "tests passed|tests failed|\(Failed\)" "$out/cpu-tests.log" | head
  tests/bench/bench_evaluation.sh build-gpu 16 "$out/bench-evaluation.md" > /dev/null 2>&1
  echo "evaluation benchmark rc=$?"; tail -12 "$out/bench-evaluation.md"
fi
if [ "$mode" != build-test ]; then
  tests/bench/bench_search.sh build-gpu/bin/kx "$out/search.kxdb" "${SEARCH_GENERATIONS:-3}" "${SEARCH_CHILDREN:-6}" "$@" \
    > "$out/bench-search.md" 2> "$out/bench-search.log"
  echo "search benchmark rc=$?"; cat "$out/bench-search.md"
fi
