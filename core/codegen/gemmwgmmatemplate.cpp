#include "core/codegen/gemmwgmmatemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"

#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

// One k slice is 32 TF32 values: 128 bytes a row, exactly one row of the 128-byte swizzle pattern that the
// wgmma shared-memory descriptors below describe.
constexpr int kSliceK = 32;
constexpr int kRowBytes = kSliceK * 4;
constexpr int kWarpgroupRows = 64; // wgmma's m
// Sums a thread may hold in registers (the accumulators, and under 3xTF32 the slice's fresh sum beside them)
// without ptxas spilling: a warpgroup's 64 x BN tile is BN / 2 sums a thread.
constexpr int kMaxSums = 128;
constexpr int kMaxOptInSharedBytes = 227 * 1024;
// Dynamic shared memory is only 16-byte aligned; the swizzle pattern repeats every 1024 bytes and needs its
// tiles aligned to that, so the kernel rounds its base up and the plan asks for this much more.
constexpr int kAlignSlack = 1024;
constexpr int kSplitBlock = 256, kSplitItems = 4;

const std::set<std::string> &reserved()
{
    static const std::set<std::string> names = reservedNames({"WARPGROUPS",
                                                              "PARTS",
                                                              "STAGES",
                                                              "GROUP_M",
                                                              "ROW_BYTES",
                                                              "A_TILE_BYTES",
                                                              "B_TILE_BYTES",
                                                              "STAGE_BYTES",
                                                              "SUMS",
                                                              "u64",
                                                              "sharedAddress",
                                                              "copy16",
                                                              "commitCopies",
                                                              "waitCopies",
                                                              "fenceAsyncProxy",
                                                              "wgmmaFence",
                                                              "wgmmaCommit",
                                                              "wgmmaWait",
                                                              "keepSums",
                                                              "descriptor",
                                                              "wgmma",
                                                              "copyTile",
                                                              "loadStage",
                                                              "tf32",
                                                              "split_rows_kernel",
                                                              "split_transposed_kernel",
                                                              "gemm_wgmma_kernel",
                                                              "big",
                                                              "small",
                                                              "aBig",
                                                              "aSmall",
                                                              "bBig",
                                                              "bSmall",
                                                              "tile",
                                                              "stage",
                                                              "warpgroup",
                                                              "lane",
                                                              "warp",
                                                              "g",
                                                              "t2",
                                                              "part",
                                                              "next",
                                                              "hi",
                                                              "tilesM",
                                                              "tilesN",
                                                              "perGroup",
                                                              "firstTileM",
                                                              "groupRows",
                                                              "inGroup",
                                                              "finish",
                                                              "pairs",
                                                              "half",
                                                              "first",
                                                              "base",
                                                              "Kp",
                                                              "cols",
                                                              "rowsPadded",
                                                              "colsPadded",
                                                              "outRows",
                                                              "outCols",
                                                              "q",
                                                              "e",
                                                              "kRows",
                                                              "nCols",
                                                              "aTiles",
                                                              "bTiles",
                                                              "aBigDesc",
                                                              "bBigDesc",
                                                              "aSmallDesc",
                                                              "bSmallDesc",
                                                              "accumulate",
                                                              "sums",
                                                              "address",
                                                              "pointer",
                                                              "rounded",
                                                              "PENDING",
                                                              "ROWS"});
    return names;
}

struct WgmmaConfig
{
    int bm = 128, bn = 128, stages = 3, products = 3, groupM = 8;

    int warpgroups() const { return bm / kWarpgroupRows; }
    int threads() const { return 128 * warpgroups(); }
    int parts() const { return products == 3 ? 2 : 1; }
    int sums() const { return bn / 2 * (products == 3 ? 2 : 1); }
    int stageBytes() const { return parts() * (bm + bn) * kRowBytes; }
    int sharedBytes() const { return stages * stageBytes() + kAlignSlack; }
};

WgmmaConfig configOf(const Params &params)
{
    WgmmaConfig config;
    config.bm = param(params, "bm", config.bm);
    config.bn = param(params, "bn", config.bn);
    config.stages = param(params, "stages", config.stages);
    config.products = param(params, "products", config.products);
    config.groupM = param(params, "groupM", config.groupM);
    return config;
}

std::string padded(const std::string &symbol, int multiple)
{
    return "(ceil_div(" + symbol + ", " + text(multiple) + ") * " + text(multiple) + ")";
}

void writeSplitKernels(std::ostringstream &out, const WgmmaConfig &config)
{
    const bool three = config.products == 3;
    const std::string smallParameter = three ? "float *__restrict__ small, " : "";
    const std::string store = three ? "        big[i] = __uint_as_float(hi);\n"
                                      "        small[i] = __uint_as_float(tf32(v - __uint_as_float(hi)));\n"
                                    : "        big[i] = __uint_as_float(hi);\n";
    out << R"(
// x rounded to the nearest TF32 (10-bit mantissa), as the tensor cores read it.
__device__ __forceinline__ unsigned tf32(float x)
{
    unsigned rounded;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(rounded) : "f"(x));
    return rounded;
}

// Copies a row-major [rows, cols] matrix into [rowsPadded, colsPadded] ones padded with zeros, each value
// rounded to TF32)"
        << (three ? " (big) and its remainder rounded to TF32 (small): v = big + small to fp32's precision" : " (big)")
        << R"(.
// Each thread handles )"
        << kSplitItems << R"( neighbouring values of a padded row (colsPadded is a multiple of 32).
extern "C" __global__ void __launch_bounds__()"
        << kSplitBlock << R"()
split_rows_kernel(const float *__restrict__ src, float *__restrict__ big, )"
        << smallParameter << R"(int rows, int cols, int rowsPadded, int colsPadded)
{
    const long long first = ((long long)blockIdx.x * )"
        << kSplitBlock << " + threadIdx.x) * " << kSplitItems << R"(;
    if (first >= (long long)rowsPadded * colsPadded)
        return;
    const int r = (int)(first / colsPadded), c = (int)(first % colsPadded);
#pragma unroll
    for (int e = 0; e < )"
        << kSplitItems << R"(; ++e) {
        const long long i = first + e;
        const float v = r < rows && c + e < cols ? src[(size_t)r * cols + c + e] : 0.0f;
        const unsigned hi = tf32(v);
)" << store
        << R"(    }
}

// The same for a row-major [kRows, nCols] matrix (b as [k, n], or a transposed a as [k, m]), written transposed:
// [outRows, outCols] = [nCols, k] padded, so that k is contiguous as wgmma's TF32 operands need. 32 x 32 tiles through shared memory keep both the reads
// and the writes coalesced.
extern "C" __global__ void __launch_bounds__(256)
split_transposed_kernel(const float *__restrict__ src, float *__restrict__ big, )"
        << smallParameter << R"(int kRows, int nCols, int outRows, int outCols)
{
    __shared__ float tile[32][33];
    const int n0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8) {
        const int k = k0 + r, n = n0 + threadIdx.x;
        tile[r][threadIdx.x] = k < kRows && n < nCols ? src[(size_t)k * nCols + n] : 0.0f;
    }
    __syncthreads();
    for (int r = threadIdx.y; r < 32; r += 8) {
        const int n = n0 + r, k = k0 + threadIdx.x;
        if (n >= outRows || k >= outCols)
            continue;
        const long long i = (long long)n * outCols + k;
        const float v = tile[threadIdx.x][r];
        const unsigned hi = tf32(v);
)" << store
        << R"(    }
}
)";
}

void writeConstants(std::ostringstream &out, const WgmmaConfig &config)
{
    out << "\nconstexpr int BM = " << config.bm << ", BN = " << config.bn << ", BK = " << kSliceK
        << "; // BK: one 128-byte swizzle row of TF32\n"
        << "constexpr int WARPGROUPS = BM / 64, THREADS = 128 * WARPGROUPS; // each warpgroup: 64 rows\n"
        << "constexpr int PARTS = " << config.parts() << "; // TF32 parts of each operand (big"
        << (config.products == 3 ? ", small" : "") << ")\n"
        << "constexpr int STAGES = " << config.stages << "; // slices in flight in the shared-memory ring\n"
        << "// Slices copied ahead of the one multiplied: one stage fewer under plain TF32, whose products of a slice\n"
        << "// are still running while the next slice is issued (its stage must not be refilled yet).\n"
        << "constexpr int AHEAD = STAGES - " << (config.products == 3 ? 1 : 2) << ";\n"
        << "constexpr int GROUP_M = " << config.groupM
        << "; // row tiles walked together (their b columns stay in L2)\n"
        << "constexpr int ROW_BYTES = BK * 4;\n"
        << "constexpr int A_TILE_BYTES = BM * ROW_BYTES, B_TILE_BYTES = BN * ROW_BYTES;\n"
        << "// A stage: [a big][b big]" << (config.products == 3 ? "[a small][b small]" : "")
        << ", each tile rows of 128 bytes.\n"
        << "constexpr int STAGE_BYTES = PARTS * (A_TILE_BYTES + B_TILE_BYTES);\n"
        << "constexpr int SUMS = BN / 2; // a thread's share of its warpgroup's 64 x BN sums\n"
        << "typedef unsigned long long u64;\n";
}

void writeAsyncHelpers(std::ostringstream &out)
{
    out << R"(
__device__ __forceinline__ unsigned sharedAddress(const void *pointer)
{
    return (unsigned)__cvta_generic_to_shared(pointer);
}
__device__ __forceinline__ void copy16(unsigned dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void commitCopies()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int PENDING>
__device__ __forceinline__ void waitCopies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}
// cp.async writes shared memory through the generic proxy, wgmma reads it through the async proxy.
__device__ __forceinline__ void fenceAsyncProxy()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void wgmmaFence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmmaCommit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int PENDING>
__device__ __forceinline__ void wgmmaWait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
}
// The sums are written by wgmma behind the compiler's back: this keeps their reads after wgmmaWait.
__device__ __forceinline__ void keepSums(float (&sums)[SUMS])
{
#pragma unroll
    for (int e = 0; e < SUMS; ++e)
        asm volatile("" : "+f"(sums[e])::"memory");
}

// A shared-memory matrix descriptor for wgmma: rows of 128 bytes (k contiguous), 128-byte swizzle, groups of 8
// rows 1024 bytes apart. Adding 2 moves it 32 bytes (8 TF32 values of k) along the rows.
__device__ __forceinline__ u64 descriptor(unsigned address)
{
    return (u64)((address & 0x3FFFF) >> 4) | (u64)1 << 16 | (u64)(1024 >> 4) << 32 | (u64)1 << 62;
}

// ROWS rows of a 32-value k slice at k0 of a padded [*, Kp] matrix into a 128-byte-swizzled tile at dst:
// the 16-byte chunk q of row r lands at chunk q ^ (r % 8) of that row, the layout wgmma's descriptor names.
template <int ROWS>
__device__ __forceinline__ void copyTile(unsigned dst, const float *__restrict__ src, int Kp, int k0)
{
#pragma unroll
    for (int i = threadIdx.x; i < ROWS * 8; i += THREADS) {
        const int r = i / 8, q = i % 8;
        copy16(dst + r * ROW_BYTES + ((q ^ (r & 7)) << 4), src + (size_t)r * Kp + k0 + q * 4);
    }
}
)";
}

// wgmma m64nBNk8 with both operands in shared memory; d = a * b + (accumulate ? d : 0).
void writeWgmma(std::ostringstream &out, const WgmmaConfig &config)
{
    const int sums = config.bn / 2;
    out << "\n// d (this thread's " << sums
        << " sums of its warpgroup's 64 x BN tile) = a * b + (accumulate ? d : 0), over 8 values of k.\n"
        << "__device__ __forceinline__ void wgmma(float (&d)[SUMS], u64 a, u64 b, int accumulate)\n{\n"
        << "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << sums + 2 << ", 0;\\n\"\n"
        << "                 \"wgmma.mma_async.sync.aligned.m64n" << config.bn << "k8.f32.tf32.tf32 {";
    for (int e = 0; e < sums; ++e)
        out << (e ? ", " : "") << "%" << e;
    out << "}, %" << sums << ", %" << sums + 1 << ", p, 1, 1;\\n}\\n\"\n                 : ";
    for (int e = 0; e < sums; ++e)
        out << (e ? ", " : "") << (e && e % 8 == 0 ? "\n                   " : "") << "\"+f\"(d[" << e << "])";
    out << "\n                 : \"l\"(a), \"l\"(b), \"r\"(accumulate));\n}\n";
}

void writeKernel(std::ostringstream &out, const WgmmaConfig &config, const GemmTensors &tensors)
{
    const bool three = config.products == 3;
    const std::string &result = tensors.out->name;
    out << R"(
// Starts copying slice `slice` of every operand part into the stage at `stage`.
__device__ __forceinline__ void loadStage(unsigned stage, const float *aBig, const float *bBig, const float *aSmall,
                                          const float *bSmall, int Kp, int slice)
{
    const int k0 = slice * BK;
    copyTile<BM>(stage, aBig, Kp, k0);
    copyTile<BN>(stage + A_TILE_BYTES, bBig, Kp, k0);
    if (PARTS == 2) {
        copyTile<BM>(stage + A_TILE_BYTES + B_TILE_BYTES, aSmall, Kp, k0);
        copyTile<BN>(stage + 2 * A_TILE_BYTES + B_TILE_BYTES, bSmall, Kp, k0);
    }
}

// aBig..bSmall are the padded TF32 copies of a ([Mp, Kp]) and of b transposed ([Np, Kp]); the plan's scratch
// buffers are passed as non-const pointers but only read here.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
gemm_wgmma_kernel(float *__restrict__ aBig, float *__restrict__ bBig, )"
        << (three ? "float *__restrict__ aSmall, float *__restrict__ bSmall, " : "") << extraParameters(tensors)
        << "float *__restrict__ " << result << R"(, int M, int N, int Kp)
{
    extern __shared__ unsigned char shared[];
    const unsigned base = (sharedAddress(shared) + 1023) & ~1023u;
    const int warpgroup = threadIdx.x / 128, lane = threadIdx.x % 32, warp = threadIdx.x % 128 / 32;
    // Consecutive blocks take GROUP_M row tiles, column after column, so that blocks running at the same time
    // share their columns of b (and rows of a) in L2.
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int perGroup = GROUP_M * tilesN;
    const int firstTileM = blockIdx.x / perGroup * GROUP_M;
    const int groupRows = min(tilesM - firstTileM, GROUP_M);
    const int inGroup = blockIdx.x % perGroup;
    const int rowBase = (firstTileM + inGroup % groupRows) * BM, colBase = inGroup / groupRows * BN;
)";
    if (three)
        out << "    const float *aTiles[2] = {aBig + (size_t)rowBase * Kp, aSmall + (size_t)rowBase * Kp};\n"
            << "    const float *bTiles[2] = {bBig + (size_t)colBase * Kp, bSmall + (size_t)colBase * Kp};\n";
    else
        out << "    const float *aTiles[2] = {aBig + (size_t)rowBase * Kp, nullptr};\n"
            << "    const float *bTiles[2] = {bBig + (size_t)colBase * Kp, nullptr};\n";
    out << R"(
    float acc[SUMS];
#pragma unroll
    for (int e = 0; e < SUMS; ++e)
        acc[e] = 0.0f;
)" << (three ? "    float part[SUMS];\n" : "")
        << R"(
    // One copy group per slice (empty past the last), so that "slice s has landed" is always "at most
    // AHEAD - 1 groups pending".
    const int slices = Kp / BK;
#pragma unroll
    for (int s = 0; s < AHEAD; ++s) {
        if (s < slices)
            loadStage(base + s * STAGE_BYTES, aTiles[0], bTiles[0], aTiles[1], bTiles[1], Kp, s);
        commitCopies();
    }
    for (int s = 0; s < slices; ++s) {
        waitCopies<AHEAD - 1>();
        fenceAsyncProxy();
        // Slice s is in shared memory for everyone, and every warpgroup has finished reading slice
        // s + AHEAD - STAGES, whose stage is refilled once this slice's products are issued.
        __syncthreads();
        const unsigned stage = base + (s % STAGES) * STAGE_BYTES;
        const u64 aBigDesc = descriptor(stage + warpgroup * 64 * ROW_BYTES);
        const u64 bBigDesc = descriptor(stage + A_TILE_BYTES);
)";
    if (three)
        out << R"(        const u64 aSmallDesc = descriptor(stage + A_TILE_BYTES + B_TILE_BYTES + warpgroup * 64 * ROW_BYTES);
        const u64 bSmallDesc = descriptor(stage + 2 * A_TILE_BYTES + B_TILE_BYTES);
        // The tensor cores do not round their fp32 sums to nearest: the slice's products go into a fresh sum
        // (the small terms first), which the CUDA cores add to acc, rounded to nearest.
        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk) {
            wgmma(part, aSmallDesc + 2 * kk, bBigDesc + 2 * kk, kk > 0);
            wgmma(part, aBigDesc + 2 * kk, bSmallDesc + 2 * kk, 1);
            wgmma(part, aBigDesc + 2 * kk, bBigDesc + 2 * kk, 1);
        }
        wgmmaCommit();
        // The tensor cores work on this slice while the copy of slice s + AHEAD is issued.
        const int next = s + AHEAD;
        if (next < slices)
            loadStage(base + (next % STAGES) * STAGE_BYTES, aTiles[0], bTiles[0], aTiles[1], bTiles[1], Kp, next);
        commitCopies();
        wgmmaWait<0>();
        keepSums(part);
#pragma unroll
        for (int e = 0; e < SUMS; ++e)
            acc[e] += part[e];
    }
)";
    else
        out << R"(        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk)
            wgmma(acc, aBigDesc + 2 * kk, bBigDesc + 2 * kk, 1);
        wgmmaCommit();
        // The tensor cores work on this slice while the copy of slice s + AHEAD is issued.
        const int next = s + AHEAD;
        if (next < slices)
            loadStage(base + (next % STAGES) * STAGE_BYTES, aTiles[0], bTiles[0], aTiles[1], bTiles[1], Kp, next);
        commitCopies();
        // This slice's products may still run while the next slice is issued: their sums are only read after
        // the loop.
        wgmmaWait<1>();
    }
    wgmmaWait<0>();
    keepSums(acc);
)";
    out << R"(    waitCopies<0>();

    // The epilogue on the accumulators in registers. wgmma's layout: warp w of a warpgroup holds rows 16w + g
    // and 16w + g + 8 (g = lane / 4); sums 4j..4j+3 are columns 8j + t2 and 8j + t2 + 1 (t2 = lane % 4 * 2) of
    // those two rows. Pairs are stored as one 8-byte write where N is even (every row then starts aligned).
    auto finish = [&](float value, int m, int n) { return )"
        << epilogueCall(tensors, "value", "(size_t)m * N + n") << R"(; };
    const int g = lane / 4, t2 = lane % 4 * 2;
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int m = rowBase + warpgroup * 64 + warp * 16 + g + half * 8;
            const int n = colBase + j * 8 + t2;
            if (m >= M || n >= N)
                continue;
            const float first = finish(acc[4 * j + 2 * half], m, n);
            if (pairs) {
                *reinterpret_cast<float2 *>()"
        << result << R"( + (size_t)m * N + n) = make_float2(first, finish(acc[4 * j + 2 * half + 1], m, n + 1));
            } else {
                )"
        << result << R"([(size_t)m * N + n] = first;
                if (n + 1 < N)
                    )"
        << result << R"([(size_t)m * N + n + 1] = finish(acc[4 * j + 2 * half + 1], m, n + 1);
            }
        }
}
)";
}

// The default tile (see defaultTileIndex()), among those whose sums fit 3xTF32's registers.
TileShape defaultTile(const std::vector<GemmSizes> &sizes)
{
    static const std::vector<TileShape> tiles{{128, 128}, {64, 128}, {64, 64}};
    return tiles[defaultTileIndex(tiles, sizes)];
}

} // namespace

bool GemmWgmmaTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmWgmmaTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {64, 128, 192}, "block tile rows (64 per warpgroup)"},
            {"bn", {64, 128, 256}, "block tile columns (wgmma's n)"},
            {"stages", {2, 3, 4, 5, 6}, "slices in flight (cp.async pipeline depth)"},
            {"products", {3, 1}, "TF32 products per multiply (3: fp32-accurate 3xTF32, 1: plain TF32)"},
            {"groupM", {1, 4, 8, 16}, "row tiles walked together (L2 reuse of b)"}};
}

Params GemmWgmmaTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    const TileShape tile = defaultTile(gemmSizes(op, recipe));
    return {{"bm", tile.bm}, {"bn", tile.bn}, {"stages", 3}, {"products", 3}, {"groupM", 8}};
}

std::string GemmWgmmaTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm-wgmma template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    // The copy kernels lay a out as [rows, k] whatever its layout: a transposed a and folded leading dimensions
    // cost nothing more. Batches and triangles are not implemented here.
    GemmLayouts layouts;
    layouts.transposedA = true;
    layouts.foldedRows = true;
    if (auto problem = checkGemm(op, recipe, reserved(), name(), layouts); !problem.empty())
        return problem;
    if (recipe.transposeA && !recipe.leading.empty())
        return "the gemm-wgmma template folds leading dimensions of an a given as [m, k] only";
    const WgmmaConfig config = configOf(params);
    if (config.sums() > kMaxSums)
        return "a 64 x " + text(config.bn) + " warpgroup tile with " + (config.products == 3 ? "3xTF32" : "TF32")
               + " holds " + text(config.sums()) + " sums a thread, more than " + text(kMaxSums)
               + " fit in registers beside the operands";
    if (config.products == 1 && config.stages < 3)
        return "plain TF32 keeps a slice's products running while the next slice is issued: it needs at least 3 "
               "stages";
    if (config.sharedBytes() > kMaxOptInSharedBytes)
        return text(config.sharedBytes()) + " bytes of shared memory (" + text(config.stages) + " stages of "
               + text(config.stageBytes()) + ") exceed " + text(kMaxOptInSharedBytes);
    return {};
}

GeneratedKernel GemmWgmmaTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const WgmmaConfig config = configOf(params);
    const GemmTensors tensors = gemmTensors(op, recipe);
    const bool three = config.products == 3;

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// " << formulaComment(recipe, tensors) << "\n"
        << "// On Hopper's warpgroup tensor-core instructions (wgmma). Two copy kernels first round a and b to TF32"
           "\n// into zero-padded copies with k contiguous (b transposed where it is [k, n]); the main kernel computes"
           "\n// a BM x BN tile per block, one warpgroup per 64 rows, staging 32-wide k slices of the copies with "
           "cp.async\n// into 128-byte-swizzled shared tiles that wgmma reads directly; the epilogue works on the "
           "sums in registers.\n"
        << (three ? "// Precision: 3xTF32, as accurate as fp32 FMA (each operand split into a TF32 part and a TF32\n"
                    "// remainder; three tensor-core products, fp32 sums rounded to nearest once per slice).\n"
                  : "// Precision: plain TF32 (operands rounded to 10-bit mantissas, sums in fp32).\n")
        << "\n#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ != 900 || !defined(__CUDA_ARCH_FEAT_SM90_ALL))\n"
        << "#error \"wgmma needs sm_90a (Hopper)\"\n"
        << "#endif\n";
    writeConstants(out, config);
    writeSplitKernels(out, config);
    writeAsyncHelpers(out);
    writeWgmma(out, config);
    writeEpilogueFunction(out, recipe, tensors);
    writeKernel(out, config, tensors);

    const std::string rows = rowsExpression(recipe); // m, with a's leading dimensions folded in
    const std::string mPadded = padded(rows, config.bm), nPadded = padded(recipe.n, config.bn);
    const std::string kPadded = padded(recipe.k, kSliceK);
    std::vector<std::pair<std::string, std::string>> scratch{{"aBig", "4 * " + mPadded + " * " + kPadded},
                                                             {"bBig", "4 * " + nPadded + " * " + kPadded}};
    if (three) {
        scratch.push_back({"aSmall", "4 * " + mPadded + " * " + kPadded});
        scratch.push_back({"bSmall", "4 * " + nPadded + " * " + kPadded});
    }
    const auto parts = [&](const char *operand) {
        nlohmann::json args = nlohmann::json::array({scratchArg(std::string(operand) + "Big")});
        if (three)
            args.push_back(scratchArg(std::string(operand) + "Small"));
        return args;
    };
    const auto splitRows = [&](const std::string &tensor, const std::string &rows, const std::string &cols,
                               const std::string &rowsPadded, const char *operand) {
        nlohmann::json args = nlohmann::json::array({inputArg(tensor)});
        for (auto &arg : parts(operand))
            args.push_back(arg);
        for (const auto &symbol : {rows, cols, rowsPadded, kPadded})
            args.push_back(intArg(symbol));
        return kernelStep("split_rows_kernel",
                          {"ceil_div(" + rowsPadded + " * " + kPadded + ", " + text(kSplitBlock * kSplitItems) + ")"},
                          {text(kSplitBlock)}, args);
    };
    // A [k, cols] operand (b as PyTorch gives it, or a transposed a) is transposed into [colsPadded, k] copies.
    const auto splitTransposed = [&](const std::string &tensor, const std::string &cols, const std::string &colsPadded,
                                     const char *operand) {
        nlohmann::json args = nlohmann::json::array({inputArg(tensor)});
        for (auto &arg : parts(operand))
            args.push_back(arg);
        for (const auto &symbol : {recipe.k, cols, colsPadded, kPadded})
            args.push_back(intArg(symbol));
        return kernelStep("split_transposed_kernel",
                          {"ceil_div(" + colsPadded + ", 32)", "ceil_div(" + kPadded + ", 32)"}, {"32", "8"}, args);
    };
    nlohmann::json steps = nlohmann::json::array();
    steps.push_back(recipe.transposeA ? splitTransposed(tensors.a->name, rows, mPadded, "a")
                                      : splitRows(tensors.a->name, rows, recipe.k, mPadded, "a"));
    steps.push_back(recipe.transposeB ? splitRows(tensors.b->name, recipe.n, recipe.k, nPadded, "b")
                                      : splitTransposed(tensors.b->name, recipe.n, nPadded, "b"));
    nlohmann::json args = nlohmann::json::array({scratchArg("aBig"), scratchArg("bBig")});
    if (three) {
        args.push_back(scratchArg("aSmall"));
        args.push_back(scratchArg("bSmall"));
    }
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(outputArg(tensors.out->name));
    for (const auto &symbol : {rows, recipe.n, kPadded})
        args.push_back(intArg(symbol));
    const std::vector<std::string> grid{"ceil_div(" + rows + ", " + text(config.bm) + ") * ceil_div(" + recipe.n + ", "
                                        + text(config.bn) + ")"};
    steps.push_back(kernelStep("gemm_wgmma_kernel", grid, {text(config.threads())}, args, text(config.sharedBytes())));
    return {out.str(), planJson(steps, scratch)};
}

} // namespace kx
