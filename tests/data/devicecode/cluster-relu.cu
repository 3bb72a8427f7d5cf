// ReLU in clusters of two blocks that swap halves through distributed shared memory: each block stages ReLU of
// its 256 elements in its own shared memory, and after the cluster barrier writes its partner's (mapa +
// ld.shared::cluster). Block roles come from %cluster_ctarank and %clusterid, not from blockIdx.
// Plan: {"input": "x"}, {"output": "out"}, {"int": "N"}; grid [2 * ceil_div(N, 512)], block [256], cluster [2].
constexpr int kThreads = 256;

__device__ __forceinline__ unsigned specialRank()
{
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

__device__ __forceinline__ unsigned specialClusterId()
{
    unsigned id;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    return id;
}

__device__ __forceinline__ void clusterSync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}

// The value at the same shared address in block rank's shared memory.
__device__ __forceinline__ float loadFromBlock(const float *local, unsigned rank)
{
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(local));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    float value;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(value) : "r"(remote) : "memory");
    return value;
}

extern "C" __global__ void __launch_bounds__(kThreads)
    cluster_relu(const float *__restrict__ x, float *__restrict__ out, int n)
{
    __shared__ float staged[kThreads];
    const unsigned rank = specialRank();
    const long long pair = static_cast<long long>(specialClusterId()) * 2 * kThreads;
    const long long mine = pair + rank * kThreads + threadIdx.x;
    staged[threadIdx.x] = mine < n ? fmaxf(x[mine], 0.0f) : 0.0f;
    clusterSync(); // every block has staged its half
    const unsigned partner = rank ^ 1u;
    const long long theirs = pair + partner * kThreads + threadIdx.x;
    const float value = loadFromBlock(&staged[threadIdx.x], partner);
    if (theirs < n)
        out[theirs] = value;
    clusterSync(); // no block leaves while its partner still reads its shared memory
}
