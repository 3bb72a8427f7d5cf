#!/bin/sh
# Stands in for Nsight Compute's ncu in the tests: it never starts the profiled program (that needs a GPU) and
# answers as ncu and the program would. FAKE_NCU_MODE picks the answer:
#   ok      the program's result file names an H100, and the two-kernel report is printed
#   denied  ncu's permission error (ERR_NVGPUCTRPERM), no report
#   nogpu   the program found no GPU
#   slow    as ok, after a minute (for cancelling)
# FAKE_NCU_ARGS, when set, names a file that gets every call's arguments, one call per line.
here=$(dirname "$0")
if [ "$1" = "--version" ]; then
    cat "$here/version.txt"
    exit 0
fi
[ -n "$FAKE_NCU_ARGS" ] && echo "$*" >> "$FAKE_NCU_ARGS"
result=
while [ $# -gt 0 ]; do
    [ "$1" = "--result" ] && result=$2
    shift
done
mode=${FAKE_NCU_MODE:-ok}
if [ "$mode" = slow ]; then
    sleep 60
    mode=ok
fi
case "$mode" in
ok)
    printf '%s\n' '{"gpu": {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-fake", "host": "gpu-a", "computeCapability": "9.0", "l2Bytes": 52428800, "measuredBandwidthGBs": 3000}, "error": "", "check": "the profiled run'"'"'s outputs match the reference"}' > "$result"
    cat "$here/two-kernels.csv"
    ;;
denied)
    printf '%s\n' '{"gpu": {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-fake", "l2Bytes": 52428800}, "error": "", "check": ""}' > "$result"
    cat "$here/permission-denied.txt"
    exit 1
    ;;
nogpu)
    printf '%s\n' '{"error": "no CUDA device is available", "errorKind": "no-gpu"}' > "$result"
    echo "==PROF== Disconnected from process 1"
    echo "==WARNING== No kernels were profiled."
    exit 4
    ;;
esac
