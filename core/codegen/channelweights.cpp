#include "core/codegen/channelweights.h"

#include "core/codegen/codegenutil.h"

#include <limits>

namespace kx::channelweights {

std::string comment(const OpRecipe &recipe)
{
    if (!hasChannelWeights(recipe))
        return {};
    return "// Weight and bias per channel (GroupNorm): element c of a row is in channel (row % " + recipe.groups
           + ") * (cols / " + recipe.channelSize + ") + c / " + recipe.channelSize + ".\n";
}

std::string kernelParameters(const OpRecipe &recipe)
{
    return hasChannelWeights(recipe) ? ", long long groups, long long channelSize" : "";
}

std::string rowSetup(const OpRecipe &recipe, const std::string &indent)
{
    if (!hasChannelWeights(recipe))
        return {};
    // 32-bit division per element (check() keeps a row's indices below 2^31): far cheaper than 64-bit.
    return indent + "// Row = (sample, group): its channels are group * (cols / channelSize) onwards.\n" + indent
           + "const unsigned channelSize32 = (unsigned)channelSize;\n" + indent
           + "const unsigned firstChannel = (unsigned)(row % groups) * (unsigned)(cols / channelSize);\n";
}

std::string weightIndex(const OpRecipe &recipe)
{
    return hasChannelWeights(recipe) ? "[firstChannel + (unsigned)c / channelSize32]" : "[c]";
}

void appendArgs(const OpRecipe &recipe, nlohmann::json &args)
{
    if (!hasChannelWeights(recipe))
        return;
    args.push_back(codegen::intArg(recipe.groups));
    args.push_back(codegen::intArg(recipe.channelSize));
}

std::string check(const Op &op, const OpRecipe &recipe)
{
    if (!hasChannelWeights(recipe))
        return {};
    if (recipe.reduction != "layernorm" || op.inputs.size() != 3)
        return "per-channel weights (GroupNorm) need a layernorm recipe with x, weight and bias";
    for (const auto &set : op.shapeSets) {
        const auto cols = codegen::dimensionValue(recipe.cols, set);
        const auto groups = codegen::dimensionValue(recipe.groups, set);
        const auto channelSize = codegen::dimensionValue(recipe.channelSize, set);
        if (!cols || !groups || !channelSize || *groups < 1 || *channelSize < 1)
            return "the shape set does not bind " + recipe.cols + ", " + recipe.groups + " and " + recipe.channelSize;
        if (*cols % *channelSize != 0)
            return "a row of " + std::to_string(*cols) + " elements is not whole channels of "
                   + std::to_string(*channelSize);
        if (*cols > std::numeric_limits<int>::max())
            return "rows of " + std::to_string(*cols) + " elements: channel indices are computed in 32 bits";
    }
    return {};
}

} // namespace kx::channelweights
