// The archive's contents: transactions, deduplication, the queries the UI and kx ask, evaluations and verdicts,
// export and import, and readers beside a writer. Opening, migrating and read-only files are tst_archiveopening.
#include "archivetestsupport.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include "doctestprinters.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <algorithm>

#include <sqlite3.h>

#include <fstream>

using namespace kx;
using namespace kx::test;

namespace {

nlohmann::json sampleExport()
{
    std::ifstream file(KX_TEST_DATA_DIR "/sample-archive.json");
    return nlohmann::json::parse(file);
}

std::int64_t rowCount(sqlite3 *db, const char *table)
{
    sqlite3_stmt *statement = nullptr;
    sqlite3_prepare_v2(db, (std::string("SELECT COUNT(*) FROM ") + table).c_str(), -1, &statement, nullptr);
    sqlite3_step(statement);
    const auto count = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return count;
}

} // namespace

TEST_CASE("an uncommitted transaction rolls back")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    {
        auto tx = archive->begin();
        archive->putOp(tx, makeOp("relu"));
        tx.commit();
    }
    {
        auto tx = archive->begin();
        archive->addCandidate(tx, makeCandidate("relu", "lost"));
        // no commit: destroyed here
    }
    CHECK(archive->candidates().size() == std::size_t(0));
    auto other = openOrFail(dir.filePath("b.kxdb"));
    auto foreign = other->begin();
    CHECK_THROWS_AS(archive->addCandidate(foreign, makeCandidate("relu", "x")), ArchiveError);
    auto tx = archive->begin();
    CHECK_THROWS_AS(archive->begin(), ArchiveError); // one writer transaction at a time
}

TEST_CASE("a failed write leaves nothing")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    try {
        auto tx = archive->begin();
        archive->putOp(tx, makeOp("relu"));
        archive->addCandidate(tx, makeCandidate("no-such-op", "x")); // foreign key violation
        tx.commit();
        FAIL("a candidate of an unknown op was stored");
    } catch (const ArchiveError &) {
    }
    CHECK(archive->ops().empty());
}

TEST_CASE("deduplicates by content hash")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    Run run;
    run.opName = "relu";
    const auto run1 = archive->createRun(tx, run);
    const auto run2 = archive->createRun(tx, run);
    CHECK(run1 != run2);
    auto candidate = makeCandidate("relu", "kernel");
    candidate.runId = run1;
    CHECK(archive->addCandidate(tx, candidate));
    candidate.runId = run2;
    candidate.description = "same content, found again";
    CHECK(!archive->addCandidate(tx, candidate));
    tx.commit();
    CHECK(archive->candidates().size() == std::size_t(1));
    CHECK(archive->candidatesOfRun(run1).size() == std::size_t(1));
    CHECK(archive->candidatesOfRun(run2).size() == std::size_t(1));
    CHECK(archive->candidates().front().description == std::string()); // first writer wins
    CHECK(archive->runByUid(archive->run(run1)->uid).has_value());
}

TEST_CASE("answers the UI queries")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    CHECK(importArchive(*archive, sampleExport()));
    CHECK(archive->candidateSummaries().size() == std::size_t(5));
    CandidateFilter byOp;
    byOp.opName = "relu";
    CHECK(archive->candidateSummaries(byOp).size() == std::size_t(5));
    byOp.opName = "gelu";
    CHECK(archive->candidateSummaries(byOp).size() == std::size_t(0));
    CandidateFilter flagged;
    flagged.onlyFlagged = true;
    CHECK(archive->candidateSummaries(flagged).size() == std::size_t(1));
    CandidateFilter unreviewed;
    unreviewed.onlyUnreviewed = true;
    CHECK(archive->candidateSummaries(unreviewed).size() == std::size_t(3));
    CandidateFilter onH200;
    onH200.gpuName = "NVIDIA H200";
    const auto h200 = archive->candidateSummaries(onH200);
    CHECK(h200.size() == std::size_t(3));
    for (const auto &row : h200)
        CHECK(row.bestGpu == std::string("NVIDIA H200"));
    CandidateFilter limited;
    limited.limit = 2;
    CHECK(archive->candidateSummaries(limited).size() == std::size_t(2));

    // Best per op and GPU: the 90x kernel has an "impossible" flag and does not count.
    const auto best = archive->bestKernels("relu");
    CHECK(best.size() == std::size_t(2));
    for (const auto &kernel : best) {
        CHECK(archive->candidate(kernel.candidateId)->operatorName == std::string("crossover"));
        CHECK((kernel.speedup > 1.0 && kernel.speedup < 1.2));
    }
    CHECK(archive->bestKernels("relu", "NVIDIA H200").size() == std::size_t(1));
    CHECK(archive->gpuNames() == (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
    // The cards of an op, without reading its evaluations (the plots label cards of one model apart with them).
    std::vector<std::string> reluCards;
    for (const GpuInfo &gpu : archive->gpusOfOp("relu"))
        reluCards.push_back(gpu.name);
    CHECK(reluCards == (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));
    CHECK(archive->gpusOfOp("no such op").empty());

    const auto queue = archive->reviewQueue();
    REQUIRE(queue.size() == std::size_t(1));
    CHECK(queue.front().operatorName == std::string("grid-size"));
    CHECK(queue.front().flagCount == 2);

    const auto runs = archive->runs("relu");
    REQUIRE(runs.size() == std::size_t(1));
    const auto lineage = archive->candidatesOfRun(runs.front().id);
    REQUIRE(lineage.size() == std::size_t(5));
    CHECK(lineage.front().parentIds.empty());
    CHECK(lineage[3].origin == Origin::Crossover);
    CHECK(lineage[3].parentIds.size() == std::size_t(2));
    const auto generations = archive->runGenerations(runs.front().id);
    REQUIRE(generations.size() == std::size_t(5));
    CHECK(generations[4].first == lineage[4].id);
    CHECK(generations[4].second == 3);

    const auto evaluations = archive->evaluations(lineage[4].id);
    REQUIRE(evaluations.size() == std::size_t(1));
    CHECK(evaluations.front().flags.size() == std::size_t(2));
    CHECK(evaluations.front().samplesMs.size() == std::size_t(12));
    CHECK(archive->resolveCandidateId(lineage[4].id.substr(0, 10)).value() == lineage[4].id);
    CHECK(!archive->resolveCandidateId("ab"));
    CHECK(!archive->resolveCandidateId("ffffffffff"));

    // What a lineage draws, without sources and samples: the same candidates, parents and outcomes.
    const auto headers = archive->candidateHeadersOfRun(runs.front().id);
    REQUIRE(headers.size() == lineage.size());
    std::size_t outcomesExpected = 0;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        CHECK(headers[i].id == lineage[i].id);
        CHECK(headers[i].parentIds == lineage[i].parentIds);
        CHECK(headers[i].operatorName == lineage[i].operatorName);
        CHECK(headers[i].origin == lineage[i].origin);
        CHECK(headers[i].source.empty());
        outcomesExpected += archive->evaluations(lineage[i].id).size();
    }
    const auto outcomes = archive->evaluationOutcomesOfRun(runs.front().id);
    REQUIRE(outcomes.size() == outcomesExpected);
    for (const auto &outcome : outcomes) {
        const auto full = archive->evaluations(outcome.candidateId);
        const auto same = std::find_if(full.begin(), full.end(), [&](const auto &e) { return e.id == outcome.id; });
        REQUIRE(same != full.end());
        CHECK(outcome.status == same->status);
        CHECK(outcome.speedup == same->speedup);
        CHECK(outcome.gpu.name == same->gpu.name);
        CHECK(countsTowardsBest(outcome) == countsTowardsBest(*same));
        CHECK(outcome.flags.size() == same->flags.size());
        CHECK(outcome.samplesMs.empty());
    }
}

TEST_CASE("an evaluation round-trips exactly")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    const auto candidate = makeCandidate("relu", "k");
    archive->addCandidate(tx, candidate);
    Evaluation evaluation;
    evaluation.candidateId = candidate.id;
    evaluation.gpu.name = "GPU";
    evaluation.gpu.measuredBandwidthGBs = 3012.345678901234;
    evaluation.status = EvalStatus::Correct;
    evaluation.samplesMs = {0.1, 1.0 / 3.0, 2e-7, 123456.789};
    evaluation.timing = summarize(evaluation.samplesMs);
    evaluation.baselineSamplesMs = {0.2, 0.3};
    evaluation.wallSamplesMs = {0.15, 0.16, 0.17};
    evaluation.baselineWallSamplesMs = {0.25, 0.31};
    evaluation.baseline = summarize(evaluation.baselineSamplesMs);
    evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;
    evaluation.flags = {Flag{"suspicious", R"({"speedup":12.5})"}};
    evaluation.correctness.checksPassed = {"inputs-unchanged"};
    evaluation.createdAtMs = 42;
    evaluation.id = archive->addEvaluation(tx, evaluation);
    tx.commit();
    const auto stored = archive->evaluations(candidate.id);
    REQUIRE(stored.size() == std::size_t(1));
    CHECK(stored.front() == evaluation);
}

TEST_CASE("the best kernel is the fastest, not the one that met the slowest eager run")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    const auto timed = [&](const std::string &source, double kernelMs, double eagerMs) {
        const auto candidate = makeCandidate("relu", source);
        archive->addCandidate(tx, candidate);
        Evaluation evaluation;
        evaluation.candidateId = candidate.id;
        evaluation.gpu.name = "GPU";
        evaluation.status = EvalStatus::Correct;
        evaluation.timing = summarize({kernelMs});
        evaluation.baseline = summarize({eagerMs});
        evaluation.speedup = eagerMs / kernelMs;
        archive->addEvaluation(tx, evaluation);
        return candidate.id;
    };
    timed("slow, slow eager", 1.0, 3.0);       // 3x by its own measurement
    const auto fast = timed("fast", 0.8, 1.2); // 1.5x by its own
    tx.commit();
    const auto best = archive->bestKernels("relu");
    REQUIRE(best.size() == std::size_t(1));
    CHECK(best.front().candidateId == fast);
}

TEST_CASE("verdicts can be retracted")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    const auto candidate = makeCandidate("relu", "k");
    archive->addCandidate(tx, candidate);
    Verdict reject{0, candidate.id, false, "suspicious-timing", "too fast", 0, false};
    archive->addVerdict(tx, reject);
    Verdict accept{0, candidate.id, true, "verified-speedup", "rechecked", 0, false};
    const auto acceptId = archive->addVerdict(tx, accept);
    tx.commit();
    CHECK(archive->currentVerdict(candidate.id)->accepted);
    auto undo = archive->begin();
    archive->retractVerdict(undo, acceptId);
    undo.commit();
    CHECK(archive->currentVerdict(candidate.id)->reasonCode == std::string("suspicious-timing"));
    CHECK(archive->verdicts(candidate.id).size() == std::size_t(2));
}

TEST_CASE("export and import round-trip")
{
    TemporaryDir dir;
    auto first = openOrFail(dir.filePath("a.kxdb"));
    const auto stats = importArchive(*first, sampleExport());
    REQUIRE(stats);
    CHECK(stats->candidates == 5);
    CHECK(stats->evaluations == 8);
    CHECK(stats->verdicts == 2);
    const auto exported = exportArchive(*first);
    auto second = openOrFail(dir.filePath("b.kxdb"));
    CHECK(importArchive(*second, exported));
    CHECK(exportArchive(*second).dump() == exported.dump());

    // Importing the same export again adds nothing.
    const auto again = importArchive(*second, exported);
    REQUIRE(again);
    CHECK(again->candidates == 0);
    CHECK(again->duplicateCandidates == 5);
    CHECK(again->evaluations == 0);
    CHECK(second->info().evaluations == 8);
}

TEST_CASE("exports selected ops")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    CHECK(importArchive(*archive, sampleExport()));
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("gelu"));
    archive->addCandidate(tx, makeCandidate("gelu", "g"));
    tx.commit();
    const auto onlyGelu = exportArchive(*archive, {"gelu"});
    CHECK(onlyGelu["ops"].size() == std::size_t(1));
    CHECK(onlyGelu["candidates"].size() == std::size_t(1));
    CHECK(onlyGelu["runs"].size() == std::size_t(0));
    auto other = openOrFail(dir.filePath("b.kxdb"));
    CHECK(importArchive(*other, onlyGelu));
    CHECK(exportArchive(*other).dump() == onlyGelu.dump());
}

TEST_CASE("rejects malformed imports")
{
    const struct
    {
        const char *name;
        std::string mutation;
    } rows[] = {
        {"no format", "no-format"},         {"newer version", "newer-version"}, {"hash mismatch", "hash-mismatch"},
        {"unknown op", "unknown-op"},       {"unknown run", "unknown-run"},     {"bad status", "bad-status"},
        {"missing field", "missing-field"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const std::string &mutation = row.mutation;
            auto document = sampleExport();
            auto &candidate = document["candidates"][2];
            if (mutation == "no-format")
                document.erase("format");
            else if (mutation == "newer-version")
                document["version"] = kExportFormatVersion + 1;
            else if (mutation == "hash-mismatch")
                candidate["source"] = "tampered";
            else if (mutation == "unknown-op")
                document["ops"] = nlohmann::json::array();
            else if (mutation == "unknown-run")
                candidate["run"] = "nope";
            else if (mutation == "bad-status")
                candidate["evaluations"][0]["status"] = "great";
            else if (mutation == "missing-field")
                candidate.erase("source");
            TemporaryDir dir;
            auto archive = openOrFail(dir.filePath("a.kxdb"));
            const auto result = importArchive(*archive, document);
            REQUIRE(!result);
            CHECK(!result.error().message.empty());
            const ArchiveInfo info = archive->info();
            CHECK(info.ops + info.runs + info.candidates + info.evaluations + info.verdicts == 0);
        }
    }
}

TEST_CASE("readers see committed writes")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    auto writer = openOrFail(path);
    auto reader = openOrFail(path, ArchiveMode::ReadOnly);
    auto tx = writer->begin();
    writer->putOp(tx, makeOp("relu"));
    writer->addCandidate(tx, makeCandidate("relu", "k"));
    CHECK(reader->candidates().size() == std::size_t(0)); // not yet committed
    tx.commit();
    CHECK(reader->candidates().size() == std::size_t(1));
    CHECK(rowCount(reader->handle(), "candidates") == 1);
}

TEST_CASE("a reader opened before any writer sees later commits")
{
    // The reader finds no -wal file and opens read-write with query_only; a writer that comes later shares
    // the WAL with it.
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    {
        auto creator = openOrFail(path);
    }
    auto reader = openOrFail(path, ArchiveMode::ReadOnly);
    CHECK(reader->candidates().empty());
    {
        auto writer = openOrFail(path);
        auto tx = writer->begin();
        writer->putOp(tx, makeOp("relu"));
        writer->addCandidate(tx, makeCandidate("relu", "k"));
        tx.commit();
    }
    CHECK(reader->candidates().size() == std::size_t(1));
    reader.reset();
    CHECK_FALSE(hasCompanionFiles(path));
    CHECK(openOrFail(path, ArchiveMode::ReadOnly)->candidates().size() == std::size_t(1));
}
