#include "core/gpu/cudamodule.h"

#include "core/gpu/cudaerror.h"

namespace kx {

CudaModule::CudaModule(const std::string &image)
{
    if (image.empty())
        throw CudaFailure(cudaErrorInvalidValue, "loading the candidate's code: the request carries no cubin");
    // PTX must be NUL-terminated; a std::string's buffer always is, and cubins ignore it.
    checkCuda(cudaLibraryLoadData(&m_library, image.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              "loading the candidate's code");
}

CudaModule::~CudaModule()
{
    if (m_library)
        cudaLibraryUnload(m_library);
}

const void *CudaModule::kernel(const std::string &name) const
{
    cudaKernel_t kernel = nullptr;
    if (cudaLibraryGetKernel(&kernel, m_library, name.c_str()) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return reinterpret_cast<const void *>(kernel);
}

std::vector<std::size_t> CudaModule::parameterSizes(const void *kernel)
{
    std::vector<std::size_t> sizes;
    // The count is where the query starts failing: the runtime has no direct parameter count.
    for (std::size_t index = 0; index < 4096; ++index) {
        std::size_t offset = 0;
        std::size_t size = 0;
        if (cudaFuncGetParamInfo(kernel, index, &offset, &size) != cudaSuccess) {
            (void)cudaGetLastError();
            break;
        }
        sizes.push_back(size);
    }
    return sizes;
}

} // namespace kx
