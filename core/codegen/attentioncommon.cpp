#include "core/codegen/attentioncommon.h"

namespace kx::attention {

namespace {

std::string shapeText(const std::vector<std::string> &shape)
{
    std::string text;
    for (const auto &dimension : shape)
        text += (text.empty() ? "" : ", ") + dimension;
    return "[" + text + "]";
}

std::vector<std::string> withLeading(std::vector<std::string> leading, const std::vector<std::string> &last)
{
    leading.insert(leading.end(), last.begin(), last.end());
    return leading;
}

} // namespace

std::string checkTensors(const Op &op, const OpRecipe &recipe, AttentionTensors &tensors)
{
    if (op.inputs.size() != 3 || op.outputs.size() != 1)
        return "the attention template takes three inputs (query, key, value) and one output";
    tensors = {&op.inputs[0], &op.inputs[1], &op.inputs[2], &op.outputs[0], {}};
    if (tensors.v->shape.empty())
        return "input " + tensors.v->name + " has no dimensions";
    tensors.valueDim = tensors.v->shape.back();
    const auto check = [&](const TensorSpec &tensor, const std::vector<std::string> &needed) -> std::string {
        if (tensor.dtype != "float32")
            return "tensor " + tensor.name + " is " + tensor.dtype + ": the attention template handles float32";
        if (tensor.shape != needed)
            return "tensor " + tensor.name + " is " + shapeText(tensor.shape) + ", the recipe needs " + shapeText(needed);
        return {};
    };
    for (const auto &problem : {check(*tensors.q, withLeading(recipe.leading, {recipe.m, recipe.k})),
                                check(*tensors.k, withLeading(recipe.leading, {recipe.n, recipe.k})),
                                check(*tensors.v, withLeading(recipe.leading, {recipe.n, tensors.valueDim})),
                                check(*tensors.out, withLeading(recipe.leading, {recipe.m, tensors.valueDim}))})
        if (!problem.empty())
            return problem;
    if (!(recipe.scale > 0) || recipe.scale > 1e30)
        return "the scale of the scores must be a positive number";
    return {};
}

std::string batchExpression(const OpRecipe &recipe)
{
    std::string batch;
    for (const auto &dimension : recipe.leading)
        batch += (batch.empty() ? "" : " * ") + dimension;
    return batch.empty() ? "1" : batch;
}

} // namespace kx::attention
