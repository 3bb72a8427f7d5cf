#include "core/kernelbench/opcost.h"

#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/symbolnames.h"
#include "core/kernelbench/windowcalls.h"

#include <set>

namespace kx {
namespace {

using namespace atencalls;

int dtypeBytes(const std::string &dtype)
{
    if (dtype == "float64" || dtype == "int64")
        return 8;
    if (dtype == "float16" || dtype == "bfloat16" || dtype == "int16")
        return 2;
    if (dtype == "bool" || dtype == "int8" || dtype == "uint8")
        return 1;
    return 4;
}

// The sizes an einsum's letters stand for, read from its operands (graph inputs, whose sizes the op's first shape
// set gives): "bijl,lk->bijk" of [8, 256, 512, 256] and [256, 768] gives b = 8, ..., k = 768. Empty when the
// call is not an einsum of named inputs.
std::map<char, std::int64_t> einsumSizes(const GraphNode &node, const OpGraph &graph, const Op &op)
{
    if (node.inputs.size() < 2 || !node.inputs[0].constant.is_string() || !node.inputs[1].constant.is_array()
        || op.shapeSets.empty())
        return {};
    const std::string equation = node.inputs[0].constant.get<std::string>();
    const auto arrow = equation.find("->");
    std::vector<std::string> terms;
    std::string term;
    for (const char c : equation.substr(0, arrow)) {
        if (c == ',') {
            terms.push_back(term);
            term.clear();
        } else if (c != ' ') {
            term += c;
        }
    }
    terms.push_back(term);
    const auto &operands = node.inputs[1].constant;
    if (arrow == std::string::npos || terms.size() != operands.size())
        return {};
    std::map<char, std::int64_t> sizes;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        const auto value = operands[i].is_object() ? operands[i].value("value", std::string()) : std::string();
        const auto input = std::find_if(graph.inputs.begin(), graph.inputs.end(),
                                        [&](const OpGraph::Input &in) { return in.value == value; });
        const auto spec = input == graph.inputs.end()
                              ? op.inputs.end()
                              : std::find_if(op.inputs.begin(), op.inputs.end(),
                                             [&](const TensorSpec &t) { return t.name == input->name; });
        if (spec == op.inputs.end() || spec->shape.size() != terms[i].size())
            return {};
        for (std::size_t d = 0; d < terms[i].size(); ++d) {
            const auto &dimension = spec->shape[d];
            const auto symbol = op.shapeSets.front().find(dimension);
            sizes[terms[i][d]] = symbol != op.shapeSets.front().end() ? symbol->second : std::atoll(dimension.c_str());
        }
    }
    return sizes;
}

// "a + b + c", or "0" for no terms.
std::string sum(const std::vector<std::string> &terms)
{
    std::string text;
    for (const auto &term : terms)
        text += (text.empty() ? "" : " + ") + term;
    return text.empty() ? "0" : text;
}

} // namespace

std::string graphFlopsExpression(const OpGraph &graph, const Op &op)
{
    const SymbolNames symbols(op);
    std::vector<std::string> terms;
    const auto term = [&](std::int64_t factor, const std::vector<std::int64_t> &shape) {
        const std::string product = symbols.product(shape);
        terms.push_back(factor == 1 ? product : std::to_string(factor) + " * " + product);
    };
    // diag(v) as a product's operand only scales rows or columns; a product whose result only a triu or tril reads
    // need compute only that triangle.
    std::set<std::string> diagonals, triangles;
    for (const auto &node : graph.nodes) {
        if (node.kind == "aten::diag" && !node.outputs.empty())
            diagonals.insert(node.outputs[0].value);
        if ((node.kind == "aten::triu" || node.kind == "aten::tril") && !node.inputs.empty() && node.inputs[0].isTensor)
            triangles.insert(node.inputs[0].tensor.value);
    }
    for (const auto &node : graph.nodes) {
        const auto &kind = node.kind;
        const auto inputShape = [&](std::size_t i) {
            return i < node.inputs.size() && node.inputs[i].isTensor ? node.inputs[i].tensor.shape
                                                                     : std::vector<std::int64_t>{};
        };
        const auto outputShape = node.outputs.empty() ? std::vector<std::int64_t>{} : node.outputs[0].shape;
        if (isView(kind) || kind == "aten::t" || kind == "aten::numpy_T" || kind == "aten::transpose"
            || kind == "aten::permute" || kind == "aten::diag" || kind == "aten::triu" || kind == "aten::tril")
            continue;
        // Data movement and shape bookkeeping (around a scan: flips, a cut, a zero slice): no arithmetic.
        static const std::set<std::string> moves{"aten::flip", "aten::narrow",     "aten::slice",       "aten::select",
                                                 "aten::cat",  "aten::zeros_like", "aten::zeros",       "aten::size",
                                                 "aten::Int",  "prim::NumToTensor", "aten::broadcast_tensors",
                                                 "prim::ListUnpack"};
        if (moves.count(kind))
            continue;
        if (const auto it = elementwiseKinds().find(kind); it != elementwiseKinds().end()) {
            term(it->second, outputShape);
        } else if (kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::addmm"
                   || kind == "aten::bmm" || kind == "aten::baddbmm") {
            const bool accumulates = kind == "aten::addmm" || kind == "aten::baddbmm";
            const auto a = inputShape(accumulates ? 1 : 0);
            if (a.empty())
                return "0";
            const auto isDiagonal = [&](std::size_t i) {
                return i < node.inputs.size() && node.inputs[i].isTensor && diagonals.count(node.inputs[i].tensor.value);
            };
            auto shape = outputShape;
            shape.push_back(a.back());
            const bool square = outputShape.size() >= 2 && outputShape.end()[-1] == outputShape.end()[-2];
            const bool triangle = !node.outputs.empty() && triangles.count(node.outputs[0].value);
            if (isDiagonal(0) || isDiagonal(1))
                term(1, outputShape); // one product per element
            else if (triangle && square)
                term(1, shape); // half the products of a square (another triangle may keep less: no floor claimed)
            else if (!triangle)
                term(2, shape);
            if ((kind == "aten::linear" && node.inputs.size() > 2 && node.inputs[2].isTensor) || accumulates)
                term(1, outputShape);
        } else if (kind == "aten::einsum") {
            // Every output element sums the products over the letters its term lacks.
            const auto sizes = einsumSizes(node, graph, op);
            const auto arrow = node.inputs.empty() || !node.inputs[0].constant.is_string()
                                   ? std::string::npos
                                   : node.inputs[0].constant.get<std::string>().find("->");
            if (sizes.empty() || arrow == std::string::npos)
                return "0";
            const std::string result = node.inputs[0].constant.get<std::string>().substr(arrow + 2);
            auto shape = outputShape;
            for (const auto &[letter, size] : sizes)
                if (result.find(letter) == std::string::npos)
                    shape.push_back(size);
            term(2, shape);
        } else if (windowcalls::isConvolution(kind)) {
            const auto call = windowcalls::windowCallOf(node);
            const auto weight = inputShape(1);
            if (!call || weight.size() < 3)
                return "0";
            // Forward: every output sums C_in / groups x taps products; transposed: every input spreads to
            // C_out / groups x taps outputs.
            auto shape = call->window.transposed ? inputShape(0) : outputShape;
            shape.insert(shape.end(), weight.begin() + 1, weight.end());
            term(2, shape);
        } else if (windowcalls::isWindowCall(kind)) {
            const auto call = windowcalls::windowCallOf(node);
            if (!call)
                return "0";
            auto shape = outputShape;
            shape.insert(shape.end(), call->window.kernel.begin(), call->window.kernel.end());
            term(1, shape);
        } else if (reduceKinds().count(kind) || kind == "aten::cumsum" || kind == "aten::cumprod") {
            term(1, inputShape(0));
        } else if (kind == "aten::scaled_dot_product_attention") {
            // Two products, the scores q @ k^T and their weights times v (half of each under a causal mask), and
            // the softmax of the scores.
            const auto q = inputShape(0), k = inputShape(1), v = inputShape(2);
            if (q.size() < 2 || k.size() < 2 || v.empty())
                return "0";
            auto scores = q;
            scores.back() = k.end()[-2];
            auto scoreProducts = scores, valueProducts = scores;
            scoreProducts.push_back(q.back());
            valueProducts.push_back(v.back());
            const bool causal = node.inputs.size() > 5 && number(node.inputs[5].constant).value_or(0) != 0;
            term(causal ? 1 : 2, scoreProducts);
            term(causal ? 1 : 2, valueProducts);
            term(5, scores);
        } else if (kind == "aten::smooth_l1_loss" || kind == "aten::huber_loss" || kind == "aten::kl_div"
                   || kind == "aten::cross_entropy_loss") {
            // A difference, its magnitude and the Huber branch; xlogy and a product; a row's maximum, exponential
            // and sum: four or five operations an element, the sum included.
            term(kind == "aten::smooth_l1_loss" || kind == "aten::huber_loss" ? 5 : 4, inputShape(0));
        } else if (kind == "aten::triplet_margin_loss") {
            // Two differences with eps, squared and summed: six operations an element of the anchor.
            term(6, inputShape(0));
        } else if (kind.find("softmax") != std::string::npos) {
            term(5, inputShape(0));
        } else if (kind == "aten::layer_norm" || kind == "aten::group_norm" || kind == "aten::instance_norm"
                   || kind == "aten::batch_norm") {
            // Statistics, normalization and the affine step: about eight operations per element.
            term(8, inputShape(0));
        } else {
            return "0";
        }
    }
    return sum(terms);
}

std::string bytesMovedExpression(const Op &op)
{
    std::vector<std::string> terms;
    for (const auto *tensors : {&op.inputs, &op.outputs}) {
        for (const auto &tensor : *tensors) {
            std::string term = std::to_string(dtypeBytes(tensor.dtype));
            for (const auto &dimension : tensor.shape)
                if (dimension != "1")
                    term += " * " + dimension;
            terms.push_back(term);
        }
    }
    return sum(terms);
}

} // namespace kx
