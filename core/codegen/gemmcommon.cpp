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

// The layouts of the recipe that the template has not opted into, and combinations no template computes.
std::string checkLayouts(const OpRecipe &recipe, const GemmLayouts &supported, const std::string &the)
{
    if (recipe.transposeA && !supported.transposedA)
        return the + " does not implement a transposed a (transposeA: a given as [k, m])";
    if (isBatched(recipe) && !supported.batched)
        return the + " does not implement batched products (batch " + recipe.batch + ")";
    if (!recipe.leading.empty() && !supported.foldedRows)
        return the + " does not fold leading dimensions into the rows (leading " + shapeText(recipe.leading) + ")";
    if (!recipe.triangle.empty() && !supported.triangular)
        return the + " does not implement a triangular output (triangle " + recipe.triangle + ")";
    if (!recipe.triangle.empty() && recipe.triangle != "upper" && recipe.triangle != "lower")
        return "unknown triangle '" + recipe.triangle + "' (upper or lower)";
    if (!recipe.leading.empty() && (isBatched(recipe) || recipe.transposeA || !recipe.triangle.empty()))
        return "leading dimensions fold into the rows of a plain a: not with a batch, a transposed a or a triangle";
    return {};
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

    const auto neededA = aShape(recipe), neededB = bShape(recipe), neededOut = outShape(recipe);
    if (tensors.a->shape != neededA)
        return "input " + tensors.a->name + " is " + shapeText(tensors.a->shape) + ", the recipe needs "
               + shapeText(neededA) + (recipe.transposeA ? " (transposeA: a is [k, m])" : "");
    const std::vector<std::string> sharedB(neededB.end() - 2, neededB.end());
    if (tensors.b->shape != neededB && !(isBatched(recipe) && tensors.b->shape == sharedB))
        return "input " + tensors.b->name + " is " + shapeText(tensors.b->shape) + ", the recipe needs "
               + shapeText(neededB) + (isBatched(recipe) ? " or " + shapeText(sharedB) : "")
               + (recipe.transposeB ? " (transposeB: b is [n, k])" : "");
    if (tensors.out->shape != neededOut)
        return "output " + tensors.out->name + " is " + shapeText(tensors.out->shape) + ", the recipe needs "
               + shapeText(neededOut);
    if (tensors.bias && tensors.bias->shape != std::vector<std::string>{recipe.n})
        return "bias " + tensors.bias->name + " is " + shapeText(tensors.bias->shape) + ", it must be [" + recipe.n
               + "]";
    for (const auto *input : tensors.epilogueInputs)
        if (input->shape != neededOut)
            return "epilogue input " + input->name + " is " + shapeText(input->shape) + ", it must be "
                   + shapeText(neededOut);

    // The names the layouts add to the generated code.
    std::set<std::string> taken = reserved;
    if (isBatched(recipe))
        taken.insert("batch");
    if (!recipe.triangle.empty())
        taken.insert({"keeps", "zeroTile"});
    std::set<std::string> names;
    for (const auto &tensor : op.inputs)
        names.insert(tensor.name);
    names.insert(tensors.out->name);
    for (const auto &name : names) {
        if (!isIdentifier(name))
            return "tensor name '" + name + "' is not a C identifier";
        if (taken.count(name))
            return "tensor name '" + name + "' clashes with a name of the generated code";
    }
    for (const auto &tensor : op.inputs)
        if (tensor.dtype != "float32")
            return "input " + tensor.name + " is " + tensor.dtype + ": " + the + " handles float32";
    if (tensors.out->dtype != "float32")
        return "output " + tensors.out->name + " is " + tensors.out->dtype + ": " + the + " writes float32";
    return {};
}

std::vector<std::string> batchDimensions(const OpRecipe &recipe)
{
    return isBatched(recipe) ? std::vector<std::string>{recipe.batch} : std::vector<std::string>{};
}

std::vector<std::string> concatenated(std::vector<std::string> first, const std::vector<std::string> &second)
{
    first.insert(first.end(), second.begin(), second.end());
    return first;
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
                      const std::string &templateName, const GemmLayouts &supported)
{
    if (auto problem = checkLayouts(recipe, supported, "the " + templateName + " template"); !problem.empty())
        return problem;
    if (auto problem = checkTensors(op, recipe, gemmTensors(op, recipe), reserved, templateName); !problem.empty())
        return problem;
    if (recipe.expression.find_first_of(";{}#") != std::string::npos)
        return "the epilogue must be a single expression (no ';', braces or preprocessor lines)";
    const auto sizes = gemmSizes(op, recipe);
    for (std::size_t s = 0; s < op.shapeSets.size(); ++s) {
        const auto &shapes = op.shapeSets[s];
        const std::string where = "shape set " + std::to_string(s + 1);
        for (const auto &dimension : concatenated(batchDimensions(recipe), recipe.leading))
            if (!dimensionValue(dimension, shapes))
                return where + " does not bind " + dimension;
        if (!dimensionValue(recipe.m, shapes) || !dimensionValue(recipe.n, shapes) || !dimensionValue(recipe.k, shapes))
            return where + " does not bind " + recipe.m + ", " + recipe.n + " and " + recipe.k;
        const GemmSizes &size = sizes[s];
        if (size.m <= 0 || size.n <= 0 || size.k <= 0 || size.batch <= 0 || size.m > kMaxInt || size.n > kMaxInt
            || size.k > kMaxInt)
            return where + ": " + rowsExpression(recipe) + ", " + recipe.n + " and " + recipe.k
                   + " must be positive 32-bit sizes";
        if (size.batch > kMaxGridY)
            return where + ": a batch of " + std::to_string(size.batch) + " exceeds 65535 (a grid dimension's limit)";
    }
    return {};
}

std::size_t defaultTileIndex(const std::vector<TileShape> &tiles, const std::vector<GemmSizes> &sizes)
{
    constexpr long long kBlocksWanted = 256;
    if (sizes.empty() || tiles.empty())
        return 0;
    const GemmSizes &size = sizes.front();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const TileShape &tile = tiles[i];
        const bool oversized = tile.bm >= 2 * size.m || tile.bn >= 2 * size.n;
        const long long blocks = ((size.m + tile.bm - 1) / tile.bm) * ((size.n + tile.bn - 1) / tile.bn) * size.batch;
        if (!oversized && blocks >= kBlocksWanted)
            return i;
    }
    return tiles.size() - 1;
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
    for (const auto &shapes : op.shapeSets) {
        GemmSizes size{dimensionValue(recipe.m, shapes).value_or(0), dimensionValue(recipe.n, shapes).value_or(0),
                       dimensionValue(recipe.k, shapes).value_or(0),
                       isBatched(recipe) ? dimensionValue(recipe.batch, shapes).value_or(0) : 1};
        for (const auto &dimension : recipe.leading)
            size.m *= dimensionValue(dimension, shapes).value_or(0);
        sizes.push_back(size);
    }
    return sizes;
}

std::vector<std::string> aShape(const OpRecipe &recipe)
{
    const auto rows = concatenated(batchDimensions(recipe), recipe.leading);
    return concatenated(rows, recipe.transposeA ? std::vector<std::string>{recipe.k, recipe.m}
                                                : std::vector<std::string>{recipe.m, recipe.k});
}

std::vector<std::string> bShape(const OpRecipe &recipe)
{
    return concatenated(batchDimensions(recipe), recipe.transposeB ? std::vector<std::string>{recipe.n, recipe.k}
                                                                   : std::vector<std::string>{recipe.k, recipe.n});
}

std::vector<std::string> outShape(const OpRecipe &recipe)
{
    return concatenated(concatenated(batchDimensions(recipe), recipe.leading), {recipe.m, recipe.n});
}

bool batchedB(const OpRecipe &recipe, const GemmTensors &tensors)
{
    return isBatched(recipe) && tensors.b->shape.size() == 3;
}

std::string rowsExpression(const OpRecipe &recipe)
{
    std::string rows;
    for (const auto &dimension : concatenated(recipe.leading, {recipe.m}))
        rows += (rows.empty() ? "" : " * ") + dimension;
    return rows;
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
    const std::string batch = isBatched(recipe) ? "batch, " : "";
    const std::string bBatch = batchedB(recipe, tensors) ? batch : "";
    std::string formula = tensors.out->name + "[" + batch + "m, n] = epilogue(sum_k " + tensors.a->name + "[" + batch
                          + (recipe.transposeA ? "k, m]" : "m, k]") + " * " + tensors.b->name + "[" + bBatch
                          + (recipe.transposeB ? "n, k]" : "k, n]")
                          + (tensors.bias ? " + " + tensors.bias->name + "[n]" : std::string()) + ")";
    if (isBatched(recipe))
        formula += " for each of " + recipe.batch + " batches" + (bBatch.empty() ? " (one b for all)" : "");
    if (!recipe.leading.empty())
        formula += ", m over the " + rowsExpression(recipe) + " rows of a (its leading dimensions folded in)";
    if (!recipe.triangle.empty())
        formula += ", where n - m " + std::string(recipe.triangle == "upper" ? ">= " : "<= ")
                   + std::to_string(recipe.diagonal) + " (the " + recipe.triangle + " triangle; zeros elsewhere)";
    return formula;
}

std::string batchOffsets(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &batch,
                         const std::string &indent)
{
    if (!isBatched(recipe))
        return {};
    std::string text = indent + "// The matrices of this block's batch"
                       + (batchedB(recipe, tensors) ? "" : " (b is shared)") + ".\n" + indent + tensors.a->name
                       + " += (size_t)" + batch + " * M * K;\n";
    if (batchedB(recipe, tensors))
        text += indent + tensors.b->name + " += (size_t)" + batch + " * K * N;\n";
    return text + batchOutputOffsets(recipe, tensors, batch, indent);
}

std::string batchOutputOffsets(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &batch,
                               const std::string &indent)
{
    if (!isBatched(recipe))
        return {};
    std::string text = indent + tensors.out->name + " += (size_t)" + batch + " * M * N;\n";
    for (const auto *input : tensors.epilogueInputs)
        text += indent + input->name + " += (size_t)" + batch + " * M * N;\n";
    return text;
}

void writeTriangleFunctions(std::ostringstream &out, const OpRecipe &recipe, bool tiled)
{
    if (recipe.triangle.empty())
        return;
    const bool upper = recipe.triangle == "upper";
    const std::string diagonal = std::to_string(recipe.diagonal);
    out << "\n// The output keeps its " << recipe.triangle << " triangle, n - m " << (upper ? ">= " : "<= ") << diagonal
        << " (torch." << (upper ? "triu" : "tril") << "), and is zero elsewhere.\n"
        << "__device__ __forceinline__ bool keeps(int m, int n)\n{\n"
        << "    return n - m " << (upper ? ">= " : "<= ") << diagonal << ";\n}\n";
    if (!tiled)
        return;
    out << "// Whether the BM x BN output tile at (rowBase, colBase) lies wholly in the zero part: then its product "
           "is\n"
        << "// not computed at all. (Its "
        << (upper ? "largest n - m is at its last column and first row"
                  : "smallest n - m is at its first column and last row")
        << ".)\n"
        << "__device__ __forceinline__ bool zeroTile(int rowBase, int colBase)\n{\n"
        << (upper ? "    return (long long)colBase + BN - 1 - rowBase < " + diagonal + ";\n"
                  : "    return (long long)colBase - (rowBase + BM - 1) > " + diagonal + ";\n")
        << "}\n";
}

std::string storedValue(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &sum,
                        const std::string &index)
{
    const std::string value = epilogueCall(tensors, sum, index);
    return recipe.triangle.empty() ? value : "(keeps(m, n) ? " + value + " : 0.0f)";
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

int defaultSplitK(const GemmSizes &size, int bm, int bn, int bk)
{
    constexpr long long kBlocksWanted = 264, kMinSlices = 8, kMostSplits = 64;
    const long long tiles = ((size.m + bm - 1) / bm) * ((size.n + bn - 1) / bn) * size.batch;
    if (tiles <= 0 || 2 * tiles >= kBlocksWanted)
        return 1;
    int splits = 1;
    while (tiles * 2 * splits <= kBlocksWanted && splits < kMostSplits && size.k / (2LL * splits * bk) >= kMinSlices)
        splits *= 2;
    return splits;
}

void writeSplitKReduceKernel(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors, int splits)
{
    out << "\n// Split-K: adds the " << splits
        << " partial products of each output element in a fixed order, then the epilogue.\n"
        << "extern \"C\" __global__ void __launch_bounds__(256)\ngemm_splitk_reduce(const float *__restrict__ "
        << kSplitKPartial << ", " << extraParameters(tensors) << "float *__restrict__ " << tensors.out->name
        << ", int M, int N, long long elements)\n{\n"
        << "    const long long idx = (long long)blockIdx.x * 256 + threadIdx.x;\n"
        << "    if (idx >= elements)\n        return;\n"
        << "    float sum = 0.0f;\n#pragma unroll\n"
        << "    for (int s = 0; s < " << splits << "; ++s)\n"
        << "        sum += " << kSplitKPartial << "[(size_t)s * elements + idx];\n"
        << "    const long long inMatrix = idx % ((long long)M * N);\n"
        << "    const int m = (int)(inMatrix / N), n = (int)(inMatrix % N);\n"
        << "    " << tensors.out->name << "[idx] = " << storedValue(recipe, tensors, "sum", "idx") << ";\n}\n";
}

std::string outputElements(const OpRecipe &recipe)
{
    const std::string matrix = "(" + rowsExpression(recipe) + ") * " + recipe.n;
    return isBatched(recipe) ? recipe.batch + " * " + matrix : matrix;
}

nlohmann::json splitKReduceStep(const OpRecipe &recipe, const GemmTensors &tensors)
{
    nlohmann::json args = nlohmann::json::array({scratchArg(kSplitKPartial)});
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(outputArg(tensors.out->name));
    args.push_back(intArg(rowsExpression(recipe)));
    args.push_back(intArg(recipe.n));
    args.push_back(intArg(outputElements(recipe)));
    return kernelStep("gemm_splitk_reduce", {"ceil_div(" + outputElements(recipe) + ", 256)"}, {"256"}, args, "0");
}

std::pair<std::string, std::string> splitKScratch(const OpRecipe &recipe, int splits)
{
    return {kSplitKPartial, "4 * " + std::to_string(splits) + " * " + outputElements(recipe)};
}

} // namespace kx::gemm
