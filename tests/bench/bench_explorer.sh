#!/usr/bin/env bash
# The explorer at scale: an archive of 30,000 kernels (a run of 10,000 and one of 20,000, made from the sample
# archive by make_export.py) opened in the main window offscreen; prints the times a user waits for.
#   tests/bench/bench_explorer.sh BUILD_DIR [TOTAL]     (TOTAL kernels, default 30000; a third in the timed run)
# Record the table in docs/benchmarks.md with the date, machine and commit.
set -euo pipefail
build=${1:?usage: bench_explorer.sh BUILD_DIR [TOTAL]}
total=${2:-30000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sample="$here/../data/sample-archive.json"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$here/make_export.py" "$sample" $((total / 3)) "$dir/small.json" small
"$here/make_export.py" "$sample" $((total - total / 3)) "$dir/large.json" large
"$build/bin/kx" archive import -a "$dir/a.kxdb" "$dir/small.json" > /dev/null
"$build/bin/kx" archive import -a "$dir/a.kxdb" "$dir/large.json" > /dev/null
run=$("$build/bin/kx" runs -a "$dir/a.kxdb" | awk 'NR > 1 && $5 == '$((total / 3))' { print $1; exit }')
QT_QPA_PLATFORM=offscreen "$build/bin/bench_explorer" "$dir/a.kxdb" "$run" 2> /dev/null
