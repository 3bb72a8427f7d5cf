#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>
#include <torch/extension.h>

#include <cstdint>
#include <vector>

namespace {

// The plan's expression language: integer arithmetic with min, max and ceil_div.
inline int64_t min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
inline int64_t max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

unsigned int dim(int64_t value)
{
    TORCH_CHECK(value > 0 && value <= INT64_C(2147483647), "launch dimension out of range: ", value);
    return static_cast<unsigned int>(value);
}

void check(cudaError_t error, const char *kernel)
{
    TORCH_CHECK(error == cudaSuccess, "launching ", kernel, " failed: ", cudaGetErrorString(error));
}

} // namespace
