#include "core/codegen/codegenutil.h"
#include "core/codegen/reducecommon.h"
#include "core/codegen/rowcommon.h"
#include "core/codegen/rowtemplates.h"

#include <sstream>

namespace kx {

using namespace codegen;

namespace {

// Block-wide combines (every thread gets the result); the leading barrier protects `shared` from a previous call.
// Shuffles: within each warp, then the warps' results through shared memory. Tree: a shared-memory tree.
std::string blockCombineHelpers(const rows::RowLayout &layout, bool indexed)
{
    const std::string slots = std::to_string(layout.sharedTree ? layout.block : 32);
    if (!indexed && !layout.sharedTree)
        return R"(
__device__ float blockCombine(float v, float *shared)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warpCombine(v);
    __syncthreads();
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    return warpCombine(lane < (blockDim.x >> 5) ? shared[lane] : reduceIdentity());
}
)";
    if (!indexed)
        return R"(
__device__ float blockCombine(float v, float *shared)
{
    __syncthreads();
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + stride]);
        __syncthreads();
    }
    return shared[0];
}
)";
    const std::string head = "\n__device__ void blockCombineArg(float &best, long long &bestIndex, float *shared)\n{\n"
                             "    long long *sharedIndex = reinterpret_cast<long long *>(shared + "
                             + slots + ");\n";
    if (!layout.sharedTree)
        return head + R"(    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    warpCombineArg(best, bestIndex);
    __syncthreads();
    if (lane == 0) {
        shared[warp] = best;
        sharedIndex[warp] = bestIndex;
    }
    __syncthreads();
    const bool filled = lane < (blockDim.x >> 5);
    best = filled ? shared[lane] : reduceIdentity();
    bestIndex = filled ? sharedIndex[lane] : kNoIndex;
    warpCombineArg(best, bestIndex);
}
)";
    return head + R"(    __syncthreads();
    shared[threadIdx.x] = best;
    sharedIndex[threadIdx.x] = bestIndex;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            float value = shared[threadIdx.x];
            long long index = sharedIndex[threadIdx.x];
            combineArg(value, index, shared[threadIdx.x + stride], sharedIndex[threadIdx.x + stride]);
            shared[threadIdx.x] = value;
            sharedIndex[threadIdx.x] = index;
        }
        __syncthreads();
    }
    best = shared[0];
    bestIndex = sharedIndex[0];
}
)";
}

// Dynamic shared memory: a float (and an index) per warp or per thread; none for a warp per row.
std::string sharedBytesOf(const rows::RowLayout &layout, bool indexed)
{
    if (layout.warpPerRow)
        return "0";
    return std::to_string((indexed ? 12 : 4) * (layout.sharedTree ? layout.block : 32));
}

} // namespace

bool ReduceTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "reduce" && recipe.inner == "1";
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
        return "the reduce template needs a reduce recipe over the last dimension";
    if (!reduction::isKnown(recipe.reduction))
        return "unknown reduction '" + recipe.reduction + "'";
    const std::string expectedType = reduction::outputType(recipe.reduction);
    if (!op.outputs.empty() && op.outputs.front().dtype != expectedType)
        return recipe.reduction + " writes " + expectedType;
    return rows::checkCommon(op, recipe, params, parameters(op, recipe));
}

GeneratedKernel ReduceTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    const auto layout = rows::layoutOf(params);
    const bool indexed = reduction::isIndexed(recipe.reduction);
    const auto &input = op.inputs.front().name;
    const auto &output = op.outputs.front().name;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe)) << "// " << output << "[row] = " << recipe.reduction
        << " of " << input << "[row, :]\n\n"
        << reduction::deviceHelpers(recipe.reduction);
    if (!layout.warpPerRow)
        out << blockCombineHelpers(layout, indexed);
    out << "\nextern \"C\" __global__ void __launch_bounds__(" << layout.block
        << ") reduce_kernel(const float *__restrict__ " << input << ", " << (indexed ? "long long" : "float")
        << " *__restrict__ " << output << ", long long rows, long long cols)\n{\n"
        << rows::rowPrologue(layout, input);
    if (indexed) {
        out << "    float best = reduceIdentity();\n    long long bestIndex = kNoIndex;\n"
            << rows::forEachElement(layout, "in", "combineArg(best, bestIndex, v, c);")
            << (layout.warpPerRow ? "    warpCombineArg(best, bestIndex);\n"
                                  : "    blockCombineArg(best, bestIndex, shared);\n")
            << "    if (lane == 0)\n        " << output << "[row] = bestIndex;\n}\n";
    } else {
        out << "    float acc = reduceIdentity();\n"
            << rows::forEachElement(layout, "in", "acc = combine(acc, v);") << "    acc = "
            << (layout.warpPerRow ? "warpCombine(acc)" : "blockCombine(acc, shared)") << ";\n"
            << "    if (lane == 0)\n        " << output
            << "[row] = " << reduction::finish(recipe.reduction, "acc", "cols") << ";\n}\n";
    }
    const auto args =
        nlohmann::json::array({inputArg(input), outputArg(output), intArg(recipe.rows), intArg(recipe.cols)});
    const auto steps = nlohmann::json::array({kernelStep("reduce_kernel", {rows::gridExpression(layout, recipe.rows)},
                                                         {text(layout.block)}, args, sharedBytesOf(layout, indexed))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
