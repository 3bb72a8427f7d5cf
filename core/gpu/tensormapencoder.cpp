#include "core/gpu/tensormapencoder.h"

#include "core/gpu/cudaerror.h"

#include <cuda_runtime_api.h>

#include <mutex>

namespace kx {
namespace {

using EncodeTiled = decltype(&cuTensorMapEncodeTiled);

std::string listText(const std::vector<std::int64_t> &values)
{
    std::string text;
    for (const std::int64_t value : values)
        text += (text.empty() ? "" : ", ") + std::to_string(value);
    return "[" + text + "]";
}

// A driver function through the runtime; nullptr where the driver has none.
void *driverEntry(const char *symbol, std::string &reason)
{
    void *entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    const cudaError_t error = cudaGetDriverEntryPointByVersion(symbol, &entry, 12000, cudaEnableDefault, &found);
#else
    const cudaError_t error = cudaGetDriverEntryPoint(symbol, &entry, cudaEnableDefault, &found);
#endif
    if (error == cudaSuccess && found == cudaDriverEntryPointSuccess && entry)
        return entry;
    (void)cudaGetLastError();
    reason = error != cudaSuccess ? cudaErrorText(error) : std::string("the driver has no ") + symbol;
    return nullptr;
}

// cuTensorMapEncodeTiled, looked up once; nullptr with the reason where the driver has none.
EncodeTiled encoder(std::string &reason)
{
    static std::once_flag once;
    static EncodeTiled function = nullptr;
    static std::string failure;
    std::call_once(once,
                   [] { function = reinterpret_cast<EncodeTiled>(driverEntry("cuTensorMapEncodeTiled", failure)); });
    reason = failure;
    return function;
}

// "CUDA_ERROR_INVALID_VALUE", or the number where the driver cannot name it.
std::string resultText(CUresult result)
{
    using GetErrorName = decltype(&cuGetErrorName);
    std::string reason;
    const char *name = nullptr;
    if (const auto getName = reinterpret_cast<GetErrorName>(driverEntry("cuGetErrorName", reason));
        getName && getName(result, &name) == CUDA_SUCCESS && name)
        return name;
    return "CUresult " + std::to_string(int(result));
}

CUtensorMapDataType dataType(const ResolvedTensorMap &map)
{
    if (map.dtype == "float16")
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (map.dtype == "bfloat16")
        return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    if (map.dtype == "float64")
        return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    if (map.dtype == "int32")
        return CU_TENSOR_MAP_DATA_TYPE_INT32;
    if (map.dtype == "int64")
        return CU_TENSOR_MAP_DATA_TYPE_INT64;
    if (map.elementBytes == 1)
        return CU_TENSOR_MAP_DATA_TYPE_UINT8; // bool, int8, uint8: the copy engine only moves the bytes
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMapSwizzle swizzle(int bytes)
{
    switch (bytes) {
    case 32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128: return CU_TENSOR_MAP_SWIZZLE_128B;
    default: return CU_TENSOR_MAP_SWIZZLE_NONE;
    }
}

} // namespace

CUtensorMap encodeTensorMap(const ResolvedTensorMap &map, void *address, const std::string &label)
{
    const std::string what = label + ": encoding the tensor map (dims " + listText(map.dims) + ", box "
                             + listText(map.box) + ", " + map.dtype + ", swizzle "
                             + (map.swizzleBytes ? std::to_string(map.swizzleBytes) + "B" : std::string("none")) + ")";
    std::string reason;
    const EncodeTiled encode = encoder(reason);
    if (!encode)
        throw CudaFailure(cudaErrorNotSupported, what + ": " + reason);
    const auto rank = cuuint32_t(map.dims.size());
    if (rank < 1 || rank > 5 || map.box.size() != rank || map.strides.size() + 1 != rank)
        throw CudaFailure(cudaErrorInvalidValue, what + ": the resolved map is inconsistent");
    cuuint64_t dims[5]{};
    cuuint64_t strides[4]{};
    cuuint32_t box[5]{};
    cuuint32_t elementStrides[5]{};
    for (cuuint32_t i = 0; i < rank; ++i) {
        dims[i] = cuuint64_t(map.dims[i]);
        box[i] = cuuint32_t(map.box[i]);
        elementStrides[i] = 1;
        if (i + 1 < rank)
            strides[i] = cuuint64_t(map.strides[i]);
    }
    CUtensorMap encoded{};
    const CUresult result = encode(&encoded, dataType(map), rank, address, dims, strides, box, elementStrides,
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle(map.swizzleBytes),
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        throw CudaFailure(cudaErrorInvalidValue, what + ": the driver refused it (" + resultText(result) + ")");
    return encoded;
}

const CUtensorMap *TensorMapCache::get(std::size_t step, std::size_t arg, const ResolvedTensorMap &map, void *address,
                                       const std::string &label)
{
    Encoded &entry = m_maps[{step, arg}];
    if (entry.address != address || address == nullptr) {
        entry.map = encodeTensorMap(map, address, label);
        entry.address = address;
    }
    return &entry.map;
}

} // namespace kx
