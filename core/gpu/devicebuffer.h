#pragma once

#include <cstdint>

namespace kx {

/**
 * Device memory owned by the evaluator, followed by a guard zone: a byte pattern checked after a
 * candidate ran, to catch writes past the end of a buffer that land in no other allocation.
 */
class DeviceBuffer
{
public:
    static constexpr std::int64_t kGuardBytes = 1024;

    DeviceBuffer() = default;
    explicit DeviceBuffer(std::int64_t bytes);     ///< Throws CudaFailure.
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer &&other) noexcept;
    DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    void *data() const { return m_data; }
    std::int64_t bytes() const { return m_bytes; }

    void fill(unsigned char byte) const;           ///< Every data byte (the guard stays).
    void copyFrom(const DeviceBuffer &source) const;
    void armGuard() const;                         ///< Writes the guard pattern.
    bool guardIntact() const;

private:
    void release();

    void *m_data = nullptr;
    std::int64_t m_bytes = 0;
};

} // namespace kx
