#include "core/codegen/gemmtemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

constexpr int kSplitKBlock = 256;

const std::set<std::string> &reserved()
{
    static const std::set<std::string> names = gemm::reservedNames({"tr",
                                                                    "tc",
                                                                    "as",
                                                                    "bs",
                                                                    "kBegin",
                                                                    "kEnd",
                                                                    "kPerSplit",
                                                                    "current",
                                                                    "next",
                                                                    "partial",
                                                                    "total",
                                                                    "aFrag",
                                                                    "bFrag",
                                                                    "TM",
                                                                    "TN",
                                                                    "PAD",
                                                                    "VEC",
                                                                    "SPLIT_K",
                                                                    "A_STRIDE",
                                                                    "B_STRIDE",
                                                                    "STAGE_FLOATS",
                                                                    "loadTransposedSlice",
                                                                    "loadSlice",
                                                                    "multiplySlice",
                                                                    "gemm_kernel",
                                                                    "gemm_partial_kernel",
                                                                    "splitk_epilogue_kernel"});
    return names;
}

struct GemmConfig
{
    int bm = 64, bn = 64, bk = 16, tm = 4, tn = 4, pad = 0, vec = 1, stages = 1, splitK = 1;

    int threads() const { return (bm / tm) * (bn / tn); }
    int stageFloats() const { return bk * (bm + pad) + bk * (bn + pad); }
    int sharedBytes() const { return 4 * stages * stageFloats(); }
};

GemmConfig configOf(const Params &params)
{
    GemmConfig config;
    config.bm = param(params, "bm", 64);
    config.bn = param(params, "bn", 64);
    config.bk = param(params, "bk", 16);
    config.tm = param(params, "tm", 4);
    config.tn = param(params, "tn", 4);
    config.pad = param(params, "pad", 0);
    config.vec = param(params, "vec", 1);
    config.stages = param(params, "doubleBuffer", 0) ? 2 : 1;
    config.splitK = param(params, "splitK", 1);
    return config;
}

void writeHelpers(std::ostringstream &out, const GemmConfig &config, const OpRecipe &recipe)
{
    out << "constexpr int BM = " << config.bm << ", BN = " << config.bn << ", BK = " << config.bk << ";\n"
        << "constexpr int TM = " << config.tm << ", TN = " << config.tn << ";\n"
        << "constexpr int THREADS = (BM / TM) * (BN / TN);\n";
    if (config.pad)
        out << "// One float of padding per shared row: the transposing stores below then fall into different banks\n"
               "// instead of all hitting the one bank that a row length of a multiple of 32 floats maps them to.\n";
    out << "constexpr int PAD = " << config.pad << ";\n"
        << "constexpr int A_STRIDE = BM + PAD; // shared a slice: [BK][A_STRIDE], k-major\n"
        << "constexpr int B_STRIDE = BN + PAD; // shared b slice: [BK][B_STRIDE], k-major\n"
        << "constexpr int STAGE_FLOATS = BK * A_STRIDE + BK * B_STRIDE;\n"
        << "constexpr int VEC = " << config.vec << "; // floats per global load\n";
    if (config.splitK > 1)
        out << "constexpr int SPLIT_K = " << config.splitK << ";\n";

    // One element or one float4 from `address` (zeros when !inRange) into the shared slots store(lane).
    const auto loadElements = [&](const std::string &inRange, const std::string &address,
                                  const std::function<std::string(int)> &store) {
        const std::string indent = "        ";
        if (config.vec == 1) {
            out << indent << store(0) << " = " << inRange << " ? " << address << " : 0.0f;\n";
            return;
        }
        out << indent << "float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);\n"
            << indent << "if (" << inRange << ") // the extent is a multiple of 4: so is the whole vector\n"
            << indent << "    v = *reinterpret_cast<const float4 *>(&" << address << ");\n";
        const char *lanes[] = {"x", "y", "z", "w"};
        for (int lane = 0; lane < 4; ++lane)
            out << indent << store(lane) << " = v." << lanes[lane] << ";\n";
    };
    const auto plus = [](const std::string &base, int lane) {
        return lane ? "(" + base + " + " + std::to_string(lane) + ")" : base;
    };

    // Both operands are staged k-major. An operand whose rows run along k ([m, k] a, [n, k] b) is transposed on
    // the way; one given k-major ([k, m] a, [k, n] b) is copied as it is. Either way global reads run along the
    // contiguous dimension (coalesced).
    if (!recipe.transposeA || recipe.transposeB) {
        out << "\n// Copies rows [rowBase, rowBase + ROWS) x columns [k0, k0 + BK) of a row-major [rows, K] matrix "
               "into\n"
               "// shared memory transposed (dst[kk * STRIDE + r]), so that the product loop reads it along the rows.\n"
               "// Global reads run along k (coalesced). Elements past `rows` or kEnd are zeros.\n"
               "template <int ROWS, int STRIDE>\n"
               "__device__ __forceinline__ void loadTransposedSlice(const float *__restrict__ src, float *__restrict__ "
               "dst,\n"
               "                                                    int rows, int K, int rowBase, int k0, int kEnd)\n"
               "{\n"
               "    for (int i = threadIdx.x; i < ROWS * (BK / VEC); i += THREADS) {\n"
               "        const int r = i / (BK / VEC), kk = i % (BK / VEC) * VEC;\n"
               "        const int row = rowBase + r, k = k0 + kk;\n";
        loadElements("row < rows && k < kEnd", "src[(size_t)row * K + k]",
                     [&](int lane) { return "dst[" + plus("kk", lane) + " * STRIDE + r]"; });
        out << "    }\n"
               "}\n";
    }
    if (recipe.transposeA || !recipe.transposeB) {
        out << "\n// Copies rows [k0, k0 + BK) x columns [colBase, colBase + COLS) of a row-major [K, cols] matrix "
               "into\n"
               "// shared memory as it is (dst[kk * STRIDE + c]). Elements past `cols` or kEnd are zeros.\n"
               "template <int COLS, int STRIDE>\n"
               "__device__ __forceinline__ void loadSlice(const float *__restrict__ src, float *__restrict__ dst,\n"
               "                                          int cols, int colBase, int k0, int kEnd)\n"
               "{\n"
               "    for (int i = threadIdx.x; i < BK * (COLS / VEC); i += THREADS) {\n"
               "        const int kk = i / (COLS / VEC), c = i % (COLS / VEC) * VEC;\n"
               "        const int k = k0 + kk, col = colBase + c;\n";
        loadElements("k < kEnd && col < cols", "src[(size_t)k * cols + col]", [&](int lane) {
            return "dst[kk * STRIDE + c" + (lane ? " + " + std::to_string(lane) : std::string()) + "]";
        });
        out << "    }\n"
               "}\n";
    }
    out << R"(
// acc[i][j] += sum over the slice of a[m_i, k] * b[k, n_j]. A thread's rows are BM / TM apart and its
// columns BN / TN apart, so neighbouring threads read neighbouring shared words (no bank conflicts).
__device__ __forceinline__ void multiplySlice(const float *__restrict__ as, const float *__restrict__ bs,
                                              float (&acc)[TM][TN], int tr, int tc)
{
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
        float aFrag[TM], bFrag[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i)
            aFrag[i] = as[kk * A_STRIDE + tr + i * (BM / TM)];
#pragma unroll
        for (int j = 0; j < TN; ++j)
            bFrag[j] = bs[kk * B_STRIDE + tc + j * (BN / TN)];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
                acc[i][j] = fmaf(aFrag[i], bFrag[j], acc[i][j]);
    }
}
)";
}

void writeMainKernel(std::ostringstream &out, const GemmConfig &config, const OpRecipe &recipe,
                     const GemmTensors &tensors)
{
    const bool split = config.splitK > 1;
    const std::string &a = tensors.a->name;
    const std::string &b = tensors.b->name;
    out << "\nextern \"C\" __global__ void __launch_bounds__(THREADS)\n"
        << (split ? "gemm_partial_kernel" : "gemm_kernel") << "(const float *__restrict__ " << a
        << ", const float *__restrict__ " << b << ", ";
    if (split)
        out << "float *__restrict__ partial, ";
    else
        out << extraParameters(tensors) << "float *__restrict__ " << tensors.out->name << ", ";
    out << "int M, int N, int K)\n{\n";
    out << "    // " << (config.stages == 2 ? "Two stages" : "One stage")
        << " of STAGE_FLOATS floats, sized by the launch plan's dynamic shared memory.\n"
        << "    extern __shared__ float shared[];\n"
        << "    const int tr = threadIdx.x / (BN / TN), tc = threadIdx.x % (BN / TN);\n"
        << "    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;\n"
        << batchOffsets(recipe, tensors, "blockIdx.z", "    ");
    // A tile wholly in the zero part of a triangular output gets an empty k range: it multiplies nothing and
    // stores zeros.
    const std::string kEnd = recipe.triangle.empty() ? "K" : "(zeroTile(rowBase, colBase) ? kBegin : K)";
    if (split)
        out << "    // Split-K: block z sums k in [kBegin, kEnd), a whole number of BK slices; slices past K stay "
               "empty\n"
               "    // and write zeros, so every partial sum the second kernel reads is initialised.\n"
               "    const int kPerSplit = ((K + SPLIT_K - 1) / SPLIT_K + BK - 1) / BK * BK;\n"
               "    const int kBegin = min(K, (int)blockIdx.z * kPerSplit);\n"
            << "    const int kEnd = min(" << kEnd << ", kBegin + kPerSplit);\n";
    else
        out << "    const int kBegin = 0, kEnd = " << kEnd << ";\n";
    out << "\n    float acc[TM][TN];\n"
           "#pragma unroll\n"
           "    for (int i = 0; i < TM; ++i)\n"
           "#pragma unroll\n"
           "        for (int j = 0; j < TN; ++j)\n"
           "            acc[i][j] = 0.0f;\n\n";

    // The calls that stage the slice starting at k0 into the shared stage `stage`.
    const auto loads = [&](const std::string &indent, const std::string &stage, const std::string &k0) {
        const std::string bStage = stage + " + BK * A_STRIDE";
        std::string text =
            recipe.transposeA
                ? indent + "loadSlice<BM, A_STRIDE>(" + a + ", " + stage + ", M, rowBase, " + k0 + ", kEnd);\n"
                : indent + "loadTransposedSlice<BM, A_STRIDE>(" + a + ", " + stage + ", M, K, rowBase, " + k0
                      + ", kEnd);\n";
        if (recipe.transposeB)
            text += indent + "loadTransposedSlice<BN, B_STRIDE>(" + b + ", " + bStage + ", N, K, colBase, " + k0
                    + ", kEnd);\n";
        else
            text += indent + "loadSlice<BN, B_STRIDE>(" + b + ", " + bStage + ", N, colBase, " + k0 + ", kEnd);\n";
        return text;
    };
    if (config.stages == 1) {
        out << "    for (int k0 = kBegin; k0 < kEnd; k0 += BK) {\n"
            << loads("        ", "shared", "k0")
            << "        __syncthreads();\n"
               "        multiplySlice(shared, shared + BK * A_STRIDE, acc, tr, tc);\n"
               "        __syncthreads(); // everyone is done reading before the next slice overwrites it\n"
               "    }\n";
    } else {
        out << "    // Double buffering: while the block multiplies the slice in one stage, it loads the next slice "
               "into\n"
               "    // the other. One barrier per slice suffices: the stage being loaded was last read in the "
               "previous\n"
               "    // iteration, which ended with a barrier, and the stage being read was loaded before that "
               "barrier.\n"
               "    const int slices = (kEnd - kBegin + BK - 1) / BK;\n"
               "    if (slices > 0) {\n"
            << loads("        ", "shared", "kBegin")
            << "    }\n"
               "    __syncthreads();\n"
               "    for (int s = 0; s < slices; ++s) {\n"
               "        float *current = shared + (s & 1) * STAGE_FLOATS;\n"
               "        float *next = shared + ((s + 1) & 1) * STAGE_FLOATS;\n"
               "        if (s + 1 < slices) {\n"
            << loads("            ", "next", "kBegin + (s + 1) * BK")
            << "        }\n"
               "        multiplySlice(current, current + BK * A_STRIDE, acc, tr, tc);\n"
               "        __syncthreads();\n"
               "    }\n";
    }

    out << "\n#pragma unroll\n"
           "    for (int i = 0; i < TM; ++i) {\n"
           "        const int m = rowBase + tr + i * (BM / TM);\n"
           "#pragma unroll\n"
           "        for (int j = 0; j < TN; ++j) {\n"
           "            const int n = colBase + tc + j * (BN / TN);\n"
           "            if (m < M && n < N)\n";
    if (split)
        out << "                partial[((size_t)blockIdx.z * M + m) * N + n] = acc[i][j];\n";
    else
        out << "                " << tensors.out->name
            << "[(size_t)m * N + n] = " << storedValue(recipe, tensors, "acc[i][j]", "(size_t)m * N + n") << ";\n";
    out << "        }\n    }\n}\n";
}

void writeSplitKEpilogueKernel(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors)
{
    out << "\n// Split-K, second kernel: sums the SPLIT_K partial products of each element, then applies bias and\n"
           "// epilogue. `partial` is only read (plan scratch buffers are passed as non-const pointers).\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << kSplitKBlock << ")\n"
        << "splitk_epilogue_kernel(float *__restrict__ partial, " << extraParameters(tensors) << "float *__restrict__ "
        << tensors.out->name << ", int M, int N)\n{\n"
        << "    const size_t total = (size_t)M * N;\n"
           "    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i >= total)\n"
           "        return;\n"
           "    float sum = 0.0f;\n"
           "#pragma unroll\n"
           "    for (int s = 0; s < SPLIT_K; ++s)\n"
           "        sum += partial[s * total + i];\n"
           "    const int m = (int)(i / N), n = (int)(i % N);\n"
        << "    " << tensors.out->name << "[i] = " << storedValue(recipe, tensors, "sum", "i") << ";\n}\n";
}

} // namespace

bool GemmTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {32, 64, 128}, "block tile rows"},       {"bn", {32, 64, 128}, "block tile columns"},
            {"bk", {8, 16, 32}, "k slice per shared tile"}, {"tm", {1, 2, 4, 8}, "rows per thread"},
            {"tn", {1, 2, 4, 8}, "columns per thread"},     {"pad", {0, 1}, "shared-memory row padding in floats"},
            {"vec", {1, 4}, "floats per global load"},      {"doubleBuffer", {0, 1}, "double-buffered shared tiles"},
            {"splitK", {1, 2, 4}, "split-K factor"}};
}

Params GemmTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"bm", 64}, {"bn", 64}, {"bk", 16},          {"tm", 4},    {"tn", 4},
            {"pad", 0}, {"vec", 1}, {"doubleBuffer", 0}, {"splitK", 1}};
}

std::string GemmTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;

    if (auto problem = checkGemm(op, recipe, reserved(), name(), GemmLayouts::all()); !problem.empty())
        return problem;

    const GemmConfig config = configOf(params);
    if (config.bm % config.tm != 0 || config.bn % config.tn != 0)
        return "the thread tile " + std::to_string(config.tm) + " x " + std::to_string(config.tn)
               + " does not divide the block tile " + std::to_string(config.bm) + " x " + std::to_string(config.bn);
    const int threads = config.threads();
    const std::string tiling = "(" + std::to_string(config.bm) + "/" + std::to_string(config.tm) + ") x ("
                               + std::to_string(config.bn) + "/" + std::to_string(config.tn)
                               + ") = " + std::to_string(threads) + " threads per block";
    if (threads > 1024)
        return tiling + " exceed 1024";
    if (threads < 32)
        return tiling + " are less than a warp (32)";
    if (config.bk % config.vec != 0 || config.bn % config.vec != 0)
        return "the k slice " + std::to_string(config.bk) + " and tile columns " + std::to_string(config.bn)
               + " must be multiples of the load width " + std::to_string(config.vec);
    if (config.sharedBytes() > kMaxSharedBytes)
        return std::to_string(config.sharedBytes()) + " bytes of shared memory exceed "
               + std::to_string(kMaxSharedBytes);

    if (config.splitK > 1 && isBatched(recipe))
        return "split-K and the batch both take the grid's z dimension: a batched product runs with splitK 1";
    if (auto problem = checkRowTiles(op, recipe, config.bm); !problem.empty())
        return problem;
    const auto sizes = gemmSizes(op, recipe);
    for (std::size_t s = 0; s < sizes.size() && config.vec > 1; ++s) {
        // a is read along k, or along m when it is [k, m]; b along n, or along k when it is [n, k].
        const std::string where = "shape set " + std::to_string(s + 1);
        if ((!recipe.transposeA || recipe.transposeB) && sizes[s].k % config.vec != 0)
            return "float4 loads need " + recipe.k + " divisible by 4 (" + where + " has " + recipe.k + " = "
                   + std::to_string(sizes[s].k) + ")";
        if (recipe.transposeA && sizes[s].m % config.vec != 0)
            return "float4 loads of a need " + recipe.m + " divisible by 4 (" + where + " has " + recipe.m + " = "
                   + std::to_string(sizes[s].m) + ")";
        if (!recipe.transposeB && sizes[s].n % config.vec != 0)
            return "float4 loads of b need " + recipe.n + " divisible by 4 (" + where + " has " + recipe.n + " = "
                   + std::to_string(sizes[s].n) + ")";
    }
    return {};
}

GeneratedKernel GemmTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const GemmConfig config = configOf(params);
    const GemmTensors tensors = gemmTensors(op, recipe);
    const bool split = config.splitK > 1;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// " << formulaComment(recipe, tensors) << "\n"
        << "// Each block computes a BM x BN tile of the output with (BM / TM) x (BN / TN) threads of TM x TN "
           "elements,\n"
           "// walking k in BK-wide slices staged in shared memory. Edges past M, N or K are handled by zero-filled\n"
           "// loads and guarded stores.\n";
    if (split)
        out << "// Split-K: " << config.splitK
            << " blocks share each output tile, each summing part of k into a scratch\n"
            << "// buffer [SPLIT_K, M, N]; a second kernel adds the parts and applies bias and epilogue.\n";
    out << "\n";
    writeHelpers(out, config, recipe);
    writeEpilogueFunction(out, recipe, tensors);
    writeTriangleFunctions(out, recipe);
    writeMainKernel(out, config, recipe, tensors);
    if (split)
        writeSplitKEpilogueKernel(out, recipe, tensors);

    const nlohmann::json operands = operandArgs(tensors);
    const nlohmann::json extras = extraArgs(tensors);
    // Block z is a part of k (split-K) or a batch.
    const std::string rows = rowsExpression(recipe);
    const std::vector<std::string> grid{"ceil_div(" + recipe.n + ", " + text(config.bn) + ")",
                                        "ceil_div(" + rows + ", " + text(config.bm) + ")",
                                        isBatched(recipe) ? recipe.batch : text(config.splitK)};
    const std::vector<std::string> block{text(config.threads())};
    const std::string shared = text(config.sharedBytes());

    nlohmann::json steps = nlohmann::json::array();
    if (!split) {
        nlohmann::json args = operands;
        for (const auto &extra : extras)
            args.push_back(extra);
        args.push_back(outputArg(tensors.out->name));
        for (const auto &symbol : {rows, recipe.n, recipe.k})
            args.push_back(intArg(symbol));
        steps.push_back(kernelStep("gemm_kernel", grid, block, args, shared));
        return {out.str(), planJson(steps)};
    }
    nlohmann::json partialArgs = operands;
    partialArgs.push_back(scratchArg("partial"));
    for (const auto &symbol : {rows, recipe.n, recipe.k})
        partialArgs.push_back(intArg(symbol));
    steps.push_back(kernelStep("gemm_partial_kernel", grid, block, partialArgs, shared));
    nlohmann::json reduceArgs = nlohmann::json::array({scratchArg("partial")});
    for (const auto &extra : extras)
        reduceArgs.push_back(extra);
    reduceArgs.push_back(outputArg(tensors.out->name));
    reduceArgs.push_back(intArg(rows));
    reduceArgs.push_back(intArg(recipe.n));
    const std::string elements = rows + " * " + recipe.n;
    steps.push_back(kernelStep("splitk_epilogue_kernel", {"ceil_div(" + elements + ", " + text(kSplitKBlock) + ")"},
                               {text(kSplitKBlock)}, reduceArgs));
    return {out.str(), planJson(steps, {{"partial", text(4 * config.splitK) + " * " + elements}})};
}

} // namespace kx
