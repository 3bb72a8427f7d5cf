#!/bin/sh
# The man pages render without any warning from groff (man --warnings=w passes -ww), and kx(1) has a section for
# every subcommand that kx lists (recursively) plus the hidden baseline-runner and profile-launch, and the exit codes.
#   tst_manpages.sh KX MANPAGE...
set -eu
kx=$1
shift

if ! command -v man > /dev/null; then
    echo "SKIP: man is missing (Debian: man-db; packaging/bootstrap.sh test installs it)"
    exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

for page in "$@"; do
    [ -s "$page" ] || fail "$page is missing or empty"
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$page" 2>&1 > /dev/null)
    [ -z "$warnings" ] || fail "$page: $warnings"
    rendered=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$page" 2> /dev/null)
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS; do
        printf '%s\n' "$rendered" | grep -qx "$section" || fail "$page has no $section section"
    done
    echo "ok: $page renders without warnings"
done

kxpage=
for page in "$@"; do
    case "$(basename "$page")" in kx.1) kxpage=$page ;; esac
done
[ -n "$kxpage" ] || fail "no kx.1 among $*"

subcommands() {
    "$kx" "$@" --help | awk '/^Subcommands:$/ { list = 1; next } list && /^$/ { exit } list && /^  [^ ]/ { print $1 }'
}
check() {
    grep -qF ".SS \"kx $*\"" "$kxpage" || fail "kx.1 has no section for 'kx $*'"
    for sub in $(subcommands "$@"); do
        check "$@" "$sub"
    done
}
for sub in $(subcommands) baseline-runner profile-launch; do
    check "$sub"
done
grep -q '^\.SH "EXIT STATUS"' "$kxpage" || fail "kx.1 has no EXIT STATUS section"
echo "PASS: kx.1 documents every subcommand"
