#include "core/codegen/codegenutil.h"
#include "core/codegen/reducecommon.h"
#include "core/codegen/rowcommon.h"
#include "core/codegen/rowtemplates.h"

#include <sstream>

namespace kx {

using namespace codegen;

bool ReduceTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "reduce" && recipe.inner == "1";
}

std::vector<ParamDef> ReduceTemplate::parameters(const Op &, const OpRecipe &) const
{
    return rows::commonParameters();
}

Params ReduceTemplate::defaults(const Op &, const OpRecipe &) const
{
    return rows::commonDefaults();
}

std::string ReduceTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the reduce template needs a reduce recipe over the last dimension";
    if (!reduction::isKnown(recipe.reduction))
        return "unknown reduction '" + recipe.reduction + "'";
    const std::string expectedType = reduction::outputType(recipe.reduction);
    if (!op.outputs.empty() && op.outputs.front().dtype != expectedType)
        return recipe.reduction + " writes " + expectedType;
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel ReduceTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const auto layout = rows::layoutOf(params);
    const bool indexed = reduction::isIndexed(recipe.reduction);
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[row] = " << recipe.reduction
        << " of " << input << "[row, :]\n\n"
        << reduction::deviceHelpers(recipe.reduction);
    if (!layout.warpPerRow)
        out << reduction::blockHelpers(layout, indexed);
    out << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") reduce_kernel(const float *__restrict__ " << input << ", " << (indexed ? "long long" : "float")
        << " *__restrict__ " << output << ", long long rows, long long cols)\n{\n"
        << rows::rowPrologue(layout, input);
    if (indexed) {
        out << "    float best = reduceIdentity();\n    long long bestIndex = kNoIndex;\n"
            << rows::forEachElement(layout, "in", "combineArg(best, bestIndex, v, c);")
            << (layout.warpPerRow ? "    warpCombineArg(best, bestIndex);\n"
                                  : "    blockCombineArg(best, bestIndex, shared);\n")
            << "    if (lane == 0)\n        " << output << "[row] = bestIndex;\n}\n";
    } else {
        out << "    float acc = reduceIdentity();\n"
            << rows::forEachElement(layout, "in", "acc = combine(acc, v);") << "    acc = "
            << (layout.warpPerRow ? "warpCombine(acc)" : "blockCombine(acc, shared)") << ";\n"
            << "    if (lane == 0)\n        " << output
            << "[row] = " << reduction::finish(recipe.reduction, "acc", "cols") << ";\n}\n";
    }
    const auto args =
        nlohmann::json::array({inputArg(input), outputArg(output), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps = nlohmann::json::array({kernelStep("reduce_kernel", {rows::gridExpression(layout, recipe.rows)},
                                                         {text(layout.block)}, args, reduction::sharedBytes(layout, indexed))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
