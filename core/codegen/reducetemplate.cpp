#include "core/codegen/codegenutil.h"
#include "core/codegen/rowcommon.h"
#include "core/codegen/rowtemplates.h"

#include <sstream>

namespace kx {

using namespace codegen;

namespace {

constexpr const char *kArgMaxHelpers = R"(
// Arg-max across a warp: the larger value wins, ties go to the smaller index (like torch.argmax).
__device__ __forceinline__ void warpArgMax(float &value, long long &index)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float otherValue = __shfl_xor_sync(0xffffffffu, value, offset);
        const long long otherIndex = __shfl_xor_sync(0xffffffffu, index, offset);
        if (otherValue > value || (otherValue == value && otherIndex < index)) {
            value = otherValue;
            index = otherIndex;
        }
    }
}
)";

constexpr const char *kBlockArgMax = R"(
// Arg-max across the block: per warp, then the warps' winners through shared memory.
__device__ void blockArgMax(float &value, long long &index, float *shared)
{
    long long *sharedIndex = reinterpret_cast<long long *>(shared + 32);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    warpArgMax(value, index);
    __syncthreads();
    if (lane == 0) {
        shared[warp] = value;
        sharedIndex[warp] = index;
    }
    __syncthreads();
    value = lane < (blockDim.x >> 5) ? shared[lane] : negativeInfinity();
    index = lane < (blockDim.x >> 5) ? sharedIndex[lane] : 0x7fffffffffffffffLL;
    warpArgMax(value, index);
}
)";

} // namespace

bool ReduceTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "reduce";
}

std::vector<ParamDef> ReduceTemplate::parameters(const Op &, const OpRecipe &) const
{
    return rows::commonParameters();
}

Params ReduceTemplate::defaults(const Op &, const OpRecipe &) const
{
    return rows::commonDefaults();
}

std::string ReduceTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the reduce template needs a reduce recipe";
    if (recipe.reduction != "sum" && recipe.reduction != "mean" && recipe.reduction != "max"
        && recipe.reduction != "argmax")
        return "unknown reduction '" + recipe.reduction + "'";
    const std::string expectedType = recipe.reduction == "argmax" ? "int64" : "float32";
    if (!op.outputs.empty() && op.outputs.front().dtype != expectedType)
        return recipe.reduction + " writes " + expectedType;
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel ReduceTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const auto layout = rows::layoutOf(params);
    const bool argmax = recipe.reduction == "argmax";
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[row] = " << recipe.reduction
        << " of " << input << "[row, :]\n\n"
        << rows::reductionHelpers(layout);
    if (argmax)
        out << kArgMaxHelpers << (layout.warpPerRow ? "" : kBlockArgMax);
    out << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") reduce_kernel(const float *__restrict__ " << input << ", " << (argmax ? "long long" : "float")
        << " *__restrict__ " << output << ", long long rows, long long cols)\n{\n"
        << rows::rowPrologue(layout, input);
    if (argmax) {
        out << "    float best = negativeInfinity();\n    long long bestIndex = 0x7fffffffffffffffLL;\n"
            << rows::forEachElement(layout, "in", "if (v > best) { best = v; bestIndex = c; }")
            << (layout.warpPerRow ? "    warpArgMax(best, bestIndex);\n"
                                  : "    blockArgMax(best, bestIndex, shared);\n")
            << "    if (lane == 0)\n        " << output << "[row] = bestIndex;\n}\n";
    } else {
        const bool max = recipe.reduction == "max";
        out << "    float acc = " << (max ? "negativeInfinity()" : "0.0f") << ";\n"
            << rows::forEachElement(layout, "in", max ? "acc = fmaxf(acc, v);" : "acc += v;")
            << "    acc = " << rows::reduceCall(layout, max ? "Max" : "Sum", "acc") << ";\n"
            << "    if (lane == 0)\n        " << output << "[row] = acc"
            << (recipe.reduction == "mean" ? " / (float)cols" : "") << ";\n}\n";
    }
    const std::string shared = argmax ? (layout.warpPerRow ? "0" : "384") : rows::sharedBytes(layout);
    const auto args =
        nlohmann::json::array({inputArg(input), outputArg(output), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps = nlohmann::json::array(
        {kernelStep("reduce_kernel", {rows::gridExpression(layout, recipe.rows)}, {text(layout.block)}, args, shared)});
    return {out.str(), planJson(steps)};
}

} // namespace kx
