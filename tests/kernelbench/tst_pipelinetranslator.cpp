// PipelineTranslator on handwritten graphs of several non-elementwise calls (the form problem.json gives them,
// with the shapes at the second shape set): the stages, the symbols of the intermediates, the library calls the
// policy allows and the tolerance, constants and device moves, and that the generated kernels compile and the plan
// resolves for every shape set.
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/devicemoves.h"
#include "core/kernelbench/graphtranslator.h"
#include "core/kernelbench/pipelinetranslator.h"
#include "core/kernelbench/valuebound.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace kx;
using kx::test::checkCompiles;

namespace {

OpGraph graphOf(const char *json)
{
    const auto parsed = nlohmann::json::parse(json);
    auto graph = opGraphFromJson(parsed.at("graph"));
    REQUIRE_MESSAGE(graph, (graph ? "" : graph.error().message));
    addSecondShapes(*graph, parsed.value("secondShapes", nlohmann::json::array()));
    return *graph;
}

TensorSpec tensor(std::string name, std::vector<std::string> shape)
{
    return {std::move(name), std::move(shape), "float32"};
}

// Conv2d (stride 2, padding 1) -> BatchNorm (inference) -> ReLU -> MaxPool2d -> mean over H, W -> * 2.
const char *kConvNormPool = R"({"graph": {
  "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "conv_weight"}, {"value": "b", "name": "conv_bias"},
             {"value": "g", "name": "bn_weight"}, {"value": "h", "name": "bn_bias"},
             {"value": "m", "name": "bn_running_mean"}, {"value": "v", "name": "bn_running_var"}],
  "outputs": ["6"],
  "nodes": [
    {"kind": "aten::_convolution", "inputs": [{"value": "x", "shape": [8, 3, 32, 32]},
       {"value": "w", "shape": [16, 3, 3, 3]}, {"value": "b", "shape": [16]}, {"const": [2, 2]}, {"const": [1, 1]},
       {"const": [1, 1]}, {"const": false}, {"const": [0, 0]}, {"const": 1}, {"const": false}, {"const": false},
       {"const": true}, {"const": true}],
     "outputs": [{"value": "1", "shape": [8, 16, 16, 16], "dtype": "float32"}]},
    {"kind": "aten::batch_norm", "inputs": [{"value": "1", "shape": [8, 16, 16, 16]}, {"value": "g", "shape": [16]},
       {"value": "h", "shape": [16]}, {"value": "m", "shape": [16]}, {"value": "v", "shape": [16]}, {"const": false},
       {"const": 0.1}, {"const": 1e-05}, {"const": true}],
     "outputs": [{"value": "2", "shape": [8, 16, 16, 16], "dtype": "float32"}]},
    {"kind": "aten::relu", "inputs": [{"value": "2", "shape": [8, 16, 16, 16]}],
     "outputs": [{"value": "3", "shape": [8, 16, 16, 16], "dtype": "float32"}]},
    {"kind": "aten::max_pool2d", "inputs": [{"value": "3", "shape": [8, 16, 16, 16]}, {"const": [2, 2]},
       {"const": [2, 2]}, {"const": [0, 0]}, {"const": [1, 1]}, {"const": false}],
     "outputs": [{"value": "4", "shape": [8, 16, 8, 8], "dtype": "float32"}]},
    {"kind": "aten::mean", "overload": "dim", "inputs": [{"value": "4", "shape": [8, 16, 8, 8]}, {"const": [2, 3]},
       {"const": true}, {"const": null}],
     "outputs": [{"value": "5", "shape": [8, 16, 1, 1], "dtype": "float32"}]},
    {"kind": "aten::mul", "inputs": [{"value": "5", "shape": [8, 16, 1, 1]}, {"const": 2.0}],
     "outputs": [{"value": "6", "shape": [8, 16, 1, 1], "dtype": "float32"}]}
  ]},
  "secondShapes": [
    {"kind": "aten::_convolution", "shapes": [[4, 16, 16, 16]]}, {"kind": "aten::batch_norm", "shapes": [[4, 16, 16, 16]]},
    {"kind": "aten::relu", "shapes": [[4, 16, 16, 16]]}, {"kind": "aten::max_pool2d", "shapes": [[4, 16, 8, 8]]},
    {"kind": "aten::mean", "shapes": [[4, 16, 1, 1]]}, {"kind": "aten::mul", "shapes": [[4, 16, 1, 1]]}]})";

Op convNormPoolOp()
{
    Op op;
    op.name = "kb/conv_norm_pool";
    op.sourceKind = SourceKind::KernelBench;
    op.inputs = {tensor("x", {"batch_size", "in_channels", "height", "width"}),
                 tensor("conv_weight", {"out_channels", "in_channels", "kernel_size", "kernel_size"}),
                 tensor("conv_bias", {"out_channels"}),
                 tensor("bn_weight", {"out_channels"}),
                 tensor("bn_bias", {"out_channels"}),
                 tensor("bn_running_mean", {"out_channels"}),
                 tensor("bn_running_var", {"out_channels"})};
    op.outputs = {tensor("out", {"batch_size", "out_channels", "1", "1"})};
    op.shapeSets = {{{"batch_size", 8},
                     {"in_channels", 3},
                     {"out_channels", 16},
                     {"height", 32},
                     {"width", 32},
                     {"kernel_size", 3}},
                    {{"batch_size", 4},
                     {"in_channels", 3},
                     {"out_channels", 16},
                     {"height", 32},
                     {"width", 32},
                     {"kernel_size", 3}}};
    return op;
}

} // namespace

TEST_CASE("conv, BatchNorm, ReLU, pooling, mean and a scale become five stages")
{
    const Op op = convNormPoolOp();
    const auto translated = GraphTranslator().translate(graphOf(kConvNormPool), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 5);

    CHECK(stages[0].kind == PipelineStage::Kind::Library);
    CHECK(stages[0].op == "aten::_convolution");
    CHECK(stages[0].args[0]
          == nlohmann::json{{"tensor", "x"}, {"shape", {"batch_size", "in_channels", "height", "width"}}});
    CHECK(stages[0].args[3] == nlohmann::json{{"ints", {"2", "2"}}});
    CHECK(stages[0].args[6] == nlohmann::json{{"bool", false}});
    CHECK(stages[0].outputs[0].name == "t0");
    CHECK(stages[0].outputs[0].shape.front() == "batch_size");

    // BatchNorm with running statistics and the ReLU after it: one kernel, the statistics per channel.
    CHECK(stages[1].kind == PipelineStage::Kind::Elementwise);
    CHECK(
        stages[1].code
        == "const float v0 = (a0 - a3) * rsqrtf(a4 + 1e-05f) * a1 + a2;\nconst float v1 = (v0 <= 0.0f ? 0.0f : v0);\n");
    REQUIRE(stages[1].operands.size() == 5);
    CHECK(stages[1].operands[3].name == "bn_running_mean");
    CHECK(stages[1].operands[3].shape == std::vector<std::string>{"out_channels", "1", "1"});
    CHECK(stages[1].results == std::vector<std::string>{"v1"}); // v0 is used only inside the kernel

    CHECK(stages[2].op == "aten::max_pool2d");
    CHECK(stages[2].outputs[0].shape == std::vector<std::string>{"batch_size", "out_channels", "8", "8"});

    CHECK(stages[3].kind == PipelineStage::Kind::Reduce);
    CHECK(stages[3].reduction == "mean");
    CHECK(stages[3].outer == "batch_size*out_channels");
    CHECK(stages[3].extent == "8*8");
    CHECK(stages[3].inner == "1");

    CHECK(stages[4].outputs[0].name == "out");
    CHECK(translated->policy.allowLibrarySteps);
    CHECK(translated->policy.allowedLibraryOps == std::vector<std::string>{"aten::_convolution", "aten::max_pool2d"});
    CHECK(translated->policy.atol == doctest::Approx(1e-3));
    checkCompiles(*translated);
}

TEST_CASE("a size that follows no symbol between the shape sets gets a derived symbol")
{
    // x [B, C, N] viewed as [B * C, N]: softmax rows, then ReLU. B * C is 8 * 16 = 128, then 4 * 16 = 64.
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["3"],
      "nodes": [
        {"kind": "aten::reshape", "inputs": [{"value": "x", "shape": [8, 16, 100]}, {"const": [-1, 100]}],
         "outputs": [{"value": "1", "shape": [128, 100], "dtype": "float32"}]},
        {"kind": "aten::softmax", "overload": "int", "inputs": [{"value": "1", "shape": [128, 100]}, {"const": 1},
           {"const": null}], "outputs": [{"value": "2", "shape": [128, 100], "dtype": "float32"}]},
        {"kind": "aten::relu", "inputs": [{"value": "2", "shape": [128, 100]}],
         "outputs": [{"value": "3", "shape": [128, 100], "dtype": "float32"}]}]},
      "secondShapes": [{"kind": "aten::reshape", "shapes": [[64, 100]]}, {"kind": "aten::softmax", "shapes": [[64, 100]]},
                       {"kind": "aten::relu", "shapes": [[64, 100]]}]})";
    Op op;
    op.name = "kb/rows";
    op.inputs = {tensor("x", {"B", "C", "N"})};
    op.outputs = {tensor("out", {"B", "C", "N"})};
    op.shapeSets = {{{"B", 8}, {"C", 16}, {"N", 100}}, {{"B", 4}, {"C", 16}, {"N", 100}}};
    // The softmax over a view alone would be a library call only; with the ReLU there is a kernel to generate.
    const auto translated = PipelineTranslator::translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].args[0] == nlohmann::json{{"tensor", "x"}, {"shape", {"dim1", "N"}}});
    CHECK(translated->shapeSets[0].at("dim1") == 128);
    CHECK(translated->shapeSets[1].at("dim1") == 64);
    checkCompiles(*translated);
}

TEST_CASE("a model whose every call is a library call is refused, and why")
{
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}, {"value": "y", "name": "y"}], "outputs": ["1"],
      "nodes": [{"kind": "aten::bmm", "inputs": [{"value": "x", "shape": [2, 4, 8]}, {"value": "y", "shape": [2, 8, 4]}],
                 "outputs": [{"value": "1", "shape": [2, 4, 4], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/bmm";
    op.inputs = {tensor("x", {"B", "4", "8"}), tensor("y", {"B", "8", "4"})};
    op.outputs = {tensor("out", {"B", "4", "4"})};
    op.shapeSets = {{{"B", 2}}};
    const auto refused = PipelineTranslator::translate(graphOf(json), op);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message
          == "every call would run as a library step (aten::bmm): there is nothing to generate");
}

TEST_CASE("a lone pooling becomes a generated pool stage whose stride defaults to the kernel")
{
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["1"],
      "nodes": [{"kind": "aten::max_pool2d", "inputs": [{"value": "x", "shape": [2, 4, 8, 8]}, {"const": [2, 2]},
                   {"const": []}, {"const": [0, 0]}, {"const": [1, 1]}, {"const": false}],
                 "outputs": [{"value": "1", "shape": [2, 4, 4, 4], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/pool";
    op.inputs = {tensor("x", {"B", "C", "8", "8"})};
    op.outputs = {tensor("out", {"B", "C", "4", "4"})};
    op.shapeSets = {{{"B", 2}, {"C", 4}}};
    const auto translated = PipelineTranslator::translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 1);
    CHECK(stages[0].kind == PipelineStage::Kind::Pool);
    CHECK(stages[0].reduction == "max");
    CHECK(stages[0].window.kernel == std::vector<std::int64_t>{2, 2});
    CHECK(stages[0].window.stride == std::vector<std::int64_t>{2, 2});
    CHECK_FALSE(translated->policy.allowLibrarySteps);
    checkCompiles(*translated);
}

TEST_CASE("a convolution whose arguments the conv stage cannot follow is refused, naming the argument")
{
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "weight"}], "outputs": ["1"],
      "nodes": [{"kind": "aten::conv2d", "overload": "padding",
                 "inputs": [{"value": "x", "shape": [2, 4, 8, 8]}, {"value": "w", "shape": [4, 4, 3, 3]}, {"const": null},
                   {"const": [1, 1]}, {"const": "same"}, {"const": [1, 1]}, {"const": 1}],
                 "outputs": [{"value": "1", "shape": [2, 4, 8, 8], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/conv_same";
    op.inputs = {tensor("x", {"B", "C", "8", "8"}), tensor("weight", {"C", "C", "3", "3"})};
    op.outputs = {tensor("out", {"B", "C", "8", "8"})};
    op.shapeSets = {{{"B", 2}, {"C", 4}}};
    const auto refused = GraphTranslator().translate(graphOf(json), op);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("aten::conv2d with padding 'same': the conv stage takes explicit padding only")
          != std::string::npos);
}

TEST_CASE("a later call that reads the indices of max is refused; the values alone are a generated reduction")
{
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["3"],
      "nodes": [
        {"kind": "aten::max", "overload": "dim", "inputs": [{"value": "x", "shape": [16, 32, 64]}, {"const": 1},
           {"const": false}], "outputs": [{"value": "1", "shape": [16, 64], "dtype": "float32"},
                                          {"value": "2", "shape": [16, 64], "dtype": "int64"}]},
        {"kind": "aten::tanh", "inputs": [{"value": "1", "shape": [16, 64]}],
         "outputs": [{"value": "3", "shape": [16, 64], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/max";
    op.inputs = {tensor("x", {"B", "D", "E"})};
    op.outputs = {tensor("out", {"B", "E"})};
    op.shapeSets = {{{"B", 16}, {"D", 32}, {"E", 64}}};
    const auto translated = PipelineTranslator::translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].reduction == "max");
    CHECK(stages[0].inner == "E");
    checkCompiles(*translated);

    auto indices = nlohmann::json::parse(json);
    indices["graph"]["nodes"][1]["inputs"][0]["value"] = "2";
    indices["graph"]["nodes"][1]["inputs"][0]["dtype"] = "int64";
    const auto graph = opGraphFromJson(indices["graph"]);
    const auto refused = PipelineTranslator::translate(*graph, op);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "result 2 of aten::max is used: library steps give one");
}

TEST_CASE("torch.min with a constant tensor is an elementwise min: the constant's device move is no library step")
{
    // KernelBench's x = torch.min(conv(x), torch.tensor(0.5)); x = (x + bias) * 2: the trace moves the constant to
    // the device the import ran on (aten::to with "cpu"), which a library step on the GPU cannot do.
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "conv_weight"}, {"value": "b", "name": "conv_bias"},
                 {"value": "p", "name": "bias"}],
      "outputs": ["6"],
      "nodes": [
        {"kind": "aten::reshape", "inputs": [{"value": "p", "shape": [16]}, {"const": [16, 1, 1]}],
         "outputs": [{"value": "1", "shape": [16, 1, 1], "dtype": "float32"}]},
        {"kind": "aten::_convolution", "inputs": [{"value": "x", "shape": [8, 3, 32, 32]},
           {"value": "w", "shape": [16, 3, 3, 3]}, {"value": "b", "shape": [16]}, {"const": [1, 1]}, {"const": [0, 0]},
           {"const": [1, 1]}, {"const": false}, {"const": [0, 0]}, {"const": 1}, {"const": false}, {"const": false},
           {"const": true}, {"const": false}],
         "outputs": [{"value": "2", "shape": [8, 16, 30, 30], "dtype": "float32"}]},
        {"kind": "aten::to", "overload": "device", "inputs": [{"const": 0.5}, {"const": "cpu"}, {"const": 6},
           {"const": false}, {"const": false}, {"const": null}],
         "outputs": [{"value": "3", "shape": [], "dtype": "float32"}]},
        {"kind": "aten::detach", "inputs": [{"value": "3", "shape": []}],
         "outputs": [{"value": "3a", "shape": [], "dtype": "float32"}]},
        {"kind": "aten::min", "overload": "other", "inputs": [{"value": "2", "shape": [8, 16, 30, 30]},
           {"value": "3a", "shape": []}], "outputs": [{"value": "4", "shape": [8, 16, 30, 30], "dtype": "float32"}]},
        {"kind": "aten::add", "overload": "Tensor", "inputs": [{"value": "4", "shape": [8, 16, 30, 30]},
           {"value": "1", "shape": [16, 1, 1]}, {"const": 1}],
         "outputs": [{"value": "5", "shape": [8, 16, 30, 30], "dtype": "float32"}]},
        {"kind": "aten::mul", "overload": "Tensor", "inputs": [{"value": "5", "shape": [8, 16, 30, 30]}, {"const": 2.0}],
         "outputs": [{"value": "6", "shape": [8, 16, 30, 30], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/conv_min";
    op.inputs = {tensor("x", {"B", "C", "32", "32"}), tensor("conv_weight", {"O", "C", "3", "3"}),
                 tensor("conv_bias", {"O"}), tensor("bias", {"O"})};
    op.outputs = {tensor("out", {"B", "O", "30", "30"})};
    op.shapeSets = {{{"B", 8}, {"C", 3}, {"O", 16}}};
    const auto graph = graphOf(json);
    const auto folded = withDeviceMovesFolded(graph);
    REQUIRE(folded.nodes.size() == 5);
    CHECK(folded.nodes[2].kind == "aten::min");
    CHECK_FALSE(folded.nodes[2].inputs[1].isTensor);
    CHECK(folded.nodes[2].inputs[1].constant == 0.5);

    const auto translated = GraphTranslator().translate(graph, op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 2);
    CHECK(stages[0].op == "aten::_convolution");
    CHECK(stages[1].code
          == "const float v0 = (a0 != a0 || a0 < 0.5f ? a0 : 0.5f);\nconst float v1 = (v0 + a1);\n"
             "const float v2 = (v1 * 2.0f);\n");
    CHECK(translated->policy.allowedLibraryOps == std::vector<std::string>{"aten::_convolution"});
    checkCompiles(*translated);
}

TEST_CASE("a device move of a tensor is the tensor; a constant another call reads as a tensor keeps its calls")
{
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}], "outputs": ["4"],
      "nodes": [
        {"kind": "aten::to", "overload": "device", "inputs": [{"value": "x", "shape": [64, 32]}, {"const": "cpu"},
           {"const": 6}, {"const": false}, {"const": false}, {"const": null}],
         "outputs": [{"value": "1", "shape": [64, 32], "dtype": "float32"}]},
        {"kind": "aten::to", "overload": "device", "inputs": [{"const": 2.0}, {"const": "cpu"}, {"const": 6},
           {"const": false}, {"const": false}, {"const": null}],
         "outputs": [{"value": "2", "shape": [], "dtype": "float32"}]},
        {"kind": "aten::relu", "inputs": [{"value": "1", "shape": [64, 32]}],
         "outputs": [{"value": "3", "shape": [64, 32], "dtype": "float32"}]},
        {"kind": "aten::pow", "overload": "Tensor_Tensor", "inputs": [{"value": "3", "shape": [64, 32]},
           {"value": "2", "shape": []}], "outputs": [{"value": "4", "shape": [64, 32], "dtype": "float32"}]}]}})";
    auto graph = graphOf(json);
    auto folded = withDeviceMovesFolded(graph);
    REQUIRE(folded.nodes.size() == 2);
    CHECK(folded.nodes[0].inputs[0].tensor.value == "x");
    CHECK(folded.nodes[1].inputs[1].constant == 2.0);
    CHECK(withDeviceMovesFolded(folded).nodes.size() == 2);

    // A call outside the elementwise ones reads the constant as a tensor: its move stays, and a pipeline refuses
    // it rather than pass the traced device to a library step.
    graph.nodes[3].kind = "aten::atan2";
    folded = withDeviceMovesFolded(graph);
    REQUIRE(folded.nodes.size() == 3);
    CHECK(folded.nodes[0].kind == "aten::to");
    CHECK(folded.nodes[1].kind == "aten::relu");
    Op op;
    op.name = "kb/moves";
    op.inputs = {tensor("x", {"N", "D"})};
    op.outputs = {tensor("out", {"N", "D"})};
    op.shapeSets = {{{"N", 64}, {"D", 32}}};
    const auto refused = PipelineTranslator::translate(folded, op);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == "aten::to names the device cpu: a library step runs on the candidate's device");
}

TEST_CASE("BatchNorm of a value computed in the same elementwise chain reads its channels from the chain")
{
    // KernelBench's Gemm_Scale_BatchNorm: linear, * scale, BatchNorm1d (running statistics).
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "gemm_weight"}, {"value": "b", "name": "gemm_bias"},
                 {"value": "s", "name": "scale"}, {"value": "g", "name": "bn_weight"}, {"value": "h", "name": "bn_bias"},
                 {"value": "m", "name": "bn_running_mean"}, {"value": "v", "name": "bn_running_var"}],
      "outputs": ["3"],
      "nodes": [
        {"kind": "aten::linear", "inputs": [{"value": "x", "shape": [64, 32]}, {"value": "w", "shape": [48, 32]},
           {"value": "b", "shape": [48]}], "outputs": [{"value": "1", "shape": [64, 48], "dtype": "float32"}]},
        {"kind": "aten::mul", "overload": "Tensor", "inputs": [{"value": "1", "shape": [64, 48]},
           {"value": "s", "shape": [48]}], "outputs": [{"value": "2", "shape": [64, 48], "dtype": "float32"}]},
        {"kind": "aten::batch_norm", "inputs": [{"value": "2", "shape": [64, 48]}, {"value": "g", "shape": [48]},
           {"value": "h", "shape": [48]}, {"value": "m", "shape": [48]}, {"value": "v", "shape": [48]}, {"const": false},
           {"const": 0.1}, {"const": 1e-05}, {"const": true}],
         "outputs": [{"value": "3", "shape": [64, 48], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/gemm_scale_bn";
    op.inputs = {tensor("x", {"B", "K"}),          tensor("gemm_weight", {"N", "K"}), tensor("gemm_bias", {"N"}),
                 tensor("scale", {"N"}),           tensor("bn_weight", {"N"}),        tensor("bn_bias", {"N"}),
                 tensor("bn_running_mean", {"N"}), tensor("bn_running_var", {"N"})};
    op.outputs = {tensor("out", {"B", "N"})};
    op.shapeSets = {{{"B", 64}, {"K", 32}, {"N", 48}}};
    const auto translated = PipelineTranslator::translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 2);
    CHECK(stages[1].code
          == "const float v0 = (a0 * a1);\nconst float v1 = (v0 - a4) * rsqrtf(a5 + 1e-05f) * a2 + a3;\n");
    REQUIRE(stages[1].operands.size() == 6);
    CHECK(stages[1].operands[4].name == "bn_running_mean");
    CHECK(stages[1].operands[4].shape == std::vector<std::string>{"N"});
    checkCompiles(*translated);
}

TEST_CASE("a value bound follows every summation: a product's K, then the length of a sum over its results")
{
    const ValueBound unit;
    const auto product = unit.product(8192, false); // a library GEMM: the reference's own call
    CHECK(product.size == doctest::Approx(std::sqrt(8192.0)));
    CHECK(product.error == 0);
    const auto summed = product.sum(8192);
    CHECK(summed.size == doctest::Approx(8192));
    CHECK(summed.error == doctest::Approx(atencalls::summationAtol(8192, std::sqrt(8192.0))));
    // A generated product rounds in its own order: its error is carried into the sum like a random walk.
    const auto generated = unit.product(8192, true);
    CHECK(generated.error == doctest::Approx(atencalls::summationAtol(8192)));
    CHECK(generated.sum(8192).error
          == doctest::Approx(std::sqrt(8192.0) * atencalls::summationAtol(8192)
                             + atencalls::summationAtol(8192, std::sqrt(8192.0))));
    // A mean divides the sum's error by the count; a normalisation keeps the relative error.
    CHECK(product.mean(8192).error == doctest::Approx(summed.error / 8192));
    CHECK(ValueBound{4, 0.2}.normalized().error == doctest::Approx(0.05));
    CHECK(ValueBound::widest({ValueBound{2, 0.1}, ValueBound{1, 0.3}}).size == 2);
    CHECK(ValueBound::widest({ValueBound{2, 0.1}, ValueBound{1, 0.3}}).error == doctest::Approx(0.3));
}

TEST_CASE("the tolerance of a sum over a GEMM's results counts the product's K and the sum's length")
{
    // KernelBench's Gemm_Divide_Sum_Scaling: matmul(x, weight.T) / 2, summed over 8192 columns, * 1.5. On normal
    // inputs the GEMM's results are about 90 in size, and a kernel that summed 8192 of them in another order than
    // PyTorch differed by 0.022 at one output, where the sum's length alone allowed 0.002.
    const char *json = R"({"graph": {
      "inputs": [{"value": "x", "name": "x"}, {"value": "w", "name": "weight"}], "outputs": ["5"],
      "nodes": [
        {"kind": "aten::numpy_T", "inputs": [{"value": "w", "shape": [8192, 8192]}],
         "outputs": [{"value": "1", "shape": [8192, 8192], "dtype": "float32"}]},
        {"kind": "aten::matmul", "inputs": [{"value": "x", "shape": [1024, 8192]}, {"value": "1", "shape": [8192, 8192]}],
         "outputs": [{"value": "2", "shape": [1024, 8192], "dtype": "float32"}]},
        {"kind": "aten::div", "overload": "Tensor", "inputs": [{"value": "2", "shape": [1024, 8192]}, {"const": 2}],
         "outputs": [{"value": "3", "shape": [1024, 8192], "dtype": "float32"}]},
        {"kind": "aten::sum", "overload": "dim_IntList", "inputs": [{"value": "3", "shape": [1024, 8192]},
           {"const": [1]}, {"const": true}, {"const": null}],
         "outputs": [{"value": "4", "shape": [1024, 1], "dtype": "float32"}]},
        {"kind": "aten::mul", "overload": "Tensor", "inputs": [{"value": "4", "shape": [1024, 1]}, {"const": 1.5}],
         "outputs": [{"value": "5", "shape": [1024, 1], "dtype": "float32"}]}]}})";
    Op op;
    op.name = "kb/gemm_sum";
    op.inputs = {tensor("x", {"batch_size", "input_size"}), tensor("weight", {"hidden_size", "input_size"})};
    op.outputs = {tensor("out", {"batch_size", "1"})};
    op.shapeSets = {{{"batch_size", 1024}, {"input_size", 8192}, {"hidden_size", 8192}}};
    const auto translated = PipelineTranslator::translate(graphOf(json), op);
    const auto stages = test::pipelineStages(translated);
    REQUIRE(stages.size() == 5);
    CHECK(stages[3].reduction == "sum");
    const double bound = atencalls::summationAtol(8192, std::sqrt(8192.0));
    CHECK(translated->policy.atol == doctest::Approx(bound));
    CHECK(translated->policy.atol > 0.022 * 4);
    CHECK(translated->policy.rtol == doctest::Approx(1e-3));

    // Without the product the terms have unit size: the sum's length alone sets the tolerance.
    auto plain = nlohmann::json::parse(json);
    auto &nodes = plain["graph"]["nodes"];
    nodes.erase(nodes.begin(), nodes.begin() + 2);
    nodes[0]["inputs"][0]["value"] = "x";
    plain["graph"]["inputs"] = nlohmann::json::array({{{"value", "x"}, {"name", "x"}}});
    Op sumOnly = op;
    sumOnly.inputs = {tensor("x", {"batch_size", "hidden_size"})};
    const auto unitTerms = PipelineTranslator::translate(*opGraphFromJson(plain["graph"]), sumOnly);
    REQUIRE_MESSAGE(unitTerms, (unitTerms ? "" : unitTerms.error().message));
    CHECK(unitTerms->policy.atol == doctest::Approx(atencalls::summationAtol(8192)));
}
