#pragma once

// Polls a condition, as QTRY_VERIFY did: for state that another thread or process changes.
#include <chrono>
#include <thread>

namespace kx::test {

/// True as soon as predicate() holds; false when it still does not after timeout.
template <typename Predicate>
bool waitUntil(Predicate predicate, std::chrono::milliseconds timeout = std::chrono::seconds(5))
{
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!predicate()) {
        if (std::chrono::steady_clock::now() >= deadline)
            return predicate();
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

} // namespace kx::test
