#include "core/codegen/rowcommon.h"

#include "core/codegen/codegenutil.h"

namespace kx::rows {

using codegen::param;

std::vector<ParamDef> commonParameters()
{
    return {{"mapping", {0, 1}, "rows per block (0: one warp per row, 1: one block per row)"},
            {"block", {64, 128, 256, 512, 1024}, "block size"},
            {"vec", {1, 4}, "vector width (floats per load)"},
            {"unroll", {1, 2, 4, 8}, "row loop unrolling (loads in flight per thread)"},
            {"reduction", {0, 1}, "block reduction (0: warp shuffles, 1: shared-memory tree)"}};
}

Params commonDefaults()
{
    return {{"mapping", 1}, {"block", 256}, {"vec", 1}, {"unroll", 1}, {"reduction", 0}};
}

std::string checkCommon(const Op &op, const OpRecipe &recipe, const Params &params,
                        const std::vector<ParamDef> &definitions)
{
    if (auto problem = codegen::checkParamValues(params, definitions); !problem.empty())
        return problem;
    if (op.inputs.empty() || op.outputs.size() != 1)
        return "row templates need at least one input and exactly one output";
    if (op.inputs.front().dtype != "float32")
        return "row templates handle float32 inputs";
    const int vec = param(params, "vec", 1);
    for (const auto cols : codegen::symbolValues(op, recipe.cols))
        if (cols % vec != 0)
            return "vector width " + std::to_string(vec) + " needs " + recipe.cols + " divisible by it ("
                   + std::to_string(cols) + " is not)";
    if (codegen::symbolValues(op, recipe.cols).empty() || codegen::symbolValues(op, recipe.rows).empty())
        return "the op's shape sets do not bind " + recipe.rows + " and " + recipe.cols;
    return {};
}

RowLayout layoutOf(const Params &params)
{
    return {param(params, "mapping", 1) == 0, param(params, "block", 256), param(params, "vec", 1),
            param(params, "unroll", 1), param(params, "reduction", 0) == 1};
}

std::string reductionHelpers(const RowLayout &layout)
{
    std::string code = R"(// -inf without host headers (the identity of max).
__device__ __forceinline__ float negativeInfinity() { return __int_as_float(int(0xff800000u)); }

// Warp-wide reductions: every lane gets the result.
__device__ __forceinline__ float warpSum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

__device__ __forceinline__ float warpMax(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}
)";
    if (layout.warpPerRow)
        return code;
    if (layout.sharedTree) {
        code += R"(
// Block-wide reductions through a shared-memory tree (blockDim.x is a power of two); every thread gets
// the result. The leading barrier protects `shared` from a previous call still being read.
__device__ float blockSum(float v, float *shared)
{
    __syncthreads();
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            shared[threadIdx.x] += shared[threadIdx.x + stride];
        __syncthreads();
    }
    return shared[0];
}

__device__ float blockMax(float v, float *shared)
{
    __syncthreads();
    shared[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + stride]);
        __syncthreads();
    }
    return shared[0];
}
)";
    } else {
        code += R"(
// Block-wide reductions: shuffles within each warp, then one value per warp through shared memory.
// Every thread gets the result. The leading barrier protects `shared` from a previous call.
__device__ float blockSum(float v, float *shared)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warpSum(v);
    __syncthreads();
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    return warpSum(lane < (blockDim.x >> 5) ? shared[lane] : 0.0f);
}

__device__ float blockMax(float v, float *shared)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warpMax(v);
    __syncthreads();
    if (lane == 0)
        shared[warp] = v;
    __syncthreads();
    return warpMax(lane < (blockDim.x >> 5) ? shared[lane] : negativeInfinity());
}
)";
    }
    return code;
}

std::string rowPrologue(const RowLayout &layout, const std::string &input)
{
    if (layout.warpPerRow)
        return "    // One warp per row.\n"
               "    const long long row = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;\n"
               "    const int lane = threadIdx.x & 31;\n"
               "    if (row >= rows)\n        return;\n"
               "    const float *__restrict__ in = "
               + input + " + row * cols;\n";
    return "    // One block per row.\n"
           "    const long long row = blockIdx.x;\n"
           "    const int lane = threadIdx.x;\n"
           "    extern __shared__ float shared[];\n"
           "    const float *__restrict__ in = "
           + input + " + row * cols;\n";
}

std::string forEachElement(const RowLayout &layout, const std::string &pointer, const std::string &body,
                           const std::string &indent)
{
    const std::string step = layout.warpPerRow ? "32" : "blockDim.x";
    // Unrolling lets a thread issue several independent loads before it waits for the first.
    const std::string unroll =
        layout.unroll > 1 ? indent + "#pragma unroll " + std::to_string(layout.unroll) + "\n" : std::string();
    if (layout.vec == 1)
        return unroll + indent + "for (long long c = lane; c < cols; c += " + step + ") {\n" + indent
               + "    const float v = " + pointer + "[c];\n" + indent + "    " + body + "\n" + indent + "}\n";
    return unroll + indent + "for (long long c4 = lane * 4; c4 < cols; c4 += " + step + " * 4) {\n" + indent
           + "    const float4 v4 = *reinterpret_cast<const float4 *>(" + pointer + " + c4);\n" + indent
           + "    const float lanes[4] = {v4.x, v4.y, v4.z, v4.w};\n" + indent + "#pragma unroll\n" + indent
           + "    for (int k = 0; k < 4; ++k) {\n" + indent + "        const long long c = c4 + k;\n" + indent
           + "        const float v = lanes[k];\n" + indent + "        (void)c;\n" + indent + "        " + body + "\n"
           + indent + "    }\n" + indent + "}\n";
}

std::string gridExpression(const RowLayout &layout, const std::string &rows)
{
    if (layout.warpPerRow)
        return "ceil_div(" + rows + ", " + std::to_string(layout.block / 32) + ")";
    return rows;
}

std::string reduceCall(const RowLayout &layout, const std::string &kind, const std::string &value)
{
    if (layout.warpPerRow)
        return "warp" + kind + "(" + value + ")";
    return "block" + kind + "(" + value + ", shared)";
}

NormTensors normTensors(const Op &op, bool layerNorm)
{
    NormTensors tensors;
    tensors.input = op.inputs.at(0).name;
    tensors.output = op.outputs.at(0).name;
    tensors.affine = op.inputs.size() > 1;
    if (tensors.affine)
        tensors.weight = op.inputs[1].name;
    if (tensors.affine && layerNorm)
        tensors.bias = op.inputs.at(2).name;
    return tensors;
}

std::string checkNormTensors(const Op &op, const OpRecipe &recipe)
{
    if (recipe.reduction == "layernorm") {
        if (op.inputs.size() != 3 && op.inputs.size() != 1)
            return "layernorm takes x, weight and bias, or x alone (no affine transform: InstanceNorm)";
    } else if (recipe.reduction == "rmsnorm") {
        if (op.inputs.size() != 2)
            return "rmsnorm takes 2 inputs";
    } else {
        return "unknown normalisation '" + recipe.reduction + "'";
    }
    return {};
}

std::string onlineLogSumExpStep(const std::string &exp)
{
    return "if (v > m) { s = s * " + exp + "(m - v) + 1.0f; m = v; } else if (v != negativeInfinity()) { s += " + exp
           + "(v - m); }";
}

std::string sharedBytes(const RowLayout &layout)
{
    if (layout.warpPerRow)
        return "0";
    return std::to_string(4 * (layout.sharedTree ? layout.block : 32));
}

} // namespace kx::rows
