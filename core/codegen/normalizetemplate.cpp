#include "core/codegen/normalizetemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/reducecommon.h"
#include "core/codegen/rowcommon.h"

#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// The statistic's start: the prologue of each element and the epilogue of the reduction ("v" and "acc" when empty).
std::string prologueOf(const OpRecipe &recipe)
{
    return recipe.prologue.empty() ? "v" : recipe.prologue;
}

std::string epilogueOf(const OpRecipe &recipe)
{
    return recipe.expression.empty() ? "acc" : recipe.expression;
}

} // namespace

bool NormalizeTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "normalize" && recipe.inner == "1";
}

std::vector<ParamDef> NormalizeTemplate::parameters(const Op &, const OpRecipe &) const
{
    return rows::commonParameters();
}

Params NormalizeTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    // A block a row with loads in flight: the rows are read twice, so bandwidth is all that counts.
    auto params = rows::commonDefaults();
    params["unroll"] = 4;
    params["vec"] = 4;
    if (!check(op, recipe, params).empty())
        params["vec"] = 1;
    return params;
}

std::string NormalizeTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the normalize template needs a normalize recipe over the last dimension";
    if (!reduction::isKnown(recipe.reduction) || reduction::isIndexed(recipe.reduction))
        return "unknown statistic '" + recipe.reduction + "'";
    for (const auto *code : {&recipe.prologue, &recipe.expression})
        if (code->find_first_of("{};#") != std::string::npos)
            return "the prologue and the epilogue must be expressions";
    if (op.inputs.size() != 1 || op.outputs.size() != 1 || op.outputs.front().shape != op.inputs.front().shape)
        return "normalize reads one input and writes one output of its shape";
    if (op.outputs.front().dtype != "float32")
        return "normalize writes float32";
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel NormalizeTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const auto layout = rows::layoutOf(params);
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[row, :] = " << input
        << "[row, :] / statistic, statistic = " << epilogueOf(recipe) << " where acc = " << recipe.reduction
        << " over the row of " << prologueOf(recipe) << " (v an element).\n"
        << "// The row is read twice: for the statistic, then for the result.\n\n"
        << reduction::deviceHelpers(recipe.reduction);
    if (!layout.warpPerRow)
        out << reduction::blockHelpers(layout, false);
    out << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") normalize_kernel(const float *__restrict__ " << input << ", float *__restrict__ " << output
        << ", long long rows, long long cols)\n{\n"
        << rows::rowPrologue(layout, input) << "    float *__restrict__ result = " << output << " + row * cols;\n"
        << "    float acc = reduceIdentity();\n"
        << rows::forEachElement(layout, "in", "acc = combine(acc, " + prologueOf(recipe) + ");") << "    acc = "
        << (layout.warpPerRow ? "warpCombine(acc)" : "blockCombine(acc, shared)") << ";\n";
    if (recipe.reduction == "mean")
        out << "    acc = " << reduction::finish(recipe.reduction, "acc", "cols") << ";\n";
    out << "    const float statistic = " << epilogueOf(recipe) << ";\n"
        << rows::forEachElement(layout, "in", "result[c] = v / statistic;") << "}\n";

    const auto args =
        nlohmann::json::array({inputArg(input), outputArg(output), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps =
        nlohmann::json::array({kernelStep("normalize_kernel", {rows::gridExpression(layout, recipe.rows)},
                                          {text(layout.block)}, args, reduction::sharedBytes(layout, false))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
