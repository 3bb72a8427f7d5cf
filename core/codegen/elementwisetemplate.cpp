#include "core/codegen/elementwisetemplate.h"

#include "core/codegen/codegenutil.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace kx {

using namespace codegen;

std::string elementCountExpression(const TensorSpec &tensor)
{
    if (tensor.shape.empty())
        return "1";
    std::string expression;
    for (const auto &dimension : tensor.shape)
        expression += (expression.empty() ? "" : "*") + dimension;
    return expression;
}

bool isBroadcast(const TensorSpec &input, const TensorSpec &output)
{
    return elementCountExpression(input) != elementCountExpression(output);
}

namespace {

bool isRowInput(const OpRecipe &recipe, const TensorSpec &input)
{
    return std::find(recipe.rowInputs.begin(), recipe.rowInputs.end(), input.name) != recipe.rowInputs.end();
}

// The output's dimensions that share one value of a row input, those after the input's ([M] for an [N] or
// [N, 1] input of an [N, M] output); none when the input is not the output's leading dimensions.
std::vector<std::string> rowDimensions(const TensorSpec &input, const TensorSpec &output)
{
    auto declared = input.shape;
    while (!declared.empty() && declared.back() == "1")
        declared.pop_back();
    if (declared.empty() || declared.size() >= output.shape.size()
        || !std::equal(declared.begin(), declared.end(), output.shape.begin()))
        return {};
    return {output.shape.begin() + std::ptrdiff_t(declared.size()), output.shape.end()};
}

std::string rowLength(const TensorSpec &input, const TensorSpec &output)
{
    std::string length;
    for (const auto &dimension : rowDimensions(input, output))
        length += (length.empty() ? "" : "*") + dimension;
    return length;
}

} // namespace

bool ElementwiseTemplate::supports(const Op &op, const OpRecipe &recipe) const
{
    return recipe.family == "elementwise" && op.outputs.size() == 1 && !op.inputs.empty();
}

std::vector<ParamDef> ElementwiseTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"block", {128, 256, 512, 1024}, "block size"},
            {"vec", {1, 2, 4}, "vector width (floats per load)"},
            {"unroll", {1, 2, 4}, "items per thread per iteration"},
            {"gridCap", {0, 264, 528, 1056, 2112}, "grid cap for a grid-stride loop (0: one pass)"},
            {"fastMath", {0, 1}, "fast-math intrinsics"},
            {"streaming", {0, 1}, "streaming loads and stores (evict-first cache hints)"}};
}

Params ElementwiseTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"block", 256}, {"vec", 1}, {"unroll", 1}, {"gridCap", 0}, {"fastMath", 0}, {"streaming", 0}};
}

std::string ElementwiseTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the elementwise template needs an elementwise recipe with inputs and one output";
    if (auto problem = checkParamValues(params, parameters(op, recipe)); !problem.empty())
        return problem;
    const auto &outputShape = op.outputs.front().shape;
    const int vec = param(params, "vec", 1);
    for (const auto &name : recipe.rowInputs)
        if (std::none_of(op.inputs.begin(), op.inputs.end(), [&](const TensorSpec &t) { return t.name == name; }))
            return "the recipe's row input '" + name + "' is not an input of the op";
    for (const auto &tensor : op.inputs) {
        if (tensor.dtype != "float32")
            return "input " + tensor.name + " is " + tensor.dtype + ": the elementwise template handles float32";
        if (isRowInput(recipe, tensor)) {
            // One value for each row of rowLength() elements; a vector of output elements stays within a row.
            const auto dimensions = rowDimensions(tensor, op.outputs.front());
            if (dimensions.empty())
                return "row input " + tensor.name + " is not the output's leading dimensions";
            for (const auto &shapes : op.shapeSets) {
                long long row = 1;
                for (const auto &dimension : dimensions)
                    row *= dimensionValue(dimension, shapes).value_or(1);
                if (row % vec != 0)
                    return "vector width " + std::to_string(vec) + " needs rows of row input " + tensor.name
                           + " of a multiple of " + std::to_string(vec) + " elements";
            }
            continue;
        }
        if (!isBroadcast(tensor, op.outputs.front()))
            continue;
        // Broadcasting: the input's shape must be the trailing dimensions of the output's.
        if (tensor.shape.size() > outputShape.size()
            || !std::equal(tensor.shape.rbegin(), tensor.shape.rend(), outputShape.rbegin()))
            return "input " + tensor.name + " does not broadcast to the output (only trailing dimensions can)";
        for (const auto &shapes : op.shapeSets) {
            long long inner = 1;
            for (const auto &dimension : tensor.shape)
                inner *= shapes.count(dimension) ? shapes.at(dimension) : std::atoll(dimension.c_str());
            if (inner % vec != 0)
                return "vector width " + std::to_string(vec) + " needs the broadcast input " + tensor.name
                       + " to have a multiple of " + std::to_string(vec) + " elements";
        }
    }
    if (op.outputs.front().dtype != "float32")
        return "the output must be float32";
    if (recipe.expression.empty())
        return "the recipe has no expression";
    return {};
}

GeneratedKernel ElementwiseTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const int block = param(params, "block", 256);
    const int vec = param(params, "vec", 1);
    const int unroll = param(params, "unroll", 1);
    const int gridCap = param(params, "gridCap", 0);
    const bool fastMath = param(params, "fastMath", 0) != 0;
    // Each element is touched once: evict-first hints keep the data from displacing anything useful in L2.
    const bool streaming = param(params, "streaming", 0) != 0;
    const std::string expression = fastMath ? withFastMath(recipe.expression) : recipe.expression;
    const auto &output = op.outputs.front();

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "\n// The op on one element.\n__device__ __forceinline__ float apply(";
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
        out << (i ? ", " : "") << "float " << op.inputs[i].name;
    out << ")\n{\n    return " << expression << ";\n}\n\n";

    out << "extern \"C\" __global__ void __launch_bounds__(" << block << ") elementwise_kernel(";
    for (const auto &input : op.inputs)
        out << "const float *__restrict__ " << input.name << "_ptr, ";
    out << "float *__restrict__ " << output.name << "_ptr, long long n";
    for (const auto &input : op.inputs)
        if (isRowInput(recipe, input))
            out << ", long long " << input.name << "_row";
        else if (isBroadcast(input, output))
            out << ", long long " << input.name << "_count";
    out << ")\n{\n";
    // Broadcast inputs repeat every <name>_count elements: index them modulo their size. A row input holds one
    // value for each <name>_row elements: index it by the row (the vector's first element, all its lanes share it).
    const auto index = [&](const TensorSpec &input, const std::string &i, int width) {
        if (isRowInput(recipe, input))
            return "(" + (width > 1 ? i + " * " + std::to_string(width) : i) + ") / " + input.name + "_row";
        if (!isBroadcast(input, output))
            return i;
        return "(" + i + " % (" + input.name + "_count" + (width > 1 ? " / " + std::to_string(width) : "") + "))";
    };
    const std::string vectorType = vec == 4 ? "float4" : vec == 2 ? "float2" : "float";
    const char *lanes[] = {"x", "y", "z", "w"};
    out << "    const long long threads = (long long)gridDim.x * blockDim.x;\n"
        << "    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
    if (vec > 1)
        out << "    // " << vec << " floats per load and store; the tail is handled below.\n"
            << "    const long long vectors = n / " << vec << ";\n";
    else
        out << "    const long long vectors = n;\n";
    out << "    for (long long base = first; base < vectors; base += threads * " << unroll << ") {\n";
    // Load everything first so the loads of all unrolled items are in flight together.
    for (const auto &input : op.inputs)
        out << "        " << (isRowInput(recipe, input) ? "float" : vectorType) << " " << input.name << "[" << unroll
            << "];\n";
    out << "#pragma unroll\n        for (int u = 0; u < " << unroll << "; ++u) {\n"
        << "            const long long i = base + u * threads;\n"
        << "            if (i < vectors) {\n";
    for (const auto &input : op.inputs) {
        const std::string type = isRowInput(recipe, input) ? "float" : vectorType;
        const std::string pointer = "reinterpret_cast<const " + type + " *>(" + input.name + "_ptr)";
        const std::string element = index(input, "i", vec);
        out << "                " << input.name
            << "[u] = " << (streaming ? "__ldcs(" + pointer + " + " + element + ")" : pointer + "[" + element + "]")
            << ";\n";
    }
    out << "            }\n        }\n"
        << "#pragma unroll\n        for (int u = 0; u < " << unroll << "; ++u) {\n"
        << "            const long long i = base + u * threads;\n"
        << "            if (i < vectors) {\n"
        << "                " << vectorType << " result;\n";
    if (vec == 1) {
        out << "                result = apply(";
        for (std::size_t i = 0; i < op.inputs.size(); ++i)
            out << (i ? ", " : "") << op.inputs[i].name << "[u]";
        out << ");\n";
    } else {
        for (int lane = 0; lane < vec; ++lane) {
            out << "                result." << lanes[lane] << " = apply(";
            for (std::size_t i = 0; i < op.inputs.size(); ++i)
                out << (i ? ", " : "") << op.inputs[i].name << "[u]"
                    << (isRowInput(recipe, op.inputs[i]) ? "" : std::string(".") + lanes[lane]);
            out << ");\n";
        }
    }
    const std::string outputPointer = "reinterpret_cast<" + vectorType + " *>(" + output.name + "_ptr)";
    out << "                "
        << (streaming ? "__stcs(" + outputPointer + " + i, result)" : outputPointer + "[i] = result") << ";\n"
        << "            }\n        }\n    }\n";
    if (vec > 1) {
        out << "    for (long long i = vectors * " << vec << " + first; i < n; i += threads)\n"
            << "        " << output.name << "_ptr[i] = apply(";
        for (std::size_t i = 0; i < op.inputs.size(); ++i)
            out << (i ? ", " : "") << op.inputs[i].name << "_ptr[" << index(op.inputs[i], "i", 1) << "]";
        out << ");\n";
    }
    out << "}\n";

    const std::string count = elementCountExpression(output);
    std::string grid = "ceil_div(" + count + ", " + text(block * vec * unroll) + ")";
    if (gridCap > 0)
        grid = "max(1, min(" + grid + ", " + text(gridCap) + "))";
    nlohmann::json args = nlohmann::json::array();
    for (const auto &input : op.inputs)
        args.push_back(inputArg(input.name));
    args.push_back(outputArg(output.name));
    args.push_back(intArg(count));
    for (const auto &input : op.inputs)
        if (isRowInput(recipe, input))
            args.push_back(intArg(rowLength(input, output)));
        else if (isBroadcast(input, output))
            args.push_back(intArg(elementCountExpression(input)));
    const auto steps = nlohmann::json::array({kernelStep("elementwise_kernel", {grid}, {text(block)}, args)});
    return {out.str(), planJson(steps)};
}

} // namespace kx
