// GraphTranslator on handwritten op graphs (the shape problem.json gives them): which recipe each graph
// becomes, that the recipe's first candidate compiles for sm_90, and the exact errors for what does not fit.
#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/opcost.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

#include <limits>

using namespace kx;
using kx::test::checkCompiles;
using kx::test::makeOp;
using kx::test::recipeOfTranslation;

namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape, std::string dtype = "float32")
{
    return {std::move(name), std::move(shape), std::move(dtype)};
}

OpGraph graphOf(const char *json)
{
    auto graph = opGraphFromJson(nlohmann::json::parse(json));
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    return *graph;
}

// x [B, D] -> x * 2 + 1 -> gelu -> clamp(-0.5, 2)
const char *kChain = R"({
  "inputs": [{"value": "x", "name": "x"}], "outputs": ["13"],
  "nodes": [
    {"kind": "aten::mul", "inputs": [{"value": "x", "shape": [128, 4096], "dtype": "float32"}, {"const": 2.0}],
     "outputs": [{"value": "10", "shape": [128, 4096], "dtype": "float32"}]},
    {"kind": "aten::add", "inputs": [{"value": "10", "shape": [128, 4096], "dtype": "float32"}, {"const": 1.0},
     {"const": 1}], "outputs": [{"value": "11", "shape": [128, 4096], "dtype": "float32"}]},
    {"kind": "aten::gelu", "inputs": [{"value": "11", "shape": [128, 4096], "dtype": "float32"}, {"const": "none"}],
     "outputs": [{"value": "12", "shape": [128, 4096], "dtype": "float32"}]},
    {"kind": "aten::clamp", "inputs": [{"value": "12", "shape": [128, 4096], "dtype": "float32"}, {"const": -0.5},
     {"const": 2.0}], "outputs": [{"value": "13", "shape": [128, 4096], "dtype": "float32"}]}
  ]})";

} // namespace

TEST_CASE("an elementwise chain fuses into one expression")
{
    const Op op = makeOp({tensor("x", {"B", "D"})}, tensor("out", {"B", "D"}),
                         {{{"B", 128}, {"D", 4096}}, {{"B", 64}, {"D", 4096}}});
    const auto graph = graphOf(kChain);
    const auto translated = GraphTranslator().translate(graph, op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "elementwise");
    // The clamp keeps NaN, as PyTorch's does: its operand appears three times (the compiler computes it once).
    const std::string gelu = "(0.5f * ((x * 2.0f) + 1.0f) * (1.0f + erff(((x * 2.0f) + 1.0f) * 0.70710678118f)))";
    CHECK(recipe.expression
          == "(" + gelu + " != " + gelu + " ? " + gelu + " : fminf(fmaxf(" + gelu + ", (-0.5f)), 2.0f))");
    CHECK(translated->policy.atol == doctest::Approx(1e-4));
    CHECK(graphFlopsExpression(graph, op) == "B * D + B * D + 8 * B * D + 2 * B * D");
    CHECK(bytesMovedExpression(op) == "4 * B * D + 4 * B * D");
    checkCompiles(*translated);
}

TEST_CASE("a trailing broadcast input is read by name, a row broadcast once per row; an inner broadcast becomes a "
          "pipeline stage")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}, {"value": "s", "name": "scale"}], "outputs": ["5"],
      "nodes": [
        {"kind": "aten::mul", "inputs": [{"value": "x", "shape": [64, 256], "dtype": "float32"},
                                         {"value": "s", "shape": [256], "dtype": "float32"}],
         "outputs": [{"value": "4", "shape": [64, 256], "dtype": "float32"}]},
        {"kind": "aten::sigmoid", "inputs": [{"value": "4", "shape": [64, 256], "dtype": "float32"}],
         "outputs": [{"value": "5", "shape": [64, 256], "dtype": "float32"}]}
      ]})";
    const Op op =
        makeOp({tensor("x", {"N", "D"}), tensor("scale", {"D"})}, tensor("out", {"N", "D"}), {{{"N", 64}, {"D", 256}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    CHECK(recipeOfTranslation(translated).expression == "(1.0f / (1.0f + expf(-(x * scale))))");
    checkCompiles(*translated);

    // The same values, but the [64] input broadcasts over the columns ([64, 1] view): one value for each row,
    // which the elementwise template reads once per row.
    const char *rows = R"({
      "inputs": [{"value": "x", "name": "x"}, {"value": "s", "name": "scale"}], "outputs": ["4"],
      "nodes": [
        {"kind": "aten::mul", "inputs": [{"value": "x", "shape": [64, 256], "dtype": "float32"},
                                         {"value": "s", "shape": [64, 1], "dtype": "float32"}],
         "outputs": [{"value": "4", "shape": [64, 256], "dtype": "float32"}]}
      ]})";
    const Op rowScale = makeOp({tensor("x", {"N", "D"}), tensor("scale", {"N", "1"})}, tensor("out", {"N", "D"}),
                               {{{"N", 64}, {"D", 256}}});
    const auto perRow = GraphTranslator().translate(graphOf(rows), rowScale);
    CHECK(recipeOfTranslation(perRow).family == "elementwise");
    CHECK(recipeOfTranslation(perRow).rowInputs == std::vector<std::string>{"scale"});
    checkCompiles(*perRow);

    // Over the middle dimension of [B, N, D]: neither trailing nor per row, so the elementwise template cannot take
    // it; a pipeline's elementwise stage indexes it by coordinates.
    const char *inner = R"({
      "inputs": [{"value": "x", "name": "x"}, {"value": "s", "name": "scale"}], "outputs": ["4"],
      "nodes": [
        {"kind": "aten::mul", "inputs": [{"value": "x", "shape": [2, 64, 256], "dtype": "float32"},
                                         {"value": "s", "shape": [64, 1], "dtype": "float32"}],
         "outputs": [{"value": "4", "shape": [2, 64, 256], "dtype": "float32"}]}
      ]})";
    const Op innerScale = makeOp({tensor("x", {"B", "N", "D"}), tensor("scale", {"N", "1"})},
                                 tensor("out", {"B", "N", "D"}), {{{"B", 2}, {"N", 64}, {"D", 256}}});
    const auto pipeline = GraphTranslator().translate(graphOf(inner), innerScale);
    const auto stages = test::pipelineStages(pipeline);
    REQUIRE(stages.size() == 1);
    CHECK(stages[0].kind == PipelineStage::Kind::Elementwise);
    CHECK(stages[0].code == "const float v0 = (a0 * a1);\n");
    REQUIRE(stages[0].operands.size() == 2);
    CHECK(stages[0].operands[1].shape == std::vector<std::string>{"N", "1"});
    checkCompiles(*pipeline);
}

TEST_CASE("unsupported calls are listed exactly, each once")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["9"],
      "nodes": [
        {"kind": "aten::fft_rfft", "inputs": [{"value": "x", "shape": [16, 1024], "dtype": "float32"},
                                             {"const": null}, {"const": -1}],
         "outputs": [{"value": "6", "shape": [16, 513], "dtype": "complexfloat"}]},
        {"kind": "aten::abs", "inputs": [{"value": "6", "shape": [16, 513], "dtype": "complexfloat"}],
         "outputs": [{"value": "7", "shape": [16, 513], "dtype": "float32"}]},
        {"kind": "aten::cumsum", "inputs": [{"value": "7", "shape": [16, 513], "dtype": "float32"}, {"const": 1},
                                            {"const": null}],
         "outputs": [{"value": "8", "shape": [16, 513], "dtype": "float32"}]},
        {"kind": "aten::cumsum", "inputs": [{"value": "8", "shape": [16, 513], "dtype": "float32"}, {"const": 1},
                                            {"const": null}],
         "outputs": [{"value": "9", "shape": [16, 513], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("x", {"B", "D"})}, tensor("out", {"B", "513"}), {{{"B", 16}, {"D", 1024}}});
    const auto graph = graphOf(json);
    CHECK(GraphTranslator::unsupportedCalls(graph)
          == std::vector<std::string>{"aten::fft_rfft", "aten::abs on complexfloat", "aten::cumsum"});
    const auto translated = GraphTranslator().translate(graph, op);
    REQUIRE_FALSE(translated);
    CHECK(translated.error().message
          == "unsupported calls: aten::fft_rfft, aten::abs on complexfloat, aten::cumsum; as a pipeline: "
             "aten::fft_rfft computes complexfloat for a later call: intermediates are float32");
    CHECK(graphFlopsExpression(graph, op) == "0");
}

TEST_CASE("nn.Linear with an epilogue becomes a transposed gemm with bias")
{
    const char *json = R"({
      "inputs": [{"value": "input", "name": "x"}, {"value": "w", "name": "fc_weight"}, {"value": "b", "name": "fc_bias"}],
      "outputs": ["8"],
      "nodes": [
        {"kind": "aten::linear", "inputs": [{"value": "input", "shape": [64, 256], "dtype": "float32"},
                                            {"value": "w", "shape": [128, 256], "dtype": "float32"},
                                            {"value": "b", "shape": [128], "dtype": "float32"}],
         "outputs": [{"value": "7", "shape": [64, 128], "dtype": "float32"}]},
        {"kind": "aten::relu", "inputs": [{"value": "7", "shape": [64, 128], "dtype": "float32"}],
         "outputs": [{"value": "8", "shape": [64, 128], "dtype": "float32"}]}
      ]})";
    const Op op =
        makeOp({tensor("x", {"batch", "in_f"}), tensor("fc_weight", {"out_f", "in_f"}), tensor("fc_bias", {"out_f"})},
               tensor("out", {"batch", "out_f"}),
               {{{"batch", 64}, {"in_f", 256}, {"out_f", 128}}, {{"batch", 32}, {"in_f", 256}, {"out_f", 128}}});
    const auto graph = graphOf(json);
    const auto translated = GraphTranslator().translate(graph, op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "gemm");
    CHECK(recipe.transposeB);
    CHECK(recipe.m == "batch");
    CHECK(recipe.n == "out_f");
    CHECK(recipe.k == "in_f");
    CHECK(recipe.bias == "fc_bias");
    CHECK(recipe.expression == "(acc <= 0.0f ? 0.0f : acc)");
    CHECK(translated->policy.rtol == doctest::Approx(1e-3));
    CHECK(graphFlopsExpression(graph, op) == "2 * batch * out_f * in_f + batch * out_f + batch * out_f");
    // The problem runs its product in cuBLAS: the search may use the library product too (gemm-library).
    CHECK(translated->policy.allowLibrarySteps);
    CHECK(translated->policy.allowedLibraryOps == std::vector<std::string>{"aten::linear"});
    checkCompiles(*translated);
}

TEST_CASE("batched products and the norms count their operations, so the roofline and the TF32 tolerance see them")
{
    const char *json = R"({
      "inputs": [{"value": "a", "name": "a"}, {"value": "b", "name": "b"}],
      "outputs": ["3"],
      "nodes": [
        {"kind": "aten::bmm", "inputs": [{"value": "a", "shape": [8, 64, 32], "dtype": "float32"},
                                         {"value": "b", "shape": [8, 32, 16], "dtype": "float32"}],
         "outputs": [{"value": "2", "shape": [8, 64, 16], "dtype": "float32"}]},
        {"kind": "aten::group_norm", "inputs": [{"value": "2", "shape": [8, 64, 16], "dtype": "float32"}, {"const": 4},
                                                {"const": null}, {"const": null}, {"const": 1e-5}, {"const": true}],
         "outputs": [{"value": "3", "shape": [8, 64, 16], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("a", {"B", "M", "K"}), tensor("b", {"B", "K", "N"})}, tensor("out", {"B", "M", "N"}),
                         {{{"B", 8}, {"M", 64}, {"K", 32}, {"N", 16}}});
    CHECK(graphFlopsExpression(graphOf(json), op) == "2 * B * M * N * K + 8 * B * M * N");
}

TEST_CASE("matmul, scale, residual add and clamp: a gemm with an epilogue input; large K loosens rtol")
{
    const char *json = R"({
      "inputs": [{"value": "a", "name": "a"}, {"value": "b", "name": "b"}, {"value": "r", "name": "residual"}],
      "outputs": ["13"],
      "nodes": [
        {"kind": "aten::matmul", "inputs": [{"value": "a", "shape": [256, 2048], "dtype": "float32"},
                                            {"value": "b", "shape": [2048, 128], "dtype": "float32"}],
         "outputs": [{"value": "10", "shape": [256, 128], "dtype": "float32"}]},
        {"kind": "aten::mul", "inputs": [{"value": "10", "shape": [256, 128], "dtype": "float32"}, {"const": 0.5}],
         "outputs": [{"value": "11", "shape": [256, 128], "dtype": "float32"}]},
        {"kind": "aten::add", "inputs": [{"value": "11", "shape": [256, 128], "dtype": "float32"},
                                         {"value": "r", "shape": [256, 128], "dtype": "float32"}, {"const": 1}],
         "outputs": [{"value": "12", "shape": [256, 128], "dtype": "float32"}]},
        {"kind": "aten::clamp", "inputs": [{"value": "12", "shape": [256, 128], "dtype": "float32"}, {"const": -1.0},
                                           {"const": 1.0}],
         "outputs": [{"value": "13", "shape": [256, 128], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("a", {"M", "K"}), tensor("b", {"K", "N"}), tensor("residual", {"M", "N"})},
                         tensor("out", {"M", "N"}), {{{"M", 256}, {"K", 2048}, {"N", 128}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "gemm");
    CHECK_FALSE(recipe.transposeB);
    CHECK(recipe.epilogueInputs == std::vector<std::string>{"residual"});
    CHECK(recipe.expression
          == "(((acc * 0.5f) + residual) != ((acc * 0.5f) + residual) ? ((acc * 0.5f) + residual) "
             ": fminf(fmaxf(((acc * 0.5f) + residual), (-1.0f)), 1.0f))");
    CHECK(translated->policy.rtol == doctest::Approx(1e-2));
    checkCompiles(*translated);
}

TEST_CASE("conv2d plus a per-channel bias and ReLU becomes conv-epilogue with the library step allowed")
{
    const char *json = R"({
      "inputs": [{"value": "input", "name": "x"}, {"value": "w", "name": "conv_weight"}, {"value": "p", "name": "bias"}],
      "outputs": ["22"],
      "nodes": [
        {"kind": "aten::reshape", "inputs": [{"value": "p", "shape": [16], "dtype": "float32"}, {"const": [16, 1, 1]}],
         "outputs": [{"value": "9", "shape": [16, 1, 1], "dtype": "float32"}]},
        {"kind": "aten::_convolution", "inputs": [{"value": "input", "shape": [4, 8, 32, 40], "dtype": "float32"},
           {"value": "w", "shape": [16, 8, 3, 3], "dtype": "float32"}, {"const": null}, {"const": [1, 1]},
           {"const": [0, 0]}, {"const": [1, 1]}, {"const": false}, {"const": [0, 0]}, {"const": 1},
           {"const": false}, {"const": false}, {"const": true}, {"const": true}],
         "outputs": [{"value": "20", "shape": [4, 16, 30, 38], "dtype": "float32"}]},
        {"kind": "aten::add", "inputs": [{"value": "20", "shape": [4, 16, 30, 38], "dtype": "float32"},
                                         {"value": "9", "shape": [16, 1, 1], "dtype": "float32"}, {"const": 1}],
         "outputs": [{"value": "21", "shape": [4, 16, 30, 38], "dtype": "float32"}]},
        {"kind": "aten::relu", "inputs": [{"value": "21", "shape": [4, 16, 30, 38], "dtype": "float32"}],
         "outputs": [{"value": "22", "shape": [4, 16, 30, 38], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp(
        {tensor("x", {"B", "CI", "H", "W"}), tensor("conv_weight", {"CO", "CI", "KS", "KS"}), tensor("bias", {"CO"})},
        tensor("out", {"B", "CO", "30", "38"}),
        {{{"B", 4}, {"CI", 8}, {"H", 32}, {"W", 40}, {"CO", 16}, {"KS", 3}},
         {{"B", 2}, {"CI", 8}, {"H", 32}, {"W", 40}, {"CO", 16}, {"KS", 3}}});
    const auto graph = graphOf(json);
    const auto translated = GraphTranslator().translate(graph, op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "conv-epilogue");
    CHECK(recipe.expression == "((acc + bias[c]) <= 0.0f ? 0.0f : (acc + bias[c]))");
    CHECK(recipe.bias == "bias");
    CHECK(translated->policy.allowLibrarySteps);
    CHECK(translated->policy.allowedLibraryOps == std::vector<std::string>{"aten::conv2d"});
    CHECK(graphFlopsExpression(graph, op)
          == "2 * B * CO * 30 * 38 * CI * KS * KS + B * CO * 30 * 38 + B * CO * 30 * 38");
    checkCompiles(*translated);

    // Padding 1: conv-epilogue runs conv2d(x, weight) without it, so the op becomes a pipeline that passes
    // every argument of the convolution to LibTorch and fuses the bias and ReLU into one kernel.
    auto padded = nlohmann::json::parse(json);
    padded["nodes"][1]["inputs"][4]["const"] = {1, 1};
    padded["nodes"][1]["outputs"][0]["shape"] = {4, 16, 32, 40};
    padded["nodes"][2]["inputs"][0]["shape"] = {4, 16, 32, 40};
    padded["nodes"][2]["outputs"][0]["shape"] = {4, 16, 32, 40};
    padded["nodes"][3]["inputs"][0]["shape"] = {4, 16, 32, 40};
    padded["nodes"][3]["outputs"][0]["shape"] = {4, 16, 32, 40};
    Op paddedOp = op;
    paddedOp.outputs.front().shape = {"B", "CO", "H", "W"};
    const auto pipeline = GraphTranslator().translate(*opGraphFromJson(padded), paddedOp);
    const auto stages = test::pipelineStages(pipeline);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].op == "aten::_convolution");
    CHECK(stages[0].args[4] == nlohmann::json{{"ints", {"1", "1"}}});
    CHECK(stages[0].outputs[0].shape == std::vector<std::string>{"B", "CO", "H", "W"});
    CHECK(stages[1].code == "const float v0 = (a0 + a1);\nconst float v1 = (v0 <= 0.0f ? 0.0f : v0);\n");
    CHECK(stages[1].operands[1].shape == std::vector<std::string>{"CO", "1", "1"});
    CHECK(pipeline->policy.allowedLibraryOps == std::vector<std::string>{"aten::_convolution"});
    checkCompiles(*pipeline);
}

TEST_CASE("a sum over a dimension that can be viewed as the last adds derived row and column symbols")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["8"],
      "nodes": [{"kind": "aten::sum", "overload": "dim_IntList",
                 "inputs": [{"value": "x", "shape": [8, 128, 512, 1], "dtype": "float32"},
                                                 {"const": [2]}, {"const": true}, {"const": null}],
                 "outputs": [{"value": "8", "shape": [8, 128, 1, 1], "dtype": "float32"}]}]})";
    const Op op = makeOp({tensor("x", {"batch", "rows", "512", "1"})}, tensor("out", {"batch", "rows", "1", "1"}),
                         {{{"batch", 8}, {"rows", 128}}, {{"batch", 4}, {"rows", 128}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "reduce");
    CHECK(recipe.reduction == "sum");
    CHECK(recipe.rows == "R");
    CHECK(recipe.cols == "C");
    CHECK(translated->shapeSets[0].at("R") == 8 * 128);
    CHECK(translated->shapeSets[1].at("R") == 4 * 128);
    CHECK(translated->shapeSets[1].at("C") == 512);
    checkCompiles(*translated);

    // Over a middle dimension: the elements after it become the inner symbol, for the strided reduce template.
    auto middle = nlohmann::json::parse(json);
    middle["nodes"][0]["inputs"][1]["const"] = {1};
    middle["nodes"][0]["outputs"][0]["shape"] = {8, 1, 512, 1};
    Op middleOp = op;
    middleOp.outputs.front().shape = {"batch", "1", "512", "1"};
    const auto strided = GraphTranslator().translate(*opGraphFromJson(middle), middleOp);
    const auto stridedRecipe = recipeOfTranslation(strided);
    CHECK(stridedRecipe.family == "reduce");
    CHECK(stridedRecipe.rows == "batch");
    CHECK(stridedRecipe.cols == "rows");
    CHECK(strided->shapeSets[1].at(stridedRecipe.inner) == 512);
    CHECK(findKernelTemplate("reduce-strided")->supports(*strided, stridedRecipe));
    checkCompiles(*strided);
}

TEST_CASE("softmax, layer_norm and argmax use the row templates")
{
    const Op x = makeOp({tensor("x", {"N", "D"})}, tensor("out", {"N", "D"}), {{{"N", 32}, {"D", 4096}}});
    const auto softmax = GraphTranslator().translate(graphOf(R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["4"],
      "nodes": [{"kind": "aten::log_softmax", "inputs": [{"value": "x", "shape": [32, 4096], "dtype": "float32"},
                 {"const": 1}, {"const": null}], "outputs": [{"value": "4", "shape": [32, 4096], "dtype": "float32"}]}]})"),
                                                     x);
    const auto softmaxRecipe = recipeOfTranslation(softmax);
    CHECK(softmaxRecipe.family == "softmax");
    CHECK(softmaxRecipe.reduction == "logsoftmax");
    CHECK(softmaxRecipe.rows == "N");
    CHECK(softmaxRecipe.cols == "D");
    checkCompiles(*softmax);

    const Op norm = makeOp({tensor("x", {"N", "D"}), tensor("w", {"D"}), tensor("b", {"D"})}, tensor("out", {"N", "D"}),
                           {{{"N", 64}, {"D", 1024}}});
    const auto layerNorm = GraphTranslator().translate(graphOf(R"({
      "inputs": [{"value": "input", "name": "x"}, {"value": "w", "name": "w"}, {"value": "b", "name": "b"}],
      "outputs": ["11"],
      "nodes": [{"kind": "aten::layer_norm", "inputs": [{"value": "input", "shape": [64, 1024], "dtype": "float32"},
                 {"const": [1024]}, {"value": "w", "shape": [1024], "dtype": "float32"},
                 {"value": "b", "shape": [1024], "dtype": "float32"}, {"const": 1e-6}, {"const": true}],
                 "outputs": [{"value": "11", "shape": [64, 1024], "dtype": "float32"}]}]})"),
                                                       norm);
    const auto normRecipe = recipeOfTranslation(layerNorm);
    CHECK(normRecipe.family == "norm");
    CHECK(normRecipe.reduction == "layernorm");
    CHECK(normRecipe.eps == doctest::Approx(1e-6));
    checkCompiles(*layerNorm);

    Op argmaxOp = makeOp({tensor("x", {"N", "D"})}, tensor("out", {"N"}, "int64"), {{{"N", 32}, {"D", 4096}}});
    const auto argmax = GraphTranslator().translate(graphOf(R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["4"],
      "nodes": [{"kind": "aten::argmax", "inputs": [{"value": "x", "shape": [32, 4096], "dtype": "float32"},
                 {"const": -1}, {"const": false}], "outputs": [{"value": "4", "shape": [32], "dtype": "int64"}]}]})"),
                                                    argmaxOp);
    CHECK(recipeOfTranslation(argmax).reduction == "argmax");
    checkCompiles(*argmax);
}

TEST_CASE("layer_norm over the trailing dimensions normalises rows of their product, long rows split across blocks")
{
    // KernelBench's 40_LayerNorm: [16, 64, 256, 256] normalised over (64, 256, 256): 16 rows of 4 Mi elements.
    const Op norm = makeOp({tensor("x", {"batch", "features", "dim1", "dim2"}),
                            tensor("w", {"features", "dim1", "dim2"}), tensor("b", {"features", "dim1", "dim2"})},
                           tensor("out", {"batch", "features", "dim1", "dim2"}),
                           {{{"batch", 16}, {"features", 64}, {"dim1", 256}, {"dim2", 256}},
                            {{"batch", 8}, {"features", 64}, {"dim1", 256}, {"dim2", 256}}});
    const auto layerNorm = GraphTranslator().translate(graphOf(R"({
      "inputs": [{"value": "input", "name": "x"}, {"value": "w", "name": "w"}, {"value": "b", "name": "b"}],
      "outputs": ["11"],
      "nodes": [{"kind": "aten::layer_norm", "inputs": [{"value": "input", "shape": [16, 64, 256, 256], "dtype": "float32"},
                 {"const": [64, 256, 256]}, {"value": "w", "shape": [64, 256, 256], "dtype": "float32"},
                 {"value": "b", "shape": [64, 256, 256], "dtype": "float32"}, {"const": 1e-5}, {"const": true}],
                 "outputs": [{"value": "11", "shape": [16, 64, 256, 256], "dtype": "float32"}]}]})"),
                                                       norm);
    REQUIRE_MESSAGE(layerNorm, (layerNorm ? "" : layerNorm.error().message));
    const auto recipe = recipeOfTranslation(layerNorm);
    CHECK(recipe.family == "norm");
    CHECK(recipe.reduction == "layernorm");
    CHECK(recipe.rows == "batch");
    REQUIRE(layerNorm->shapeSets.size() == 2);
    CHECK(layerNorm->shapeSets[0].at(recipe.cols) == 64 * 256 * 256);
    CHECK(layerNorm->shapeSets[1].at(recipe.rows) == 8);
    const auto *split = findKernelTemplate("norm-split");
    REQUIRE(split);
    CHECK(split->supports(*layerNorm, recipe));
    checkCompiles(*layerNorm);

    // A normalized_shape that is not the trailing dimensions is refused with the reason.
    const auto inner = GraphTranslator().translate(graphOf(R"({
      "inputs": [{"value": "input", "name": "x"}, {"value": "w", "name": "w"}, {"value": "b", "name": "b"}],
      "outputs": ["11"],
      "nodes": [{"kind": "aten::layer_norm", "inputs": [{"value": "input", "shape": [16, 64, 256, 256], "dtype": "float32"},
                 {"const": [64, 256]}, {"value": "w", "shape": [64, 256], "dtype": "float32"},
                 {"value": "b", "shape": [64, 256], "dtype": "float32"}, {"const": 1e-5}, {"const": true}],
                 "outputs": [{"value": "11", "shape": [16, 64, 256, 256], "dtype": "float32"}]}]})"),
                                                   norm);
    REQUIRE_FALSE(inner);
    CHECK(inner.error().message.find("trailing dimensions") != std::string::npos);
}

TEST_CASE("the RMSNorm pattern becomes the rmsnorm recipe")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "weight"}], "outputs": ["15"],
      "nodes": [
        {"kind": "aten::pow", "inputs": [{"value": "x", "shape": [16, 512], "dtype": "float32"}, {"const": 2}],
         "outputs": [{"value": "10", "shape": [16, 512], "dtype": "float32"}]},
        {"kind": "aten::mean", "inputs": [{"value": "10", "shape": [16, 512], "dtype": "float32"}, {"const": [-1]},
                                          {"const": true}, {"const": null}],
         "outputs": [{"value": "11", "shape": [16, 1], "dtype": "float32"}]},
        {"kind": "aten::add", "inputs": [{"value": "11", "shape": [16, 1], "dtype": "float32"}, {"const": 1e-6},
                                         {"const": 1}], "outputs": [{"value": "12", "shape": [16, 1], "dtype": "float32"}]},
        {"kind": "aten::rsqrt", "inputs": [{"value": "12", "shape": [16, 1], "dtype": "float32"}],
         "outputs": [{"value": "13", "shape": [16, 1], "dtype": "float32"}]},
        {"kind": "aten::mul", "inputs": [{"value": "x", "shape": [16, 512], "dtype": "float32"},
                                         {"value": "13", "shape": [16, 1], "dtype": "float32"}],
         "outputs": [{"value": "14", "shape": [16, 512], "dtype": "float32"}]},
        {"kind": "aten::mul", "inputs": [{"value": "14", "shape": [16, 512], "dtype": "float32"},
                                         {"value": "w", "shape": [512], "dtype": "float32"}],
         "outputs": [{"value": "15", "shape": [16, 512], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("x", {"N", "D"}), tensor("weight", {"D"})}, tensor("out", {"N", "D"}),
                         {{{"N", 16}, {"D", 512}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "norm");
    CHECK(recipe.reduction == "rmsnorm");
    CHECK(recipe.eps == doctest::Approx(1e-6));
    checkCompiles(*translated);
}

TEST_CASE("a transpose followed by contiguous becomes the transpose recipe")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["5"],
      "nodes": [
        {"kind": "aten::transpose", "inputs": [{"value": "x", "shape": [256, 512], "dtype": "float32"}, {"const": 0},
                                               {"const": 1}], "outputs": [{"value": "4", "shape": [512, 256], "dtype": "float32"}]},
        {"kind": "aten::contiguous", "inputs": [{"value": "4", "shape": [512, 256], "dtype": "float32"}, {"const": 0}],
         "outputs": [{"value": "5", "shape": [512, 256], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("x", {"R", "C"})}, tensor("out", {"C", "R"}), {{{"R", 256}, {"C", 512}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "transpose");
    CHECK(recipe.rows == "R");
    CHECK(recipe.cols == "C");
    checkCompiles(*translated);
}

TEST_CASE("two calls that are not elementwise become a pipeline: a library softmax and a generated row sum")
{
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["5"],
      "nodes": [
        {"kind": "aten::softmax", "overload": "int", "inputs": [{"value": "x", "shape": [8, 64], "dtype": "float32"},
                                             {"const": 1}, {"const": null}], "outputs": [{"value": "4", "shape": [8, 64], "dtype": "float32"}]},
        {"kind": "aten::sum", "overload": "dim_IntList", "inputs": [{"value": "4", "shape": [8, 64], "dtype": "float32"}, {"const": [1]},
                                         {"const": false}, {"const": null}],
         "outputs": [{"value": "5", "shape": [8], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("x", {"N", "D"})}, tensor("out", {"N"}), {{{"N", 8}, {"D", 64}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].kind == PipelineStage::Kind::Library);
    CHECK(stages[0].op == "aten::softmax.int");
    CHECK(stages[0].outputs[0].name == "t0");
    CHECK(stages[1].kind == PipelineStage::Kind::Reduce);
    CHECK(stages[1].reduction == "sum");
    CHECK(stages[1].operands[0].name == "t0");
    CHECK(stages[1].outputs[0].name == "out");
    CHECK(stages[1].inner == "1");
    checkCompiles(*translated);
}

TEST_CASE("malformed graph JSON gives an error, not a crash")
{
    CHECK_FALSE(opGraphFromJson(nlohmann::json::parse(R"([1, 2])")));
    const auto noKind = opGraphFromJson(nlohmann::json::parse(R"({"nodes": [{"inputs": []}]})"));
    REQUIRE_FALSE(noKind);
    CHECK(noKind.error().message == "graph node 1: needs a \"kind\"");
    const auto badShape = opGraphFromJson(
        nlohmann::json::parse(R"({"nodes": [{"kind": "aten::relu", "inputs": [{"value": "x", "shape": ["a"]}]}]})"));
    REQUIRE_FALSE(badShape);
    CHECK(badShape.error().message == "graph node 1 (aten::relu): \"shape\" must be a list of sizes");
}

TEST_CASE("float literals in generated code: infinities and NaN by their bits, negatives in parentheses")
{
    CHECK(atencalls::floatLiteral(0.5) == "0.5f");
    CHECK(atencalls::floatLiteral(2) == "2.0f");
    CHECK(atencalls::floatLiteral(-1) == "(-1.0f)");
    CHECK(atencalls::floatLiteral(std::numeric_limits<double>::infinity()) == "__int_as_float(0x7f800000)");
    CHECK(atencalls::floatLiteral(-std::numeric_limits<double>::infinity()) == "__int_as_float(0xff800000)");
    CHECK(atencalls::floatLiteral(std::numeric_limits<double>::quiet_NaN()) == "__int_as_float(0x7fffffff)");
}

TEST_CASE("RMSNorm over the features of an image batch, without a weight, becomes a strided rmsnorm recipe")
{
    // KernelBench's 36_RMSNorm_: x / sqrt(mean(x ** 2, dim=1, keepdim=True) + eps) on [batch, features, h, w].
    const char *json = R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["14"],
      "nodes": [
        {"kind": "aten::pow", "inputs": [{"value": "x", "shape": [16, 64, 32, 48], "dtype": "float32"}, {"const": 2}],
         "outputs": [{"value": "10", "shape": [16, 64, 32, 48], "dtype": "float32"}]},
        {"kind": "aten::mean", "inputs": [{"value": "10", "shape": [16, 64, 32, 48], "dtype": "float32"}, {"const": [1]},
                                          {"const": true}, {"const": null}],
         "outputs": [{"value": "11", "shape": [16, 1, 32, 48], "dtype": "float32"}]},
        {"kind": "aten::add", "inputs": [{"value": "11", "shape": [16, 1, 32, 48], "dtype": "float32"}, {"const": 1e-5},
                                         {"const": 1}], "outputs": [{"value": "12", "shape": [16, 1, 32, 48], "dtype": "float32"}]},
        {"kind": "aten::sqrt", "inputs": [{"value": "12", "shape": [16, 1, 32, 48], "dtype": "float32"}],
         "outputs": [{"value": "13", "shape": [16, 1, 32, 48], "dtype": "float32"}]},
        {"kind": "aten::div", "inputs": [{"value": "x", "shape": [16, 64, 32, 48], "dtype": "float32"},
                                         {"value": "13", "shape": [16, 1, 32, 48], "dtype": "float32"}],
         "outputs": [{"value": "14", "shape": [16, 64, 32, 48], "dtype": "float32"}]}
      ]})";
    const Op op = makeOp({tensor("x", {"batch_size", "features", "dim1", "dim2"})},
                         tensor("out", {"batch_size", "features", "dim1", "dim2"}),
                         {{{"batch_size", 16}, {"features", 64}, {"dim1", 32}, {"dim2", 48}},
                          {{"batch_size", 8}, {"features", 64}, {"dim1", 32}, {"dim2", 48}}});
    const auto translated = GraphTranslator().translate(graphOf(json), op);
    REQUIRE_MESSAGE(translated, (translated ? "" : translated.error().message));
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "norm");
    CHECK(recipe.reduction == "rmsnorm");
    CHECK(recipe.rows == "batch_size");
    CHECK(recipe.cols == "features");
    REQUIRE(recipe.inner != "1");
    CHECK(translated->shapeSets[0].at(recipe.inner) == 32 * 48);
    CHECK(findKernelTemplate("norm-strided")->supports(*translated, recipe));
    checkCompiles(*translated);
}

TEST_CASE("InstanceNorm without affine weights is a LayerNorm of rows N * C over the spatial dimensions")
{
    // KernelBench's 34_InstanceNorm: nn.InstanceNorm2d(features) on [batch, features, h, w].
    const Op op = makeOp({tensor("x", {"batch_size", "features", "dim1", "dim2"})},
                         tensor("out", {"batch_size", "features", "dim1", "dim2"}),
                         {{{"batch_size", 16}, {"features", 64}, {"dim1", 256}, {"dim2", 256}},
                          {{"batch_size", 8}, {"features", 64}, {"dim1", 256}, {"dim2", 256}}});
    const auto graph =
        [](const std::string &weight) {
            return graphOf((R"({
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["9"],
      "nodes": [{"kind": "aten::instance_norm", "inputs": [{"value": "x", "shape": [16, 64, 256, 256], "dtype": "float32"},
                 )" + weight + R"(, {"const": null}, {"const": null}, {"const": null}, {"const": true}, {"const": 0.1},
                 {"const": 1e-5}, {"const": true}],
                 "outputs": [{"value": "9", "shape": [16, 64, 256, 256], "dtype": "float32"}]}]})")
                               .c_str());
        };
    const auto translated = GraphTranslator().translate(graph(R"({"const": null})"), op);
    REQUIRE_MESSAGE(translated, (translated ? "" : translated.error().message));
    const auto recipe = recipeOfTranslation(translated);
    CHECK(recipe.family == "norm");
    CHECK(recipe.reduction == "layernorm");
    CHECK(translated->shapeSets[0].at(recipe.rows) == 16 * 64);
    CHECK(translated->shapeSets[0].at(recipe.cols) == 256 * 256);
    CHECK(findKernelTemplate("norm-split")->supports(*translated, recipe));
    CHECK_FALSE(findKernelTemplate("norm")->supports(*translated, recipe)); // it needs weight and bias
    checkCompiles(*translated);

    Op affine = op;
    affine.inputs.push_back(tensor("w", {"features"}));
    const auto refused =
        GraphTranslator().translate(graph(R"({"value": "w", "shape": [64], "dtype": "float32"})"), affine);
    REQUIRE_FALSE(refused);
    CHECK_MESSAGE(refused.error().message.find("affine") != std::string::npos, refused.error().message);
}
