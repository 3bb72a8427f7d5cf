#include "core/codegen/codegenutil.h"
#include "core/codegen/rowcommon.h"
#include "core/codegen/rowtemplates.h"

#include <sstream>

namespace kx {

using namespace codegen;

bool SoftmaxTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "softmax";
}

std::vector<ParamDef> SoftmaxTemplate::parameters(const Op &, const OpRecipe &) const
{
    auto definitions = rows::commonParameters();
    definitions.push_back({"online", {0, 1}, "passes (0: max, sum, write; 1: online max and sum, then write)"});
    definitions.push_back({"fastMath", {0, 1}, "fast-math intrinsics"});
    return definitions;
}

Params SoftmaxTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    auto params = rows::commonDefaults();
    params["online"] = 0;
    params["fastMath"] = 0;
    return params;
}

std::string SoftmaxTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the softmax template needs a softmax recipe";
    if (recipe.reduction != "softmax" && recipe.reduction != "logsoftmax")
        return "unknown softmax variant '" + recipe.reduction + "'";
    if (op.outputs.empty() || op.outputs.front().dtype != "float32")
        return "softmax writes float32";
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel SoftmaxTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const auto layout = rows::layoutOf(params);
    const bool online = param(params, "online") == 1;
    const bool fastMath = param(params, "fastMath") == 1;
    const bool logarithm = recipe.reduction == "logsoftmax";
    const std::string exp = fastMath ? "__expf" : "expf";
    const std::string log = fastMath ? "__logf" : "logf";
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output
        << "[row, :] = " << recipe.reduction << "(" << input << "[row, :])\n\n"
        << rows::reductionHelpers(layout) << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") softmax_kernel(const float *__restrict__ " << input << ", float *__restrict__ " << output
        << ", long long rows, long long cols)\n{\n"
        << rows::rowPrologue(layout, input) << "    float *__restrict__ result = " << output << " + row * cols;\n";
    if (online) {
        out << "    // One pass keeps a running maximum and a sum rescaled whenever the maximum grows.\n"
            << "    float m = negativeInfinity(), s = 0.0f;\n"
            << rows::forEachElement(layout, "in", rows::onlineLogSumExpStep(exp))
            << "    const float rowMax = " << rows::reduceCall(layout, "Max", "m") << ";\n"
            << "    s = m == negativeInfinity() ? 0.0f : s * " << exp << "(m - rowMax);\n"
            << "    s = " << rows::reduceCall(layout, "Sum", "s") << ";\n"
            << "    m = rowMax;\n";
    } else {
        out << "    float m = negativeInfinity();\n"
            << rows::forEachElement(layout, "in", "m = fmaxf(m, v);")
            << "    m = " << rows::reduceCall(layout, "Max", "m") << ";\n"
            << "    float s = 0.0f;\n"
            << rows::forEachElement(layout, "in", "s += " + exp + "(v - m);")
            << "    s = " << rows::reduceCall(layout, "Sum", "s") << ";\n";
    }
    if (logarithm)
        out << "    const float logSum = " << log << "(s);\n"
            << rows::forEachElement(layout, "in", "result[c] = v - m - logSum;");
    else
        out << "    const float inverse = 1.0f / s;\n"
            << rows::forEachElement(layout, "in", "result[c] = " + exp + "(v - m) * inverse;");
    out << "}\n";

    const auto args =
        nlohmann::json::array({inputArg(input), outputArg(output), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps = nlohmann::json::array({kernelStep("softmax_kernel", {rows::gridExpression(layout, recipe.rows)},
                                                         {text(layout.block)}, args, rows::sharedBytes(layout))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
