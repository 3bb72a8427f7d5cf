#include "core/codegen/gemmtensorcoretemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"

#include <iterator>
#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

// A thread holds 4 accumulators per 16 x 8 mma tile of its warp, and b's fragments of a k step (2 per column
// tile, twice for 3xTF32's two parts) beside a's. Past this estimate ptxas (sm_90) spills: a 64 x 64 warp tile
// fits plain TF32, 64 x 32 fits 3xTF32, 32 x 64 does not (it holds twice the b fragments).
constexpr int kMaxRegisterEstimate = 150;
constexpr int kMaxWarps = 8;
constexpr int kTileRows = 16, kTileCols = 8; // mma.sync.m16n8k8
// Dynamic shared memory a block may opt into on sm_90 (sm_80: 163 KiB, sm_86/89: 99 KiB): a deeper pipeline
// than the GPU grants fails its launch-plan check on that GPU, with the numbers, and the search moves on.
constexpr int kMaxOptInSharedBytes = 227 * 1024;

const std::set<std::string> &reserved()
{
    static const std::set<std::string> names = reservedNames({"WARPS_M",
                                                              "WARPS_N",
                                                              "WM",
                                                              "WN",
                                                              "MT",
                                                              "NT",
                                                              "STAGES",
                                                              "GROUP_M",
                                                              "A_LD",
                                                              "B_LD",
                                                              "A_FLOATS",
                                                              "B_FLOATS",
                                                              "STAGE_FLOATS",
                                                              "sharedAddress",
                                                              "copy16",
                                                              "copy4",
                                                              "commitCopies",
                                                              "waitCopies",
                                                              "loadTile",
                                                              "loadStage",
                                                              "cols",
                                                              "col",
                                                              "row0",
                                                              "col0",
                                                              "tf32",
                                                              "splitTf32",
                                                              "mma",
                                                              "multiplySlice",
                                                              "gemm_tc_kernel",
                                                              "lane",
                                                              "warp",
                                                              "warpRow",
                                                              "warpCol",
                                                              "stage",
                                                              "next",
                                                              "aBig",
                                                              "aSmall",
                                                              "bBig",
                                                              "bSmall",
                                                              "top",
                                                              "bottom",
                                                              "g",
                                                              "t2",
                                                              "finish",
                                                              "value",
                                                              "pairs",
                                                              "step",
                                                              "tilesM",
                                                              "tilesN",
                                                              "perGroup",
                                                              "firstTileM",
                                                              "groupRows",
                                                              "inGroup",
                                                              "half",
                                                              "first",
                                                              "SPLIT_K",
                                                              "allSlices",
                                                              "perSplit",
                                                              "firstSlice",
                                                              "splitStride",
                                                              "gemm_splitk_reduce",
                                                              kSplitKPartial,
                                                              "elements",
                                                              "idx",
                                                              "inMatrix",
                                                              "sum"});
    return names;
}

struct TensorCoreConfig
{
    int bm = 128, bn = 128, bk = 32, warpsM = 2, warpsN = 4, stages = 3, products = 3, groupM = 8, splitK = 1;

    int warpRows() const { return bm / warpsM; }
    int warpCols() const { return bn / warpsN; }
    int accumulators() const { return (warpRows() / kTileRows) * (warpCols() / kTileCols) * 4; }
    int registerEstimate() const
    {
        const int columnTiles = warpCols() / kTileCols;
        return accumulators() + (products == 3 ? 2 * (4 * columnTiles + 12) : 2 * columnTiles + 4);
    }
    int threads() const { return 32 * warpsM * warpsN; }
    // Rows are padded so that a warp's fragment loads hit 32 distinct banks: +8 floats where a thread reads
    // two neighbouring k (float2), +4 where it reads down a column (k-major a or b).
    int aFloats(bool transposeA) const { return transposeA ? bk * (bm + 4) : bm * (bk + 8); }
    int bFloats(bool transposeB) const { return transposeB ? bn * (bk + 8) : bk * (bn + 4); }
    int sharedBytes(const OpRecipe &recipe) const
    {
        return 4 * stages * (aFloats(recipe.transposeA) + bFloats(recipe.transposeB));
    }
};

struct TileChoice
{
    int bm, bn, warpsM, warpsN;
};

// The default tile (see defaultTileIndex()); 32 x 64 tiles measured 2x faster than 128 x 128 on a 512 x 1024
// output. Every choice keeps 3xTF32 without spilling.
TileChoice defaultTile(const std::vector<GemmSizes> &sizes)
{
    static const TileChoice choices[] = {{128, 128, 2, 4}, {64, 128, 1, 4}, {64, 64, 2, 2}, {32, 64, 1, 2}};
    std::vector<TileShape> tiles;
    for (const TileChoice &choice : choices)
        tiles.push_back({choice.bm, choice.bn});
    return choices[defaultTileIndex(tiles, sizes)];
}

TensorCoreConfig configOf(const Params &params)
{
    TensorCoreConfig config;
    config.bm = param(params, "bm", config.bm);
    config.bn = param(params, "bn", config.bn);
    config.bk = param(params, "bk", config.bk);
    config.warpsM = param(params, "warpsM", config.warpsM);
    config.warpsN = param(params, "warpsN", config.warpsN);
    config.stages = param(params, "stages", config.stages);
    config.products = param(params, "products", config.products);
    config.groupM = param(params, "groupM", config.groupM);
    config.splitK = param(params, "splitK", config.splitK);
    return config;
}

void writeConstants(std::ostringstream &out, const TensorCoreConfig &config, const OpRecipe &recipe)
{
    out << "constexpr int BM = " << config.bm << ", BN = " << config.bn << ", BK = " << config.bk << ";\n"
        << "constexpr int WARPS_M = " << config.warpsM << ", WARPS_N = " << config.warpsN << ";\n"
        << "constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N; // each warp's tile\n"
        << "constexpr int MT = WM / 16, NT = WN / 8;             // its 16 x 8 mma tiles\n"
        << "constexpr int THREADS = 32 * WARPS_M * WARPS_N;\n"
        << "constexpr int STAGES = " << config.stages << "; // slices in flight in the shared-memory ring\n"
        << "constexpr int GROUP_M = " << config.groupM
        << "; // row tiles walked together (their b columns stay in L2)\n"
        << (config.splitK > 1 ? "constexpr int SPLIT_K = " + text(config.splitK)
                                    + "; // k ranges, one per blockIdx.z, added up by gemm_splitk_reduce\n"
                              : std::string())
        << "// Shared rows are padded so that each fragment load of a warp touches 32 distinct banks.\n";
    if (recipe.transposeA)
        out << "constexpr int A_LD = BM + 4;  // a slice: [BK][A_LD], m contiguous (a is [k, m])\n"
            << "constexpr int A_FLOATS = BK * A_LD;\n";
    else
        out << "constexpr int A_LD = BK + 8;  // a slice: [BM][A_LD], k contiguous\n"
            << "constexpr int A_FLOATS = BM * A_LD;\n";
    if (recipe.transposeB)
        out << "constexpr int B_LD = BK + 8;  // b slice: [BN][B_LD], k contiguous (b is [n, k])\n"
            << "constexpr int B_FLOATS = BN * B_LD;\n";
    else
        out << "constexpr int B_LD = BN + 4;  // b slice: [BK][B_LD], n contiguous\n"
            << "constexpr int B_FLOATS = BK * B_LD;\n";
    out << "constexpr int STAGE_FLOATS = A_FLOATS + B_FLOATS;\n";
}

void writeCopyHelpers(std::ostringstream &out)
{
    out << R"(
// Asynchronous global -> shared copies (cp.async, sm_80): the copy of the next slices runs while the warps
// multiply the current one. Of the 16 (or 4) bytes, `bytes` are read and the rest zero-filled, which pads
// the edges of the matrices with zeros; with bytes = 0 nothing is read.
__device__ __forceinline__ unsigned sharedAddress(const float *pointer)
{
    return (unsigned)__cvta_generic_to_shared(pointer);
}
__device__ __forceinline__ void copy16(float *dst, const float *src, int bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sharedAddress(dst)), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void copy4(float *dst, const float *src, int bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sharedAddress(dst)), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void commitCopies()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
// Waits until at most PENDING of this thread's most recent copy groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void waitCopies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

// The ROWS x COLS tile at (row0, col0) of a row-major [rows, cols] matrix into dst[r * LD + c]; what lies
// outside the matrix is zeros. Whole float4s when cols is a multiple of 4 (every row then starts 16-byte
// aligned, and a vector is all inside or all outside), single floats otherwise.
template <int ROWS, int COLS, int LD>
__device__ __forceinline__ void loadTile(const float *__restrict__ src, float *dst, int rows, int cols, int row0,
                                         int col0)
{
    if ((cols & 3) == 0) {
#pragma unroll
        for (int i = threadIdx.x; i < ROWS * (COLS / 4); i += THREADS) {
            const int r = i / (COLS / 4), c = i % (COLS / 4) * 4;
            const int row = row0 + r, col = col0 + c;
            const bool inside = row < rows && col < cols;
            copy16(dst + r * LD + c, inside ? src + (size_t)row * cols + col : src, inside ? 16 : 0);
        }
    } else {
        for (int i = threadIdx.x; i < ROWS * COLS; i += THREADS) {
            const int r = i / COLS, c = i % COLS;
            const int row = row0 + r, col = col0 + c;
            const bool inside = row < rows && col < cols;
            copy4(dst + r * LD + c, inside ? src + (size_t)row * cols + col : src, inside ? 4 : 0);
        }
    }
}
)";
}

void writeMultiply(std::ostringstream &out, const TensorCoreConfig &config, const OpRecipe &recipe)
{
    out << R"(
// d += a * b for one 16 x 8 tile over 8 values of k, on the tensor cores (TF32 operands, fp32 sums).
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// x rounded to the nearest TF32 (10-bit mantissa), as the tensor cores read it. (Rounding by integer
// arithmetic on the bits measured 15% slower on an H100 than this one instruction.)
__device__ __forceinline__ unsigned tf32(float x)
{
    unsigned rounded;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(rounded) : "f"(x));
    return rounded;
}
)";
    if (config.products == 3)
        out << R"(
// 3xTF32: x = big + small with both parts TF32; big*big + big*small + small*big is the fp32 product up to the
// small*small term, which lies below fp32 rounding.
__device__ __forceinline__ void splitTf32(float x, unsigned &big, unsigned &small)
{
    big = tf32(x);
    small = tf32(x - __uint_as_float(big));
}
)";
    // The mma's k index of a thread is t (t = lane % 4) for its first value and t + 4 for its second. A sum over
    // k does not care about the order of k, so both operands read k = 2t and 2t + 1 instead: neighbours, one
    // 8-byte load where k is contiguous in shared memory.
    const std::string loadB =
        recipe.transposeB
            ? "            const float2 pair = *reinterpret_cast<const float2 *>(bs + col * B_LD + kk + t2);\n"
              "            const float b[2] = {pair.x, pair.y};\n"
            : "            const float b[2] = {bs[(kk + t2) * B_LD + col], bs[(kk + t2 + 1) * B_LD + col]};\n";
    out << R"(
// acc += this warp's WM x WN part of the slice's product, 8 values of k at a time. A thread's k of an mma step
// are 2t and 2t + 1 (t = lane % 4) for both operands, not t and t + 4 as the instruction names them: the sum
// over k is the same, and neighbouring k are one 8-byte shared load.
__device__ __forceinline__ void multiplySlice(const float *as, const float *bs, float (&acc)[MT][NT][4], int warpRow,
                                              int warpCol, int lane)
{
    const int g = lane / 4, t2 = lane % 4 * 2;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
)";
    if (config.products == 3)
        out << "        unsigned bBig[NT][2], bSmall[NT][2];\n";
    else
        out << "        unsigned bBig[NT][2];\n";
    out << "#pragma unroll\n"
        << "        for (int j = 0; j < NT; ++j) {\n"
        << "            const int col = warpCol * WN + j * 8 + g;\n"
        << loadB;
    if (config.products == 3)
        out << "            splitTf32(b[0], bBig[j][0], bSmall[j][0]);\n"
            << "            splitTf32(b[1], bBig[j][1], bSmall[j][1]);\n";
    else
        out << "            bBig[j][0] = tf32(b[0]);\n"
            << "            bBig[j][1] = tf32(b[1]);\n";
    out << "        }\n"
        << "#pragma unroll\n"
        << "        for (int i = 0; i < MT; ++i) {\n"
        << "            const int row = warpRow * WM + i * 16 + g;\n";
    if (recipe.transposeA)
        out << "            // Rows g and g + 8 at k = 2t and 2t + 1, read down the k-major slice.\n"
            << "            const float *top = as + (kk + t2) * A_LD + row;\n"
            << "            const float a[4] = {top[0], top[8], top[A_LD], top[A_LD + 8]};\n";
    else
        out << "            const float2 top = *reinterpret_cast<const float2 *>(as + row * A_LD + kk + t2);\n"
            << "            const float2 bottom = *reinterpret_cast<const float2 *>(as + (row + 8) * A_LD + kk + t2);\n"
            << "            const float a[4] = {top.x, bottom.x, top.y, bottom.y};\n";
    if (config.products == 3)
        out << "            unsigned aBig[4], aSmall[4];\n"
            << "#pragma unroll\n"
            << "            for (int e = 0; e < 4; ++e)\n"
            << "                splitTf32(a[e], aBig[e], aSmall[e]);\n"
            << "            // The tensor cores do not round their fp32 sums to nearest: over a long k, adding into "
               "acc on\n"
            << "            // them loses bits in one direction, well beyond fp32 FMA's error. So each k step's three\n"
            << "            // products go into a fresh sum that the CUDA cores add to acc, rounded to nearest.\n"
            << "#pragma unroll\n"
            << "            for (int j = 0; j < NT; ++j) {\n"
            << "                float step[4] = {0.0f, 0.0f, 0.0f, 0.0f};\n"
            << "                mma(step, aSmall, bBig[j]); // the small terms first: rounding would lose them last\n"
            << "                mma(step, aBig, bSmall[j]);\n"
            << "                mma(step, aBig, bBig[j]);\n"
            << "#pragma unroll\n"
            << "                for (int e = 0; e < 4; ++e)\n"
            << "                    acc[i][j][e] += step[e];\n"
            << "            }\n";
    else
        out << "            const unsigned aBig[4] = {tf32(a[0]), tf32(a[1]), tf32(a[2]), tf32(a[3])};\n"
            << "#pragma unroll\n"
            << "            for (int j = 0; j < NT; ++j)\n"
            << "                mma(acc[i][j], aBig, bBig[j]);\n";
    out << "        }\n    }\n}\n";
}

void writeKernel(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors, bool split)
{
    const std::string &a = tensors.a->name;
    const std::string &b = tensors.b->name;
    const std::string &result = tensors.out->name;
    // a is [M, K], or [K, M]; b is [K, N], or [N, K] (nn.Linear): each is staged as it is given.
    const std::string loadA = recipe.transposeA ? "loadTile<BK, BM, A_LD>(" + a + ", stage, K, M, k0, rowBase);"
                                                : "loadTile<BM, BK, A_LD>(" + a + ", stage, M, K, rowBase, k0);";
    const std::string loadB = recipe.transposeB
                                  ? "loadTile<BN, BK, B_LD>(" + b + ", stage + A_FLOATS, N, K, colBase, k0);"
                                  : "loadTile<BK, BN, B_LD>(" + b + ", stage + A_FLOATS, K, N, k0, colBase);";
    out << "\n// Starts copying the slice at k0 of both operands into `stage`.\n"
        << "__device__ __forceinline__ void loadStage(const float *__restrict__ " << a << ", const float *__restrict__ "
        << b << ", float *stage, int M, int N, int K, int rowBase, int colBase, int k0)\n{\n"
        << "    " << loadA << "\n"
        << "    " << loadB << "\n"
        << "}\n";

    out << "\nextern \"C\" __global__ void __launch_bounds__(THREADS)\n"
        << "gemm_tc_kernel(const float *__restrict__ " << a << ", const float *__restrict__ " << b << ", "
        << extraParameters(tensors) << "float *__restrict__ " << result << ", int M, int N, int K"
        << (split ? ", long long splitStride" : "") << ")\n{\n"
        << R"(    // STAGES slices of STAGE_FLOATS floats; sized by the plan's dynamic shared memory.
    extern __shared__ __align__(128) float shared[];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int warpRow = warp / WARPS_N, warpCol = warp % WARPS_N;
    // Consecutive blocks take GROUP_M row tiles, column after column, so that blocks running at the same time
    // share their columns of b (and rows of a) in L2.
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int perGroup = GROUP_M * tilesN;
    const int firstTileM = blockIdx.x / perGroup * GROUP_M;
    const int groupRows = min(tilesM - firstTileM, GROUP_M);
    const int inGroup = blockIdx.x % perGroup;
    const int rowBase = (firstTileM + inGroup % groupRows) * BM, colBase = inGroup / groupRows * BN;
)"
        << (split ? "    // This block's k range sums into its own copy of the output (" + result
                        + " is the scratch of the copies).\n    " + result + " += (size_t)blockIdx.z * splitStride;\n"
                  : std::string())
        << batchOffsets(recipe, tensors, "blockIdx.y", "    ") << R"(
    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.0f;

    // One copy group per slice (empty past the last), so that "slice s has landed" is always "at most
    // STAGES - 2 groups pending".
    )"
        << (split ? "const int allSlices = (K + BK - 1) / BK, perSplit = (allSlices + SPLIT_K - 1) / SPLIT_K;\n"
                    "    const int firstSlice = blockIdx.z * perSplit; // this block's k range, in slices\n    "
                  : "")
        << "const int slices = " << (recipe.triangle.empty() ? "" : "zeroTile(rowBase, colBase) ? 0 : ")
        << (split ? "max(0, min(allSlices - firstSlice, perSplit));" : "(K + BK - 1) / BK;")
        << (recipe.triangle.empty() ? "" : " // none in the zero part") << R"(
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            loadStage()"
        << a << ", " << b << R"(, shared + s * STAGE_FLOATS, M, N, K, rowBase, colBase, )"
        << (split ? "(firstSlice + s) * BK" : "s * BK") << R"();
        commitCopies();
    }
    for (int s = 0; s < slices; ++s) {
        waitCopies<STAGES - 2>();
        // Slice s is in shared memory for everyone, and everyone is done with slice s - 1, whose stage the
        // copy below refills.
        __syncthreads();
        const int next = s + STAGES - 1;
        if (next < slices)
            loadStage()"
        << a << ", " << b << R"(, shared + (next % STAGES) * STAGE_FLOATS, M, N, K, rowBase, colBase, )"
        << (split ? "(firstSlice + next) * BK" : "next * BK") << R"();
        commitCopies();
        const float *stage = shared + (s % STAGES) * STAGE_FLOATS;
        multiplySlice(stage, stage + A_FLOATS, acc, warpRow, warpCol, lane);
    }
    waitCopies<0>();

    // The epilogue runs on the accumulators in registers: a thread holds columns 2t and 2t + 1 of rows g and
    // g + 8 of each mma tile, stored as one 8-byte pair where N is even (every row then starts 8-byte aligned).
    auto finish = [&](float value, int m, int n) { return )"
        << (split ? "value; }; // the sums as they are: the epilogue follows the reduction"
                  : storedValue(recipe, tensors, "value", "(size_t)m * N + n") + "; };")
        << R"(
    const int g = lane / 4, t2 = lane % 4 * 2;
    const bool pairs = N % 2 == 0;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int m = rowBase + warpRow * WM + i * 16 + g + half * 8;
                const int n = colBase + warpCol * WN + j * 8 + t2;
                if (m >= M || n >= N)
                    continue;
                const float first = finish(acc[i][j][2 * half], m, n);
                if (pairs) {
                    *reinterpret_cast<float2 *>()"
        << result << R"( + (size_t)m * N + n) = make_float2(first, finish(acc[i][j][2 * half + 1], m, n + 1));
                } else {
                    )"
        << result << R"([(size_t)m * N + n] = first;
                    if (n + 1 < N)
                        )"
        << result << R"([(size_t)m * N + n + 1] = finish(acc[i][j][2 * half + 1], m, n + 1);
                }
            }
}
)";
}

} // namespace

bool GemmTensorCoreTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmTensorCoreTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {32, 64, 128, 256}, "block tile rows"},
            {"bn", {32, 64, 128, 256}, "block tile columns"},
            {"bk", {16, 32, 64}, "k slice per shared tile"},
            {"warpsM", {1, 2, 4}, "warps along rows"},
            {"warpsN", {1, 2, 4}, "warps along columns"},
            {"stages", {2, 3, 4, 5}, "slices in flight (cp.async pipeline depth)"},
            {"products", {3, 1}, "TF32 products per multiply (3: fp32-accurate 3xTF32, 1: plain TF32)"},
            {"groupM", {1, 4, 8, 16}, "row tiles walked together (L2 reuse of b)"},
            {"splitK",
             {1, 2, 4, 8, 16, 32, 64},
             "k ranges summed apart, then added by a second kernel (few tiles, long k)"}};
}

Params GemmTensorCoreTemplate::defaults(const Op &op, const OpRecipe &recipe) const
{
    // Three stages of 32-wide slices: the fastest measured on an H100 (docs/benchmarks.md). With 128 x 128 tiles
    // their 112 KiB of shared memory fit sm_80 and sm_90; on sm_86/sm_89 (99 KiB) the plan check refuses it and
    // the search goes on from its mutations.
    // Where the output has too few tiles to fill the GPU and k is long, the largest tile with k split among blocks
    // reads the operands fewest times.
    const auto sizes = gemmSizes(op, recipe);
    TileChoice tile = defaultTile(sizes);
    int splitK = 1;
    if (!sizes.empty() && defaultSplitK(sizes.front(), tile.bm, tile.bn, 32) > 1) {
        if (2 * sizes.front().m > 128 && 2 * sizes.front().n > 128)
            tile = {128, 128, 2, 4}; // unless it would overhang the output by half or more
        splitK = defaultSplitK(sizes.front(), tile.bm, tile.bn, 32);
    }
    return {{"bm", tile.bm}, {"bn", tile.bn}, {"bk", 32},    {"warpsM", tile.warpsM}, {"warpsN", tile.warpsN},
            {"stages", 3},   {"products", 3}, {"groupM", 8}, {"splitK", splitK}};
}

Params GemmTensorCoreTemplate::tf32Changes(const Op &, const OpRecipe &) const
{
    return {{"products", 1}};
}

std::string GemmTensorCoreTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm-tensorcore template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (auto problem = checkGemm(op, recipe, reserved(), name(), GemmLayouts::all()); !problem.empty())
        return problem;

    const TensorCoreConfig config = configOf(params);
    if (config.bm % config.warpsM != 0 || config.bn % config.warpsN != 0 || config.warpRows() % kTileRows != 0
        || config.warpCols() % kTileCols != 0)
        return "a warp's tile of (" + text(config.bm) + "/" + text(config.warpsM) + ") x (" + text(config.bn) + "/"
               + text(config.warpsN) + ") is not made of 16 x 8 mma tiles";
    if (config.registerEstimate() > kMaxRegisterEstimate)
        return "a warp's tile of " + text(config.warpRows()) + " x " + text(config.warpCols()) + " with "
               + (config.products == 3 ? "3xTF32" : "TF32") + " needs about " + text(config.registerEstimate())
               + " registers a thread for its sums and operands, more than " + text(kMaxRegisterEstimate)
               + " leave room for without spilling";
    if (config.warpsM * config.warpsN > kMaxWarps)
        return text(config.warpsM) + " x " + text(config.warpsN) + " warps exceed " + text(kMaxWarps) + " per block";
    if (const int bytes = config.sharedBytes(recipe); bytes > kMaxOptInSharedBytes)
        return text(bytes) + " bytes of shared memory (" + text(config.stages) + " stages) exceed "
               + text(kMaxOptInSharedBytes);
    return {};
}

GeneratedKernel GemmTensorCoreTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const TensorCoreConfig config = configOf(params);
    const GemmTensors tensors = gemmTensors(op, recipe);

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// " << formulaComment(recipe, tensors) << "\n"
        << "// On tensor cores: each block computes a BM x BN tile of the output with WARPS_M x WARPS_N warps, each "
           "warp\n"
           "// a WM x WN tile of 16 x 8 mma.sync tiles, walking k in BK-wide slices that cp.async copies into a ring "
           "of\n"
           "// STAGES shared buffers ahead of use. Edges past M, N or K are zero-filled copies and guarded stores; "
           "the\n"
           "// epilogue works on the accumulators in registers.\n"
        << (config.products == 3
                ? "// Precision: 3xTF32, as accurate as fp32 FMA (each operand split into a TF32 part and a TF32\n"
                  "// remainder; three tensor-core products, fp32 sums).\n"
                : "// Precision: plain TF32 (operands rounded to 10-bit mantissas, sums in fp32).\n")
        << (config.splitK > 1
                ? "// Split-K: SPLIT_K blocks share each tile's k, each summing its range into its own copy of the\n"
                  "// output; gemm_splitk_reduce adds the copies in order and applies the epilogue.\n"
                : "")
        << "\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n"
        << "#error \"TF32 tensor cores and cp.async need sm_80 or newer\"\n"
        << "#endif\n\n";
    writeConstants(out, config, recipe);
    writeCopyHelpers(out);
    writeMultiply(out, config, recipe);
    writeEpilogueFunction(out, recipe, tensors);
    writeTriangleFunctions(out, recipe);
    const bool split = config.splitK > 1;
    writeKernel(out, recipe, tensors, split);
    if (split)
        writeSplitKReduceKernel(out, recipe, tensors, config.splitK);

    nlohmann::json args = operandArgs(tensors);
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(split ? scratchArg(kSplitKPartial) : outputArg(tensors.out->name));
    const std::string rows = rowsExpression(recipe);
    for (const auto &symbol : {rows, recipe.n, recipe.k})
        args.push_back(intArg(symbol));
    if (split)
        args.push_back(intArg(outputElements(recipe)));
    // One block per output tile, in a 1-D grid that the kernel maps to tiles group by group; y is the batch, z the
    // k range.
    std::vector<std::string> grid{"ceil_div(" + rows + ", " + text(config.bm) + ") * ceil_div(" + recipe.n + ", "
                                  + text(config.bn) + ")"};
    if (isBatched(recipe) || split)
        grid.push_back(isBatched(recipe) ? recipe.batch : "1");
    if (split)
        grid.push_back(text(config.splitK));
    nlohmann::json steps = nlohmann::json::array(
        {kernelStep("gemm_tc_kernel", grid, {text(config.threads())}, args, text(config.sharedBytes(recipe)))});
    if (!split)
        return {out.str(), planJson(steps)};
    steps.push_back(splitKReduceStep(recipe, tensors));
    return {out.str(), planJson(steps, {splitKScratch(recipe, config.splitK)})};
}

} // namespace kx
