#!/bin/sh
# Installs the build into a DESTDIR (prefix /usr) and runs the installed programs from there: kx --version, kx ops,
# the installed sample archive, a problem-file import through the installed Python helper, and
# kernel-explorer --self-test, which prints where it found the worker, the prompt templates and the Python helpers.
# Where bubblewrap can, the source and build trees are hidden meanwhile, so nothing can come from them.
#   tst_install.sh BUILD_DIR SOURCE_DIR VERSION APP_ID GUI(ON|OFF) MANPAGES(ON|OFF)
set -eu
build=$1
source=$2
version=$3
id=$4
gui=$5
manpages=$6

fail() { echo "FAIL: $*" >&2; exit 1; }

scratch=$(mktemp -d /tmp/kx-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root
DESTDIR=$root cmake --install "$build" --prefix /usr > "$scratch/install.log" || {
    cat "$scratch/install.log"
    fail "cmake --install failed"
}

# What is installed: the programs and their data, nothing else (no test programs, libraries or headers).
expected="usr/bin/kx
usr/share/kernel-explorer/prompts/system.txt
usr/share/kernel-explorer/python/kx_problem_bundle.py
usr/share/kernel-explorer/python/kx_inductor_baseline.py
usr/share/kernel-explorer/sample-archive.json"
[ "$manpages" = ON ] && expected="$expected
usr/share/man/man1/kx.1.gz"
# NVRTC runs in a helper beside kx, in builds with the CUDA toolkit.
[ -x "$build/bin/kx-nvrtc" ] && expected="$expected
usr/bin/kx-nvrtc"
if [ "$gui" = ON ]; then
    expected="$expected
usr/bin/kernel-explorer
usr/share/applications/$id.desktop
usr/share/metainfo/$id.metainfo.xml
usr/share/icons/hicolor/scalable/apps/$id.svg"
    [ "$manpages" = ON ] && expected="$expected
usr/share/man/man1/kernel-explorer.1.gz"
fi
for file in $expected; do
    [ -f "$root/$file" ] || fail "not installed: /$file"
done
unexpected=$(cd "$root" && find . -type f | sed 's|^\./||' | grep -v -E \
    '^usr/bin/(kx|kx-nvrtc|kernel-explorer)$|^usr/share/(kernel-explorer|applications|metainfo|icons/hicolor|man/man1)/' || true)
[ -z "$unexpected" ] || fail "installed, but not expected: $unexpected"
echo "ok: installed into $root"

# A home of its own: nothing reads or writes the user's settings, archive or caches.
home=$scratch/home
mkdir -p "$home/runtime"
chmod 700 "$home/runtime"
cp "$source/tests/data/kernelbench/relu.py" "$scratch/relu.py"

# Runs a command in the scratch folder with the source and build trees hidden where bubblewrap can hide them.
hide=
if command -v bwrap > /dev/null && bwrap --dev-bind / / --tmpfs "$source" true 2> /dev/null; then
    hide="--tmpfs $source"
    case "$build/" in
        "$source"/*) ;;
        *) hide="$hide --tmpfs $build" ;;
    esac
    echo "ok: $source and $build are hidden from the installed programs"
else
    echo "note: bubblewrap cannot hide $source here; the installed programs run beside it"
fi
run() {
    set -- env HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" \
        XDG_RUNTIME_DIR="$home/runtime" KX_ARCHIVE= KX_PYTHON= KX_PROBLEM_HELPER= KX_INDUCTOR_HELPER= \
        QT_QPA_PLATFORM=offscreen LC_ALL=C.UTF-8 LANGUAGE= "$@"
    if [ -n "$hide" ]; then
        # shellcheck disable=SC2086 # $hide is a list of options
        bwrap --dev-bind / / $hide --chdir "$scratch" -- "$@"
    else
        (cd "$scratch" && "$@")
    fi
}

kx=$root/usr/bin/kx
out=$(run "$kx" --version) || fail "kx --version failed"
[ "$out" = "kx $version" ] || fail "kx --version says '$out', expected 'kx $version'"
echo "ok: $out"

out=$(run "$kx" ops) || fail "kx ops failed"
printf '%s\n' "$out" | grep -q '^relu ' || fail "kx ops does not list relu: $out"
echo "ok: kx ops lists $(printf '%s\n' "$out" | grep -c .) lines"

run "$kx" worker --help > /dev/null || fail "kx worker --help failed"
run "$kx" baseline-runner --help > /dev/null || fail "kx baseline-runner --help failed"

sample=$root/usr/share/kernel-explorer/sample-archive.json
run "$kx" archive import -a "$scratch/sample.kxdb" "$sample" > "$scratch/import.log" 2>&1 ||
    { cat "$scratch/import.log"; fail "kx archive import of the installed sample archive failed"; }
out=$(run "$kx" archive list -a "$scratch/sample.kxdb" --op softmax) || fail "kx archive list failed"
[ "$(printf '%s\n' "$out" | grep -c softmax)" -gt 0 ] || fail "the sample archive has no softmax kernels: $out"
echo "ok: the installed sample archive imports ($(printf '%s\n' "$out" | grep -c softmax) softmax kernels)"

# The import helper is the installed one: the self-test below prints the path the same lookup finds.
# kx looks for PyTorch in python3 on the PATH, then in /usr/bin/python3.
if run sh -c 'python3 -c "import torch" || /usr/bin/python3 -c "import torch"' > /dev/null 2>&1; then
    # Without bubblewrap (a bare GPU machine) our own problem file is imported unconfined.
    confinement=
    command -v bwrap > /dev/null || { confinement=--no-sandbox; echo "note: no bubblewrap here: kx import --no-sandbox"; }
    # shellcheck disable=SC2086 # $confinement is empty or one option
    out=$(run "$kx" import -a "$scratch/import.kxdb" "$scratch/relu.py" $confinement 2>&1) ||
        fail "kx import through the installed helper failed: $out"
    printf '%s\n' "$out" | grep -q 'stored kb/relu' || fail "kx import did not store kb/relu: $out"
    echo "ok: kx import runs the installed Python helper"
else
    echo "note: no python3 with PyTorch here (Debian: python3-torch): kx import not run"
fi

if [ "$gui" = ON ]; then
    explorer=$root/usr/bin/kernel-explorer
    out=$(run "$explorer" --self-test -platform offscreen 2> "$scratch/selftest.err") ||
        { cat "$scratch/selftest.err"; fail "kernel-explorer --self-test failed: $out"; }
    printf '%s\n' "$out"
    expect() {
        printf '%s\n' "$out" | grep -qxF "$1" || fail "the self-test did not print '$1'"
    }
    expect "worker: $root/usr/bin/kx worker"
    expect "prompt templates: $root/usr/share/kernel-explorer/prompts"
    expect "problem import helper: $root/usr/share/kernel-explorer/python/kx_problem_bundle.py"
    expect "Inductor baseline helper: $root/usr/share/kernel-explorer/python/kx_inductor_baseline.py"
    expect "kernel-explorer self-test passed"

    # The German translation is compiled in: the help's description changes with the language.
    english=$(run "$explorer" --help -platform offscreen 2> /dev/null | sed -n 2p)
    german=$(run env LC_ALL= LANG=de_DE.UTF-8 "$explorer" --help -platform offscreen 2> /dev/null | sed -n 2p)
    [ -n "$english" ] && [ "$english" != "$german" ] ||
        fail "kernel-explorer --help is not translated: '$english' / '$german'"
    echo "ok: translated: '$english' -> '$german'"

    if command -v appstreamcli > /dev/null; then
        appstreamcli validate-tree --no-net "$root" || fail "appstreamcli validate-tree rejects the installed tree"
        echo "ok: appstreamcli validate-tree"
    fi
fi
echo "PASS: the installed programs run from $root"
