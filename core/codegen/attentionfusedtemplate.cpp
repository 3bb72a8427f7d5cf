#include "core/codegen/attentionfusedtemplate.h"

#include "core/codegen/attentioncommon.h"
#include "core/codegen/codegenutil.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

constexpr long long kMaxHeadDim = 128; // beyond it a query row and its output no longer fit a thread group's share
constexpr long long kMaxGridY = 65535;
constexpr int kMaxSharedBytes = 99 * 1024;

// The names the generated kernel declares: tensor names must avoid them.
const std::set<std::string> &reservedNames()
{
    static const std::set<std::string> names{
        "L",   "S",      "E",       "EV",    "BM",   "BN",       "G",          "THREADS", "HEAD", "VALUE",
        "VALUE_PER_THREAD", "Q_LD", "K_LD", "P_LD", "CAUSAL", "shared", "qs", "ks", "vs", "ps", "rowBase", "r", "g",
        "row", "i", "rr", "c", "o", "m", "l", "keyEnd", "key0", "kk", "s", "tileMax", "j", "key", "dot", "newMax",
        "none", "correction", "sum", "p", "inverse", "rowMax", "rowSum", "negativeInfinity", "x", "offset", "float",
        "int", "const", "size_t", "min", "bool"};
    return names;
}

struct FusedConfig
{
    int bm = 64, bn = 32, group = 4;
    bool fastMath = false;
    long long head = 0, value = 0; ///< The largest q/k and v head dims over the shape sets (compile-time bounds).

    int threads() const { return bm * group; }
    int valuePerThread() const { return int((value + group - 1) / group); }
    int sharedBytes() const
    {
        const long long floats = bm * (head + 1) + bn * (head + 1) + bn * valuePerThread() * group + bm * (bn + 1);
        return int(4 * floats);
    }
};

// The largest size a dimension takes over the op's shape sets (0 where a set does not bind it).
long long largest(const Op &op, const std::string &dimension)
{
    long long size = 0;
    for (const auto &shapes : op.shapeSets)
        size = std::max(size, dimensionValue(dimension, shapes).value_or(0));
    return size;
}

long long batchSize(const OpRecipe &recipe, const ShapeSet &shapes)
{
    long long batch = 1;
    for (const auto &dimension : recipe.leading)
        batch *= dimensionValue(dimension, shapes).value_or(0);
    return batch;
}

FusedConfig configOf(const Op &op, const OpRecipe &recipe, const std::string &valueDim, const Params &params)
{
    FusedConfig config{param(params, "bm", 64), param(params, "bn", 32), param(params, "group", 4),
                       param(params, "fastMath") == 1, largest(op, recipe.k), largest(op, valueDim)};
    return config;
}

} // namespace

bool AttentionFusedTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    if (recipe.family != "attention" || op.inputs.size() != 3 || op.inputs[2].shape.empty())
        return false;
    const long long head = largest(op, recipe.k), value = largest(op, op.inputs[2].shape.back());
    return head > 0 && head <= kMaxHeadDim && value > 0 && value <= kMaxHeadDim;
}

std::vector<ParamDef> AttentionFusedTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {32, 64, 128}, "query rows per block"},
            {"bn", {32, 64}, "keys per shared tile"},
            {"group", {4, 8}, "threads per query row"},
            {"fastMath", {0, 1}, "fast-math exponentials"}};
}

Params AttentionFusedTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"bm", 64}, {"bn", 32}, {"group", 4}, {"fastMath", 0}};
}

std::string AttentionFusedTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (recipe.family != "attention")
        return "the attention-fused template needs an attention recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    attention::AttentionTensors tensors;
    if (auto problem = attention::checkTensors(op, recipe, tensors); !problem.empty())
        return problem;
    for (const auto *tensor : {tensors.q, tensors.k, tensors.v, tensors.out})
        if (!isIdentifier(tensor->name) || reservedNames().count(tensor->name))
            return "tensor name '" + tensor->name + "' clashes with a name of the generated code";
    if (!supports(op, recipe))
        return "the attention-fused template keeps head dims up to " + std::to_string(kMaxHeadDim)
               + " on chip (the attention template takes longer ones)";
    for (const auto &shapes : op.shapeSets)
        if (const long long batch = batchSize(recipe, shapes); batch < 1 || batch > kMaxGridY)
            return "a batch of " + std::to_string(batch) + " matrices: the grid's y dimension takes 1 to 65535";
    const FusedConfig config = configOf(op, recipe, tensors.valueDim, params);
    if (config.threads() > 1024)
        return std::to_string(config.bm) + " rows x " + std::to_string(config.group) + " threads exceed 1024";
    if (config.sharedBytes() > kMaxSharedBytes)
        return std::to_string(config.sharedBytes()) + " bytes of shared memory exceed " + std::to_string(kMaxSharedBytes);
    return {};
}

GeneratedKernel AttentionFusedTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    attention::AttentionTensors tensors;
    attention::checkTensors(op, recipe, tensors);
    const FusedConfig config = configOf(op, recipe, tensors.valueDim, params);
    const std::string exp = config.fastMath ? "__expf" : "expf";
    const auto &q = tensors.q->name, &k = tensors.k->name, &v = tensors.v->name, &out = tensors.out->name;

    std::ostringstream source;
    source << headerComment(op, *this, params, parameters(op, recipe)) << "// For each of the "
           << attention::batchExpression(recipe) << " matrices: " << out << " = softmax(" << epsLiteral(recipe.scale)
           << " * " << q << " @ " << k << "^T" << (recipe.causal ? ", keys after the query masked" : "") << ") @ "
           << v << "\n"
           << "// A block takes BM query rows (in shared memory) and streams BN keys and values at a time through\n"
              "// shared memory; G threads share a row: each scores every G-th key of the tile, the row's maximum\n"
              "// and sum are kept online (the output rescaled when the maximum grows) and each thread accumulates\n"
              "// every G-th output column in registers. Scores never reach global memory.\n\n"
           << "constexpr int BM = " << config.bm << ", BN = " << config.bn << ", G = " << config.group << ";\n"
           << "constexpr int THREADS = BM * G;\n"
           << "constexpr int HEAD = " << config.head << ";  // the largest q/k head dim of the op's shapes\n"
           << "constexpr int VALUE_PER_THREAD = " << config.valuePerThread() << ";\n"
           << "constexpr int VALUE = VALUE_PER_THREAD * G; // the largest v head dim, rounded up to G columns\n"
           << "constexpr int Q_LD = HEAD + 1, K_LD = HEAD + 1, P_LD = BN + 1; // odd strides: rows in distinct banks\n"
           << "constexpr bool CAUSAL = " << (recipe.causal ? "true" : "false") << ";\n\n"
           << R"(__device__ __forceinline__ float negativeInfinity() { return __int_as_float(int(0xff800000u)); }

// The maximum and the sum over the G threads of a row (neighbouring lanes of one warp).
__device__ __forceinline__ float rowMax(float x)
{
#pragma unroll
    for (int offset = G / 2; offset > 0; offset >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}
__device__ __forceinline__ float rowSum(float x)
{
#pragma unroll
    for (int offset = G / 2; offset > 0; offset >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

)" << "extern \"C\" __global__ void __launch_bounds__(THREADS)\nattention_fused_kernel(const float *__restrict__ "
           << q << ", const float *__restrict__ " << k << ", const float *__restrict__ " << v
           << ", float *__restrict__ " << out << ", int L, int S, int E, int EV)\n{\n"
           << "    extern __shared__ float shared[];\n"
              "    float *qs = shared;            // [BM][Q_LD]\n"
              "    float *ks = qs + BM * Q_LD;    // [BN][K_LD]\n"
              "    float *vs = ks + BN * K_LD;    // [BN][VALUE]\n"
              "    float *ps = vs + BN * VALUE;   // [BM][P_LD]: the tile's probabilities of each row\n"
              "    // The matrices of this block's batch.\n"
           << "    " << q << " += (size_t)blockIdx.y * L * E;\n"
           << "    " << k << " += (size_t)blockIdx.y * S * E;\n"
           << "    " << v << " += (size_t)blockIdx.y * S * EV;\n"
           << "    " << out << " += (size_t)blockIdx.y * L * EV;\n"
           << "    const int rowBase = blockIdx.x * BM;\n"
              "    const int r = threadIdx.x / G, g = threadIdx.x % G, row = rowBase + r;\n"
              "    // Rows and head dims past the op's are zeros: they add nothing to a dot product.\n"
              "    for (int i = threadIdx.x; i < BM * HEAD; i += THREADS) {\n"
              "        const int rr = i / HEAD, c = i % HEAD;\n"
           << "        qs[rr * Q_LD + c] = rowBase + rr < L && c < E ? " << q << "[(size_t)(rowBase + rr) * E + c] : 0.0f;\n"
           << "    }\n"
              "    float o[VALUE_PER_THREAD];\n"
              "#pragma unroll\n"
              "    for (int i = 0; i < VALUE_PER_THREAD; ++i)\n"
              "        o[i] = 0.0f;\n"
              "    float m = negativeInfinity(), l = 0.0f; // the row's running maximum and sum\n"
              "    // Under a causal mask the keys past the block's last row are masked for all of its rows.\n"
              "    const int keyEnd = CAUSAL ? min(S, rowBase + BM) : S;\n"
              "    for (int key0 = 0; key0 < keyEnd; key0 += BN) {\n"
              "        __syncthreads(); // the previous tile is read (and the query rows are written)\n"
              "        for (int i = threadIdx.x; i < BN * HEAD; i += THREADS) {\n"
              "            const int kk = i / HEAD, c = i % HEAD;\n"
           << "            ks[kk * K_LD + c] = key0 + kk < S && c < E ? " << k << "[(size_t)(key0 + kk) * E + c] : 0.0f;\n"
           << "        }\n"
              "        for (int i = threadIdx.x; i < BN * VALUE; i += THREADS) {\n"
              "            const int kk = i / VALUE, c = i % VALUE;\n"
           << "            vs[kk * VALUE + c] = key0 + kk < S && c < EV ? " << v << "[(size_t)(key0 + kk) * EV + c] : 0.0f;\n"
           << "        }\n"
              "        __syncthreads();\n"
              "        // This thread's keys of the tile: g, g + G, ...\n"
              "        float s[BN / G];\n"
              "        float tileMax = negativeInfinity();\n"
              "#pragma unroll\n"
              "        for (int j = 0; j < BN / G; ++j) {\n"
              "            const int kk = g + j * G, key = key0 + kk;\n"
              "            float dot = 0.0f;\n"
              "#pragma unroll 8\n"
              "            for (int c = 0; c < HEAD; ++c)\n"
              "                dot = fmaf(qs[r * Q_LD + c], ks[kk * K_LD + c], dot);\n"
           << "            s[j] = key < S && !(CAUSAL && key > row) ? dot * " << epsLiteral(recipe.scale)
           << " : negativeInfinity();\n"
              "            tileMax = fmaxf(tileMax, s[j]);\n"
              "        }\n"
              "        const float newMax = fmaxf(m, rowMax(tileMax));\n"
              "        // A row whose keys so far are all masked keeps its maximum at -inf and adds nothing.\n"
              "        const bool none = newMax == negativeInfinity();\n"
           << "        const float correction = none ? 1.0f : " << exp << "(m - newMax);\n"
           << "        float sum = 0.0f;\n"
              "#pragma unroll\n"
              "        for (int j = 0; j < BN / G; ++j) {\n"
           << "            const float p = none ? 0.0f : " << exp << "(s[j] - newMax);\n"
           << "            ps[r * P_LD + g + j * G] = p;\n"
              "            sum += p;\n"
              "        }\n"
              "        l = l * correction + rowSum(sum);\n"
              "        m = newMax;\n"
              "#pragma unroll\n"
              "        for (int i = 0; i < VALUE_PER_THREAD; ++i)\n"
              "            o[i] *= correction;\n"
              "        __syncwarp(); // the row's probabilities come from lanes of the same warp\n"
              "        for (int kk = 0; kk < BN; ++kk) {\n"
              "            const float p = ps[r * P_LD + kk];\n"
              "#pragma unroll\n"
              "            for (int i = 0; i < VALUE_PER_THREAD; ++i)\n"
              "                o[i] = fmaf(p, vs[kk * VALUE + g + i * G], o[i]);\n"
              "        }\n"
              "    }\n"
              "    if (row >= L)\n"
              "        return;\n"
              "    const float inverse = 1.0f / l;\n"
              "#pragma unroll\n"
              "    for (int i = 0; i < VALUE_PER_THREAD; ++i) {\n"
              "        const int c = g + i * G;\n"
              "        if (c < EV)\n"
           << "            " << out << "[(size_t)row * EV + c] = o[i] * inverse;\n"
           << "    }\n"
              "}\n";

    const nlohmann::json args = nlohmann::json::array({inputArg(q), inputArg(k), inputArg(v), outputArg(out),
                                                       intArg(recipe.m), intArg(recipe.n), intArg(recipe.k),
                                                       intArg(tensors.valueDim)});
    const auto steps = nlohmann::json::array(
        {kernelStep("attention_fused_kernel",
                    {"ceil_div(" + recipe.m + ", " + text(config.bm) + ")", attention::batchExpression(recipe)},
                    {text(config.threads())}, args, text(config.sharedBytes()))});
    return {source.str(), planJson(steps)};
}

} // namespace kx
