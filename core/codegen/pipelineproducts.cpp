#include "core/codegen/pipelineproducts.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/kernelcomposition.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

namespace kx::pipelineproducts {

using codegen::dimensionValue;
using codegen::isIdentifier;
using codegen::replaceIdentifiers;

namespace {

// The part's shape symbols: the composition replaces them by the pipeline's dimensions, so they must not be
// words the gemm templates' code uses.
const std::string kBatch = "PRODUCT_BATCH", kRows = "PRODUCT_ROWS", kCols = "PRODUCT_COLS", kDepth = "PRODUCT_DEPTH";
const std::string kLhs = "lhs", kRhs = "rhs", kAddend = "addend", kProduct = "product";

std::string baseName(const std::string &op)
{
    return op.substr(0, op.find('.'));
}

std::vector<PipelineTensor> tensorArgs(const PipelineStage &stage)
{
    std::vector<PipelineTensor> tensors;
    for (const auto &arg : stage.args)
        if (arg.is_object() && arg.contains("tensor"))
            tensors.push_back({arg["tensor"].get<std::string>(), arg.value("shape", std::vector<std::string>{})});
    return tensors;
}

// Every tensor a stage reads.
std::vector<std::string> readsOf(const PipelineStage &stage)
{
    std::vector<std::string> names;
    for (const auto &operand : stage.operands)
        names.push_back(operand.name);
    for (const auto &tensor : tensorArgs(stage))
        names.push_back(tensor.name);
    return names;
}

bool isOne(const nlohmann::json &arg)
{
    if (arg.contains("int"))
        return arg["int"] == "1";
    return arg.contains("float") && arg["float"].get<double>() == 1.0;
}

std::optional<long long> intConstant(const nlohmann::json &arg)
{
    if (!arg.is_object() || !arg.contains("int"))
        return std::nullopt;
    try {
        return std::stoll(arg["int"].get<std::string>());
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

// Whether a library stage swaps the two dimensions of a matrix (x.T, x.t(), x.transpose(0, 1)).
bool isMatrixTranspose(const PipelineStage &stage)
{
    const auto tensors = tensorArgs(stage);
    if (stage.kind != PipelineStage::Kind::Library || tensors.size() != 1 || tensors.front().shape.size() != 2)
        return false;
    const auto base = baseName(stage.op);
    if (base == "aten::numpy_T" || base == "aten::t")
        return stage.args.size() == 1;
    if (base != "aten::transpose" || stage.args.size() != 3)
        return false;
    const auto first = intConstant(stage.args[1]), second = intConstant(stage.args[2]);
    return first && second && ((*first % 2 + 2) % 2) != ((*second % 2 + 2) % 2);
}

// The transpose stage before `product` whose output is `tensor` and which nothing else reads, if any.
std::optional<std::size_t> foldableTranspose(const Op &op, const std::vector<PipelineStage> &stages,
                                             std::size_t product, const std::string &tensor)
{
    for (const auto &output : op.outputs)
        if (output.name == tensor)
            return std::nullopt;
    std::optional<std::size_t> producer;
    for (std::size_t s = 0; s < product; ++s)
        for (const auto &output : stages[s].outputs)
            if (output.name == tensor)
                producer = s;
    if (!producer || !isMatrixTranspose(stages[*producer]))
        return std::nullopt;
    for (std::size_t s = 0; s < stages.size(); ++s) {
        if (s == product)
            continue;
        const auto reads = readsOf(stages[s]);
        if (std::find(reads.begin(), reads.end(), tensor) != reads.end())
            return std::nullopt;
    }
    return producer;
}

// The product's operands and layout in pipeline terms, before the part's own names are given.
struct Operands
{
    PipelineTensor a, b;
    std::optional<PipelineTensor> bias;
    bool transposeA = false, transposeB = false;
};

std::optional<Operands> operandsOf(const PipelineStage &stage)
{
    const auto base = baseName(stage.op);
    const auto tensors = tensorArgs(stage);
    Operands operands;
    if (base == "aten::linear") {
        if (tensors.size() < 2 || tensors.size() > 3 || stage.args.size() != 3
            || !(stage.args[0].contains("tensor") && stage.args[1].contains("tensor")))
            return std::nullopt;
        operands = {tensors[0], tensors[1], std::nullopt, false, true};
        if (tensors.size() == 3)
            operands.bias = tensors[2];
    } else if (base == "aten::mm" || base == "aten::matmul" || base == "aten::bmm") {
        if (tensors.size() != 2 || stage.args.size() != 2)
            return std::nullopt;
        operands = {tensors[0], tensors[1], std::nullopt, false, false};
    } else if (base == "aten::addmm") {
        // addmm(bias, a, b, beta, alpha): only the plain sum of the product and a bias of the output's columns.
        if (tensors.size() != 3 || stage.args.size() != 5 || !isOne(stage.args[3]) || !isOne(stage.args[4]))
            return std::nullopt;
        operands = {tensors[1], tensors[2], tensors[0], false, false};
    } else {
        return std::nullopt;
    }
    return operands;
}

// Whether two dimensions have the same size in every shape set.
bool sameSize(const std::string &first, const std::string &second, const std::vector<ShapeSet> &sets)
{
    if (first == second)
        return true;
    for (const auto &shapes : sets) {
        const auto a = dimensionValue(first, shapes), b = dimensionValue(second, shapes);
        if (!a || !b || *a != *b)
            return false;
    }
    return true;
}

std::string joined(const std::vector<std::string> &dimensions, const std::string &separator)
{
    std::string text;
    for (const auto &dimension : dimensions)
        text += (text.empty() ? "" : separator) + dimension;
    return text;
}

TensorSpec floats(const std::string &name, std::vector<std::string> shape)
{
    return {name, std::move(shape), "float32"};
}

// An epilogue past this length is left to its own stage (chains that use a value many times grow when inlined).
constexpr std::size_t kMaxEpilogue = 2000;

// Whether every identifier of expression is acc or a function's name (in the gemm epilogue's scope, m, n and the
// part's tensors have other meanings).
bool readsOnlyAcc(const std::string &expression)
{
    for (std::size_t i = 0; i < expression.size();) {
        const char c = expression[i];
        if (std::isdigit(static_cast<unsigned char>(c))) { // a literal, its suffix and exponent included
            while (i < expression.size()
                   && (std::isalnum(static_cast<unsigned char>(expression[i])) || expression[i] == '.'))
                ++i;
            continue;
        }
        if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < expression.size()
               && (std::isalnum(static_cast<unsigned char>(expression[i])) || expression[i] == '_'))
            ++i;
        std::size_t next = i;
        while (next < expression.size() && expression[next] == ' ')
            ++next;
        if (expression.compare(start, i - start, "acc") != 0 && (next == expression.size() || expression[next] != '('))
            return false;
    }
    return true;
}

// An elementwise stage's chain ("const float v0 = ...;" lines over a0, a1 ...) as one expression of acc, every
// operand being the product; nothing where the code is not of that form.
std::optional<std::string> epilogueExpression(const PipelineStage &stage)
{
    std::map<std::string, std::string> values;
    for (std::size_t i = 0; i < stage.operands.size(); ++i)
        values["a" + std::to_string(i)] = "acc";
    std::istringstream lines(stage.code);
    const std::string declaration = "const float ";
    for (std::string line; std::getline(lines, line);) {
        line.erase(0, line.find_first_not_of(" \t"));
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (line.empty())
            continue;
        const auto equals = line.find(" = ");
        if (line.rfind(declaration, 0) != 0 || line.back() != ';' || equals == std::string::npos)
            return std::nullopt;
        const auto name = line.substr(declaration.size(), equals - declaration.size());
        const auto expression = line.substr(equals + 3, line.size() - equals - 4);
        if (!isIdentifier(name) || expression.find_first_of(";{}#") != std::string::npos)
            return std::nullopt;
        values[name] = "(" + replaceIdentifiers(expression, values) + ")";
        if (values[name].size() > kMaxEpilogue)
            return std::nullopt;
    }
    const auto result = values.find(stage.results.front());
    if (result == values.end() || !readsOnlyAcc(result->second))
        return std::nullopt;
    return result->second;
}

// The elementwise stage right after the product that reads the product alone (and is its only reader), if any.
std::optional<std::size_t> fusableEpilogue(const Op &op, const std::vector<PipelineStage> &stages, std::size_t product)
{
    const auto &written = stages[product].outputs.front();
    const std::size_t next = product + 1;
    if (next >= stages.size() || stages[next].kind != PipelineStage::Kind::Elementwise
        || stages[next].outputs.size() != 1 || stages[next].results.size() != 1)
        return std::nullopt;
    if (std::any_of(op.outputs.begin(), op.outputs.end(), [&](const TensorSpec &t) { return t.name == written.name; }))
        return std::nullopt;
    for (const auto &operand : stages[next].operands)
        if (operand.name != written.name || operand.shape != written.shape)
            return std::nullopt;
    if (stages[next].outputs.front().shape != written.shape)
        return std::nullopt;
    for (std::size_t s = next + 1; s < stages.size(); ++s) {
        const auto reads = readsOf(stages[s]);
        if (std::find(reads.begin(), reads.end(), written.name) != reads.end())
            return std::nullopt;
    }
    return next;
}

std::optional<ProductPart> partOf(const Op &op, const std::vector<PipelineStage> &stages, std::size_t s,
                                  bool fuseEpilogue)
{
    const auto &stage = stages[s];
    auto operands = operandsOf(stage);
    if (!operands || stage.outputs.size() != 1 || stage.outputDtype != "float32")
        return std::nullopt;
    ProductPart part;
    part.stage = s;
    // A transposed operand made by a step of its own is read in place, transposed.
    for (auto [tensor, transposed] :
         {std::pair{&operands->a, &operands->transposeA}, {&operands->b, &operands->transposeB}}) {
        if (tensor->shape.size() != 2 || operands->a.shape.size() != 2 || operands->b.shape.size() != 2)
            continue;
        if (const auto producer = foldableTranspose(op, stages, s, tensor->name)) {
            const auto source = tensorArgs(stages[*producer]).front();
            *tensor = source;
            *transposed = !*transposed;
            part.folded.push_back(*producer);
        }
    }
    const auto &a = operands->a.shape, &b = operands->b.shape;
    const auto &out = stage.outputs.front();
    std::string batch, n, k;
    std::vector<std::string> rows;
    if (b.size() == 2 && a.size() >= 2) {
        // a's leading dimensions fold into the rows: the contiguous [L, M, K] is an [L * M, K] matrix.
        if (operands->transposeA && a.size() != 2)
            return std::nullopt;
        rows = operands->transposeA ? std::vector<std::string>{a[1]} : std::vector<std::string>(a.begin(), a.end() - 1);
        k = operands->transposeA ? a[0] : a.back();
        n = operands->transposeB ? b[0] : b[1];
        if (!sameSize(k, operands->transposeB ? b[1] : b[0], op.shapeSets))
            return std::nullopt;
    } else if (a.size() == 3 && b.size() == 3 && !operands->transposeB && !operands->bias) {
        if (!sameSize(a[0], b[0], op.shapeSets) || !sameSize(a[2], b[1], op.shapeSets))
            return std::nullopt;
        batch = a[0];
        rows = {a[1]};
        k = a[2];
        n = b[2];
    } else {
        return std::nullopt;
    }
    if (operands->bias && (operands->bias->shape.size() != 1 || !sameSize(operands->bias->shape[0], n, op.shapeSets)))
        return std::nullopt;
    // The output holds the product's elements in order: its shape is the rows, then n (with the batch first).
    std::vector<std::string> expected = rows;
    if (!batch.empty())
        expected.insert(expected.begin(), batch);
    expected.push_back(n);
    if (out.shape.size() != expected.size())
        return std::nullopt;
    for (std::size_t d = 0; d < expected.size(); ++d)
        if (!sameSize(out.shape[d], expected[d], op.shapeSets))
            return std::nullopt;

    part.symbols = {{kRows, joined(rows, " * ")}, {kCols, n}, {kDepth, k}};
    if (!batch.empty())
        part.symbols[kBatch] = batch;
    for (const auto &shapes : op.shapeSets) {
        ShapeSet set;
        long long rowCount = 1;
        for (const auto &dimension : rows) {
            const auto size = dimensionValue(dimension, shapes);
            if (!size)
                return std::nullopt;
            rowCount *= *size;
        }
        set[kRows] = rowCount;
        for (const auto &[symbol, dimension] : {std::pair{kCols, n}, {kDepth, k}, {kBatch, batch}}) {
            if (dimension.empty())
                continue;
            const auto size = dimensionValue(dimension, shapes);
            if (!size)
                return std::nullopt;
            set[symbol] = *size;
        }
        part.op.shapeSets.push_back(set);
    }

    const auto batched = [&](std::vector<std::string> shape) {
        if (!batch.empty())
            shape.insert(shape.begin(), kBatch);
        return shape;
    };
    part.op.name = op.name + "/stage" + std::to_string(s + 1) + "_product";
    part.op.inputs = {
        floats(kLhs, batched(operands->transposeA ? std::vector{kDepth, kRows} : std::vector{kRows, kDepth})),
        floats(kRhs, batched(operands->transposeB ? std::vector{kCols, kDepth} : std::vector{kDepth, kCols}))};
    part.tensors = {{kLhs, operands->a.name}, {kRhs, operands->b.name}, {kProduct, out.name}};
    if (operands->bias) {
        part.op.inputs.push_back(floats(kAddend, {kCols}));
        part.tensors[kAddend] = operands->bias->name;
        part.recipe.bias = kAddend;
    }
    part.op.outputs = {floats(kProduct, batched({kRows, kCols}))};
    part.recipe.family = "gemm";
    part.recipe.m = kRows;
    part.recipe.n = kCols;
    part.recipe.k = kDepth;
    part.recipe.batch = batch.empty() ? "1" : kBatch;
    part.recipe.transposeA = operands->transposeA;
    part.recipe.transposeB = operands->transposeB;
    part.recipe.expression = "acc";
    part.formula = out.name + " = " + operands->a.name + (operands->transposeA ? "^T" : "") + " @ " + operands->b.name
                   + (operands->transposeB ? "^T" : "") + (operands->bias ? " + " + operands->bias->name : "");
    // The elementwise chain after it runs on the sums in registers: the product is never stored.
    if (const auto next = fuseEpilogue ? fusableEpilogue(op, stages, s) : std::nullopt)
        if (const auto expression = epilogueExpression(stages[*next])) {
            part.epilogue = next;
            part.recipe.expression = *expression;
            part.tensors[kProduct] = stages[*next].outputs.front().name;
            part.formula += ", then stage " + std::to_string(*next + 1) + "'s chain in its epilogue, into "
                            + part.tensors[kProduct];
        }
    return part;
}

} // namespace

std::vector<ProductPart> productParts(const Op &op, const std::vector<PipelineStage> &stages, bool fuseEpilogues)
{
    std::vector<ProductPart> parts;
    for (std::size_t s = 0; s < stages.size(); ++s)
        if (stages[s].kind == PipelineStage::Kind::Library)
            if (auto part = partOf(op, stages, s, fuseEpilogues))
                parts.push_back(std::move(*part));
    return parts;
}

long long multiplyAdds(const ProductPart &part)
{
    if (part.op.shapeSets.empty())
        return 0;
    const auto &set = part.op.shapeSets.front();
    const auto batch = set.count(kBatch) ? set.at(kBatch) : 1;
    return batch * set.at(kRows) * set.at(kCols) * set.at(kDepth);
}

} // namespace kx::pipelineproducts
