#!/bin/sh
# Regenerates the pictures in this folder from a GUI build: make-screenshots.sh BUILD_DIR
# Everything runs offscreen. The archives lie in a temporary home folder, so the pictures show paths such as
# ~/kernels/relu-tuning.kxdb, as a user's window would, and nothing of the machine that made them.
set -eu
build=$(cd "${1:?usage: make-screenshots.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export QT_QPA_PLATFORM=offscreen

# The verdict dialog comes from the suite that exercises it (with an archive under a home of its own); the
# suites' pictures of the pages are taken over below by pictures of real data.
KX_SCREENSHOT_DIR="$here" ctest --test-dir "$build" --output-on-failure -R '^tst_(diffview|plots|review|runflow)$'

# The main window and its pages on the sample archive (real searches on H100 and H200 GPUs, with verdicts and a
# kernel waiting for review), opened as a user would.
mkdir -p "$home/kernels"
"$build/bin/kx" archive import -a "$home/kernels/sample.kxdb" "$source_dir/resources/sample/sample-archive.json"
for page in kernels lineage diff plots review; do
  picture=$page.png
  [ "$page" = kernels ] && picture=main-window.png
  HOME="$home" "$build/bin/kernel-explorer" --screenshot "$here/$picture" --page "$page" "$home/kernels/sample.kxdb"
done
