#include "core/codegen/oprecipe.h"

#include <nlohmann/json.hpp>

#include <set>

namespace kx {

std::string toJson(const OpRecipe &recipe)
{
    nlohmann::json j{{"family", recipe.family}};
    const OpRecipe defaults;
    // Only what differs from the defaults, so recipes stay short and readable in the archive.
    if (!recipe.expression.empty())
        j["expression"] = recipe.expression;
    if (!recipe.reduction.empty())
        j["reduction"] = recipe.reduction;
    if (recipe.rows != defaults.rows)
        j["rows"] = recipe.rows;
    if (recipe.cols != defaults.cols)
        j["cols"] = recipe.cols;
    if (recipe.inner != defaults.inner)
        j["inner"] = recipe.inner;
    if (recipe.groups != defaults.groups)
        j["groups"] = recipe.groups;
    if (recipe.channelSize != defaults.channelSize)
        j["channelSize"] = recipe.channelSize;
    if (recipe.eps != defaults.eps)
        j["eps"] = recipe.eps;
    if (recipe.m != defaults.m)
        j["m"] = recipe.m;
    if (recipe.n != defaults.n)
        j["n"] = recipe.n;
    if (recipe.k != defaults.k)
        j["k"] = recipe.k;
    if (recipe.transposeB)
        j["transposeB"] = true;
    if (recipe.transposeA)
        j["transposeA"] = true;
    if (isBatched(recipe))
        j["batch"] = recipe.batch;
    if (!recipe.leading.empty())
        j["leading"] = recipe.leading;
    if (!recipe.triangle.empty())
        j["triangle"] = recipe.triangle;
    if (recipe.diagonal != defaults.diagonal)
        j["diagonal"] = recipe.diagonal;
    if (!recipe.rowInputs.empty())
        j["rowInputs"] = recipe.rowInputs;
    if (!recipe.bias.empty())
        j["bias"] = recipe.bias;
    if (!recipe.epilogueInputs.empty())
        j["epilogueInputs"] = recipe.epilogueInputs;
    if (!recipe.stages.empty())
        j["stages"] = nlohmann::json::parse(recipe.stages);
    if (!recipe.prologue.empty())
        j["prologue"] = recipe.prologue;
    if (recipe.exclusive)
        j["exclusive"] = true;
    if (recipe.reverse)
        j["reverse"] = true;
    if (recipe.scale != defaults.scale)
        j["scale"] = recipe.scale;
    if (recipe.causal)
        j["causal"] = true;
    return j.dump();
}

Expected<OpRecipe> recipeOf(const Op &op)
{
    if (op.recipe.empty())
        return Error{"op " + op.name + " has no recipe: code generation does not know what it computes"};
    try {
        const auto j = nlohmann::json::parse(op.recipe);
        OpRecipe recipe;
        recipe.family = j.at("family").get<std::string>();
        recipe.expression = j.value("expression", recipe.expression);
        recipe.reduction = j.value("reduction", recipe.reduction);
        recipe.rows = j.value("rows", recipe.rows);
        recipe.cols = j.value("cols", recipe.cols);
        recipe.inner = j.value("inner", recipe.inner);
        recipe.groups = j.value("groups", recipe.groups);
        recipe.channelSize = j.value("channelSize", recipe.channelSize);
        recipe.eps = j.value("eps", recipe.eps);
        recipe.m = j.value("m", recipe.m);
        recipe.n = j.value("n", recipe.n);
        recipe.k = j.value("k", recipe.k);
        recipe.transposeB = j.value("transposeB", recipe.transposeB);
        recipe.transposeA = j.value("transposeA", recipe.transposeA);
        recipe.batch = j.value("batch", recipe.batch);
        if (recipe.batch.empty())
            recipe.batch = "1";
        recipe.leading = j.value("leading", recipe.leading);
        recipe.triangle = j.value("triangle", recipe.triangle);
        recipe.diagonal = j.value("diagonal", recipe.diagonal);
        recipe.rowInputs = j.value("rowInputs", recipe.rowInputs);
        recipe.bias = j.value("bias", recipe.bias);
        recipe.epilogueInputs = j.value("epilogueInputs", recipe.epilogueInputs);
        if (j.contains("stages"))
            recipe.stages = j["stages"].dump();
        recipe.prologue = j.value("prologue", recipe.prologue);
        recipe.exclusive = j.value("exclusive", recipe.exclusive);
        recipe.reverse = j.value("reverse", recipe.reverse);
        recipe.scale = j.value("scale", recipe.scale);
        recipe.causal = j.value("causal", recipe.causal);
        static const std::set<std::string> families{"elementwise", "reduce",        "softmax",  "norm", "gemm",
                                                    "transpose",   "conv-epilogue", "pipeline", "scan",
                                                    "normalize",   "attention",     "loss"};
        if (!families.count(recipe.family))
            return Error{"op " + op.name + ": unknown recipe family '" + recipe.family + "'"};
        return recipe;
    } catch (const nlohmann::json::exception &error) {
        return Error{"op " + op.name + ": malformed recipe: " + error.what()};
    }
}

bool isBatched(const OpRecipe &recipe)
{
    return !recipe.batch.empty() && recipe.batch != "1";
}

bool hasChannelWeights(const OpRecipe &recipe)
{
    return recipe.family == "norm" && (recipe.groups != "1" || recipe.channelSize != "1");
}

// b as [k, n] is a plain matrix product; b as [n, k] is nn.Linear's. A transposed a is passed to aten::mm as a
// transposed view (so is b then), and aten::matmul multiplies batches, with or without a shared b.
std::string gemmLibraryOp(const OpRecipe &recipe)
{
    if (isBatched(recipe))
        return "aten::matmul";
    return recipe.transposeB && !recipe.transposeA ? "aten::linear" : "aten::mm";
}

} // namespace kx
