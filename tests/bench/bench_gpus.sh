#!/usr/bin/env bash
# One search on one GPU and on two: candidates evaluated per minute and the best kernel of each, the re-timing of
# the best kernels on both GPUs (one line per kernel with each card's time and their spread), and a search whose
# worker on the second GPU is killed midway (the pool restarts it; nothing is lost).
#   tests/bench/bench_gpus.sh KX OUT_DIR [OP_OR_PROBLEM_FILE ...]
# The searches stop after a fixed number of candidates (KX_CANDIDATES, default 60: fewer than the template
# proposer finds for the catalog ops) so that both evaluate the same amount of work.
# Environment: KX_WORKER (a worker command instead of `kx worker`, e.g. "FAKE_WORKER --gpus 2" for a dry run).
# Run it on a machine with two GPUs; record its output in docs/benchmarks.md with the date, GPUs and commit.
set -euo pipefail
kx=${1:?usage: bench_gpus.sh KX OUT_DIR [OP_OR_PROBLEM_FILE ...]}
out=${2:?output folder}
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(softmax)
candidates=${KX_CANDIDATES:-60}
mkdir -p "$out"
extra=()
[ -n "${KX_WORKER:-}" ] && extra+=(--worker "$KX_WORKER")
# KernelBench's own problem files: run unconfined where bubblewrap is missing (GPU machines often have none).
command -v bwrap > /dev/null || extra+=(--no-sandbox)

search() { # label gpus target [more kx arguments]
  local label=$1 gpus=$2 target=$3
  shift 3
  "$kx" search "$target" -a "$out/$label.kxdb" --gpus "$gpus" --candidates "$candidates" --generations 1000 \
    --seed 1 --retime-top 3 --max-mb "${KX_MAX_MB:-20000}" "${extra[@]}" "$@" > "$out/$label.log" 2>&1
}

# Candidates per minute from the run's first evaluation to the last before the re-timing at the end (a
# candidate evaluated a second time); baseline preparation before the search is not counted.
rate() {
  python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
run = db.execute("SELECT id FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0]
seen, times = set(), []
for candidate, created in db.execute("SELECT candidate_id, created_at FROM evaluations WHERE run_id = ? "
                                     "ORDER BY created_at, id", (run,)):
    if candidate in seen:
        break
    seen.add(candidate)
    times.append(created)
best = db.execute("SELECT candidate_id, MIN(median_ms) FROM evaluations WHERE run_id = ? AND status = 'correct'",
                  (run,)).fetchone()
seconds = max((times[-1] - times[0]) / 1000.0, 1e-3) if times else 1e-3
print(f"{len(seen)} | {seconds:.1f} | {len(seen) / seconds * 60:.1f} | {(best[0] or '-')[:12]} | "
      f"{best[1] if best[1] is not None else '-'}")
PY
}

echo "| target | GPUs | candidates | search s | candidates per minute | best kernel | best ms |"
echo "|---|---|---:|---:|---:|---|---:|"
for target in "${targets[@]}"; do
  name=$(basename "$target" .py)
  search "$name-1gpu" 0 "$target"
  search "$name-2gpu" 0,1 "$target"
  echo "| $name | 0 | $(rate "$out/$name-1gpu.kxdb") |"
  echo "| $name | 0,1 | $(rate "$out/$name-2gpu.kxdb") |"
done

echo
echo "Re-timing on both GPUs (from the two-GPU searches):"
for target in "${targets[@]}"; do
  grep -h "on 2 GPUs:" "$out/$(basename "$target" .py)-2gpu.log" || echo "(no re-timing line for $target)"
done

evaluated() { # the evaluations an archive holds so far (0 before it exists)
  python3 - "$1" <<'PY'
import sqlite3, sys
try:
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
    print(db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0])
except sqlite3.Error:
    print(0)
PY
}

# Kill the second GPU's worker a third of the way through a two-GPU search of the first target (counted in
# evaluations: the baselines' preparation before the search takes a varying time).
target=${targets[0]}
search kill 0,1 "$target" &
searching=$!
while kill -0 "$searching" 2> /dev/null && [ "$(evaluated "$out/kill.kxdb")" -lt $((candidates / 3)) ]; do
  sleep 0.5
done
victim=$(pgrep -f -- "worker.*--device 1" | head -1 || true)
killedAt=$(evaluated "$out/kill.kxdb")
[ -n "$victim" ] && kill -9 "$victim"
wait "$searching" || true
echo
echo "Worker on device 1 killed after $killedAt evaluations (pid ${victim:-none found}); what the search said:"
grep -iE "worker|restart" "$out/kill.log" | grep -v "^worker [0-9]: " || true
tail -4 "$out/kill.log"
python3 - "$out/kill.kxdb" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
for status, count in db.execute("SELECT status, COUNT(*) FROM evaluations GROUP BY status ORDER BY status"):
    print(f"  {status}: {count} evaluations")
missing = db.execute("""SELECT COUNT(*) FROM candidates c WHERE NOT EXISTS
                        (SELECT 1 FROM evaluations e WHERE e.candidate_id = c.id)""").fetchone()[0]
print(f"  candidates without an evaluation: {missing}")
PY
