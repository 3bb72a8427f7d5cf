#pragma once

#include "core/search/population.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kx {

class Archive;

/// A run's candidates with the evaluations that run made, as its search engine holds them.
Population loadRunPopulation(const Archive &archive, std::int64_t runId);

/// The kernel a run found best, ranked as its search ranks them (Population::fitness()).
struct RunBest
{
    std::string candidateId;
    std::string gpu;
    double speedup = 0; ///< Over the median eager time the run measured on that GPU.
    double kernelMs = 0;
    Precision precision = Precision::Fp32;
    /// The median of the run's Inductor measurements on that GPU; none when torch.compile was not measured
    /// (inductorNote says why, when a measurement said so).
    std::optional<double> inductorMs;
    std::string inductorNote;

    std::optional<double> speedupOverInductor() const
    {
        return inductorMs && kernelMs > 0 ? std::optional<double>(*inductorMs / kernelMs) : std::nullopt;
    }
};

/// The best breedable kernel of a run, if it has one.
std::optional<RunBest> bestOfRun(const Archive &archive, std::int64_t runId);

} // namespace kx
