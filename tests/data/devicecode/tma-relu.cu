// ReLU over an [R, C] matrix through the copy engine: each block loads a 16 x 32 tile with cp.async.bulk.tensor
// (128B swizzle, completion on an mbarrier), writes it back through a second, unswizzled map with a bulk store.
// Out-of-bounds parts of a box must arrive as zeros: a block that sees anything else poisons its tile with NaN.
// Plan: {"tensorMap": "x", "box": ["32", "16"], "swizzle": "128B"}, {"tensorMap": "out", "box": ["32", "16"]},
// {"int": "R"}, {"int": "C"}; grid [ceil_div(C, 32), ceil_div(R, 16)], block [128].
struct CUtensorMap_st
{
    alignas(64) unsigned long long opaque[16];
};
typedef struct CUtensorMap_st CUtensorMap;

constexpr int kTileCols = 32; // 128 bytes of float: one swizzle span
constexpr int kTileRows = 16;
constexpr int kThreads = 128;

__device__ __forceinline__ unsigned sharedAddress(const void *pointer)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void waitPhase(unsigned barrier, unsigned phase)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "waiting:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra waiting;\n"
                 "}\n" ::"r"(barrier),
                 "r"(phase)
                 : "memory");
}

extern "C" __global__ void __launch_bounds__(kThreads)
    tma_relu(const __grid_constant__ CUtensorMap in, const __grid_constant__ CUtensorMap out, int rows, int cols)
{
    // 128B swizzle needs the tile at a multiple of 1024 bytes: aligned by hand, whatever the static layout.
    __shared__ __align__(128) unsigned char staging[kTileRows * kTileCols * sizeof(float) + 1024];
    __shared__ __align__(128) float result[kTileRows][kTileCols];
    const unsigned stagingAddress = sharedAddress(staging);
    const unsigned tileAddress = (stagingAddress + 1023u) & ~1023u;
    const auto loaded = reinterpret_cast<const float(*)[kTileCols]>(staging + (tileAddress - stagingAddress));
    __shared__ __align__(8) unsigned long long barrier;
    __shared__ int poisoned;
    const int col0 = blockIdx.x * kTileCols;
    const int row0 = blockIdx.y * kTileRows;
    const unsigned bar = sharedAddress(&barrier);
    if (threadIdx.x == 0) {
        poisoned = 0;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // the copy engine sees the initialised barrier
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(int(sizeof(result)))
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(tileAddress),
                     "l"(&in), "r"(col0), "r"(row0), "r"(bar)
                     : "memory");
    }
    __syncthreads();
    waitPhase(bar, 0);

    for (int e = threadIdx.x; e < kTileRows * kTileCols; e += kThreads) {
        const int r = e / kTileCols;
        const int c = e % kTileCols;
        // 128B swizzle: the 16-byte chunk c / 4 of row r sits at chunk (c / 4) ^ (r % 8).
        const float value = loaded[r][(((c / 4) ^ (r % 8)) * 4) + c % 4];
        if ((row0 + r >= rows || col0 + c >= cols) && value != 0.0f)
            atomicExch(&poisoned, 1);
        result[r][c] = fmaxf(value, 0.0f);
    }
    __syncthreads();
    if (poisoned)
        for (int e = threadIdx.x; e < kTileRows * kTileCols; e += kThreads)
            result[e / kTileCols][e % kTileCols] = __int_as_float(0x7fc00000);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // the generic writes, seen by the copy engine
    __syncthreads();
    if (threadIdx.x == 0) {
        // Parts of the box outside the tensor are not written.
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out),
                     "r"(col0), "r"(row0), "r"(sharedAddress(result))
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); // shared memory stays until it is read
    }
}
