// The window stages of the pipeline template (direct convolution and pooling): output sizes against
// PyTorch's, the stage JSON, check() messages, the parameters they add, and real NVRTC compiles with plan
// resolution for sm_80 and sm_90; and the NaN rule of the pipeline's reduce stages.
#include "core/codegen/pipeline.h"
#include "core/codegen/pipelinetemplate.h"
#include "core/codegen/windowstages.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

PipelineStage convStage(std::vector<std::int64_t> kernel, std::vector<std::int64_t> stride,
                        std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation, std::int64_t groups = 1,
                        std::vector<std::int64_t> outputPadding = {})
{
    PipelineStage stage;
    stage.kind = PipelineStage::Kind::Conv;
    stage.window.kernel = std::move(kernel);
    stage.window.stride = std::move(stride);
    stage.window.padding = std::move(padding);
    stage.window.dilation = std::move(dilation);
    stage.window.groups = groups;
    stage.window.transposed = !outputPadding.empty();
    stage.window.outputPadding =
        outputPadding.empty() ? std::vector<std::int64_t>(stage.window.kernel.size(), 0) : std::move(outputPadding);
    return stage;
}

PipelineStage poolStage(const std::string &pooling, std::vector<std::int64_t> kernel, std::vector<std::int64_t> stride,
                        std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation, bool ceilMode,
                        bool countIncludePad = true)
{
    PipelineStage stage = convStage(std::move(kernel), std::move(stride), std::move(padding), std::move(dilation));
    stage.kind = PipelineStage::Kind::Pool;
    stage.reduction = pooling;
    stage.window.ceilMode = ceilMode;
    stage.window.countIncludePad = countIncludePad;
    return stage;
}

// An op of one window stage: x [B, C, spatial...] (and weight, bias) to out.
Op windowOp(PipelineStage stage, std::vector<TensorSpec> inputs, TensorSpec output, std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = "window_test";
    for (const auto &input : inputs)
        stage.operands.push_back({input.name, input.shape});
    stage.outputs = {{output.name, output.shape}};
    op.inputs = std::move(inputs);
    op.outputs = {std::move(output)};
    op.shapeSets = std::move(shapeSets);
    OpRecipe recipe;
    recipe.family = "pipeline";
    recipe.stages = toJson(std::vector<PipelineStage>{stage}).dump();
    op.recipe = toJson(recipe);
    return op;
}

std::vector<Op> windowOps()
{
    return {
        // A 2-D grouped, padded convolution with bias; the second shape set halves the batch.
        windowOp(convStage({3, 5}, {1, 1}, {1, 2}, {1, 1}, 2),
                 {tensor("x", {"B", "CI", "H", "W"}), tensor("weight", {"CO", "4", "3", "5"}), tensor("bias", {"CO"})},
                 tensor("out", {"B", "CO", "H", "W"}),
                 {{{"B", 6}, {"CI", 8}, {"CO", 12}, {"H", 17}, {"W", 19}},
                  {{"B", 3}, {"CI", 8}, {"CO", 12}, {"H", 17}, {"W", 19}}}),
        // A 1-D strided, dilated convolution without bias.
        windowOp(convStage({3}, {2}, {0}, {2}), {tensor("x", {"B", "CI", "L"}), tensor("weight", {"CO", "CI", "3"})},
                 tensor("out", {"B", "CO", "36"}), {{{"B", 4}, {"CI", 6}, {"CO", 10}, {"L", 75}}}),
        // A 3-D transposed convolution with stride, padding, output padding and groups.
        windowOp(convStage({3, 2, 3}, {2, 1, 3}, {1, 0, 1}, {1, 1, 1}, 2, {1, 0, 2}),
                 {tensor("x", {"B", "CI", "4", "5", "6"}), tensor("weight", {"CI", "4", "3", "2", "3"})},
                 tensor("out", {"B", "8", "8", "6", "18"}), {{{"B", 2}, {"CI", 6}}}),
        // 2-D max pooling with dilation and ceil_mode, and 3-D average pooling without the padding in the divisor.
        windowOp(poolStage("max", {3, 3}, {2, 2}, {1, 1}, {2, 2}, true), {tensor("x", {"B", "C", "21", "18"})},
                 tensor("out", {"B", "C", "10", "9"}), {{{"B", 4}, {"C", 6}}, {{"B", 2}, {"C", 6}}}),
        windowOp(poolStage("avg", {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, true, false),
                 {tensor("x", {"B", "C", "9", "12", "11"})}, tensor("out", {"B", "C", "5", "7", "6"}),
                 {{{"B", 2}, {"C", 4}}}),
    };
}

const PipelineTemplate kTemplate;

} // namespace

TEST_CASE("output sizes follow PyTorch's formulas")
{
    // Expected sizes from torch.nn.functional.conv1d / conv_transpose1d / max_pool1d.
    struct Case
    {
        PipelineStage stage;
        std::int64_t input, output;
    };
    const Case cases[] = {
        {convStage({3}, {2}, {0}, {2}), 75, 36},
        {convStage({3}, {1}, {1}, {1}), 17, 17},
        {convStage({11}, {4}, {2}, {1}), 224, 55},
        {convStage({3}, {3}, {0}, {4}), 524280, 174758},
        {convStage({3}, {2}, {1}, {1}), 10, 5},
        {convStage({3}, {2}, {1}, {2}, 1, {1}), 9, 20},
        {convStage({4}, {3}, {2}, {1}, 1, {2}), 11, 32},
        {convStage({4}, {3}, {2}, {2}, 1, {0}), 33, 99},
        {convStage({3}, {5}, {1}, {2}, 1, {0}), 64, 318},
        {convStage({3}, {2}, {1}, {1}, 1, {1}), 16, 32},
        {poolStage("max", {3}, {2}, {1}, {2}, true), 21, 10},
        {poolStage("max", {3}, {2}, {1}, {2}, true), 18, 9},
        {poolStage("max", {8}, {1}, {4}, {3}, false), 65536, 65523},
        {poolStage("max", {3}, {2}, {1}, {3}, false), 128, 62},
        {poolStage("max", {4}, {3}, {2}, {1}, true), 20, 8},
        {poolStage("max", {2}, {2}, {0}, {1}, true), 10, 5},
        // ceil_mode: a last window that would start in the right padding is dropped.
        {poolStage("max", {3}, {3}, {1}, {1}, true), 5, 2},
        {poolStage("max", {2}, {4}, {1}, {1}, true), 6, 2},
    };
    for (const auto &c : cases) {
        CAPTURE(c.input);
        CAPTURE(c.output);
        CHECK(windowstages::outputSize(c.stage, 0, c.input) == c.output);
    }
    // A window wider than the padded input has no output.
    CHECK_FALSE(windowstages::outputSize(convStage({13}, {1}, {1}, {1}), 0, 10).has_value());
}

TEST_CASE("conv and pool stages keep their windows through JSON")
{
    for (const auto &op : windowOps()) {
        const auto recipe = recipeFor(op);
        const auto stages = pipelineFromJson(nlohmann::json::parse(recipe.stages));
        REQUIRE_MESSAGE(stages, (stages ? "" : stages.error().message));
        CHECK(toJson(*stages).dump() == recipe.stages);
    }
    auto broken = nlohmann::json::parse(recipeFor(windowOps().front()).stages);
    broken[0]["window"]["stride"] = {1, 1, 1};
    const auto refused = pipelineFromJson(broken);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "stage 1: the window's stride has 3 entries for a kernel of 2 dimensions");
}

TEST_CASE("window stages add the channels-per-thread and tap-unrolling knobs; defaults fit the groups")
{
    const auto ops = windowOps();
    const auto names = [&](const Op &op) {
        std::vector<std::string> list;
        for (const auto &definition : kTemplate.parameters(op, recipeFor(op)))
            list.push_back(definition.name);
        return list;
    };
    CHECK(names(ops[0]) == std::vector<std::string>{"block", "items", "fastMath", "convChannels", "tapUnroll"});
    CHECK(names(ops[3]) == std::vector<std::string>{"block", "items", "fastMath", "tapUnroll"});
    // 12 / 2 = 6 output channels per group: 4 does not divide them, 2 does.
    CHECK(kTemplate.defaults(ops[0], recipeFor(ops[0])).at("convChannels") == 2);
    CHECK(kTemplate.defaults(ops[1], recipeFor(ops[1])).at("convChannels") == 2);
    CHECK(kTemplate.defaults(ops[2], recipeFor(ops[2])).at("convChannels") == 4);
    for (const auto &op : ops)
        CHECK(kTemplate.check(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op))) == "");
}

TEST_CASE("check() names the parameter or dimension at fault")
{
    const auto ops = windowOps();
    const auto &conv = ops[0];
    auto params = kTemplate.defaults(conv, recipeFor(conv));
    CHECK(kTemplate.check(conv, recipeFor(conv), with(params, {{"convChannels", 4}}))
          == "stage 1: 4 output channels per thread do not divide the 6 output channels of a group (shape set 1)");

    const auto wrongOutput =
        windowOp(convStage({3}, {2}, {0}, {2}), {tensor("x", {"B", "CI", "L"}), tensor("weight", {"CO", "CI", "3"})},
                 tensor("out", {"B", "CO", "37"}), {{{"B", 4}, {"CI", 6}, {"CO", 10}, {"L", 75}}});
    CHECK(kTemplate.check(wrongOutput, recipeFor(wrongOutput), kTemplate.defaults(wrongOutput, recipeFor(wrongOutput)))
          == "stage 1: shape set 1: spatial dimension 1 of out is 37, the window gives 36");

    // The kernel size is compiled in: a weight whose kernel dimension follows a symbol that changes is refused.
    const auto moving =
        windowOp(convStage({3}, {1}, {0}, {1}), {tensor("x", {"B", "CI", "L"}), tensor("weight", {"CO", "CI", "B"})},
                 tensor("out", {"B", "CO", "8"}),
                 {{{"B", 3}, {"CI", 2}, {"CO", 2}, {"L", 10}}, {{"B", 2}, {"CI", 2}, {"CO", 2}, {"L", 10}}});
    CHECK(kTemplate.check(moving, recipeFor(moving), kTemplate.defaults(moving, recipeFor(moving)))
              .find("shape set 2: the weight's kernel size 2 in dimension 1 differs from the traced 3")
          != std::string::npos);

    const auto dilatedAverage = windowOp(poolStage("avg", {3}, {1}, {0}, {2}, false), {tensor("x", {"B", "C", "10"})},
                                         tensor("out", {"B", "C", "6"}), {{{"B", 1}, {"C", 1}}});
    CHECK(kTemplate.check(dilatedAverage, recipeFor(dilatedAverage),
                          kTemplate.defaults(dilatedAverage, recipeFor(dilatedAverage)))
          == "stage 1: average pooling has no dilation");

    const auto badOutputPadding = windowOp(convStage({3}, {2}, {0}, {1}, 1, {2}),
                                           {tensor("x", {"B", "C", "5"}), tensor("weight", {"C", "C", "3"})},
                                           tensor("out", {"B", "C", "13"}), {{{"B", 1}, {"C", 1}}});
    CHECK(kTemplate.check(badOutputPadding, recipeFor(badOutputPadding),
                          kTemplate.defaults(badOutputPadding, recipeFor(badOutputPadding)))
          == "stage 1: the output padding 2 of dimension 1 must be below the stride or the dilation");
}

TEST_CASE("the generated conv and pool kernels read as their window")
{
    const auto ops = windowOps();
    const auto transposed =
        kTemplate.generate(ops[2], recipeFor(ops[2]), kTemplate.defaults(ops[2], recipeFor(ops[2])));
    CHECK(transposed.source.find("out = conv_transpose3d(x, weight), stride (2, 1, 3), padding (1, 0, 1)")
          != std::string::npos);
    CHECK(transposed.source.find("if (td < 0 || td % STRIDE_D != 0)") != std::string::npos);
    CHECK(transposed.source.find("constexpr int GROUPS = 2, CHANNELS = 4;") != std::string::npos);
    CHECK(transposed.source.find("atomicAdd") == std::string::npos);
    CHECK(transposed.launchPlan.find("library") == std::string::npos);

    const auto average = kTemplate.generate(ops[4], recipeFor(ops[4]), kTemplate.defaults(ops[4], recipeFor(ops[4])));
    CHECK(average.source.find("const int divisor = (lastD - firstD) * (lastH - firstH) * (lastW - firstW);")
          != std::string::npos);
    const auto maximum = kTemplate.generate(ops[3], recipeFor(ops[3]), kTemplate.defaults(ops[3], recipeFor(ops[3])));
    CHECK(maximum.source.find("best = value; // NaN propagates") != std::string::npos);
}

TEST_CASE("every window op compiles for sm_80 and sm_90 and its plan resolves, over samples of the space"
          * needsNvrtc())
{
    const auto ops = windowOps();
    for (const auto &row : opAndArchRows(ops)) {
        SUBCASE(row.name.c_str())
        {
            const Op &op = ops[row.op];
            CHECK(verifyCandidate(kTemplate, op, kTemplate.defaults(op, recipeFor(op)), row.arch) == "");
            for (const auto &params : sampleValid(kTemplate, op, 7, 3))
                CHECK(verifyCandidate(kTemplate, op, params, row.arch) == "");
        }
    }
}

TEST_CASE("a pipeline's max and min reductions let NaN win, as torch.max and torch.min do")
{
    for (const char *reduction : {"max", "min"}) {
        CAPTURE(reduction);
        PipelineStage stage;
        stage.kind = PipelineStage::Kind::Reduce;
        stage.reduction = reduction;
        stage.outer = "B";
        stage.extent = "C";
        stage.inner = "7";
        const Op op =
            windowOp(stage, {tensor("x", {"B", "C", "7"})}, tensor("out", {"B", "7"}), {{{"B", 3}, {"C", 45}}});
        const auto generated = kTemplate.generate(op, recipeFor(op), kTemplate.defaults(op, recipeFor(op)));
        CHECK(generated.source.find("x != x") != std::string::npos);
        CHECK(generated.source.find("fmaxf(acc") == std::string::npos);
        CHECK(generated.source.find("fminf(acc") == std::string::npos);
        if (NvrtcCompiler::available())
            CHECK(verifyCandidate(kTemplate, op, kTemplate.defaults(op, recipeFor(op)), "sm_80") == "");
    }
}

namespace {

// conv2d of x and weight as a library stage, a tanh as another (where asked) and a ReLU kernel after them.
Op libraryConvolutionOp(bool libraryTanh = false)
{
    PipelineStage convolution;
    convolution.kind = PipelineStage::Kind::Library;
    convolution.op = "aten::conv2d";
    convolution.args = nlohmann::json::array({{{"tensor", "x"}, {"shape", {"B", "CI", "H", "W"}}},
                                              {{"tensor", "weight"}, {"shape", {"CO", "CI", "3", "3"}}}});
    convolution.outputs = {{"t", {"B", "CO", "OH", "OW"}}};
    PipelineStage tanh;
    tanh.kind = PipelineStage::Kind::Library;
    tanh.op = "aten::tanh";
    tanh.args = nlohmann::json::array({{{"tensor", "t"}, {"shape", {"B", "CO", "OH", "OW"}}}});
    tanh.outputs = {{"u", {"B", "CO", "OH", "OW"}}};
    PipelineStage relu;
    relu.operands = {{libraryTanh ? "u" : "t", {"B", "CO", "OH", "OW"}}};
    relu.code = "const float r = a0 > 0.0f ? a0 : 0.0f;";
    relu.results = {"r"};
    relu.outputs = {{"out", {"B", "CO", "OH", "OW"}}};
    Op op;
    op.name = "conv_relu_test";
    op.inputs = {tensor("x", {"B", "CI", "H", "W"}), tensor("weight", {"CO", "CI", "3", "3"})};
    op.outputs = {tensor("out", {"B", "CO", "OH", "OW"})};
    op.shapeSets = {{{"B", 2}, {"CI", 3}, {"CO", 5}, {"H", 9}, {"W", 11}, {"OH", 7}, {"OW", 9}}};
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {"aten::conv2d", "aten::tanh"};
    OpRecipe recipe;
    recipe.family = "pipeline";
    recipe.stages = toJson(libraryTanh ? std::vector<PipelineStage>{convolution, tanh, relu}
                                       : std::vector<PipelineStage>{convolution, relu})
                        .dump();
    op.recipe = toJson(recipe);
    return op;
}

} // namespace

TEST_CASE("a pipeline whose library stage is a convolution lets cuDNN time its algorithms as a knob")
{
    const Op op = libraryConvolutionOp();
    const Params defaults = kTemplate.defaults(op, recipeFor(op));
    CHECK(defaults.at("cudnnBenchmark") == 0); // cuDNN's heuristics, as eager PyTorch's
    REQUIRE(kTemplate.check(op, recipeFor(op), defaults) == std::string());
    for (const int timed : {0, 1}) {
        const auto plan = parseLaunchPlan(
            kTemplate.generate(op, recipeFor(op), with(defaults, {{"cudnnBenchmark", timed}})).launchPlan);
        REQUIRE(plan);
        CHECK(std::get<LibraryStep>(plan->steps.front()).cudnnBenchmark == (timed == 1));
    }
    // Pipelines without a library convolution have no such knob.
    const Op pooling = windowOps()[3];
    CHECK(kTemplate.defaults(pooling, recipeFor(pooling)).count("cudnnBenchmark") == 0);
}

TEST_CASE("a pipeline's library convolutions may take channels-last copies, tried from the first generation")
{
    const Op op = libraryConvolutionOp(true);
    const Params defaults = kTemplate.defaults(op, recipeFor(op));
    CHECK(defaults.at("convChannelsLast") == 0); // NCHW, as eager PyTorch's
    const auto definitions = kTemplate.parameters(op, recipeFor(op));
    const auto gene = std::find_if(definitions.begin(), definitions.end(),
                                   [](const ParamDef &definition) { return definition.name == "convChannelsLast"; });
    REQUIRE(gene != definitions.end());
    CHECK(gene->values == std::vector<int>{0, 1});
    // The first generation holds the channels-last variant beside the defaults.
    const auto alternatives = kTemplate.alternatives(op, recipeFor(op));
    CHECK(std::find(alternatives.begin(), alternatives.end(), Params{{"convChannelsLast", 1}}) != alternatives.end());
    for (const int channelsLast : {0, 1}) {
        CAPTURE(channelsLast);
        const Params params = with(defaults, {{"convChannelsLast", channelsLast}});
        REQUIRE(kTemplate.check(op, recipeFor(op), params) == std::string());
        const auto generated = kTemplate.generate(op, recipeFor(op), params);
        const auto plan = parseLaunchPlan(generated.launchPlan);
        REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
        std::vector<LibraryStep> libraries;
        for (const auto &step : plan->steps)
            if (const auto *library = std::get_if<LibraryStep>(&step))
                libraries.push_back(*library);
        REQUIRE(libraries.size() == 2);
        CHECK(libraries[0].op == "aten::conv2d");
        CHECK(libraries[0].channelsLast == (channelsLast == 1));
        CHECK(libraries[1].op == "aten::tanh");
        CHECK_FALSE(libraries[1].channelsLast); // the flag is the convolutions' alone
        CHECK((generated.launchPlan.find("channelsLast") != std::string::npos) == (channelsLast == 1));
        if (NvrtcCompiler::available())
            CHECK(verifyCandidate(kTemplate, op, params, "sm_80") == "");
    }
    // Pipelines without a library convolution (a generated one, a pooling) have no such gene, nor alternative.
    for (const Op &other : {windowOps()[0], windowOps()[3]}) {
        CAPTURE(other.recipe);
        CHECK(kTemplate.defaults(other, recipeFor(other)).count("convChannelsLast") == 0);
        const auto otherDefinitions = kTemplate.parameters(other, recipeFor(other));
        CHECK(std::none_of(otherDefinitions.begin(), otherDefinitions.end(),
                           [](const ParamDef &definition) { return definition.name == "convChannelsLast"; }));
        CHECK(kTemplate.alternatives(other, recipeFor(other)).empty());
    }
}
