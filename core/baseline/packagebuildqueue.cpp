#include "core/baseline/packagebuildqueue.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace kx {

PackageBuildQueue::PackageBuildQueue(std::size_t count, int jobs, Build build)
    : m_build(std::move(build))
    , m_jobs(std::size_t(std::max(jobs, 1)))
    , m_results(count)
{}

InductorPreparation PackageBuildQueue::waitFor(std::size_t index)
{
    if (index >= m_results.size())
        return {};
    if (!m_results[index])
        buildBatch(index);
    return *m_results[index];
}

void PackageBuildQueue::buildBatch(std::size_t first)
{
    std::vector<std::size_t> batch;
    for (std::size_t i = first; i < m_results.size() && batch.size() < m_jobs; ++i)
        if (!m_results[i])
            batch.push_back(i);
    std::atomic<std::size_t> next = 0;
    {
        std::vector<std::jthread> builders;
        for (std::size_t t = 0; t < batch.size(); ++t)
            builders.emplace_back([&] {
                for (std::size_t k = next++; k < batch.size(); k = next++)
                    m_results[batch[k]] = m_build(batch[k]);
            });
    }
    // The second chance of a build that ran out of memory beside the others: alone, and its answer stands.
    for (const std::size_t i : batch)
        if (m_results[i]->outOfMemory)
            m_results[i] = m_build(i);
}

} // namespace kx
