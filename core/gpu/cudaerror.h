#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace kx {

/// A failed CUDA runtime call inside core/gpu; the evaluator turns it into LaunchError or Fault.
class CudaFailure : public std::runtime_error
{
public:
    CudaFailure(cudaError_t code, const std::string &context);
    cudaError_t code() const { return m_code; }

private:
    cudaError_t m_code;
};

/// Throws CudaFailure when code is not cudaSuccess; context says what was being done.
void checkCuda(cudaError_t code, const std::string &context);

/// "cudaErrorIllegalAddress: an illegal memory access was encountered"
std::string cudaErrorText(cudaError_t code);

/// Errors that leave the CUDA context unusable: the process must exit to get a new one.
bool isStickyError(cudaError_t code);

/// After a failure: clears a non-sticky error and tells whether the context still runs work.
bool cudaContextUsable();

} // namespace kx
