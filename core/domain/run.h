#pragma once

#include <cstdint>
#include <string>

namespace kx {

enum class RunState { Created, Running, Paused, Finished, Cancelled, Failed };

/// One search on one op.
struct Run
{
    std::int64_t id = 0; ///< Archive row id.
    std::string uid;     ///< Stable identity across archives (export/import).
    std::string opName;
    std::uint64_t seed = 0;
    std::string settings;    ///< JSON: proposer, budget, GPUs ...
    std::string environment; ///< JSON: GPU, driver, CUDA, LibTorch versions.
    RunState state = RunState::Created;
    std::int64_t createdAtMs = 0;
    std::int64_t updatedAtMs = 0;

    bool operator==(const Run &) const = default;
};

const char *toString(RunState state);
RunState runStateFromString(const std::string &text); ///< Throws std::invalid_argument.

} // namespace kx
