#include "core/codegen/stridednormtemplate.h"

#include "core/codegen/codegenutil.h"

#include <algorithm>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

bool weighted(const Op &op)
{
    return op.inputs.size() == 2;
}

// Registers a thread may spend on a cached column (cols x vector width floats).
constexpr long long kMaxCachedFloats = 128;

// The cached column's length: the longest cols of any shape set, rounded up to 4.
long long cachedColumnLength(const Op &op, const OpRecipe &recipe)
{
    long long longest = 1;
    for (const auto &set : op.shapeSets)
        longest = std::max(longest, dimensionValue(recipe.cols, set).value_or(1));
    return (longest + 3) / 4 * 4;
}

} // namespace

bool StridedNormTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "norm" && recipe.reduction == "rmsnorm" && recipe.inner != "1";
}

std::vector<ParamDef> StridedNormTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"block", {64, 128, 256, 512}, "block size"},
            {"vec", {1, 2, 4}, "vector width along the inner dimension"},
            {"unroll", {1, 4, 8}, "loads in flight along the normalised dimension"},
            {"cache", {0, 1}, "column held in registers (read once) instead of read twice"}};
}

Params StridedNormTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    // The column in registers where it fits, else two passes; the widest vector every inner size allows.
    for (const auto &[cache, unroll] : {std::pair{1, 1}, std::pair{0, 4}})
        for (const int vec : {4, 2, 1}) {
            Params params{{"block", 256}, {"vec", vec}, {"unroll", unroll}, {"cache", cache}};
            if (check(op, recipe, params).empty())
                return params;
        }
    return {{"block", 256}, {"vec", 1}, {"unroll", 4}, {"cache", 0}};
}

std::string StridedNormTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the strided norm template needs an rmsnorm recipe over a middle dimension";
    if (op.inputs.size() != 1 && op.inputs.size() != 2)
        return "rmsnorm over a middle dimension takes x and at most a weight";
    if (const auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    const int vec = param(params, "vec", 1);
    const bool cache = param(params, "cache") == 1;
    if (cache && param(params, "unroll", 1) != 1)
        return "the column held in registers is read in one unrolled loop: unroll 1";
    for (const auto &set : op.shapeSets) {
        const auto cols = dimensionValue(recipe.cols, set);
        if (!cols)
            return "the shape set does not bind " + recipe.cols;
        if (cache && *cols * vec > kMaxCachedFloats)
            return std::to_string(*cols) + " x " + std::to_string(vec) + " floats a thread exceed the "
                   + std::to_string(kMaxCachedFloats) + " registers the cached column may take";
        const auto inner = dimensionValue(recipe.inner, set);
        if (!inner)
            return "the shape set does not bind " + recipe.inner;
        if (*inner % vec != 0)
            return "vector width " + std::to_string(vec) + " needs " + recipe.inner + " to be a multiple of it (it is "
                   + std::to_string(*inner) + ")";
    }
    return {};
}

GeneratedKernel StridedNormTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const int block = param(params, "block", 256);
    const int vec = param(params, "vec", 1);
    const int unroll = param(params, "unroll", 1);
    const bool cache = param(params, "cache") == 1;
    const auto &input = op.inputs[0].name;
    const std::string weight = weighted(op) ? op.inputs[1].name : std::string();
    const auto &output = op.outputs.front().name;
    const std::string vector = vec == 4 ? "float4" : vec == 2 ? "float2" : "float";
    const char *lanes[] = {".x", ".y", ".z", ".w"};
    const auto eachLane = [&](const std::string &statement) {
        // '@' in the statement stands for the lane's member (nothing for a scalar).
        std::string all;
        for (int j = 0; j < vec; ++j) {
            std::string line = statement;
            for (std::size_t at; (at = line.find('@')) != std::string::npos;)
                line.replace(at, 1, vec == 1 ? "" : lanes[j]);
            all += (all.empty() ? "" : " ") + line;
        }
        return all;
    };

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[o, c, i] = " << input
        << "[o, c, i] * rsqrt(mean over c of " << input << "[o, c, i]^2 + " << recipe.eps << ")"
        << (weighted(op) ? " * " + weight + "[c]" : std::string())
        << ", over the middle dimension of [outer, cols, inner].\n"
        << "// A thread owns VEC neighbouring positions i of one o and walks c: the warp's loads are neighbours in i,\n"
        << "// so they are coalesced. Without the cached column it walks c twice, the second pass mostly from L2.\n\n"
        << "#define VEC " << vec << "\n"
        << (cache ? "#define MAXC " + std::to_string(cachedColumnLength(op, recipe)) + "\n" : std::string()) << "\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << block
        << ") strided_rmsnorm_kernel(const float *__restrict__ " << input << ", ";
    if (weighted(op))
        out << "const float *__restrict__ " << weight << ", ";
    out << "float *__restrict__ " << output << ", long long outer, long long cols, long long inner)\n{\n"
        << "    const long long groups = inner / VEC;\n"
        << "    const long long t = (long long)blockIdx.x * " << block << " + threadIdx.x;\n"
        << "    if (t >= outer * groups)\n"
        << "        return;\n"
        << "    const long long o = t / groups;\n"
        << "    const long long i = (t % groups) * VEC;\n"
        << "    const " << vector << " *__restrict__ in = reinterpret_cast<const " << vector << " *>(" << input
        << " + o * cols * inner + i);\n"
        << "    " << vector << " *__restrict__ result = reinterpret_cast<" << vector << " *>(" << output
        << " + o * cols * inner + i);\n"
        << "    const long long stride = groups; // one step of c, in vectors\n"
        << "    " << vector << " squares = {};\n";
    const std::string scaled = eachLane(weighted(op) ? "v@ = v@ * scale@ * " + weight + "[c];" : "v@ = v@ * scale@;");
    const std::string scale = "    " + vector + " scale;\n    "
                              + eachLane("scale@ = rsqrtf(squares@ / (float)cols + " + epsLiteral(recipe.eps) + ");")
                              + "\n";
    if (cache) {
        out << "    // The column stays in registers (cols <= MAXC in every shape set): x is read from DRAM once.\n"
            << "    " << vector << " values[MAXC];\n"
            << "#pragma unroll\n"
            << "    for (int c = 0; c < MAXC; ++c) {\n"
            << "        if (c < cols) {\n"
            << "            const " << vector << " v = in[c * stride];\n"
            << "            values[c] = v;\n"
            << "            " << eachLane("squares@ += v@ * v@;") << "\n"
            << "        }\n"
            << "    }\n"
            << scale << "#pragma unroll\n"
            << "    for (int c = 0; c < MAXC; ++c) {\n"
            << "        if (c < cols) {\n"
            << "            " << vector << " v = values[c];\n"
            << "            " << scaled << "\n"
            << "            result[c * stride] = v;\n"
            << "        }\n"
            << "    }\n"
            << "}\n";
    } else {
        out << "#pragma unroll " << unroll << "\n"
            << "    for (long long c = 0; c < cols; ++c) {\n"
            << "        const " << vector << " v = in[c * stride];\n"
            << "        " << eachLane("squares@ += v@ * v@;") << "\n"
            << "    }\n"
            << scale << "#pragma unroll " << unroll << "\n"
            << "    for (long long c = 0; c < cols; ++c) {\n"
            << "        " << vector << " v = in[c * stride];\n"
            << "        " << scaled << "\n"
            << "        result[c * stride] = v;\n"
            << "    }\n"
            << "}\n";
    }

    auto args = nlohmann::json::array({inputArg(input)});
    if (weighted(op))
        args.push_back(inputArg(weight));
    args.push_back(outputArg(output));
    args.push_back(intArg(recipe.rows));
    args.push_back(intArg(recipe.cols));
    args.push_back(intArg(recipe.inner));
    const std::string threads = recipe.rows + " * (" + recipe.inner + " / " + text(vec) + ")";
    const auto steps = nlohmann::json::array({kernelStep(
        "strided_rmsnorm_kernel", {"ceil_div(" + threads + ", " + text(block) + ")"}, {text(block)}, args)});
    return {out.str(), planJson(steps)};
}

} // namespace kx
