#include "core/codegen/channelweights.h"
#include "core/codegen/codegenutil.h"
#include "core/codegen/rowcommon.h"
#include "core/codegen/rowtemplates.h"

#include <sstream>

namespace kx {

using namespace codegen;

bool NormTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    // LayerNorm without weight and bias (InstanceNorm) is norm-split's only.
    return recipe.family == "norm" && recipe.inner == "1" && (recipe.reduction != "layernorm" || op.inputs.size() == 3);
}

std::vector<ParamDef> NormTemplate::parameters(const Op &, const OpRecipe &recipe) const
{
    auto definitions = rows::commonParameters();
    if (recipe.reduction == "layernorm")
        definitions.push_back({"onePass", {0, 1}, "variance (0: two passes, 1: one pass of sum and sum of squares)"});
    return definitions;
}

Params NormTemplate::defaults(const Op &, const OpRecipe &recipe) const
{
    auto params = rows::commonDefaults();
    if (recipe.reduction == "layernorm")
        params["onePass"] = 0;
    return params;
}

std::string NormTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the norm template needs a norm recipe";
    const std::size_t inputs = recipe.reduction == "layernorm" ? 3 : recipe.reduction == "rmsnorm" ? 2 : 0;
    if (inputs == 0)
        return "unknown normalisation '" + recipe.reduction + "'";
    if (op.inputs.size() != inputs)
        return recipe.reduction + " takes " + std::to_string(inputs) + " inputs (x, weight"
               + (inputs == 3 ? ", bias)" : ")");
    if (const auto problem = channelweights::check(op, recipe); !problem.empty())
        return problem;
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel NormTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const auto layout = rows::layoutOf(params);
    const bool layerNorm = recipe.reduction == "layernorm";
    const bool onePass = param(params, "onePass") == 1;
    const auto &input = op.inputs[0].name;
    const auto &weight = op.inputs[1].name;
    const std::string bias = layerNorm ? op.inputs[2].name : std::string();
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output
        << "[row, :] = " << recipe.reduction << "(" << input << "[row, :]) with eps " << recipe.eps << "\n"
        << channelweights::comment(recipe) << "\n"
        << rows::reductionHelpers(layout) << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") norm_kernel(const float *__restrict__ " << input << ", const float *__restrict__ " << weight << ", ";
    if (layerNorm)
        out << "const float *__restrict__ " << bias << ", ";
    out << "float *__restrict__ " << output << ", long long rows, long long cols"
        << channelweights::kernelParameters(recipe) << ")\n{\n"
        << rows::rowPrologue(layout, input) << "    float *__restrict__ result = " << output << " + row * cols;\n"
        << channelweights::rowSetup(recipe);
    if (!layerNorm) {
        out << "    float squares = 0.0f;\n"
            << rows::forEachElement(layout, "in", "squares += v * v;")
            << "    squares = " << rows::reduceCall(layout, "Sum", "squares") << ";\n"
            << "    const float scale = rsqrtf(squares / (float)cols + " << epsLiteral(recipe.eps) << ");\n"
            << rows::forEachElement(layout, "in", "result[c] = v * scale * " + weight + "[c];");
    } else if (onePass) {
        out << "    // Sum and sum of squares in one pass: fewer reads, slightly less accurate variance.\n"
            << "    float sum = 0.0f, squares = 0.0f;\n"
            << rows::forEachElement(layout, "in", "sum += v; squares += v * v;")
            << "    sum = " << rows::reduceCall(layout, "Sum", "sum") << ";\n"
            << "    squares = " << rows::reduceCall(layout, "Sum", "squares") << ";\n"
            << "    const float mean = sum / (float)cols;\n"
            << "    const float variance = fmaxf(squares / (float)cols - mean * mean, 0.0f);\n";
    } else {
        out << "    float sum = 0.0f;\n"
            << rows::forEachElement(layout, "in", "sum += v;")
            << "    const float mean = " << rows::reduceCall(layout, "Sum", "sum") << " / (float)cols;\n"
            << "    float deviations = 0.0f;\n"
            << rows::forEachElement(layout, "in", "const float d = v - mean; deviations += d * d;")
            << "    const float variance = " << rows::reduceCall(layout, "Sum", "deviations") << " / (float)cols;\n";
    }
    const std::string at = channelweights::weightIndex(recipe);
    if (layerNorm)
        out << "    const float scale = rsqrtf(variance + " << epsLiteral(recipe.eps) << ");\n"
            << rows::forEachElement(layout, "in",
                                    "result[c] = (v - mean) * scale * " + weight + at + " + " + bias + at + ";");
    out << "}\n";

    auto args = nlohmann::json::array({inputArg(input), inputArg(weight)});
    if (layerNorm)
        args.push_back(inputArg(bias));
    args.push_back(outputArg(output));
    args.push_back(intArg(recipe.rows));
    args.push_back(intArg(recipe.cols));
    channelweights::appendArgs(recipe, args);
    const auto steps = nlohmann::json::array({kernelStep("norm_kernel", {rows::gridExpression(layout, recipe.rows)},
                                                         {text(layout.block)}, args, rows::sharedBytes(layout))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
