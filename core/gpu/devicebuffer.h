#pragma once

#include <cstdint>
#include <vector>

namespace kx {

/**
 * Device memory owned by the evaluator, followed by a guard zone: bytes checked after a candidate ran, to catch
 * writes past the end of a buffer that land in no other allocation. Each buffer's guard has its own random
 * length (1 to 8 KiB) and random content, so a kernel cannot learn where the guard ends or what to write back.
 */
class DeviceBuffer
{
public:
    static constexpr std::int64_t kMinGuardBytes = 1024;
    static constexpr std::int64_t kMaxGuardBytes = 8192;

    DeviceBuffer() = default;
    explicit DeviceBuffer(std::int64_t bytes); ///< Throws CudaFailure.
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer &&other) noexcept;
    DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    /// Device memory free now on the current device (cudaMemGetInfo); -1 when it cannot be read.
    static std::int64_t freeDeviceBytes();

    void *data() const { return m_data; }
    std::int64_t bytes() const { return m_bytes; }
    std::int64_t guardBytes() const { return std::int64_t(m_guard.size()); }

    void fill(unsigned char byte) const; ///< Every data byte (the guard stays).
    void copyFrom(const DeviceBuffer &source) const;
    void armGuard() const; ///< Writes the guard pattern.
    bool guardIntact() const;

private:
    void release();

    void *m_data = nullptr;
    std::int64_t m_bytes = 0;
    std::vector<unsigned char> m_guard;
};

} // namespace kx
