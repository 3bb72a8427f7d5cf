#include "core/codegen/stridedreducetemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/reducecommon.h"

#include <algorithm>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Threads the defaults aim for: about four waves of a large GPU (132 SMs x 2048 threads), so the last is short.
constexpr long long kTargetThreads = 1 << 20;
// Threads the finishing kernel runs in a block.
constexpr int kFinishBlock = 256;

struct StridedLayout
{
    int tile = 64;
    int slices = 4;
    int vec = 1;
    int unroll = 4;
    int split = 1;
};

StridedLayout layoutOf(const Params &params)
{
    return {param(params, "tile", 64), param(params, "slices", 4), param(params, "vec", 1), param(params, "unroll", 4),
            param(params, "split", 1)};
}

std::string vectorType(int vec)
{
    return vec == 4 ? "float4" : vec == 2 ? "float2" : "float";
}

// The lanes of a loaded vector as a float array `lanes`.
std::string lanesOf(int vec)
{
    if (vec == 1)
        return "const float lanes[1] = {v};";
    if (vec == 2)
        return "const float lanes[2] = {v.x, v.y};";
    return "const float lanes[4] = {v.x, v.y, v.z, v.w};";
}

// The first kernel: each thread's columns, the slices met in shared memory, then the output or a partial.
std::string partialKernel(const Op &op, const OpRecipe &recipe, const StridedLayout &layout)
{
    const bool indexed = reduction::isIndexed(recipe.reduction);
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;
    const bool split = layout.split > 1;
    std::ostringstream out;
    out << "extern \"C\" __global__ void __launch_bounds__(TILE * SLICES) strided_reduce_kernel(const float "
           "*__restrict__ "
        << input << ", ";
    if (split)
        out << "float *__restrict__ partials";
    else
        out << (indexed ? "long long" : "float") << " *__restrict__ " << output;
    out << ", long long rows, long long cols, long long inner)\n{\n"
        << "    const long long groups = inner / VEC;\n"
        << "    const long long t = (long long)blockIdx.x * TILE + threadIdx.x; // VEC positions i of one o\n"
        << "    const bool active = t < rows * groups;\n"
        << "    const long long o = t / groups;\n"
        << "    const long long i = (t % groups) * VEC;\n"
        << "    // This block's part of c: all of it, or one of SPLIT chunks.\n"
        << "    const long long chunk = (cols + SPLIT - 1) / SPLIT;\n"
        << "    const long long begin = (long long)blockIdx.y * chunk;\n"
        << "    const long long end = min(begin + chunk, cols);\n"
        << "    float acc[VEC];\n"
        << (indexed ? "    long long index[VEC];\n" : "") << "#pragma unroll\n"
        << "    for (int j = 0; j < VEC; ++j) {\n"
        << "        acc[j] = reduceIdentity();\n"
        << (indexed ? "        index[j] = kNoIndex;\n" : "") << "    }\n"
        << "    if (active) {\n"
        << "        const " << vectorType(layout.vec) << " *__restrict__ in = reinterpret_cast<const "
        << vectorType(layout.vec) << " *>(" << input << " + o * cols * inner + i);\n"
        << "#pragma unroll " << layout.unroll << "\n"
        << "        for (long long c = begin + threadIdx.y; c < end; c += SLICES) {\n"
        << "            const " << vectorType(layout.vec) << " v = in[c * groups];\n"
        << "            " << lanesOf(layout.vec) << "\n"
        << "#pragma unroll\n"
        << "            for (int j = 0; j < VEC; ++j)\n"
        << (indexed ? "                combineArg(acc[j], index[j], lanes[j], c);\n"
                    : "                acc[j] = combine(acc[j], lanes[j]);\n")
        << "        }\n"
        << "    }\n";
    if (layout.slices > 1) {
        // At most (1024 - 32) x 4 values and indices: 47616 bytes, within the 48 KiB of static shared memory.
        out << "    // The slices after the first leave their results to it.\n"
            << "    __shared__ float sharedValue[SLICES - 1][TILE * VEC];\n"
            << (indexed ? "    __shared__ long long sharedIndex[SLICES - 1][TILE * VEC];\n" : "")
            << "    if (threadIdx.y > 0) {\n"
            << "#pragma unroll\n"
            << "        for (int j = 0; j < VEC; ++j) {\n"
            << "            sharedValue[threadIdx.y - 1][threadIdx.x * VEC + j] = acc[j];\n"
            << (indexed ? "            sharedIndex[threadIdx.y - 1][threadIdx.x * VEC + j] = index[j];\n" : "")
            << "        }\n"
            << "    }\n"
            << "    __syncthreads();\n"
            << "    if (threadIdx.y > 0)\n"
            << "        return;\n"
            << "    for (int s = 0; s < SLICES - 1; ++s) {\n"
            << "#pragma unroll\n"
            << "        for (int j = 0; j < VEC; ++j)\n"
            << (indexed ? "            combineArg(acc[j], index[j], sharedValue[s][threadIdx.x * VEC + j], "
                          "sharedIndex[s][threadIdx.x * VEC + j]);\n"
                        : "            acc[j] = combine(acc[j], sharedValue[s][threadIdx.x * VEC + j]);\n")
            << "    }\n";
    }
    out << "    if (!active)\n"
        << "        return;\n";
    if (split) {
        out << "    // Partials: [SPLIT][rows * inner]" << (indexed ? ", the indices first, then the values" : "")
            << ".\n"
            << "    const long long slot = (long long)blockIdx.y * rows * inner + o * inner + i;\n";
        if (indexed)
            out << "    long long *partialIndex = reinterpret_cast<long long *>(partials);\n"
                << "    float *partialValue = partials + 2 * SPLIT * rows * inner;\n";
        out << "#pragma unroll\n"
            << "    for (int j = 0; j < VEC; ++j) {\n"
            << (indexed ? "        partialIndex[slot + j] = index[j];\n        partialValue[slot + j] = acc[j];\n"
                        : "        partials[slot + j] = acc[j];\n")
            << "    }\n}\n";
    } else {
        out << "#pragma unroll\n"
            << "    for (int j = 0; j < VEC; ++j)\n"
            << "        " << output << "[o * inner + i + j] = "
            << (indexed ? std::string("index[j]") : reduction::finish(recipe.reduction, "acc[j]", "cols")) << ";\n"
            << "}\n";
    }
    return out.str();
}

// The second kernel (split > 1): each output combines its SPLIT partials in order.
std::string finishKernel(const Op &op, const OpRecipe &recipe)
{
    const bool indexed = reduction::isIndexed(recipe.reduction);
    const auto &output = op.outputs.front().name;
    std::ostringstream out;
    out << "// partials is only read here (plan scratch buffers are passed as non-const pointers).\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << kFinishBlock
        << ") strided_reduce_finish_kernel(float *__restrict__ partials, " << (indexed ? "long long" : "float")
        << " *__restrict__ " << output << ", long long rows, long long cols, long long inner)\n{\n"
        << "    const long long n = rows * inner;\n"
        << "    const long long t = (long long)blockIdx.x * " << kFinishBlock << " + threadIdx.x;\n"
        << "    if (t >= n)\n"
        << "        return;\n";
    if (indexed)
        out << "    const long long *partialIndex = reinterpret_cast<const long long *>(partials);\n"
            << "    const float *partialValue = partials + 2 * SPLIT * n;\n"
            << "    float best = partialValue[t];\n"
            << "    long long bestIndex = partialIndex[t];\n"
            << "    for (int s = 1; s < SPLIT; ++s)\n"
            << "        combineArg(best, bestIndex, partialValue[s * n + t], partialIndex[s * n + t]);\n"
            << "    " << output << "[t] = bestIndex;\n}\n";
    else
        out << "    float acc = partials[t];\n"
            << "    for (int s = 1; s < SPLIT; ++s)\n"
            << "        acc = combine(acc, partials[s * n + t]);\n"
            << "    " << output << "[t] = " << reduction::finish(recipe.reduction, "acc", "cols") << ";\n}\n";
    return out.str();
}

} // namespace

bool StridedReduceTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "reduce" && recipe.inner != "1";
}

std::vector<ParamDef> StridedReduceTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"tile", {32, 64, 128, 256}, "threads along the inner dimension"},
            {"slices", {1, 2, 4, 8, 16}, "threads of a block along the reduced dimension"},
            {"vec", {1, 2, 4}, "vector width along the inner dimension"},
            {"unroll", {1, 2, 4, 8}, "loads in flight along the reduced dimension"},
            {"split", {1, 2, 4, 8, 16, 32, 64}, "blocks along the reduced dimension (over 1: a second kernel)"}};
}

Params StridedReduceTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    // The widest vector every inner size allows; 64 x 4 threads a block; the reduced dimension split across
    // blocks only where rows x inner leaves the GPU short of threads.
    Params params{{"tile", 64}, {"slices", 4}, {"vec", 1}, {"unroll", 4}, {"split", 1}};
    for (const int vec : {4, 2, 1}) {
        params["vec"] = vec;
        if (check(op, recipe, params).empty())
            break;
    }
    if (op.shapeSets.empty())
        return params;
    const auto &shapes = op.shapeSets.front();
    const long long rows = dimensionValue(recipe.rows, shapes).value_or(1);
    const long long cols = dimensionValue(recipe.cols, shapes).value_or(1);
    const long long inner = dimensionValue(recipe.inner, shapes).value_or(1);
    const long long threads = rows * (inner / params["vec"]) * params["slices"];
    // Each thread keeps at least 16 steps of c: fewer would spend more on the second kernel than they gain.
    while (params["split"] < 64 && threads * params["split"] < kTargetThreads
           && cols / (2LL * params["split"] * params["slices"]) >= 16)
        params["split"] *= 2;
    return params;
}

std::string StridedReduceTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the strided reduce template needs a reduce recipe over a middle dimension";
    if (!reduction::isKnown(recipe.reduction))
        return "unknown reduction '" + recipe.reduction + "'";
    if (op.inputs.size() != 1 || op.outputs.size() != 1)
        return "a reduction takes one input and writes one output";
    if (op.inputs.front().dtype != "float32")
        return "the strided reduce template reads float32";
    const std::string expectedType = reduction::outputType(recipe.reduction);
    if (op.outputs.front().dtype != expectedType)
        return recipe.reduction + " writes " + expectedType;
    if (const auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    const auto layout = layoutOf(params);
    if (layout.tile * layout.slices > 1024)
        return std::to_string(layout.tile) + " x " + std::to_string(layout.slices) + " threads exceed 1024 a block";
    for (const auto &set : op.shapeSets) {
        for (const auto *symbol : {&recipe.rows, &recipe.cols, &recipe.inner})
            if (!dimensionValue(*symbol, set))
                return "the shape set does not bind " + *symbol;
        const auto inner = *dimensionValue(recipe.inner, set);
        if (inner % layout.vec != 0)
            return "vector width " + std::to_string(layout.vec) + " needs " + recipe.inner
                   + " to be a multiple of it (it is " + std::to_string(inner) + ")";
    }
    return {};
}

GeneratedKernel StridedReduceTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const auto layout = layoutOf(params);
    const bool indexed = reduction::isIndexed(recipe.reduction);
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[o, i] = "
        << recipe.reduction << " over c of " << input << "[o, c, i], " << input
        << " viewed as [rows, cols, inner].\n"
        << "// A block holds TILE threads along i, each with VEC neighbouring positions (a warp's loads are neighbours,\n"
        << "// so they coalesce), and SLICES threads along c that walk it in steps of SLICES and meet in shared memory.\n"
        << (layout.split > 1 ? "// The blocks of blockIdx.y take one of SPLIT chunks of c each; a second kernel "
                               "combines their partials.\n"
                             : "")
        << "\n#define TILE " << layout.tile << "\n#define SLICES " << layout.slices << "\n#define VEC " << layout.vec
        << "\n#define SPLIT " << layout.split << "\n\n"
        << reduction::deviceHelpers(recipe.reduction) << "\n"
        << partialKernel(op, recipe, layout);
    if (layout.split > 1)
        out << "\n" << finishKernel(op, recipe);

    const std::string groups = "(" + recipe.inner + " / " + text(layout.vec) + ")";
    const std::vector<std::string> grid{"ceil_div(" + recipe.rows + " * " + groups + ", " + text(layout.tile) + ")",
                                        text(layout.split)};
    const std::vector<std::string> block{text(layout.tile), text(layout.slices)};
    const auto withSizes = [&](nlohmann::json args) {
        for (const auto *symbol : {&recipe.rows, &recipe.cols, &recipe.inner})
            args.push_back(intArg(*symbol));
        return args;
    };
    const auto first =
        withSizes(nlohmann::json::array({inputArg(input), layout.split > 1 ? scratchArg("partials") : outputArg(output)}));
    auto steps = nlohmann::json::array({kernelStep("strided_reduce_kernel", grid, block, first)});
    if (layout.split == 1)
        return {out.str(), planJson(steps)};
    const auto second = withSizes(nlohmann::json::array({scratchArg("partials"), outputArg(output)}));
    steps.push_back(kernelStep("strided_reduce_finish_kernel",
                               {"ceil_div(" + recipe.rows + " * " + recipe.inner + ", " + text(kFinishBlock) + ")"},
                               {text(kFinishBlock)}, second));
    const std::string bytes = text(layout.split * (indexed ? 12 : 4)) + " * " + recipe.rows + " * " + recipe.inner;
    return {out.str(), planJson(steps, {{"partials", bytes}})};
}

} // namespace kx
