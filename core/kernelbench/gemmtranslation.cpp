// The products of a graph translation: matmul, mm, bmm, addmm, linear and two-operand einsum become gemm recipes,
// with transposed operands read in place, batches, leading dimensions folded into the rows and a triu or tril of
// the result; diag(v) @ b becomes an elementwise recipe.
#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"
#include "core/kernelbench/atencalls.h"
#include "core/kernelbench/graphtranslation.h"

#include <algorithm>
#include <set>

namespace kx::translation {

using namespace atencalls;

namespace {

// triu and tril take any diagonal; a recipe keeps it as an int.
constexpr std::int64_t kMaxTriangleDiagonal = 2147483647;

bool isProduct(const std::string &kind)
{
    return kind == "aten::linear" || kind == "aten::matmul" || kind == "aten::mm" || kind == "aten::addmm"
           || kind == "aten::bmm" || kind == "aten::einsum";
}

// Whether argument i of a product call is one of its two operands (addmm's first argument is its bias, einsum's
// operands are its second argument, a list).
bool isOperandArgument(const std::string &kind, std::size_t i)
{
    if (kind == "aten::addmm")
        return i == 1 || i == 2;
    if (kind == "aten::einsum")
        return i == 1;
    return i == 0 || i == 1;
}

// Whether the call swaps the last two dimensions of its input: x.T and x.t() of a matrix, x.transpose(-2, -1),
// x.permute(..., -1, -2).
bool swapsLastTwo(const GraphNode &node)
{
    if (node.inputs.empty() || !node.inputs[0].isTensor || node.outputs.size() != 1)
        return false;
    const auto rank = std::int64_t(node.inputs[0].tensor.shape.size());
    const auto normalised = [&](std::int64_t d) { return d < 0 ? d + rank : d; };
    if (node.kind == "aten::numpy_T" || node.kind == "aten::t")
        return rank == 2;
    if (node.kind == "aten::transpose" && node.inputs.size() == 3 && rank >= 2) {
        const auto d0 = integer(node.inputs[1].constant), d1 = integer(node.inputs[2].constant);
        return d0 && d1 && std::set<std::int64_t>{normalised(*d0), normalised(*d1)} == std::set{rank - 2, rank - 1};
    }
    if (node.kind == "aten::permute" && node.inputs.size() == 2 && rank >= 2) {
        const auto order = integers(node.inputs[1].constant);
        if (!order || std::int64_t(order->size()) != rank)
            return false;
        for (std::int64_t i = 0; i < rank; ++i) {
            const std::int64_t expected = i < rank - 2 ? i : i == rank - 2 ? rank - 1 : rank - 2;
            if (normalised((*order)[std::size_t(i)]) != expected)
                return false;
        }
        return true;
    }
    return false;
}

// The values an einsum's operand list names ({"value": v} items), or none when it is not such a list.
std::vector<std::string> listedValues(const GraphArgument &argument)
{
    std::vector<std::string> values;
    if (argument.isTensor || !argument.constant.is_array())
        return {};
    for (const auto &item : argument.constant) {
        if (!item.is_object() || !item.contains("value") || !item["value"].is_string())
            return {};
        values.push_back(item["value"].get<std::string>());
    }
    return values;
}

/**
 * The operand layout of a two-operand einsum that is a product ("bijl,lk->bijk", "bij,bjk->bik", "ki,kj->ij"):
 * one summed letter k, b's one free letter n, a's free letters m... and at most one batch letter in front of all
 * three. Whether each operand is transposed (a as [k, m], b as [n, k]); an Error says what does not fit.
 */
Expected<std::pair<bool, bool>> einsumTransposes(const std::string &equation)
{
    std::string text;
    for (const char c : equation)
        if (c != ' ')
            text += c;
    const auto arrow = text.find("->"), comma = text.find(',');
    if (arrow == std::string::npos || comma == std::string::npos || comma > arrow
        || text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,->") != std::string::npos)
        return Error{"aten::einsum \"" + equation + "\": only products of two operands named by letters translate"};
    const std::string x = text.substr(0, comma), y = text.substr(comma + 1, arrow - comma - 1), z = text.substr(arrow + 2);
    const auto has = [](const std::string &term, char c) { return term.find(c) != std::string::npos; };
    const auto unique = [](std::string term) {
        std::sort(term.begin(), term.end());
        return std::adjacent_find(term.begin(), term.end()) == term.end();
    };
    std::string summed, batch, aFree, bFree;
    for (const char c : x) {
        if (has(y, c) && !has(z, c))
            summed += c;
        else if (has(y, c))
            batch += c;
        else if (has(z, c))
            aFree += c;
        else
            summed += '?'; // a letter of a alone, summed away: not a product
    }
    for (const char c : y)
        if (!has(x, c) && has(z, c))
            bFree += c;
    const std::string refused = "aten::einsum \"" + equation + "\" is not a matrix product the gemm templates take";
    if (!unique(x) || !unique(y) || !unique(z) || summed.size() != 1 || summed[0] == '?' || bFree.size() != 1
        || aFree.empty() || batch.size() > 1 || z != batch + aFree + bFree)
        return Error{refused};
    const std::string k = summed, n = bFree;
    bool transposeA = false, transposeB = false;
    if (x == batch + aFree + k)
        transposeA = false;
    else if (aFree.size() == 1 && x == batch + k + aFree)
        transposeA = true;
    else
        return Error{refused};
    if (y == batch + k + n)
        transposeB = false;
    else if (y == batch + n + k)
        transposeB = true;
    else
        return Error{refused};
    return std::pair{transposeA, transposeB};
}

// A shape symbol's size in a shape set (symbols and integer literals).
std::optional<long long> sizeOf(const std::string &dimension, const ShapeSet &shapes)
{
    return codegen::dimensionValue(dimension, shapes);
}

} // namespace

void Translation::foldProductViews()
{
    // Who reads each value: the calls left (by argument), and the model's result.
    std::map<std::string, std::vector<std::pair<const GraphNode *, std::size_t>>> readers;
    for (const auto *node : m_nodes)
        for (std::size_t i = 0; i < node->inputs.size(); ++i) {
            const auto &argument = node->inputs[i];
            if (argument.isTensor)
                readers[canonical(argument.tensor.value)].push_back({node, i});
            for (const auto &value : listedValues(argument))
                readers[canonical(value)].push_back({node, i});
        }
    const std::string result = canonical(m_graph.outputs.front());
    const auto onlyProductsRead = [&](const std::string &value) {
        const auto it = readers.find(value);
        return value != result && it != readers.end() && std::all_of(it->second.begin(), it->second.end(), [](auto &r) {
                   return isProduct(r.first->kind) && isOperandArgument(r.first->kind, r.second);
               });
    };
    std::erase_if(m_nodes, [&](const GraphNode *node) {
        if (node->outputs.size() != 1 || !onlyProductsRead(node->outputs[0].value))
            return false;
        const std::string input = node->inputs.empty() ? std::string() : canonical(node->inputs[0].tensor.value);
        if (swapsLastTwo(*node)) {
            m_transposed[node->outputs[0].value] = input;
            return true;
        }
        const bool mainDiagonal = node->inputs.size() < 2 || integer(node->inputs[1].constant).value_or(1) == 0;
        if (node->kind == "aten::diag" && node->inputs[0].isTensor && node->inputs[0].tensor.shape.size() == 1
            && mainDiagonal) {
            m_diagonals[node->outputs[0].value] = input;
            return true;
        }
        return false;
    });
    // triu or tril of what a product computes (with its epilogue): the product writes that triangle only.
    if (m_nodes.size() < 2 || !isProduct(m_nodes.front()->kind))
        return;
    const GraphNode &last = *m_nodes.back();
    const bool triangle = last.kind == "aten::triu" || last.kind == "aten::tril";
    if (!triangle || last.outputs.size() != 1 || last.outputs[0].value != result || last.inputs.empty()
        || !last.inputs[0].isTensor || last.inputs[0].tensor.shape.size() < 2)
        return;
    const auto diagonal = last.inputs.size() > 1 ? integer(last.inputs[1].constant) : std::optional<std::int64_t>(0);
    if (!diagonal || *diagonal < -kMaxTriangleDiagonal || *diagonal > kMaxTriangleDiagonal)
        return;
    m_triangle = last.kind == "aten::triu" ? "upper" : "lower";
    m_triangleDiagonal = int(*diagonal);
    m_alias[last.outputs[0].value] = canonical(last.inputs[0].tensor.value);
    m_nodes.pop_back();
}

Expected<Op> Translation::gemm()
{
    const GraphNode &node = *m_nodes.front();
    const bool linear = node.kind == "aten::linear", addmm = node.kind == "aten::addmm";
    ProductOperand a, b;
    if (node.kind == "aten::einsum") {
        auto operands = einsumOperands(node);
        if (!operands)
            return operands.error();
        std::tie(a, b) = *operands;
    } else {
        const auto *aArgument = argument(node, addmm ? 1 : 0);
        const auto *bArgument = argument(node, addmm ? 2 : 1);
        if (!aArgument || !bArgument || !aArgument->isTensor || !bArgument->isTensor)
            return Error{node.kind + " without two tensor operands"};
        if (m_diagonals.count(canonical(aArgument->tensor.value)) || m_diagonals.count(canonical(bArgument->tensor.value)))
            return diagonalProduct(node, m_diagonals.count(canonical(aArgument->tensor.value)) > 0);
        auto first = productOperand(node, *aArgument);
        auto second = productOperand(node, *bArgument);
        if (!first || !second)
            return (first ? second : first).error();
        a = *first;
        b = *second;
        if (linear) // nn.Linear's weight is [n, k]
            b.transposed = !b.transposed;
    }
    const auto factor = [&](std::size_t i) {
        return i < node.inputs.size() ? number(node.inputs[i].constant).value_or(0) : 1.0;
    };
    if (addmm && (factor(3) != 1.0 || factor(4) != 1.0))
        return Error{"aten::addmm with beta or alpha other than 1"};

    auto layout = productLayout(node, a, b);
    if (!layout)
        return layout.error();
    OpRecipe recipe = *layout;
    const auto &specA = m_op.inputs[std::size_t(a.input)];
    const auto &specB = m_op.inputs[std::size_t(b.input)];
    std::set<int> used{a.input, b.input};
    const auto *biasArgument = linear ? argument(node, 2) : addmm ? argument(node, 0) : nullptr;
    if (biasArgument && biasArgument->isTensor) {
        const int index = inputIndex(*biasArgument);
        if (index < 0 || m_op.inputs[std::size_t(index)].shape != std::vector<std::string>{recipe.n})
            return Error{node.kind + " with a bias that is not a [" + recipe.n + "] input"};
        recipe.bias = m_op.inputs[std::size_t(index)].name;
        used.insert(index);
    }
    const auto &outputSpec = m_op.outputs.front();
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) -> Expected<std::string> {
        const auto &spec = m_op.inputs[std::size_t(index)];
        if (broadcastOf(shape, m_outputShape) != Broadcast::Full || spec.shape != outputSpec.shape)
            return Error{"input " + spec.name + " " + shapeText(shape) + " in the epilogue of " + node.kind
                         + ": a gemm epilogue reads only inputs of the output's shape"};
        if (used.insert(index).second)
            recipe.epilogueInputs.push_back(spec.name);
        return spec.name;
    };
    auto expression = chain(1, node.outputs.front().value, "acc", operand);
    if (!expression)
        return expression.error();
    recipe.expression = *expression;
    for (std::size_t i = 0; i < m_op.inputs.size(); ++i)
        if (!used.count(int(i)))
            return Error{"input " + m_op.inputs[i].name + " is not used by " + node.kind + " or its epilogue"};
    if (a.input > b.input)
        return Error{"the operands of " + node.kind + " are declared in the other order (" + specB.name + " before "
                     + specA.name + ")"};
    // The problem computes the product with cuBLAS: the search may too (the gemm-library template), beside
    // generated products on CUDA cores and tensor cores.
    m_op.policy.allowLibrarySteps = true;
    m_op.policy.allowedLibraryOps = {gemmLibraryOp(recipe)};
    const auto k = m_op.shapeSets.empty() ? 0 : sizeOf(recipe.k, m_op.shapeSets.front()).value_or(0);
    return finish(recipe, atencalls::summationAtol(k), k >= 1024 ? 1e-2 : 1e-3);
}

Expected<ProductOperand> Translation::productOperand(const GraphNode &node, const GraphArgument &argument) const
{
    ProductOperand operand;
    std::string source = canonical(argument.tensor.value);
    if (const auto it = m_transposed.find(source); it != m_transposed.end()) {
        operand.transposed = true;
        source = it->second;
    }
    const auto input = m_inputs.find(source);
    if (input == m_inputs.end())
        return Error{node.kind + " of a computed value: the gemm template reads its operands from the inputs"};
    operand.input = input->second;
    // The call must see the input as declared (or its transpose), not reshaped by a view.
    auto declared = m_op.inputs[std::size_t(operand.input)].shape;
    if (operand.transposed)
        std::swap(declared[declared.size() - 2], declared[declared.size() - 1]);
    std::vector<std::int64_t> sizes;
    for (const auto &dimension : declared)
        sizes.push_back(m_op.shapeSets.empty() ? -1 : sizeOf(dimension, m_op.shapeSets.front()).value_or(-1));
    if (sizes != argument.tensor.shape)
        return Error{node.kind + " of reshaped inputs: the gemm template reads the inputs as they are declared"};
    return operand;
}

Expected<std::pair<ProductOperand, ProductOperand>> Translation::einsumOperands(const GraphNode &node) const
{
    const auto values = node.inputs.size() > 1 ? listedValues(node.inputs[1]) : std::vector<std::string>{};
    if (values.size() != 2 || !node.inputs[0].constant.is_string())
        return Error{"aten::einsum of other than two named operands"};
    for (const auto &value : values)
        if (canonical(value) != value || !m_inputs.count(value))
            return Error{"aten::einsum of a computed or reshaped value: the gemm template reads the op's inputs"};
    const auto transposes = einsumTransposes(node.inputs[0].constant.get<std::string>());
    if (!transposes)
        return transposes.error();
    return std::pair{ProductOperand{m_inputs.at(values[0]), transposes->first},
                     ProductOperand{m_inputs.at(values[1]), transposes->second}};
}

Expected<OpRecipe> Translation::productLayout(const GraphNode &node, const ProductOperand &a,
                                              const ProductOperand &b) const
{
    const auto &specA = m_op.inputs[std::size_t(a.input)].shape;
    const auto &specB = m_op.inputs[std::size_t(b.input)].shape;
    const auto ra = specA.size(), rb = specB.size();
    const auto nameA = m_op.inputs[std::size_t(a.input)].name, nameB = m_op.inputs[std::size_t(b.input)].name;
    if (ra < 2 || rb < 2)
        return Error{node.kind + " of " + std::to_string(ra) + "-D and " + std::to_string(rb)
                     + "-D operands: the gemm template multiplies matrices"};
    OpRecipe recipe;
    recipe.family = "gemm";
    recipe.transposeA = a.transposed;
    recipe.transposeB = b.transposed;
    recipe.triangle = m_triangle;
    recipe.diagonal = m_triangleDiagonal;
    // a is [m, k] or [k, m], b [k, n] or [n, k], each after its outer dimensions.
    recipe.m = specA[a.transposed ? ra - 1 : ra - 2];
    recipe.k = specA[a.transposed ? ra - 2 : ra - 1];
    recipe.n = specB[b.transposed ? rb - 2 : rb - 1];
    if (specB[b.transposed ? rb - 1 : rb - 2] != recipe.k)
        return Error{node.kind + ": the inner dimensions of " + nameA + " and " + nameB + " differ"};
    const std::vector<std::string> outerA(specA.begin(), specA.end() - 2), outerB(specB.begin(), specB.end() - 2);
    const bool own = a.transposed || !m_triangle.empty(); // each matrix of a needs its own rows
    if (outerB.size() == 1 && outerA == outerB)
        recipe.batch = outerA.front(); // bmm: a b for each batch
    else if (!outerB.empty())
        return Error{node.kind + " of [" + join(specA, ", ") + "] and [" + join(specB, ", ")
                     + "]: the gemm templates take one batch dimension of both operands, or a b every batch shares"};
    else if (outerA.empty())
        ; // two matrices
    else if (outerA.size() == 1 && own)
        recipe.batch = outerA.front(); // the matrices of a by one shared b
    else if (!own)
        recipe.leading = outerA; // a [L, M, K] by b [K, N] is one [L * M, K] by [K, N] product
    else
        return Error{node.kind + " of [" + join(specA, ", ") + "]" + (a.transposed ? " read transposed" : "")
                     + (m_triangle.empty() ? "" : " under its " + m_triangle + " triangle")
                     + ": the gemm templates take one batch dimension there"};
    if (m_op.outputs.front().shape != gemm::outShape(recipe))
        return Error{node.kind + ": the output [" + join(m_op.outputs.front().shape, ", ") + "] is not the product's ["
                     + join(gemm::outShape(recipe), ", ") + "]"};
    return recipe;
}

Expected<Op> Translation::diagonalProduct(const GraphNode &node, bool diagonalFirst)
{
    if (node.kind != "aten::matmul" && node.kind != "aten::mm")
        return Error{node.kind + " of a diagonal matrix: only matmul and mm of diag(v) translate"};
    if (!m_triangle.empty())
        return Error{"the " + m_triangle + " triangle of a product with a diagonal matrix"};
    const std::string diagonal = canonical(node.inputs[diagonalFirst ? 0 : 1].tensor.value);
    const auto &matrixArgument = node.inputs[diagonalFirst ? 1 : 0];
    const auto vector = m_inputs.find(m_diagonals.at(diagonal));
    const auto matrix = m_inputs.find(canonical(matrixArgument.tensor.value));
    if (vector == m_inputs.end() || matrix == m_inputs.end() || m_diagonals.count(canonical(matrixArgument.tensor.value)))
        return Error{node.kind + " of diag(v) and another computed value: the elementwise template reads inputs"};
    const auto &v = m_op.inputs[std::size_t(vector->second)];
    const auto &b = m_op.inputs[std::size_t(matrix->second)];
    if (v.shape.size() != 1 || b.shape.size() != 2 || b.shape != m_op.outputs.front().shape
        || matrixArgument.tensor.shape != m_outputShape || v.shape[0] != b.shape[diagonalFirst ? 0 : 1])
        return Error{node.kind + " of diag(" + v.name + ") and " + b.name
                     + ": the diagonal product scales the rows or columns of an input matrix as declared"};
    // diag(v) @ b scales b's rows, out[i, j] = v[i] * b[i, j]; b @ diag(v) its columns, b[i, j] * v[j].
    OpRecipe recipe;
    recipe.family = "elementwise";
    if (diagonalFirst)
        recipe.rowInputs = {v.name};
    const std::string start = diagonalFirst ? "(" + v.name + " * " + b.name + ")" : "(" + b.name + " * " + v.name + ")";
    std::set<int> used{vector->second, matrix->second};
    const auto operand = [&](int index, const std::vector<std::int64_t> &shape) {
        used.insert(index);
        return elementwiseOperand(index, shape, recipe);
    };
    auto expression = chain(1, node.outputs.front().value, start, operand);
    if (!expression)
        return expression.error();
    for (std::size_t i = 0; i < m_op.inputs.size(); ++i)
        if (!used.count(int(i)))
            return Error{"input " + m_op.inputs[i].name + " is not used by " + node.kind + " or what follows it"};
    recipe.expression = *expression;
    return finish(recipe, 1e-4, 1e-4);
}

} // namespace kx::translation
