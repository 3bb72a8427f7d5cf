// LibTorch references of the built-in ops (one of the two translation units that include LibTorch).
// Adding an op's reference is one entry in references() below.
#include "core/gpu/reference.h"

#include "core/gpu/scriptedreference.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/torchinterop.h"

#include <ATen/ATen.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <utility>

namespace kx {
namespace {

using Tensors = std::vector<at::Tensor>;
using ReferenceFunction = std::function<Tensors(const Tensors &)>;

// softmax(q @ k^T / sqrt(E)) @ v, with -inf above the diagonal where causal: scaled_dot_product_attention spelled
// out (what it computes at any LibTorch version, and in double).
at::Tensor attention(const Tensors &in, bool causal)
{
    const auto &q = in[0], &k = in[1], &v = in[2];
    auto scores = at::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(q.size(-1)));
    if (causal)
        scores = scores.masked_fill(at::ones({q.size(-2), k.size(-2)}, scores.options().dtype(at::kBool)).triu(1),
                                    -std::numeric_limits<double>::infinity());
    return at::matmul(at::softmax(scores, -1), v);
}

// Keyed by op name; inputs arrive in the order of the op's input specs, results in the order of its outputs.
// Each entry is what the op's referenceSource says in PyTorch.
const std::map<std::string, ReferenceFunction> &references()
{
    static const std::map<std::string, ReferenceFunction> table = [] {
        return std::map<std::string, ReferenceFunction>{
            {"relu", [](const Tensors &in) { return Tensors{at::relu(in[0])}; }},
            {"leaky_relu", [](const Tensors &in) { return Tensors{at::leaky_relu(in[0], 0.01)}; }},
            {"gelu_tanh", [](const Tensors &in) { return Tensors{at::gelu(in[0], "tanh")}; }},
            {"gelu", [](const Tensors &in) { return Tensors{at::gelu(in[0])}; }},
            {"sigmoid", [](const Tensors &in) { return Tensors{at::sigmoid(in[0])}; }},
            {"tanh", [](const Tensors &in) { return Tensors{at::tanh(in[0])}; }},
            {"silu", [](const Tensors &in) { return Tensors{at::silu(in[0])}; }},
            {"softplus", [](const Tensors &in) { return Tensors{at::softplus(in[0], 1, 20)}; }},
            {"elu", [](const Tensors &in) { return Tensors{at::elu(in[0])}; }},
            {"hardtanh", [](const Tensors &in) { return Tensors{at::hardtanh(in[0], -1, 1)}; }},
            {"add", [](const Tensors &in) { return Tensors{at::add(in[0], in[1])}; }},
            {"scale_bias", [](const Tensors &in) { return Tensors{in[0] * in[1] + in[2]}; }},
            {"chain_scale_add_sigmoid_mul_clamp",
             [](const Tensors &in) {
                 return Tensors{at::clamp(at::sigmoid(in[0] * 1.5 + in[1]) * in[1] - 0.1, -0.5, 0.5)};
             }},
            {"row_sum", [](const Tensors &in) { return Tensors{in[0].sum(1)}; }},
            {"row_mean", [](const Tensors &in) { return Tensors{in[0].mean(1)}; }},
            {"row_max", [](const Tensors &in) { return Tensors{in[0].amax(1)}; }},
            {"row_argmax", [](const Tensors &in) { return Tensors{in[0].argmax(1)}; }},
            {"sum_dim1", [](const Tensors &in) { return Tensors{in[0].sum(1)}; }},
            {"argmin_dim1", [](const Tensors &in) { return Tensors{in[0].argmin(1)}; }},
            {"prod_dim1", [](const Tensors &in) { return Tensors{in[0].prod(1)}; }},
            {"l1_normalize", [](const Tensors &in) { return Tensors{in[0] / in[0].abs().mean(1, true)}; }},
            {"l2_normalize", [](const Tensors &in) { return Tensors{in[0] / at::norm(in[0], 2, {1}, true)}; }},
            {"softmax", [](const Tensors &in) { return Tensors{at::softmax(in[0], 1)}; }},
            {"log_softmax", [](const Tensors &in) { return Tensors{at::log_softmax(in[0], 1)}; }},
            {"layer_norm",
             [](const Tensors &in) { return Tensors{at::layer_norm(in[0], {in[0].size(1)}, in[1], in[2], 1e-5)}; }},
            {"rms_norm",
             [](const Tensors &in) { return Tensors{in[0] * at::rsqrt(in[0].pow(2).mean(-1, true) + 1e-5) * in[1]}; }},
            {"rms_norm_channels",
             [](const Tensors &in) { return Tensors{in[0] / at::sqrt(in[0].pow(2).mean(1, true) + 1e-5)}; }},
            {"group_norm", [](const Tensors &in) { return Tensors{at::group_norm(in[0], 4, in[1], in[2], 1e-5)}; }},
            {"instance_norm",
             [](const Tensors &in) {
                 return Tensors{at::instance_norm(in[0], {}, {}, {}, {}, true, 0.1, 1e-5, false)};
             }},
            {"smooth_l1_loss",
             [](const Tensors &in) { return Tensors{at::smooth_l1_loss(in[0], in[1], at::Reduction::Mean, 1.0)}; }},
            {"kl_div_log_target",
             [](const Tensors &in) {
                 return Tensors{at::kl_div(in[0], in[1], at::Reduction::Sum, true) / double(in[0].size(0))};
             }},
            {"hinge_loss", [](const Tensors &in) { return Tensors{at::clamp_min(1 - in[0] * in[1], 0).mean()}; }},
            {"cross_entropy",
             [](const Tensors &in) { return Tensors{at::cross_entropy_loss(in[0], in[1], {}, at::Reduction::Mean)}; }},
            {"triplet_margin_loss",
             [](const Tensors &in) {
                 return Tensors{
                     at::triplet_margin_loss(in[0], in[1], in[2], 1.0, 2.0, 1e-6, false, at::Reduction::Mean)};
             }},
            {"cumsum", [](const Tensors &in) { return Tensors{at::cumsum(in[0], 1)}; }},
            {"cumsum_long_rows", [](const Tensors &in) { return Tensors{at::cumsum(in[0], 1)}; }},
            {"cumsum_reverse_exclusive",
             [](const Tensors &in) {
                 const auto &x = in[0];
                 return Tensors{at::cat(
                     {x.flip({1}).cumsum(1).flip({1}).narrow(1, 1, x.size(1) - 1), at::zeros_like(x.narrow(1, 0, 1))},
                     1)};
             }},
            {"cumprod", [](const Tensors &in) { return Tensors{at::cumprod(in[0], 1)}; }},
            {"cumsum_channels", [](const Tensors &in) { return Tensors{at::cumsum(in[0], 1)}; }},
            {"masked_cumsum", [](const Tensors &in) { return Tensors{at::cumsum(in[0] * in[1], 1)}; }},
            {"matmul", [](const Tensors &in) { return Tensors{at::matmul(in[0], in[1])}; }},
            {"matmul_tall_skinny", [](const Tensors &in) { return Tensors{at::matmul(in[0], in[1])}; }},
            {"linear_bias_relu", [](const Tensors &in) { return Tensors{at::relu(at::linear(in[0], in[1], in[2]))}; }},
            {"matmul_scale_residual_clamp",
             [](const Tensors &in) { return Tensors{at::clamp(at::matmul(in[0], in[1]) * 2.0 + in[2], -1.0, 1.0)}; }},
            {"matmul_transposed_a", [](const Tensors &in) { return Tensors{at::matmul(in[0].t(), in[1])}; }},
            {"matmul_3d", [](const Tensors &in) { return Tensors{at::matmul(in[0], in[1])}; }},
            {"bmm", [](const Tensors &in) { return Tensors{at::bmm(in[0], in[1])}; }},
            {"matmul_upper", [](const Tensors &in) { return Tensors{at::triu(at::matmul(in[0], in[1]))}; }},
            {"bmm_lower_transposed_a",
             [](const Tensors &in) { return Tensors{at::tril(at::matmul(in[0].transpose(1, 2), in[1]), -1)}; }},
            {"linear_sigmoid_rowsum",
             [](const Tensors &in) {
                 return Tensors{at::sum(at::sigmoid(at::linear(in[0], in[1], in[2])), {1}, true)};
             }},
            {"attention", [](const Tensors &in) { return Tensors{attention(in, false)}; }},
            {"attention_causal", [](const Tensors &in) { return Tensors{attention(in, true)}; }},
            {"transpose", [](const Tensors &in) { return Tensors{in[0].t().contiguous()}; }},
            {"conv2d_bias_relu",
             [](const Tensors &in) {
                 return Tensors{at::relu(at::conv2d(in[0], in[1]) + in[2].view({1, -1, 1, 1}))};
             }},
        };
    }();
    return table;
}

Tensors wrapAll(const std::vector<TensorView> &views)
{
    Tensors tensors;
    for (const auto &view : views)
        tensors.push_back(torchinterop::wrap(view));
    return tensors;
}

Expected<Tensors> call(const std::string &opName, const std::vector<TensorView> &inputs)
{
    const auto it = references().find(opName);
    if (it == references().end())
        return Error{"no LibTorch reference for op '" + opName + "'"};
    try {
        return it->second(wrapAll(inputs));
    } catch (const std::exception &error) {
        return Error{"reference for '" + opName + "' failed: " + torchinterop::errorText(error)};
    }
}

// A built-in reference through the interface every evaluation uses.
class BuiltInReference : public OpReference
{
public:
    explicit BuiltInReference(std::string opName)
        : m_opName(std::move(opName))
    {}

    Status run(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override
    {
        return Reference::run(m_opName, inputs, outputs);
    }
    Status runEager(const std::vector<TensorView> &inputs) override { return Reference::runEager(m_opName, inputs); }
    Status runEagerInto(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override
    {
        return Reference::runEagerInto(m_opName, inputs, outputs);
    }
    Status runInDouble(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs) override;

private:
    std::string m_opName;
};

Status BuiltInReference::runInDouble(const std::vector<TensorView> &inputs, const std::vector<TensorView> &outputs)
{
    const auto it = references().find(m_opName);
    if (it == references().end())
        return Error{"no LibTorch reference for op '" + m_opName + "'"};
    try {
        auto results = it->second(torchinterop::inDouble(wrapAll(inputs)));
        return torchinterop::copyResults(results, outputs, "float64 reference for '" + m_opName + "'");
    } catch (const std::exception &error) {
        return Error{"float64 reference for '" + m_opName + "' failed: " + torchinterop::errorText(error)};
    }
}

} // namespace

bool Reference::has(const Op &op)
{
    return !op.referenceModule.empty() || has(op.name);
}

Expected<std::shared_ptr<OpReference>> Reference::forOp(const Op &op, int device)
{
    if (!op.referenceModule.empty()) {
        auto scripted = ScriptedReference::load(op, device);
        if (!scripted)
            return scripted.error();
        return std::shared_ptr<OpReference>(std::move(*scripted));
    }
    if (!has(op.name))
        return Error{"no LibTorch reference for op '" + op.name + "'"};
    return std::shared_ptr<OpReference>(std::make_shared<BuiltInReference>(op.name));
}

bool Reference::has(const std::string &opName)
{
    return references().count(opName) > 0;
}

std::vector<std::string> Reference::names()
{
    std::vector<std::string> result;
    for (const auto &entry : references())
        result.push_back(entry.first);
    return result;
}

Status Reference::run(const std::string &opName, const std::vector<TensorView> &inputs,
                      const std::vector<TensorView> &outputs)
{
    // Full fp32 in cuBLAS and cuDNN (PyTorch's cuDNN default is TF32): candidates are checked against fp32.
    const Tf32Scope fp32(false);
    return runEagerInto(opName, inputs, outputs);
}

Status Reference::runEagerInto(const std::string &opName, const std::vector<TensorView> &inputs,
                               const std::vector<TensorView> &outputs)
{
    auto results = call(opName, inputs);
    if (!results)
        return results.error();
    if (results->size() != outputs.size())
        return Error{"reference for '" + opName + "' returns " + std::to_string(results->size())
                     + " tensors, the op declares " + std::to_string(outputs.size()) + " outputs"};
    try {
        auto targets = wrapAll(outputs);
        for (std::size_t i = 0; i < targets.size(); ++i) {
            const auto &result = (*results)[i];
            if (result.sizes() != targets[i].sizes())
                return Error{"reference for '" + opName + "': output " + std::to_string(i) + " has shape "
                             + shapeText(result.sizes().vec()) + ", the op declares "
                             + shapeText(targets[i].sizes().vec())};
            if (result.scalar_type() != targets[i].scalar_type())
                return Error{"reference for '" + opName + "': output " + std::to_string(i) + " has dtype "
                             + std::string(c10::toString(result.scalar_type())) + ", the op declares "
                             + toString(outputs[i].dtype)};
            targets[i].copy_(result);
        }
        return {};
    } catch (const std::exception &error) {
        return Error{"reference for '" + opName + "' failed: " + torchinterop::errorText(error)};
    }
}

Status Reference::runEager(const std::string &opName, const std::vector<TensorView> &inputs)
{
    auto results = call(opName, inputs);
    if (!results)
        return results.error();
    return {};
}

} // namespace kx
