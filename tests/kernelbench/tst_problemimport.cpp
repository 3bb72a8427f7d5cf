// The whole import on our own KernelBench-format problem files: the Python helper's bundle, BundleReader's op,
// the translation compiling for sm_90, the helper's messages for broken files, and `kx import` (exit codes,
// messages, nothing stored on an error). Needs Python 3 with PyTorch; exits 77 (skipped) without it.
#include "core/archive/archive.h"
#include "core/codegen/oprecipe.h"
#include "core/eval/protocol.h"
#include "core/kernelbench/problemimporter.h"
#include "core/search/templateproposer.h"

#include "childprocess.h"
#include "kerneltestsupport.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace kx;

namespace {

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/";

// This suite tests the import, not its sandbox (tst_importsandbox does): where bubblewrap is missing (a bare GPU
// machine) the problem files, all our own, are imported unconfined.
bool sandboxHere()
{
    static const bool available = [] {
        const bool found = ProblemImporter::sandboxAvailable();
        if (!found)
            std::cout << "note: bubblewrap is not installed here: importing unconfined (--no-sandbox)\n";
        return found;
    }();
    return available;
}

ImportOptions optionsHere()
{
    ImportOptions options;
    options.sandbox = sandboxHere();
    return options;
}

// Imports are slow (PyTorch starts for each), so each file is imported once for all test cases.
const Expected<ImportedProblem> &imported(const std::string &file)
{
    return test::importOnceOrSkip(kData + file);
}

const ImportedProblem &importedOk(const std::string &file)
{
    const auto &result = imported(file);
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    return *result;
}

std::string importError(const std::string &file)
{
    const auto &result = imported(file);
    REQUIRE_FALSE(result);
    return result.error().message;
}

std::string shapeOf(const TensorSpec &tensor)
{
    std::string text;
    for (const auto &dimension : tensor.shape)
        text += (text.empty() ? "" : ",") + dimension;
    return tensor.name + "[" + text + "]";
}

void checkTranslationCompiles(const Op &op)
{
    const auto problem = test::translationProblem(op);
    if (problem != "skip")
        CHECK_MESSAGE(problem.empty(), problem);
}

// Each import starts PyTorch, so the limit is generous.
test::ProgramResult runKx(const std::vector<std::string> &arguments)
{
    std::vector<std::string> argv{std::string(KX_BINARY_DIR) + "/kx"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    if (!sandboxHere() && (arguments.front() == "import" || arguments.front() == "coverage"))
        argv.push_back("--no-sandbox");
    auto run = test::runProgram(argv, {}, std::chrono::minutes(5));
    if (run.timedOut)
        run.err += "\n(kx ran past the test's limit and was killed)";
    return run;
}

} // namespace

TEST_CASE("single ops import with symbols, two shape sets and the recipe of their family")
{
    const struct
    {
        const char *file;
        const char *family;
        std::vector<std::string> inputs;
        std::string output;
    } cases[] = {
        {"relu.py", "elementwise", {"x[batch_size,dim]"}, "out[batch_size,dim]"},
        {"softmax.py", "softmax", {"x[batch_size,dim]"}, "out[batch_size,dim]"},
        {"sum_dim.py", "reduce", {"x[batch_size,rows,features]"}, "out[batch_size,rows,1]"},
        {"argmin_dim.py", "reduce", {"x[batch_size,dim1,dim2]"}, "out[batch_size,dim2]"},
        {"layer_norm.py",
         "norm",
         {"x[batch_size,features]", "norm_weight[features]", "norm_bias[features]"},
         "out[batch_size,features]"},
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const auto &problem = importedOk(c.file);
        const Op &op = problem.op;
        CHECK(op.name == "kb/" + std::filesystem::path(c.file).stem().string());
        CHECK(std::string(toString(op.sourceKind)) == toString(SourceKind::KernelBench));
        CHECK(op.referenceSource == [&] { return test::readFile(kData + c.file); }());
        std::vector<std::string> inputs;
        for (const auto &input : op.inputs)
            inputs.push_back(shapeOf(input));
        CHECK(inputs == c.inputs);
        REQUIRE(op.outputs.size() == 1);
        CHECK(shapeOf(op.outputs.front()) == c.output);
        CHECK(problem.translated());
        CHECK(recipeOf(op)->family == c.family);
        // The batch is halved for the second shape set; everything else stays.
        REQUIRE(op.shapeSets.size() == 2);
        CHECK(op.shapeSets[1].at("batch_size") * 2 == op.shapeSets[0].at("batch_size"));
        // A saved TorchScript module is a zip archive: base64 of "PK".
        CHECK(op.referenceModule.rfind("UEsD", 0) == 0);
        CHECK(base64Decode(op.referenceModule));
        CHECK(op.bytesMovedExpr.find("4 * batch_size") == 0);
        CHECK(op.flopsExpr != "0");
        checkTranslationCompiles(op);
    }
    CHECK(importedOk("sum_dim.py").op.shapeSets[0].at("R") == 8 * 128); // rows of the [8 * 128, 512] view
    // Over the middle dimension, into int64 indices: the strided reduce template's recipe.
    const Op &argmin = importedOk("argmin_dim.py").op;
    CHECK(argmin.outputs.front().dtype == "int64");
    CHECK(argmin.recipe
          == R"({"cols":"dim1","family":"reduce","inner":"dim2","reduction":"argmin","rows":"batch_size"})");
}

TEST_CASE("convolutions and poolings import as generated window stages that compile for sm_80 and sm_90")
{
    const struct
    {
        const char *file;
        std::vector<PipelineStage::Kind> kinds;
        const char *firstLine; // what the first kernel says it computes
    } cases[] = {
        {"conv1d_strided_dilated.py",
         {PipelineStage::Kind::Conv},
         "out = conv1d(x, conv_weight), stride 2, padding 0, dilation 2, groups 1."},
        {"conv2d_grouped_padded.py",
         {PipelineStage::Kind::Conv},
         "out = conv2d(x, conv_weight) + conv_bias, stride (1, 1), padding (1, 2), dilation (1, 1), groups 2."},
        {"conv3d.py",
         {PipelineStage::Kind::Conv},
         "out = conv3d(x, conv_weight) + conv_bias, stride (1, 2, 1), padding (1, 1, 1)"},
        {"conv_transpose2d.py",
         {PipelineStage::Kind::Conv},
         "out = conv_transpose2d(x, conv_weight) + conv_bias, stride (2, 3), padding (1, 2), dilation (2, 1), "
         "output padding (1, 2), groups 2."},
        {"conv_transpose1d_dilated.py",
         {PipelineStage::Kind::Conv},
         "out = conv_transpose1d(x, conv_weight) + conv_bias, stride 3, padding 2, dilation 2, output padding 0"},
        {"conv_depthwise.py",
         {PipelineStage::Kind::Conv},
         "out = conv2d(x, conv_weight), stride (2, 2), padding (1, 1)"},
        {"conv_depthwise_separable.py",
         {PipelineStage::Kind::Conv, PipelineStage::Kind::Conv},
         "t0 = conv2d(x, depthwise_weight), stride (1, 1), padding (1, 1), dilation (1, 1), groups 6."},
        {"max_pool.py",
         {PipelineStage::Kind::Pool},
         "out = max_pool2d(x), kernel (3, 3), stride (2, 2), padding (1, 1), dilation (2, 2), ceil_mode."},
        {"avg_pool.py",
         {PipelineStage::Kind::Pool},
         "out = avg_pool3d(x), kernel (3, 3, 3), stride (2, 2, 2), padding (1, 1, 1), ceil_mode, padding left out"},
        {"avg_pool1d.py",
         {PipelineStage::Kind::Pool},
         "out = avg_pool1d(x), kernel 5, stride 2, padding 2, padding counted in the divisor."},
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const auto &problem = importedOk(c.file);
        const Op &op = problem.op;
        REQUIRE_MESSAGE(problem.translated(), problem.translationError);
        const auto stages = test::pipelineStages(op);
        std::vector<PipelineStage::Kind> kinds;
        for (const auto &stage : stages)
            kinds.push_back(stage.kind);
        CHECK(kinds == c.kinds);
        // Fully generated: no library step is allowed or needed.
        CHECK_FALSE(op.policy.allowLibrarySteps);
        CHECK(op.flopsExpr != "0");
        const auto candidate = translateOp(op);
        REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
        CHECK_MESSAGE(candidate->source.find(c.firstLine) != std::string::npos, candidate->source);
        CHECK(candidate->launchPlan.find("library") == std::string::npos);
        for (const char *arch : {"sm_80", "sm_90"}) {
            CAPTURE(arch);
            const auto problemText = test::translationProblem(op, arch);
            if (problemText != "skip")
                CHECK_MESSAGE(problemText.empty(), problemText);
        }
    }
    // Convolutions sum C_in / groups x kernel-volume products: the tolerance follows the count.
    CHECK(importedOk("conv3d.py").op.policy.atol >= 1e-3);
}

TEST_CASE("fused chains, a Linear with weights and a Conv2d with bias translate to their fused recipes")
{
    const auto &chain = importedOk("chain_gelu_clamp.py").op;
    CHECK(recipeOf(chain)->family == "elementwise");
    CHECK(recipeOf(chain)->expression.find("erff(") != std::string::npos);
    CHECK(recipeOf(chain)->expression.find("2.0f") != std::string::npos); // the clamp bound from get_init_inputs
    checkTranslationCompiles(chain);

    const auto &gemm = importedOk("matmul_scale_residual.py").op;
    CHECK(recipeOf(gemm)->family == "gemm");
    CHECK(recipeOf(gemm)->epilogueInputs == std::vector<std::string>{"residual"});
    CHECK(recipeOf(gemm)->expression
          == "(((acc * 0.5f) + residual) != ((acc * 0.5f) + residual) ? ((acc * 0.5f) + residual) "
             ": fminf(fmaxf(((acc * 0.5f) + residual), (-1.0f)), 1.0f))");
    CHECK(gemm.flopsExpr.find("2 * M * N * K") == 0);
    checkTranslationCompiles(gemm);

    const auto &linear = importedOk("linear_relu.py").op;
    REQUIRE(linear.inputs.size() == 3);
    CHECK(shapeOf(linear.inputs[1]) == "fc_weight[out_features,in_features]");
    CHECK(shapeOf(linear.inputs[2]) == "fc_bias[out_features]");
    CHECK(recipeOf(linear)->transposeB);
    CHECK(recipeOf(linear)->bias == "fc_bias");
    checkTranslationCompiles(linear);

    const auto &conv = importedOk("conv2d_bias_relu.py").op;
    REQUIRE(conv.inputs.size() == 3);
    // Parameters come in the order the forward uses them, size-1 dimensions dropped ([C, 1, 1] -> [C]).
    CHECK(shapeOf(conv.inputs[1]) == "conv_weight[out_channels,in_channels,kernel_size,kernel_size]");
    CHECK(shapeOf(conv.inputs[2]) == "bias[out_channels]");
    CHECK(shapeOf(conv.outputs[0]) == "out[batch_size,out_channels,30,38]");
    CHECK(recipeOf(conv)->family == "conv-epilogue");
    CHECK(recipeOf(conv)->expression == "((acc + bias[c]) <= 0.0f ? 0.0f : (acc + bias[c]))");
    CHECK(conv.policy.allowLibrarySteps);
    checkTranslationCompiles(conv);
}

TEST_CASE("GroupNorm imports as a norm of (sample, group) rows with per-channel weight and bias")
{
    const auto &op = importedOk("group_norm.py").op;
    std::vector<std::string> inputs;
    for (const auto &input : op.inputs)
        inputs.push_back(shapeOf(input));
    const std::vector<std::string> expected{"x[batch_size,features,dim1,dim2]", "norm_weight[features]",
                                            "norm_bias[features]"};
    CHECK(inputs == expected);
    const auto recipe = recipeOf(op);
    REQUIRE(recipe);
    CHECK(recipe->family == "norm");
    CHECK(recipe->reduction == "layernorm");
    CHECK(recipe->groups == "4");
    // 6 samples (3 in the second set) of 4 groups, each 3 channels of 37 x 41.
    CHECK(op.shapeSets[0].at(recipe->rows) == 6 * 4);
    CHECK(op.shapeSets[1].at(recipe->rows) == 3 * 4);
    CHECK(op.shapeSets[1].at(recipe->cols) == 3 * 37 * 41);
    CHECK(op.shapeSets[1].at(recipe->channelSize) == 37 * 41);
    checkTranslationCompiles(op);
}

TEST_CASE("modules holding float('-inf') import: a masked_fill constant and a buffer of -inf")
{
    // JSON has no -Infinity: the helper writes {"nonFinite": "-inf"} and the graph reads a number back.
    const auto &masked = importedOk("masked_fill_softmax.py");
    const auto fill = std::find_if(masked.graph.nodes.begin(), masked.graph.nodes.end(),
                                   [](const GraphNode &node) { return node.kind == "aten::masked_fill"; });
    REQUIRE(fill != masked.graph.nodes.end());
    REQUIRE(fill->inputs.size() == 3);
    REQUIRE(fill->inputs[2].constant.is_number());
    const double value = fill->inputs[2].constant.get<double>();
    CHECK(std::isinf(value));
    CHECK(value < 0);
    // A bool mask is not generated yet; the op imports and says why it is not translated.
    CHECK(masked.translationError.find("bool") != std::string::npos);

    // The additive form keeps the -inf in a float buffer, which travels in the traced module.
    const auto &additive = importedOk("causal_mask_softmax.py").op;
    REQUIRE(recipeOf(additive));
    CHECK(recipeOf(additive)->family == "pipeline");
    checkTranslationCompiles(additive);
}

TEST_CASE("broken problem files give the helper's clear message")
{
    CHECK(importError("broken/syntax_error.py") == kData + "broken/syntax_error.py:9: syntax error: expected ':'");
    CHECK(importError("broken/missing_get_inputs.py")
          == kData
                 + "broken/missing_get_inputs.py does not define get_inputs (a KernelBench problem defines Model, "
                   "get_inputs and get_init_inputs)");
    const auto raised = importError("broken/forward_raises.py");
    CHECK(raised.rfind(kData + "broken/forward_raises.py:10: Model.forward raised RuntimeError", 0) == 0);
    CHECK(importError("missing.py") == "cannot read " + kData + "missing.py: no such file");

    // An unsupported call imports, but does not translate; the error lists exactly the unsupported calls.
    const auto &fft = importedOk("broken/unsupported_fft.py");
    CHECK_FALSE(fft.translated());
    CHECK(fft.translationError
          == "unsupported calls: aten::fft_rfft, aten::abs on complexfloat; as a pipeline: "
             "aten::fft_rfft computes complexfloat for a later call: intermediates are float32");
    CHECK(fft.op.recipe.empty());
    CHECK(fft.op.flopsExpr == "0");
}

TEST_CASE("the size limit is checked before anything runs on the inputs")
{
    imported("relu.py"); // skips without PyTorch
    ImportOptions options = optionsHere();
    options.maxBytes = 1000;
    const auto result = ProblemImporter(options).importFile(kData + "relu.py");
    REQUIRE_FALSE(result);
    CHECK(result.error().message.find("more than the limit of 0.0 MB (kx's --max-mb)") != std::string::npos);
}

TEST_CASE("kx import stores the op with its source, and nothing on an error")
{
    imported("relu.py"); // skips without PyTorch
    const test::TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto archivePath = temp.filePath("import.kxdb");

    const auto syntax = runKx({"import", kData + "broken/syntax_error.py", "-a", archivePath});
    CHECK(syntax.exitCode == 3);
    CHECK(syntax.err.find("syntax_error.py:9: syntax error") != std::string::npos);
    const auto fft = runKx({"import", kData + "broken/unsupported_fft.py", "-a", archivePath});
    CHECK(fft.exitCode == 1);
    CHECK(fft.out.find("recipe: none (unsupported calls: aten::fft_rfft, aten::abs on complexfloat; as a pipeline: ")
          != std::string::npos);
    CHECK(fft.err.find("nothing stored") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(archivePath));

    const auto ok = runKx({"import", kData + "linear_relu.py", "-a", archivePath});
    CHECK_MESSAGE(ok.exitCode == 0, ok.err);
    CHECK(ok.out.find("op: kb/linear_relu") != std::string::npos);
    CHECK(ok.out.find("input:  fc_weight [out_features, in_features] float32") != std::string::npos);
    CHECK(ok.out.find("recipe: gemm") != std::string::npos);
    {
        auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
        REQUIRE(archive);
        const auto ops = (*archive)->ops();
        REQUIRE(ops.size() == 1);
        CHECK(ops.front().name == "kb/linear_relu");
        CHECK(ops.front().referenceSource == test::readFile(kData + "linear_relu.py"));
        CHECK_FALSE(ops.front().referenceModule.empty());
    }

    const auto failed = runKx({"import", kData + "broken/missing_get_inputs.py", "-a", archivePath});
    CHECK(failed.exitCode == 3);
    auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
    REQUIRE(archive);
    CHECK((*archive)->ops().size() == 1);
}

TEST_CASE("kx coverage tables every file of a folder; --resume keeps the finished rows of the earlier CSV")
{
    imported("relu.py"); // skips without PyTorch
    const test::TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto csv = temp.filePath("coverage.csv"), markdown = temp.filePath("coverage.md");
    const std::vector<std::string> command{"coverage", kData + "broken", "-j",    "2", "--csv",
                                           csv,        "--markdown",     markdown};
    const auto first = runKx(command);
    CHECK_MESSAGE(first.exitCode == 0, first.err);
    CHECK(test::readFile(markdown).find("4 files: 1 imported, 0 translated (0%)") != std::string::npos);
    const std::string table = test::readFile(csv);
    CHECK(table.find("syntax_error.py,,no,,no,no,no,,,,,,,") != std::string::npos);
    CHECK(table.find("unsupported_fft.py,kb/unsupported_fft,yes,,no,no,no,,,,,,,\"unsupported calls: aten::fft_rfft, "
                     "aten::abs on complexfloat;")
          != std::string::npos);

    // The fft row is finished and kept as it stands (its changed note shows it was not imported again); the
    // missing syntax_error row is imported again.
    std::string edited;
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
        if (line.starts_with("syntax_error.py,"))
            continue;
        if (line.starts_with("unsupported_fft.py,"))
            line = "unsupported_fft.py,kb/unsupported_fft,yes,,no,no,no,,,,,,,\"kept, from before\"";
        edited += line + "\n";
    }
    REQUIRE(test::writeFile(csv, edited));
    auto resumeCommand = command;
    resumeCommand.push_back("--resume");
    const auto resumed = runKx(resumeCommand);
    CHECK_MESSAGE(resumed.exitCode == 0, resumed.err);
    const std::string again = test::readFile(csv);
    CHECK(again.find("unsupported_fft.py,kb/unsupported_fft,yes,,no,no,no,,,,,,,\"kept, from before\"")
          != std::string::npos);
    CHECK(again.find("syntax_error.py,,no,,no,no,no,,,,,,,") != std::string::npos);
    CHECK(resumed.err.find("imported unsupported_fft.py") == std::string::npos);
    CHECK(resumed.err.find("imported syntax_error.py") != std::string::npos);

    // A CSV written before the Inductor columns is still read, and rewritten in today's format.
    REQUIRE(test::writeFile(csv, "file,op,imported,recipe,translated,searched,verified,speedup,note\n"
                                 "unsupported_fft.py,kb/unsupported_fft,yes,,no,no,no,,\"kept, from an old table\"\n"));
    const auto fromOld = runKx(resumeCommand);
    CHECK_MESSAGE(fromOld.exitCode == 0, fromOld.err);
    CHECK(test::readFile(csv).find(
              "unsupported_fft.py,kb/unsupported_fft,yes,,no,no,no,,,,,,,\"kept, from an old table\"")
          != std::string::npos);
    CHECK(fromOld.err.find("imported unsupported_fft.py") == std::string::npos);

    CHECK(runKx({"coverage", kData + "broken", "--resume"}).exitCode != 0); // --resume needs --csv
}

TEST_CASE("KernelBench's scans import as scan recipes: the exclusive cumsum of narrow and cat, and a bool mask")
{
    const struct
    {
        const char *file;
        const char *reduction;
        bool exclusive, reverse;
        const char *prologue;
    } cases[] = {
        {"cumsum_exclusive.py", "sum", true, false, ""},
        {"cumsum_reverse.py", "sum", false, true, ""},
        {"masked_cumsum.py", "sum", false, false, "(x * mask)"},
        {"cumprod.py", "prod", false, false, ""},
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const auto &problem = importedOk(c.file);
        CHECK_MESSAGE(problem.translated(), problem.translationError);
        const auto recipe = recipeOf(problem.op);
        REQUIRE(recipe);
        CHECK(recipe->family == "scan");
        CHECK(recipe->reduction == c.reduction);
        CHECK(recipe->exclusive == c.exclusive);
        CHECK(recipe->reverse == c.reverse);
        CHECK(recipe->prologue == c.prologue);
        CHECK(recipe->rows == "batch_size");
        CHECK(recipe->cols == "1000");
        checkTranslationCompiles(problem.op);
    }
    const auto &masked = importedOk("masked_cumsum.py").op;
    REQUIRE(masked.inputs.size() == 2);
    CHECK(shapeOf(masked.inputs[1]) == "mask[batch_size,1000]");
    CHECK(masked.inputs[1].dtype == "bool");
}

TEST_CASE("KernelBench's matrix products import as gemm recipes; diag(A) @ B as a scaling of rows")
{
    const struct
    {
        const char *file;
        const char *family;
        const char *recipe; // the recipe's JSON
        const char *flops;
    } cases[] = {
        {"matmul_transposed_both.py", "gemm",
         R"({"expression":"acc","family":"gemm","transposeA":true,"transposeB":true})", "2 * M * N * K"},
        {"matmul_3d.py", "gemm", R"({"expression":"acc","family":"gemm","leading":["N"],"n":"L"})",
         "2 * N * M * L * K"},
        {"einsum_4d.py", "gemm", R"({"expression":"acc","family":"gemm","k":"l","leading":["b","i"],"m":"j","n":"k"})",
         "2 * b * i * j * k * l"},
        {"bmm.py", "gemm", R"({"batch":"batch_size","expression":"acc","family":"gemm","k":"k","m":"m","n":"n"})",
         "2 * batch_size * m * n * k"},
        {"triu_matmul.py", "gemm", R"({"expression":"acc","family":"gemm","k":"N","m":"N","triangle":"upper"})",
         "N * N * N"},
        {"tril_matmul.py", "gemm", R"({"expression":"acc","family":"gemm","k":"M","n":"M","triangle":"lower"})",
         "M * M * M"},
        {"diag_matmul.py", "elementwise", R"j({"expression":"(A * B)","family":"elementwise","rowInputs":["A"]})j",
         "N * M"},
        {"diag_unsqueeze.py", "elementwise", R"j({"expression":"(A * B)","family":"elementwise","rowInputs":["A"]})j",
         "N * M"},
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const Op &op = importedOk(c.file).op;
        REQUIRE(recipeOf(op));
        CHECK(recipeOf(op)->family == c.family);
        CHECK(op.recipe == c.recipe);
        CHECK(op.flopsExpr == c.flops);
        checkTranslationCompiles(op);
    }
}
