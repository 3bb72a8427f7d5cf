#include "core/search/runbest.h"

#include "core/archive/archive.h"

#include <map>

namespace kx {

Population loadRunPopulation(const Archive &archive, std::int64_t runId)
{
    std::map<std::string, int> generations;
    for (const auto &[id, generation] : archive.runGenerations(runId))
        generations[id] = generation;
    Population population;
    for (const auto &candidate : archive.candidatesOfRun(runId)) {
        population.add(candidate, generations[candidate.id]);
        for (const auto &evaluation : archive.evaluations(candidate.id))
            if (evaluation.runId == runId)
                population.setEvaluation(candidate.id, evaluation);
    }
    return population;
}

std::optional<RunBest> bestOfRun(const Archive &archive, std::int64_t runId)
{
    const auto best = loadRunPopulation(archive, runId).best();
    if (!best)
        return std::nullopt;
    RunBest result;
    result.candidateId = best->candidate.id;
    result.gpu = best->evaluation->gpu.name;
    result.speedup = best->fitness;
    result.kernelMs = best->evaluation->timing.medianMs;
    result.precision = best->evaluation->precision;
    std::vector<double> inductor;
    for (const auto &baseline : archive.baselines(runId)) {
        if (baseline.kind != BaselineKind::Inductor || baseline.gpu.name != result.gpu)
            continue;
        if (baseline.usable())
            inductor.push_back(baseline.timing.medianMs);
        else if (result.inductorNote.empty())
            result.inductorNote = baseline.error;
    }
    if (!inductor.empty())
        result.inductorMs = summarize(inductor).medianMs;
    return result;
}

} // namespace kx
