#include "core/codegen/attentiontemplate.h"

#include "core/codegen/attentioncommon.h"
#include "core/codegen/codegenutil.h"
#include "core/codegen/kernelcomposition.h"

#include <algorithm>

namespace kx {

using namespace codegen;
using attention::AttentionTensors;

namespace {

// The shape symbols of the parts' own ops; the composition binds them to the attention op's dimensions.
const std::string kBatch = "ATTN_BATCH", kQueries = "ATTN_QUERIES", kKeys = "ATTN_KEYS", kHeadDim = "ATTN_HEAD_DIM",
                  kValueDim = "ATTN_VALUE_DIM", kRows = "ATTN_ROWS";
const std::string kSoftmaxPrefix = "softmax.";

// The parts' shape sets: each of the op's, in the parts' symbols; an Error names a dimension a set does not bind.
Expected<std::vector<ShapeSet>> partShapeSets(const Op &op, const OpRecipe &recipe, const std::string &valueDim)
{
    std::vector<ShapeSet> sets;
    for (const auto &shapes : op.shapeSets) {
        ShapeSet set;
        long long batch = 1;
        for (const auto &dimension : recipe.leading) {
            const auto size = dimensionValue(dimension, shapes);
            if (!size)
                return Error{"a shape set does not bind " + dimension};
            batch *= *size;
        }
        for (const auto &[symbol, dimension] :
             {std::pair{kQueries, recipe.m}, {kKeys, recipe.n}, {kHeadDim, recipe.k}, {kValueDim, valueDim}}) {
            const auto size = dimensionValue(dimension, shapes);
            if (!size)
                return Error{"a shape set does not bind " + dimension};
            set[symbol] = *size;
        }
        set[kBatch] = batch;
        set[kRows] = batch * set[kQueries];
        sets.push_back(set);
    }
    return sets;
}

// The op's dimensions behind the parts' symbols, as plan expressions.
std::map<std::string, std::string> symbolBindings(const OpRecipe &recipe, const std::string &valueDim)
{
    const std::string batch = attention::batchExpression(recipe);
    const std::string rows = recipe.leading.empty() ? recipe.m : batch + " * " + recipe.m;
    return {{kBatch, batch},    {kQueries, recipe.m},     {kKeys, recipe.n},
            {kHeadDim, recipe.k}, {kValueDim, valueDim}, {kRows, rows}};
}

// One of the three steps: the op and recipe another template generates it for, with that template's parameters.
struct Part
{
    std::string prefix;
    const KernelTemplate *generator = nullptr;
    Op op;
    OpRecipe recipe;
    Params params;
    std::map<std::string, nlohmann::json> tensors;
};

Op partOp(const Op &attention, const std::string &suffix, std::vector<TensorSpec> inputs, TensorSpec output,
          std::vector<ShapeSet> shapeSets)
{
    Op op;
    op.name = attention.name + "/" + suffix;
    op.inputs = std::move(inputs);
    op.outputs = {std::move(output)};
    op.shapeSets = std::move(shapeSets);
    return op;
}

TensorSpec floats(const std::string &name, std::vector<std::string> shape)
{
    return {name, std::move(shape), "float32"};
}

OpRecipe batchedProduct(const std::string &n, const std::string &k, bool transposeB, std::string epilogue)
{
    OpRecipe recipe;
    recipe.family = "gemm";
    recipe.batch = kBatch;
    recipe.m = kQueries;
    recipe.n = n;
    recipe.k = k;
    recipe.transposeB = transposeB;
    recipe.expression = std::move(epilogue);
    return recipe;
}

// The scores' epilogue: the scale, and -inf above the diagonal for a causal mask.
std::string scoresEpilogue(const OpRecipe &recipe)
{
    const std::string scaled = "acc * " + epsLiteral(recipe.scale);
    return recipe.causal ? "n > m ? __int_as_float(int(0xff800000u)) : " + scaled : scaled;
}

// The product steps' template and its defaults for the part (with the TF32 products the parameters choose).
void chooseProductTemplate(Part &part, const Params &params)
{
    const bool tensorCores = param(params, "tensorCores") == 1;
    part.generator = findKernelTemplate(tensorCores ? "gemm-tensorcore" : "gemm");
    part.params = part.generator->defaults(part.op, part.recipe);
    if (tensorCores)
        part.params["products"] = param(params, "products", 3);
}

// The three parts for an op whose tensors passed checkTensors().
Expected<std::vector<Part>> partsOf(const Op &op, const OpRecipe &recipe, const AttentionTensors &tensors,
                                    const Params &params)
{
    auto shapeSets = partShapeSets(op, recipe, tensors.valueDim);
    if (!shapeSets)
        return shapeSets.error();
    std::vector<Part> parts(3);

    Part &scores = parts[0];
    scores.prefix = "scores";
    scores.op = partOp(op, "scores",
                       {floats("query", {kBatch, kQueries, kHeadDim}), floats("keys", {kBatch, kKeys, kHeadDim})},
                       floats("scores", {kBatch, kQueries, kKeys}), *shapeSets);
    scores.recipe = batchedProduct(kKeys, kHeadDim, true, scoresEpilogue(recipe));
    scores.tensors = {{"query", inputArg(tensors.q->name)},
                      {"keys", inputArg(tensors.k->name)},
                      {"scores", scratchArg("scores")}};
    chooseProductTemplate(scores, params);

    Part &softmax = parts[1];
    softmax.prefix = "probabilities";
    softmax.op = partOp(op, "softmax", {floats("scores", {kRows, kKeys})}, floats("probs", {kRows, kKeys}), *shapeSets);
    softmax.recipe.family = "softmax";
    softmax.recipe.reduction = "softmax";
    softmax.recipe.rows = kRows;
    softmax.recipe.cols = kKeys;
    softmax.generator = findKernelTemplate("softmax");
    for (const auto &[name, value] : params)
        if (name.rfind(kSoftmaxPrefix, 0) == 0)
            softmax.params[name.substr(kSoftmaxPrefix.size())] = value;
    softmax.tensors = {{"scores", scratchArg("scores")}, {"probs", scratchArg("probs")}};

    Part &output = parts[2];
    output.prefix = "weighted";
    output.op = partOp(op, "output",
                       {floats("probs", {kBatch, kQueries, kKeys}), floats("values", {kBatch, kKeys, kValueDim})},
                       floats("attended", {kBatch, kQueries, kValueDim}), *shapeSets);
    output.recipe = batchedProduct(kValueDim, kKeys, false, "acc");
    output.tensors = {{"probs", scratchArg("probs")},
                      {"values", inputArg(tensors.v->name)},
                      {"attended", outputArg(tensors.out->name)}};
    chooseProductTemplate(output, params);
    return parts;
}

} // namespace

bool AttentionTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "attention";
}

std::vector<ParamDef> AttentionTemplate::parameters(const Op &op, const OpRecipe &) const
{
    std::vector<ParamDef> definitions{
        {"tensorCores", {0, 1}, "products on tensor cores (0: gemm template, 1: gemm-tensorcore template)"},
        {"products", {3, 1}, "TF32 products per multiply on tensor cores (3: 3xTF32, 1: plain TF32)"}};
    OpRecipe softmax;
    softmax.family = "softmax";
    for (auto definition : findKernelTemplate("softmax")->parameters(op, softmax)) {
        definition.name = kSoftmaxPrefix + definition.name;
        definition.label = "softmax: " + definition.label;
        definitions.push_back(std::move(definition));
    }
    return definitions;
}

Params AttentionTemplate::defaults(const Op &op, const OpRecipe &) const
{
    // Generated fp32 FMA products, as the gemm translations start; the search may move them to tensor cores.
    Params params{{"tensorCores", 0}, {"products", 3}};
    OpRecipe softmax;
    softmax.family = "softmax";
    for (const auto &[name, value] : findKernelTemplate("softmax")->defaults(op, softmax))
        params[kSoftmaxPrefix + name] = value;
    return params;
}

std::string AttentionTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the attention template needs an attention recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    AttentionTensors tensors;
    if (auto problem = attention::checkTensors(op, recipe, tensors); !problem.empty())
        return problem;
    const auto parts = partsOf(op, recipe, tensors, params);
    if (!parts)
        return parts.error().message;
    for (const auto &part : *parts)
        if (auto problem = part.generator->check(part.op, part.recipe, part.params); !problem.empty())
            return "the " + part.prefix + " step (" + part.generator->name() + "): " + problem;
    return {};
}

GeneratedKernel AttentionTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    AttentionTensors tensors;
    attention::checkTensors(op, recipe, tensors);
    const auto parts = partsOf(op, recipe, tensors, params);
    const auto symbols = symbolBindings(recipe, tensors.valueDim);

    KernelComposition composition;
    const std::string matrices = "4 * " + symbols.at(kRows) + " * " + recipe.n;
    composition.addScratch("scores", matrices);
    composition.addScratch("probs", matrices);
    for (const auto &part : *parts) {
        const auto generated = part.generator->generate(part.op, part.recipe, part.params);
        if (auto status = composition.add(generated, {part.prefix, part.tensors, symbols}); !status)
            return rejectedKernel(name(), status.error().message);
    }
    const std::string header =
        headerComment(op, *this, params, parameters(op, recipe)) + "// For each of the " + symbols.at(kBatch)
        + " matrices: " + tensors.out->name + " = softmax(" + epsLiteral(recipe.scale) + " * " + tensors.q->name
        + " @ " + tensors.k->name + "^T" + (recipe.causal ? ", keys after the query masked" : "") + ") @ "
        + tensors.v->name + "\n// Three steps: the scores as a batched product with the scale"
        + (recipe.causal ? " and the causal mask" : "") + " in its epilogue (scratch\n"
        + "// scores), their row softmax (scratch probs), and the product of the probabilities with "
        + tensors.v->name + ". Each step\n// is another template's kernel, in a namespace of its own.\n";
    return composition.result(header);
}

} // namespace kx
