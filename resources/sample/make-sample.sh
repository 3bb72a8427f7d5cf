#!/usr/bin/env bash
# The GPU half of the sample archive: short searches on this machine's GPU (catalog ops, KernelBench problems
# and, with review-examples-proposer.sh, kernels a reviewer must judge), exported as JSON.
#   resources/sample/make-sample.sh KX OUTDIR [KERNELBENCH_DIR]
# The sample shipped with the application is several such exports (one per GPU model) imported into one archive,
# with verdicts added by hand (kx verdict), exported again: see README, "The sample archive".
set -u
kx=${1:?usage: make-sample.sh KX OUTDIR [KERNELBENCH_DIR]}
out=${2:?usage: make-sample.sh KX OUTDIR [KERNELBENCH_DIR]}
kb=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$out"
archive=$out/sample.kxdb
# Without bubblewrap (a bare GPU machine) problem files are imported unsandboxed.
sandbox=$(command -v bwrap > /dev/null || echo --no-sandbox)
targets="softmax layer_norm matmul linear_bias_relu chain_scale_add_sigmoid_mul_clamp conv2d_bias_relu"
[ -n "$kb" ] && targets="$targets $kb/level1/19_ReLU.py $kb/level2/12_Gemm_Multiply_LeakyReLU.py"
for target in $targets; do
  "$kx" search "$target" -a "$archive" --time 20s --seed 7 $sandbox > "$out/$(basename "$target" .py).log" 2>&1
  echo "$target: exit $?" >> "$out/searches.txt"
done
KX_EXAMPLES_STATE=$out/examples.turn "$kx" search relu -a "$archive" --proposer command \
  --command "$here/review-examples-proposer.sh" --generations 1 --children 4 --time 60s --seed 7 $sandbox \
  > "$out/relu-review-examples.log" 2>&1
echo "relu (review examples): exit $?" >> "$out/searches.txt"
"$kx" archive export -a "$archive" -o "$out/sample.json"
echo "export: exit $?" >> "$out/searches.txt"
