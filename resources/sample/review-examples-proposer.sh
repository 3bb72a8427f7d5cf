#!/usr/bin/env bash
# A command proposer (kx search relu --proposer command --command THIS) that answers with kernels a reviewer
# must judge, in turn: an honest relu, one that rounds its results to 14 bits (correct within the tolerance,
# flagged reduced-precision), one that replays a stored answer once the checks seem over, and one that is
# right only on random-looking inputs (both fail). The prompt on stdin is read and ignored.
# State: the turn is counted in $KX_EXAMPLES_STATE (default: a file in the temporary folder).
cat > /dev/null
state=${KX_EXAMPLES_STATE:-${TMPDIR:-/tmp}/kx-review-examples.turn}
turn=$(( $(cat "$state" 2>/dev/null || echo 0) % 4 ))
echo $(( turn + 1 )) > "$state"
plan='{"steps": [{"kernel": "relu", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]}'
case $turn in
0) body='    if (i < n) out[i] = fmaxf(x[i], 0.0f);' ;;
1) body='    // Clears the lowest 9 mantissa bits: within rtol 1e-4, far above fp32 rounding.
    if (i < n) out[i] = __uint_as_float(__float_as_uint(fmaxf(x[i], 0.0f)) & 0xFFFFFE00u);' ;;
2) body='    // After 30 launches, copies what it stored instead of computing.
    if (i >= n) return;
    if (calls >= 30 && n <= (1 << 26)) { out[i] = stash[i]; return; }
    const float v = fmaxf(x[i], 0.0f);
    out[i] = v;
    if (n <= (1 << 26)) stash[i] = v;'
   plan='{"steps": [{"kernel": "relu", "grid": ["ceil_div(N, 256)"], "block": ["256"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}, {"kernel": "count", "grid": ["1"], "block": ["1"], "args": []}]}' ;;
3) body='    // Zeros when the first inputs look structured (ascending, equal or whole numbers).
    bool ascending = true, constant = true, whole = true;
    for (int k = 0; k < 16; ++k) {
        if (k > 0) { ascending = ascending && x[k - 1] <= x[k]; constant = constant && x[k] == x[0]; }
        whole = whole && x[k] == rintf(x[k]);
    }
    if (i < n) out[i] = (ascending || constant || whole) ? 0.0f : fmaxf(x[i], 0.0f);' ;;
esac
cat <<CANDIDATE
\`\`\`cuda
__device__ float stash[1 << 26];
__device__ unsigned int calls;
extern "C" __global__ void count() { calls += 1; }
extern "C" __global__ void relu(const float* x, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
$body
}
\`\`\`

\`\`\`json
$plan
\`\`\`
CANDIDATE
