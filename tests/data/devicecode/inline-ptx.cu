// Inline PTX of tensor-core and Hopper kernels: mma, wgmma's fences, cp.async, ldmatrix, mbarrier, the copy
// engine (cp.async.bulk.tensor, fence.proxy.async), clusters (special registers, barrier.cluster, mapa,
// ld.shared::cluster), elect.sync and setmaxnreg. Device code: the device-only check lets all of it through.
struct CUtensorMap_st
{
    alignas(64) unsigned long long opaque[16];
};
typedef struct CUtensorMap_st CUtensorMap;

__device__ __forceinline__ unsigned sharedAddress(const void *pointer)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

extern "C" __global__ void __launch_bounds__(128)
    ptx_tour(const __grid_constant__ CUtensorMap map, const float *__restrict__ x, float *__restrict__ out)
{
    __shared__ __align__(1024) float tile[16][32];
    __shared__ __align__(16) unsigned short halves[8 * 16 * 4];
    __shared__ __align__(8) unsigned long long barrier;
    const unsigned bar = sharedAddress(&barrier);

    // cp.async (sm_80) and its groups.
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(sharedAddress(&tile[0][(threadIdx.x % 8) * 4])),
                 "l"(x + (threadIdx.x % 8) * 4)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");

    // ldmatrix and mma.sync (tf32 m16n8k8).
    unsigned a0, a1, a2, a3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(sharedAddress(&halves[(threadIdx.x % 32) * 8])));
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(a0), "r"(a1));

    // wgmma's fences and groups (sm_90a).
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

    // mbarrier and the copy engine.
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(int(sizeof(tile)))
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(sharedAddress(tile)),
                     "l"(&map), "r"(0), "r"(0), "r"(bar)
                     : "memory");
    }
    asm volatile("{\n.reg .pred done;\nwaiting:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
                 "@!done bra waiting;\n}\n" ::"r"(bar)
                 : "memory");

    // Clusters: special registers, the cluster barrier, distributed shared memory.
    unsigned rank, blocks, cluster;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(blocks));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster));
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote)
                 : "r"(sharedAddress(tile)), "r"((rank + 1) % blocks));
    float neighbour;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(neighbour) : "r"(remote) : "memory");

    // elect.sync and setmaxnreg (sm_90a).
    unsigned elected = 0;
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(elected));
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");

    if (elected)
        out[blockIdx.x * 32 + threadIdx.x / 32] = d0 + d1 + d2 + d3 + neighbour + tile[threadIdx.x % 16][0] + cluster;
}
