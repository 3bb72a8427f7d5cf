#include "ui/common/cudalexer.h"

#include <QByteArray>

namespace kx::ui {

namespace {

// Qualifiers and keywords CUDA adds to C++.
const char kCudaKeywords[] =
    " __global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__ __forceinline__"
    " __noinline__ __launch_bounds__ __grid_constant__ __align__ __builtin_assume_aligned"
    " constexpr nullptr static_assert decltype noexcept alignas alignof char16_t char32_t thread_local"
    " override final";

// Built-in variables, synchronisation, warp primitives, atomics and fast-math intrinsics.
const char kCudaBuiltins[] =
    "threadIdx blockIdx blockDim gridDim warpSize"
    " __syncthreads __syncthreads_count __syncthreads_and __syncthreads_or __syncwarp __threadfence"
    " __threadfence_block __threadfence_system"
    " __shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync __ballot_sync __any_sync __all_sync"
    " __activemask __match_any_sync __match_all_sync __reduce_add_sync __reduce_min_sync __reduce_max_sync"
    " atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd atomicOr"
    " atomicXor __ldg __ldcg __ldca __ldcs __stcg __stcs __popc __clz __ffs __brev __funnelshift_l"
    " __funnelshift_r __fmaf_rn __fmul_rn __fadd_rn __fdividef __frcp_rn __fsqrt_rn __expf __exp10f __logf"
    " __log2f __sinf __cosf __tanf __powf __saturatef __float2half __half2float __float2bfloat16"
    " __bfloat162float __hadd __hmul __hfma __hmax __hmin fmaf fmaxf fminf expf exp2f logf log2f sqrtf"
    " rsqrtf tanhf erff fabsf ceilf floorf roundf truncf powf sinf cosf max min"
    " __cvta_generic_to_shared __pipeline_memcpy_async __pipeline_commit __pipeline_wait_prior"
    " __nanosleep clock clock64 printf";

// Vector and reduced-precision types.
const char kCudaTypes[] =
    "dim3 char1 char2 char3 char4 uchar1 uchar2 uchar3 uchar4 short1 short2 short3 short4 ushort1 ushort2"
    " ushort3 ushort4 int1 int2 int3 int4 uint1 uint2 uint3 uint4 long1 long2 long3 long4 ulong1 ulong2"
    " ulong3 ulong4 longlong1 longlong2 longlong3 longlong4 float1 float2 float3 float4 double1 double2"
    " double3 double4 half half2 __half __half2 __nv_bfloat16 __nv_bfloat162 nv_bfloat16 nv_bfloat162"
    " size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t";

} // namespace

CudaLexer::CudaLexer(QObject *parent)
    : QsciLexerCPP(parent)
{}

const char *CudaLexer::language() const
{
    return "CUDA";
}

const char *CudaLexer::keywords(int set) const
{
    static const QByteArray primary = QByteArray(QsciLexerCPP::keywords(1)) + kCudaKeywords;
    switch (set) {
    case 1: return primary.constData();
    case 2: return kCudaBuiltins;
    case 4: return kCudaTypes;
    default: return QsciLexerCPP::keywords(set);
    }
}

QColor CudaLexer::defaultColor(int style) const
{
    // The C++ lexer leaves these styles black; borrow colours from its own scheme so they stand out.
    switch (style) {
    case KeywordSet2: return QsciLexerCPP::defaultColor(CommentDocKeyword);
    case GlobalClass: return QsciLexerCPP::defaultColor(Number);
    default: return QsciLexerCPP::defaultColor(style);
    }
}

QFont CudaLexer::defaultFont(int style) const
{
    QFont font = QsciLexerCPP::defaultFont(style);
    if (style == KeywordSet2)
        font.setBold(true);
    return font;
}

QString CudaLexer::description(int style) const
{
    switch (style) {
    case KeywordSet2: return tr("CUDA built-ins and intrinsics");
    case GlobalClass: return tr("CUDA vector and scalar types");
    default: return QsciLexerCPP::description(style);
    }
}

} // namespace kx::ui
