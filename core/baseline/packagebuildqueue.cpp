#include "core/baseline/packagebuildqueue.h"

#include <algorithm>

namespace kx {

PackageBuildQueue::PackageBuildQueue(std::size_t count, int jobs, Build build)
    : m_build(std::move(build))
    , m_states(count, State::Waiting)
    , m_results(count)
{
    const std::size_t threads = std::min<std::size_t>(std::max(jobs, 1), count);
    for (std::size_t i = 0; i < threads; ++i)
        m_builders.emplace_back([this] { buildLoop(); });
}

PackageBuildQueue::~PackageBuildQueue()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_changed.notify_all();
    m_builders.clear(); // Joins: a build under way runs to its end (a child process with its own timeout).
}

void PackageBuildQueue::buildLoop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return m_stopping || !m_paused; });
        if (m_stopping || m_next >= m_states.size())
            return;
        const std::size_t index = m_next++;
        m_states[index] = State::Building;
        ++m_building;
        lock.unlock();
        InductorPreparation result = m_build(index);
        lock.lock();
        --m_building;
        m_states[index] = result.outOfMemory ? State::OutOfMemory : State::Done;
        m_results[index] = std::move(result);
        m_changed.notify_all();
    }
}

InductorPreparation PackageBuildQueue::waitFor(std::size_t index)
{
    std::unique_lock lock(m_mutex);
    if (index >= m_states.size())
        return {};
    m_changed.wait(lock, [&] { return m_states[index] == State::Done || m_states[index] == State::OutOfMemory; });
    if (m_states[index] == State::OutOfMemory) {
        m_paused = true;
        m_changed.wait(lock, [this] { return m_building == 0; });
        m_states[index] = State::Building;
        lock.unlock();
        InductorPreparation result = m_build(index); // Its answer stands, out of memory again or not.
        lock.lock();
        m_states[index] = State::Done;
        m_results[index] = std::move(result);
        m_paused = false;
        m_changed.notify_all();
    }
    return m_results[index];
}

} // namespace kx
