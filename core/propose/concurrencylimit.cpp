#include "core/propose/concurrencylimit.h"

#include <algorithm>

namespace kx {

ConcurrencyLimit::ConcurrencyLimit(int slots)
    : m_available(std::max(1, slots))
{}

bool ConcurrencyLimit::acquire(std::stop_token stop)
{
    std::unique_lock lock(m_mutex);
    if (!m_freed.wait(lock, stop, [this] { return m_available > 0; }))
        return false;
    --m_available;
    return true;
}

void ConcurrencyLimit::release()
{
    {
        std::lock_guard lock(m_mutex);
        ++m_available;
    }
    m_freed.notify_one();
}

int ConcurrencyLimit::available() const
{
    std::lock_guard lock(m_mutex);
    return m_available;
}

ConcurrencySlot::ConcurrencySlot(ConcurrencyLimit *limit, std::stop_token stop)
    : m_limit(limit)
{
    m_acquired = !m_limit || m_limit->acquire(std::move(stop));
}

ConcurrencySlot::~ConcurrencySlot()
{
    if (m_limit && m_acquired)
        m_limit->release();
}

} // namespace kx
