// Losses in traced graphs (the graphs of KernelBench's level-1 cross entropy, smooth L1, KL divergence and triplet
// margin losses, as the import traces them) become loss recipes whose first candidate compiles; what does not fit
// says why.
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/losstranslation.h"
#include "core/kernelbench/opcost.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

using namespace kx;

namespace {

using Json = nlohmann::json;
using Shape = std::vector<std::int64_t>;

const Shape kMatrix{96, 1000};

Json tensorArg(const std::string &value, const Shape &shape, const std::string &dtype = "float32")
{
    return {{"value", value}, {"shape", shape}, {"dtype", dtype}};
}

Json constant(Json value)
{
    return {{"const", std::move(value)}};
}

Json call(const std::string &kind, Json inputs, Json outputs, const std::string &overload = {})
{
    Json node{{"kind", kind}, {"inputs", std::move(inputs)}, {"outputs", std::move(outputs)}};
    if (!overload.empty())
        node["overload"] = overload;
    return node;
}

OpGraph graphOf(const std::vector<std::string> &inputs, const std::vector<Json> &calls, const std::string &result)
{
    Json names = Json::array();
    for (const auto &input : inputs)
        names.push_back({{"value", input + ".1"}, {"name", input}});
    auto graph = opGraphFromJson({{"inputs", names}, {"outputs", {result}}, {"nodes", calls}});
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

Op lossOp(const std::vector<TensorSpec> &inputs, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = "kb/loss";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = inputs;
    op.outputs = {{"out", {}, "float32"}};
    op.shapeSets = std::move(shapeSets);
    return op;
}

Op pairOp()
{
    return lossOp({{"predictions", {"batch_size", "1000"}, "float32"}, {"targets", {"batch_size", "1000"}, "float32"}},
                  {{{"batch_size", 96}}, {{"batch_size", 48}}});
}

// F.smooth_l1_loss(predictions, targets): broadcast_tensors and ListUnpack, then the loss (reduction 1: mean).
OpGraph smoothL1Graph(const Shape &unpacked = kMatrix, Json beta = 1.0, std::int64_t reduction = 1)
{
    return graphOf({"predictions", "targets"},
                   {call("aten::broadcast_tensors",
                         {constant(Json::array({{{"value", "predictions.1"}}, {{"value", "targets.1"}}}))},
                         {{{"value", "8"}, {"type", "List[Tensor]"}}}),
                    call("prim::ListUnpack", {constant(nullptr)},
                         {tensorArg("input", unpacked), tensorArg("target", unpacked)}),
                    call("aten::smooth_l1_loss",
                         {tensorArg("input", unpacked), tensorArg("target", unpacked), constant(reduction),
                          constant(std::move(beta))},
                         {tensorArg("11", {})})},
                   "11");
}

// F.kl_div(torch.log(predictions), targets, reduction='batchmean'): a summed kl_div divided by size(input, 0).
OpGraph klGraph(std::int64_t sizeDim = 0, std::int64_t reduction = 2)
{
    return graphOf({"predictions", "targets"},
                   {call("aten::log", {tensorArg("predictions.1", kMatrix)}, {tensorArg("input", kMatrix)}),
                    call("aten::kl_div",
                         {tensorArg("input", kMatrix), tensorArg("targets.1", kMatrix), constant(reduction),
                          constant(false)},
                         {tensorArg("reduced", {})}),
                    call("aten::size", {tensorArg("input", kMatrix), constant(sizeDim)},
                         {{{"value", "10"}, {"type", "int"}}}, "int"),
                    call("prim::NumToTensor", {constant(nullptr)}, {tensorArg("11", {}, "int64")}, "Scalar"),
                    call("aten::div", {tensorArg("reduced", {}), tensorArg("11", {}, "int64")}, {tensorArg("12", {})},
                         "Tensor")},
                   "12");
}

Op crossEntropyOp()
{
    return lossOp({{"predictions", {"batch_size", "num_classes"}, "float32"}, {"targets", {"batch_size"}, "int64"}},
                  {{{"batch_size", 96}, {"num_classes", 1000}}, {{"batch_size", 48}, {"num_classes", 1000}}});
}

// F.cross_entropy(predictions, targets): weight None, mean, ignore_index -100, no label smoothing.
OpGraph crossEntropyGraph(Json weight = constant(nullptr), std::int64_t ignoreIndex = -100, double smoothing = 0.0,
                          const std::string &targetType = "int64")
{
    return graphOf({"predictions", "targets"},
                   {call("aten::cross_entropy_loss",
                         {tensorArg("predictions.1", kMatrix), tensorArg("targets.1", {96}, targetType),
                          std::move(weight), constant(1), constant(ignoreIndex), constant(smoothing)},
                         {tensorArg("9", {})})},
                   "9");
}

Op tripletOp()
{
    const std::vector<std::string> shape{"batch_size", "520"};
    return lossOp({{"anchor", shape, "float32"}, {"positive", shape, "float32"}, {"negative", shape, "float32"}},
                  {{{"batch_size", 96}}, {{"batch_size", 48}}});
}

OpGraph tripletGraph(double p = 2.0, bool swap = false)
{
    const Shape shape{96, 520};
    return graphOf({"anchor", "positive", "negative"},
                   {call("aten::triplet_margin_loss",
                         {tensorArg("anchor.1", shape), tensorArg("positive.1", shape), tensorArg("negative.1", shape),
                          constant(1.0), constant(p), constant(1e-6), constant(swap), constant(1)},
                         {tensorArg("12", {})})},
                   "12");
}

Expected<Op> translate(const OpGraph &graph, const Op &op)
{
    return GraphTranslator().translate(graph, op);
}

OpRecipe recipeOf(const Expected<Op> &op)
{
    REQUIRE_MESSAGE(op, (op ? "" : op.error().message));
    const auto recipe = kx::recipeOf(*op);
    REQUIRE(recipe);
    return *recipe;
}

std::string errorOf(const Expected<Op> &op)
{
    REQUIRE_FALSE(op);
    return op.error().message;
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("smooth L1 after broadcast_tensors is an elementwise term, averaged over every element")
{
    const auto op = translate(smoothL1Graph(), pairOp());
    const auto recipe = recipeOf(op);
    CHECK(recipe.family == "loss");
    CHECK(recipe.prologue == "elementwise");
    CHECK(recipe.reduction == "mean");
    CHECK(recipe.rows == "batch_size");
    CHECK(recipe.expression
          == "(fabsf(predictions - targets) < 1.0f ? 0.5f * fabsf(predictions - targets) * fabsf(predictions - "
             "targets) / 1.0f : fabsf(predictions - targets) - 0.5f)");
    CHECK_FALSE(op->policy.allowLibrarySteps);
    CHECK(op->policy.rtol == doctest::Approx(1e-3));
    CHECK(test::translationProblem(*op) == "");
    // beta 0 is the L1 loss; a sum keeps the total.
    const auto l1 = recipeOf(translate(smoothL1Graph(kMatrix, 0.0, 2), pairOp()));
    CHECK(l1.expression == "fabsf(predictions - targets)");
    CHECK(l1.reduction == "sum");
}

TEST_CASE("smooth L1 is refused where its operands broadcast or it is not reduced")
{
    CHECK(contains(errorOf(translate(smoothL1Graph({96, 96, 1000}), pairOp())), "broadcast to [96, 96, 1000]"));
    CHECK(contains(errorOf(translate(smoothL1Graph(kMatrix, 1.0, 0), pairOp())),
                   "aten::smooth_l1_loss without a reduction is elementwise"));
}

TEST_CASE("KL divergence with the log of the predictions fused into the term, divided by the batch")
{
    const auto op = translate(klGraph(), pairOp());
    const auto recipe = recipeOf(op);
    CHECK(recipe.prologue == "elementwise");
    CHECK(recipe.reduction == "batchmean");
    CHECK(recipe.expression == "(targets == 0.0f ? 0.0f : targets * logf(targets)) - targets * (logf(predictions))");
    CHECK(test::translationProblem(*op) == "");
    // reduction='mean' divides by every element; a division by another dimension is refused.
    CHECK(recipeOf(translate(graphOf({"predictions", "targets"},
                                     {call("aten::log", {tensorArg("predictions.1", kMatrix)},
                                           {tensorArg("input", kMatrix)}),
                                      call("aten::kl_div",
                                           {tensorArg("input", kMatrix), tensorArg("targets.1", kMatrix), constant(1),
                                            constant(false)},
                                           {tensorArg("r", {})})},
                                     "r"),
                             pairOp()))
              .reduction
          == "mean");
    CHECK(contains(errorOf(translate(klGraph(1), pairOp())), "another size than its batch"));
    CHECK(contains(errorOf(translate(klGraph(0, 1), pairOp())), "another size than its batch"));
}

TEST_CASE("cross entropy: a row term over the logits, and the targets drawn from the classes")
{
    const auto op = translate(crossEntropyGraph(), crossEntropyOp());
    const auto recipe = recipeOf(op);
    CHECK(recipe.prologue == "cross-entropy");
    CHECK(recipe.reduction == "mean");
    CHECK(recipe.rows == "batch_size");
    CHECK(recipe.cols == "num_classes");
    CHECK(op->inputs[1].valueRange == std::vector<std::string>{"0", "num_classes"});
    CHECK(op->inputs[0].valueRange.empty());
    CHECK(test::translationProblem(*op) == "");
}

TEST_CASE("cross entropy is refused with weights, an ignore_index among the classes, smoothing or soft targets")
{
    CHECK(contains(errorOf(translate(crossEntropyGraph(tensorArg("w.1", {1000})), crossEntropyOp())),
                   "class weights"));
    CHECK(contains(errorOf(translate(crossEntropyGraph(constant(nullptr), 3), crossEntropyOp())),
                   "ignore_index inside the classes"));
    CHECK(contains(errorOf(translate(crossEntropyGraph(constant(nullptr), -100, 0.1), crossEntropyOp())), "label smoothing"));
    CHECK(contains(errorOf(translate(crossEntropyGraph(constant(nullptr), -100, 0.0, "float32"), crossEntropyOp())),
                   "int64 class indices"));
}

TEST_CASE("triplet margin loss: the hinge of the two Euclidean distances a row, eps and margin from the call")
{
    const auto op = translate(tripletGraph(), tripletOp());
    const auto recipe = recipeOf(op);
    CHECK(recipe.prologue == "triplet-margin");
    CHECK(recipe.reduction == "mean");
    CHECK(recipe.cols == "520");
    CHECK(recipe.eps == doctest::Approx(1e-6));
    CHECK(recipe.expression == "(1.0f + dpos - dneg <= 0.0f ? 0.0f : 1.0f + dpos - dneg)");
    CHECK(test::translationProblem(*op) == "");
    CHECK(contains(errorOf(translate(tripletGraph(1.0), tripletOp())), "p other than 2"));
    CHECK(contains(errorOf(translate(tripletGraph(2.0, true), tripletOp())), "swap"));
}

TEST_CASE("only graphs that call a loss go to the loss translation")
{
    CHECK(LossTranslator::appliesTo(tripletGraph()));
    CHECK_FALSE(LossTranslator::appliesTo(graphOf(
        {"predictions"}, {call("aten::relu", {tensorArg("predictions.1", kMatrix)}, {tensorArg("r", kMatrix)})},
        "r")));
}

// torch.mean((predictions - targets) ** 2) (KernelBench's 94) and a hinge whose targets broadcast (100).
OpGraph meanGraph(const Shape &targets = kMatrix, const std::string &kind = "aten::sub")
{
    return graphOf({"predictions", "targets"},
                   {call(kind, {tensorArg("predictions.1", kMatrix), tensorArg("targets.1", targets), constant(1)},
                         {tensorArg("8", kMatrix)}, "Tensor"),
                    call("aten::pow", {tensorArg("8", kMatrix), constant(2)}, {tensorArg("9", kMatrix)},
                         "Tensor_Scalar"),
                    call("aten::mean", {tensorArg("9", kMatrix), constant(nullptr)}, {tensorArg("10", {})})},
                   "10");
}

TEST_CASE("a mean of elementwise calls over everything is an elementwise loss, inputs of the last dimensions repeated")
{
    const auto op = translate(meanGraph(), pairOp());
    const auto recipe = recipeOf(op);
    CHECK(recipe.family == "loss");
    CHECK(recipe.prologue == "elementwise");
    CHECK(recipe.reduction == "mean");
    CHECK(recipe.expression.find("predictions - targets") != std::string::npos);
    CHECK_FALSE(op->policy.allowLibrarySteps);
    CHECK(test::translationProblem(*op) == "");
    CHECK(LossTranslator::appliesTo(meanGraph()));

    // targets [1000] against [96, 1000] (KernelBench's hinge): repeated along the rows.
    Op trailing = pairOp();
    trailing.inputs[1].shape = {"1000"};
    const auto repeated = translate(meanGraph({1000}, "aten::mul"), trailing);
    CHECK(recipeOf(repeated).family == "loss");
    CHECK(test::translationProblem(*repeated) == "");
    // targets [96, 1] repeat along the columns: the loss template does not, the pipeline broadcasts them.
    Op rows = pairOp();
    rows.inputs[1].shape = {"batch_size", "1"};
    CHECK(recipeOf(translate(meanGraph({96, 1}, "aten::mul"), rows)).family == "pipeline");
}

// The roofline's floor counts the losses' arithmetic (the broadcast bookkeeping of smooth L1 adds none).
TEST_CASE("the losses' FLOPs: a few an element of the first operand")
{
    CHECK(graphFlopsExpression(smoothL1Graph(), pairOp()) == "5 * batch_size * 1000");
    CHECK(graphFlopsExpression(klGraph(), pairOp()) == "batch_size * 1000 + 4 * batch_size * 1000 + 1");
    CHECK(graphFlopsExpression(crossEntropyGraph(), crossEntropyOp()) == "4 * batch_size * num_classes");
    CHECK(graphFlopsExpression(tripletGraph(), tripletOp()) == "6 * batch_size * 520");
}
