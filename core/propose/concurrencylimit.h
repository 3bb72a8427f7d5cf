#pragma once

#include <condition_variable>
#include <mutex>
#include <stop_token>

namespace kx {

/// A counting semaphore whose wait can be cancelled: bounds the model requests in flight across proposers.
class ConcurrencyLimit
{
public:
    explicit ConcurrencyLimit(int slots);

    /// Waits for a free slot; false when stop was requested first.
    bool acquire(std::stop_token stop);
    void release();
    int available() const;

private:
    mutable std::mutex m_mutex;
    std::condition_variable_any m_freed;
    int m_available;
};

/// Holds one slot for its lifetime.
class ConcurrencySlot
{
public:
    ConcurrencySlot(ConcurrencyLimit *limit, std::stop_token stop);
    ~ConcurrencySlot();
    ConcurrencySlot(const ConcurrencySlot &) = delete;
    ConcurrencySlot &operator=(const ConcurrencySlot &) = delete;
    bool acquired() const { return m_acquired; }

private:
    ConcurrencyLimit *m_limit; // Not owned
    bool m_acquired = false;
};

} // namespace kx
