#include "interrupt.h"

#include <atomic>
#include <chrono>

namespace kx::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int)
{
    g_interrupted = 1;
}

} // namespace

InterruptGuard::InterruptGuard()
{
    g_interrupted = 0;
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &m_previous);
    // A signal handler may only set a flag: this thread turns it into the stop request.
    m_watcher = std::jthread([this](std::stop_token stop) {
        while (!stop.stop_requested()) {
            if (g_interrupted) {
                m_stop.request_stop();
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    });
}

InterruptGuard::~InterruptGuard()
{
    m_watcher.request_stop();
    m_watcher.join();
    ::sigaction(SIGINT, &m_previous, nullptr);
}

bool InterruptGuard::interrupted() const
{
    return g_interrupted != 0;
}

} // namespace kx::cli
