// The loss template (a scalar: terms of elements or rows summed in two deterministic kernels, then divided): which
// recipes it supports, defaults, parameter checks, the generated terms and plan, and real NVRTC compiles with plan
// resolution for sampled parameters.
#include "core/codegen/losstemplate.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;
using namespace kx::test;

namespace {

const LossTemplate kTemplate;

// KernelBench's smooth L1, KL divergence (batchmean), cross entropy and triplet margin losses, each with an odd
// shape set (rows and columns that are no multiple of a warp or of four).
Op huberOp()
{
    Op op;
    op.name = "huber";
    op.inputs = {tensor("predictions", {"batch_size", "dim"}), tensor("targets", {"batch_size", "dim"})};
    op.outputs = {tensor("out", {})};
    op.shapeSets = {{{"batch_size", 4096}, {"dim", 4096}}, {{"batch_size", 3}, {"dim", 1001}}};
    op.recipe = R"j({"family": "loss", "prologue": "elementwise", "reduction": "mean", "rows": "batch_size",
        "cols": "dim", "expression": "(fabsf(predictions - targets) < 1.0f ? 0.5f * fabsf(predictions - targets) * fabsf(predictions - targets) : fabsf(predictions - targets) - 0.5f)"})j";
    return op;
}

Op klOp()
{
    Op op = huberOp();
    op.name = "kl";
    op.shapeSets = {{{"batch_size", 2048}, {"dim", 4096}}, {{"batch_size", 5}, {"dim", 1000}}};
    op.recipe = R"j({"family": "loss", "prologue": "elementwise", "reduction": "batchmean", "rows": "batch_size",
        "cols": "dim", "expression": "(targets == 0.0f ? 0.0f : targets * logf(targets)) - targets * logf(predictions)"})j";
    return op;
}

Op crossEntropyOp()
{
    Op op;
    op.name = "cross_entropy";
    TensorSpec targets = tensor("targets", {"batch_size"}, "int64");
    targets.valueRange = {"0", "num_classes"};
    op.inputs = {tensor("predictions", {"batch_size", "num_classes"}), targets};
    op.outputs = {tensor("out", {})};
    op.shapeSets = {{{"batch_size", 4096}, {"num_classes", 4096}}, {{"batch_size", 33}, {"num_classes", 1001}}};
    op.recipe = R"j({"family": "loss", "prologue": "cross-entropy", "reduction": "mean", "rows": "batch_size",
        "cols": "num_classes"})j";
    return op;
}

Op tripletOp()
{
    Op op;
    op.name = "triplet";
    op.inputs = {tensor("anchor", {"batch_size", "dim"}), tensor("positive", {"batch_size", "dim"}),
                 tensor("negative", {"batch_size", "dim"})};
    op.outputs = {tensor("out", {})};
    op.shapeSets = {{{"batch_size", 4096}, {"dim", 8192}}, {{"batch_size", 7}, {"dim", 517}}};
    op.recipe = R"j({"family": "loss", "prologue": "triplet-margin", "reduction": "mean", "rows": "batch_size",
        "cols": "dim", "eps": 1e-6, "expression": "(1.0f + dpos - dneg <= 0.0f ? 0.0f : 1.0f + dpos - dneg)"})j";
    return op;
}

// KernelBench's hinge loss: targets [dim] repeat along the rows of predictions [batch_size, dim].
Op hingeOp()
{
    Op op = huberOp();
    op.name = "hinge";
    op.inputs[1].shape = {"dim"};
    op.shapeSets = {{{"batch_size", 4096}, {"dim", 4096}}, {{"batch_size", 3}, {"dim", 1002}}};
    op.recipe = R"j({"family": "loss", "prologue": "elementwise", "reduction": "mean", "rows": "batch_size",
        "cols": "dim", "expression": "(1.0f - predictions * targets <= 0.0f ? 0.0f : 1.0f - predictions * targets)"})j";
    return op;
}

std::vector<Op> lossOps()
{
    return {huberOp(), klOp(), crossEntropyOp(), tripletOp(), hingeOp()};
}

} // namespace

TEST_CASE("supports loss recipes, and is registered before the pipeline")
{
    const Op op = huberOp();
    CHECK(kTemplate.supports(op, recipeFor(op)));
    const KernelTemplate *first = nullptr;
    for (const auto *kernelTemplate : kernelTemplates())
        if (!first && kernelTemplate->supports(op, recipeFor(op)))
            first = kernelTemplate;
    REQUIRE(first != nullptr);
    CHECK(first->name() == "loss");
    Op reduce = op;
    reduce.recipe = R"j({"family": "reduce", "reduction": "sum", "rows": "batch_size", "cols": "dim"})j";
    CHECK_FALSE(kTemplate.supports(reduce, recipeFor(reduce)));
}

TEST_CASE("defaults: a warp a row for row losses, float4 loads only where every shape set allows them")
{
    const Op huber = huberOp(), kl = klOp(), crossEntropy = crossEntropyOp(), triplet = tripletOp();
    // 3 * 1001 elements are no multiple of four; 5 * 1000 are.
    CHECK(kTemplate.defaults(huber, recipeFor(huber))
          == Params{{"block", 256}, {"vec", 1}, {"unroll", 2}, {"partials", 1024}, {"fastMath", 0}});
    CHECK(kTemplate.defaults(kl, recipeFor(kl)).at("vec") == 4);
    const Params rows = kTemplate.defaults(crossEntropy, recipeFor(crossEntropy));
    CHECK(rows.at("mapping") == 0);
    CHECK(rows.at("online") == 1);
    CHECK(rows.at("vec") == 1); // 1001 classes
    CHECK_FALSE(kTemplate.defaults(triplet, recipeFor(triplet)).count("online"));
}

TEST_CASE("check() names what does not fit")
{
    const Op op = crossEntropyOp();
    const Params good = kTemplate.defaults(op, recipeFor(op));
    CHECK(kTemplate.check(op, recipeFor(op), good).empty());
    CHECK(kTemplate.check(op, recipeFor(op), with(good, {{"vec", 4}})).find("divisible") != std::string::npos);
    CHECK(kTemplate.check(op, recipeFor(op), with(good, {{"partials", 300}}))
          == "most blocks (partial sums) of the first kernel 300 is not one of the allowed values");

    // Without the value range the trials would fill the targets with any integer.
    Op unranged = op;
    unranged.inputs[1].valueRange.clear();
    CHECK(kTemplate.check(unranged, recipeFor(unranged), good)
          == "the targets targets need the value range [0, num_classes) so that the trials draw class indices");
    Op floatTargets = op;
    floatTargets.inputs[1].dtype = "float32";
    CHECK(kTemplate.check(floatTargets, recipeFor(floatTargets), good)
          == "the targets targets must be int64 [batch_size]");

    Op perRow = op;
    perRow.outputs = {tensor("out", {"batch_size"})};
    CHECK(kTemplate.check(perRow, recipeFor(perRow), good) == "a loss writes one float32 scalar");
    Op unknown = op;
    unknown.recipe = R"j({"family": "loss", "prologue": "cross-entropy", "reduction": "none", "rows": "batch_size",
        "cols": "num_classes"})j";
    CHECK(kTemplate.check(unknown, recipeFor(unknown), good)
          == "unknown loss reduction 'none' (mean, sum or batchmean)");
    Op hinge = huberOp();
    hinge.recipe = R"j({"family": "loss", "prologue": "hinge", "reduction": "mean"})j";
    CHECK(kTemplate.check(hinge, recipeFor(hinge), good).find("unknown loss prologue 'hinge'") == 0);
    Op statements = huberOp();
    statements.recipe = R"j({"family": "loss", "prologue": "elementwise", "reduction": "mean", "rows": "batch_size",
        "expression": "predictions; }"})j";
    const Params elementwise = kTemplate.defaults(statements, recipeFor(huberOp()));
    CHECK(kTemplate.check(statements, recipeFor(statements), elementwise) == "the term must be one expression");
    Op mixed = huberOp();
    mixed.inputs[1].shape = {"batch_size"}; // the leading dimension: no repeat of the last ones
    CHECK(kTemplate.check(mixed, recipeFor(mixed), elementwise)
          == "an elementwise loss reads float32 inputs of the first one's shape or of its last dimensions (targets is "
             "neither)");
    Op clash = huberOp();
    clash.inputs[1].name = "acc";
    CHECK(kTemplate.check(clash, recipeFor(clash), elementwise)
          == "input name acc cannot be used in the generated code");
}

TEST_CASE("two kernels: partial sums of the terms a block, then one block adds them in order and divides")
{
    const Op kl = klOp();
    const auto klKernel = kTemplate.generate(kl, recipeFor(kl), kTemplate.defaults(kl, recipeFor(kl)));
    CHECK(klKernel.source.find("acc += (targets == 0.0f ? 0.0f : targets * logf(targets)) - targets * "
                               "logf(predictions);")
          != std::string::npos);
    CHECK(klKernel.source.find("atomic") == std::string::npos); // deterministic: no atomics
    const auto plan = nlohmann::json::parse(klKernel.launchPlan);
    REQUIRE(plan["steps"].size() == 2);
    CHECK(plan["steps"][0]["kernel"] == "loss_partials");
    CHECK(plan["steps"][0]["grid"][0] == "min(ceil_div(batch_size*dim, 1024), 1024)");
    CHECK(plan["steps"][1]["kernel"] == "loss_finish");
    CHECK(plan["steps"][1]["grid"][0] == "1");
    CHECK(plan["steps"][1]["args"][2]["int"] == plan["steps"][0]["grid"][0]); // every partial, no more
    CHECK(plan["steps"][1]["args"][3]["int"] == "batch_size");                // batchmean
    CHECK(plan["scratch"][0]["name"] == "partials");
    CHECK(plan["scratch"][0]["bytes"] == "4*1024");

    const Op huber = huberOp();
    const auto huberPlan = nlohmann::json::parse(
        kTemplate.generate(huber, recipeFor(huber), kTemplate.defaults(huber, recipeFor(huber))).launchPlan);
    CHECK(huberPlan["steps"][1]["args"][3]["int"] == "batch_size*dim"); // mean over every element

    const Op crossEntropy = crossEntropyOp();
    const auto ce = kTemplate.generate(crossEntropy, recipeFor(crossEntropy),
                                       kTemplate.defaults(crossEntropy, recipeFor(crossEntropy)));
    CHECK(ce.source.find("const long long t = targets[row];") != std::string::npos);
    CHECK(ce.source.find("rowMax + logf(s) - in[t] : __int_as_float(0x7fffffff)") != std::string::npos);
    const auto cePlan = nlohmann::json::parse(ce.launchPlan);
    CHECK(cePlan["steps"][0]["grid"][0] == "min(ceil_div(batch_size, 8), 1024)"); // eight warps a block
    CHECK(cePlan["steps"][1]["args"][3]["int"] == "batch_size");

    const Op triplet = tripletOp();
    const auto tripletKernel = kTemplate.generate(
        triplet, recipeFor(triplet), with(kTemplate.defaults(triplet, recipeFor(triplet)), {{"mapping", 1}}));
    CHECK(tripletKernel.source.find("const float eps = 1.000000000e-06f;") != std::string::npos);
    CHECK(tripletKernel.source.find("const float dpos = sqrtf(blockSum(sp, shared));") != std::string::npos);
    CHECK(tripletKernel.source.find("const float term = (1.0f + dpos - dneg <= 0.0f ? 0.0f : 1.0f + dpos - dneg);")
          != std::string::npos);
    CHECK(nlohmann::json::parse(tripletKernel.launchPlan)["steps"][0]["grid"][0] == "min(batch_size, 1024)");

    // An input of the last dimensions repeats: read at the element's index modulo its size, given in the plan.
    const Op hinge = hingeOp();
    const Params scalar = kTemplate.defaults(hinge, recipeFor(hinge));
    CHECK(scalar.at("vec") == 1); // 3 * 1002 elements and 1002 targets: no fours in the odd set
    const auto hingeKernel = kTemplate.generate(hinge, recipeFor(hinge), scalar);
    CHECK(hingeKernel.source.find("const float targets = targets_ptr[i % targets_n];") != std::string::npos);
    CHECK(hingeKernel.source.find("const float predictions = predictions_ptr[i];") != std::string::npos);
    const auto hingePlan = nlohmann::json::parse(hingeKernel.launchPlan);
    CHECK(hingePlan["steps"][0]["args"][4]["int"] == "dim");
    CHECK(hingePlan["steps"][1]["args"][3]["int"] == "batch_size*dim");
    Op even = hinge;
    even.shapeSets = {{{"batch_size", 4096}, {"dim", 4096}}, {{"batch_size", 3}, {"dim", 1004}}};
    CHECK(kTemplate.generate(even, recipeFor(even), kTemplate.defaults(even, recipeFor(even)))
              .source.find("reinterpret_cast<const float4 *>(targets_ptr)[i4 % (targets_n / 4)]")
          != std::string::npos);
    Op oddTargets = hinge;
    oddTargets.shapeSets = {{{"batch_size", 4}, {"dim", 1002}}}; // 4008 elements in fours, 1002 targets not
    CHECK(kTemplate.check(oddTargets, recipeFor(oddTargets), with(scalar, {{"vec", 4}})).find("1002 is not")
          != std::string::npos);

    for (const Op &op : lossOps()) {
        const std::string unstated =
            unstatedParameters(kTemplate, op, kTemplate.defaults(op, recipeFor(op)),
                               kTemplate.generate(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op))).source);
        CHECK_MESSAGE(unstated.empty(), unstated);
    }
}

TEST_CASE("sampled parameters compile and resolve" * needsNvrtc())
{
    CHECK(checkSampledVariantsCompile(kTemplate, lossOps(), 7, 6) == 5 * 7);
}
