// aten::scaled_dot_product_attention becomes an attention recipe: no mask or the causal one, no dropout, the
// default or a given scale, query, key and value read from the op's inputs as declared.
#include "core/codegen/codegenutil.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslation.h"

#include <algorithm>
#include <cmath>

namespace kx::translation {

using namespace atencalls;

// The call's arguments: query, key, value, attn_mask, dropout_p, is_causal, then (PyTorch 2.1 on) scale and
// (2.5 on) enable_gqa.
Expected<Op> Translation::attention()
{
    const GraphNode &node = *m_nodes.front();
    const std::string &call = node.kind;
    if (m_nodes.size() > 1)
        return Error{call + " followed by " + m_nodes[1]->kind + ": the attention template fuses nothing after it"};
    const auto constantAt = [&](std::size_t i) {
        return i < node.inputs.size() && !node.inputs[i].isTensor ? node.inputs[i].constant : nlohmann::json();
    };
    if (node.inputs.size() < 3)
        return Error{call + " without query, key and value"};
    if (node.inputs.size() > 3 && (node.inputs[3].isTensor || !constantAt(3).is_null()))
        return Error{call + " with an attn_mask: the attention template applies no mask but the causal one "
                            "(is_causal=True)"};
    if (const auto dropout = number(constantAt(4)); node.inputs.size() > 4 && (!dropout || *dropout != 0))
        return Error{call + " with dropout: the attention template computes dropout_p 0 only"};
    const auto causal = node.inputs.size() > 5 ? number(constantAt(5)) : std::optional<double>(0);
    if (!causal)
        return Error{call + " with an is_causal that is not a constant"};
    if (node.inputs.size() > 7 && number(constantAt(7)).value_or(1) != 0)
        return Error{call + " with enable_gqa: the attention template needs as many key and value heads as query "
                            "heads"};

    // Query, key and value: the op's inputs 0, 1 and 2, as they are declared.
    std::vector<const TensorSpec *> operands;
    for (std::size_t i = 0; i < 3; ++i) {
        const int index = inputIndex(node.inputs[i]);
        if (index < 0)
            return Error{call + " of a computed value: the attention template reads query, key and value from the "
                                "op's inputs"};
        const auto &spec = m_op.inputs[std::size_t(index)];
        if (index != int(i))
            return Error{call + ": the attention template needs the inputs query, key and value in that order"};
        std::vector<std::int64_t> declared;
        for (const auto &dimension : spec.shape)
            declared.push_back(
                m_op.shapeSets.empty() ? -1 : codegen::dimensionValue(dimension, m_op.shapeSets.front()).value_or(-1));
        if (declared != node.inputs[i].tensor.shape)
            return Error{call + " of reshaped inputs: the attention template reads them as they are declared"};
        operands.push_back(&spec);
    }
    if (m_op.inputs.size() != 3)
        return Error{"the op has inputs that " + call + " does not use"};
    const auto &q = operands[0]->shape, &k = operands[1]->shape, &v = operands[2]->shape;
    if (q.size() < 2 || k.size() != q.size() || v.size() != q.size()
        || !std::equal(q.begin(), q.end() - 2, k.begin()) || !std::equal(q.begin(), q.end() - 2, v.begin())
        || q.back() != k.back() || k.end()[-2] != v.end()[-2])
        return Error{call + " of [" + join(q, ", ") + "], [" + join(k, ", ") + "] and [" + join(v, ", ")
                     + "]: the attention template takes query [..., L, E], key [..., S, E] and value [..., S, Ev] "
                       "with the same batch dimensions (no broadcasting)"};

    OpRecipe recipe;
    recipe.family = "attention";
    recipe.leading.assign(q.begin(), q.end() - 2);
    recipe.m = q.end()[-2];
    recipe.n = k.end()[-2];
    recipe.k = q.back();
    recipe.causal = *causal != 0;
    auto expectedOutput = recipe.leading;
    expectedOutput.push_back(recipe.m);
    expectedOutput.push_back(v.back());
    if (m_op.outputs.front().shape != expectedOutput)
        return Error{call + ": the output [" + join(m_op.outputs.front().shape, ", ") + "] is not attention's ["
                     + join(expectedOutput, ", ") + "]"};
    const std::int64_t headDim = node.inputs[0].tensor.shape.back();
    if (node.inputs.size() > 6 && !constantAt(6).is_null()) {
        const auto scale = number(constantAt(6));
        if (!scale || !(*scale > 0))
            return Error{call + " with a scale that is not a positive number"};
        recipe.scale = *scale;
    } else {
        recipe.scale = 1.0 / std::sqrt(double(headDim)); // PyTorch's default
    }
    // Two products in another order than the reference's, the first of E terms, the second of S.
    const std::int64_t keys = node.inputs[1].tensor.shape.end()[-2];
    return finish(recipe, summationAtol(std::max(headDim, keys)), 1e-3);
}

} // namespace kx::translation
