#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/schema.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <algorithm>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace kx;
using kx::test::fileExists;
using kx::test::fileSha256;
using kx::test::TemporaryDir;

namespace {

std::unique_ptr<Archive> openOrFail(const std::string &path, ArchiveMode mode = ArchiveMode::ReadWrite)
{
    auto archive = Archive::open(path, mode);
    REQUIRE_MESSAGE(archive, "cannot open archive: " << (archive ? "" : archive.error().message));
    return std::move(*archive);
}

nlohmann::json sampleExport()
{
    std::ifstream file(KX_TEST_DATA_DIR "/sample-archive.json");
    return nlohmann::json::parse(file);
}

Op makeOp(const std::string &name)
{
    Op op;
    op.name = name;
    op.inputs = {TensorSpec{"x", {"N"}, "float32"}};
    op.outputs = {TensorSpec{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 1024}}};
    return op;
}

Candidate makeCandidate(const std::string &op, const std::string &source, std::vector<std::string> parents = {})
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

std::int64_t rowCount(sqlite3 *db, const char *table)
{
    sqlite3_stmt *statement = nullptr;
    sqlite3_prepare_v2(db, (std::string("SELECT COUNT(*) FROM ") + table).c_str(), -1, &statement, nullptr);
    sqlite3_step(statement);
    const auto count = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return count;
}

// The schema version stored in the file, read without locks or companion files.
int versionOnDisk(const std::string &path)
{
    sqlite3 *db = nullptr;
    const std::string uri = "file:" + path + "?immutable=1";
    REQUIRE(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK);
    const int version = schema::storedVersion(db);
    sqlite3_close(db);
    return version;
}

bool hasCompanionFiles(const std::string &path) { return fileExists(path + "-wal") || fileExists(path + "-shm"); }

// An archive as version 1 wrote it, with a verdict (version 2 added retraction), in the given journal mode.
void writeVersion1Archive(const std::string &path, bool wal)
{
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    schema::migrate(db, 1);
    REQUIRE(schema::storedVersion(db) == 1);
    char *error = nullptr;
    const int rc = sqlite3_exec(db, R"sql(
        INSERT INTO ops(name, source_kind, definition, created_at, updated_at)
            VALUES('relu', 'builtin', '{"name":"relu"}', 1, 1);
        INSERT INTO candidates(id, op_name, source, launch_plan, origin, operator, description, created_at)
            VALUES('abcd1234', 'relu', 'src', '{}', 'manual', 'edit', '', 1);
        INSERT INTO verdicts(candidate_id, accepted, reason, note, created_at)
            VALUES('abcd1234', 1, 'verified-speedup', 'v1 note', 2);)sql",
                                nullptr, nullptr, &error);
    CHECK_MESSAGE(rc == SQLITE_OK, (error ? error : ""));
    sqlite3_free(error);
    if (wal)
        REQUIRE(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    REQUIRE_FALSE(hasCompanionFiles(path)); // the last connection checkpointed and removed them
}

// An archive of the current schema in WAL mode with one op and one candidate, closed cleanly.
void writeSmallArchive(const std::string &path)
{
    auto archive = openOrFail(path);
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    archive->addCandidate(tx, makeCandidate("relu", "a"));
    tx.commit();
}

} // namespace

TEST_CASE("creates the current schema in WAL mode")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    CHECK(archive->schemaVersion() == Archive::currentSchemaVersion());
    CHECK(archive->integrityCheck() == std::string("ok"));
    sqlite3_stmt *statement = nullptr;
    sqlite3_prepare_v2(archive->handle(), "PRAGMA journal_mode", -1, &statement, nullptr);
    CHECK(sqlite3_step(statement) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char *>(sqlite3_column_text(statement, 0))) == std::string("wal"));
    sqlite3_finalize(statement);
    const ArchiveInfo info = archive->info();
    CHECK(info.candidates == 0);
    CHECK(info.createdBy.find("Kernel Explorer") != std::string::npos);
    CHECK_FALSE(archive->isUpgradedCopy());
}

TEST_CASE("an older archive opened read-only is migrated in memory and the file stays untouched")
{
    for (const bool wal : {false, true}) {
        SUBCASE(wal ? "WAL" : "rollback journal")
        {
            TemporaryDir dir;
            const std::string path = dir.filePath("v1.kxdb");
            writeVersion1Archive(path, wal);
            const std::string before = fileSha256(path);
            REQUIRE_FALSE(before.empty());
            {
                auto archive = openOrFail(path, ArchiveMode::ReadOnly);
                CHECK(archive->schemaVersion() == Archive::currentSchemaVersion()); // the migrated copy
                CHECK(archive->isReadOnly());
                CHECK(archive->isUpgradedCopy());
                CHECK(archive->candidate("abcd1234")->genome == std::string()); // column added by step 3
                const auto verdict = archive->currentVerdict("abcd1234");
                CHECK(verdict.has_value());
                CHECK(verdict->note == std::string("v1 note"));
                CHECK(!verdict->retracted);
                CHECK(archive->integrityCheck() == std::string("ok"));
                // The queries of the current schema work on the copy.
                const auto summaries = archive->candidateSummaries();
                REQUIRE(summaries.size() == std::size_t(1));
                CHECK(summaries.front().accepted == std::optional<bool>(true));
                CHECK(archive->info().candidates == 1);
                CHECK_FALSE(archive->provenance("abcd1234")); // table added by step 4
                CHECK(archive->runGenerations(1).empty());    // column added by step 3
                CHECK_THROWS_AS(archive->begin(), ArchiveError);
                CHECK(fileSha256(path) == before);
            }
            CHECK(fileSha256(path) == before);
            CHECK(versionOnDisk(path) == 1);
            CHECK_FALSE(hasCompanionFiles(path));

            // A writer still upgrades the file itself.
            {
                auto writer = openOrFail(path);
                CHECK_FALSE(writer->isUpgradedCopy());
                CHECK(writer->schemaVersion() == Archive::currentSchemaVersion());
                CHECK(writer->currentVerdict("abcd1234")->note == std::string("v1 note"));
            }
            CHECK(versionOnDisk(path) == Archive::currentSchemaVersion());
            CHECK(fileSha256(path) != before);
            auto reader = openOrFail(path, ArchiveMode::ReadOnly);
            CHECK_FALSE(reader->isUpgradedCopy());
        }
    }
}

TEST_CASE("refuses a newer schema and leaves it untouched")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("future.kxdb");
    {
        auto archive = openOrFail(path);
    }
    {
        sqlite3 *db = nullptr;
        sqlite3_open(path.c_str(), &db);
        CHECK(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; UPDATE schema_version SET version=99", nullptr, nullptr,
                           nullptr)
              == SQLITE_OK);
        sqlite3_close(db);
    }
    const std::string before = fileSha256(path);
    for (const auto mode : {ArchiveMode::ReadWrite, ArchiveMode::ReadOnly}) {
        auto archive = Archive::open(path, mode);
        CHECK(!archive);
        CHECK_MESSAGE(archive.error().message.find("newer") != std::string::npos, archive.error().message);
    }
    CHECK(fileSha256(path) == before);
    CHECK(!fileExists(path + "-wal"));
}

TEST_CASE("refuses files that are not archives")
{
    const struct
    {
        const char *name;
        std::string content;
        bool otherDatabase;
        std::string expected;
    } rows[] = {
        {"text", "just some text\n", false, "not an SQLite database"},
        {"binary", std::string(8192, '\x7f'), false, "not an SQLite database"},
        {"other sqlite", "", true, "another program"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            TemporaryDir dir;
            const std::string path = dir.filePath("x.kxdb");
            if (row.otherDatabase) {
                sqlite3 *db = nullptr;
                sqlite3_open(path.c_str(), &db);
                sqlite3_exec(db, "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('mine')", nullptr, nullptr,
                             nullptr);
                sqlite3_close(db);
            } else {
                CHECK(test::writeFile(path, row.content));
            }
            const std::string before = fileSha256(path);
            auto archive = Archive::open(path);
            CHECK(!archive);
            CHECK_MESSAGE(archive.error().message.find(row.expected) != std::string::npos, archive.error().message);
            CHECK(fileSha256(path) == before);
        }
    }
}

TEST_CASE("a read-only file opens only for reading and leaves no companion files")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("ro.kxdb");
    writeSmallArchive(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read,
                                 std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    auto writable = Archive::open(path);
    CHECK(!writable);
    CHECK(writable.error().message.find("read-only") != std::string::npos);
    auto archive = openOrFail(path, ArchiveMode::ReadOnly);
    CHECK(archive->candidates().size() == std::size_t(1));
    CHECK_THROWS_AS(archive->begin(), ArchiveError);
    CHECK_FALSE(hasCompanionFiles(path)); // not even while it is open
    archive.reset();
    CHECK(fileSha256(path) == before);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("a read-only copy of an archive without write permission leaves no companion files")
{
    TemporaryDir dir;
    const std::string original = dir.filePath("original.kxdb");
    writeSmallArchive(original);
    const std::string path = dir.filePath("copy.kxdb");
    std::filesystem::copy_file(original, path);
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read
                                           | std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    if (::access(path.c_str(), W_OK) != 0) {
        // Permissions mean something here (not root): the file cannot be written by anybody opening it.
        CHECK_FALSE(Archive::open(path));
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->candidates().size() == std::size_t(1));
        CHECK_FALSE(hasCompanionFiles(path));
    } else {
        // Running as root: the mode bits do not stop writes, so check the ReadOnly mode on a writable copy.
        MESSAGE("the file stays writable (root): checking ReadOnly mode on a writable copy instead");
        std::filesystem::permissions(path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->candidates().size() == std::size_t(1));
    }
    CHECK(fileSha256(path) == before);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("ReadOnly mode on a writable archive leaves no companion files and never writes")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    writeSmallArchive(path);
    REQUIRE_FALSE(hasCompanionFiles(path));
    const std::string before = fileSha256(path);
    {
        auto first = openOrFail(path, ArchiveMode::ReadOnly);
        auto second = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(first->candidates().size() == std::size_t(1));
        CHECK(second->candidates().size() == std::size_t(1));
        CHECK_FALSE(first->isUpgradedCopy());
        // Nothing can be written through the raw connection either.
        CHECK(sqlite3_exec(first->handle(), "DELETE FROM candidates", nullptr, nullptr, nullptr) != SQLITE_OK);
    }
    CHECK_FALSE(hasCompanionFiles(path));
    CHECK(fileSha256(path) == before);
}

TEST_CASE("an older archive without write permission can still be browsed")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("v1.kxdb");
    writeVersion1Archive(path, true);
    std::filesystem::permissions(path, std::filesystem::perms::owner_read, std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    {
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->isUpgradedCopy());
        CHECK(archive->candidates().size() == std::size_t(1));
        CHECK_FALSE(hasCompanionFiles(path));
    }
    CHECK(fileSha256(path) == before);
    CHECK(versionOnDisk(path) == 1);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("ReadOnly mode refuses writes")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    openOrFail(path);
    auto reader = openOrFail(path, ArchiveMode::ReadOnly);
    CHECK(reader->isReadOnly());
    CHECK_THROWS_AS(reader->begin(), ArchiveError);
}

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
    timed("slow, slow eager", 1.0, 3.0);   // 3x by its own measurement
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
