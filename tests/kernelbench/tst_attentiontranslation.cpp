// scaled_dot_product_attention on handwritten op graphs (the shape problem.json gives them, as PyTorch 2 traces
// the call): the attention recipe it becomes (KernelBench's 97 with its literal batch and head dimensions), the
// default and a given scale, the causal mask, the FLOPs, that the candidate compiles and its plan resolves, and the
// exact refusals of masks, dropout, grouped heads and what else does not fit.
#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/opcost.h"
#include "core/plan/launchplan.h"
#include "core/search/templateproposer.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

using namespace kx;

namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape)
{
    return {std::move(name), std::move(shape), "float32"};
}

nlohmann::json value(const std::string &name, const std::vector<std::int64_t> &shape)
{
    return {{"value", name}, {"shape", shape}, {"dtype", "float32"}};
}

// KernelBench's 97 as its import declares it: batch and heads are both 32, so neither has a symbol.
Op problem97()
{
    Op op;
    op.name = "kb/97_ScaledDotProductAttention";
    op.sourceKind = SourceKind::KernelBench;
    const std::vector<std::string> shape{"32", "32", "sequence_length", "embedding_dimension"};
    op.inputs = {tensor("Q", shape), tensor("K", shape), tensor("V", shape)};
    op.outputs = {tensor("out", shape)};
    op.shapeSets = {{{"sequence_length", 512}, {"embedding_dimension", 1024}}};
    return op;
}

// A smaller op with symbols for every dimension, value head dim other than the query's, two shape sets.
Op smallAttention()
{
    Op op;
    op.name = "kb/attention";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {tensor("q", {"B", "H", "L", "E"}), tensor("k", {"B", "H", "S", "E"}), tensor("v", {"B", "H", "S", "EV"})};
    op.outputs = {tensor("out", {"B", "H", "L", "EV"})};
    op.shapeSets = {{{"B", 2}, {"H", 3}, {"L", 77}, {"S", 50}, {"E", 40}, {"EV", 24}},
                    {{"B", 1}, {"H", 3}, {"L", 77}, {"S", 50}, {"E", 40}, {"EV", 24}}};
    return op;
}

std::vector<std::int64_t> sizes(const Op &op, const TensorSpec &spec)
{
    std::vector<std::int64_t> shape;
    for (const auto &dimension : spec.shape)
        shape.push_back(op.shapeSets.front().count(dimension) ? op.shapeSets.front().at(dimension)
                                                               : std::stoll(dimension));
    return shape;
}

// The traced call: query, key and value, then attn_mask, dropout_p, is_causal, scale and enable_gqa as constants
// (a tensor mask replaces the first).
nlohmann::json sdpaCall(const Op &op, const std::vector<nlohmann::json> &constants)
{
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto &input : op.inputs)
        inputs.push_back(value(input.name, sizes(op, input)));
    for (const auto &constant : constants)
        inputs.push_back(constant.is_object() && constant.contains("value") ? constant
                                                                            : nlohmann::json{{"const", constant}});
    return {{"kind", "aten::scaled_dot_product_attention"},
            {"inputs", inputs},
            {"outputs", nlohmann::json::array({value("attended", sizes(op, op.outputs.front()))})}};
}

OpGraph graphOf(const Op &op, std::vector<nlohmann::json> nodes, const std::string &result = "attended")
{
    nlohmann::json json{{"inputs", nlohmann::json::array()}, {"outputs", {result}}, {"nodes", std::move(nodes)}};
    for (const auto &input : op.inputs)
        json["inputs"].push_back({{"value", input.name}, {"name", input.name}});
    auto graph = opGraphFromJson(json);
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

const std::vector<nlohmann::json> kDefaults{nullptr, 0.0, false, nullptr, false};

Op translated(const Op &op, const OpGraph &graph)
{
    auto result = GraphTranslator().translate(graph, op);
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    return *result;
}

std::string errorOf(const Op &op, const OpGraph &graph)
{
    const auto result = GraphTranslator().translate(graph, op);
    REQUIRE_FALSE(result);
    return result.error().message;
}

OpRecipe recipeOfOp(const Op &op)
{
    const auto recipe = recipeOf(op);
    REQUIRE_MESSAGE(recipe, (recipe ? "" : recipe.error().message));
    return *recipe;
}

} // namespace

TEST_CASE("KernelBench's 97 becomes an attention recipe: batch and heads leading, scale 1 / sqrt(1024)")
{
    const Op source = problem97();
    const OpGraph graph = graphOf(source, {sdpaCall(source, kDefaults)});
    CHECK(GraphTranslator::unsupportedCalls(graph).empty());
    const Op op = translated(source, graph);
    const auto recipe = recipeOfOp(op);
    CHECK(recipe.family == "attention");
    CHECK(recipe.leading == std::vector<std::string>{"32", "32"});
    CHECK(recipe.m == "sequence_length");
    CHECK(recipe.n == "sequence_length");
    CHECK(recipe.k == "embedding_dimension");
    CHECK(recipe.scale == 0.03125);
    CHECK_FALSE(recipe.causal);
    CHECK_FALSE(op.policy.allowLibrarySteps); // every step is generated
    CHECK(op.policy.atol == doctest::Approx(1e-3));
    CHECK(graphFlopsExpression(graph, source)
          == "2 * 32 * 32 * sequence_length * sequence_length * embedding_dimension"
             " + 2 * 32 * 32 * sequence_length * sequence_length * embedding_dimension"
             " + 5 * 32 * 32 * sequence_length * sequence_length");

    // The translation's candidate: the decomposed plan, with 1 GiB of scores and of probabilities.
    const auto candidate = translateOp(op);
    REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
    CHECK(candidate->source.find("acc * 3.125000000e-02f") != std::string::npos);
    const auto plan = parseLaunchPlan(candidate->launchPlan);
    REQUIRE(plan);
    const auto resolved =
        resolveLaunchPlan(*plan, op, op.shapeSets.front(), parseKernelSignatures(candidate->source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    CHECK(resolved->scratchBytes
          == std::vector<std::pair<std::string, std::int64_t>>{{"scores", 4LL * 1024 * 512 * 512},
                                                               {"probs", 4LL * 1024 * 512 * 512}});
    CHECK(resolved->steps.size() == 3);
    const std::string problem = test::translationProblem(op);
    if (problem != "skip")
        CHECK_MESSAGE(problem.empty(), problem);
}

TEST_CASE("a given scale and is_causal reach the recipe; the causal FLOPs are half the products")
{
    const Op source = smallAttention();
    const OpGraph graph = graphOf(source, {sdpaCall(source, {nullptr, 0.0, true, 0.5})}); // no enable_gqa (2.1-2.4)
    const Op op = translated(source, graph);
    const auto recipe = recipeOfOp(op);
    CHECK(recipe.causal);
    CHECK(recipe.scale == 0.5);
    CHECK(recipe.leading == std::vector<std::string>{"B", "H"});
    CHECK(recipe.m == "L");
    CHECK(recipe.n == "S");
    CHECK(recipe.k == "E");
    CHECK(graphFlopsExpression(graph, source) == "B * H * L * S * E + B * H * L * S * EV + 5 * B * H * L * S");
    const std::string problem = test::translationProblem(op);
    if (problem != "skip")
        CHECK_MESSAGE(problem.empty(), problem);

    // PyTorch 2.0's call has no scale: the default, 1 / sqrt(E) with E = 40.
    const Op older = translated(source, graphOf(source, {sdpaCall(source, {nullptr, 0.0, false})}));
    CHECK(recipeOfOp(older).scale == doctest::Approx(0.158113883));
    CHECK_FALSE(recipeOfOp(older).causal);
}

TEST_CASE("masks, dropout, grouped heads and other layouts are refused with the reason")
{
    const Op source = smallAttention();
    const std::string call = "aten::scaled_dot_product_attention";
    const auto refusal = [&](const std::vector<nlohmann::json> &constants) {
        // The pipeline translation is tried after the single-template one: the first reason comes first.
        const std::string error = errorOf(source, graphOf(source, {sdpaCall(source, constants)}));
        return error.substr(0, error.find("; as a pipeline"));
    };
    Op masked = source;
    masked.inputs.push_back(tensor("mask", {"L", "S"}));
    masked.shapeSets.front()["L"] = 77;
    const auto maskArgument = value("mask", {77, 50});
    const std::string maskError = errorOf(masked, graphOf(masked, {sdpaCall(source, {maskArgument, 0.0, false})}));
    CHECK(maskError.substr(0, maskError.find("; as a pipeline"))
          == call + " with an attn_mask: the attention template applies no mask but the causal one (is_causal=True)");
    CHECK(refusal({nullptr, 0.1, false}) == call + " with dropout: the attention template computes dropout_p 0 only");
    CHECK(refusal({nullptr, 0.0, false, nullptr, true})
          == call + " with enable_gqa: the attention template needs as many key and value heads as query heads");
    CHECK(refusal({nullptr, 0.0, false, -1.0}) == call + " with a scale that is not a positive number");

    // Key and value with fewer heads (what enable_gqa would broadcast): not the same batch dimensions.
    Op grouped = source;
    grouped.inputs[1].shape = {"B", "1", "S", "E"};
    grouped.inputs[2].shape = {"B", "1", "S", "EV"};
    const std::string groupedError = errorOf(grouped, graphOf(grouped, {sdpaCall(grouped, kDefaults)}));
    CHECK(groupedError.substr(0, groupedError.find("; as a pipeline"))
          == call + " of [B, H, L, E], [B, 1, S, E] and [B, 1, S, EV]: the attention template takes query [..., L, E], "
                    "key [..., S, E] and value [..., S, Ev] with the same batch dimensions (no broadcasting)");

    // An epilogue after the call is not fused into the attention template: the pipeline translation takes it, the
    // call a library step before a generated elementwise kernel.
    nlohmann::json relu{{"kind", "aten::relu"},
                        {"inputs", {value("attended", {2, 3, 77, 24})}},
                        {"outputs", {value("activated", {2, 3, 77, 24})}}};
    const auto stages = test::pipelineStages(
        GraphTranslator().translate(graphOf(source, {sdpaCall(source, kDefaults), relu}, "activated"), source));
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].kind == PipelineStage::Kind::Library);
    CHECK(stages[0].op == call);
    CHECK(stages[1].kind == PipelineStage::Kind::Elementwise);
}
