// Baseline measurements in the archive: stored once however many evaluations refer to them, read back with each
// evaluation, per run, in the best kernels and summaries (per precision policy, with the Inductor time), kept
// through export and import; Inductor packages kept with their op; archives from before baselines still open.
#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/schema.h"

#include "doctestprinters.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <sqlite3.h>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

std::unique_ptr<Archive> openOrFail(const std::string &path)
{
    auto archive = Archive::open(path);
    REQUIRE_MESSAGE(archive, "cannot open archive: " << (archive ? "" : archive.error().message));
    return std::move(*archive);
}

Op reluOp()
{
    Op op;
    op.name = "relu";
    op.inputs = {TensorSpec{"x", {"N"}, "float32"}};
    op.outputs = {TensorSpec{"out", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 1024}}};
    return op;
}

Candidate candidate(const std::string &source, std::optional<std::int64_t> runId = {})
{
    Candidate c;
    c.opName = "relu";
    c.source = source;
    c.launchPlan = R"({"steps":[]})";
    c.id = makeCandidateId(c.source, c.launchPlan);
    c.runId = runId;
    return c;
}

GpuInfo gpu(const std::string &name = "NVIDIA H100 80GB HBM3")
{
    GpuInfo info;
    info.name = name;
    info.computeCapability = "9.0";
    return info;
}

BaselineMeasurement baseline(BaselineKind kind, double medianMs, const std::string &uid, std::string error = {})
{
    BaselineMeasurement m;
    m.uid = uid;
    m.kind = kind;
    m.method = kind == BaselineKind::Eager ? baselinemethod::kLibTorchEager : baselinemethod::kAotiPackage;
    m.opName = "relu";
    m.gpu = gpu();
    m.error = std::move(error);
    if (m.error.empty()) {
        m.samplesMs = {medianMs, medianMs * 1.01, medianMs * 0.99};
        m.wallSamplesMs = {medianMs + 0.01, medianMs + 0.02, medianMs + 0.03};
        m.timing = summarize(m.samplesMs);
        m.timing.wallMedianMs = medianMs + 0.02;
    }
    m.maxAbsError = 1e-6;
    m.details = R"({"package":"abc"})";
    m.createdAtMs = 7;
    return m;
}

Evaluation evaluation(const Candidate &c, double kernelMs, std::vector<BaselineMeasurement> baselines,
                      Precision precision = Precision::Fp32)
{
    Evaluation e;
    e.candidateId = c.id;
    e.runId = c.runId;
    e.gpu = gpu();
    e.status = EvalStatus::Correct;
    e.precision = precision;
    e.samplesMs = {kernelMs};
    e.timing = summarize(e.samplesMs);
    e.baselines = std::move(baselines);
    if (const auto *eager = findBaseline(e.baselines, BaselineKind::Eager)) {
        e.baseline = eager->timing;
        e.speedup = eager->timing.medianMs / kernelMs;
    }
    e.createdAtMs = 100;
    return e;
}

// What the archive gives back has row ids and the run of each measurement; the rest must be as written.
void requireSameMeasurement(BaselineMeasurement stored, BaselineMeasurement written)
{
    CHECK(stored.id > 0);
    stored.id = 0;
    written.runId = stored.runId;
    CHECK(stored == written);
}

std::int64_t rowCount(const Archive &archive, const char *table)
{
    sqlite3_stmt *statement = nullptr;
    const std::string sql = std::string("SELECT COUNT(*) FROM ") + table;
    REQUIRE(sqlite3_prepare_v2(archive.handle(), sql.c_str(), -1, &statement, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(statement) == SQLITE_ROW);
    const auto count = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    return count;
}

} // namespace

TEST_CASE("a baseline is stored once, whatever the number of evaluations that were compared with it")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, reluOp());
    Run run;
    run.opName = "relu";
    const auto runId = archive->createRun(tx, run);
    const auto eager = baseline(BaselineKind::Eager, 0.2, "eager-1");
    const auto inductor = baseline(BaselineKind::Inductor, 0.15, "inductor-1");
    const auto first = candidate("a", runId);
    const auto second = candidate("b", runId);
    archive->addCandidate(tx, first);
    archive->addCandidate(tx, second);
    const auto written = evaluation(first, 0.1, {eager, inductor}, Precision::Tf32);
    archive->addEvaluation(tx, written);
    archive->addEvaluation(tx, evaluation(second, 0.3, {eager, inductor}, Precision::Tf32));
    tx.commit();
    CHECK(rowCount(*archive, "baselines") == 2);

    const auto stored = archive->evaluations(first.id);
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].precision == Precision::Tf32);
    REQUIRE(stored[0].baselines.size() == 2);
    requireSameMeasurement(stored[0].baselines[0], eager);
    requireSameMeasurement(stored[0].baselines[1], inductor);
    CHECK(stored[0].baselines[0].runId == runId);
    CHECK(speedupOverInductor(stored[0]) == doctest::Approx(1.5));

    const auto ofRun = archive->baselines(runId);
    REQUIRE(ofRun.size() == 2);
    CHECK(ofRun[0].uid == "eager-1");
    CHECK(ofRun[1].samplesMs == inductor.samplesMs);
    CHECK(archive->baselines(runId + 1).empty());
}

TEST_CASE("the best kernels are per precision policy and carry the Inductor time they were compared with")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, reluOp());
    const auto fp32 = candidate("fp32");
    const auto tf32 = candidate("tf32");
    const auto noInductor = candidate("no inductor");
    for (const auto &c : {fp32, tf32, noInductor})
        archive->addCandidate(tx, c);
    archive->addEvaluation(
        tx,
        evaluation(fp32, 0.2, {baseline(BaselineKind::Eager, 0.3, "e1"), baseline(BaselineKind::Inductor, 0.1, "i1")}));
    archive->addEvaluation(
        tx,
        evaluation(tf32, 0.1, {baseline(BaselineKind::Eager, 0.25, "e2"), baseline(BaselineKind::Inductor, 0.2, "i2")},
                   Precision::Tf32));
    archive->addEvaluation(tx, evaluation(noInductor, 0.5,
                                          {baseline(BaselineKind::Eager, 0.3, "e3"),
                                           baseline(BaselineKind::Inductor, 0, "i3", "torch.export failed")}));
    tx.commit();

    const auto best = archive->bestKernels("relu");
    REQUIRE(best.size() == 2);
    CHECK(best[0].precision == Precision::Fp32);
    CHECK(best[0].candidateId == fp32.id);
    REQUIRE(best[0].inductorMs.has_value());
    CHECK(*best[0].inductorMs == doctest::Approx(0.1));
    CHECK(*best[0].speedupOverInductor() == doctest::Approx(0.5)); // beats eager, loses to Inductor
    CHECK(best[0].inductorMethod == baselinemethod::kAotiPackage);
    CHECK(best[1].precision == Precision::Tf32);
    CHECK(best[1].candidateId == tf32.id);
    CHECK(*best[1].speedupOverInductor() == doctest::Approx(2.0));

    const auto summaries = archive->candidateSummaries();
    const auto find = [&](const Candidate &c) {
        return *std::find_if(summaries.begin(), summaries.end(), [&](const auto &s) { return s.id == c.id; });
    };
    CHECK(find(fp32).bestSpeedupOverInductor == doctest::Approx(0.5));
    CHECK(find(tf32).bestPrecision == Precision::Tf32);
    CHECK_FALSE(find(noInductor).bestSpeedupOverInductor.has_value());

    // Only the slowest has no usable Inductor time: its note says why, where it is the best.
    auto only = openOrFail(dir.filePath("b.kxdb"));
    auto tx2 = only->begin();
    only->putOp(tx2, reluOp());
    only->addCandidate(tx2, noInductor);
    only->addEvaluation(tx2, evaluation(noInductor, 0.5,
                                        {baseline(BaselineKind::Eager, 0.3, "e3"),
                                         baseline(BaselineKind::Inductor, 0, "i3", "torch.export failed")}));
    tx2.commit();
    const auto lone = only->bestKernels("relu");
    REQUIRE(lone.size() == 1);
    CHECK_FALSE(lone[0].inductorMs.has_value());
    CHECK(lone[0].inductorNote == "torch.export failed");
}

TEST_CASE("export and import keep the baselines, each once")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, reluOp());
    Run run;
    run.opName = "relu";
    const auto runId = archive->createRun(tx, run);
    const auto a = candidate("a", runId);
    const auto b = candidate("b", runId);
    archive->addCandidate(tx, a);
    archive->addCandidate(tx, b);
    const std::vector<BaselineMeasurement> shared{baseline(BaselineKind::Eager, 0.2, "eager-x"),
                                                  baseline(BaselineKind::Inductor, 0, "inductor-x", "crashed")};
    archive->addEvaluation(tx, evaluation(a, 0.1, shared, Precision::KernelBench));
    archive->addEvaluation(tx, evaluation(b, 0.4, shared, Precision::KernelBench));
    tx.commit();

    const auto exported = exportArchive(*archive);
    CHECK(exported.at("version") == kExportFormatVersion);
    auto other = openOrFail(dir.filePath("b.kxdb"));
    const auto stats = importArchive(*other, exported);
    REQUIRE_MESSAGE(stats, (stats ? "" : stats.error().message));
    CHECK(rowCount(*other, "baselines") == 2);
    for (const auto &c : {a, b}) {
        const auto original = archive->evaluations(c.id);
        const auto imported = other->evaluations(c.id);
        REQUIRE(imported.size() == 1);
        CHECK(imported[0].precision == Precision::KernelBench);
        REQUIRE(imported[0].baselines.size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
            auto left = original[0].baselines[i];
            auto right = imported[0].baselines[i];
            left.id = right.id = 0;
            left.runId = right.runId = std::nullopt;
            CHECK(left == right);
        }
    }
    CHECK(exportArchive(*other).dump() == exported.dump());
}

TEST_CASE("an Inductor package is kept with its op, once per content")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    auto tx = archive->begin();
    archive->putOp(tx, reluOp());
    const InductorPackageRecord record{"sha", "sm_90", "2.11.0", "N=1024", R"({"compileSeconds":9})", 0, 0};
    archive->putInductorPackage(tx, "relu", record, std::string("\0PK\x03\x04", 5));
    archive->putInductorPackage(tx, "relu", record, std::string("\0PK\x03\x04", 5));
    tx.commit();
    const auto packages = archive->inductorPackages("relu");
    REQUIRE(packages.size() == 1);
    CHECK(packages[0].arch == "sm_90");
    CHECK(packages[0].bytes == 5);
    CHECK(archive->inductorPackageBytes("sha") == std::string("\0PK\x03\x04", 5));
    CHECK(archive->inductorPackageBytes("other").empty());
}

TEST_CASE("an archive from before baselines opens: its evaluations are fp32 and have no Inductor measurement")
{
    TemporaryDir dir;
    const auto path = dir.filePath("old.kxdb");
    {
        sqlite3 *db = nullptr;
        REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
        schema::migrate(db, 4);
        char *error = nullptr;
        const int rc = sqlite3_exec(db, R"sql(
            INSERT INTO ops(name, source_kind, definition, created_at, updated_at)
                VALUES('relu', 'builtin', '{"name":"relu"}', 1, 1);
            INSERT INTO candidates(id, op_name, source, launch_plan, origin, operator, description, created_at)
                VALUES('abcd1234', 'relu', 'src', '{}', 'manual', 'edit', '', 1);
            INSERT INTO gpus(fingerprint, name, info) VALUES('f', 'GPU', '{"name":"GPU"}');
            INSERT INTO evaluations(candidate_id, gpu_id, status, message, speedup, median_ms, baseline_ms, details,
                                    samples, created_at)
                VALUES('abcd1234', 1, 'correct', 'correct; 2x', 2.0, 0.1, 0.2,
                       '{"compile":{},"correctness":{},"timing":{"medianMs":0.1},"baseline":{"medianMs":0.2}}',
                       '{"candidate":[0.1],"baseline":[0.2]}', 5);)sql",
                                    nullptr, nullptr, &error);
        CHECK_MESSAGE(rc == SQLITE_OK, (error ? error : ""));
        sqlite3_free(error);
        sqlite3_close(db);
    }
    auto archive = openOrFail(path);
    CHECK(archive->schemaVersion() == Archive::currentSchemaVersion());
    const auto evaluations = archive->evaluations("abcd1234");
    REQUIRE(evaluations.size() == 1);
    CHECK(evaluations[0].precision == Precision::Fp32);
    CHECK(evaluations[0].baselines.empty());
    CHECK(evaluations[0].baselineSamplesMs == std::vector<double>{0.2});
    CHECK_FALSE(speedupOverInductor(evaluations[0]).has_value());
    const auto best = archive->bestKernels("relu");
    REQUIRE(best.size() == 1);
    CHECK_FALSE(best[0].inductorMs.has_value());
    CHECK(best[0].inductorNote.empty());
}
