#!/usr/bin/env bash
# Sets up a Debian 12 machine for Kernel Explorer, builds it, and then runs the application or the tests.
#   packaging/bootstrap.sh run [ARGS...]   install what is missing, build, start kernel-explorer
#   packaging/bootstrap.sh test            install what is missing, build, run the whole test suite
#   packaging/bootstrap.sh build           install what is missing and build
#   packaging/bootstrap.sh deb             install what is missing, build the Debian package (kernel-explorer_*.deb)
#                                          in its own build folder, without the CUDA toolkit and the tests
# Environment: BUILD_DIR (default: build; for deb: build-deb), KX_SKIP_APT=1 to skip package installation.
set -euo pipefail

mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in
  run|test|build|deb) ;;
  *) echo "usage: $0 run|test|build|deb [ARGS...]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "$mode" = deb ]; then build_dir=${BUILD_DIR:-$root/build-deb}; else build_dir=${BUILD_DIR:-$root/build}; fi

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-svg-dev libgl-dev
  libqscintilla2-qt6-dev libqcustomplot-dev qtkeychain-qt6-dev
  libsqlite3-dev nlohmann-json3-dev libcli11-dev libmuparser-dev libdtl-dev libssl-dev doctest-dev libcpp-httplib-dev
  libtorch-dev
  help2man file dpkg-dev bubblewrap
)
# Importing KernelBench problem files runs a Python helper that needs PyTorch (bubblewrap, above, confines it).
# The packaging tests validate the desktop entry and the AppStream metadata, render the man pages and run the
# installed programs with the source tree hidden (bubblewrap again).
# Qt's own dialogs and buttons follow the user's language with Qt's translations.
if [ "$mode" = run ] || [ "$mode" = test ]; then
  packages+=(python3-torch desktop-file-utils appstream man-db qt6-translations-l10n)
fi
# Workers on other machines are tested against a real sshd and a single-node Slurm started by the tests.
if [ "$mode" = test ]; then
  packages+=(openssh-server openssh-client slurmctld slurmd slurm-client munge procps)
fi

install_missing() {
  local missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "bootstrap: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

[ "${KX_SKIP_APT:-0}" = 1 ] || install_missing

jobs=$(nproc)
configure=()
# The package's dependencies must all be Debian packages: the CUDA toolkit is not one at the version used, and a
# package linking it would not start where it is missing (kx-checkshlibs.cmake stops such a package).
[ "$mode" = deb ] && configure=(-DKX_WITH_CUDA=OFF -DKX_BUILD_TESTS=OFF)
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${configure[@]}"
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
  build) ;;
  deb)
    cmake --build "$build_dir" --target package
    ls "$build_dir"/kernel-explorer_*.deb
    ;;
  run)
    exec "$build_dir/bin/kernel-explorer" "$@"
    ;;
  test)
    # GPU suites skip themselves (CTest shows them as skipped) where no GPU is present.
    if ! nvidia-smi -L > /dev/null 2>&1; then
      echo "bootstrap: no NVIDIA GPU here: the suites labelled 'gpu' will be skipped (run them on a GPU machine," \
           "see README: Building on a GPU machine)"
    fi
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 900
    ;;
esac
