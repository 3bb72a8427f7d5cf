#!/usr/bin/env bash
# How `kx archive import` scales: one run of N kernels (made from the sample archive's candidates, each with its
# evaluations, a parent and a generation), imported into a new archive; wall seconds and peak memory per N.
#   tests/bench/bench_import.sh KX [N ...]        (default N: 5000 10000 20000)
# Record the table in docs/benchmarks.md with the date, machine and commit.
set -euo pipefail
[ -x /usr/bin/time ] || { echo "bench_import.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
kx=${1:?usage: bench_import.sh KX [N ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(5000 10000 20000)
sample="$(dirname "${BASH_SOURCE[0]}")/../data/sample-archive.json"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| kernels | export MB | import s | peak memory MB |"
echo "|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  "$(dirname "${BASH_SOURCE[0]}")/make_export.py" "$sample" "$n" "$dir/export.json"
  rm -f "$dir"/a.kxdb*
  /usr/bin/time -f "%e %M" -o "$dir/time" "$kx" archive import -a "$dir/a.kxdb" "$dir/export.json" > /dev/null
  read -r seconds kilobytes < "$dir/time"
  echo "| $n | $(( $(stat -c %s "$dir/export.json") / 1000000 )) | $seconds | $(( kilobytes / 1024 )) |"
done
