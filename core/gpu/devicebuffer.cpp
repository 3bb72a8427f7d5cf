#include "core/gpu/devicebuffer.h"

#include "core/gpu/cudaerror.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace kx {
namespace {
constexpr unsigned char kGuardByte = 0xA5;
}

DeviceBuffer::DeviceBuffer(std::int64_t bytes)
    : m_bytes(bytes)
{
    checkCuda(cudaMalloc(&m_data, std::size_t(bytes + kGuardBytes)),
              "allocating " + std::to_string(bytes) + " bytes of device memory");
}

DeviceBuffer::~DeviceBuffer()
{
    release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0))
{}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept
{
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
    }
    return *this;
}

void DeviceBuffer::release()
{
    if (m_data)
        cudaFree(m_data); // fails after a sticky error; the process exits then anyway
    m_data = nullptr;
}

void DeviceBuffer::fill(unsigned char byte) const
{
    checkCuda(cudaMemset(m_data, byte, std::size_t(m_bytes)), "filling a device buffer");
}

void DeviceBuffer::copyFrom(const DeviceBuffer &source) const
{
    checkCuda(cudaMemcpy(m_data, source.m_data, std::size_t(std::min(m_bytes, source.m_bytes)),
                         cudaMemcpyDeviceToDevice),
              "copying a device buffer");
}

void DeviceBuffer::armGuard() const
{
    checkCuda(cudaMemset(static_cast<char *>(m_data) + m_bytes, kGuardByte, std::size_t(kGuardBytes)),
              "writing a guard zone");
}

bool DeviceBuffer::guardIntact() const
{
    std::vector<unsigned char> guard(std::size_t(kGuardBytes), 0);
    checkCuda(cudaMemcpy(guard.data(), static_cast<const char *>(m_data) + m_bytes, guard.size(),
                         cudaMemcpyDeviceToHost),
              "reading a guard zone");
    return std::all_of(guard.begin(), guard.end(), [](unsigned char byte) { return byte == kGuardByte; });
}

} // namespace kx
