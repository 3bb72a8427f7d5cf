#!/usr/bin/env bash
# Shared by the SSH and Slurm tests: a search of the catalog softmax whose workers start elsewhere (the options
# after MARKER say how); once the run has evaluations, the newest remote worker (its command line holds MARKER) is
# killed with SIGKILL, or with KILL_JOB=1 the newest Slurm job is cancelled (scancel, as a preemption would). Checks that the search restarted it and finished, that every candidate has a
# correct evaluation (the one in flight ran again), that the GPUs name their host, and that no worker outlives
# the search.
#   remote_search_with_kill.sh KX DIR MARKER KX-SEARCH-OPTIONS...
set -euo pipefail
kx=$1 dir=$2 marker=$3
shift 3
archive="$dir/remote.kxdb"
"$kx" search softmax -a "$archive" --candidates 12 --generations 100 --children 4 --no-inductor --retime-top 0 \
  "$@" > "$dir/search.log" 2>&1 &
search=$!
evaluations() {
  python3 - "$archive" <<'PY'
import sqlite3, sys
try:
    print(sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM evaluations").fetchone()[0])
except sqlite3.Error:
    print(0)
PY
}
victim=
for _ in $(seq 600); do
  kill -0 "$search" 2> /dev/null || break
  if [ "$(evaluations)" -ge 3 ]; then
    victim=$(pgrep -n -f -- "$marker --device" || true)
    [ -n "$victim" ] && break
  fi
  sleep 0.1
done
[ -n "$victim" ] || { echo "FAIL: no remote worker to kill"; cat "$dir/search.log"; exit 1; }
if [ "${KILL_JOB:-0}" = 1 ]; then
  job=$(squeue -h -o "%i" --name=kx-worker --sort=-i | head -1)
  [ -n "$job" ] || { echo "FAIL: no Slurm job to cancel"; exit 1; }
  echo "cancelling Slurm job $job"
  scancel "$job"
else
  kill -9 "$victim"
fi
status=0
wait "$search" || status=$?
cat "$dir/search.log"
[ "$status" = 0 ] || { echo "FAIL: kx search exited with $status"; exit 1; }
grep -qE "worker [0-9]+ restarted: the worker died during the evaluation" "$dir/search.log" || { echo "FAIL: the search did not report the restart"; exit 1; }
python3 - "$archive" "$(hostname)" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
candidates = db.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
missing = db.execute("SELECT COUNT(*) FROM candidates c WHERE NOT EXISTS "
                     "(SELECT 1 FROM evaluations e WHERE e.candidate_id = c.id AND e.status = 'correct')").fetchone()[0]
statuses = dict(db.execute("SELECT status, COUNT(*) FROM evaluations GROUP BY status").fetchall())
hosts = {json.loads(info).get("host") for (info,) in db.execute("SELECT info FROM gpus")}
print(f"archive: {candidates} candidates, evaluations {statuses}, GPU hosts {sorted(hosts)}")
assert candidates >= 12, "the search stopped early"
assert missing == 0, f"{missing} candidates without a correct evaluation"
assert set(statuses) == {"correct"}, f"evaluations other than correct: {statuses}"
assert hosts == {sys.argv[2]}, f"the GPUs do not name the host {sys.argv[2]}: {hosts}"
PY
for _ in $(seq 50); do
  pgrep -f -- "$marker --device" > /dev/null || break
  sleep 0.1
done
if pgrep -af -- "$marker --device"; then
  echo "FAIL: workers outlived the search"
  exit 1
fi
echo "PASS"
