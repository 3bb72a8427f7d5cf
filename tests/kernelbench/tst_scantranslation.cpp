// Scans in traced graphs (the graphs of KernelBench's level-1 scans: cumsum, cumprod, flip-cumsum-flip, the
// exclusive cumsum built of narrow and cat, the masked cumsum over a bool mask) become scan recipes whose first
// candidate compiles; what does not fit says why.
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/opcost.h"
#include "core/kernelbench/scantranslation.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

using namespace kx;

namespace {

using Json = nlohmann::json;
using Shape = std::vector<std::int64_t>;

Json tensorArg(const std::string &value, const Shape &shape, const std::string &dtype = "float32")
{
    return {{"value", value}, {"shape", shape}, {"dtype", dtype}};
}

Json constant(Json value)
{
    return {{"const", std::move(value)}};
}

Json call(const std::string &kind, Json inputs, Json outputs)
{
    return {{"kind", kind}, {"inputs", std::move(inputs)}, {"outputs", std::move(outputs)}};
}

// The graph of the calls with the inputs x (and mask), returning `result`.
OpGraph graphOf(const std::vector<Json> &calls, const std::string &result, bool masked = false)
{
    Json inputs = Json::array({{{"value", "x"}, {"name", "x"}}});
    if (masked)
        inputs.push_back({{"value", "mask"}, {"name", "mask"}});
    auto graph = opGraphFromJson({{"inputs", inputs}, {"outputs", {result}}, {"nodes", calls}});
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

Op opOf(std::vector<std::string> shape, std::vector<ShapeSet> shapeSets, bool masked = false)
{
    Op op;
    op.name = "kb/scan";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {{"x", shape, "float32"}};
    if (masked)
        op.inputs.push_back({"mask", shape, "bool"});
    op.outputs = {{"out", shape, "float32"}};
    op.shapeSets = std::move(shapeSets);
    return op;
}

const Shape kRows{64, 4000};

Op rowsOp(bool masked = false)
{
    return opOf({"batch_size", "4000"}, {{{"batch_size", 64}}, {{"batch_size", 32}}}, masked);
}

Json cumsum(const std::string &in, const std::string &out, const Shape &shape = kRows, std::int64_t dim = 1,
            const std::string &kind = "aten::cumsum")
{
    return call(kind, {tensorArg(in, shape), constant(dim), constant(nullptr)}, {tensorArg(out, shape)});
}

Json flip(const std::string &in, const std::string &out, std::int64_t dim)
{
    return call("aten::flip", {tensorArg(in, kRows), constant(Json::array({dim}))}, {tensorArg(out, kRows)});
}

OpRecipe translated(const OpGraph &graph, const Op &op, Op *result = nullptr)
{
    const auto translation = GraphTranslator().translate(graph, op);
    REQUIRE_MESSAGE(translation, (translation ? "" : translation.error().message));
    const auto problem = test::translationProblem(*translation);
    if (problem != "skip")
        CHECK_MESSAGE(problem.empty(), problem);
    if (result)
        *result = *translation;
    const auto recipe = recipeOf(*translation);
    REQUIRE(recipe);
    CHECK(recipe->family == "scan");
    return *recipe;
}

std::string failure(const OpGraph &graph, const Op &op)
{
    const auto translation = GraphTranslator().translate(graph, op);
    REQUIRE_FALSE(translation);
    return translation.error().message;
}

// KernelBench's exclusive cumsum: cat((zeros_like(x.select(1, 0).unsqueeze(1)), cumsum(x.narrow(1, 0, n - 1), 1)),
// 1), with the trace's integer arithmetic for n - 1.
std::vector<Json> exclusiveCalls(Json parts)
{
    const Shape head{64, 3999}, column{64, 1};
    return {
        call("aten::size", {tensorArg("x", kRows), constant(1)}, {{{"value", "11"}, {"type", "int"}}}),
        call("prim::NumToTensor", {constant(nullptr)}, {tensorArg("12", {}, "int64")}),
        call("aten::sub", {tensorArg("12", {}, "int64"), constant(1), constant(1)}, {tensorArg("13", {}, "int64")}),
        call("aten::Int", {tensorArg("13", {}, "int64")}, {{{"value", "14"}, {"type", "int"}}}),
        call("aten::narrow", {tensorArg("x", kRows), constant(1), constant(0), constant(nullptr)},
             {tensorArg("15", head)}),
        cumsum("15", "cumsum", head),
        call("aten::select", {tensorArg("x", kRows), constant(1), constant(0)}, {tensorArg("17", {64})}),
        call("aten::unsqueeze", {tensorArg("17", {64}), constant(1)}, {tensorArg("18", column)}),
        call("aten::zeros_like",
             {tensorArg("18", column), constant(6), constant(0), constant("cpu"), constant(false), constant(nullptr)},
             {tensorArg("19", column)}),
        call("aten::cat", {constant(std::move(parts)), constant(1)}, {tensorArg("21", kRows)}),
    };
}

} // namespace

TEST_CASE("cumsum and cumprod along the rows are inclusive scans; a sum's tolerance grows with the row")
{
    Op op;
    const auto sum = translated(graphOf({cumsum("x", "6")}, "6"), rowsOp(), &op);
    CHECK(graphFlopsExpression(graphOf({cumsum("x", "6")}, "6"), rowsOp()) == "batch_size * 4000");
    CHECK(sum.reduction == "sum");
    CHECK(sum.rows == "batch_size");
    CHECK(sum.cols == "4000");
    CHECK(sum.inner == "1");
    CHECK(sum.prologue.empty());
    CHECK(sum.expression.empty());
    CHECK_FALSE(sum.exclusive);
    CHECK_FALSE(sum.reverse);
    CHECK(op.policy.atol == doctest::Approx(1e-2));
    CHECK(op.policy.rtol == doctest::Approx(1e-3));

    const Shape longRows{4, 262144};
    translated(graphOf({cumsum("x", "6", longRows)}, "6"), opOf({"B", "D"}, {{{"B", 4}, {"D", 262144}}}), &op);
    CHECK(op.policy.atol == doctest::Approx(atencalls::summationAtol(262144)));
    CHECK(op.policy.atol > 1e-2);

    const auto product = translated(graphOf({cumsum("x", "6", kRows, -1, "aten::cumprod")}, "6"), rowsOp(), &op);
    CHECK(product.reduction == "prod");
    CHECK(op.policy.atol == doctest::Approx(1e-4));
}

TEST_CASE("flip, cumsum, flip is a reverse scan; flips of other dimensions are not")
{
    const auto reverse = translated(graphOf({flip("x", "7", 1), cumsum("7", "8"), flip("8", "10", -1)}, "10"), rowsOp());
    CHECK(reverse.reverse);
    CHECK_FALSE(reverse.exclusive);
    CHECK(failure(graphOf({flip("x", "7", 0), cumsum("7", "8"), flip("8", "10", 0)}, "10"), rowsOp())
          == "aten::cumsum over another dimension than the one flipped or cut");
    CHECK(failure(graphOf({flip("x", "7", 1), cumsum("7", "8")}, "8"), rowsOp())
          == "the model returns something other than a scan (and an epilogue over it)");
}

TEST_CASE("KernelBench's exclusive cumsum (a zero slice before the scan of all but the last element) is exclusive")
{
    const auto exclusive =
        translated(graphOf(exclusiveCalls(Json::array({{{"value", "19"}}, {{"value", "cumsum"}}})), "21"), rowsOp());
    CHECK(exclusive.exclusive);
    CHECK_FALSE(exclusive.reverse);
    CHECK(exclusive.reduction == "sum");
    CHECK(exclusive.cols == "4000");

    // The zeros behind the scan compute something else.
    CHECK(failure(graphOf(exclusiveCalls(Json::array({{{"value", "cumsum"}}, {{"value", "19"}}})), "21"), rowsOp())
              .find("aten::cat of other than a zero slice and the scan") == 0);
    // Bundles of older imports do not name the tensors of a list.
    CHECK(failure(graphOf(exclusiveCalls(Json::array({nullptr, nullptr})), "21"), rowsOp())
              .find("aten::cat of other than two named tensors") == 0);

    // The cut after the scan: cat((zeros, cumsum(x)[:, :-1]), 1).
    const Shape head{64, 3999}, column{64, 1};
    const std::vector<Json> sliced{
        cumsum("x", "5"),
        call("aten::slice", {tensorArg("5", kRows), constant(0), constant(0), constant(INT64_MAX), constant(1)},
             {tensorArg("6", kRows)}),
        call("aten::slice", {tensorArg("6", kRows), constant(1), constant(0), constant(-1), constant(1)},
             {tensorArg("7", head)}),
        call("aten::zeros", {constant(Json::array({64, 1})), constant(6), constant(nullptr), constant(nullptr),
                             constant(nullptr)},
             {tensorArg("8", column)}),
        call("aten::cat", {constant(Json::array({{{"value", "8"}}, {{"value", "7"}}})), constant(-1)},
             {tensorArg("9", kRows)}),
    };
    CHECK(translated(graphOf(sliced, "9"), rowsOp()).exclusive);
}

TEST_CASE("the masked cumsum reads the bool mask in its prologue; elementwise calls after the scan are its epilogue")
{
    const std::vector<Json> masked{
        call("aten::mul", {tensorArg("x", kRows), tensorArg("mask", kRows, "bool")}, {tensorArg("7", kRows)}),
        cumsum("7", "8")};
    const auto recipe = translated(graphOf(masked, "8", true), rowsOp(true));
    CHECK(recipe.prologue == "(x * mask)");
    CHECK(recipe.expression.empty());

    // cumsum(x * 2) * 0.5 + x
    const std::vector<Json> fused{
        call("aten::mul", {tensorArg("x", kRows), constant(2.0)}, {tensorArg("4", kRows)}),
        cumsum("4", "5"),
        call("aten::mul", {tensorArg("5", kRows), constant(0.5)}, {tensorArg("6", kRows)}),
        call("aten::add", {tensorArg("6", kRows), tensorArg("x", kRows), constant(1)}, {tensorArg("7", kRows)}),
    };
    const auto epilogue = translated(graphOf(fused, "7"), rowsOp());
    CHECK(epilogue.prologue == "(x * 2.0f)");
    CHECK(epilogue.expression == "((acc * 0.5f) + x)");
}

TEST_CASE("a scan along a middle dimension has the dimensions after it as inner, a product of several as a symbol")
{
    const Shape image{8, 16, 32};
    auto recipe = translated(graphOf({cumsum("x", "5", image)}, "5"),
                             opOf({"B", "C", "S"}, {{{"B", 8}, {"C", 16}, {"S", 32}}, {{"B", 4}, {"C", 16}, {"S", 32}}}));
    CHECK(recipe.rows == "B");
    CHECK(recipe.cols == "C");
    CHECK(recipe.inner == "S");

    Op op;
    const Shape volume{2, 8, 16, 32};
    recipe = translated(graphOf({cumsum("x", "5", volume, -3, "aten::cumprod")}, "5"),
                        opOf({"B", "C", "H", "W"}, {{{"B", 2}, {"C", 8}, {"H", 16}, {"W", 32}}}), &op);
    CHECK(recipe.cols == "C");
    CHECK(recipe.inner == "I");
    CHECK(op.shapeSets.front().at("I") == 16 * 32);
}

TEST_CASE("what the scan template cannot generate says why")
{
    CHECK(failure(graphOf({cumsum("x", "6"), cumsum("6", "7")}, "7"), rowsOp())
          == "more than one scan: the scan template generates one");
    const Json doubles =
        call("aten::cumsum", {tensorArg("x", kRows), constant(1), constant(7)}, {tensorArg("6", kRows, "float64")});
    CHECK(failure(graphOf({doubles}, "6"), rowsOp()).find("computes float64") != std::string::npos);
    const Json reshape = call("aten::reshape", {tensorArg("x", kRows), constant(Json::array({128, 2000}))},
                              {tensorArg("5", {128, 2000})});
    CHECK(failure(graphOf({reshape, cumsum("5", "6", {128, 2000})}, "6"), rowsOp())
          == "aten::reshape changes the shape of a value around the scan");

    // Calls no scan is made of leave the graph to the other translations, which list what they do not know.
    const Json fft = call("aten::fft_fft", {tensorArg("x", kRows)}, {tensorArg("5", kRows)});
    const OpGraph graph = graphOf({fft, cumsum("5", "6")}, "6");
    CHECK_FALSE(ScanTranslator::appliesTo(graph));
    CHECK(failure(graph, rowsOp()).find("unsupported calls: aten::fft_fft, aten::cumsum") == 0);
    CHECK(ScanTranslator::appliesTo(graphOf({cumsum("x", "6")}, "6")));
}
