#include "core/codegen/gemmtensorcoretemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"

#include <algorithm>
#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

// Accumulator fragments a warp may hold: 8 fragments are 64 registers a thread, and 3xTF32 needs the
// operands' two halves besides them; more spills.
constexpr int kMaxFragmentsPerWarp = 8;
constexpr int kMaxWarps = 8;
constexpr int kFragment = 16; // WMMA TF32 fragments are 16 x 16 (x 8 along k)
constexpr int kPad = 4;       // floats of padding per shared row: a multiple of 4 keeps WMMA's 16-byte rows

const std::set<std::string> &reserved()
{
    static const std::set<std::string> names = reservedNames(
        {"WARPS_M", "WARPS_N", "WM", "WN", "FM", "FN", "STAGES", "A_LD", "B_LD", "C_LD", "A_FLOATS", "B_FLOATS",
         "STAGE_FLOATS", "TILE_FLOATS", "AccFragment", "AFragment", "BFragment", "sharedAddress", "copy16", "copy4",
         "commitCopies", "waitCopies", "loadTile", "loadStage", "cols", "col", "row0", "col0", "inside", "toTf32", "splitTf32",
         "multiplySlice", "step", "gemm_tc_kernel", "warp", "warpRow", "warpCol", "stage", "tile", "next", "big", "small",
         "aBig", "aSmall", "bBig", "bSmall"});
    return names;
}

struct TensorCoreConfig
{
    int bm = 64, bn = 64, bk = 32, warpsM = 2, warpsN = 2, stages = 2, products = 3;

    int warpRows() const { return bm / warpsM; }
    int warpCols() const { return bn / warpsN; }
    int threads() const { return 32 * warpsM * warpsN; }
    int aFloats() const { return bm * (bk + kPad); }
    int bFloats(bool transposeB) const { return transposeB ? bn * (bk + kPad) : bk * (bn + kPad); }
    int stageFloats(bool transposeB) const { return aFloats() + bFloats(transposeB); }
    int tileFloats() const { return bm * (bn + kPad); }
    int sharedBytes(bool transposeB) const { return 4 * std::max(stages * stageFloats(transposeB), tileFloats()); }
};

TensorCoreConfig configOf(const Params &params)
{
    TensorCoreConfig config;
    config.bm = param(params, "bm", 64);
    config.bn = param(params, "bn", 64);
    config.bk = param(params, "bk", 32);
    config.warpsM = param(params, "warpsM", 2);
    config.warpsN = param(params, "warpsN", 2);
    config.stages = param(params, "stages", 2);
    config.products = param(params, "products", 3);
    return config;
}

void writeConstants(std::ostringstream &out, const TensorCoreConfig &config, bool transposeB)
{
    out << "constexpr int BM = " << config.bm << ", BN = " << config.bn << ", BK = " << config.bk << ";\n"
        << "constexpr int WARPS_M = " << config.warpsM << ", WARPS_N = " << config.warpsN << ";\n"
        << "constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N; // each warp's tile\n"
        << "constexpr int FM = WM / 16, FN = WN / 16;             // its 16 x 16 accumulator fragments\n"
        << "constexpr int THREADS = 32 * WARPS_M * WARPS_N;\n"
        << "constexpr int STAGES = " << config.stages << "; // slices in flight in the shared-memory ring\n"
        << "// Shared rows are padded by " << kPad << " floats: WMMA needs rows of a multiple of 16 bytes, and the\n"
        << "// padding spreads a fragment's rows over the banks.\n"
        << "constexpr int A_LD = BK + " << kPad << ";  // a slice: [BM][A_LD], row-major\n";
    if (transposeB)
        out << "constexpr int B_LD = BK + " << kPad << ";  // b slice: [BN][B_LD], b is [n, k]: a column-major k x n tile\n"
            << "constexpr int B_FLOATS = BN * B_LD;\n";
    else
        out << "constexpr int B_LD = BN + " << kPad << ";  // b slice: [BK][B_LD], row-major\n"
            << "constexpr int B_FLOATS = BK * B_LD;\n";
    out << "constexpr int A_FLOATS = BM * A_LD;\n"
        << "constexpr int STAGE_FLOATS = A_FLOATS + B_FLOATS;\n"
        << "constexpr int C_LD = BN + " << kPad << ";  // the output tile, [BM][C_LD], reuses the stages at the end\n";
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

void writeMultiply(std::ostringstream &out, const TensorCoreConfig &config, bool transposeB)
{
    out << "\nusing AFragment = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 8, nvcuda::wmma::precision::tf32,\n"
           "                                         nvcuda::wmma::row_major>;\n"
        << "using BFragment = nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 8, nvcuda::wmma::precision::tf32,\n"
        << "                                         nvcuda::wmma::" << (transposeB ? "col_major" : "row_major") << ">;\n"
        << "using AccFragment = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 8, float>;\n";
    if (config.products == 3)
        out << R"(
// 3xTF32: x = big + small with both parts TF32 (10-bit mantissas); big*big + big*small + small*big is the fp32
// product up to the small*small term, which lies below fp32 rounding.
template <typename Fragment>
__device__ __forceinline__ void splitTf32(Fragment &big, Fragment &small)
{
#pragma unroll
    for (int e = 0; e < big.num_elements; ++e) {
        const float x = big.x[e];
        big.x[e] = nvcuda::wmma::__float_to_tf32(x);
        small.x[e] = nvcuda::wmma::__float_to_tf32(x - big.x[e]);
    }
}
)";
    else
        out << R"(
// Plain TF32: operands rounded to 10-bit mantissas, products summed in fp32.
template <typename Fragment>
__device__ __forceinline__ void toTf32(Fragment &fragment)
{
#pragma unroll
    for (int e = 0; e < fragment.num_elements; ++e)
        fragment.x[e] = nvcuda::wmma::__float_to_tf32(fragment.x[e]);
}
)";
    const std::string bFragment = transposeB ? "bs + (warpCol * WN + j * 16) * B_LD + kk" : "bs + kk * B_LD + warpCol * WN + j * 16";
    out << R"(
// acc += this warp's WM x WN part of the slice's product, 8 values of k at a time.
__device__ __forceinline__ void multiplySlice(const float *as, const float *bs, AccFragment (&acc)[FM][FN], int warpRow,
                                              int warpCol)
{
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
)";
    if (config.products == 3) {
        out << "        AFragment aBig[FM], aSmall[FM];\n"
               "        BFragment bBig[FN], bSmall[FN];\n"
               "#pragma unroll\n"
               "        for (int i = 0; i < FM; ++i) {\n"
               "            nvcuda::wmma::load_matrix_sync(aBig[i], as + (warpRow * WM + i * 16) * A_LD + kk, A_LD);\n"
               "            splitTf32(aBig[i], aSmall[i]);\n"
               "        }\n"
               "#pragma unroll\n"
               "        for (int j = 0; j < FN; ++j) {\n"
               "            nvcuda::wmma::load_matrix_sync(bBig[j], " << bFragment << ", B_LD);\n"
               "            splitTf32(bBig[j], bSmall[j]);\n"
               "        }\n"
               "        // Tensor cores do not round their fp32 sums to nearest; over a long k that error builds up in\n"
               "        // one direction. So each step's three products go into a fresh fragment, which is then added\n"
               "        // to acc on the CUDA cores, rounded to nearest like an fp32 FMA loop.\n"
               "        AccFragment step;\n"
               "#pragma unroll\n"
               "        for (int i = 0; i < FM; ++i)\n"
               "#pragma unroll\n"
               "            for (int j = 0; j < FN; ++j) { // the small terms first: they are the ones rounding would lose\n"
               "                nvcuda::wmma::fill_fragment(step, 0.0f);\n"
               "                nvcuda::wmma::mma_sync(step, aSmall[i], bBig[j], step);\n"
               "                nvcuda::wmma::mma_sync(step, aBig[i], bSmall[j], step);\n"
               "                nvcuda::wmma::mma_sync(step, aBig[i], bBig[j], step);\n"
               "#pragma unroll\n"
               "                for (int e = 0; e < step.num_elements; ++e)\n"
               "                    acc[i][j].x[e] += step.x[e];\n"
               "            }\n";
    } else {
        out << "        AFragment aBig[FM];\n"
               "        BFragment bBig[FN];\n"
               "#pragma unroll\n"
               "        for (int i = 0; i < FM; ++i) {\n"
               "            nvcuda::wmma::load_matrix_sync(aBig[i], as + (warpRow * WM + i * 16) * A_LD + kk, A_LD);\n"
               "            toTf32(aBig[i]);\n"
               "        }\n"
               "#pragma unroll\n"
               "        for (int j = 0; j < FN; ++j) {\n"
               "            nvcuda::wmma::load_matrix_sync(bBig[j], " << bFragment << ", B_LD);\n"
               "            toTf32(bBig[j]);\n"
               "        }\n"
               "#pragma unroll\n"
               "        for (int i = 0; i < FM; ++i)\n"
               "#pragma unroll\n"
               "            for (int j = 0; j < FN; ++j)\n"
               "                nvcuda::wmma::mma_sync(acc[i][j], aBig[i], bBig[j], acc[i][j]);\n";
    }
    out << "    }\n}\n";
}

void writeKernel(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors)
{
    const std::string &a = tensors.a->name;
    const std::string &b = tensors.b->name;
    // a is [M, K]; b is [K, N], or [N, K] (nn.Linear), which staged as it is reads as a column-major k x n tile.
    const std::string loadB = recipe.transposeB ? "loadTile<BN, BK, B_LD>(" + b + ", stage + A_FLOATS, N, K, colBase, k0);"
                                                : "loadTile<BK, BN, B_LD>(" + b + ", stage + A_FLOATS, K, N, k0, colBase);";
    out << "\n// Starts copying the slice at k0 of both operands into `stage`.\n"
        << "__device__ __forceinline__ void loadStage(const float *__restrict__ " << a << ", const float *__restrict__ " << b
        << ", float *stage, int M, int N, int K, int rowBase, int colBase, int k0)\n{\n"
        << "    loadTile<BM, BK, A_LD>(" << a << ", stage, M, K, rowBase, k0);\n"
        << "    " << loadB << "\n"
        << "}\n";

    out << "\nextern \"C\" __global__ void __launch_bounds__(THREADS)\n"
        << "gemm_tc_kernel(const float *__restrict__ " << a << ", const float *__restrict__ " << b << ", "
        << extraParameters(tensors) << "float *__restrict__ " << tensors.out->name << ", int M, int N, int K)\n{\n"
        << R"(    // STAGES slices of STAGE_FLOATS floats, later the output tile; sized by the plan's dynamic shared memory.
    extern __shared__ __align__(128) float shared[];
    const int warp = threadIdx.x / 32;
    const int warpRow = warp / WARPS_N, warpCol = warp % WARPS_N;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;

    AccFragment acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);

    // One copy group per slice (empty past the last), so that "slice s has landed" is always "at most
    // STAGES - 2 groups pending".
    const int slices = (K + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < slices)
            loadStage()"
        << a << ", " << b << R"(, shared + s * STAGE_FLOATS, M, N, K, rowBase, colBase, s * BK);
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
        << a << ", " << b << R"(, shared + (next % STAGES) * STAGE_FLOATS, M, N, K, rowBase, colBase, next * BK);
        commitCopies();
        const float *stage = shared + (s % STAGES) * STAGE_FLOATS;
        multiplySlice(stage, stage + A_FLOATS, acc, warpRow, warpCol);
    }
    waitCopies<0>();
    __syncthreads(); // the stages are free: they hold the output tile now

    // The accumulators go through shared memory, so that the epilogue reads and writes whole rows (coalesced)
    // and skips what lies past M and N.
    float *tile = shared;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            nvcuda::wmma::store_matrix_sync(tile + (warpRow * WM + i * 16) * C_LD + warpCol * WN + j * 16, acc[i][j], C_LD,
                                            nvcuda::wmma::mem_row_major);
    __syncthreads();
    for (int i = threadIdx.x; i < BM * BN; i += THREADS) {
        const int m = rowBase + i / BN, n = colBase + i % BN;
        if (m < M && n < N)
            )"
        << tensors.out->name << "[(size_t)m * N + n] = "
        << epilogueCall(tensors, "tile[(i / BN) * C_LD + i % BN]", "(size_t)m * N + n") << ";\n"
        << "    }\n}\n";
}

} // namespace

bool GemmTensorCoreTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmTensorCoreTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"bm", {32, 64, 128}, "block tile rows"},
            {"bn", {32, 64, 128}, "block tile columns"},
            {"bk", {16, 32}, "k slice per shared tile"},
            {"warpsM", {1, 2, 4}, "warps along rows"},
            {"warpsN", {1, 2, 4}, "warps along columns"},
            {"stages", {2, 3, 4}, "slices in flight (cp.async pipeline depth)"},
            {"products", {3, 1}, "TF32 products per multiply (3: fp32-accurate 3xTF32, 1: plain TF32)"}};
}

Params GemmTensorCoreTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"bm", 64}, {"bn", 64}, {"bk", 32}, {"warpsM", 2}, {"warpsN", 2}, {"stages", 2}, {"products", 3}};
}

std::string GemmTensorCoreTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm-tensorcore template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    if (auto problem = checkGemm(op, recipe, reserved(), name()); !problem.empty())
        return problem;

    const TensorCoreConfig config = configOf(params);
    if (config.warpRows() < kFragment || config.warpCols() < kFragment)
        return "a warp's tile of (" + text(config.bm) + "/" + text(config.warpsM) + ") x (" + text(config.bn) + "/"
               + text(config.warpsN) + ") is smaller than a 16 x 16 fragment";
    const int fragments = (config.warpRows() / kFragment) * (config.warpCols() / kFragment);
    if (fragments > kMaxFragmentsPerWarp)
        return "a warp's tile of " + text(config.warpRows()) + " x " + text(config.warpCols()) + " holds "
               + text(fragments) + " accumulator fragments, more than " + text(kMaxFragmentsPerWarp)
               + " fit in registers";
    if (config.warpsM * config.warpsN > kMaxWarps)
        return text(config.warpsM) + " x " + text(config.warpsN) + " warps exceed " + text(kMaxWarps) + " per block";
    if (const int bytes = config.sharedBytes(recipe.transposeB); bytes > kMaxSharedBytes)
        return text(bytes) + " bytes of shared memory (" + text(config.stages) + " stages) exceed "
               + text(kMaxSharedBytes);
    return checkRowTiles(op, recipe, config.bm);
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
        << "// On tensor cores: each block computes a BM x BN tile of the output with WARPS_M x WARPS_N warps, each warp\n"
           "// a WM x WN tile of 16 x 16 WMMA fragments, walking k in BK-wide slices that cp.async copies into a ring\n"
           "// of STAGES shared buffers ahead of use. Edges past M, N or K are zero-filled copies and guarded stores.\n"
        << (config.products == 3
                ? "// Precision: 3xTF32, as accurate as fp32 FMA (each operand split into two TF32 parts, each k step\n"
                  "// of products added to the sum on the CUDA cores).\n"
                : "// Precision: plain TF32 (operands rounded to 10-bit mantissas, sums in fp32).\n")
        << "#include <mma.h>\n\n"
        << "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n"
        << "#error \"TF32 tensor cores and cp.async need sm_80 or newer\"\n"
        << "#endif\n\n";
    writeConstants(out, config, recipe.transposeB);
    writeCopyHelpers(out);
    writeMultiply(out, config, recipe.transposeB);
    writeEpilogueFunction(out, recipe, tensors);
    writeKernel(out, recipe, tensors);

    nlohmann::json args = operandArgs(tensors);
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(outputArg(tensors.out->name));
    for (const auto &symbol : {recipe.m, recipe.n, recipe.k})
        args.push_back(intArg(symbol));
    const std::vector<std::string> grid{"ceil_div(" + recipe.n + ", " + text(config.bn) + ")",
                                        "ceil_div(" + recipe.m + ", " + text(config.bm) + ")"};
    nlohmann::json steps = nlohmann::json::array(
        {kernelStep("gemm_tc_kernel", grid, {text(config.threads())}, args, text(config.sharedBytes(recipe.transposeB)))});
    return {out.str(), planJson(steps)};
}

} // namespace kx
