// Every built-in op's first candidate (its translation), the tensor-core variants of its gemms, the split norms
// on long rows, the cluster norms (on Hopper), a pipeline's generated products and its library convolution on
// channels-last copies verify on the GPU against LibTorch.
#include "gputestsupport.h"
#include "templatetestsupport.h"

#include "core/codegen/kerneltemplate.h"
#include "core/codegen/pipeline.h"
#include "core/gpu/tensorops.h"
#include "core/ops/builtinops.h"
#include "core/search/templateproposer.h"

#if KX_HAVE_CUDA
#include "core/gpu/devicebuffer.h"
#endif

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

using namespace kx;

TEST_CASE("every catalog op's translation verifies on the GPU")
{
    if (!test::skipWithoutGpu())
        return;
    int correct = 0;
    for (const auto &op : builtInOps()) {
        CAPTURE(op.name);
        const auto candidate = translateOp(op);
        REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
        const auto outcome = test::evaluateCandidate(op, *candidate);
        const auto &evaluation = outcome.evaluation;
        std::printf("%-36s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(),
                    test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                    evaluation.baseline.medianMs, evaluation.speedup, evaluation.message.c_str());
        CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
        CHECK_FALSE(outcome.workerMustExit);
        correct += evaluation.status == EvalStatus::Correct;
    }
    std::printf("%d of %zu translations verified\n", correct, builtInOps().size());
}

// The search may move a gemm to tensor cores: 3xTF32 must be as exact as fp32 FMA over every trial, whatever the
// tiling; plain TF32 is reported, not required (it verifies only where an op's tolerance is loose enough).
TEST_CASE("the catalog's gemms verify on tensor cores")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *tensorCores = findKernelTemplate("gemm-tensorcore");
    REQUIRE(tensorCores);
    const std::vector<std::pair<std::string, Params>> variants{
        {"3xTF32, defaults", {}},
        {"3xTF32, 128 x 64, 4 x 2 warps, 3 stages",
         {{"bm", 128}, {"bn", 64}, {"bk", 16}, {"warpsM", 4}, {"warpsN", 2}, {"stages", 3}}},
        {"TF32, 128 x 128, 2 x 4 warps, 3 stages",
         {{"bm", 128}, {"bn", 128}, {"bk", 16}, {"warpsM", 2}, {"warpsN", 4}, {"stages", 3}, {"products", 1}}},
        {"3xTF32, 32 x 64, 1 x 2 warps, 4 stages",
         {{"bm", 32}, {"bn", 64}, {"warpsM", 1}, {"warpsN", 2}, {"stages", 4}}},
        {"plain TF32, defaults", {{"products", 1}}},
        {"3xTF32, 128 x 128, 2 x 4 warps, k slices of 32, 3 stages", {{"bk", 32}, {"stages", 3}}},
        {"3xTF32, 256 x 64, 4 x 2 warps, k slices of 64, 2 stages, row order",
         {{"bm", 256}, {"bn", 64}, {"warpsM", 4}, {"warpsN", 2}, {"bk", 64}, {"stages", 2}, {"groupM", 1}}},
    };
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        if (!recipe || !tensorCores->supports(op, *recipe))
            continue;
        for (const auto &[label, changes] : variants) {
            CAPTURE(op.name);
            CAPTURE(label);
            Params params = tensorCores->defaults(op, *recipe);
            for (const auto &[name, value] : changes)
                params[name] = value;
            REQUIRE(tensorCores->check(op, *recipe, params) == std::string());
            const auto generated = tensorCores->generate(op, *recipe, params);
            const auto outcome =
                test::gpuEvaluator().evaluate(test::makeRequest(op, generated.source, generated.launchPlan));
            const auto &evaluation = outcome.evaluation;
            std::printf("%-30s %-44s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(), label.c_str(),
                        test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                        evaluation.baseline.medianMs, evaluation.speedup, evaluation.message.c_str());
            CHECK_FALSE(outcome.workerMustExit);
            if (params.at("products") == 3)
                CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
        }
    }
}

// Where an op allows the library GEMM, the library step and the fused epilogue after it verify.
TEST_CASE("the catalog's gemm chains verify with a library product and a fused epilogue")
{
    if (!test::skipWithoutGpu())
        return;
    int checked = 0;
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        const KernelTemplate *library = findKernelTemplate("gemm-library");
        REQUIRE(library);
        if (!recipe || !library->supports(op, *recipe)
            || !library->check(op, *recipe, library->defaults(op, *recipe)).empty())
            continue;
        CAPTURE(op.name);
        const auto candidate = generateFromTemplate(op, "gemm-library", {});
        REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
        const auto outcome = test::evaluateCandidate(op, *candidate);
        const auto &evaluation = outcome.evaluation;
        std::printf("%-30s %-44s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(),
                    "library GEMM + epilogue", test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                    evaluation.baseline.medianMs, evaluation.speedup, evaluation.message.c_str());
        CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
        ++checked;
    }
    // linear_bias_relu, matmul_scale_residual_clamp and the five products of other layouts (matmul_transposed_a ...)
    CHECK(checked == 2 + 5);
}

namespace {

// The template's defaults and count sampled variants of it on op, each with the parameters in `fixed`: each must
// verify. Prints one line a variant; returns how many ran.
int checkVariantsVerify(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed, int count,
                        const std::string &label, const Params &fixed = {})
{
    const auto recipe = recipeOf(op);
    REQUIRE(recipe);
    REQUIRE(kernelTemplate.supports(op, *recipe));
    auto variants = test::sampleValid(kernelTemplate, op, seed, count);
    variants.insert(variants.begin(), kernelTemplate.defaults(op, *recipe));
    if (!fixed.empty()) {
        // With parameters fixed, a variant that check() then refuses, or that another one became, is left out.
        std::vector<Params> kept;
        for (const auto &params : variants) {
            const Params variant = test::with(params, fixed);
            if (kernelTemplate.check(op, *recipe, variant).empty()
                && std::find(kept.begin(), kept.end(), variant) == kept.end())
                kept.push_back(variant);
        }
        variants = kept;
    }
    for (const auto &params : variants) {
        const std::string genome = toJson(Genome{kernelTemplate.name(), params});
        CAPTURE(op.name);
        CAPTURE(label);
        CAPTURE(genome);
        const auto generated = kernelTemplate.generate(op, *recipe, params);
        const auto outcome =
            test::gpuEvaluator().evaluate(test::makeRequest(op, generated.source, generated.launchPlan));
        const auto &evaluation = outcome.evaluation;
        std::printf("%-18s %-14s %-50s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(), label.c_str(),
                    genome.c_str(), test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                    evaluation.baseline.medianMs, evaluation.speedup, evaluation.message.c_str());
        CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
        CHECK_FALSE(outcome.workerMustExit);
    }
    return int(variants.size());
}

} // namespace

// Hopper's wgmma template: its defaults and sampled variants in 3xTF32 are as exact as fp32 on every catalog gemm it
// takes (odd shapes included: sizes that are not multiples of a tile). Plain TF32 is measured by tst_gemmprecision.
TEST_CASE("the catalog's gemms verify on Hopper's wgmma")
{
    if (!test::skipWithoutGpu())
        return;
    if (test::gpuArch() != "sm_90a") {
        std::printf("gemm-wgmma needs sm_90a: skipped on %s\n", test::gpuArch().c_str());
        return;
    }
    const KernelTemplate *wgmma = findKernelTemplate("gemm-wgmma");
    REQUIRE(wgmma);
    int exact = 0;
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        if (!recipe || !wgmma->supports(op, *recipe)
            || !wgmma->check(op, *recipe, wgmma->defaults(op, *recipe)).empty())
            continue;
        exact += checkVariantsVerify(*wgmma, op, 23, 5, "3xTF32", {{"products", 3}});
    }
    CHECK(exact >= 4 * 2); // four catalog gemms, the defaults and at least one sampled 3xTF32 variant each
}

// The products of other layouts (a transposed a, rows folded, batches, a shared b, triangles): the defaults and
// sampled variants of the CUDA-core and tensor-core templates verify on them, those of gemm-tensorcore in 3xTF32
// (plain TF32 is the tensor-core case's report above); odd shape sets included. On Hopper gemm-wgmma's TMA loader
// verifies on the batch (torch.bmm) in 3xTF32 too.
TEST_CASE("the catalog's gemm layouts verify on the gemm templates")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *cudaCores = findKernelTemplate("gemm");
    const KernelTemplate *tensorCores = findKernelTemplate("gemm-tensorcore");
    REQUIRE(cudaCores);
    REQUIRE(tensorCores);
    int checked = 0;
    unsigned seed = 31;
    for (const char *name : {"matmul_transposed_a", "matmul_3d", "bmm", "matmul_upper", "bmm_lower_transposed_a"}) {
        const Op op = test::builtIn(name);
        checked += checkVariantsVerify(*cudaCores, op, seed++, 4, "CUDA cores");
        checked += checkVariantsVerify(*tensorCores, op, seed++, 4, "3xTF32", {{"products", 3}});
    }
    CHECK(checked >= 5 * (5 + 3)); // the CUDA cores' five variants an op, at least three of the tensor cores'
    if (test::gpuArch() != "sm_90a") {
        std::printf("gemm-wgmma needs sm_90a: its batches skipped on %s\n", test::gpuArch().c_str());
        return;
    }
    const KernelTemplate *wgmma = findKernelTemplate("gemm-wgmma");
    REQUIRE(wgmma);
    // The defaults and at least two sampled variants (those of plain TF32 become 3xTF32, bn 256 is left out).
    CHECK(checkVariantsVerify(*wgmma, test::builtIn("bmm"), seed, 6, "wgmma 3xTF32", {{"products", 3}}) >= 3);
}

// Split-K in gemm-tensorcore: every catalog gemm and layout verifies with k split among blocks (odd shape sets: the
// last range is short, ranges past k add zeros), and a long k of few tiles, where the defaults split, verifies in
// the defaults and sampled variants.
TEST_CASE("the catalog's gemms verify split along k")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *tensorCores = findKernelTemplate("gemm-tensorcore");
    REQUIRE(tensorCores);
    int checked = 0;
    unsigned seed = 61;
    for (const auto &op : builtInOps()) {
        const auto recipe = recipeOf(op);
        if (!recipe || !tensorCores->supports(op, *recipe))
            continue;
        checked += checkVariantsVerify(*tensorCores, op, seed++, 1, "split 8", {{"splitK", 8}, {"products", 3}});
    }
    CHECK(checked >= 9); // four catalog gemms and five layouts, at least one variant each

    Op longK = test::builtIn("matmul");
    longK.shapeSets = {{{"M", 256}, {"N", 256}, {"K", 65536}}, {{"M", 77}, {"N", 130}, {"K", 40001}}};
    const auto recipe = recipeOf(longK);
    REQUIRE(recipe);
    CHECK(tensorCores->defaults(longK, *recipe).at("splitK") > 1);
    checkVariantsVerify(*tensorCores, longK, 67, 4, "long k", {{"products", 3}});
}

// The convolution's algorithm timed by cuDNN instead of picked by its heuristics (cudnnBenchmark): the same
// correct output, and eager's setting back after the step, which the baseline timed next would otherwise inherit.
TEST_CASE("the catalog's convolution verifies with cuDNN timing its algorithms")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *convEpilogue = findKernelTemplate("conv-epilogue");
    REQUIRE(convEpilogue);
    const int checked = checkVariantsVerify(*convEpilogue, test::builtIn("conv2d_bias_relu"), 71, 3, "cuDNN timed",
                                            {{"cudnnBenchmark", 1}});
    CHECK(checked >= 2);
    CHECK_FALSE(TensorOps::cudnnBenchmark());
}

namespace {

// The catalog's conv2d_bias_relu as a pipeline: the convolution a library stage, the bias and ReLU a kernel after it
// (as KernelBench's level-2 convolutions are translated).
Op convolutionPipeline()
{
    Op op = test::builtIn("conv2d_bias_relu");
    PipelineStage convolution;
    convolution.kind = PipelineStage::Kind::Library;
    convolution.op = "aten::conv2d";
    convolution.args = nlohmann::json::array({{{"tensor", "x"}, {"shape", {"B", "CI", "H", "W"}}},
                                              {{"tensor", "weight"}, {"shape", {"CO", "CI", "KH", "KW"}}}});
    convolution.outputs = {{"conv", {"B", "CO", "OH", "OW"}}};
    PipelineStage epilogue;
    epilogue.operands = {{"conv", {"B", "CO", "OH", "OW"}}, {"bias", {"CO", "1", "1"}}};
    epilogue.code = "const float r = fmaxf(a0 + a1, 0.0f);";
    epilogue.results = {"r"};
    epilogue.outputs = {{"out", {"B", "CO", "OH", "OW"}}};
    OpRecipe recipe;
    recipe.family = "pipeline";
    recipe.stages = toJson(std::vector<PipelineStage>{convolution, epilogue}).dump();
    op.recipe = toJson(recipe);
    return op;
}

} // namespace

// A pipeline's library convolution on channels-last copies of its input and weight (convChannelsLast), where cuDNN
// runs its tensor-core kernels: the defaults and sampled variants verify on the catalog's shapes and odd ones, in
// fp32 and under TF32 (where those kernels pay); NCHW beside it for the timings.
TEST_CASE("the catalog's convolution verifies on channels-last copies")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *pipeline = findKernelTemplate("pipeline");
    REQUIRE(pipeline);
    const Op op = convolutionPipeline();
    const auto recipe = recipeOf(op);
    REQUIRE(recipe);
    const Params channelsLast = test::with(pipeline->defaults(op, *recipe), {{"convChannelsLast", 1}});
    const auto plan = parseLaunchPlan(pipeline->generate(op, *recipe, channelsLast).launchPlan);
    REQUIRE_MESSAGE(plan, (plan ? "" : plan.error().message));
    REQUIRE(std::get<LibraryStep>(plan->steps.front()).channelsLast); // the layout under test is the one run
    CHECK(checkVariantsVerify(*pipeline, op, 73, 3, "channels-last", {{"convChannelsLast", 1}}) >= 2);
    checkVariantsVerify(*pipeline, op, 79, 0, "NCHW", {{"convChannelsLast", 0}}); // eager's layout, for the timings
    EvalSettings tf32 = test::quickSettings();
    tf32.precision = Precision::Tf32; // eager's cuDNN with TF32 too
    for (const int layout : {1, 0}) {
        const auto generated =
            pipeline->generate(op, *recipe, test::with(channelsLast, {{"convChannelsLast", layout}}));
        const auto outcome =
            test::gpuEvaluator().evaluate(test::makeRequest(op, generated.source, generated.launchPlan, tf32));
        const auto &evaluation = outcome.evaluation;
        std::printf("%-18s %-14s %-50s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(), "TF32",
                    layout ? "channels-last" : "NCHW", test::statusText(evaluation.status).c_str(),
                    evaluation.timing.medianMs, evaluation.baseline.medianMs, evaluation.speedup,
                    evaluation.message.c_str());
        test::requireCorrect(outcome);
    }
}

#if KX_HAVE_CUDA
// An imported convolution is a traced aten::_convolution whose arguments fix cuDNN's switches as the trace found them
// (TF32 off, for the reference): a library step runs it with the run's switches instead, so under TF32 it rounds as
// aten::conv2d does (bit for bit, the same cuDNN call) and in fp32 it does not; the two results differ, which shows
// that the comparison can tell them apart.
TEST_CASE("a library _convolution follows the run's TF32 switch, not the one its trace fixed")
{
    if (!test::skipWithoutGpu())
        return;
    if (std::stod(test::gpuEvaluator().describe().computeCapability) < 8.0) {
        std::printf("TF32 needs sm_80: skipped on %s\n", test::gpuArch().c_str());
        return;
    }
    // 8 images of 64 x 32 x 32, 64 filters of 64 x 3 x 3: sums of 576 products, where TF32's rounding shows.
    const std::vector<std::vector<std::int64_t>> shapes{{8, 64, 32, 32}, {64, 64, 3, 3}, {8, 64, 30, 30}};
    std::vector<DeviceBuffer> buffers;
    std::vector<TensorView> views;
    for (std::size_t i = 0; i < 2 + 4; ++i) {
        TensorView view{nullptr, shapes[std::min<std::size_t>(i, 2)], DType::Float32, 0};
        buffers.emplace_back(view.byteCount());
        view.data = buffers.back().data();
        views.push_back(view);
        if (i < 2)
            REQUIRE(TensorOps::fillRandom(view, 11 + i, Distribution::Normal).isOk());
    }
    const auto arg = [](PlanArg::Kind kind, std::vector<std::int64_t> ints = {}, bool flag = false) {
        ResolvedArg resolved;
        resolved.kind = kind;
        resolved.ints = std::move(ints);
        resolved.flag = flag;
        resolved.intValue = 1;
        return resolved;
    };
    using Kind = PlanArg::Kind;
    const auto convolve = [&](bool traced, bool tf32, const TensorView &out) {
        const Tf32Scope scope(tf32);
        std::vector<ResolvedArg> args{arg(Kind::Input), arg(Kind::Input)};
        std::vector<TensorView> tensors{views[0], views[1]};
        if (traced) {
            // bias, stride, padding, dilation, transposed, output padding, groups, then the switches as traced:
            // benchmark, deterministic, cudnn_enabled, allow_tf32 (off).
            for (const auto &extra : {arg(Kind::None), arg(Kind::Ints, {1, 1}), arg(Kind::Ints, {0, 0}),
                                      arg(Kind::Ints, {1, 1}), arg(Kind::Bool), arg(Kind::Ints, {0, 0}), arg(Kind::Int),
                                      arg(Kind::Bool), arg(Kind::Bool), arg(Kind::Bool, {}, true), arg(Kind::Bool)}) {
                args.push_back(extra);
                tensors.emplace_back();
            }
        }
        args.push_back(arg(Kind::Output));
        tensors.push_back(out);
        const auto ran = TensorOps::runLibraryStep(traced ? "aten::_convolution" : "aten::conv2d", args, tensors);
        REQUIRE_MESSAGE(ran.isOk(), (ran.isOk() ? "" : ran.error().message));
    };
    convolve(true, true, views[2]);
    convolve(false, true, views[3]);
    convolve(true, false, views[4]);
    convolve(false, false, views[5]);
    CHECK(TensorOps::bitEqual(views[2], views[3]).value()); // under TF32, as aten::conv2d under TF32
    CHECK(TensorOps::bitEqual(views[4], views[5]).value()); // in fp32, as aten::conv2d in fp32
    CHECK_FALSE(TensorOps::bitEqual(views[3], views[5]).value());
}
#endif

// LayerNorm and RMSNorm over rows too long for one block: every sampled variant of the split template verifies on
// odd row lengths (not multiples of a chunk) and on rows of 4 Mi elements.
TEST_CASE("the catalog's norms verify split across blocks on long rows")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *split = findKernelTemplate("norm-split");
    REQUIRE(split);
    const std::vector<std::pair<std::string, std::vector<ShapeSet>>> shapes{
        {"odd rows", {{{"N", 3}, {"D", 1000003}}, {{"N", 2}, {"D", 16385}}}},
        {"rows of 4 Mi", {{{"N", 16}, {"D", 4194304}}, {{"N", 5}, {"D", 65540}}}},
    };
    int checked = 0;
    for (const char *name : {"layer_norm", "rms_norm"}) {
        for (const auto &[label, sets] : shapes) {
            Op op = test::builtIn(name);
            op.shapeSets = sets;
            checked += checkVariantsVerify(*split, op, 5, 4, label);
        }
    }
    CHECK(checked >= 4 * 3);
}

// GroupNorm (rows of (sample, group), weight and bias per channel): the one-block template on the catalog's shapes and
// on channels that are not whole float4s, the split template on rows too long for one block (channels of 65536 and
// of 4221 elements).
TEST_CASE("the catalog's group norm verifies in both norm templates")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *norm = findKernelTemplate("norm");
    const KernelTemplate *split = findKernelTemplate("norm-split");
    REQUIRE(norm);
    REQUIRE(split);
    Op op = test::builtIn("group_norm");
    int checked = checkVariantsVerify(*norm, op, 37, 4, "one block");
    op.shapeSets = {groupNormShapes(4, 16, 9, 7), groupNormShapes(3, 16, 5, 13)};
    checked += checkVariantsVerify(*norm, op, 41, 4, "odd channels");
    op.shapeSets = {groupNormShapes(16, 64, 256, 256), groupNormShapes(3, 16, 67, 63)};
    checked += checkVariantsVerify(*split, op, 43, 4, "long rows");
    CHECK(checked == 3 * 5);
}

// A row in the shared memory of one Hopper thread-block cluster (norm-cluster, sm_90): the defaults and sampled
// variants verify on LayerNorm with weight and bias, RMSNorm, InstanceNorm and GroupNorm, on rows of 1 MB and up to
// the cluster's 1.6 MB, and on odd rows (not whole float4s, so not aligned alike in every row; chunks of the last
// blocks short or empty).
TEST_CASE("the catalog's norms verify in clusters of blocks that share a row")
{
    if (!test::skipWithoutGpu())
        return;
    if (std::stod(test::gpuEvaluator().describe().computeCapability) < 9.0) {
        std::printf("norm-cluster needs sm_90: skipped on %s\n", test::gpuArch().c_str());
        return;
    }
    const KernelTemplate *cluster = findKernelTemplate("norm-cluster");
    REQUIRE(cluster);
    const std::vector<std::pair<std::string, std::vector<ShapeSet>>> shapes{
        {"odd rows", {{{"N", 3}, {"D", 100003}}, {{"N", 2}, {"D", 16385}}}},
        {"rows of 1 MB", {{{"N", 64}, {"D", 262144}}, {{"N", 5}, {"D", 409597}}}},
    };
    int checked = 0;
    unsigned seed = 81;
    for (const char *name : {"layer_norm", "rms_norm"}) {
        for (const auto &[label, sets] : shapes) {
            Op op = test::builtIn(name);
            op.shapeSets = sets;
            checked += checkVariantsVerify(*cluster, op, seed++, 4, label);
        }
    }
    checked += checkVariantsVerify(*cluster, test::builtIn("instance_norm"), seed++, 4, "instance");
    // Clusters of 16 blocks (not portable): InstanceNorm's 1 MB rows in chunks of 64 KB, and odd rows of 3 MB that
    // only 16 blocks hold.
    checked +=
        checkVariantsVerify(*cluster, test::builtIn("instance_norm"), seed++, 2, "instance 16", {{"cluster", 16}});
    Op longest = test::builtIn("layer_norm");
    longest.shapeSets = {{{"N", 7}, {"D", 800001}}};
    checked += checkVariantsVerify(*cluster, longest, seed++, 2, "rows of 3 MB");
    // GroupNorm: rows of 65536 in channels of 16384, then of 16884 in channels of 4221 (not whole float4s).
    Op group = test::builtIn("group_norm");
    group.shapeSets = {groupNormShapes(8, 16, 128, 128), groupNormShapes(3, 16, 67, 63)};
    checked += checkVariantsVerify(*cluster, group, seed++, 4, "group");
    CHECK(checked >= 8 * 3);
}

// RMSNorm over a middle dimension: sampled variants of the strided template (vector widths included) verify.
TEST_CASE("the catalog's channel RMSNorm verifies in strided variants")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *strided = findKernelTemplate("norm-strided");
    REQUIRE(strided);
    Op op = test::builtIn("rms_norm_channels");
    op.shapeSets = {{{"N", 16}, {"C", 64}, {"S", 262144}}, {{"N", 2}, {"C", 33}, {"S", 4100}}};
    checkVariantsVerify(*strided, op, 11, 5, "channels");
}

// Reductions over a middle dimension: sampled variants of the strided template (tiles, slices, vector widths and the
// split across blocks with its second kernel) verify, the arg reductions on the trials' ties included.
TEST_CASE("the catalog's middle-dimension reductions verify in strided variants")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *strided = findKernelTemplate("reduce-strided");
    REQUIRE(strided);
    int checked = 0;
    unsigned seed = 17;
    for (const char *name : {"sum_dim1", "argmin_dim1", "prod_dim1"})
        checked += checkVariantsVerify(*strided, test::builtIn(name), seed++, 5, "middle");
    CHECK(checked == 3 * 6);
}

// Over the last dimension: sampled variants of the reduce template (warp or block a row, shuffles or a shared tree,
// the arg reductions' ties) and of the normalize template verify.
TEST_CASE("the catalog's row reductions and normalisations verify in sampled variants")
{
    if (!test::skipWithoutGpu())
        return;
    int checked = 0;
    unsigned seed = 29;
    for (const auto &[templateName, opName] :
         {std::pair{"reduce", "row_sum"}, std::pair{"reduce", "row_max"}, std::pair{"reduce", "row_argmax"},
          std::pair{"normalize", "l1_normalize"}, std::pair{"normalize", "l2_normalize"}}) {
        const KernelTemplate *kernelTemplate = findKernelTemplate(templateName);
        REQUIRE(kernelTemplate);
        checked += checkVariantsVerify(*kernelTemplate, test::builtIn(opName), seed++, 4, "rows");
    }
    CHECK(checked == 5 * 5);
}

// Scans: sampled variants of the scan template (a block a row, look-back tiles for sums, a thread a line along a
// middle dimension) verify on rows that are not multiples of any tile, products included (their running value
// under- and overflows on most trial inputs, and must get stuck where PyTorch's does).
TEST_CASE("the catalog's scans verify in sampled variants")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *scan = findKernelTemplate("scan");
    REQUIRE(scan);
    const std::vector<std::pair<std::string, std::vector<ShapeSet>>> ops{
        {"cumsum", {{{"N", 512}, {"D", 32768}}, {{"N", 3}, {"D", 100003}}}},
        {"cumsum_reverse_exclusive", {{{"N", 4}, {"D", 1048576}}, {{"N", 7}, {"D", 5001}}}},
        {"cumprod", {{{"N", 1024}, {"D", 8192}}, {{"N", 5}, {"D", 3001}}}},
        {"cumsum_channels", {{{"N", 8}, {"C", 100}, {"S", 4099}}, {{"N", 2}, {"C", 33}, {"S", 65}}}},
        {"masked_cumsum", {{{"N", 16}, {"D", 300000}}, {{"N", 3}, {"D", 2049}}}},
    };
    int checked = 0;
    for (const auto &[name, sets] : ops) {
        Op op = test::builtIn(name);
        op.shapeSets = sets;
        checked += checkVariantsVerify(*scan, op, 23, 4, "variants");
    }
    CHECK(checked == 5 * 5);
}

// Attention as three generated steps (scores product, row softmax, weighted product): the defaults and sampled
// variants on CUDA cores and on tensor cores in 3xTF32, head dims 40 and 64 (the second causal), sequences of 77.
TEST_CASE("the catalog's attention verifies in composed variants")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *attention = findKernelTemplate("attention");
    REQUIRE(attention);
    int checked = 0;
    unsigned seed = 47;
    for (const char *name : {"attention", "attention_causal"}) {
        const Op op = test::builtIn(name);
        checked += checkVariantsVerify(*attention, op, seed++, 3, "CUDA cores", {{"tensorCores", 0}});
        checked += checkVariantsVerify(*attention, op, seed++, 3, "3xTF32", {{"tensorCores", 1}, {"products", 3}});
    }
    CHECK(checked >= 2 * (2 + 2)); // the defaults and at least one sampled variant of each kind an op
}

// Attention in one kernel (online softmax, query rows in shared memory, keys and values streamed): the defaults and
// sampled variants on head dims 40 and 64, the second causal, sequences of 77.
TEST_CASE("the catalog's attention verifies in the fused kernel")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *fused = findKernelTemplate("attention-fused");
    REQUIRE(fused);
    int checked = 0;
    unsigned seed = 53;
    for (const char *name : {"attention", "attention_causal"})
        checked += checkVariantsVerify(*fused, test::builtIn(name), seed++, 5, "fused");
    CHECK(checked == 2 * 6);
}

// Losses: sampled variants of the loss template (vector loads, warp or block a row, one- and two-pass logsumexp,
// few or many partial sums, hinge's targets repeated along the rows) verify on odd rows and columns, the cross
// entropy's class indices drawn from [0, C).
TEST_CASE("the catalog's losses verify in sampled variants")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *loss = findKernelTemplate("loss");
    REQUIRE(loss);
    int checked = 0;
    unsigned seed = 41;
    for (const char *name :
         {"smooth_l1_loss", "kl_div_log_target", "hinge_loss", "cross_entropy", "triplet_margin_loss"})
        checked += checkVariantsVerify(*loss, test::builtIn(name), seed++, 5, "loss");
    CHECK(checked == 5 * 6);
}

// A pipeline's library product as a generated gemm part (the product gene) on a product before a row reduction,
// the sigmoid between them in the part's epilogue: the part on mma.sync and, on Hopper, on wgmma, both in 3xTF32, in
// the defaults and sampled variants of the pipeline's own genes (fast math included), on the catalog's shapes and on
// odd ones of more than one tile; the library product beside.
TEST_CASE("the catalog's pipeline products verify as generated gemm parts")
{
    if (!test::skipWithoutGpu())
        return;
    const KernelTemplate *pipeline = findKernelTemplate("pipeline");
    REQUIRE(pipeline);
    Op odd = test::builtIn("linear_sigmoid_rowsum");
    odd.shapeSets = {{{"M", 1000}, {"N", 1531}, {"K", 777}}, {{"M", 129}, {"N", 67}, {"K", 33}}};
    int checked = 0;
    unsigned seed = 71;
    for (const Op &op : {test::builtIn("linear_sigmoid_rowsum"), odd}) {
        checked += checkVariantsVerify(*pipeline, op, seed++, 2, "mma.sync", {{"product", 2}, {"product.products", 3}});
        checked += checkVariantsVerify(*pipeline, op, seed++, 1, "library", {{"product", 0}});
        if (test::gpuArch() == "sm_90a")
            checked +=
                checkVariantsVerify(*pipeline, op, seed++, 2, "wgmma", {{"product", 1}, {"product.products", 3}});
        else
            std::printf("gemm-wgmma needs sm_90a: its pipeline products skipped on %s\n", test::gpuArch().c_str());
    }
    CHECK(checked >= 2 * (2 + 1 + (test::gpuArch() == "sm_90a" ? 2 : 0)));
}
