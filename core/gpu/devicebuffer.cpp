#include "core/gpu/devicebuffer.h"

#include "core/gpu/cudaerror.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kx {
namespace {

// A guard of random length (in steps of 16 bytes) and random content.
std::vector<unsigned char> randomGuard()
{
    static thread_local std::mt19937_64 engine{std::random_device{}()};
    std::uniform_int_distribution<std::int64_t> length(DeviceBuffer::kMinGuardBytes / 16,
                                                       DeviceBuffer::kMaxGuardBytes / 16);
    std::vector<unsigned char> guard(std::size_t(length(engine) * 16));
    for (auto &byte : guard)
        byte = static_cast<unsigned char>(engine());
    return guard;
}

} // namespace

DeviceBuffer::DeviceBuffer(std::int64_t bytes)
    : m_bytes(bytes)
    , m_guard(randomGuard())
{
    checkCuda(cudaMalloc(&m_data, std::size_t(bytes) + m_guard.size()),
              "allocating " + std::to_string(bytes) + " bytes of device memory");
}

std::int64_t DeviceBuffer::freeDeviceBytes()
{
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
        cudaGetLastError(); // not sticky: clear it
        return -1;
    }
    return std::int64_t(free);
}

DeviceBuffer::~DeviceBuffer()
{
    release();
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : m_data(std::exchange(other.m_data, nullptr))
    , m_bytes(std::exchange(other.m_bytes, 0))
    , m_guard(std::move(other.m_guard))
{}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept
{
    if (this != &other) {
        release();
        m_data = std::exchange(other.m_data, nullptr);
        m_bytes = std::exchange(other.m_bytes, 0);
        m_guard = std::move(other.m_guard);
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
    checkCuda(
        cudaMemcpy(m_data, source.m_data, std::size_t(std::min(m_bytes, source.m_bytes)), cudaMemcpyDeviceToDevice),
        "copying a device buffer");
}

void DeviceBuffer::armGuard() const
{
    checkCuda(cudaMemcpy(static_cast<char *>(m_data) + m_bytes, m_guard.data(), m_guard.size(), cudaMemcpyHostToDevice),
              "writing a guard zone");
}

bool DeviceBuffer::guardIntact() const
{
    std::vector<unsigned char> guard(m_guard.size(), 0);
    checkCuda(
        cudaMemcpy(guard.data(), static_cast<const char *>(m_data) + m_bytes, guard.size(), cudaMemcpyDeviceToHost),
        "reading a guard zone");
    return guard == m_guard;
}

} // namespace kx
