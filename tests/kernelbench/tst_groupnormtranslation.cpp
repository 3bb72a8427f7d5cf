// GroupNorm and InstanceNorm on handwritten op graphs: rows of (sample, group) with their symbols bound in every
// shape set, the per-channel weights of the recipe (groups, channelSize), the template that takes it and that its
// first candidate compiles for sm_90, and the errors for what does not fit.
#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/search/templateproposer.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using kx::test::checkCompiles;
using kx::test::recipeOfTranslation;

namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape)
{
    return {std::move(name), std::move(shape), "float32"};
}

// KernelBench's x [batch_size, features, dim1, dim2] (35_GroupNorm_ at a smaller size); the second shape set halves
// the batch, as the import does. With affine, the op's inputs are x, weight and bias.
Op groupNormOp(bool affine, std::int64_t features = 64, std::int64_t pixels = 512)
{
    Op op;
    op.name = "kb/group_norm";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {tensor("x", {"batch_size", "features", "dim1", "dim2"})};
    if (affine)
        op.inputs.insert(op.inputs.end(), {tensor("gn_weight", {"features"}), tensor("gn_bias", {"features"})});
    op.outputs = {tensor("out", {"batch_size", "features", "dim1", "dim2"})};
    op.shapeSets = {{{"batch_size", 16}, {"features", features}, {"dim1", pixels}, {"dim2", pixels}},
                    {{"batch_size", 8}, {"features", features}, {"dim1", pixels}, {"dim2", pixels}}};
    return op;
}

nlohmann::json tensorArgument(const std::string &value, std::vector<std::int64_t> shape)
{
    return {{"value", value}, {"shape", std::move(shape)}, {"dtype", "float32"}};
}

// One call of x [16, features, pixels, pixels] (and of the weight and bias where given) returning its result.
OpGraph normGraph(const std::string &kind, nlohmann::json arguments, std::int64_t features, std::int64_t pixels,
                  const std::vector<std::string> &parameters)
{
    const std::vector<std::int64_t> shape{16, features, pixels, pixels};
    arguments.insert(arguments.begin(), tensorArgument("x", shape));
    nlohmann::json inputs = nlohmann::json::array({{{"value", "x"}, {"name", "x"}}});
    for (const auto &parameter : parameters)
        inputs.push_back({{"value", parameter}, {"name", parameter}});
    const nlohmann::json graph{
        {"inputs", inputs},
        {"outputs", {"9"}},
        {"nodes", {{{"kind", kind}, {"inputs", arguments}, {"outputs", {tensorArgument("9", shape)}}}}}};
    auto parsed = opGraphFromJson(graph);
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    return *parsed;
}

nlohmann::json constant(nlohmann::json value)
{
    return {{"const", std::move(value)}};
}

// aten::group_norm(x, groups, weight, bias, eps, cudnn_enabled)
OpGraph groupNormGraph(std::int64_t groups, bool weight, bool bias, std::int64_t features = 64,
                       std::int64_t pixels = 512)
{
    std::vector<std::string> parameters;
    nlohmann::json arguments = nlohmann::json::array({constant(groups)});
    for (const auto &[present, name] : {std::pair{weight, "gn_weight"}, std::pair{bias, "gn_bias"}}) {
        arguments.push_back(present ? tensorArgument(name, {features}) : constant(nullptr));
        if (present)
            parameters.push_back(name);
    }
    arguments.push_back(constant(1e-5));
    arguments.push_back(constant(true));
    return normGraph("aten::group_norm", arguments, features, pixels, parameters);
}

std::int64_t valueIn(const Op &op, std::size_t set, const std::string &symbol)
{
    REQUIRE_MESSAGE(op.shapeSets[set].count(symbol), symbol);
    return op.shapeSets[set].at(symbol);
}

std::string refusal(const OpGraph &graph, const Op &op)
{
    const auto translated = GraphTranslator().translate(graph, op);
    REQUIRE_FALSE(translated);
    return translated.error().message;
}

} // namespace

TEST_CASE("GroupNorm with weight and bias: layernorm rows of (sample, group) whose channels index the weights")
{
    const auto translated = GraphTranslator().translate(groupNormGraph(8, true, true), groupNormOp(true));
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "norm");
    CHECK(recipe.reduction == "layernorm");
    CHECK(recipe.eps == doctest::Approx(1e-5));
    CHECK(recipe.groups == "8");
    CHECK(hasChannelWeights(recipe));
    for (const std::size_t set : {0u, 1u}) {
        const std::int64_t batch = set == 0 ? 16 : 8;
        CHECK(valueIn(*translated, set, recipe.rows) == batch * 8);
        CHECK(valueIn(*translated, set, recipe.cols) == 64 / 8 * 512 * 512);
        CHECK(valueIn(*translated, set, recipe.channelSize) == 512 * 512);
    }
    // Rows of 2 Mi elements: the split template first, the one-block template beside it in the first generation.
    CHECK(findKernelTemplate("norm-split")->supports(*translated, recipe));
    CHECK(findKernelTemplate("norm")->supports(*translated, recipe));
    CHECK(findKernelTemplate("norm")->check(*translated, recipe,
                                            findKernelTemplate("norm")->defaults(*translated, recipe))
          == std::string());
    const auto candidate = translateOp(*translated);
    REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
    CHECK(candidate->genome.find("norm-split") != std::string::npos);
    checkCompiles(*translated);
}

TEST_CASE("GroupNorm of short rows takes the one-block norm template")
{
    // 12 channels in 4 groups of 3, 37 x 37 pixels: rows of 4107 elements, channels not multiples of a vector.
    const auto translated =
        GraphTranslator().translate(groupNormGraph(4, true, true, 12, 37), groupNormOp(true, 12, 37));
    const auto recipe = recipeOfTranslation(translated);
    CHECK(valueIn(*translated, 0, recipe.rows) == 16 * 4);
    CHECK(valueIn(*translated, 1, recipe.cols) == 3 * 37 * 37);
    CHECK(valueIn(*translated, 1, recipe.channelSize) == 37 * 37);
    CHECK_FALSE(findKernelTemplate("norm-split")->supports(*translated, recipe));
    CHECK(findKernelTemplate("norm")->supports(*translated, recipe));
    checkCompiles(*translated);
}

TEST_CASE("GroupNorm without weight and bias needs no channels: a plain layernorm of the groups")
{
    const auto translated = GraphTranslator().translate(groupNormGraph(8, false, false), groupNormOp(false));
    const auto recipe = recipeOfTranslation(translated);
    CHECK_FALSE(hasChannelWeights(recipe));
    CHECK(valueIn(*translated, 0, recipe.rows) == 16 * 8);
    CHECK(valueIn(*translated, 0, recipe.cols) == 8 * 512 * 512);
    CHECK(findKernelTemplate("norm-split")->supports(*translated, recipe));
    checkCompiles(*translated);
}

TEST_CASE("InstanceNorm with an affine weight and bias is GroupNorm with a group for each channel")
{
    // aten::instance_norm(x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled)
    const auto arguments =
        nlohmann::json::array({tensorArgument("gn_weight", {64}), tensorArgument("gn_bias", {64}), constant(nullptr),
                               constant(nullptr), constant(true), constant(0.1), constant(1e-5), constant(true)});
    const auto graph = normGraph("aten::instance_norm", arguments, 64, 512, {"gn_weight", "gn_bias"});
    const auto translated = GraphTranslator().translate(graph, groupNormOp(true));
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.groups == "features");
    CHECK(recipe.channelSize == recipe.cols);
    CHECK(valueIn(*translated, 0, recipe.rows) == 16 * 64);
    CHECK(valueIn(*translated, 0, recipe.cols) == 512 * 512);
    CHECK(findKernelTemplate("norm-split")->supports(*translated, recipe));
    checkCompiles(*translated);
}

TEST_CASE("what GroupNorm translations refuse, with the reason")
{
    // Channels that do not divide into the groups (nn.GroupNorm refuses them too, F.group_norm only when it runs).
    CHECK(refusal(groupNormGraph(7, true, true), groupNormOp(true)).find("do not divide into the groups")
          != std::string::npos);
    // A weight without a bias.
    Op weightOnly = groupNormOp(true);
    weightOnly.inputs.pop_back();
    CHECK(refusal(groupNormGraph(8, true, false), weightOnly).find("weight but no bias") != std::string::npos);
    // A number of groups that is not a constant.
    OpGraph traced = groupNormGraph(8, false, false);
    traced.nodes[0].inputs[1].constant = nullptr;
    CHECK(refusal(traced, groupNormOp(false)).find("number of groups") != std::string::npos);
    // Inputs the call does not read.
    CHECK(refusal(groupNormGraph(8, false, false), groupNormOp(true)).find("does not use") != std::string::npos);
    // A weight of other than one value a channel.
    OpGraph wide = groupNormGraph(8, true, true);
    wide.nodes[0].inputs[2].tensor.shape = {64, 1};
    CHECK(refusal(wide, groupNormOp(true)).find("one value a channel") != std::string::npos);
}
