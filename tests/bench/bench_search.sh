#!/usr/bin/env bash
# Searches catalog ops with a fixed budget and prints a Markdown table: per op the eager (LibTorch) time, the
# best verified time, the speedup, the achieved fraction of the roofline, candidates evaluated and wall time.
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

python3 - "$rows" <<'PY'
import json, sys
print("| op | GPU | eager ms | best ms | speedup | roofline | candidates | wall s | note |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|")
for line in open(sys.argv[1]):
    op, status, wall, best, runs = line.rstrip("\n").split("\t")
    best, runs = json.loads(best), json.loads(runs)
    candidates = runs[-1]["candidates"] if runs else 0
    if not best:
        print(f"| {op} | - | - | - | - | - | {candidates} | {wall} | no verified kernel (exit {status}) |")
        continue
    for b in best:
        note = "faster than eager" if b["speedup"] > 1.0 else "no improvement over eager"
        print(f"| {op} | {b['gpu']} | {b['baselineMs']:.4f} | {b['medianMs']:.4f} | {b['speedup']:.2f}x | "
              f"{100 * b['rooflineFraction']:.0f}% | {candidates} | {wall} | {note} |")
PY
rm -f "$rows" "$rows".*.log
