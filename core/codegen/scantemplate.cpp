#include "core/codegen/scantemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/scancode.h"

#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Fewer rows than this leave most of a GPU idle with a block a row: the default chains tiles by look-back instead.
constexpr long long kManyRows = 1024;
constexpr long long kMaxGrid = 2147483647;

bool alongLastDimension(const OpRecipe &recipe)
{
    return recipe.inner == "1";
}

bool isProduct(const OpRecipe &recipe)
{
    return recipe.reduction == "prod";
}

scancode::ScanSpec specOf(const Op &op, const OpRecipe &recipe)
{
    scancode::ScanSpec spec;
    spec.product = isProduct(recipe);
    spec.exclusive = recipe.exclusive;
    spec.reverse = recipe.reverse;
    spec.prologue = recipe.prologue.empty() ? op.inputs.front().name : recipe.prologue;
    spec.epilogue = recipe.expression;
    for (const auto &input : op.inputs)
        spec.inputs.emplace_back(input.name, input.dtype == "bool" ? "bool" : "float");
    spec.output = op.outputs.front().name;
    return spec;
}

// "inclusive forward sum": what the header comment says the kernel computes.
std::string scanWords(const OpRecipe &recipe)
{
    return std::string(recipe.exclusive ? "exclusive " : "inclusive ") + (recipe.reverse ? "reverse " : "")
           + (isProduct(recipe) ? "product" : "sum");
}

// The size of a dimension in every shape set, or an empty vector when a set does not bind it.
std::vector<long long> sizesOf(const Op &op, const std::string &dimension)
{
    std::vector<long long> sizes;
    for (const auto &set : op.shapeSets) {
        const auto size = dimensionValue(dimension, set);
        if (!size)
            return {};
        sizes.push_back(*size);
    }
    return sizes;
}

} // namespace

bool ScanTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    return recipe.family == "scan" && !op.inputs.empty() && op.outputs.size() == 1;
}

std::vector<ParamDef> ScanTemplate::parameters(const Op &, const OpRecipe &recipe) const
{
    if (!alongLastDimension(recipe))
        return {{"block", {64, 128, 256, 512}, "block size"},
                {"unroll", {1, 2, 4, 8}, "loop unrolling along the scanned dimension"}};
    return {{"mapping", {0, 1}, "tiles (0: a block scans a row tile by tile, 1: a block a tile, chained by look-back)"},
            {"block", {128, 256, 512, 1024}, "block size"},
            {"items", {1, 2, 4, 8, 16}, "elements a thread scans in a tile"}};
}

Params ScanTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    if (!alongLastDimension(recipe))
        return {{"block", 256}, {"unroll", 4}};
    bool fewRows = !op.shapeSets.empty();
    for (const auto rows : sizesOf(op, recipe.rows))
        fewRows = fewRows && rows < kManyRows;
    Params params{{"mapping", fewRows && !isProduct(recipe) ? 1 : 0}, {"block", 256}, {"items", 8}};
    if (!check(op, recipe, params).empty())
        params["mapping"] = 0;
    return params;
}

std::string ScanTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the scan template needs a scan recipe with inputs and one output";
    if (recipe.reduction != "sum" && recipe.reduction != "prod")
        return "unknown scan '" + recipe.reduction + "' (sum or prod)";
    const auto &output = op.outputs.front();
    if (output.dtype != "float32")
        return "the scan writes float32";
    for (const auto &input : op.inputs) {
        if (input.dtype != "float32" && input.dtype != "bool")
            return "input " + input.name + " is " + input.dtype + ": the scan template reads float32 and bool";
        if (input.shape != output.shape)
            return "input " + input.name + " has another shape than the output: the scan reads every input at the "
                                           "output's positions";
        if (!isIdentifier(input.name))
            return "input " + input.name + " has no C name";
    }
    if (const auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    const auto rows = sizesOf(op, recipe.rows), cols = sizesOf(op, recipe.cols), inner = sizesOf(op, recipe.inner);
    if (rows.empty() || cols.empty() || inner.empty())
        return "the op's shape sets do not bind " + recipe.rows + ", " + recipe.cols + " and " + recipe.inner;
    if (!alongLastDimension(recipe)) {
        for (std::size_t i = 0; i < rows.size(); ++i)
            if ((rows[i] * inner[i] + param(params, "block") - 1) / param(params, "block") > kMaxGrid)
                return "more lines than a grid holds";
        return {};
    }
    const bool lookBack = param(params, "mapping") == 1;
    if (lookBack && isProduct(recipe))
        return "products scan a row in one block (mapping 0): the look-back chains fp32 sums only";
    const long long tile = param(params, "block") * param(params, "items");
    for (std::size_t i = 0; i < rows.size(); ++i)
        if ((lookBack ? rows[i] * ((cols[i] + tile - 1) / tile) : rows[i]) > kMaxGrid)
            return "more " + std::string(lookBack ? "tiles" : "rows") + " than a grid holds";
    return {};
}

GeneratedKernel ScanTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const auto spec = specOf(op, recipe);
    const auto &output = op.outputs.front().name;
    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[r, j"
        << (alongLastDimension(recipe) ? "" : ", i") << "] = " << (spec.epilogue.empty() ? "" : "epilogue of the ")
        << scanWords(recipe) << " of prologue(inputs) at positions "
        << (recipe.reverse ? (recipe.exclusive ? "after j" : "j and after") : (recipe.exclusive ? "before j" : "up to j"))
        << " along the " << (alongLastDimension(recipe) ? "last" : "middle") << " dimension of [" << recipe.rows
        << ", " << recipe.cols << (alongLastDimension(recipe) ? "" : ", " + recipe.inner) << "]\n\n";

    nlohmann::json args = nlohmann::json::array();
    for (const auto &input : op.inputs)
        args.push_back(inputArg(input.name));
    args.push_back(outputArg(output));
    if (!alongLastDimension(recipe)) {
        const int block = param(params, "block");
        out << scancode::columnKernel(spec, block, param(params, "unroll"));
        const std::string lines = recipe.rows + " * " + recipe.inner;
        args.push_back(intArg(lines));
        args.push_back(intArg(recipe.cols));
        args.push_back(intArg(recipe.inner));
        const auto steps = nlohmann::json::array(
            {kernelStep("scan_columns_kernel", {"ceil_div(" + lines + ", " + text(block) + ")"}, {text(block)}, args)});
        return {out.str(), planJson(steps)};
    }

    const scancode::RowLayout layout{param(params, "mapping") == 1, param(params, "block"), param(params, "items")};
    out << scancode::rowKernels(spec, layout);
    const std::string shared = text(scancode::tileSharedBytes(layout));
    const std::vector<std::string> block{text(layout.block)};
    if (!layout.lookBack) {
        args.push_back(intArg(recipe.cols));
        const auto steps = nlohmann::json::array({kernelStep("scan_rows_kernel", {recipe.rows}, block, args, shared)});
        return {out.str(), planJson(steps)};
    }
    const std::string tilesPerRow = "ceil_div(" + recipe.cols + ", " + text(layout.block * layout.items) + ")";
    const std::string tiles = recipe.rows + " * " + tilesPerRow;
    // A status word a tile and the tile counter behind them.
    const std::string statusWords = tiles + " + 1";
    args.push_back(scratchArg("status"));
    args.push_back(intArg(recipe.cols));
    args.push_back(intArg(tilesPerRow));
    const auto initArgs = nlohmann::json::array({scratchArg("status"), intArg(statusWords)});
    const auto steps = nlohmann::json::array(
        {kernelStep("scan_init_kernel", {"ceil_div(" + statusWords + ", 256)"}, {"256"}, initArgs),
         kernelStep("scan_tiles_kernel", {tiles}, block, args, shared)});
    return {out.str(), planJson(steps, {{"status", "8 * (" + statusWords + ")"}})};
}

} // namespace kx
