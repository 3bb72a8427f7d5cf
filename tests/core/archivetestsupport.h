#pragma once

// What the archive suites share: opening an archive or failing the test, a small op and its candidates, and
// whether SQLite's WAL companion files exist.
#include "core/archive/archive.h"

#include "testfiles.h"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

namespace kx::test {

inline std::unique_ptr<Archive> openOrFail(const std::string &path, ArchiveMode mode = ArchiveMode::ReadWrite)
{
    auto archive = Archive::open(path, mode);
    REQUIRE_MESSAGE(archive, "cannot open archive: " << (archive ? "" : archive.error().message));
    return std::move(*archive);
}

inline Op makeOp(const std::string &name)
{
    Op op;
    op.name = name;
    op.inputs = {TensorSpec{"x", {"N"}, "float32"}};
    op.outputs = {TensorSpec{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 1024}}};
    return op;
}

inline Candidate makeCandidate(const std::string &op, const std::string &source, std::vector<std::string> parents = {})
{
    Candidate candidate;
    candidate.opName = op;
    candidate.source = source;
    candidate.launchPlan = R"({"steps":[]})";
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.parentIds = std::move(parents);
    candidate.origin = candidate.parentIds.empty() ? Origin::Translated : Origin::Mutated;
    return candidate;
}

inline bool hasCompanionFiles(const std::string &path)
{
    return fileExists(path + "-wal") || fileExists(path + "-shm");
}

} // namespace kx::test
