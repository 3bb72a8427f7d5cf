#pragma once

#include "core/baseline/inductorpackager.h"

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kx {

/**
 * Builds the Inductor packages of a list of ops in the background, several at once and in list order, while the
 * caller goes through the same list: waitFor(i) returns once op i's build has ended, so the first search starts
 * after one build instead of after all of them, and a run cut short keeps what it finished. A build that ran out
 * of GPU memory beside the others is tried once more alone, after every other build has ended.
 */
class PackageBuildQueue
{
public:
    using Build = std::function<InductorPreparation(std::size_t index)>;

    /// Starts `jobs` builder threads (at least one) over indices 0 .. count-1.
    PackageBuildQueue(std::size_t count, int jobs, Build build);
    /// Waits for the builds under way; those not started are dropped.
    ~PackageBuildQueue();
    PackageBuildQueue(const PackageBuildQueue &) = delete;
    PackageBuildQueue &operator=(const PackageBuildQueue &) = delete;

    /// Blocks until the build of `index` has ended (retried alone first where it ran out of memory); its result.
    InductorPreparation waitFor(std::size_t index);

private:
    enum class State { Waiting, Building, Done, OutOfMemory };
    void buildLoop();

    Build m_build;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<State> m_states;
    std::vector<InductorPreparation> m_results;
    std::size_t m_next = 0;
    int m_building = 0;
    bool m_paused = false; // A retry runs alone: no build starts meanwhile.
    bool m_stopping = false;
    std::vector<std::jthread> m_builders;
};

} // namespace kx
