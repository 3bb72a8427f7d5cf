#pragma once

#include <csignal>
#include <stop_token>
#include <thread>

namespace kx::cli {

/// Ctrl-C as a request to stop gracefully: while an InterruptGuard lives, SIGINT no longer ends kx but sets
/// interrupted(), and stopToken() is stopped a moment later (for work that takes a stop token, such as a
/// compile). Commands then finish what they must and exit with Interrupted (130). One guard at a time.
class InterruptGuard
{
public:
    InterruptGuard();
    ~InterruptGuard();
    InterruptGuard(const InterruptGuard &) = delete;
    InterruptGuard &operator=(const InterruptGuard &) = delete;

    bool interrupted() const;
    std::stop_token stopToken() const { return m_stop.get_token(); }

private:
    struct sigaction m_previous = {};
    std::stop_source m_stop;
    std::jthread m_watcher;
};

} // namespace kx::cli
