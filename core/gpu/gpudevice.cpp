#include "core/gpu/gpudevice.h"

#include "core/gpu/cudaerror.h"
#include "core/gpu/devicebuffer.h"
#include "core/gpu/gpuarchitecture.h"
#include "core/gpu/tensorops.h"

#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <regex>

namespace kx {
namespace {

std::string versionText(int packed)
{
    return std::to_string(packed / 1000) + "." + std::to_string(packed % 1000 / 10);
}

std::string uuidText(const cudaUUID_t &uuid)
{
    std::string text = "GPU-";
    char hex[3];
    for (int i = 0; i < 16; ++i) {
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
        text += hex;
        if (i == 3 || i == 5 || i == 7 || i == 9)
            text += '-';
    }
    return text;
}

// The kernel module's version (e.g. "580.82.07") says more than the CUDA version the driver supports.
std::string kernelDriverVersion()
{
    std::ifstream file("/proc/driver/nvidia/version");
    std::string line;
    if (!file || !std::getline(file, line))
        return {};
    std::smatch match;
    if (std::regex_search(line, match, std::regex(R"(\s(\d+\.\d+(\.\d+)?)\s)")))
        return match[1];
    return {};
}

int attribute(cudaDeviceAttr attr, int device)
{
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return value;
}

} // namespace

Expected<GpuDevice> GpuDevice::open(int device)
{
    // Each failure here means that this GPU cannot be used.
    int count = 0;
    if (const auto error = cudaGetDeviceCount(&count); error != cudaSuccess) {
        (void)cudaGetLastError();
        return Error::noGpu("no GPU: " + cudaErrorText(error));
    }
    if (count == 0)
        return Error::noGpu("no GPU: no CUDA device present");
    if (device < 0 || device >= count)
        return Error::noGpu("no GPU: device " + std::to_string(device) + " requested, " + std::to_string(count)
                            + " present");
    if (const auto error = cudaSetDevice(device); error != cudaSuccess)
        return Error::noGpu("cannot use GPU " + std::to_string(device) + ": " + cudaErrorText(error));
    if (const auto error = cudaFree(nullptr); error != cudaSuccess) // creates the primary context now
        return Error::noGpu("cannot create a CUDA context on GPU " + std::to_string(device) + ": "
                            + cudaErrorText(error));

    cudaDeviceProp props{};
    if (const auto error = cudaGetDeviceProperties(&props, device); error != cudaSuccess)
        return Error::noGpu("cannot query GPU " + std::to_string(device) + ": " + cudaErrorText(error));

    GpuDevice gpu;
    gpu.m_index = device;
    GpuInfo &info = gpu.m_info;
    info.name = props.name;
    info.uuid = uuidText(props.uuid);
    info.computeCapability = std::to_string(props.major) + "." + std::to_string(props.minor);
    info.smCount = props.multiProcessorCount;
    info.memoryBytes = std::int64_t(props.totalGlobalMem);
    info.l2Bytes = props.l2CacheSize;
    info.smClockMHz = attribute(cudaDevAttrClockRate, device) / 1000;
    info.memoryClockMHz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;

    int driver = 0;
    cudaDriverGetVersion(&driver);
    const auto module = kernelDriverVersion();
    info.driverVersion = module.empty() ? versionText(driver) : module + " (CUDA " + versionText(driver) + ")";
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    info.cudaRuntimeVersion = versionText(runtime);
    int nvrtcMajor = 0;
    int nvrtcMinor = 0;
    if (nvrtcVersion(&nvrtcMajor, &nvrtcMinor) == NVRTC_SUCCESS)
        info.nvrtcVersion = std::to_string(nvrtcMajor) + "." + std::to_string(nvrtcMinor);
    info.torchVersion = TensorOps::torchVersion();
    info.peakTflops = peakFp32Tflops(props.major, props.minor, info.smCount, info.smClockMHz);

    DeviceLimits &limits = gpu.m_limits;
    limits.maxThreadsPerBlock = props.maxThreadsPerBlock;
    limits.maxBlockDim = {props.maxThreadsDim[0], props.maxThreadsDim[1], props.maxThreadsDim[2]};
    limits.maxGridDim = {props.maxGridSize[0], props.maxGridSize[1], props.maxGridSize[2]};
    limits.maxDynamicSharedBytes = std::int64_t(props.sharedMemPerBlockOptin);
    limits.computeCapability = props.major * 10 + props.minor; // clusters and tensor maps need 90 or more
    // Scratch may take a quarter of the device: the harness needs the rest for inputs, outputs and copies.
    limits.maxScratchBytes = info.memoryBytes / 4;
    return gpu;
}

double GpuDevice::measureCopyBandwidthGBs(std::int64_t bytes, int repeats) const
{
    DeviceBuffer source(bytes);
    DeviceBuffer target(bytes);
    source.fill(1);
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    checkCuda(cudaEventCreate(&start), "creating an event");
    checkCuda(cudaEventCreate(&stop), "creating an event");
    float best = 0;
    for (int i = 0; i <= repeats; ++i) { // the first copy warms up and is not counted
        checkCuda(cudaEventRecord(start), "recording an event");
        checkCuda(cudaMemcpyAsync(target.data(), source.data(), std::size_t(bytes), cudaMemcpyDeviceToDevice),
                  "bandwidth copy");
        checkCuda(cudaEventRecord(stop), "recording an event");
        checkCuda(cudaEventSynchronize(stop), "bandwidth copy");
        float ms = 0;
        checkCuda(cudaEventElapsedTime(&ms, start, stop), "reading an event");
        if (i > 0 && (best == 0 || ms < best))
            best = ms;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return best > 0 ? 2.0 * double(bytes) / (double(best) * 1e6) : 0;
}

} // namespace kx
