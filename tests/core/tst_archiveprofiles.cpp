// Nsight Compute profiles in the archive: stored and read back, migrated into older archives, exported and imported.
#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/schema.h"

#include "temporarydir.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

std::unique_ptr<Archive> openOrFail(const std::string &path, ArchiveMode mode = ArchiveMode::ReadWrite)
{
    auto archive = Archive::open(path, mode);
    REQUIRE_MESSAGE(archive, (archive ? std::string() : archive.error().message));
    return std::move(*archive);
}

Op reluOp()
{
    Op op;
    op.name = "relu";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"y", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 1024}}};
    op.bytesMovedExpr = "8*N";
    return op;
}

Candidate reluCandidate()
{
    Candidate candidate;
    candidate.opName = "relu";
    candidate.source = "extern \"C\" __global__ void k() {}";
    candidate.launchPlan = "{}";
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.createdAtMs = 10;
    return candidate;
}

GpuInfo h100()
{
    GpuInfo gpu;
    gpu.name = "NVIDIA H100 80GB HBM3";
    gpu.uuid = "GPU-1234";
    gpu.host = "gpu-a";
    gpu.computeCapability = "9.0";
    gpu.l2Bytes = 50 << 20;
    gpu.measuredBandwidthGBs = 3000;
    return gpu;
}

Profile candidateProfile(const std::string &candidateId)
{
    Profile profile;
    profile.candidateId = candidateId;
    profile.target = ProfileTarget::Candidate;
    profile.gpu = h100();
    profile.ncuVersion = "2025.3.0.0";
    profile.createdAtMs = 1000;
    profile.metrics.kernels = 2;
    profile.metrics.durationNs = 15000;
    profile.metrics.dramReadBytes = 17.3e6;
    profile.metrics.dramWriteBytes = 8.2e6;
    profile.metrics.achievedBandwidthGBs = 25.5e6 / 15000;
    profile.metrics.registersPerThread = 64;
    profile.metrics.topStalls = {{"long_scoreboard", 5.3}, {"barrier", 0.9}};
    profile.metrics.missing = {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"};
    profile.kernels = {{"softmax_rows(const float *, float *, int)", 12500.0, 16.78e6, 8.192e6},
                       {"reduce_max", 2500.0, 0.52e6, std::nullopt}};
    TrafficComparison traffic;
    traffic.modelBytes = 8192;
    traffic.inputBytes = 4096;
    traffic.l2Bytes = 50 << 20;
    traffic.measuredBytes = 25.5e6;
    traffic.ratio = 25.5e6 / 8192;
    traffic.note = "not judged: the inputs fit in the L2 cache";
    profile.traffic = traffic;
    profile.findings = {Flag{"moved-too-few-bytes", R"({"ratio":0.1})"}};
    profile.check = "the profiled run's outputs match the reference";
    return profile;
}

Profile failedEagerProfile(const std::string &candidateId)
{
    Profile profile;
    profile.candidateId = candidateId;
    profile.target = ProfileTarget::Eager;
    profile.ncuVersion = "2025.3.0.0";
    profile.createdAtMs = 2000;
    profile.error = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission";
    return profile;
}

void storeBoth(Archive &archive)
{
    auto tx = archive.begin();
    archive.putOp(tx, reluOp());
    archive.addCandidate(tx, reluCandidate());
    archive.addProfile(tx, candidateProfile(reluCandidate().id));
    archive.addProfile(tx, failedEagerProfile(reluCandidate().id));
    tx.commit();
}

// Compares what was stored with what came back, the row id aside.
void checkSameProfiles(const std::vector<Profile> &stored)
{
    REQUIRE(stored.size() == 2);
    Profile first = stored[0];
    CHECK(first.id > 0);
    first.id = 0;
    CHECK(first == candidateProfile(reluCandidate().id));
    Profile second = stored[1];
    second.id = 0;
    CHECK(second == failedEagerProfile(reluCandidate().id));
    CHECK(second.gpu.name.empty()); // failed before a GPU was reached
    CHECK_FALSE(second.ok());
}

} // namespace

TEST_CASE("profiles are stored and read back")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    storeBoth(*archive);
    checkSameProfiles(archive->profiles(reluCandidate().id));
    CHECK(archive->profiles("unknown").empty());
    // A profile names a stored candidate.
    auto tx = archive->begin();
    CHECK_THROWS_AS(archive->addProfile(tx, candidateProfile("not-stored")), ArchiveError);
}

TEST_CASE("an archive of schema 5 gains the profiles table when opened, read-only in memory")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("v5.kxdb");
    {
        sqlite3 *db = nullptr;
        REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
        schema::migrate(db, 5);
        REQUIRE(schema::storedVersion(db) == 5);
        sqlite3_close(db);
    }
    {
        auto readOnly = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(readOnly->isUpgradedCopy());
        CHECK(readOnly->profiles("any").empty());
    }
    auto archive = openOrFail(path);
    CHECK(archive->schemaVersion() == Archive::currentSchemaVersion());
    CHECK(Archive::currentSchemaVersion() >= 6);
    storeBoth(*archive);
    checkSameProfiles(archive->profiles(reluCandidate().id));
}

TEST_CASE("an archive newer than this program is refused and left alone")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("new.kxdb");
    openOrFail(path).reset();
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    const std::string bump = "UPDATE schema_version SET version=" + std::to_string(Archive::currentSchemaVersion() + 1);
    REQUIRE(sqlite3_exec(db, bump.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    const auto refused = Archive::open(path);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.find("newer than this program understands") != std::string::npos);
}

TEST_CASE("profiles travel in exports and are imported once")
{
    TemporaryDir dir;
    auto source = openOrFail(dir.filePath("source.kxdb"));
    storeBoth(*source);
    const nlohmann::json exported = exportArchive(*source);
    const auto &candidate = exported.at("candidates").at(0);
    REQUIRE(candidate.contains("profiles"));
    CHECK(candidate.at("profiles").size() == 2);
    CHECK_FALSE(candidate.at("profiles").at(0).contains("candidate"));

    auto target = openOrFail(dir.filePath("target.kxdb"));
    const auto stats = importArchive(*target, exported);
    REQUIRE(stats);
    CHECK(stats->profiles == 2);
    checkSameProfiles(target->profiles(reluCandidate().id));
    const auto again = importArchive(*target, exported);
    REQUIRE(again);
    CHECK(again->profiles == 0);
    CHECK(target->profiles(reluCandidate().id).size() == 2);
    CHECK(exportArchive(*target).dump() == exported.dump());

    // A malformed profile names its place and imports nothing.
    nlohmann::json broken = exported;
    broken["candidates"][0]["profiles"][0]["target"] = "sideways";
    auto third = openOrFail(dir.filePath("third.kxdb"));
    const auto failed = importArchive(*third, broken);
    REQUIRE_FALSE(failed);
    CHECK(failed.error().message.find("candidates[0].profiles[0]") != std::string::npos);
    CHECK(third->candidates().empty());
}

TEST_CASE("exports of candidates without profiles are as before")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, reluOp());
    archive->addCandidate(tx, reluCandidate());
    tx.commit();
    CHECK_FALSE(exportArchive(*archive).at("candidates").at(0).contains("profiles"));
}

TEST_CASE("a candidate that moved too few bytes is flagged impossible on that GPU and is no longer the best")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    const auto candidate = reluCandidate();
    GpuInfo other = h100();
    other.uuid = "GPU-5678";
    other.host = "gpu-b";
    {
        auto tx = archive->begin();
        archive->putOp(tx, reluOp());
        archive->addCandidate(tx, candidate);
        for (const auto &gpu : {h100(), other}) {
            Evaluation evaluation;
            evaluation.candidateId = candidate.id;
            evaluation.gpu = gpu;
            evaluation.status = EvalStatus::Correct;
            evaluation.timing.medianMs = 0.01;
            evaluation.baseline.medianMs = 0.02;
            evaluation.speedup = 2;
            evaluation.flags = {Flag{"nondeterministic", "{}"}};
            archive->addEvaluation(tx, evaluation);
        }
        tx.commit();
    }
    REQUIRE(archive->bestKernels("relu").size() == 1);

    {
        auto tx = archive->begin();
        archive->addProfile(tx, candidateProfile(candidate.id)); // on h100(), with the finding
        tx.commit();
    }
    const auto evaluations = archive->evaluations(candidate.id);
    REQUIRE(evaluations.size() == 2);
    for (const auto &evaluation : evaluations) {
        CAPTURE(evaluation.gpu.uuid);
        const bool profiledGpu = evaluation.gpu.uuid == h100().uuid;
        CHECK(hasFlag(evaluation, "impossible") == profiledGpu);
        CHECK(hasFlag(evaluation, "nondeterministic")); // the flags it had stay
        for (const auto &flag : evaluation.flags) {
            if (flag.kind != "impossible")
                continue;
            const auto evidence = nlohmann::json::parse(flag.evidence);
            CHECK(evidence.at("source") == "Nsight Compute profile");
            CHECK(evidence.at("finding") == "moved-too-few-bytes");
            CHECK(evidence.at("ratio") == 0.1);
        }
    }
    // The other GPU's evaluation is still the best there; none is on the profiled one.
    const auto best = archive->bestKernels("relu");
    REQUIRE(best.size() == 1);

    // Imported into an archive that has it all already, nothing is flagged twice.
    const auto exported = exportArchive(*archive);
    REQUIRE(importArchive(*archive, exported));
    std::size_t impossible = 0;
    for (const auto &evaluation : archive->evaluations(candidate.id))
        for (const auto &flag : evaluation.flags)
            impossible += flag.kind == "impossible";
    CHECK(impossible == 1);
}
