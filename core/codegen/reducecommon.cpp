#include "core/codegen/reducecommon.h"

#include "core/codegen/rowcommon.h"

#include <set>

namespace kx::reduction {

namespace {

std::string identityOf(const std::string &reduction)
{
    if (reduction == "prod")
        return "1.0f";
    if (reduction == "max" || reduction == "argmax")
        return "__int_as_float(int(0xff800000u))"; // -inf
    if (reduction == "min" || reduction == "argmin")
        return "__int_as_float(0x7f800000)"; // +inf
    return "0.0f";
}

} // namespace

std::string combineExpression(const std::string &reduction, const std::string &acc, const std::string &v)
{
    if (reduction == "prod")
        return acc + " * " + v;
    // NaN wins, as in torch.max and torch.min (fmaxf and fminf would drop it).
    if (reduction == "max")
        return "(" + v + " > " + acc + " || " + v + " != " + v + ") ? " + v + " : " + acc;
    if (reduction == "min")
        return "(" + v + " < " + acc + " || " + v + " != " + v + ") ? " + v + " : " + acc;
    return acc + " + " + v;
}

bool isKnown(const std::string &reduction)
{
    static const std::set<std::string> known{"sum", "mean", "max", "min", "prod", "argmax", "argmin"};
    return known.count(reduction) > 0;
}

bool isIndexed(const std::string &reduction)
{
    return reduction == "argmax" || reduction == "argmin";
}

std::string outputType(const std::string &reduction)
{
    return isIndexed(reduction) ? "int64" : "float32";
}

std::string deviceHelpers(const std::string &reduction)
{
    std::string code = "// The start value of the " + reduction + ".\n"
                       + "__device__ __forceinline__ float reduceIdentity() { return " + identityOf(reduction)
                       + "; }\n\n";
    if (!isIndexed(reduction))
        return code + "__device__ __forceinline__ float combine(float acc, float v) { return "
               + combineExpression(reduction) + "; }\n\n" + R"(// Warp-wide: every lane gets the result.
__device__ __forceinline__ float warpCombine(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        v = combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}
)";
    const std::string beats = reduction == "argmax" ? "v > best" : "v < best";
    return code + "#define kNoIndex 0x7fffffffffffffffLL\n\n" + "// (v, index) replaces (best, bestIndex) if v is "
           + (reduction == "argmax" ? "larger" : "smaller")
           + ", NaN beating every number, or if they are\n"
             "// equal (or both NaN) and index is smaller: torch."
           + reduction + "'s first extreme, whatever the order.\n"
           + "__device__ __forceinline__ void combineArg(float &best, long long &bestIndex, float v, long long index)\n"
             "{\n"
             "    const bool nan = v != v, bestNan = best != best;\n"
             "    const bool wins = nan ? (!bestNan || index < bestIndex)\n"
             "                          : (!bestNan && ("
           + beats + R"( || (v == best && index < bestIndex)));
    if (wins) {
        best = v;
        bestIndex = index;
    }
}

// Warp-wide: every lane gets the winner.
__device__ __forceinline__ void warpCombineArg(float &best, long long &bestIndex)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float v = __shfl_xor_sync(0xffffffffu, best, offset);
        const long long index = __shfl_xor_sync(0xffffffffu, bestIndex, offset);
        combineArg(best, bestIndex, v, index);
    }
}
)";
}

std::string blockHelpers(const rows::RowLayout &layout, bool indexed)
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

std::string sharedBytes(const rows::RowLayout &layout, bool indexed)
{
    if (layout.warpPerRow)
        return "0";
    return std::to_string((indexed ? 12 : 4) * (layout.sharedTree ? layout.block : 32));
}

std::string finish(const std::string &reduction, const std::string &acc, const std::string &count)
{
    return reduction == "mean" ? acc + " / (float)" + count : acc;
}

} // namespace kx::reduction
