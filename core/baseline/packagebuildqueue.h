#pragma once

#include "core/baseline/inductorpackager.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace kx {

/**
 * Builds the Inductor packages of a list of ops batch by batch, as a caller going through the list asks for them:
 * waitFor(i) of an op not built yet builds it together with the next ones (a batch of `jobs` builds at once, each
 * a CPU-bound Python process) and returns when the batch is done. So the first search starts after one batch
 * instead of after every build, a run cut short keeps what it finished, and no build runs on the GPU while a
 * search is timing there. A build that ran out of GPU memory beside the others is tried once more alone.
 */
class PackageBuildQueue
{
public:
    using Build = std::function<InductorPreparation(std::size_t index)>;

    /// Nothing is built before the first waitFor().
    PackageBuildQueue(std::size_t count, int jobs, Build build);

    /// Op `index`'s preparation, building its batch first where it is not built yet; empty past the list.
    InductorPreparation waitFor(std::size_t index);

private:
    void buildBatch(std::size_t first);

    Build m_build;
    std::size_t m_jobs;
    std::vector<std::optional<InductorPreparation>> m_results;
};

} // namespace kx
