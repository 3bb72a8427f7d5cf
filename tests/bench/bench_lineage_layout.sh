#!/usr/bin/env bash
# Lineage layout: times layout, scene build, relayout, restyle and painting of generated lineages of up to
# 10,000 nodes (no GPU, offscreen). Prints the table and adds it, dated, under "## Lineage layout" in
# docs/benchmarks.md (the section is created when missing; earlier results stay).
# Usage: tests/bench/bench_lineage_layout.sh [build-dir] [report.md]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
report=${2:-$root/docs/benchmarks.md}
cmake --build "$build" --target bench_lineage_layout >/dev/null
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  [ -z "$(git -C "$root" status --porcelain 2>/dev/null | head -1)" ] || commit="$commit (with uncommitted changes)"
else
  commit=uncommitted
fi
table=$(QT_QPA_PLATFORM=offscreen "$build/bin/bench_lineage_layout" --commit "$commit" 2>/dev/null)
echo "$table"
entry=$(printf '### %s, %s\n\n%s\n' "$(date -u +%Y-%m-%d)" "$(hostname)" "$table")
# Insert at the end of the "## Lineage layout" section, so that other benchmarks' sections stay intact.
ENTRY="$entry" python3 - "$report" <<'PY'
import os, re, sys
path = sys.argv[1]
entry = os.environ["ENTRY"].rstrip() + "\n"
text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
heading = "## Lineage layout"
if heading not in text:
    text = text.rstrip() + "\n\n" + heading + "\n\n" + entry
else:
    start = text.index(heading) + len(heading)
    following = re.search(r"^## ", text[start:], re.M)
    end = start + following.start() if following else len(text)
    text = text[:end].rstrip() + "\n\n" + entry + ("\n" + text[end:] if following else "")
open(path, "w").write(text)
PY
echo "added to $report" >&2
