// Reductions over any dimensions on handwritten op graphs (KernelBench's level-1 problems 47 to 53 and their
// relatives): the reduction, the rows, cols and inner symbols of the recipe, the template that takes it, that its
// first candidate compiles for sm_90, and the exact errors for what does not fit.
#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/graphtranslation.h"
#include "core/kernelbench/graphtranslator.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using kx::test::checkCompiles;
using kx::test::recipeOfTranslation;

namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape, std::string dtype = "float32")
{
    return {std::move(name), std::move(shape), std::move(dtype)};
}

// KernelBench's x [batch_size, dim1, dim2] at a smaller batch; the second shape set halves it, as the import does.
Op kernelBenchOp(std::vector<std::string> outputShape, const std::string &outputType = "float32")
{
    Op op;
    op.name = "kb/test";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {tensor("x", {"batch_size", "dim1", "dim2"})};
    op.outputs = {tensor("out", std::move(outputShape), outputType)};
    op.shapeSets = {{{"batch_size", 16}, {"dim1", 256}, {"dim2", 255}},
                    {{"batch_size", 8}, {"dim1", 256}, {"dim2", 255}}};
    return op;
}

struct Call
{
    std::string kind;
    std::string overload;
    nlohmann::json arguments;              ///< after x: constants
    std::vector<std::int64_t> inputShape;  ///< x as the call sees it
    std::vector<std::int64_t> outputShape; ///< the (first) result
    std::string outputType = "float32";
    bool withIndices = false;    ///< max.dim and min.dim: a second, int64 result
    bool returnsIndices = false; ///< the model returns that second result
};

OpGraph graphOf(const Call &call)
{
    nlohmann::json inputs = nlohmann::json::array({{{"value", "x"}, {"shape", call.inputShape}, {"dtype", "float32"}}});
    for (const auto &constant : call.arguments)
        inputs.push_back({{"const", constant}});
    nlohmann::json outputs =
        nlohmann::json::array({{{"value", "1"}, {"shape", call.outputShape}, {"dtype", call.outputType}}});
    if (call.withIndices)
        outputs.push_back({{"value", "2"}, {"shape", call.outputShape}, {"dtype", "int64"}});
    nlohmann::json node{{"kind", call.kind}, {"inputs", inputs}, {"outputs", outputs}};
    if (!call.overload.empty())
        node["overload"] = call.overload;
    const nlohmann::json graph{{"inputs", nlohmann::json::array({{{"value", "x"}, {"name", "x"}}})},
                               {"outputs", nlohmann::json::array({call.returnsIndices ? "2" : "1"})},
                               {"nodes", nlohmann::json::array({node})}};
    auto parsed = opGraphFromJson(graph);
    REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
    return *parsed;
}

// The template the translation's first candidate comes from: the first registered that supports the recipe.
std::string templateOf(const Op &op, const OpRecipe &recipe)
{
    for (const auto *kernelTemplate : kernelTemplates())
        if (kernelTemplate->supports(op, recipe))
            return kernelTemplate->name();
    return {};
}

const std::vector<std::int64_t> kX{16, 256, 255};

} // namespace

TEST_CASE("KernelBench's reductions over dimension 1 become middle-dimension reduce recipes")
{
    const struct
    {
        const char *problem;
        Call call;
        const char *reduction;
    } cases[] = {
        {"47 sum, keepdim", {"aten::sum", "dim_IntList", {{1}, true, nullptr}, kX, {16, 1, 255}}, "sum"},
        {"48 mean", {"aten::mean", "dim", {{1}, false, nullptr}, kX, {16, 255}}, "mean"},
        {"49 max values", {"aten::max", "dim", {1, false}, kX, {16, 255}, "float32", true}, "max"},
        {"51 argmax", {"aten::argmax", "", {1, false}, kX, {16, 255}, "int64"}, "argmax"},
        {"52 argmin", {"aten::argmin", "", {1, false}, kX, {16, 255}, "int64"}, "argmin"},
        {"53 min values", {"aten::min", "dim", {1, false}, kX, {16, 255}, "float32", true}, "min"},
        {"prod", {"aten::prod", "dim_int", {1, false, nullptr}, kX, {16, 255}}, "prod"},
        {"amin, negative dimension", {"aten::amin", "", {{-2}, false}, kX, {16, 255}}, "min"},
        {"max indices", {"aten::max", "dim", {1, false}, kX, {16, 255}, "float32", true, true}, "argmax"},
        {"min indices", {"aten::min", "dim", {-2, true}, kX, {16, 1, 255}, "float32", true, true}, "argmin"},
    };
    for (const auto &c : cases) {
        CAPTURE(c.problem);
        const bool indexed = std::string(c.reduction).starts_with("arg");
        std::vector<std::string> outputShape{"batch_size", "dim2"};
        if (c.call.outputShape.size() == 3)
            outputShape = {"batch_size", "1", "dim2"};
        const Op op = kernelBenchOp(outputShape, indexed ? "int64" : "float32");
        const auto translated = GraphTranslator().translate(graphOf(c.call), op);
        const auto recipe = recipeOfTranslation(translated);
        CHECK(recipe.family == "reduce");
        CHECK(recipe.reduction == c.reduction);
        CHECK(recipe.rows == "batch_size");
        CHECK(recipe.cols == "dim1");
        CHECK(recipe.inner == "dim2");
        CHECK(templateOf(*translated, recipe) == "reduce-strided");
        checkCompiles(*translated);
    }
}

TEST_CASE("sums allow for the rounding of many terms; comparisons keep the row templates' tolerance")
{
    Op op = kernelBenchOp({"batch_size", "dim2"});
    op.shapeSets = {{{"batch_size", 2}, {"dim1", 65536}, {"dim2", 3}}};
    const std::vector<std::int64_t> x{2, 65536, 3};
    const auto sum =
        GraphTranslator().translate(graphOf({"aten::sum", "dim_IntList", {{1}, false, nullptr}, x, {2, 3}}), op);
    REQUIRE(sum);
    CHECK(sum->policy.atol == doctest::Approx(1e-3 * 65536 / 4096));
    CHECK(sum->policy.rtol == doctest::Approx(1e-3));
    const auto max = GraphTranslator().translate(graphOf({"aten::amax", "", {{1}, false}, x, {2, 3}}), op);
    REQUIRE(max);
    CHECK(max->policy.atol == doctest::Approx(1e-2));
}

TEST_CASE("over the last dimension, or the last ones, the reduce template takes min, prod and argmin too")
{
    Op op = kernelBenchOp({"batch_size", "dim1"}, "int64");
    const auto argmin =
        GraphTranslator().translate(graphOf({"aten::argmin", "", {-1, false}, kX, {16, 256}, "int64"}), op);
    const auto recipe = recipeOfTranslation(argmin);
    CHECK(recipe.reduction == "argmin");
    CHECK(recipe.inner == "1");
    CHECK(recipe.rows == "R"); // batch_size * dim1, derived
    CHECK(argmin->shapeSets[0].at("R") == 16 * 256);
    CHECK(recipe.cols == "dim2");
    CHECK(templateOf(*argmin, recipe) == "reduce");
    checkCompiles(*argmin);

    // Neighbouring dimensions reduce as one: over (1, 2) of [B, C, H, W] the columns are C * H, the inner W.
    Op image;
    image.name = "kb/image";
    image.inputs = {tensor("x", {"B", "C", "H", "W"})};
    image.outputs = {tensor("out", {"B", "W"})};
    image.shapeSets = {{{"B", 4}, {"C", 8}, {"H", 16}, {"W", 32}}, {{"B", 2}, {"C", 8}, {"H", 16}, {"W", 32}}};
    const std::vector<std::int64_t> x{4, 8, 16, 32};
    const auto max = GraphTranslator().translate(graphOf({"aten::amax", "", {{2, 1}, false}, x, {4, 32}}), image);
    const auto maxRecipe = recipeOfTranslation(max);
    CHECK(maxRecipe.reduction == "max");
    CHECK(maxRecipe.rows == "B");
    CHECK(max->shapeSets[1].at(maxRecipe.cols) == 8 * 16);
    CHECK(maxRecipe.inner == "W");
    checkCompiles(*max);
}

TEST_CASE("what the reduce templates do not take is refused with the reason")
{
    const Op op = kernelBenchOp({"batch_size", "dim2"});
    // The single-template translation's reasons (a pipeline may still take some of these calls as library steps).
    const auto error = [&](const Call &call, const Op &target) {
        const auto translated = translation::Translation(graphOf(call), target).run();
        REQUIRE_FALSE(translated);
        return translated.error().message;
    };
    CHECK(
        error({"aten::sum", "dim_IntList", {{1}, false, 7}, kX, {16, 255}}, op).starts_with("aten::sum with a dtype"));
    CHECK(error({"aten::amin", "", {{0, 2}, false}, kX, {255}}, kernelBenchOp({"dim1"}))
              .starts_with("aten::amin over dimensions [0,2] of [16, 256, 255]: the reduce templates take neighbouring "
                           "dimensions"));
    CHECK(error({"aten::argmax", "", {nullptr, false}, kX, {}, "int64"}, kernelBenchOp({}, "int64"))
              .starts_with("aten::argmax over all dimensions: the reduce templates keep at least one"));
    CHECK(
        error({"aten::prod", "", {nullptr}, kX, {}}, kernelBenchOp({})).starts_with("aten::prod over all dimensions"));
    CHECK(error({"aten::mean", "dim", {{3}, false, nullptr}, kX, {16, 256}}, op)
              .starts_with("aten::mean over dimension 3 of a 3-D input"));
    // x reshaped to [16, 65280] before the sum: the recipe could not name its columns with x's symbols.
    CHECK(
        error({"aten::sum", "dim_IntList", {{1}, false, nullptr}, {16, 256 * 255}, {16}}, kernelBenchOp({"batch_size"}))
            .starts_with("aten::sum of [16, 65280], a view of x with other dimensions than it is declared with"));
}

TEST_CASE("the index results of argmin, min and max are not unsupported int64 calls")
{
    for (const auto &call : {Call{"aten::argmin", "", {1, false}, kX, {16, 255}, "int64"},
                             Call{"aten::min", "dim", {1, false}, kX, {16, 255}, "float32", true}}) {
        CAPTURE(call.kind);
        CHECK(GraphTranslator::unsupportedCalls(graphOf(call)).empty());
    }
}

namespace {

// KernelBench's 38_L1Norm_ (x / mean(|x|, 1, keepdim)) or 39_L2Norm_ (x / norm(x, 2, [1], keepdim)) on [16, 4095],
// with the statistic call's arguments and the div's second operand given.
OpGraph normalizationGraph(const nlohmann::json &statistic, bool withAbs, const char *divisor = "11")
{
    nlohmann::json nodes = nlohmann::json::array();
    if (withAbs)
        nodes.push_back({{"kind", "aten::abs"},
                         {"inputs", {{{"value", "x"}, {"shape", {16, 4095}}, {"dtype", "float32"}}}},
                         {"outputs", {{{"value", "10"}, {"shape", {16, 4095}}, {"dtype", "float32"}}}}});
    nodes.push_back(statistic);
    nodes.push_back({{"kind", "aten::div"},
                     {"inputs",
                      {{{"value", "x"}, {"shape", {16, 4095}}, {"dtype", "float32"}},
                       {{"value", divisor}, {"shape", {16, 1}}, {"dtype", "float32"}}}},
                     {"outputs", {{{"value", "12"}, {"shape", {16, 4095}}, {"dtype", "float32"}}}}});
    auto graph =
        opGraphFromJson({{"inputs", {{{"value", "x"}, {"name", "x"}}}}, {"outputs", {"12"}}, {"nodes", nodes}});
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

nlohmann::json statisticCall(const char *kind, const char *reads, nlohmann::json arguments, const char *overload = "")
{
    nlohmann::json inputs = nlohmann::json::array({{{"value", reads}, {"shape", {16, 4095}}, {"dtype", "float32"}}});
    for (const auto &argument : arguments)
        inputs.push_back({{"const", argument}});
    return {{"kind", kind},
            {"overload", overload},
            {"inputs", inputs},
            {"outputs", {{{"value", "11"}, {"shape", {16, 1}}, {"dtype", "float32"}}}}};
}

} // namespace

TEST_CASE("L1 and L2 normalisation over the last dimension become normalize recipes: one kernel reads x twice")
{
    Op op;
    op.name = "kb/normalize";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {tensor("x", {"batch_size", "dim"})};
    op.outputs = {tensor("out", {"batch_size", "dim"})};
    op.shapeSets = {{{"batch_size", 16}, {"dim", 4095}}, {{"batch_size", 8}, {"dim", 4095}}};

    const auto l1 = GraphTranslator().translate(
        normalizationGraph(statisticCall("aten::mean", "10", {{1}, true, nullptr}, "dim"), true), op);
    const auto l1Recipe = recipeOfTranslation(l1);
    CHECK(l1Recipe.family == "normalize");
    CHECK(l1Recipe.reduction == "mean");
    CHECK(l1Recipe.prologue == "fabsf(v)");
    CHECK(l1Recipe.expression.empty());
    CHECK(l1Recipe.rows == "batch_size");
    CHECK(l1Recipe.cols == "dim");
    CHECK(templateOf(*l1, l1Recipe) == "normalize");
    checkCompiles(*l1);

    const auto l2 = GraphTranslator().translate(
        normalizationGraph(statisticCall("aten::norm", "x", {2, {1}, true}, "ScalarOpt_dim"), false), op);
    const auto l2Recipe = recipeOfTranslation(l2);
    CHECK(l2Recipe.reduction == "sum");
    CHECK(l2Recipe.prologue == "(v * v)");
    CHECK(l2Recipe.expression == "sqrtf(acc)");
    checkCompiles(*l2);

    // The infinity norm of |x|: the prologue's abs twice, and the largest magnitude.
    const auto infinity = GraphTranslator().translate(
        normalizationGraph(
            statisticCall("aten::linalg_vector_norm", "10", {{{"nonFinite", "inf"}}, {-1}, true, nullptr}), true),
        op);
    REQUIRE(infinity);
    const auto infinityRecipe = recipeOfTranslation(infinity);
    CHECK(infinityRecipe.reduction == "max");
    CHECK(infinityRecipe.prologue == "fabsf(fabsf(v))");

    // Without keepdim the division broadcasts otherwise; a norm of another order has no template: not normalize.
    const auto family = [&](const OpGraph &graph) {
        const auto translated = GraphTranslator().translate(graph, op);
        return translated ? recipeOf(*translated)->family : std::string("untranslated");
    };
    CHECK(family(normalizationGraph(statisticCall("aten::mean", "10", {{1}, false, nullptr}, "dim"), true))
          != "normalize");
    CHECK(family(normalizationGraph(statisticCall("aten::norm", "x", {3, {1}, true}, "ScalarOpt_dim"), false))
          != "normalize");
    // x divided by something else than the statistic.
    CHECK(family(normalizationGraph(statisticCall("aten::mean", "10", {{1}, true, nullptr}, "dim"), true, "10"))
          != "normalize");
}
