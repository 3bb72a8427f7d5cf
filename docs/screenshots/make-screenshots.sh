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

# The main window: the sample archive, opened as a user would open it.
mkdir -p "$home/kernels"
"$build/bin/kx" archive import -a "$home/kernels/relu-tuning.kxdb" "$source_dir/tests/data/sample-archive.json"
HOME="$home" "$build/bin/kernel-explorer" --screenshot "$here/main-window.png" "$home/kernels/relu-tuning.kxdb"

# The other views come from the suites that exercise them (each puts its archive under a home of its own).
KX_SCREENSHOT_DIR="$here" ctest --test-dir "$build" --output-on-failure -R '^tst_(diffview|plots|review|runflow)$'
