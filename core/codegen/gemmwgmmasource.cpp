#include "core/codegen/gemmwgmmasource.h"

#include "core/codegen/codegenutil.h"

#include <algorithm>

namespace kx::gemm {

namespace {

void writeConstants(std::ostringstream &out, const WgmmaConfig &config)
{
    out << "\nconstexpr int BM = " << config.bm << ", BN = " << config.bn << ", BK = " << kWgmmaSliceK
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

// The block's output tile (rowBase, colBase), in both main kernels.
constexpr const char *kTileOrder =
    R"(    // Consecutive blocks take GROUP_M row tiles, column after column, so that blocks running at the same time
    // share their columns of b (and rows of a) in L2.
    const int tilesM = (M + BM - 1) / BM, tilesN = (N + BN - 1) / BN;
    const int perGroup = GROUP_M * tilesN;
    const int firstTileM = blockIdx.x / perGroup * GROUP_M;
    const int groupRows = min(tilesM - firstTileM, GROUP_M);
    const int inGroup = blockIdx.x % perGroup;
    const int rowBase = (firstTileM + inGroup % groupRows) * BM, colBase = inGroup / groupRows * BN;
)";

// The products of the slice at `stage` (in scope), issued as one wgmma group: this warpgroup's rows of a times b,
// into the fresh sum `part` under 3xTF32, into acc under plain TF32. Both main kernels run it.
void writeSliceProducts(std::ostringstream &out, bool three)
{
    out << R"(        const u64 aBigDesc = descriptor(stage + warpgroup * 64 * ROW_BYTES);
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
)";
    else
        out << R"(        wgmmaFence();
#pragma unroll
        for (int kk = 0; kk < BK / 8; ++kk)
            wgmma(acc, aBigDesc + 2 * kk, bBigDesc + 2 * kk, 1);
        wgmmaCommit();
)";
}

// The epilogue on a consumer's sums in registers, then the stores (closes the main kernel).
void writeRegisterEpilogue(std::ostringstream &out, const GemmTensors &tensors)
{
    const std::string &result = tensors.out->name;
    out << R"(
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

void writeCpAsyncKernel(std::ostringstream &out, const WgmmaConfig &config, const GemmTensors &tensors)
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
)" << kTileOrder;
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
)";
    writeSliceProducts(out, three);
    out << R"(        // The tensor cores work on this slice while the copy of slice s + AHEAD is issued.
        const int next = s + AHEAD;
        if (next < slices)
            loadStage(base + (next % STAGES) * STAGE_BYTES, aTiles[0], bTiles[0], aTiles[1], bTiles[1], Kp, next);
        commitCopies();
)";
    if (three)
        out << R"(        wgmmaWait<0>();
        keepSums(part);
#pragma unroll
        for (int e = 0; e < SUMS; ++e)
            acc[e] += part[e];
    }
)";
    else
        out << R"(        // This slice's products may still run while the next slice is issued: their sums are only read after
        // the loop.
        wgmmaWait<1>();
    }
    wgmmaWait<0>();
    keepSums(acc);
)";
    out << R"(    waitCopies<0>();
)";
    writeRegisterEpilogue(out, tensors);
}

// The copy engine's side (loader Tma): tensor maps, and the mbarriers of the ring.
void writeTmaHelpers(std::ostringstream &out, const WgmmaConfig &config)
{
    out << R"(
// The driver's CUtensorMap (cuda.h is host code): 128 opaque bytes, 64-byte aligned.
struct CUtensorMap_st
{
    alignas(64) unsigned long long opaque[16];
};
typedef struct CUtensorMap_st CUtensorMap;

constexpr int CONSUMERS = WARPGROUPS; // warpgroups that multiply; warpgroup 0 issues the copies
__device__ __forceinline__ void initBarrier(unsigned barrier, int count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(barrier), "r"(count) : "memory");
}
// Waits until the barrier has completed the phase of that parity.
__device__ __forceinline__ void waitBarrier(unsigned barrier, unsigned phase)
{
    asm volatile("{\n.reg .pred done;\nwaiting:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra waiting;\n}\n" ::"r"(barrier),
                 "r"(phase)
                 : "memory");
}
__device__ __forceinline__ void arriveBarrier(unsigned barrier)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(barrier) : "memory");
}
// The producer's arrival, announcing the bytes the copies of the stage will deliver.
__device__ __forceinline__ void expectBytes(unsigned barrier, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(barrier), "r"(bytes) : "memory");
}
// A box of 32 values of k by as many rows as the map's box, at (k0, row0), into a 128-byte-swizzled tile; rows and
// k past the tensor's end arrive as zeros. Completion is counted in bytes on the barrier.
__device__ __forceinline__ void loadTile(unsigned dst, const CUtensorMap *map, int k0, int row0, unsigned barrier)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(map), "r"(k0), "r"(row0), "r"(barrier)
                 : "memory");
}
// The same from a batched operand's map (dims {k, rows, batch}, box {32, rows, 1}): the box of matrix `batch`.
__device__ __forceinline__ void loadTile3(unsigned dst, const CUtensorMap *map, int k0, int row0, int batch,
                                          unsigned barrier)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
                 "l"(map), "r"(k0), "r"(row0), "r"(batch), "r"(barrier)
                 : "memory");
}
)";
    // Registers move from the producer, which needs few, to the warpgroups holding the sums (setmaxnreg). With
    // one consumer the 256 threads have 255 registers each already.
    const int consumers = config.warpgroups();
    if (consumers > 1) {
        const int producerRegisters = 40;
        const int consumerRegisters = std::min(232, (65536 - 128 * producerRegisters) / (128 * consumers) / 8 * 8);
        out << "#define PRODUCER_REGISTERS() asm volatile(\"setmaxnreg.dec.sync.aligned.u32 " << producerRegisters
            << ";\\n\")\n"
            << "#define CONSUMER_REGISTERS() asm volatile(\"setmaxnreg.inc.sync.aligned.u32 " << consumerRegisters
            << ";\\n\")\n";
    } else {
        out << "#define PRODUCER_REGISTERS()\n#define CONSUMER_REGISTERS()\n";
    }
}

// The main kernel with loader Tma: warpgroup 0's first thread issues the copies of every slice into a ring of
// STAGES stages; a stage's full barrier completes when its bytes have landed, its empty barrier when every
// consumer warp has finished the products that read it.
void writeTmaKernel(std::ostringstream &out, const WgmmaConfig &config, const OpRecipe &recipe,
                    const GemmTensors &tensors)
{
    const bool three = config.products == 3;
    // A batched operand's map has the batch as its third dimension; a shared b keeps its 2-D map.
    const auto load = [](const std::string &dst, const char *map, bool batchedOperand, const char *row0) {
        return std::string(16, ' ') + (batchedOperand ? "loadTile3(" : "loadTile(") + dst + ", &" + map + ", s * BK, "
               + row0 + (batchedOperand ? ", batch" : "") + ", full);\n";
    };
    out << R"(
// The maps name the operands as [rows, k] (k contiguous): a, or its padded TF32 copy; b as [n, k], or its copy)"
        << (config.batched ? std::string(";\n// batched, they are [batch, rows, k]")
                                 + (config.batchedB ? "" : " (b is shared: [n, k])") + ", and blockIdx.y is the batch"
                           : "")
        << R"(.
extern "C" __global__ void __launch_bounds__()"
        << config.threads() << R"(, 1)
gemm_wgmma_kernel(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, )"
        << (three ? "const __grid_constant__ CUtensorMap mapASmall, const __grid_constant__ CUtensorMap mapBSmall, "
                  : "")
        << extraParameters(tensors) << "float *__restrict__ " << tensors.out->name << R"(, int M, int N, int K)
{
    extern __shared__ unsigned char shared[];
    __shared__ __align__(8) u64 fullBarrier[STAGES], emptyBarrier[STAGES];
    const unsigned base = (sharedAddress(shared) + 1023) & ~1023u;
    const int lane = threadIdx.x % 32, warp = threadIdx.x % 128 / 32;
)" << kTileOrder
        << R"(    const int slices = (K + BK - 1) / BK;
)";
    if (config.batched)
        out << "    // This block's matrix: the maps take it as a coordinate, the output"
            << (tensors.epilogueInputs.empty() ? " moves" : " and the epilogue inputs move") << " to it.\n"
            << "    const int batch = blockIdx.y;\n"
            << batchOutputOffsets(recipe, tensors, "batch", "    ");
    out << R"(    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            initBarrier(sharedAddress(&fullBarrier[s]), 1);
            initBarrier(sharedAddress(&emptyBarrier[s]), CONSUMERS * 4);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); // the copy engine sees the barriers
    }
    __syncthreads();

    if (threadIdx.x < 128) {
        PRODUCER_REGISTERS();
        if (threadIdx.x == 0)
            for (int s = 0; s < slices; ++s) {
                const int slot = s % STAGES;
                // The stage's previous slice (s - STAGES) must have been read by every consumer warp.
                if (s >= STAGES)
                    waitBarrier(sharedAddress(&emptyBarrier[slot]), (s / STAGES - 1) & 1);
                const unsigned stage = base + slot * STAGE_BYTES, full = sharedAddress(&fullBarrier[slot]);
                expectBytes(full, STAGE_BYTES);
)";
    out << load("stage", "mapA", config.batched, "rowBase")
        << load("stage + A_TILE_BYTES", "mapB", config.batchedB, "colBase");
    if (three)
        out << load("stage + A_TILE_BYTES + B_TILE_BYTES", "mapASmall", config.batched, "rowBase")
            << load("stage + 2 * A_TILE_BYTES + B_TILE_BYTES", "mapBSmall", config.batchedB, "colBase");
    out << R"(            }
        return;
    }
    CONSUMER_REGISTERS();
    const int warpgroup = threadIdx.x / 128 - 1; // among the consumers
    float acc[SUMS];
#pragma unroll
    for (int e = 0; e < SUMS; ++e)
        acc[e] = 0.0f;
)" << (three ? "    float part[SUMS];\n" : "")
        << R"(    for (int s = 0; s < slices; ++s) {
        const int slot = s % STAGES;
        waitBarrier(sharedAddress(&fullBarrier[slot]), (s / STAGES) & 1);
        const unsigned stage = base + slot * STAGE_BYTES;
)";
    writeSliceProducts(out, three);
    if (three)
        out << R"(        wgmmaWait<0>();
        keepSums(part);
        if (lane == 0)
            arriveBarrier(sharedAddress(&emptyBarrier[slot]));
#pragma unroll
        for (int e = 0; e < SUMS; ++e)
            acc[e] += part[e];
    }
)";
    else
        out << R"(        // This slice's products keep running; the previous slice's are done, and its stage goes back to the
        // producer.
        wgmmaWait<1>();
        if (s > 0 && lane == 0)
            arriveBarrier(sharedAddress(&emptyBarrier[(s - 1) % STAGES]));
    }
    wgmmaWait<0>();
    keepSums(acc);
)";
    writeRegisterEpilogue(out, tensors);
}

} // namespace

const std::set<std::string> &wgmmaReservedNames()
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
                                                              "CONSUMERS",
                                                              "CUtensorMap",
                                                              "CUtensorMap_st",
                                                              "initBarrier",
                                                              "waitBarrier",
                                                              "arriveBarrier",
                                                              "expectBytes",
                                                              "loadTile",
                                                              "loadTile3",
                                                              "fullBarrier",
                                                              "emptyBarrier",
                                                              "mapA",
                                                              "mapB",
                                                              "mapASmall",
                                                              "mapBSmall",
                                                              "slot",
                                                              "phase",
                                                              "consumer",
                                                              "slices",
                                                              "ROWS"});
    return names;
}

void writeWgmmaSplitKernels(std::ostringstream &out, const WgmmaConfig &config)
{
    const bool three = config.products == 3;
    const std::string smallParameter = three ? "float *__restrict__ small, " : "";
    const auto moveCopies = [&](const std::string &matrix, const std::string &elements) {
        return "    big += (size_t)" + matrix + " * " + elements + ";\n"
               + (three ? "    small += (size_t)" + matrix + " * " + elements + ";\n" : std::string());
    };
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
        << kWgmmaSplitItems << R"( neighbouring values of a padded row (colsPadded is a multiple of 32); blockIdx.y is
// the matrix of a batch, each padded on its own.
extern "C" __global__ void __launch_bounds__()"
        << kWgmmaSplitBlock << R"()
split_rows_kernel(const float *__restrict__ src, float *__restrict__ big, )"
        << smallParameter << R"(int rows, int cols, int rowsPadded, int colsPadded)
{
    src += (size_t)blockIdx.y * rows * cols;
)" << moveCopies("blockIdx.y", "rowsPadded * colsPadded")
        << R"(
    const long long first = ((long long)blockIdx.x * )"
        << kWgmmaSplitBlock << " + threadIdx.x) * " << kWgmmaSplitItems << R"(;
    if (first >= (long long)rowsPadded * colsPadded)
        return;
    const int r = (int)(first / colsPadded), c = (int)(first % colsPadded);
#pragma unroll
    for (int e = 0; e < )"
        << kWgmmaSplitItems << R"(; ++e) {
        const long long i = first + e;
        const float v = r < rows && c + e < cols ? src[(size_t)r * cols + c + e] : 0.0f;
        const unsigned hi = tf32(v);
)" << store
        << R"(    }
}

// The same for a row-major [kRows, nCols] matrix (b as [k, n], or a transposed a as [k, m]), written transposed:
// [outRows, outCols] = [nCols, k] padded, so that k is contiguous as wgmma's TF32 operands need. 32 x 32 tiles
// through shared memory keep both the reads and the writes coalesced; blockIdx.z is the matrix of a batch.
extern "C" __global__ void __launch_bounds__(256)
split_transposed_kernel(const float *__restrict__ src, float *__restrict__ big, )"
        << smallParameter << R"(int kRows, int nCols, int outRows, int outCols)
{
    src += (size_t)blockIdx.z * kRows * nCols;
)" << moveCopies("blockIdx.z", "outRows * outCols")
        << R"(
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

void writeWgmmaMainKernel(std::ostringstream &out, const WgmmaConfig &config, const OpRecipe &recipe,
                          const GemmTensors &tensors)
{
    writeConstants(out, config);
    writeAsyncHelpers(out);
    writeWgmma(out, config);
    writeEpilogueFunction(out, recipe, tensors);
    if (config.loader == WgmmaLoader::Tma) {
        writeTmaHelpers(out, config);
        writeTmaKernel(out, config, recipe, tensors);
    } else {
        writeCpAsyncKernel(out, config, tensors);
    }
}

} // namespace kx::gemm
