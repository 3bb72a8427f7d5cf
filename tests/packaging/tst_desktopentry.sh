#!/bin/sh
# The desktop entry passes desktop-file-validate, is named after the application id (as AppStream's launchable
# expects) and starts kernel-explorer with the icon installed under that id.
#   tst_desktopentry.sh DESKTOP_FILE APP_ID
set -eu
desktop=$1
id=$2

if ! command -v desktop-file-validate > /dev/null; then
    echo "SKIP: desktop-file-validate is missing (Debian: desktop-file-utils; packaging/bootstrap.sh test installs it)"
    exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

desktop-file-validate "$desktop" || fail "desktop-file-validate rejects $desktop"
# desktop-file-validate exits 0 on hints too; its output must be empty as well.
hints=$(desktop-file-validate "$desktop" 2>&1)
[ -z "$hints" ] || fail "desktop-file-validate: $hints"

[ "$(basename "$desktop")" = "$id.desktop" ] || fail "$desktop is not named $id.desktop"
grep -qx 'Exec=kernel-explorer %f' "$desktop" || fail "Exec is not 'kernel-explorer %f'"
grep -qx "Icon=$id" "$desktop" || fail "Icon is not $id"
echo "PASS: $desktop"
