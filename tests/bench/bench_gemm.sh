#!/usr/bin/env bash
# The tensor-core GEMM template against cuBLAS (eager PyTorch) on one GPU: TFLOP/s, speedup and errors of
# template configurations at KernelBench's GEMM sizes. Prints Markdown tables for docs/benchmarks.md.
# Usage: tests/bench/bench_gemm.sh [build-dir]
# Other shapes and configurations: run the driver itself (its options are at the top of tests/bench/bench_gemm.cpp).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
cmake --build "$build" --target bench_gemm > /dev/null
if commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null); then
  [ -z "$(git -C "$root" status --porcelain 2>/dev/null | head -1)" ] || commit="$commit (with uncommitted changes)"
else
  commit=uncommitted
fi
bench="$build/bin/bench_gemm"
tc=gemm-tensorcore
# Square (1_Square_matrix_multiplication_), irregular (8_Matmul_with_irregular_shapes_) and the catalog's size.
"$bench" --commit "$commit" --shape M=4096,N=4096,K=4096 --shape M=8205,N=5921,K=2949 --shape M=2048,N=2048,K=2048 \
  gemm "$tc" "$tc:bk=64" "$tc:bm=64,warpsM=1" "$tc:bn=64,warpsN=2" "$tc:bk=16,stages=4"
echo
# nn.Linear (b is [n, k]) with bias and ReLU, at 17_Matmul_with_transposed_B's size: cuBLAS plus a fused epilogue
# (gemm-library) against our kernel.
"$bench" --commit "$commit" --op linear_bias_relu --shape M=2048,N=4096,K=8192 gemm-library "$tc"
