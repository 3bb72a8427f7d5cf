#!/usr/bin/env bash
# Searches catalog ops with a fixed budget and prints a Markdown table: per op the eager (LibTorch) time, the
# best verified time, the speedup against the median eager time, the achieved fraction of the roofline, candidates
# evaluated and wall time.
#   tests/bench/bench_search.sh KX ARCHIVE [GENERATIONS] [CHILDREN] [OP ...]
# Environment: KX_WORKER (a worker command instead of `kx worker`, e.g. the fake worker for a dry run),
#              KX_BENCH_TIME (a per-op wall-time limit such as 40s).
# Run it on the GPU machine; append its output to docs/benchmarks.md with the date, GPU and commit.
set -euo pipefail
kx=${1:?usage: bench_search.sh KX ARCHIVE [GENERATIONS] [CHILDREN] [OP ...]}
archive=${2:?archive path}
generations=${3:-3}
children=${4:-6}
shift $(( $# < 4 ? $# : 4 ))
ops=("$@")
if [ ${#ops[@]} -eq 0 ]; then
  mapfile -t ops < <("$kx" ops --json | python3 -c 'import json,sys; [print(o["name"]) for o in json.load(sys.stdin)]')
fi
extra=()
[ -n "${KX_WORKER:-}" ] && extra+=(--worker "$KX_WORKER")
[ -n "${KX_BENCH_TIME:-}" ] && extra+=(--time "$KX_BENCH_TIME")

rows=$(mktemp)
for op in "${ops[@]}"; do
  start=$(date +%s.%N)
  status=0
  "$kx" search "$op" -a "$archive" --generations "$generations" --children "$children" --seed 1 "${extra[@]}" \
    > "$rows.$op.log" 2>&1 || status=$?
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  compact='import json,sys; print(json.dumps(json.load(sys.stdin)))'
  best=$( ("$kx" best "$op" -a "$archive" --json 2>/dev/null || echo '[]') | python3 -c "$compact")
  runs=$("$kx" runs --op "$op" -a "$archive" --json | python3 -c "$compact")
  printf '%s\t%s\t%s\t%s\t%s\n' "$op" "$status" "$wall" "$best" "$runs" >> "$rows"
  echo "bench: $op done (exit $status, $wall s)" >&2
done

python3 - "$rows" "$archive" <<'PY'
# Eager PyTorch is timed again in every evaluation, and on an H100 those times spread (a small GEMM's from 0.02 to
# 0.15 ms in one run): the speedup is taken against the median of all of the op's eager measurements on that GPU,
# not against the one the best kernel's evaluation happened to get.
import json, sqlite3, statistics, sys
archive = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
def eager_times(op, gpu):
    rows = archive.execute(
        "SELECT e.baseline_ms FROM evaluations e JOIN candidates c ON c.id = e.candidate_id "
        "JOIN gpus g ON g.id = e.gpu_id WHERE c.op_name = ? AND g.name = ? AND e.status = 'correct' "
        "AND e.baseline_ms > 0", (op, gpu)).fetchall()
    return [r[0] for r in rows]
print("| op | GPU | eager ms (median, range) | best ms | speedup | roofline | candidates | wall s | note |")
print("|---|---|---|---:|---:|---:|---:|---:|---|")
for line in open(sys.argv[1]):
    op, status, wall, best, runs = line.rstrip("\n").split("\t")
    best, runs = json.loads(best), json.loads(runs)
    candidates = runs[-1]["candidates"] if runs else 0
    if not best:
        print(f"| {op} | - | - | - | - | - | {candidates} | {wall} | no verified kernel (exit {status}) |")
        continue
    for b in best:
        eager = eager_times(op, b["gpu"]) or [b["baselineMs"]]
        median = statistics.median(eager)
        speedup = median / b["medianMs"]
        note = "faster than eager" if speedup > 1.0 else "no improvement over eager"
        print(f"| {op} | {b['gpu']} | {median:.4f} ({min(eager):.4f}-{max(eager):.4f}, {len(eager)}) | "
              f"{b['medianMs']:.4f} | {speedup:.2f}x | {100 * b['rooflineFraction']:.0f}% | {candidates} | {wall} | "
              f"{note} |")
PY
rm -f "$rows" "$rows".*.log
