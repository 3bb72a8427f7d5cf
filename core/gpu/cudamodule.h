#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace kx {

/// A candidate's compiled code loaded into the current context (cudaLibraryLoadData), unloaded on destruction.
class CudaModule
{
public:
    /// Loads a cubin (or fatbin, or PTX). Throws CudaFailure.
    explicit CudaModule(const std::string &image);
    ~CudaModule();
    CudaModule(const CudaModule &) = delete;
    CudaModule &operator=(const CudaModule &) = delete;

    /// The kernel's handle for cudaLaunchKernel, or nullptr when the image has no such extern "C" kernel.
    const void *kernel(const std::string &name) const;

    /// Sizes in bytes of the kernel's parameters, as the compiled code lays them out.
    static std::vector<std::size_t> parameterSizes(const void *kernel);

private:
    cudaLibrary_t m_library = nullptr;
};

} // namespace kx
