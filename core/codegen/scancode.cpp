#include "core/codegen/scancode.h"

#include <sstream>

namespace kx::scancode {
namespace {

// Kernel parameters for the inputs: "const float *__restrict__ x, const bool *__restrict__ mask".
std::string inputParameters(const ScanSpec &spec)
{
    std::string text;
    for (const auto &[name, type] : spec.inputs)
        text += "const " + type + " *__restrict__ " + name + ", ";
    return text;
}

// The inputs passed on to a helper: "x, mask, ".
std::string inputArguments(const ScanSpec &spec)
{
    std::string text;
    for (const auto &[name, type] : spec.inputs)
        text += name + ", ";
    return text;
}

// The inputs at position `at`: "x[at], mask[at]".
std::string inputsAt(const ScanSpec &spec)
{
    std::string text;
    for (const auto &[name, type] : spec.inputs)
        text += (text.empty() ? "" : ", ") + name + "[at]";
    return text;
}

bool hasEpilogue(const ScanSpec &spec)
{
    return !spec.epilogue.empty() && spec.epilogue != "acc";
}

// The value of an output at `at` from the running value `value`.
std::string outputAt(const ScanSpec &spec, const std::string &value)
{
    return hasEpilogue(spec) ? "epilogue(" + value + ", " + inputsAt(spec) + ")" : value;
}

std::string identityElement(const ScanSpec &spec)
{
    return spec.product ? "1.0f" : "0.0f";
}

// prologue(), epilogue() and column(): what every kernel shares.
std::string elementFunctions(const ScanSpec &spec)
{
    std::ostringstream out;
    std::string parameters;
    for (const auto &[name, type] : spec.inputs)
        parameters += (parameters.empty() ? "" : ", ") + std::string("const ") + type + " " + name;
    out << "// The element scanned at one position, from the inputs there.\n"
        << "__device__ __forceinline__ float prologue(" << parameters << ")\n{\n"
        << "    return " << spec.prologue << ";\n}\n\n";
    if (hasEpilogue(spec))
        out << "// An output from the scan's value `acc` at its position and the inputs there.\n"
            << "__device__ __forceinline__ float epilogue(const float acc, " << parameters << ")\n{\n"
            << "    return " << spec.epilogue << ";\n}\n\n";
    out << "// The index along the scanned dimension of the p-th element scanned"
        << (spec.reverse ? ": a reverse scan starts at the end.\n" : ".\n")
        << "__device__ __forceinline__ long long column(long long p, long long cols)\n{\n"
        << (spec.reverse ? "    return cols - 1 - p;\n" : "    (void)cols;\n    return p;\n") << "}\n\n";
    return out.str();
}

constexpr const char *kSumOperator = R"(// Running sums in fp32, as PyTorch accumulates float32 scans on the GPU.
struct ScanOp
{
    typedef float T;
    static __device__ __forceinline__ T identity() { return 0.0f; }
    static __device__ __forceinline__ T lift(float v) { return v; }
    static __device__ __forceinline__ T combine(T a, T b) { return a + b; }
    static __device__ __forceinline__ T shuffleUp(T v, unsigned delta) { return __shfl_up_sync(0xffffffffu, v, delta); }
};

)";

// Products keep a wide exponent so that a tile's partial products neither overflow nor underflow where the running
// product does not; where fp32's own running product gets stuck (at zero after an underflow, at an infinity after
// an overflow: the exact product may come back, a float does not) is tracked as a second scan.
constexpr const char *kProductOperator = R"(// A product as m * 2^e, m in [0.5, 1) (or a zero, an infinity, NaN): partial products of a tile neither
// overflow nor underflow where the running product does not.
struct Wide
{
    float m;
    int e;
};

__device__ __forceinline__ Wide wide(float m, int e)
{
    int shift = 0;
    const float mantissa = frexpf(m, &shift);
    return Wide{mantissa, e + shift};
}

// The float a wide product rounds to (beyond 2^+-400 it is an infinity or zero anyway).
__device__ __forceinline__ float toFloat(Wide v)
{
    return ldexpf(v.m, max(-400, min(400, v.e)));
}

struct ScanOp
{
    typedef Wide T;
    static __device__ __forceinline__ T identity() { return Wide{0.5f, 1}; }
    static __device__ __forceinline__ T lift(float v) { return wide(v, 0); }
    static __device__ __forceinline__ T combine(T a, T b) { return wide(a.m * b.m, a.e + b.e); }
    static __device__ __forceinline__ T shuffleUp(T v, unsigned delta)
    {
        return Wide{__shfl_up_sync(0xffffffffu, v.m, delta), __shfl_up_sync(0xffffffffu, v.e, delta)};
    }
};

// PyTorch multiplies in fp32 in order: once the running product underflows to zero it stays zero, once it
// overflows it stays infinite, even where the exact product comes back. The first such event decides.
#define STUCK_NONE 0
#define STUCK_ZERO 1
#define STUCK_INFINITE 2

struct StuckOp
{
    typedef int T;
    static __device__ __forceinline__ T identity() { return STUCK_NONE; }
    static __device__ __forceinline__ T combine(T a, T b) { return a != STUCK_NONE ? a : b; }
    static __device__ __forceinline__ T shuffleUp(T v, unsigned delta) { return __shfl_up_sync(0xffffffffu, v, delta); }
};

__device__ __forceinline__ int stuckAt(Wide v)
{
    if (v.m == 0.0f || !isfinite(v.m))
        return STUCK_NONE;
    const float rounded = toFloat(v);
    return rounded == 0.0f ? STUCK_ZERO : isinf(rounded) ? STUCK_INFINITE : STUCK_NONE;
}

// The output of a running product: zero times an infinity, and an infinity times zero, are NaN.
__device__ __forceinline__ float finish(Wide v, int stuck)
{
    const float nan = __int_as_float(0x7fffffff);
    if (stuck == STUCK_ZERO)
        return isfinite(v.m) ? copysignf(0.0f, v.m) : nan;
    if (stuck == STUCK_INFINITE)
        return v.m == 0.0f || isnan(v.m) ? nan : copysignf(__int_as_float(0x7f800000), v.m);
    return toFloat(v);
}

)";

constexpr const char *kBlockScan = R"(// Inclusive scan across a warp: lane i gets the combination of lanes 0 to i, in order.
template <class Op>
__device__ __forceinline__ typename Op::T warpInclusive(typename Op::T v)
{
    const unsigned lane = threadIdx.x & 31;
#pragma unroll
    for (unsigned delta = 1; delta < 32; delta <<= 1) {
        const typename Op::T other = Op::shuffleUp(v, delta);
        if (lane >= delta)
            v = Op::combine(other, v);
    }
    return v;
}

// Exclusive scan across the block: each thread gets the combination of the values of the threads before it, and
// blockTotal that of all. `totals` (shared memory) holds a value a warp.
template <class Op>
__device__ typename Op::T blockExclusive(typename Op::T v, typename Op::T *totals, typename Op::T &blockTotal)
{
    typedef typename Op::T T;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const T inclusive = warpInclusive<Op>(v);
    if (lane == 31)
        totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        T total = lane < WARPS ? totals[lane] : Op::identity();
        total = warpInclusive<Op>(total);
        if (lane < WARPS)
            totals[lane] = total;
    }
    __syncthreads();
    blockTotal = totals[WARPS - 1];
    T before = Op::shuffleUp(inclusive, 1);
    if (lane == 0)
        before = Op::identity();
    const T result = warp == 0 ? before : Op::combine(totals[warp - 1], before);
    __syncthreads(); // the next call writes totals again
    return result;
}

)";

std::string tileFunctions(const ScanSpec &spec)
{
    const std::string inputs = inputParameters(spec);
    std::ostringstream out;
    out << "// Shared-memory index of tile element i: a padding word every 32 keeps the striped and the blocked\n"
        << "// accesses free of bank conflicts.\n"
        << "#define PADDED(i) ((i) + ((i) >> 5))\n\n"
        << "// Reads the row's elements [base, base + TILE) coalesced (thread t takes t, t + BLOCK, ...) into shared\n"
        << "// memory; past the row's end, the identity.\n"
        << "__device__ __forceinline__ void loadTile(float *tile, " << inputs
        << "long long rowStart, long long base, long long cols)\n{\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < ITEMS; ++k) {\n"
        << "        const int i = k * BLOCK + threadIdx.x;\n"
        << "        const long long p = base + i;\n"
        << "        float v = " << identityElement(spec) << ";\n"
        << "        if (p < cols) {\n"
        << "            const long long at = rowStart + column(p, cols);\n"
        << "            v = prologue(" << inputsAt(spec) << ");\n"
        << "        }\n"
        << "        tile[PADDED(i)] = v;\n"
        << "    }\n}\n\n"
        << "// Writes the tile's outputs back coalesced.\n"
        << "__device__ __forceinline__ void storeTile(const float *tile, " << inputs << "float *__restrict__ "
        << spec.output << ", long long rowStart, long long base, long long cols)\n{\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < ITEMS; ++k) {\n"
        << "        const int i = k * BLOCK + threadIdx.x;\n"
        << "        const long long p = base + i;\n"
        << "        if (p < cols) {\n"
        << "            const long long at = rowStart + column(p, cols);\n"
        << "            " << spec.output << "[at] = " << outputAt(spec, "tile[PADDED(i)]") << ";\n"
        << "        }\n"
        << "    }\n}\n\n"
        << "// Each thread scans its ITEMS consecutive elements of the tile, then the threads' totals are scanned across\n"
        << "// the block: local[k] covers the thread's elements up to k, threadBefore the threads before it. Returns the\n"
        << "// tile's total.\n"
        << "__device__ __forceinline__ ScanOp::T scanThreads(const float *tile, ScanOp::T *totals, "
           "ScanOp::T (&local)[ITEMS], ScanOp::T &threadBefore)\n{\n"
        << "    local[0] = ScanOp::lift(tile[PADDED(threadIdx.x * ITEMS)]);\n"
        << "#pragma unroll\n"
        << "    for (int k = 1; k < ITEMS; ++k)\n"
        << "        local[k] = ScanOp::combine(local[k - 1], ScanOp::lift(tile[PADDED(threadIdx.x * ITEMS + k)]));\n"
        << "    ScanOp::T tileTotal;\n"
        << "    threadBefore = blockExclusive<ScanOp>(local[ITEMS - 1], totals, tileTotal);\n"
        << "    return tileTotal;\n}\n\n";
    const std::string slot = "tile[PADDED(threadIdx.x * ITEMS + k)]";
    if (!spec.product) {
        out << "// The thread's outputs, given everything before its elements; they replace its elements in the tile.\n"
            << "__device__ __forceinline__ void writeOutputs(float *tile, const ScanOp::T (&local)[ITEMS], "
               "ScanOp::T before)\n{\n"
            << "#pragma unroll\n"
            << "    for (int k = 0; k < ITEMS; ++k)\n";
        if (spec.exclusive)
            out << "        " << slot << " = k == 0 ? before : ScanOp::combine(before, local[k - 1]);\n";
        else
            out << "        " << slot << " = ScanOp::combine(before, local[k]);\n";
        out << "}\n\n";
        return out.str();
    }
    out << "// The thread's outputs, given everything before its elements and where the running product got stuck before\n"
        << "// the tile; they replace its elements in the tile. Returns where it is stuck after the tile.\n"
        << "__device__ __forceinline__ int writeOutputs(float *tile, int *stuckTotals, const ScanOp::T (&local)[ITEMS], "
           "ScanOp::T before, int stuckBefore)\n{\n"
        << "    int stuck[ITEMS];\n"
        << "    int first = STUCK_NONE;\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < ITEMS; ++k) {\n"
        << "        first = StuckOp::combine(first, stuckAt(ScanOp::combine(before, local[k])));\n"
        << "        stuck[k] = first;\n"
        << "    }\n"
        << "    int tileStuck;\n"
        << "    const int threadStuck = StuckOp::combine(stuckBefore, blockExclusive<StuckOp>(first, stuckTotals, "
           "tileStuck));\n"
        << "#pragma unroll\n"
        << "    for (int k = 0; k < ITEMS; ++k)\n";
    if (spec.exclusive)
        out << "        " << slot
            << " = k == 0 ? finish(before, threadStuck)\n"
               "                     : finish(ScanOp::combine(before, local[k - 1]), StuckOp::combine(threadStuck, "
               "stuck[k - 1]));\n";
    else
        out << "        " << slot
            << " = finish(ScanOp::combine(before, local[k]), StuckOp::combine(threadStuck, stuck[k]));\n";
    out << "    return StuckOp::combine(stuckBefore, tileStuck);\n}\n\n";
    return out.str();
}

std::string blockPerRowKernel(const ScanSpec &spec)
{
    const std::string arguments = inputArguments(spec);
    std::ostringstream out;
    out << "// A block per row: it scans the row tile by tile, carrying what came before.\n"
        << "extern \"C\" __global__ void __launch_bounds__(BLOCK) scan_rows_kernel(" << inputParameters(spec)
        << "float *__restrict__ " << spec.output << ", long long cols)\n{\n"
        << "    extern __shared__ float tile[];\n"
        << "    __shared__ ScanOp::T totals[WARPS];\n";
    if (spec.product)
        out << "    __shared__ int stuckTotals[WARPS];\n";
    out << "    const long long rowStart = (long long)blockIdx.x * cols;\n"
        << "    ScanOp::T carry = ScanOp::identity();\n";
    if (spec.product)
        out << "    int carryStuck = STUCK_NONE;\n";
    out << "    for (long long base = 0; base < cols; base += TILE) {\n"
        << "        loadTile(tile, " << arguments << "rowStart, base, cols);\n"
        << "        __syncthreads();\n"
        << "        ScanOp::T local[ITEMS], threadBefore;\n"
        << "        const ScanOp::T tileTotal = scanThreads(tile, totals, local, threadBefore);\n"
        << "        " << (spec.product ? "carryStuck = writeOutputs(tile, stuckTotals, " : "writeOutputs(tile, ")
        << "local, ScanOp::combine(carry, threadBefore)" << (spec.product ? ", carryStuck" : "") << ");\n"
        << "        carry = ScanOp::combine(carry, tileTotal);\n"
        << "        __syncthreads();\n"
        << "        storeTile(tile, " << arguments << spec.output << ", rowStart, base, cols);\n"
        << "        __syncthreads();\n"
        << "    }\n}\n";
    return out.str();
}

constexpr const char *kLookBack = R"(// Decoupled look-back: each tile publishes a status word, the flag in the high half and a float sum in the low
// half, written at once: first its own total (an aggregate), then the row's sum up to and including it (a prefix).
#define FLAG_NONE 0u
#define FLAG_AGGREGATE 1u
#define FLAG_PREFIX 2u

__device__ __forceinline__ void publish(unsigned long long *slot, unsigned flag, float value)
{
    atomicExch(slot, ((unsigned long long)flag << 32) | __float_as_uint(value));
}

// The sum of the row's tiles before this one (t of them; `index` is this tile's status slot). One warp reads the
// statuses of the 32 tiles before a window's end, waits until each is published, and adds the aggregates back to
// the nearest prefix.
__device__ float lookBack(const unsigned long long *status, long long index, long long t)
{
    const int lane = threadIdx.x & 31;
    float prefix = 0.0f;
    long long end = index, remaining = t;
    while (remaining > 0) {
        const bool inRow = lane < remaining;
        unsigned long long word = 0;
        if (inRow) {
            const volatile unsigned long long *slot = status + end - 1 - lane;
            do {
                word = *slot;
            } while ((unsigned)(word >> 32) == FLAG_NONE);
        }
        const unsigned prefixes = __ballot_sync(0xffffffffu, inRow && (unsigned)(word >> 32) == FLAG_PREFIX);
        // The lowest lane with a prefix is the nearest; the lanes below it add their aggregates.
        const int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
        float value = inRow && lane <= nearest ? __uint_as_float((unsigned)word) : 0.0f;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1)
            value += __shfl_xor_sync(0xffffffffu, value, offset);
        prefix += value;
        if (prefixes)
            break;
        end -= 32;
        remaining -= 32;
    }
    return prefix;
}

// Clears the statuses and the tile counter behind them (scratch memory holds garbage).
extern "C" __global__ void __launch_bounds__(256) scan_init_kernel(unsigned long long *__restrict__ status, long long count)
{
    const long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    if (i < count)
        status[i] = 0ull;
}

)";

std::string lookBackKernel(const ScanSpec &spec)
{
    const std::string arguments = inputArguments(spec);
    std::ostringstream out;
    out << kLookBack << "// A block a tile. Tiles are claimed in order from a counter, so every tile a block waits for is "
                        "running or done.\n"
        << "extern \"C\" __global__ void __launch_bounds__(BLOCK) scan_tiles_kernel(" << inputParameters(spec)
        << "float *__restrict__ " << spec.output
        << ", unsigned long long *__restrict__ status, long long cols, long long tilesPerRow)\n{\n"
        << "    extern __shared__ float tile[];\n"
        << "    __shared__ ScanOp::T totals[WARPS];\n"
        << "    __shared__ long long claimed;\n"
        << "    __shared__ float tilePrefix;\n"
        << "    if (threadIdx.x == 0)\n"
        << "        claimed = (long long)atomicAdd(status + gridDim.x, 1ull);\n"
        << "    __syncthreads();\n"
        << "    const long long index = claimed;\n"
        << "    const long long t = index % tilesPerRow;\n"
        << "    const long long rowStart = index / tilesPerRow * cols;\n"
        << "    const long long base = t * TILE;\n"
        << "    loadTile(tile, " << arguments << "rowStart, base, cols);\n"
        << "    __syncthreads();\n"
        << "    ScanOp::T local[ITEMS], threadBefore;\n"
        << "    const ScanOp::T tileTotal = scanThreads(tile, totals, local, threadBefore);\n"
        << "    if (threadIdx.x == 0)\n"
        << "        publish(status + index, t == 0 ? FLAG_PREFIX : FLAG_AGGREGATE, tileTotal);\n"
        << "    if (threadIdx.x < 32) {\n"
        << "        const float before = t == 0 ? 0.0f : lookBack(status, index, t);\n"
        << "        if (threadIdx.x == 0) {\n"
        << "            if (t > 0)\n"
        << "                publish(status + index, FLAG_PREFIX, before + tileTotal);\n"
        << "            tilePrefix = before;\n"
        << "        }\n"
        << "    }\n"
        << "    __syncthreads();\n"
        << "    writeOutputs(tile, local, ScanOp::combine(tilePrefix, threadBefore));\n"
        << "    __syncthreads();\n"
        << "    storeTile(tile, " << arguments << spec.output << ", rowStart, base, cols);\n"
        << "}\n";
    return out.str();
}

} // namespace

int tileSharedBytes(const RowLayout &layout)
{
    const int tile = layout.block * layout.items;
    return 4 * (tile + tile / 32);
}

std::string rowKernels(const ScanSpec &spec, const RowLayout &layout)
{
    std::ostringstream out;
    out << "#define BLOCK " << layout.block << "\n#define ITEMS " << layout.items << "\n"
        << "#define TILE (BLOCK * ITEMS)\n#define WARPS (BLOCK / 32)\n\n"
        << elementFunctions(spec) << (spec.product ? kProductOperator : kSumOperator) << kBlockScan
        << tileFunctions(spec) << (layout.lookBack ? lookBackKernel(spec) : blockPerRowKernel(spec));
    return out.str();
}

std::string columnKernel(const ScanSpec &spec, int block, int unroll)
{
    const std::string combine = spec.product ? "acc * v" : "acc + v";
    std::ostringstream out;
    out << "#define BLOCK " << block << "\n\n"
        << elementFunctions(spec)
        << "// A thread a line: the (row, i) pair of [rows, cols, inner] it scans along cols in order, in fp32 (as\n"
        << "// PyTorch scans a middle dimension). Neighbouring threads take neighbouring i: their loads coalesce.\n"
        << "extern \"C\" __global__ void __launch_bounds__(BLOCK) scan_columns_kernel(" << inputParameters(spec)
        << "float *__restrict__ " << spec.output << ", long long lines, long long cols, long long inner)\n{\n"
        << "    const long long line = (long long)blockIdx.x * BLOCK + threadIdx.x;\n"
        << "    if (line >= lines)\n        return;\n"
        << "    const long long start = line / inner * cols * inner + line % inner;\n"
        << "    float acc = " << identityElement(spec) << ";\n"
        << "#pragma unroll " << unroll << "\n"
        << "    for (long long p = 0; p < cols; ++p) {\n"
        << "        const long long at = start + column(p, cols) * inner;\n"
        << "        const float v = prologue(" << inputsAt(spec) << ");\n";
    if (spec.exclusive)
        out << "        " << spec.output << "[at] = " << outputAt(spec, "acc") << ";\n"
            << "        acc = " << combine << ";\n";
    else
        out << "        acc = " << combine << ";\n"
            << "        " << spec.output << "[at] = " << outputAt(spec, "acc") << ";\n";
    out << "    }\n}\n";
    return out.str();
}

} // namespace kx::scancode
