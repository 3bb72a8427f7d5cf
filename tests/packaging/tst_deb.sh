#!/bin/sh
# Builds the Debian package with CPack (as `cmake --build BUILD --target package` does) into a scratch folder, checks
# its control fields (Depends from dpkg-shlibdeps, Recommends) and contents, installs it into a scratch root with
# `dpkg --root`, runs the installed kx from there, and removes it again without leftovers.
# Skips where the build links libraries that no Debian package provides (the CUDA toolkit from NVIDIA's
# installer): such a build cannot be packaged, and packaging/bootstrap.sh deb builds one without it.
#   tst_deb.sh BUILD_DIR VERSION APP_ID GUI(ON|OFF)
set -eu
build=$1
version=$2
id=$3
gui=$4

fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg dpkg-shlibdeps file; do
    command -v "$tool" > /dev/null ||
        { echo "SKIP: $tool is missing (packaging/bootstrap.sh installs dpkg-dev and file)"; exit 77; }
done

scratch=$(mktemp -d /tmp/kx-deb.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if ! cpack --config "$build/CPackConfig.cmake" -B "$scratch/out" > "$scratch/cpack.log" 2>&1; then
    if grep -q "kx-checkshlibs.cmake" "$scratch/cpack.log"; then
        sed -n '/kx-checkshlibs.cmake/,/configures one/p' "$scratch/cpack.log"
        echo "SKIP: this build links libraries that no Debian package provides (see above); the package of a build"
        echo "      without them is tested where it is the test build (CI), and packaging/bootstrap.sh deb makes one"
        exit 77
    fi
    cat "$scratch/cpack.log"
    fail "cpack failed"
fi
deb=$(find "$scratch/out" -maxdepth 1 -name "kernel-explorer_${version}_*.deb")
[ -n "$deb" ] || fail "no kernel-explorer_${version}_*.deb in $(ls "$scratch/out")"
echo "ok: built $(basename "$deb") ($(du -h "$deb" | cut -f1))"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = kernel-explorer ] || fail "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] || fail "Version is '$(field Version)', expected $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] || fail "Architecture is '$(field Architecture)'"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
depends=$(field Depends)
echo "Depends: $depends"
echo "Recommends: $(field Recommends)"
# What kx links (dpkg-shlibdeps) and what Qt loads as plugins (declared by hand).
required="libc6 libstdc++6 libsqlite3-0 libmuparser2v5 libssl3"
[ "$gui" = ON ] && required="$required libqt6core6 libqt6gui6 libqt6widgets6 libqscintilla2-qt6-15
    libqcustomplot2.1-qt6 libqt6keychain1 libqt6svg6"
for package in $required; do
    printf '%s\n' "$depends" | tr ',' '\n' | grep -q "^ *$package\( \|$\)" || fail "Depends lacks $package"
done
printf '%s\n' "$(field Recommends)" | grep -q python3-torch || fail "Recommends lacks python3-torch"

dpkg-deb --contents "$deb" > "$scratch/contents"
for file in ./usr/bin/kx ./usr/share/kernel-explorer/prompts/system.txt \
    ./usr/share/kernel-explorer/python/kx_problem_bundle.py ./usr/share/kernel-explorer/python/kx_inductor_baseline.py \
    ./usr/share/kernel-explorer/sample-archive.json; do
    grep -q " $file$" "$scratch/contents" || fail "the package lacks $file"
done
if [ "$gui" = ON ]; then
    for file in ./usr/bin/kernel-explorer "./usr/share/applications/$id.desktop" \
        "./usr/share/metainfo/$id.metainfo.xml" "./usr/share/icons/hicolor/scalable/apps/$id.svg"; do
        grep -q " $file$" "$scratch/contents" || fail "the package lacks $file"
    done
fi
grep -v -q ' \./usr/' "$scratch/contents" && fail "files outside /usr: $(grep -v ' \./usr/' "$scratch/contents")"
echo "ok: $(grep -c . "$scratch/contents") entries, all under /usr"

# A scratch root with an empty dpkg database: the dependencies are this machine's (--force-depends).
root=$scratch/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
: > "$root/var/lib/dpkg/status"
dpkg="dpkg --root=$root --log=$scratch/dpkg.log --force-depends --force-not-root --force-script-chrootless"
$dpkg -i "$deb" > "$scratch/dpkg.log.out" 2>&1 || { cat "$scratch/dpkg.log.out"; fail "dpkg -i failed"; }
grep -v "dependency problems\|depends on\|is not installed\|^ *$" "$scratch/dpkg.log.out" || true
status=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}' kernel-explorer)
[ "$status" = "install ok installed" ] || fail "dpkg says '$status'"
out=$("$root/usr/bin/kx" --version) || fail "the packaged kx does not start"
[ "$out" = "kx $version" ] || fail "the packaged kx --version says '$out'"
echo "ok: dpkg --root installed it; $out"

$dpkg -r kernel-explorer > "$scratch/dpkg.log.out" 2>&1 || { cat "$scratch/dpkg.log.out"; fail "dpkg -r failed"; }
left=$(find "$root/usr" -type f 2> /dev/null || true)
[ -z "$left" ] || fail "dpkg -r left files behind: $left"
echo "PASS: $(basename "$deb") builds, installs and removes cleanly"
