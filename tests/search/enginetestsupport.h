#pragma once

// What the search engine suites share: an event log, stop conditions and settings, and reading a run's lineage
// back from its archive.
#include "fakesearch.h"

#include "core/archive/archive.h"
#include "core/search/searchengine.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kx::test {

struct EventLog
{
    std::mutex mutex;
    std::vector<SearchEvent> events;
    SearchEventSink sink()
    {
        return [this](const SearchEvent &event) {
            std::lock_guard lock(mutex);
            events.push_back(event);
        };
    }
    int count(SearchEvent::Kind kind)
    {
        std::lock_guard lock(mutex);
        return int(std::count_if(events.begin(), events.end(), [kind](const auto &e) { return e.kind == kind; }));
    }
};

inline std::vector<std::unique_ptr<StopCondition>> generations(int count)
{
    std::vector<std::unique_ptr<StopCondition>> stops;
    stops.push_back(makeGenerationLimit(count));
    return stops;
}

inline SearchSettings settingsWithSeed(std::uint64_t seed)
{
    SearchSettings settings;
    settings.seed = seed;
    settings.childrenPerGeneration = 4;
    settings.budget.generations = 0; // each test names its own stop condition
    return settings;
}

inline std::unique_ptr<Archive> openArchive(const std::string &path)
{
    auto archive = Archive::open(path);
    REQUIRE_MESSAGE(archive, (archive ? "" : archive.error().message));
    return std::move(*archive);
}

inline std::vector<std::string> lineageIds(const std::string &path, std::int64_t runId)
{
    std::vector<std::string> ids;
    for (const auto &candidate : openArchive(path)->candidatesOfRun(runId))
        ids.push_back(candidate.id);
    return ids;
}

// Runs a search of the fake op with the fake proposer and evaluator; returns its lineage.
inline std::vector<std::string> runSearch(const std::string &path, std::uint64_t seed, int generationCount)
{
    SearchEngine engine(path, std::make_unique<FakeProposer>(), std::make_shared<FakeEvaluator>(),
                        settingsWithSeed(seed), generations(generationCount));
    const auto run = engine.start(fakeOp());
    REQUIRE_MESSAGE(run, (run ? "" : run.error().message));
    engine.wait();
    return lineageIds(path, *run);
}

} // namespace kx::test
