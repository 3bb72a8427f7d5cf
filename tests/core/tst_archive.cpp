#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/schema.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTemporaryDir>
#include "qtestprinters.h"

#include <QTest>

#include <sqlite3.h>

#include <fstream>

using namespace kx;

namespace {

std::unique_ptr<Archive> openOrFail(const QString &path, ArchiveMode mode = ArchiveMode::ReadWrite)
{
    auto archive = Archive::open(path.toStdString(), mode);
    if (!archive)
        qFatal("cannot open archive: %s", archive.error().message.c_str());
    return std::move(*archive);
}

QByteArray fileHash(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
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

} // namespace

class TestArchive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createsCurrentSchemaInWalMode()
    {
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        QCOMPARE(archive->schemaVersion(), Archive::currentSchemaVersion());
        QCOMPARE(archive->integrityCheck(), std::string("ok"));
        sqlite3_stmt *statement = nullptr;
        sqlite3_prepare_v2(archive->handle(), "PRAGMA journal_mode", -1, &statement, nullptr);
        QCOMPARE(sqlite3_step(statement), SQLITE_ROW);
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(sqlite3_column_text(statement, 0))), QByteArray("wal"));
        sqlite3_finalize(statement);
        const ArchiveInfo info = archive->info();
        QCOMPARE(info.candidates, 0);
        QVERIFY(info.createdBy.find("Kernel Explorer") != std::string::npos);
    }

    void migratesVersion1Stepwise()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("v1.kxdb");
        {
            // An archive as version 1 wrote it, with a verdict (version 2 added retraction).
            sqlite3 *db = nullptr;
            QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
            schema::migrate(db, 1);
            QCOMPARE(schema::storedVersion(db), 1);
            char *error = nullptr;
            const int rc = sqlite3_exec(db, R"sql(
                INSERT INTO ops(name, source_kind, definition, created_at, updated_at)
                    VALUES('relu', 'builtin', '{"name":"relu"}', 1, 1);
                INSERT INTO candidates(id, op_name, source, launch_plan, origin, operator, description, created_at)
                    VALUES('abcd1234', 'relu', 'src', '{}', 'manual', 'edit', '', 1);
                INSERT INTO verdicts(candidate_id, accepted, reason, note, created_at)
                    VALUES('abcd1234', 1, 'verified-speedup', 'v1 note', 2);)sql",
                                    nullptr, nullptr, &error);
            QVERIFY2(rc == SQLITE_OK, error);
            sqlite3_close(db);
        }
        auto archive = openOrFail(path, ArchiveMode::ReadOnly); // a reader upgrades a writable old archive
        QCOMPARE(archive->schemaVersion(), Archive::currentSchemaVersion());
        QVERIFY(archive->isReadOnly());
        QCOMPARE(archive->candidate("abcd1234")->genome, std::string()); // column added by step 3
        const auto verdict = archive->currentVerdict("abcd1234");
        QVERIFY(verdict.has_value());
        QCOMPARE(verdict->note, std::string("v1 note"));
        QVERIFY(!verdict->retracted);
        QCOMPARE(archive->integrityCheck(), std::string("ok"));
    }

    void refusesNewerSchemaUntouched()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("future.kxdb");
        {
            auto archive = openOrFail(path);
        }
        {
            sqlite3 *db = nullptr;
            sqlite3_open(path.toUtf8().constData(), &db);
            QCOMPARE(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; UPDATE schema_version SET version=99", nullptr,
                                  nullptr, nullptr),
                     SQLITE_OK);
            sqlite3_close(db);
        }
        const QByteArray before = fileHash(path);
        for (const auto mode : {ArchiveMode::ReadWrite, ArchiveMode::ReadOnly}) {
            auto archive = Archive::open(path.toStdString(), mode);
            QVERIFY(!archive);
            QVERIFY2(archive.error().message.find("newer") != std::string::npos, archive.error().message.c_str());
        }
        QCOMPARE(fileHash(path), before);
        QVERIFY(!QFile::exists(path + "-wal"));
    }

    void refusesNonArchives_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<bool>("otherDatabase");
        QTest::addColumn<QString>("expected");
        QTest::newRow("text") << QByteArray("just some text\n") << false << "not an SQLite database";
        QTest::newRow("binary") << QByteArray(8192, '\x7f') << false << "not an SQLite database";
        QTest::newRow("other sqlite") << QByteArray() << true << "another program";
    }

    void refusesNonArchives()
    {
        QFETCH(QByteArray, content);
        QFETCH(bool, otherDatabase);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("x.kxdb");
        if (otherDatabase) {
            sqlite3 *db = nullptr;
            sqlite3_open(path.toUtf8().constData(), &db);
            sqlite3_exec(db, "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('mine')", nullptr, nullptr,
                         nullptr);
            sqlite3_close(db);
        } else {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        const QByteArray before = fileHash(path);
        auto archive = Archive::open(path.toStdString());
        QVERIFY(!archive);
        QVERIFY2(QString::fromStdString(archive.error().message).contains(expected), archive.error().message.c_str());
        QCOMPARE(fileHash(path), before);
    }

    void readOnlyFileOpensOnlyForReading()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("ro.kxdb");
        {
            auto archive = openOrFail(path);
            auto tx = archive->begin();
            archive->putOp(tx, makeOp("relu"));
            archive->addCandidate(tx, makeCandidate("relu", "a"));
            tx.commit();
        }
        QFile::remove(path + "-wal");
        QFile::remove(path + "-shm");
        QFile::setPermissions(path, QFile::ReadOwner | QFile::ReadGroup);
        const QByteArray before = fileHash(path);
        auto writable = Archive::open(path.toStdString());
        QVERIFY(!writable);
        QVERIFY(writable.error().message.find("read-only") != std::string::npos);
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        QCOMPARE(archive->candidates().size(), std::size_t(1));
        QVERIFY_THROWS_EXCEPTION(ArchiveError, archive->begin());
        archive.reset();
        QCOMPARE(fileHash(path), before);
    }

    void readOnlyModeRefusesWrites()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.kxdb");
        openOrFail(path);
        auto reader = openOrFail(path, ArchiveMode::ReadOnly);
        QVERIFY(reader->isReadOnly());
        QVERIFY_THROWS_EXCEPTION(ArchiveError, reader->begin());
    }

    void uncommittedTransactionRollsBack()
    {
        QTemporaryDir dir;
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
        QCOMPARE(archive->candidates().size(), std::size_t(0));
        auto other = openOrFail(dir.filePath("b.kxdb"));
        auto foreign = other->begin();
        QVERIFY_THROWS_EXCEPTION(ArchiveError, archive->addCandidate(foreign, makeCandidate("relu", "x")));
        auto tx = archive->begin();
        QVERIFY_THROWS_EXCEPTION(ArchiveError, archive->begin()); // one writer transaction at a time
    }

    void failedWriteLeavesNothing()
    {
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        try {
            auto tx = archive->begin();
            archive->putOp(tx, makeOp("relu"));
            archive->addCandidate(tx, makeCandidate("no-such-op", "x")); // foreign key violation
            tx.commit();
            QFAIL("a candidate of an unknown op was stored");
        } catch (const ArchiveError &) {
        }
        QVERIFY(archive->ops().empty());
    }

    void deduplicatesByContentHash()
    {
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        auto tx = archive->begin();
        archive->putOp(tx, makeOp("relu"));
        Run run;
        run.opName = "relu";
        const auto run1 = archive->createRun(tx, run);
        const auto run2 = archive->createRun(tx, run);
        QVERIFY(run1 != run2);
        auto candidate = makeCandidate("relu", "kernel");
        candidate.runId = run1;
        QVERIFY(archive->addCandidate(tx, candidate));
        candidate.runId = run2;
        candidate.description = "same content, found again";
        QVERIFY(!archive->addCandidate(tx, candidate));
        tx.commit();
        QCOMPARE(archive->candidates().size(), std::size_t(1));
        QCOMPARE(archive->candidatesOfRun(run1).size(), std::size_t(1));
        QCOMPARE(archive->candidatesOfRun(run2).size(), std::size_t(1));
        QCOMPARE(archive->candidates().front().description, std::string()); // first writer wins
        QVERIFY(archive->runByUid(archive->run(run1)->uid).has_value());
    }

    void answersTheUiQueries()
    {
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        QVERIFY(importArchive(*archive, sampleExport()));
        QCOMPARE(archive->candidateSummaries().size(), std::size_t(5));
        CandidateFilter byOp;
        byOp.opName = "relu";
        QCOMPARE(archive->candidateSummaries(byOp).size(), std::size_t(5));
        byOp.opName = "gelu";
        QCOMPARE(archive->candidateSummaries(byOp).size(), std::size_t(0));
        CandidateFilter flagged;
        flagged.onlyFlagged = true;
        QCOMPARE(archive->candidateSummaries(flagged).size(), std::size_t(1));
        CandidateFilter unreviewed;
        unreviewed.onlyUnreviewed = true;
        QCOMPARE(archive->candidateSummaries(unreviewed).size(), std::size_t(3));
        CandidateFilter onH200;
        onH200.gpuName = "NVIDIA H200";
        const auto h200 = archive->candidateSummaries(onH200);
        QCOMPARE(h200.size(), std::size_t(3));
        for (const auto &row : h200)
            QCOMPARE(row.bestGpu, std::string("NVIDIA H200"));
        CandidateFilter limited;
        limited.limit = 2;
        QCOMPARE(archive->candidateSummaries(limited).size(), std::size_t(2));

        // Best per op and GPU: the 90x kernel has an "impossible" flag and does not count.
        const auto best = archive->bestKernels("relu");
        QCOMPARE(best.size(), std::size_t(2));
        for (const auto &kernel : best) {
            QCOMPARE(archive->candidate(kernel.candidateId)->operatorName, std::string("crossover"));
            QVERIFY(kernel.speedup > 1.0 && kernel.speedup < 1.2);
        }
        QCOMPARE(archive->bestKernels("relu", "NVIDIA H200").size(), std::size_t(1));
        QCOMPARE(archive->gpuNames(), (std::vector<std::string>{"NVIDIA H100 80GB HBM3", "NVIDIA H200"}));

        const auto queue = archive->reviewQueue();
        QCOMPARE(queue.size(), std::size_t(1));
        QCOMPARE(queue.front().operatorName, std::string("grid-size"));
        QCOMPARE(queue.front().flagCount, 2);

        const auto runs = archive->runs("relu");
        QCOMPARE(runs.size(), std::size_t(1));
        const auto lineage = archive->candidatesOfRun(runs.front().id);
        QCOMPARE(lineage.size(), std::size_t(5));
        QVERIFY(lineage.front().parentIds.empty());
        QCOMPARE(lineage[3].origin, Origin::Crossover);
        QCOMPARE(lineage[3].parentIds.size(), std::size_t(2));
        const auto generations = archive->runGenerations(runs.front().id);
        QCOMPARE(generations.size(), std::size_t(5));
        QCOMPARE(generations[4].first, lineage[4].id);
        QCOMPARE(generations[4].second, 3);

        const auto evaluations = archive->evaluations(lineage[4].id);
        QCOMPARE(evaluations.size(), std::size_t(1));
        QCOMPARE(evaluations.front().flags.size(), std::size_t(2));
        QCOMPARE(evaluations.front().samplesMs.size(), std::size_t(12));
        QCOMPARE(archive->resolveCandidateId(lineage[4].id.substr(0, 10)).value(), lineage[4].id);
        QVERIFY(!archive->resolveCandidateId("ab"));
        QVERIFY(!archive->resolveCandidateId("ffffffffff"));
    }

    void evaluationRoundTripsExactly()
    {
        QTemporaryDir dir;
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
        evaluation.baseline = summarize(evaluation.baselineSamplesMs);
        evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;
        evaluation.flags = {Flag{"suspicious", R"({"speedup":12.5})"}};
        evaluation.correctness.checksPassed = {"inputs-unchanged"};
        evaluation.createdAtMs = 42;
        evaluation.id = archive->addEvaluation(tx, evaluation);
        tx.commit();
        const auto stored = archive->evaluations(candidate.id);
        QCOMPARE(stored.size(), std::size_t(1));
        QVERIFY(stored.front() == evaluation);
    }

    void verdictsCanBeRetracted()
    {
        QTemporaryDir dir;
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
        QVERIFY(archive->currentVerdict(candidate.id)->accepted);
        auto undo = archive->begin();
        archive->retractVerdict(undo, acceptId);
        undo.commit();
        QCOMPARE(archive->currentVerdict(candidate.id)->reasonCode, std::string("suspicious-timing"));
        QCOMPARE(archive->verdicts(candidate.id).size(), std::size_t(2));
    }

    void exportImportRoundTrip()
    {
        QTemporaryDir dir;
        auto first = openOrFail(dir.filePath("a.kxdb"));
        const auto stats = importArchive(*first, sampleExport());
        QVERIFY(stats);
        QCOMPARE(stats->candidates, 5);
        QCOMPARE(stats->evaluations, 8);
        QCOMPARE(stats->verdicts, 2);
        const auto exported = exportArchive(*first);
        auto second = openOrFail(dir.filePath("b.kxdb"));
        QVERIFY(importArchive(*second, exported));
        QCOMPARE(exportArchive(*second).dump(), exported.dump());

        // Importing the same export again adds nothing.
        const auto again = importArchive(*second, exported);
        QVERIFY(again);
        QCOMPARE(again->candidates, 0);
        QCOMPARE(again->duplicateCandidates, 5);
        QCOMPARE(again->evaluations, 0);
        QCOMPARE(second->info().evaluations, 8);
    }

    void exportsSelectedOps()
    {
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        QVERIFY(importArchive(*archive, sampleExport()));
        auto tx = archive->begin();
        archive->putOp(tx, makeOp("gelu"));
        archive->addCandidate(tx, makeCandidate("gelu", "g"));
        tx.commit();
        const auto onlyGelu = exportArchive(*archive, {"gelu"});
        QCOMPARE(onlyGelu["ops"].size(), std::size_t(1));
        QCOMPARE(onlyGelu["candidates"].size(), std::size_t(1));
        QCOMPARE(onlyGelu["runs"].size(), std::size_t(0));
        auto other = openOrFail(dir.filePath("b.kxdb"));
        QVERIFY(importArchive(*other, onlyGelu));
        QCOMPARE(exportArchive(*other).dump(), onlyGelu.dump());
    }

    void rejectsMalformedImports_data()
    {
        QTest::addColumn<QString>("mutation");
        QTest::newRow("no format") << "no-format";
        QTest::newRow("newer version") << "newer-version";
        QTest::newRow("hash mismatch") << "hash-mismatch";
        QTest::newRow("unknown op") << "unknown-op";
        QTest::newRow("unknown run") << "unknown-run";
        QTest::newRow("bad status") << "bad-status";
        QTest::newRow("missing field") << "missing-field";
    }

    void rejectsMalformedImports()
    {
        QFETCH(QString, mutation);
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
        QTemporaryDir dir;
        auto archive = openOrFail(dir.filePath("a.kxdb"));
        const auto result = importArchive(*archive, document);
        QVERIFY(!result);
        QVERIFY(!result.error().message.empty());
        const ArchiveInfo info = archive->info();
        QCOMPARE(info.ops + info.runs + info.candidates + info.evaluations + info.verdicts, 0);
    }

    void readersSeeCommittedWrites()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("a.kxdb");
        auto writer = openOrFail(path);
        auto reader = openOrFail(path, ArchiveMode::ReadOnly);
        auto tx = writer->begin();
        writer->putOp(tx, makeOp("relu"));
        writer->addCandidate(tx, makeCandidate("relu", "k"));
        QCOMPARE(reader->candidates().size(), std::size_t(0)); // not yet committed
        tx.commit();
        QCOMPARE(reader->candidates().size(), std::size_t(1));
        QCOMPARE(rowCount(reader->handle(), "candidates"), 1);
    }
};

QTEST_GUILESS_MAIN(TestArchive)
#include "tst_archive.moc"
