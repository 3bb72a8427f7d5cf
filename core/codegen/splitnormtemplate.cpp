#include "core/codegen/splitnormtemplate.h"

#include "core/codegen/channelweights.h"
#include "core/codegen/codegenutil.h"
#include "core/codegen/rowcommon.h"

#include <iomanip>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Rows shorter than this fit one block well; the norm template handles them.
constexpr long long kLongRow = 16384;
// gridDim.y holds a row's chunks.
constexpr long long kMaxChunks = 65535;

struct SplitLayout
{
    int block = 256;
    int chunk = 8192;
    int vec = 1;
    bool layerNorm = true;
};

// A block-wide sum of two values of type T; every thread gets both sums.
std::string blockPairSum(const std::string &type, const std::string &name, int block)
{
    std::ostringstream out;
    out << "__device__ __forceinline__ void " << name << "(" << type << " &a, " << type << " &b)\n{\n"
        << "    __shared__ " << type << " partA[" << block / 32 << "], partB[" << block / 32 << "];\n"
        << "    for (int offset = 16; offset > 0; offset >>= 1) {\n"
        << "        a += __shfl_xor_sync(0xffffffffu, a, offset);\n"
        << "        b += __shfl_xor_sync(0xffffffffu, b, offset);\n"
        << "    }\n"
        << "    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n"
        << "    if (lane == 0) { partA[warp] = a; partB[warp] = b; }\n"
        << "    __syncthreads();\n"
        << "    a = lane < " << block / 32 << " ? partA[lane] : (" << type << ")0;\n"
        << "    b = lane < " << block / 32 << " ? partB[lane] : (" << type << ")0;\n"
        << "    for (int offset = 16; offset > 0; offset >>= 1) {\n"
        << "        a += __shfl_xor_sync(0xffffffffu, a, offset);\n"
        << "        b += __shfl_xor_sync(0xffffffffu, b, offset);\n"
        << "    }\n"
        << "}\n";
    return out.str();
}

// A loop over this block's chunk of the row; `body` sees `float v` and the element index `c`.
std::string forEachInChunk(const SplitLayout &layout, const std::string &body)
{
    std::ostringstream out;
    if (layout.vec == 4) {
        out << "    for (long long c0 = begin + 4 * (long long)threadIdx.x; c0 < end; c0 += " << 4 * layout.block
            << ") {\n"
            << "        const float4 quad = *reinterpret_cast<const float4 *>(in + c0);\n"
            << "        const float values[4] = {quad.x, quad.y, quad.z, quad.w};\n"
            << "#pragma unroll\n"
            << "        for (int j = 0; j < 4; ++j) {\n"
            << "            const long long c = c0 + j;\n"
            << "            const float v = values[j];\n"
            << "            " << body << "\n"
            << "        }\n"
            << "    }\n";
    } else {
        out << "    for (long long c = begin + threadIdx.x; c < end; c += " << layout.block << ") {\n"
            << "        const float v = in[c];\n"
            << "        " << body << "\n"
            << "    }\n";
    }
    return out.str();
}

SplitLayout layoutOf(const OpRecipe &recipe, const Params &params)
{
    return {param(params, "block", 256), param(params, "chunk", 8192), param(params, "vec", 1),
            recipe.reduction == "layernorm"};
}

} // namespace

bool SplitNormTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    if (recipe.family != "norm" || recipe.inner != "1" || op.shapeSets.empty())
        return false;
    for (const auto &set : op.shapeSets) {
        const auto cols = dimensionValue(recipe.cols, set);
        if (!cols || *cols < kLongRow)
            return false;
    }
    return true;
}

std::vector<ParamDef> SplitNormTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"block", {128, 256, 512}, "block size"},
            {"chunk", {2048, 4096, 8192, 16384, 32768}, "elements of a row per block"},
            {"vec", {1, 4}, "vector width"}};
}

Params SplitNormTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    Params params{{"block", 256}, {"chunk", 8192}, {"vec", 4}};
    if (!check(op, recipe, params).empty())
        params["vec"] = 1;
    return params;
}

std::string SplitNormTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (recipe.family != "norm" || recipe.inner != "1")
        return "the split norm template needs a norm recipe over the last dimensions";
    if (auto problem = rows::checkNormTensors(op, recipe); !problem.empty())
        return problem;
    if (const auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (const auto problem = channelweights::check(op, recipe); !problem.empty())
        return problem;
    const auto layout = layoutOf(recipe, params);
    for (const auto &set : op.shapeSets) {
        const auto cols = dimensionValue(recipe.cols, set);
        if (!cols)
            return "the shape set does not bind " + recipe.cols;
        if (layout.vec == 4 && *cols % 4 != 0)
            return "vector width 4 needs " + recipe.cols + " to be a multiple of 4 (it is " + std::to_string(*cols)
                   + ")";
        if ((*cols + layout.chunk - 1) / layout.chunk > kMaxChunks)
            return "chunks of " + std::to_string(layout.chunk) + " make more than " + std::to_string(kMaxChunks)
                   + " blocks a row";
    }
    return {};
}

GeneratedKernel SplitNormTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const auto layout = layoutOf(recipe, params);
    const auto [input, weight, bias, output, affine] = rows::normTensors(op, layout.layerNorm);

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output
        << "[row, :] = " << recipe.reduction << "(" << input << "[row, :]) with eps " << recipe.eps
        << ", for rows too long for one block.\n"
        << channelweights::comment(recipe)
        << "// Each row is cut into chunks of CHUNK elements, one block a chunk. The first kernel sums each chunk ("
        << (layout.layerNorm ? "values less the row's first value and their squares: shifted sums keep the variance "
                               "accurate"
                             : "squares")
        << ")\n// into `partials`; the second adds a row's partials in double and normalises its chunk. Blocks of\n"
        << "// one chunk of every row run together (rows are gridDim.x), so the weights of a chunk are read once.\n\n"
        << "#define CHUNK " << layout.chunk << "\n\n"
        << blockPairSum("float", "blockSum2", layout.block) << "\n"
        << blockPairSum("double", "blockSum2d", layout.block) << "\n";

    // Kernel 1: partial sums of each chunk.
    out << "extern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") norm_partials_kernel(const float *__restrict__ " << input
        << ", float *__restrict__ partials, long long cols)\n{\n"
        << "    const long long row = blockIdx.x;\n"
        << "    const long long begin = (long long)blockIdx.y * CHUNK;\n"
        << "    const long long end = min(begin + CHUNK, cols);\n"
        << "    const float *__restrict__ in = " << input << " + row * cols;\n";
    if (layout.layerNorm)
        out << "    const float shift = in[0];\n"
            << "    float sum = 0.0f, squares = 0.0f;\n"
            << forEachInChunk(layout, "const float d = v - shift; sum += d; squares += d * d;");
    else
        out << "    float sum = 0.0f, squares = 0.0f;\n" << forEachInChunk(layout, "squares += v * v;");
    out << "    blockSum2(sum, squares);\n"
        << "    if (threadIdx.x == 0) {\n"
        << "        float *slot = partials + 2 * (row * gridDim.y + blockIdx.y);\n"
        << "        slot[0] = sum;\n"
        << "        slot[1] = squares;\n"
        << "    }\n"
        << "}\n\n";

    // Kernel 2: statistics of the row, then its chunk normalised.
    out << "// partials is only read here (plan scratch buffers are passed as non-const pointers).\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") norm_apply_kernel(const float *__restrict__ " << input << ", ";
    if (affine)
        out << "const float *__restrict__ " << weight << ", ";
    if (!bias.empty())
        out << "const float *__restrict__ " << bias << ", ";
    out << "float *__restrict__ partials, float *__restrict__ " << output << ", long long cols"
        << channelweights::kernelParameters(recipe) << ")\n{\n"
        << "    __shared__ float stats[2];\n"
        << "    const long long row = blockIdx.x;\n"
        << "    const long long begin = (long long)blockIdx.y * CHUNK;\n"
        << "    const long long end = min(begin + CHUNK, cols);\n"
        << "    const float *__restrict__ in = " << input << " + row * cols;\n"
        << "    float *__restrict__ result = " << output << " + row * cols;\n"
        << "    double sum = 0.0, squares = 0.0;\n"
        << "    for (unsigned i = threadIdx.x; i < gridDim.y; i += " << layout.block << ") {\n"
        << "        const float *slot = partials + 2 * (row * gridDim.y + i);\n"
        << "        sum += slot[0];\n"
        << "        squares += slot[1];\n"
        << "    }\n"
        << "    blockSum2d(sum, squares);\n"
        << "    if (threadIdx.x == 0) {\n";
    if (layout.layerNorm)
        out << "        const double shiftedMean = sum / (double)cols;\n"
            << "        const double variance = fmax(squares / (double)cols - shiftedMean * shiftedMean, 0.0);\n"
            << "        stats[0] = (float)((double)in[0] + shiftedMean);\n"
            << "        stats[1] = (float)rsqrt(variance + " << std::setprecision(17) << recipe.eps << ");\n";
    else
        out << "        stats[0] = 0.0f;\n"
            << "        stats[1] = rsqrtf((float)(squares / (double)cols) + " << epsLiteral(recipe.eps) << ");\n";
    out << "    }\n"
        << "    __syncthreads();\n"
        << "    const float mean = stats[0], scale = stats[1];\n"
        << channelweights::rowSetup(recipe);
    const std::string at = channelweights::weightIndex(recipe);
    if (layout.layerNorm && !affine) {
        out << forEachInChunk(layout, "result[c] = (v - mean) * scale;");
    } else if (layout.layerNorm && hasChannelWeights(recipe)) {
        // Channels are mostly far longer than a chunk: such a chunk reads its weight and bias once.
        out << "    const unsigned chunkChannel = (unsigned)begin / channelSize32;\n"
            << "    if (chunkChannel == (unsigned)(end - 1) / channelSize32) {\n"
            << "        const float channelWeight = " << weight << "[firstChannel + chunkChannel];\n"
            << "        const float channelBias = " << bias << "[firstChannel + chunkChannel];\n"
            << forEachInChunk(layout, "result[c] = (v - mean) * scale * channelWeight + channelBias;")
            << "        return;\n"
            << "    }\n"
            << forEachInChunk(layout, "result[c] = (v - mean) * scale * " + weight + at + " + " + bias + at + ";");
    } else if (layout.layerNorm) {
        out << forEachInChunk(layout, "result[c] = (v - mean) * scale * " + weight + at + " + " + bias + at + ";");
    } else {
        out << "    (void)mean;\n" << forEachInChunk(layout, "result[c] = v * scale * " + weight + "[c];");
    }
    out << "}\n";

    const std::string chunks = "ceil_div(" + recipe.cols + ", " + text(layout.chunk) + ")";
    const std::vector<std::string> grid{recipe.rows, chunks};
    const std::vector<std::string> block{text(layout.block)};
    nlohmann::json partialArgs = nlohmann::json::array({inputArg(input), scratchArg("partials"), intArg(recipe.cols)});
    nlohmann::json applyArgs = nlohmann::json::array({inputArg(input)});
    if (affine)
        applyArgs.push_back(inputArg(weight));
    if (!bias.empty())
        applyArgs.push_back(inputArg(bias));
    applyArgs.push_back(scratchArg("partials"));
    applyArgs.push_back(outputArg(output));
    applyArgs.push_back(intArg(recipe.cols));
    channelweights::appendArgs(recipe, applyArgs);
    const auto steps = nlohmann::json::array({kernelStep("norm_partials_kernel", grid, block, partialArgs),
                                              kernelStep("norm_apply_kernel", grid, block, applyArgs)});
    return {out.str(), planJson(steps, {{"partials", "8 * " + recipe.rows + " * " + chunks}})};
}

} // namespace kx
