#include "core/gpu/cudaerror.h"

namespace kx {

CudaFailure::CudaFailure(cudaError_t code, const std::string &context)
    : std::runtime_error(context + ": " + cudaErrorText(code))
    , m_code(code)
{}

void checkCuda(cudaError_t code, const std::string &context)
{
    if (code != cudaSuccess)
        throw CudaFailure(code, context);
}

std::string cudaErrorText(cudaError_t code)
{
    return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

bool isStickyError(cudaError_t code)
{
    switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed: return true;
    default: return false;
    }
}

bool cudaContextUsable()
{
    (void)cudaGetLastError(); // reading a non-sticky error clears it
    if (cudaDeviceSynchronize() != cudaSuccess)
        return false;
    // A sticky error is reported again by every call; creating an event is a cheap one that needs the context.
    cudaEvent_t probe = nullptr;
    if (cudaEventCreate(&probe) != cudaSuccess)
        return false;
    cudaEventDestroy(probe);
    return cudaGetLastError() == cudaSuccess;
}

} // namespace kx
