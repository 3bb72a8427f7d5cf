#include "core/codegen/convepiloguetemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/elementwisetemplate.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

constexpr const char *kLibraryOp = "aten::conv2d";
constexpr long long kMaxInt = 2147483647;

// The bias is the input the recipe names, or else a third input.
const TensorSpec *biasOf(const Op &op, const OpRecipe &recipe)
{
    if (!recipe.bias.empty()) {
        const auto it = std::find_if(op.inputs.begin(), op.inputs.end(),
                                     [&](const TensorSpec &t) { return t.name == recipe.bias; });
        return it == op.inputs.end() ? nullptr : &*it;
    }
    return op.inputs.size() == 3 ? &op.inputs[2] : nullptr;
}

std::string epilogueExpression(const OpRecipe &recipe, const TensorSpec *bias)
{
    if (!recipe.expression.empty())
        return recipe.expression;
    return bias ? "acc + " + bias->name + "[c]" : "acc";
}

// OH * OW as a plan expression.
std::string planeExpression(const TensorSpec &output)
{
    return output.shape[2] + " * " + output.shape[3];
}

} // namespace

bool ConvEpilogueTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "conv-epilogue";
}

std::vector<ParamDef> ConvEpilogueTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"block", {128, 256, 512, 1024}, "epilogue block size"},
            {"vec", {1, 4}, "vector width (floats per load)"},
            {"items", {1, 2, 4}, "vectors per thread"},
            cudnnBenchmarkParameter()};
}

Params ConvEpilogueTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"block", 256}, {"vec", 1}, {"items", 1}, {"cudnnBenchmark", 0}};
}

std::string ConvEpilogueTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the conv-epilogue template needs a conv-epilogue recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;

    const auto &allowed = op.policy.allowedLibraryOps;
    if (!op.policy.allowLibrarySteps || std::find(allowed.begin(), allowed.end(), kLibraryOp) == allowed.end())
        return std::string("the conv-epilogue template runs the convolution as a library step: the op's policy must "
                           "allow ")
               + kLibraryOp;

    const TensorSpec *bias = biasOf(op, recipe);
    if (!recipe.bias.empty() && !bias)
        return "the recipe's bias '" + recipe.bias + "' is not an input of the op";
    if (op.inputs.size() != (bias ? 3u : 2u) || op.outputs.size() != 1)
        return "the conv-epilogue template needs inputs x, weight (and a bias) and one output";
    const auto &x = op.inputs[0];
    const auto &weight = op.inputs[1];
    const auto &y = op.outputs.front();
    if (bias == &x || bias == &weight)
        return "the bias must be the third input (x and weight come first)";
    if (x.shape.size() != 4 || weight.shape.size() != 4 || y.shape.size() != 4)
        return "x, weight and the output must be 4-D: [B, C_in, H, W], [C_out, C_in, KH, KW], [B, C_out, OH, OW]";
    if (bias && bias->shape.size() != 1)
        return "the bias must be 1-D [C_out]";
    for (const auto *tensor : {&x, &weight, &y, bias}) {
        if (tensor && tensor->dtype != "float32")
            return tensor->name + " is " + tensor->dtype + ": the conv-epilogue template handles float32";
    }
    if (bias) {
        if (!isIdentifier(bias->name))
            return "the bias name '" + bias->name + "' is not a C identifier";
        static const std::set<std::string> reserved{"acc",     "c",     "conv",  "out", "total", "channels", "plane",
                                                    "vectors", "first", "u",     "v",   "value", "epilogue", "BLOCK",
                                                    "VEC",     "ITEMS", "float", "int", "const"};
        if (reserved.count(bias->name))
            return "the bias name '" + bias->name + "' clashes with a name of the generated code";
    }
    if (recipe.expression.find_first_of(";{}#") != std::string::npos)
        return "the epilogue must be a single expression (no ';', braces or preprocessor lines)";

    const int vec = param(params, "vec", 1);
    for (std::size_t s = 0; s < op.shapeSets.size(); ++s) {
        const auto &shapes = op.shapeSets[s];
        const std::string where = "shape set " + std::to_string(s + 1);
        std::vector<long long> xs, ws, ys;
        for (const auto &[tensor, values] : {std::pair{&x, &xs}, std::pair{&weight, &ws}, std::pair{&y, &ys}}) {
            for (const auto &dimension : tensor->shape) {
                const auto value = dimensionValue(dimension, shapes);
                if (!value || *value <= 0)
                    return where + " gives " + tensor->name + "'s dimension " + dimension + " no positive size";
                values->push_back(*value);
            }
        }
        if (xs[0] != ys[0])
            return where + ": x and the output have different batch sizes";
        if (xs[1] != ws[1])
            return where + ": x has " + std::to_string(xs[1]) + " channels, the weight expects "
                   + std::to_string(ws[1]);
        if (ws[0] != ys[1])
            return where + ": the weight has " + std::to_string(ws[0]) + " output channels, the output "
                   + std::to_string(ys[1]);
        if (bias) {
            const auto channels = dimensionValue(bias->shape[0], shapes);
            if (!channels || *channels != ys[1])
                return where + ": the bias must hold one value per output channel (" + std::to_string(ys[1]) + ")";
        }
        // Only stride 1 without padding: the library step passes no stride or padding.
        if (ys[2] != xs[2] - ws[2] + 1 || ys[3] != xs[3] - ws[3] + 1)
            return where + ": the conv-epilogue template supports stride 1 without padding only, so the output must be "
                   + std::to_string(xs[2] - ws[2] + 1) + " x " + std::to_string(xs[3] - ws[3] + 1) + ", not "
                   + std::to_string(ys[2]) + " x " + std::to_string(ys[3]);
        if (ys[1] > kMaxInt || ys[2] * ys[3] > kMaxInt)
            return where + ": channels and OH * OW must fit 32-bit integers";
        if (vec > 1 && (ys[2] * ys[3]) % vec != 0)
            return "vector width " + std::to_string(vec) + " needs OH * OW divisible by it (" + where + " has "
                   + std::to_string(ys[2] * ys[3]) + ")";
    }
    return {};
}

GeneratedKernel ConvEpilogueTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const int block = param(params, "block", 256);
    const int vec = param(params, "vec", 1);
    const int items = param(params, "items", 1);
    const TensorSpec *bias = biasOf(op, recipe);
    const auto &x = op.inputs[0];
    const auto &weight = op.inputs[1];
    const auto &y = op.outputs.front();

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// Step 1 (library): conv = aten::conv2d(" << x.name << ", " << weight.name
        << ") with stride 1 and no padding, into a scratch buffer.\n"
        << "// Step 2 (this kernel): " << y.name << "[b, c, h, w] = epilogue(conv[b, c, h, w], c"
        << (bias ? ", " + bias->name : std::string()) << ").\n\n"
        << "constexpr int BLOCK = " << block << ", VEC = " << vec << ", ITEMS = " << items << ";\n\n"
        << "__device__ __forceinline__ float epilogue(float acc, int c"
        << (bias ? ", const float *__restrict__ " + bias->name : std::string()) << ")\n{\n"
        << "    return " << epilogueExpression(recipe, bias) << ";\n}\n\n"
        << "// conv is only read; plan scratch buffers are passed as non-const pointers.\n"
        << "extern \"C\" __global__ void __launch_bounds__(BLOCK)\n"
        << "conv_epilogue_kernel(float *__restrict__ conv, "
        << (bias ? "const float *__restrict__ " + bias->name + ", " : std::string())
        << "float *__restrict__ out, long long total, int channels, int plane)\n{\n"
        << "    // Each thread handles ITEMS groups of VEC elements, BLOCK groups apart (coalesced).\n"
        << "    const long long vectors = total / VEC;\n"
        << "    const long long first = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < ITEMS; ++u) {\n"
        << "        const long long v = first + (long long)u * BLOCK;\n"
        << "        if (v >= vectors)\n"
        << "            break;\n";
    const std::string biasArgument = bias ? ", " + bias->name : std::string();
    if (vec == 1) {
        out << "        const int c = (int)(v / plane % channels);\n"
            << "        out[v] = epilogue(conv[v], c" << biasArgument << ");\n";
    } else {
        out << "        // plane is a multiple of VEC: the VEC elements lie in one channel.\n"
            << "        const int c = (int)(v * VEC / plane % channels);\n"
            << "        float4 value = reinterpret_cast<const float4 *>(conv)[v];\n";
        for (const char *lane : {"x", "y", "z", "w"})
            out << "        value." << lane << " = epilogue(value." << lane << ", c" << biasArgument << ");\n";
        out << "        reinterpret_cast<float4 *>(out)[v] = value;\n";
    }
    out << "    }\n}\n";

    const std::string count = elementCountExpression(y);
    const auto convolution =
        libraryStep(kLibraryOp, nlohmann::json::array({inputArg(x.name), inputArg(weight.name), scratchArg("conv")}),
                    param(params, "cudnnBenchmark", 0) != 0);
    nlohmann::json args = nlohmann::json::array({scratchArg("conv")});
    if (bias)
        args.push_back(inputArg(bias->name));
    args.push_back(outputArg(y.name));
    args.push_back(intArg(count));
    args.push_back(intArg(y.shape[1]));
    args.push_back(intArg(planeExpression(y)));
    const std::string grid = "ceil_div(" + count + ", " + text(block * vec * items) + ")";
    const auto epilogueStep = kernelStep("conv_epilogue_kernel", {grid}, {text(block)}, args);
    return {out.str(), planJson(nlohmann::json::array({convolution, epilogueStep}), {{"conv", "4 * " + count}})};
}

} // namespace kx
