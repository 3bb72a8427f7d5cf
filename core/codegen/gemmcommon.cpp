#include "core/codegen/gemmcommon.h"

#include "core/codegen/codegenutil.h"

#include <algorithm>

namespace kx::gemm {

using namespace codegen;

namespace {

constexpr long long kMaxInt = 2147483647;
constexpr long long kMaxGridY = 65535;

std::string shapeText(const std::vector<std::string> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + shape[i];
    return text + "]";
}

const TensorSpec *findInput(const Op &op, const std::string &name)
{
    const auto it =
        std::find_if(op.inputs.begin(), op.inputs.end(), [&](const TensorSpec &tensor) { return tensor.name == name; });
    return it == op.inputs.end() ? nullptr : &*it;
}

std::string checkTensors(const Op &op, const OpRecipe &recipe, const GemmTensors &tensors,
                         const std::set<std::string> &reserved, const std::string &templateName)
{
    const std::string the = "the " + templateName + " template";
    if (op.outputs.size() != 1)
        return the + " writes exactly one output";
    if (!recipe.bias.empty() && !tensors.bias)
        return "the recipe's bias '" + recipe.bias + "' is not an input of the op";
    for (std::size_t i = 0; i < tensors.epilogueInputs.size(); ++i)
        if (!tensors.epilogueInputs[i])
            return "the recipe's epilogue input '" + recipe.epilogueInputs[i] + "' is not an input of the op";
    std::set<std::string> extras{recipe.bias};
    for (const auto &name : recipe.epilogueInputs)
        if (!extras.insert(name).second)
            return "'" + name + "' appears twice among the bias and epilogue inputs";
    if (tensors.operands != 2)
        return the + " needs exactly two operand inputs besides bias and epilogue inputs (the op has "
               + std::to_string(tensors.operands) + ")";

    const std::vector<std::string> aShape{recipe.m, recipe.k};
    const std::vector<std::string> bShape =
        recipe.transposeB ? std::vector<std::string>{recipe.n, recipe.k} : std::vector<std::string>{recipe.k, recipe.n};
    const std::vector<std::string> outShape{recipe.m, recipe.n};
    if (tensors.a->shape != aShape)
        return "input " + tensors.a->name + " is " + shapeText(tensors.a->shape) + ", the recipe needs "
               + shapeText(aShape);
    if (tensors.b->shape != bShape)
        return "input " + tensors.b->name + " is " + shapeText(tensors.b->shape) + ", the recipe needs "
               + shapeText(bShape) + (recipe.transposeB ? " (transposeB: b is [n, k])" : "");
    if (tensors.out->shape != outShape)
        return "output " + tensors.out->name + " is " + shapeText(tensors.out->shape) + ", the recipe needs "
               + shapeText(outShape);
    if (tensors.bias && tensors.bias->shape != std::vector<std::string>{recipe.n})
        return "bias " + tensors.bias->name + " is " + shapeText(tensors.bias->shape) + ", it must be [" + recipe.n
               + "]";
    for (const auto *input : tensors.epilogueInputs)
        if (input->shape != outShape)
            return "epilogue input " + input->name + " is " + shapeText(input->shape) + ", it must be "
                   + shapeText(outShape);

    std::set<std::string> names;
    for (const auto &tensor : op.inputs)
        names.insert(tensor.name);
    names.insert(tensors.out->name);
    for (const auto &name : names) {
        if (!isIdentifier(name))
            return "tensor name '" + name + "' is not a C identifier";
        if (reserved.count(name))
            return "tensor name '" + name + "' clashes with a name of the generated code";
    }
    for (const auto &tensor : op.inputs)
        if (tensor.dtype != "float32")
            return "input " + tensor.name + " is " + tensor.dtype + ": " + the + " handles float32";
    if (tensors.out->dtype != "float32")
        return "output " + tensors.out->name + " is " + tensors.out->dtype + ": " + the + " writes float32";
    return {};
}

} // namespace

GemmTensors gemmTensors(const Op &op, const OpRecipe &recipe)
{
    GemmTensors tensors;
    if (!recipe.bias.empty())
        tensors.bias = findInput(op, recipe.bias);
    for (const auto &name : recipe.epilogueInputs)
        tensors.epilogueInputs.push_back(findInput(op, name));
    for (const auto &input : op.inputs) {
        const bool extra = input.name == recipe.bias
                           || std::find(recipe.epilogueInputs.begin(), recipe.epilogueInputs.end(), input.name)
                                  != recipe.epilogueInputs.end();
        if (extra)
            continue;
        if (!tensors.a)
            tensors.a = &input;
        else if (!tensors.b)
            tensors.b = &input;
        ++tensors.operands;
    }
    if (!op.outputs.empty())
        tensors.out = &op.outputs.front();
    return tensors;
}

std::string checkGemm(const Op &op, const OpRecipe &recipe, const std::set<std::string> &reserved,
                      const std::string &templateName)
{
    if (auto problem = checkTensors(op, recipe, gemmTensors(op, recipe), reserved, templateName); !problem.empty())
        return problem;
    if (recipe.expression.find_first_of(";{}#") != std::string::npos)
        return "the epilogue must be a single expression (no ';', braces or preprocessor lines)";
    for (std::size_t s = 0; s < op.shapeSets.size(); ++s) {
        const auto &shapes = op.shapeSets[s];
        const std::string where = "shape set " + std::to_string(s + 1);
        const auto m = dimensionValue(recipe.m, shapes);
        const auto n = dimensionValue(recipe.n, shapes);
        const auto k = dimensionValue(recipe.k, shapes);
        if (!m || !n || !k)
            return where + " does not bind " + recipe.m + ", " + recipe.n + " and " + recipe.k;
        if (*m <= 0 || *n <= 0 || *k <= 0 || *m > kMaxInt || *n > kMaxInt || *k > kMaxInt)
            return where + ": " + recipe.m + ", " + recipe.n + " and " + recipe.k + " must be positive 32-bit sizes";
    }
    return {};
}

std::string checkRowTiles(const Op &op, const OpRecipe &recipe, int bm)
{
    const auto sizes = gemmSizes(op, recipe);
    for (std::size_t s = 0; s < sizes.size(); ++s)
        if ((sizes[s].m + bm - 1) / bm > kMaxGridY)
            return "shape set " + std::to_string(s + 1) + ": " + recipe.m + " = " + std::to_string(sizes[s].m)
                   + " needs more than 65535 row tiles of " + std::to_string(bm);
    return {};
}

std::vector<GemmSizes> gemmSizes(const Op &op, const OpRecipe &recipe)
{
    std::vector<GemmSizes> sizes;
    for (const auto &shapes : op.shapeSets)
        sizes.push_back({dimensionValue(recipe.m, shapes).value_or(0), dimensionValue(recipe.n, shapes).value_or(0),
                         dimensionValue(recipe.k, shapes).value_or(0)});
    return sizes;
}

std::set<std::string> reservedNames(std::initializer_list<const char *> templateNames)
{
    std::set<std::string> names{"acc",      "m",      "n",      "M",       "N",       "K",      "i",      "j",
                                "k",        "kk",     "k0",     "r",       "c",       "s",      "v",      "row",
                                "rows",     "src",    "dst",    "rowBase", "colBase", "slices", "shared", "sum",
                                "epilogue", "BM",     "BN",     "BK",      "THREADS", "size_t", "float",  "int",
                                "long",     "double", "const",  "return",  "if",      "for",    "auto",   "unsigned",
                                "bool",     "void",   "inside", "nvcuda",  "wmma"};
    names.insert(templateNames.begin(), templateNames.end());
    return names;
}

std::string formulaComment(const OpRecipe &recipe, const GemmTensors &tensors)
{
    return tensors.out->name + "[m, n] = epilogue(sum_k " + tensors.a->name + "[m, k] * " + tensors.b->name
           + (recipe.transposeB ? "[n, k]" : "[k, n]")
           + (tensors.bias ? " + " + tensors.bias->name + "[n]" : std::string()) + ")";
}

void writeEpilogueFunction(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors)
{
    out << "\n// The fused epilogue: acc is the biased sum for " << tensors.out->name << "[m, n].\n"
        << "__device__ __forceinline__ float epilogue(float acc, int m, int n";
    for (const auto *input : tensors.epilogueInputs)
        out << ", float " << input->name;
    out << ")\n{\n";
    out << "    return " << (recipe.expression.empty() ? std::string("acc") : recipe.expression) << ";\n}\n";
}

std::string epilogueCall(const GemmTensors &tensors, const std::string &sum, const std::string &index)
{
    std::string call =
        "epilogue(" + sum + (tensors.bias ? " + " + tensors.bias->name + "[n]" : std::string()) + ", m, n";
    for (const auto *input : tensors.epilogueInputs)
        call += ", " + input->name + "[" + index + "]";
    return call + ")";
}

std::string extraParameters(const GemmTensors &tensors)
{
    std::string text;
    if (tensors.bias)
        text += "const float *__restrict__ " + tensors.bias->name + ", ";
    for (const auto *input : tensors.epilogueInputs)
        text += "const float *__restrict__ " + input->name + ", ";
    return text;
}

nlohmann::json operandArgs(const GemmTensors &tensors)
{
    return nlohmann::json::array({inputArg(tensors.a->name), inputArg(tensors.b->name)});
}

nlohmann::json extraArgs(const GemmTensors &tensors)
{
    nlohmann::json extras = nlohmann::json::array();
    if (tensors.bias)
        extras.push_back(inputArg(tensors.bias->name));
    for (const auto *input : tensors.epilogueInputs)
        extras.push_back(inputArg(input->name));
    return extras;
}

} // namespace kx::gemm
