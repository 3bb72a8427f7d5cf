#include "core/codegen/losstemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/pipeline.h"
#include "core/codegen/rowcommon.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Threads of the finishing kernel: it adds at most a few thousand partials.
constexpr int kFinishBlock = 256;

bool isElementwise(const OpRecipe &recipe)
{
    return recipe.prologue == "elementwise";
}

bool isScalar(const TensorSpec &tensor)
{
    return std::all_of(tensor.shape.begin(), tensor.shape.end(), [](const std::string &d) { return d == "1"; });
}

// The elements of the first input: what an elementwise loss has a term for.
std::string elementCount(const Op &op)
{
    return op.inputs.empty() ? "1" : shapeProduct(op.inputs.front().shape);
}

// Every shape set's value of a product of dimensions; nullopt where one has no size.
std::optional<long long> productValue(const std::vector<std::string> &shape, const ShapeSet &shapes)
{
    long long product = 1;
    for (const auto &dimension : shape) {
        const auto value = dimensionValue(dimension, shapes);
        if (!value || *value < 1)
            return std::nullopt;
        product *= *value;
    }
    return product;
}

// The input names as CUDA identifiers must not collide with the generated code's own.
std::string checkNames(const Op &op)
{
    static const std::set<std::string> reserved{"acc",  "shared", "partials", "out", "rows", "cols", "n",   "row",
                                                "lane", "in",     "c",        "v",   "term", "dpos", "dneg"};
    for (const auto &input : op.inputs) {
        if (!isIdentifier(input.name) || reserved.count(input.name) || input.name.find("__") != std::string::npos)
            return "input name " + input.name + " cannot be used in the generated code";
        // The kernel names each input's pointer, float4 and size after it.
        for (const auto &other : op.inputs)
            for (const char *suffix : {"_ptr", "_4", "_n"})
                if (input.name == other.name + suffix)
                    return "input name " + input.name + " cannot be used in the generated code";
    }
    return {};
}

std::string checkRowInputs(const Op &op, const OpRecipe &recipe)
{
    const bool crossEntropy = recipe.prologue == "cross-entropy";
    const std::size_t expected = crossEntropy ? 2 : 3;
    if (op.inputs.size() != expected)
        return recipe.prologue + " reads " + (crossEntropy ? "logits and targets" : "anchor, positive and negative");
    const std::vector<std::string> matrix{recipe.rows, recipe.cols};
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const auto &input = op.inputs[i];
        if (crossEntropy && i == 1) {
            if (input.dtype != "int64" || input.shape != std::vector<std::string>{recipe.rows})
                return "the targets " + input.name + " must be int64 [" + recipe.rows + "]";
            // Without the range the trials fill int64 inputs with any integer: a wrong class index reads outside
            // the row, and -100 is the reference's ignore_index, so the comparison would mean nothing.
            if (input.valueRange != std::vector<std::string>{"0", recipe.cols})
                return "the targets " + input.name + " need the value range [0, " + recipe.cols
                       + ") so that the trials draw class indices";
            continue;
        }
        if (input.dtype != "float32" || input.shape != matrix)
            return "input " + input.name + " must be float32 [" + recipe.rows + ", " + recipe.cols + "]";
    }
    return {};
}

// An input of an elementwise loss whose shape is the last dimensions of the first input's: it repeats along the
// leading ones (hinge's targets [D] against predictions [N, D]), read at the element's index modulo its size.
bool isBroadcast(const Op &op, const TensorSpec &input)
{
    const auto &full = op.inputs.front().shape;
    return input.shape.size() < full.size() && std::equal(input.shape.rbegin(), input.shape.rend(), full.rbegin());
}

std::string checkElementwiseInputs(const Op &op)
{
    if (op.inputs.empty())
        return "an elementwise loss reads at least one input";
    for (const auto &input : op.inputs)
        if (input.dtype != "float32" || (input.shape != op.inputs.front().shape && !isBroadcast(op, input)))
            return "an elementwise loss reads float32 inputs of the first one's shape or of its last dimensions ("
                   + input.name + " is neither)";
    return {};
}

// CUDA statements that leave the row's term in `term` (every thread of the row's warp or block gets it).
std::string rowTerm(const Op &op, const OpRecipe &recipe, const rows::RowLayout &layout, bool online,
                    const std::string &exp, const std::string &log)
{
    const std::string indent = "        ";
    const auto reduce = [&](const std::string &kind, const std::string &value) {
        return rows::reduceCall(layout, kind, value);
    };
    std::ostringstream out;
    if (recipe.prologue == "cross-entropy") {
        out << indent << "const long long t = " << op.inputs[1].name << "[row];\n";
        if (online) {
            out << indent << "// One pass: a running maximum and a sum rescaled whenever the maximum grows.\n"
                << indent << "float m = negativeInfinity(), s = 0.0f;\n"
                << rows::forEachElement(layout, "in", rows::onlineLogSumExpStep(exp), indent) << indent
                << "const float rowMax = " << reduce("Max", "m") << ";\n"
                << indent << "s = m == negativeInfinity() ? 0.0f : s * " << exp << "(m - rowMax);\n"
                << indent << "s = " << reduce("Sum", "s") << ";\n";
        } else {
            out << indent << "float m = negativeInfinity();\n"
                << rows::forEachElement(layout, "in", "m = fmaxf(m, v);", indent) << indent
                << "const float rowMax = " << reduce("Max", "m") << ";\n"
                << indent << "float s = 0.0f;\n"
                << rows::forEachElement(layout, "in", "s += " + exp + "(v - rowMax);", indent) << indent
                << "s = " << reduce("Sum", "s") << ";\n";
        }
        out << indent << "// A class index outside the row gives NaN rather than a read outside it.\n"
            << indent << "const float term = t >= 0 && t < cols ? rowMax + " << log
            << "(s) - in[t] : __int_as_float(0x7fffffff);\n";
        return out.str();
    }
    const auto &positive = op.inputs[1].name, &negative = op.inputs[2].name;
    out << indent << "const float *__restrict__ pos = " << positive << " + row * cols;\n"
        << indent << "const float *__restrict__ neg = " << negative << " + row * cols;\n"
        << indent << "float sp = 0.0f, sn = 0.0f;\n"
        << rows::forEachElement(layout, "in",
                                "const float dp = v - pos[c] + eps; const float dn = v - neg[c] + eps; sp += dp * dp; "
                                "sn += dn * dn;",
                                indent)
        << indent << "const float dpos = sqrtf(" << reduce("Sum", "sp") << ");\n"
        << indent << "const float dneg = sqrtf(" << reduce("Sum", "sn") << ");\n"
        << indent << "const float term = " << recipe.expression << ";\n";
    return out.str();
}

std::string rowPartialsKernel(const Op &op, const OpRecipe &recipe, const rows::RowLayout &layout, bool online,
                              bool fastMath)
{
    const std::string exp = fastMath ? "__expf" : "expf", log = fastMath ? "__logf" : "logf";
    const auto &x = op.inputs.front().name;
    std::ostringstream out;
    out << "extern \"C\" __global__ void __launch_bounds__(" << layout.block << ") loss_partials(";
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
        out << "const " << (op.inputs[i].dtype == "int64" ? "long long" : "float") << " *__restrict__ "
            << op.inputs[i].name << ", ";
    out << "float *__restrict__ partials, long long rows, long long cols)\n{\n"
        << "    __shared__ float shared[32];\n";
    if (recipe.prologue == "triplet-margin")
        out << "    const float eps = " << epsLiteral(recipe.eps) << ";\n";
    out << "    float acc = 0.0f; // the terms of this thread's rows (lane 0 of each row's threads adds them)\n";
    if (layout.warpPerRow)
        out << "    const int lane = threadIdx.x & 31;\n"
            << "    const long long warps = (long long)gridDim.x * " << layout.block / 32 << ";\n"
            << "    for (long long row = (long long)blockIdx.x * " << layout.block / 32
            << " + threadIdx.x / 32; row < rows; row += warps) {\n";
    else
        out << "    const int lane = threadIdx.x;\n"
            << "    for (long long row = blockIdx.x; row < rows; row += gridDim.x) {\n";
    out << "        const float *__restrict__ in = " << x << " + row * cols;\n"
        << rowTerm(op, recipe, layout, online, exp, log) << "        if (lane == 0)\n            acc += term;\n"
        << "    }\n"
        << "    acc = blockSum(acc, shared);\n"
        << "    if (threadIdx.x == 0)\n        partials[blockIdx.x] = acc;\n}\n\n";
    return out.str();
}

std::string elementwisePartialsKernel(const Op &op, const OpRecipe &recipe, const rows::RowLayout &layout,
                                      bool fastMath)
{
    const std::string expression = fastMath ? withFastMath(recipe.expression) : recipe.expression;
    std::ostringstream out;
    out << "extern \"C\" __global__ void __launch_bounds__(" << layout.block << ") loss_partials(";
    for (const auto &input : op.inputs)
        out << "const float *__restrict__ " << input.name << "_ptr, ";
    out << "float *__restrict__ partials, long long n";
    for (const auto &input : op.inputs)
        if (isBroadcast(op, input))
            out << ", long long " << input.name << "_n";
    out << ")\n{\n"
        << "    __shared__ float shared[32];\n"
        << "    float acc = 0.0f;\n"
        << "    const long long stride = (long long)gridDim.x * " << layout.block << ";\n";
    const std::string unroll =
        layout.unroll > 1 ? "    #pragma unroll " + std::to_string(layout.unroll) + "\n" : std::string();
    if (layout.vec == 1) {
        out << unroll << "    for (long long i = (long long)blockIdx.x * " << layout.block
            << " + threadIdx.x; i < n; i += stride) {\n";
        for (const auto &input : op.inputs)
            out << "        const float " << input.name << " = " << input.name << "_ptr["
                << (isBroadcast(op, input) ? "i % " + input.name + "_n" : std::string("i")) << "];\n";
        out << "        acc += " << expression << ";\n    }\n";
    } else {
        out << "    // float4 loads: n (and the size of an input that repeats) is a multiple of 4 in every shape set.\n"
            << unroll << "    for (long long i4 = (long long)blockIdx.x * " << layout.block
            << " + threadIdx.x; i4 < n / 4; i4 += stride) {\n";
        for (const auto &input : op.inputs)
            out << "        const float4 " << input.name << "_4 = reinterpret_cast<const float4 *>(" << input.name
                << "_ptr)[" << (isBroadcast(op, input) ? "i4 % (" + input.name + "_n / 4)" : std::string("i4"))
                << "];\n";
        out << "#pragma unroll\n        for (int k = 0; k < 4; ++k) {\n";
        for (const auto &input : op.inputs)
            out << "            const float " << input.name << " = k == 0 ? " << input.name << "_4.x : k == 1 ? "
                << input.name << "_4.y : k == 2 ? " << input.name << "_4.z : " << input.name << "_4.w;\n";
        out << "            acc += " << expression << ";\n        }\n    }\n";
    }
    out << "    acc = blockSum(acc, shared);\n"
        << "    if (threadIdx.x == 0)\n        partials[blockIdx.x] = acc;\n}\n\n";
    return out.str();
}

std::string finishKernel(const std::string &output)
{
    std::ostringstream out;
    out << "// One block adds the partials in a fixed order: the same inputs give the same result on every run.\n"
        << "extern \"C\" __global__ void __launch_bounds__(" << kFinishBlock
        << ") loss_finish(float *__restrict__ partials, float *__restrict__ " << output
        << ", long long count, long long divisor)\n{\n"
        << "    __shared__ float shared[32];\n"
        << "    float acc = 0.0f;\n"
        << "    for (long long i = threadIdx.x; i < count; i += blockDim.x)\n        acc += partials[i];\n"
        << "    acc = blockSum(acc, shared);\n"
        << "    if (threadIdx.x == 0)\n        " << output << "[0] = (float)((double)acc / (double)divisor);\n}\n";
    return out.str();
}

// The first kernel's blocks: enough for the work, at most `partials`.
std::string partialsGrid(const Op &op, const OpRecipe &recipe, const rows::RowLayout &layout, int partials)
{
    std::string work;
    if (isElementwise(recipe))
        work = "ceil_div(" + elementCount(op) + ", " + text(layout.block * layout.vec) + ")";
    else
        work = layout.warpPerRow ? "ceil_div(" + recipe.rows + ", " + text(layout.block / 32) + ")" : recipe.rows;
    return "min(" + work + ", " + text(partials) + ")";
}

} // namespace

namespace loss {

bool isRowLoss(const OpRecipe &recipe)
{
    return recipe.prologue == "cross-entropy" || recipe.prologue == "triplet-margin";
}

std::string termCount(const Op &op, const OpRecipe &recipe)
{
    return isRowLoss(recipe) ? recipe.rows : elementCount(op);
}

std::string divisor(const Op &op, const OpRecipe &recipe)
{
    if (recipe.reduction == "sum")
        return "1";
    if (recipe.reduction == "batchmean")
        return recipe.rows;
    return termCount(op, recipe);
}

} // namespace loss

bool LossTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "loss";
}

std::vector<ParamDef> LossTemplate::parameters(const Op &, const OpRecipe &recipe) const
{
    std::vector<ParamDef> definitions{
        {"block", {128, 256, 512, 1024}, "block size of the partial sums"},
        {"vec", {1, 4}, "vector width (floats per load)"},
        {"unroll", {1, 2, 4}, "loop unrolling (loads in flight per thread)"},
        {"partials", {256, 512, 1024, 2048}, "most blocks (partial sums) of the first kernel"},
        {"fastMath", {0, 1}, "fast-math intrinsics"}};
    if (loss::isRowLoss(recipe))
        definitions.push_back({"mapping", {0, 1}, "rows per block (0: one warp per row, 1: one block per row)"});
    if (recipe.prologue == "cross-entropy")
        definitions.push_back({"online", {0, 1}, "logsumexp passes (0: max, then sum; 1: online max and sum)"});
    return definitions;
}

Params LossTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    Params params{{"block", 256}, {"vec", 1}, {"unroll", 2}, {"partials", 1024}, {"fastMath", 0}};
    if (loss::isRowLoss(recipe))
        params["mapping"] = 0;
    if (recipe.prologue == "cross-entropy")
        params["online"] = 1;
    // float4 loads where every shape set allows them.
    Params vectorised = params;
    vectorised["vec"] = 4;
    if (check(op, recipe, vectorised).empty())
        params["vec"] = 4;
    return params;
}

std::string LossTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the loss template needs a loss recipe";
    if (recipe.prologue != "elementwise" && !loss::isRowLoss(recipe))
        return "unknown loss prologue '" + recipe.prologue + "' (elementwise, cross-entropy or triplet-margin)";
    if (recipe.reduction != "mean" && recipe.reduction != "sum" && recipe.reduction != "batchmean")
        return "unknown loss reduction '" + recipe.reduction + "' (mean, sum or batchmean)";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (op.outputs.size() != 1 || op.outputs.front().dtype != "float32" || !isScalar(op.outputs.front()))
        return "a loss writes one float32 scalar";
    if (auto problem = checkNames(op); !problem.empty())
        return problem;
    if (recipe.prologue != "cross-entropy"
        && (recipe.expression.empty() || recipe.expression.find_first_of("#{};") != std::string::npos))
        return "the term must be one expression";
    if (auto problem = loss::isRowLoss(recipe) ? checkRowInputs(op, recipe) : checkElementwiseInputs(op);
        !problem.empty())
        return problem;
    const int vec = param(params, "vec", 1);
    for (std::size_t set = 0; set < op.shapeSets.size(); ++set) {
        const auto &shapes = op.shapeSets[set];
        const auto rows = dimensionValue(recipe.rows, shapes);
        const auto cols = dimensionValue(recipe.cols, shapes);
        const auto elements = productValue(op.inputs.front().shape, shapes);
        const bool needsRows = loss::isRowLoss(recipe) || recipe.reduction == "batchmean";
        if (!elements || (needsRows && !rows) || (loss::isRowLoss(recipe) && !cols))
            return "shape set " + std::to_string(set + 1) + " does not bind the loss's dimensions";
        // float4 loads: a row loss's rows start at multiples of 4, an elementwise loss's elements come in fours.
        long long grouped = loss::isRowLoss(recipe) ? cols.value_or(1) : *elements;
        for (const auto &input : op.inputs)
            if (!loss::isRowLoss(recipe) && isBroadcast(op, input))
                if (const auto size = productValue(input.shape, shapes); size && *size % vec != 0)
                    grouped = *size;
        if (grouped % vec != 0)
            return "vector width " + std::to_string(vec) + " needs "
                   + (loss::isRowLoss(recipe) ? recipe.cols : elementCount(op)) + " divisible by it ("
                   + std::to_string(grouped) + " is not)";
    }
    return {};
}

GeneratedKernel LossTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    rows::RowLayout layout;
    layout.warpPerRow = param(params, "mapping", 0) == 0;
    layout.block = param(params, "block", 256);
    layout.vec = param(params, "vec", 1);
    layout.unroll = param(params, "unroll", 1);
    const int partials = param(params, "partials", 1024);
    const bool fastMath = param(params, "fastMath") == 1;
    const auto &output = op.outputs.front().name;
    // The block helpers of a block a row: the partials of a block are always added across the whole block.
    rows::RowLayout helpers = layout;
    helpers.warpPerRow = false;
    helpers.sharedTree = false;

    std::ostringstream source;
    source << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << " = sum of the "
           << recipe.prologue << " terms / " << loss::divisor(op, recipe) << " (" << recipe.reduction << ")\n"
           << "// Kernel 1: each block writes the sum of its terms to partials; kernel 2 adds the partials.\n\n"
           << rows::reductionHelpers(helpers) << "\n";
    auto args = nlohmann::json::array();
    for (const auto &input : op.inputs)
        args.push_back(inputArg(input.name));
    args.push_back(scratchArg("partials"));
    if (loss::isRowLoss(recipe)) {
        source << rowPartialsKernel(op, recipe, layout, param(params, "online", 0) == 1, fastMath);
        args.push_back(intArg(recipe.rows));
        args.push_back(intArg(recipe.cols));
    } else {
        source << elementwisePartialsKernel(op, recipe, layout, fastMath);
        args.push_back(intArg(elementCount(op)));
        for (const auto &input : op.inputs)
            if (isBroadcast(op, input))
                args.push_back(intArg(shapeProduct(input.shape)));
    }
    source << finishKernel(output);
    const std::string grid = partialsGrid(op, recipe, layout, partials);
    const auto finishArgs = nlohmann::json::array(
        {scratchArg("partials"), outputArg(output), intArg(grid), intArg(loss::divisor(op, recipe))});
    const auto steps = nlohmann::json::array({kernelStep("loss_partials", {grid}, {text(layout.block)}, args),
                                              kernelStep("loss_finish", {"1"}, {text(kFinishBlock)}, finishArgs)});
    return {source.str(), planJson(steps, {{"partials", "4*" + text(partials)}})};
}

} // namespace kx
