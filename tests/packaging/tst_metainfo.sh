#!/bin/sh
# The AppStream metadata passes `appstreamcli validate --no-net --strict` (warnings fail too), carries the
# application id, launches the desktop entry of that id, and its newest release is the project's version.
#   tst_metainfo.sh METAINFO_FILE APP_ID VERSION
set -eu
metainfo=$1
id=$2
version=$3

if ! command -v appstreamcli > /dev/null; then
    echo "SKIP: appstreamcli is missing (Debian: appstream; packaging/bootstrap.sh test installs it)"
    exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

appstreamcli validate --no-net --strict --explain "$metainfo" || fail "appstreamcli rejects $metainfo"

[ "$(basename "$metainfo")" = "$id.metainfo.xml" ] || fail "$metainfo is not named $id.metainfo.xml"
grep -q "<id>$id</id>" "$metainfo" || fail "the component id is not $id"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$metainfo" ||
    fail "the launchable is not $id.desktop"
newest=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$metainfo" | head -n 1)
[ "$newest" = "$version" ] ||
    fail "the newest release is '$newest', the project's version is $version (add a <release>)"
echo "PASS: $metainfo"
