#!/usr/bin/env bash
# Candidates evaluated per minute at KernelBench sizes: `kx coverage --gpu` searches each problem file for a fixed
# budget on one GPU with the template proposer; the evaluations each run stored are counted over the run's own
# duration (import and baseline preparation before the search are not counted).
#   tests/bench/bench_throughput.sh KX ARCHIVE SECONDS FILE.py ...
# Environment: KX_COVERAGE_ARGS (more arguments for kx coverage, e.g. "--precision tf32").
# Run it on the GPU machine; record its table in docs/benchmarks.md with the date, GPU and commit.
set -euo pipefail
kx=${1:?usage: bench_throughput.sh KX ARCHIVE SECONDS FILE.py ...}
archive=${2:?archive path}
seconds=${3:?seconds of search per problem}
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for file in "$@"; do cp "$file" "$dir/"; done
# KernelBench's own problem files: run unconfined where bubblewrap is missing (the GPU machine has none).
sandbox=$(command -v bwrap > /dev/null || echo --no-sandbox)
# shellcheck disable=SC2086
"$kx" coverage "$dir" $sandbox --gpu --device cuda --max-mb 20000 -j 4 --budget "$seconds" -a "$archive" ${KX_COVERAGE_ARGS:-} \
  > "$archive.coverage.md" 2> "$archive.coverage.log" || echo "kx coverage exited with $?" >&2
python3 - "$archive" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print("| problem | candidates evaluated | search s | candidates per minute |")
print("|---|---:|---:|---:|")
total, seconds = 0, 0.0
for run, op, created, updated in db.execute("SELECT id, op_name, created_at, updated_at FROM runs ORDER BY id"):
    count = db.execute("SELECT COUNT(*) FROM evaluations WHERE run_id = ?", (run,)).fetchone()[0]
    wall = max((updated - created) / 1000.0, 1e-3)
    total, seconds = total + count, seconds + wall
    print(f"| {op} | {count} | {wall:.1f} | {count / wall * 60:.1f} |")
if seconds:
    print(f"| all | {total} | {seconds:.1f} | {total / seconds * 60:.1f} |")
PY
