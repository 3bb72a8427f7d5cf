// The built-in op catalog. Each op declares its tensors, shape sets (the first is the default and is used
// for timing; later ones have odd sizes so kernels that assume multiples of a block size fail), minimal DRAM
// bytes and FLOPs for the roofline floor, tolerances, library-step policy, and a recipe that tells code
// generation what it computes. Its LibTorch reference lives in core/gpu/reference.cpp under the same name.
#include "core/ops/builtinops.h"

#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"

#include <algorithm>
#include <cmath>

namespace kx {
namespace {

TensorSpec tensor(std::string name, std::vector<std::string> shape, std::string dtype = "float32")
{
    return TensorSpec{std::move(name), std::move(shape), std::move(dtype)};
}

OpRecipe recipe(std::string family, std::string expression = {}, std::string reduction = {})
{
    OpRecipe r;
    r.family = std::move(family);
    r.expression = std::move(expression);
    r.reduction = std::move(reduction);
    return r;
}

// The op as a PyTorch module whose forward takes the op's inputs in order: what people read as its reference,
// and what torch.compile compiles for the Inductor baseline.
std::string moduleSource(const std::string &description, const std::vector<TensorSpec> &inputs,
                         const std::string &expression)
{
    std::string arguments;
    for (const auto &input : inputs)
        arguments += ", " + input.name;
    return "import torch\n\n\nclass Model(torch.nn.Module):\n    \"\"\"" + description
           + "\"\"\"\n\n    def forward(self" + arguments + "):\n        return " + expression + "\n";
}

Op makeOp(std::string name, std::string description, std::string reference, std::vector<TensorSpec> inputs,
          std::vector<TensorSpec> outputs, std::vector<ShapeSet> shapeSets, std::string bytes, std::string flops,
          const OpRecipe &how, double atol = 1e-4, double rtol = 1e-4)
{
    Op op;
    op.name = std::move(name);
    op.referenceSource = moduleSource(description, inputs, reference);
    op.description = std::move(description);
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.shapeSets = std::move(shapeSets);
    op.bytesMovedExpr = std::move(bytes);
    op.flopsExpr = std::move(flops);
    op.policy.atol = atol;
    op.policy.rtol = rtol;
    op.recipe = toJson(how);
    return op;
}

// nn.Linear, a sigmoid and a row sum over [M, N] (KernelBench's level-2 56) as pipeline stages: the product a
// library call the pipeline may generate instead (its product gene), then an elementwise and a reduction stage.
OpRecipe linearSigmoidRowSum()
{
    PipelineStage product;
    product.kind = PipelineStage::Kind::Library;
    product.op = "aten::linear";
    product.args = {{{"tensor", "x"}, {"shape", {"M", "K"}}},
                    {{"tensor", "weight"}, {"shape", {"N", "K"}}},
                    {{"tensor", "bias"}, {"shape", {"N"}}}};
    product.outputs = {{"t0", {"M", "N"}}};
    PipelineStage sigmoid;
    sigmoid.operands = {{"t0", {"M", "N"}}};
    sigmoid.code = "const float v0 = 1.0f / (1.0f + expf(-a0));";
    sigmoid.results = {"v0"};
    sigmoid.outputs = {{"t1", {"M", "N"}}};
    PipelineStage sum;
    sum.kind = PipelineStage::Kind::Reduce;
    sum.reduction = "sum";
    sum.operands = {{"t1", {"M", "N"}}};
    sum.outer = "M";
    sum.extent = "N";
    sum.outputs = {{"out", {"M", "1"}}};
    OpRecipe how = recipe("pipeline");
    how.stages = toJson(std::vector<PipelineStage>{product, sigmoid, sum}).dump();
    return how;
}

// Memory-bound ops move at least 256 MiB each way at their default size, as much as the copy that measures the
// GPU's DRAM bandwidth does: with smaller tensors the roofline would measure launch and ramp-up costs rather than
// bandwidth. (KernelBench's own level-1 sizes are larger still.)

// A unary elementwise activation on a vector of 64M floats (and an odd-sized one).
Op activation(std::string name, std::string description, std::string reference, std::string expression,
              int flopsPerElement, double tolerance = 1e-4)
{
    return makeOp(std::move(name), std::move(description), std::move(reference), {tensor("x", {"N"})},
                  {tensor("out", {"N"})}, {{{"N", 1 << 26}}, {{"N", 1000003}}}, "8 * N",
                  std::to_string(flopsPerElement) + " * N", recipe("elementwise", std::move(expression)), tolerance,
                  tolerance);
}

// A reduction over the last dimension of an [N, D] matrix.
Op rowReduction(std::string name, std::string description, std::string reference, std::string reduction,
                std::string outputType = "float32")
{
    OpRecipe how = recipe("reduce", {}, std::move(reduction));
    how.rows = "N";
    how.cols = "D";
    // Sums in another order than PyTorch's: with large-magnitude inputs the rounding differs by about 1e-7
    // of the sum of magnitudes, which the absolute tolerance must cover for rows that cancel out.
    return makeOp(std::move(name), std::move(description), std::move(reference), {tensor("x", {"N", "D"})},
                  {tensor("out", {"N"}, std::move(outputType))},
                  {{{"N", 16384}, {"D", 4096}}, {{"N", 333}, {"D", 1028}}}, "4 * N * D + 4 * N", "N * D", how, 1e-2,
                  1e-3);
}

// A reduction over the middle dimension of [N, C, S] (KernelBench's reductions over dimension 1 of a 3-D tensor).
Op middleReduction(std::string name, std::string description, std::string reference, std::string reduction,
                   std::vector<ShapeSet> shapeSets, std::string outputType = "float32")
{
    OpRecipe how = recipe("reduce", {}, std::move(reduction));
    how.rows = "N";
    how.cols = "C";
    how.inner = "S";
    const std::string outputBytes = outputType == "int64" ? "8" : "4";
    return makeOp(std::move(name), std::move(description), std::move(reference), {tensor("x", {"N", "C", "S"})},
                  {tensor("out", {"N", "S"}, std::move(outputType))}, std::move(shapeSets),
                  "4 * N * C * S + " + outputBytes + " * N * S", "N * C * S", how, 1e-2, 1e-3);
}

OpRecipe rowsOf(OpRecipe how)
{
    how.rows = "N";
    how.cols = "D";
    return how;
}

// out = x / epilogue(reduction of prologue(x) over each row of [N, D]).
OpRecipe normalize(std::string reduction, std::string prologue, std::string epilogue)
{
    OpRecipe how = rowsOf(recipe("normalize", std::move(epilogue), std::move(reduction)));
    how.prologue = std::move(prologue);
    return how;
}

} // namespace

ShapeSet groupNormShapes(long long n, long long c, long long h, long long w)
{
    return {{"N", n}, {"C", c}, {"H", h}, {"W", w}, {"R", n * 4}, {"D", c / 4 * h * w}, {"S", h * w}};
}

ShapeSet instanceNormShapes(long long n, long long c, long long h, long long w)
{
    return {{"N", n}, {"C", c}, {"H", h}, {"W", w}, {"R", n * c}, {"D", h * w}};
}

namespace {

// A cumulative sum or product along the rows of [N, D] (the scan template).
OpRecipe scan(std::string reduction, bool exclusive = false, bool reverse = false)
{
    OpRecipe how = rowsOf(recipe("scan", {}, std::move(reduction)));
    how.exclusive = exclusive;
    how.reverse = reverse;
    return how;
}

OpRecipe gemm(std::string epilogue, bool transposeB = false, std::string bias = {},
              std::vector<std::string> epilogueInputs = {})
{
    OpRecipe how = recipe("gemm", std::move(epilogue));
    how.transposeB = transposeB;
    how.bias = std::move(bias);
    how.epilogueInputs = std::move(epilogueInputs);
    return how;
}

std::vector<Op> makeBuiltInOps()
{
    std::vector<Op> ops;

    // Elementwise activations.
    ops.push_back(activation("relu", "Elementwise max(x, 0).", "torch.relu(x)", "fmaxf(x, 0.0f)", 1));
    ops.push_back(activation("leaky_relu", "LeakyReLU with negative slope 0.01.",
                             "torch.nn.functional.leaky_relu(x, 0.01)", "x > 0.0f ? x : 0.01f * x", 2));
    ops.push_back(activation("gelu_tanh", "GELU, tanh approximation.",
                             "torch.nn.functional.gelu(x, approximate='tanh')",
                             "0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)))", 8));
    ops.push_back(activation("gelu", "GELU, exact (erf).", "torch.nn.functional.gelu(x)",
                             "0.5f * x * (1.0f + erff(x * 0.70710678118f))", 5));
    ops.push_back(activation("sigmoid", "Logistic sigmoid.", "torch.sigmoid(x)", "1.0f / (1.0f + expf(-x))", 4));
    ops.push_back(activation("tanh", "Hyperbolic tangent.", "torch.tanh(x)", "tanhf(x)", 4));
    ops.push_back(
        activation("silu", "SiLU (swish): x * sigmoid(x).", "torch.nn.functional.silu(x)", "x / (1.0f + expf(-x))", 5));
    ops.push_back(activation("softplus", "Softplus, beta 1, threshold 20.", "torch.nn.functional.softplus(x)",
                             "x > 20.0f ? x : log1pf(expf(x))", 4));
    ops.push_back(activation("elu", "ELU with alpha 1.", "torch.nn.functional.elu(x)", "x > 0.0f ? x : expm1f(x)", 3));
    ops.push_back(activation("hardtanh", "Hardtanh clamped to [-1, 1].", "torch.nn.functional.hardtanh(x)",
                             "fminf(fmaxf(x, -1.0f), 1.0f)", 2));

    // Elementwise with two inputs and with broadcasting.
    ops.push_back(makeOp("add", "Elementwise sum of two tensors of the same shape.", "torch.add(a, b)",
                         {tensor("a", {"N"}), tensor("b", {"N"})}, {tensor("out", {"N"})},
                         {{{"N", 1 << 26}}, {{"N", 999999}}}, "12 * N", "N", recipe("elementwise", "a + b")));
    // Two eager kernels in PyTorch (mul, then add): the classic fusion opportunity.
    ops.push_back(makeOp("scale_bias", "Per-column scale and bias of a matrix: x * scale + bias, broadcast over rows.",
                         "x * scale + bias", {tensor("x", {"N", "D"}), tensor("scale", {"D"}), tensor("bias", {"D"})},
                         {tensor("out", {"N", "D"})}, {{{"N", 16384}, {"D", 4096}}, {{"N", 1001}, {"D", 777}}},
                         "8 * N * D + 8 * D", "2 * N * D", recipe("elementwise", "x * scale + bias")));
    // A KernelBench level-2 style chain of five eager kernels, fused into one.
    ops.push_back(makeOp(
        "chain_scale_add_sigmoid_mul_clamp", "clamp(sigmoid(x * 1.5 + y) * y - 0.1, -0.5, 0.5): five eager kernels.",
        "torch.clamp(torch.sigmoid(x * 1.5 + y) * y - 0.1, -0.5, 0.5)", {tensor("x", {"N"}), tensor("y", {"N"})},
        {tensor("out", {"N"})}, {{{"N", 1 << 26}}, {{"N", 1000001}}}, "12 * N", "9 * N",
        recipe("elementwise", "fminf(fmaxf(1.0f / (1.0f + expf(-(x * 1.5f + y))) * y - 0.1f, -0.5f), 0.5f)")));

    // Reductions over a dimension.
    ops.push_back(rowReduction("row_sum", "Sum of each row of a matrix.", "x.sum(dim=1)", "sum"));
    ops.push_back(rowReduction("row_mean", "Mean of each row of a matrix.", "x.mean(dim=1)", "mean"));
    ops.push_back(rowReduction("row_max", "Maximum of each row of a matrix.", "x.amax(dim=1)", "max"));
    ops.push_back(
        rowReduction("row_argmax", "Index of the maximum of each row (int64).", "x.argmax(dim=1)", "argmax", "int64"));

    // The same over a middle dimension: few outputs (the reduced dimension split across blocks), an odd inner size,
    // vector loads with ties (argmin), and a short product over many outputs.
    ops.push_back(middleReduction("sum_dim1", "Sum over the middle dimension of [N, C, S].", "x.sum(dim=1)", "sum",
                                  {{{"N", 16}, {"C", 1024}, {"S", 4096}}, {{"N", 3}, {"C", 77}, {"S", 1001}}}));
    ops.push_back(middleReduction("argmin_dim1", "Index of the minimum over the middle dimension of [N, C, S] (int64).",
                                  "x.argmin(dim=1)", "argmin",
                                  {{{"N", 16}, {"C", 1024}, {"S", 4096}}, {{"N", 2}, {"C", 333}, {"S", 4100}}},
                                  "int64"));
    ops.push_back(middleReduction("prod_dim1", "Product over the middle dimension of [N, C, S].", "x.prod(dim=1)",
                                  "prod", {{{"N", 16}, {"C", 16}, {"S", 262144}}, {{"N", 3}, {"C", 7}, {"S", 1001}}}));

    // Rows divided by a statistic of them (KernelBench's L1 and L2 normalisations): one kernel reads x twice.
    for (const auto &[name, description, reference, how] :
         {std::tuple<std::string, std::string, std::string, OpRecipe>{
              "l1_normalize", "Each row divided by the mean of its magnitudes.",
              "x / torch.mean(torch.abs(x), dim=1, keepdim=True)", normalize("mean", "fabsf(v)", "")},
          {"l2_normalize", "Each row divided by its Euclidean norm.", "x / torch.norm(x, p=2, dim=1, keepdim=True)",
           normalize("sum", "(v * v)", "sqrtf(acc)")}})
        ops.push_back(makeOp(name, description, reference, {tensor("x", {"N", "D"})}, {tensor("out", {"N", "D"})},
                             {{{"N", 4096}, {"D", 16384}}, {{"N", 333}, {"D", 1029}}}, "8 * N * D", "3 * N * D", how,
                             1e-4, 1e-3));

    // Softmax and log-softmax.
    for (const auto &[name, reduction, reference] :
         {std::tuple<std::string, std::string, std::string>{"softmax", "softmax", "torch.softmax(x, dim=1)"},
          {"log_softmax", "logsoftmax", "torch.log_softmax(x, dim=1)"}}) {
        ops.push_back(makeOp(name, "Numerically stable " + reduction + " over the last dimension of a matrix.",
                             reference, {tensor("x", {"N", "D"})}, {tensor("out", {"N", "D"})},
                             {{{"N", 16384}, {"D", 4096}}, {{"N", 1001}, {"D", 340}}}, "8 * N * D", "5 * N * D",
                             rowsOf(recipe("softmax", {}, reduction)), 1e-5, 1e-3));
    }

    // Normalisations.
    ops.push_back(makeOp("layer_norm", "LayerNorm over the last dimension with weight and bias, eps 1e-5.",
                         "torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias)",
                         {tensor("x", {"N", "D"}), tensor("weight", {"D"}), tensor("bias", {"D"})},
                         {tensor("out", {"N", "D"})}, {{{"N", 16384}, {"D", 4096}}, {{"N", 777}, {"D", 516}}},
                         "8 * N * D + 8 * D", "8 * N * D", rowsOf(recipe("norm", {}, "layernorm")), 1e-4, 1e-3));
    ops.push_back(makeOp("rms_norm", "RMSNorm over the last dimension with weight, eps 1e-5.",
                         "x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * weight",
                         {tensor("x", {"N", "D"}), tensor("weight", {"D"})}, {tensor("out", {"N", "D"})},
                         {{{"N", 16384}, {"D", 4096}}, {{"N", 777}, {"D", 516}}}, "8 * N * D + 4 * D", "4 * N * D",
                         rowsOf(recipe("norm", {}, "rmsnorm")), 1e-4, 1e-3));
    OpRecipe channels = recipe("norm", {}, "rmsnorm");
    channels.rows = "N";
    channels.cols = "C";
    channels.inner = "S";
    ops.push_back(makeOp("rms_norm_channels",
                         "RMSNorm over the channels of [N, C, S] (an image batch, spatial dimensions flattened), "
                         "without weight, eps 1e-5.",
                         "x / torch.sqrt(x.pow(2).mean(1, keepdim=True) + 1e-5)", {tensor("x", {"N", "C", "S"})},
                         {tensor("out", {"N", "C", "S"})},
                         {{{"N", 16}, {"C", 64}, {"S", 262144}}, {{"N", 3}, {"C", 7}, {"S", 1001}}}, "8 * N * C * S",
                         "4 * N * C * S", channels, 1e-4, 1e-3));

    // GroupNorm of an image batch: 4 groups of channels, weight and bias per channel. A row is a (sample, group),
    // D = (C / 4) * H * W contiguous elements; R, D and S (a channel's elements) are bound in each shape set. The
    // second set is small and odd (rows and channels not multiples of a block or a vector).
    OpRecipe groups = recipe("norm", {}, "layernorm");
    groups.rows = "R";
    groups.cols = "D";
    groups.groups = "4";
    groups.channelSize = "S";
    ops.push_back(makeOp("group_norm",
                         "GroupNorm of [N, C, H, W] in 4 groups with per-channel weight and bias, eps 1e-5.",
                         "torch.nn.functional.group_norm(x, 4, weight, bias)",
                         {tensor("x", {"N", "C", "H", "W"}), tensor("weight", {"C"}), tensor("bias", {"C"})},
                         {tensor("out", {"N", "C", "H", "W"})},
                         {groupNormShapes(16, 64, 256, 256), groupNormShapes(3, 12, 37, 37)},
                         "8 * N * C * H * W + 8 * C", "8 * N * C * H * W", groups, 1e-4, 1e-3));

    // InstanceNorm without affine transform (KernelBench's 34): a layernorm of rows R = N * C, each a channel's
    // D = H * W elements. Rows of 1 MB (34's) by default; the second set's rows are odd and just long enough for the
    // templates of long rows (an InstanceNorm has no one-block kernel).
    OpRecipe instances = recipe("norm", {}, "layernorm");
    instances.rows = "R";
    instances.cols = "D";
    ops.push_back(makeOp("instance_norm", "InstanceNorm of [N, C, H, W] without affine transform, eps 1e-5.",
                         "torch.nn.functional.instance_norm(x, eps=1e-5)", {tensor("x", {"N", "C", "H", "W"})},
                         {tensor("out", {"N", "C", "H", "W"})},
                         {instanceNormShapes(8, 32, 512, 512), instanceNormShapes(3, 5, 129, 131)},
                         "8 * N * C * H * W", "6 * N * C * H * W", instances, 1e-4, 1e-3));

    // Losses: a scalar summed in two deterministic kernels (partial sums a block, then one block adds them). Terms
    // of elements (smooth L1; KL divergence of log-probabilities, finite for any inputs) or of rows (cross entropy
    // over int64 class indices that the trials draw from [0, C); triplet margin of Euclidean distances); the odd
    // sets' rows and columns are no multiple of a warp or of four.
    const auto loss = [](std::string prologue, std::string expression, std::string reduction, std::string cols) {
        OpRecipe how = recipe("loss", std::move(expression), std::move(reduction));
        how.prologue = std::move(prologue);
        how.rows = "N";
        how.cols = std::move(cols);
        return how;
    };
    const std::vector<TensorSpec> pair{tensor("predictions", {"N", "D"}), tensor("targets", {"N", "D"})};
    const std::vector<ShapeSet> pairShapes{{{"N", 8192}, {"D", 8192}}, {{"N", 33}, {"D", 1001}}};
    const std::string huber = "fabsf(predictions - targets)";
    ops.push_back(makeOp("smooth_l1_loss", "Smooth L1 (Huber, beta 1) loss, the mean over every element.",
                         "torch.nn.functional.smooth_l1_loss(predictions, targets)", pair, {tensor("out", {})},
                         pairShapes, "8 * N * D + 4", "5 * N * D",
                         loss("elementwise",
                              "(" + huber + " < 1.0f ? 0.5f * " + huber + " * " + huber + " : " + huber + " - 0.5f)",
                              "mean", "D"),
                         1e-3, 1e-3));
    ops.push_back(makeOp("kl_div_log_target",
                         "KL divergence of log-probabilities, the sum divided by the batch (batchmean).",
                         "torch.nn.functional.kl_div(predictions, targets, reduction='batchmean', log_target=True)",
                         pair, {tensor("out", {})}, pairShapes, "8 * N * D + 4", "4 * N * D",
                         loss("elementwise", "expf(targets) * (targets - predictions)", "batchmean", "D"), 2e-3,
                         1e-3));
    // Hinge: targets [D] repeat along the rows of predictions (as KernelBench's 100 broadcasts them).
    ops.push_back(makeOp("hinge_loss", "Hinge loss of predictions [N, D] and targets [D] repeated along the rows.",
                         "torch.mean(torch.clamp(1 - predictions * targets, min=0))",
                         {tensor("predictions", {"N", "D"}), tensor("targets", {"D"})}, {tensor("out", {})},
                         pairShapes, "4 * N * D + 4 * D + 4", "3 * N * D",
                         loss("elementwise",
                              "(1.0f - predictions * targets <= 0.0f ? 0.0f : 1.0f - predictions * targets)", "mean",
                              "D"),
                         1e-3, 1e-3));
    OpRecipe crossEntropy = loss("cross-entropy", {}, "mean", "C");
    TensorSpec classes = tensor("targets", {"N"}, "int64");
    classes.valueRange = {"0", "C"};
    ops.push_back(makeOp("cross_entropy", "Cross entropy of logits [N, C] and class indices, the mean over the rows.",
                         "torch.nn.functional.cross_entropy(predictions, targets)",
                         {tensor("predictions", {"N", "C"}), classes}, {tensor("out", {})},
                         {{{"N", 16384}, {"C", 4096}}, {{"N", 33}, {"C", 1001}}}, "4 * N * C + 8 * N + 4",
                         "3 * N * C", crossEntropy, 1e-3, 1e-3));
    OpRecipe triplet = loss("triplet-margin", "(1.0f + dpos - dneg <= 0.0f ? 0.0f : 1.0f + dpos - dneg)", "mean", "D");
    triplet.eps = 1e-6;
    ops.push_back(makeOp("triplet_margin_loss",
                         "Triplet margin loss (margin 1, Euclidean distances, eps 1e-6), the mean over the rows.",
                         "torch.nn.functional.triplet_margin_loss(anchor, positive, negative)",
                         {tensor("anchor", {"N", "D"}), tensor("positive", {"N", "D"}), tensor("negative", {"N", "D"})},
                         {tensor("out", {})}, {{{"N", 8192}, {"D", 8192}}, {{"N", 7}, {"D", 517}}},
                         "12 * N * D + 4", "6 * N * D", triplet, 2e-3, 1e-3));

    // Scans: fp32 sums in another order than PyTorch's (the tolerance grows with the row), products whose running
    // value under- and overflows on most trial inputs.
    const auto rowScan = [&](std::string name, std::string description, std::string reference, OpRecipe how,
                             std::vector<ShapeSet> shapes, double atol) {
        ops.push_back(makeOp(std::move(name), std::move(description), std::move(reference), {tensor("x", {"N", "D"})},
                             {tensor("out", {"N", "D"})}, std::move(shapes), "8 * N * D", "N * D", how, atol, 1e-3));
    };
    rowScan("cumsum", "Cumulative sum along each row of a matrix.", "torch.cumsum(x, dim=1)", scan("sum"),
            {{{"N", 16384}, {"D", 4096}}, {{"N", 333}, {"D", 1029}}}, 1e-2);
    rowScan("cumsum_long_rows", "Cumulative sum along a few rows of 4 Mi elements (rows span many blocks).",
            "torch.cumsum(x, dim=1)", scan("sum"), {{{"N", 16}, {"D", 4194304}}, {{"N", 3}, {"D", 1000003}}}, 0.25);
    rowScan("cumsum_reverse_exclusive", "Reverse exclusive cumulative sum: out[:, j] sums x[:, j + 1:].",
            "torch.cat([x.flip(1).cumsum(1).flip(1)[:, 1:], torch.zeros_like(x[:, :1])], dim=1)",
            scan("sum", true, true), {{{"N", 64}, {"D", 1048576}}, {{"N", 5}, {"D", 4097}}}, 0.25);
    rowScan("cumprod", "Cumulative product along each row of a matrix.", "torch.cumprod(x, dim=1)", scan("prod"),
            {{{"N", 16384}, {"D", 4096}}, {{"N", 333}, {"D", 1029}}}, 1e-4);
    OpRecipe channelScan = recipe("scan", {}, "sum");
    channelScan.rows = "N";
    channelScan.cols = "C";
    channelScan.inner = "S";
    ops.push_back(makeOp("cumsum_channels", "Cumulative sum over the channels of [N, C, S] (a middle dimension).",
                         "torch.cumsum(x, dim=1)", {tensor("x", {"N", "C", "S"})}, {tensor("out", {"N", "C", "S"})},
                         {{{"N", 16}, {"C", 64}, {"S", 65536}}, {{"N", 3}, {"C", 7}, {"S", 1001}}}, "8 * N * C * S",
                         "N * C * S", channelScan, 1e-2, 1e-3));
    // A bool input: the mask is read as one byte an element.
    OpRecipe masked = scan("sum");
    masked.prologue = "x * mask";
    ops.push_back(makeOp("masked_cumsum", "Cumulative sum of the elements a bool mask keeps: cumsum(x * mask).",
                         "torch.cumsum(x * mask, dim=1)", {tensor("x", {"N", "D"}), tensor("mask", {"N", "D"}, "bool")},
                         {tensor("out", {"N", "D"})}, {{{"N", 16384}, {"D", 4096}}, {{"N", 333}, {"D", 1029}}},
                         "9 * N * D", "2 * N * D", masked, 1e-2, 1e-3));

    // Matrix products (fp32 accumulation in another order than cuBLAS: tolerances scale with K).
    ops.push_back(makeOp("matmul", "Square matrix product.", "torch.matmul(a, b)",
                         {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})}, {tensor("out", {"M", "N"})},
                         {{{"M", 2048}, {"N", 2048}, {"K", 2048}}, {{"M", 517}, {"N", 389}, {"K", 261}}},
                         "4 * (M * K + K * N + M * N)", "2 * M * N * K", gemm("acc"), 1e-3, 1e-3));
    ops.push_back(makeOp("matmul_tall_skinny", "Tall-skinny matrix product: [16384, 64] x [64, 64].",
                         "torch.matmul(a, b)", {tensor("a", {"M", "K"}), tensor("b", {"K", "N"})},
                         {tensor("out", {"M", "N"})},
                         {{{"M", 16384}, {"N", 64}, {"K", 64}}, {{"M", 5000}, {"N", 29}, {"K", 37}}},
                         "4 * (M * K + K * N + M * N)", "2 * M * N * K", gemm("acc"), 1e-3, 1e-3));
    // GEMM chains may run the product as a library step and fuse what follows (as conv2d_bias_relu does); the
    // plain matmuls may not: there the question is what a generated kernel reaches.
    Op linear = makeOp(
        "linear_bias_relu", "nn.Linear (weight [N, K], bias [N]) followed by ReLU.",
        "torch.relu(torch.nn.functional.linear(x, weight, bias))",
        {tensor("x", {"M", "K"}), tensor("weight", {"N", "K"}), tensor("bias", {"N"})}, {tensor("out", {"M", "N"})},
        {{{"M", 512}, {"N", 1024}, {"K", 1024}}, {{"M", 33}, {"N", 70}, {"K", 100}}}, "4 * (M * K + N * K + N + M * N)",
        "2 * M * N * K + 2 * M * N", gemm("fmaxf(acc, 0.0f)", true, "bias"), 1e-3, 1e-3);
    linear.policy.allowLibrarySteps = true;
    linear.policy.allowedLibraryOps = {"aten::linear"};
    ops.push_back(linear);
    Op residual = makeOp(
        "matmul_scale_residual_clamp", "clamp(matmul(a, b) * 2 + residual, -1, 1): four eager kernels.",
        "torch.clamp(torch.matmul(a, b) * 2.0 + residual, -1.0, 1.0)",
        {tensor("a", {"M", "K"}), tensor("b", {"K", "N"}), tensor("residual", {"M", "N"})}, {tensor("out", {"M", "N"})},
        {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 100}, {"N", 77}, {"K", 65}}},
        "4 * (M * K + K * N + 2 * M * N)", "2 * M * N * K + 3 * M * N",
        gemm("fminf(fmaxf(acc * 2.0f + residual, -1.0f), 1.0f)", false, {}, {"residual"}), 1e-3, 1e-3);
    residual.policy.allowLibrarySteps = true;
    residual.policy.allowedLibraryOps = {"aten::mm"};
    ops.push_back(residual);
    // The layouts beyond the plain product (KernelBench's 3, 10, 14 to 16): a transposed a read in place, leading
    // dimensions folded into the rows, batches, and triangles that skip the products of their zero tiles. The
    // library product is allowed, so that its transposed views are verified too.
    const auto layoutProduct = [&](std::string name, std::string description, std::string reference,
                                   std::vector<TensorSpec> inputs, TensorSpec output, std::vector<ShapeSet> shapeSets,
                                   std::string bytes, std::string flops, const OpRecipe &how) {
        Op op = makeOp(std::move(name), std::move(description), std::move(reference), std::move(inputs),
                       {std::move(output)}, std::move(shapeSets), std::move(bytes), std::move(flops), how, 1e-3, 1e-3);
        op.policy.allowLibrarySteps = true;
        op.policy.allowedLibraryOps = {gemmLibraryOp(how)};
        ops.push_back(op);
    };
    OpRecipe transposedA = gemm("acc");
    transposedA.transposeA = true;
    layoutProduct("matmul_transposed_a", "a.T @ b with a given as [K, M].", "torch.matmul(a.T, b)",
                  {tensor("a", {"K", "M"}), tensor("b", {"K", "N"})}, tensor("out", {"M", "N"}),
                  {{{"M", 2048}, {"N", 2048}, {"K", 2048}}, {{"M", 517}, {"N", 389}, {"K", 131}}},
                  "4 * (K * M + K * N + M * N)", "2 * M * N * K", transposedA);
    OpRecipe folded = gemm("acc");
    folded.leading = {"L"};
    layoutProduct("matmul_3d", "A 3-D tensor times a matrix: [L, M, K] @ [K, N].", "torch.matmul(a, b)",
                  {tensor("a", {"L", "M", "K"}), tensor("b", {"K", "N"})}, tensor("out", {"L", "M", "N"}),
                  {{{"L", 16}, {"M", 256}, {"N", 1024}, {"K", 1024}}, {{"L", 3}, {"M", 67}, {"N", 129}, {"K", 77}}},
                  "4 * (L * M * K + K * N + L * M * N)", "2 * L * M * N * K", folded);
    OpRecipe batched = gemm("acc");
    batched.batch = "B";
    layoutProduct("bmm", "Batched matrix product: [B, M, K] @ [B, K, N].", "torch.bmm(a, b)",
                  {tensor("a", {"B", "M", "K"}), tensor("b", {"B", "K", "N"})}, tensor("out", {"B", "M", "N"}),
                  {{{"B", 32}, {"M", 512}, {"N", 512}, {"K", 512}}, {{"B", 3}, {"M", 65}, {"N", 129}, {"K", 77}}},
                  "4 * (B * M * K + B * K * N + B * M * N)", "2 * B * M * N * K", batched);
    OpRecipe upper = gemm("acc");
    upper.m = upper.n = upper.k = "N";
    upper.triangle = "upper";
    layoutProduct("matmul_upper", "The upper triangle of a square product: triu(a @ b).",
                  "torch.triu(torch.matmul(a, b))", {tensor("a", {"N", "N"}), tensor("b", {"N", "N"})},
                  tensor("out", {"N", "N"}), {{{"N", 2048}}, {{"N", 333}}}, "4 * 3 * N * N", "N * N * N", upper);
    OpRecipe lower = gemm("acc");
    lower.batch = "B";
    lower.transposeA = true;
    lower.triangle = "lower";
    lower.diagonal = -1;
    layoutProduct("bmm_lower_transposed_a",
                  "tril(a[i].T @ b, -1) for each matrix of a (given as [B, K, M]) and one b: a batch, a transposed a, "
                  "a shared b and a triangle below the diagonal.",
                  "torch.tril(torch.matmul(a.transpose(1, 2), b), -1)",
                  {tensor("a", {"B", "K", "M"}), tensor("b", {"K", "N"})}, tensor("out", {"B", "M", "N"}),
                  {{{"B", 16}, {"M", 512}, {"N", 512}, {"K", 256}}, {{"B", 3}, {"M", 70}, {"N", 90}, {"K", 33}}},
                  "4 * (B * K * M + K * N + B * M * N)", "B * M * N * K", lower);

    // A product before a row reduction, with odd sizes in the second shape set.
    Op rowSum = makeOp(
        "linear_sigmoid_rowsum", "nn.Linear (weight [N, K], bias [N]), a sigmoid and the sum of each row.",
        "torch.sum(torch.sigmoid(torch.nn.functional.linear(x, weight, bias)), dim=1, keepdim=True)",
        {tensor("x", {"M", "K"}), tensor("weight", {"N", "K"}), tensor("bias", {"N"})}, {tensor("out", {"M", "1"})},
        {{{"M", 512}, {"N", 1024}, {"K", 1024}}, {{"M", 37}, {"N", 201}, {"K", 75}}}, "4 * (M * K + N * K + N + M)",
        "2 * M * N * K + 6 * M * N", linearSigmoidRowSum(), 1e-3, 1e-3);
    rowSum.policy.allowLibrarySteps = true;
    rowSum.policy.allowedLibraryOps = {"aten::linear"};
    ops.push_back(rowSum);

    // Scaled dot-product attention over [B, H, S, D] (KernelBench's 97 at a smaller size): two batched products
    // around a row softmax. Head dims of 40 and 64 (not multiples of a tile), a causal mask on the second; the
    // scale is PyTorch's default, 1 / sqrt(D).
    const auto attention = [&](std::string name, std::string description, std::string reference, int headDim,
                               bool causal) {
        OpRecipe how = recipe("attention");
        how.leading = {"B", "H"};
        how.m = how.n = "S";
        how.k = "D";
        how.scale = 1.0 / std::sqrt(double(headDim));
        how.causal = causal;
        const std::string products = causal ? "2 * B * H * S * S * D" : "4 * B * H * S * S * D";
        ops.push_back(makeOp(std::move(name), std::move(description), std::move(reference),
                             {tensor("q", {"B", "H", "S", "D"}), tensor("k", {"B", "H", "S", "D"}),
                              tensor("v", {"B", "H", "S", "D"})},
                             {tensor("out", {"B", "H", "S", "D"})},
                             {{{"B", 4}, {"H", 8}, {"S", 512}, {"D", headDim}}, {{"B", 2}, {"H", 3}, {"S", 77}, {"D", headDim}}},
                             "4 * 4 * B * H * S * D", products + " + 5 * B * H * S * S", how, 1e-3, 1e-3));
    };
    attention("attention", "Scaled dot-product attention, head dim 40: softmax(q @ k^T / sqrt(D)) @ v.",
              "torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1) @ v", 40, false);
    attention("attention_causal", "Causal scaled dot-product attention, head dim 64: keys after the query masked.",
              "torch.softmax((q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(torch.ones(q.shape[-2], "
              "k.shape[-2], dtype=torch.bool, device=q.device).triu(1), float('-inf')), dim=-1) @ v",
              64, true);

    // Data movement.
    OpRecipe transpose = recipe("transpose");
    ops.push_back(makeOp("transpose", "2-D transpose of an [R, C] matrix.", "x.t().contiguous()",
                         {tensor("x", {"R", "C"})}, {tensor("out", {"C", "R"})},
                         {{{"R", 8192}, {"C", 8192}}, {{"R", 1001}, {"C", 777}}}, "8 * R * C", "0", transpose, 0, 0));

    // Convolution as a library step, bias and ReLU fused into one epilogue kernel.
    Op conv =
        makeOp("conv2d_bias_relu", "conv2d (stride 1, no padding) + per-channel bias + ReLU.",
               "torch.relu(torch.nn.functional.conv2d(x, weight) + bias.view(1, -1, 1, 1))",
               {tensor("x", {"B", "CI", "H", "W"}), tensor("weight", {"CO", "CI", "KH", "KW"}), tensor("bias", {"CO"})},
               {tensor("out", {"B", "CO", "OH", "OW"})},
               {{{"B", 16}, {"CI", 16}, {"H", 64}, {"W", 64}, {"CO", 32}, {"KH", 3}, {"KW", 3}, {"OH", 62}, {"OW", 62}},
                {{"B", 2}, {"CI", 3}, {"H", 17}, {"W", 19}, {"CO", 5}, {"KH", 3}, {"KW", 3}, {"OH", 15}, {"OW", 17}}},
               "4 * (B * CI * H * W + CO * CI * KH * KW + CO + B * CO * OH * OW)",
               "2 * B * CO * OH * OW * CI * KH * KW + 2 * B * CO * OH * OW",
               recipe("conv-epilogue", "fmaxf(acc + bias[c], 0.0f)"), 1e-3, 1e-3);
    conv.policy.allowLibrarySteps = true;
    conv.policy.allowedLibraryOps = {"aten::conv2d"};
    ops.push_back(conv);

    return ops;
}

} // namespace

const std::vector<Op> &builtInOps()
{
    static const std::vector<Op> ops = makeBuiltInOps();
    return ops;
}

const Op *findBuiltInOp(const std::string &name)
{
    const auto &ops = builtInOps();
    const auto it = std::find_if(ops.begin(), ops.end(), [&](const Op &op) { return op.name == name; });
    return it == ops.end() ? nullptr : &*it;
}

} // namespace kx
