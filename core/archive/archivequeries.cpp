// Reads: every query the CLI and the UI need.
#include "core/archive/archive.h"

#include "core/archive/statement.h"
#include "core/domain/domainjson.h"

#include <sqlite3.h>

#include <map>

#include <sys/stat.h>

namespace kx {
namespace {

std::int64_t count(sqlite3 *db, const char *table)
{
    Statement query(db, std::string("SELECT COUNT(*) FROM ") + table);
    query.step();
    return query.int64(0);
}

constexpr const char *kCandidateColumns =
    "c.id, c.op_name, c.source, c.launch_plan, c.origin, c.operator, c.description, c.run_id, c.created_at, c.genome";

Candidate readCandidate(sqlite3 *db, const Statement &row)
{
    Candidate candidate;
    candidate.id = row.text(0);
    candidate.opName = row.text(1);
    candidate.source = row.text(2);
    candidate.launchPlan = row.text(3);
    candidate.origin = originFromString(row.text(4));
    candidate.operatorName = row.text(5);
    candidate.description = row.text(6);
    candidate.runId = row.optionalInt64(7);
    candidate.createdAtMs = row.int64(8);
    candidate.genome = row.text(9);
    Statement parents(db, "SELECT parent_id FROM candidate_parents WHERE candidate_id=?1 ORDER BY position");
    parents.bind(1, candidate.id);
    while (parents.step())
        candidate.parentIds.push_back(parents.text(0));
    return candidate;
}

std::vector<Candidate> readCandidates(sqlite3 *db, Statement &query)
{
    std::vector<Candidate> result;
    while (query.step())
        result.push_back(readCandidate(db, query));
    return result;
}

Run readRun(const Statement &row)
{
    Run run;
    run.id = row.int64(0);
    run.uid = row.text(1);
    run.opName = row.text(2);
    run.seed = std::uint64_t(row.int64(3));
    run.settings = row.text(4);
    run.environment = row.text(5);
    run.state = runStateFromString(row.text(6));
    run.createdAtMs = row.int64(7);
    run.updatedAtMs = row.int64(8);
    return run;
}

constexpr const char *kRunColumns = "id, uid, op_name, seed, settings, environment, state, created_at, updated_at";

// The summary query: each candidate with its most favourable evaluation (correct first, then fastest,
// then newest) on the chosen GPU, its flag count and its current verdict.
constexpr const char *kSummarySql = R"sql(
    WITH ranked AS (
        SELECT e.candidate_id, e.status, g.name AS gpu, e.speedup, e.median_ms, e.precision,
               ib.median_ms AS inductor_ms,
               ROW_NUMBER() OVER (PARTITION BY e.candidate_id
                                  ORDER BY e.status = 'correct' DESC, e.speedup DESC, e.id DESC) AS rank
        FROM evaluations e JOIN gpus g ON g.id = e.gpu_id
        LEFT JOIN baselines ib ON ib.id = e.inductor_baseline_id AND ib.error = '' AND ib.median_ms > 0
        WHERE ?3 = '' OR g.name = ?3),
    verdict AS (
        SELECT candidate_id, accepted, reason,
               ROW_NUMBER() OVER (PARTITION BY candidate_id ORDER BY id DESC) AS rank
        FROM verdicts WHERE retracted = 0),
    flagged AS (
        SELECT e.candidate_id, COUNT(*) AS flags,
               SUM(CASE f.kind WHEN 'impossible' THEN 10 WHEN 'suspicious' THEN 3 ELSE 1 END) AS suspicion
        FROM flags f JOIN evaluations e ON e.id = f.evaluation_id GROUP BY e.candidate_id),
    counted AS (
        SELECT candidate_id, COUNT(*) AS evaluations FROM evaluations GROUP BY candidate_id)
    SELECT c.id, c.op_name, c.origin, c.operator, c.description, c.run_id, c.created_at,
           COALESCE(n.evaluations, 0), r.status, r.gpu, r.speedup, r.median_ms,
           COALESCE(f.flags, 0), v.accepted, v.reason, COALESCE(f.suspicion, 0), r.precision, r.inductor_ms
    FROM candidates c
    LEFT JOIN ranked r ON r.candidate_id = c.id AND r.rank = 1
    LEFT JOIN verdict v ON v.candidate_id = c.id AND v.rank = 1
    LEFT JOIN flagged f ON f.candidate_id = c.id
    LEFT JOIN counted n ON n.candidate_id = c.id
    WHERE (?1 = '' OR c.op_name = ?1)
      AND (?2 IS NULL OR c.id IN (SELECT candidate_id FROM run_candidates WHERE run_id = ?2))
      AND (?3 = '' OR r.status IS NOT NULL)
      AND (?4 = 0 OR v.accepted IS NULL)
      AND (?5 = 0 OR COALESCE(f.flags, 0) > 0)
      AND (?6 = 0 OR (r.status = 'correct' AND COALESCE(f.flags, 0) > 0 AND v.accepted IS NULL))
    ORDER BY CASE WHEN ?6 = 0 THEN 0 ELSE -COALESCE(f.suspicion, 0) END,
             CASE WHEN ?6 = 0 THEN 0 ELSE -r.speedup END,
             c.rowid
    LIMIT CASE WHEN ?7 > 0 THEN ?7 ELSE -1 END)sql";

CandidateSummary readSummary(const Statement &row)
{
    CandidateSummary summary;
    summary.id = row.text(0);
    summary.opName = row.text(1);
    summary.origin = originFromString(row.text(2));
    summary.operatorName = row.text(3);
    summary.description = row.text(4);
    summary.runId = row.optionalInt64(5);
    summary.createdAtMs = row.int64(6);
    summary.evaluationCount = int(row.int64(7));
    if (!row.isNull(8)) {
        summary.bestStatus = evalStatusFromString(row.text(8));
        summary.bestGpu = row.text(9);
        summary.bestSpeedup = row.real(10);
        summary.bestMedianMs = row.real(11);
    }
    summary.flagCount = int(row.int64(12));
    if (!row.isNull(13)) {
        summary.accepted = row.int64(13) != 0;
        summary.verdictReason = row.text(14);
    }
    if (!row.isNull(16))
        summary.bestPrecision = precisionFromString(row.text(16));
    if (!row.isNull(17) && summary.bestStatus == EvalStatus::Correct && summary.bestMedianMs > 0)
        summary.bestSpeedupOverInductor = row.real(17) / summary.bestMedianMs;
    return summary;
}

std::vector<CandidateSummary> querySummaries(sqlite3 *db, const CandidateFilter &filter, bool reviewQueue)
{
    Statement query(db, kSummarySql);
    query.bind(1, filter.opName).bind(2, filter.runId).bind(3, filter.gpuName);
    query.bind(4, filter.onlyUnreviewed ? 1 : 0).bind(5, filter.onlyFlagged ? 1 : 0).bind(6, reviewQueue ? 1 : 0);
    query.bind(7, filter.limit);
    std::vector<CandidateSummary> result;
    while (query.step())
        result.push_back(readSummary(query));
    return result;
}

} // namespace

ArchiveInfo Archive::info() const
{
    ArchiveInfo info;
    info.path = m_path;
    info.schemaVersion = schemaVersion();
    Statement createdBy(m_db, "SELECT value FROM meta WHERE key='created_by'");
    if (createdBy.step())
        info.createdBy = createdBy.text(0);
    info.ops = count(m_db, "ops");
    info.runs = count(m_db, "runs");
    info.candidates = count(m_db, "candidates");
    info.evaluations = count(m_db, "evaluations");
    info.verdicts = count(m_db, "verdicts");
    info.gpus = count(m_db, "gpus");
    struct stat file
    {};
    if (::stat(m_path.c_str(), &file) == 0)
        info.fileBytes = file.st_size;
    return info;
}

std::vector<Op> Archive::ops() const
{
    Statement query(m_db, "SELECT definition FROM ops ORDER BY name");
    std::vector<Op> result;
    while (query.step())
        result.push_back(nlohmann::json::parse(query.text(0)).get<Op>());
    return result;
}

std::optional<Op> Archive::op(const std::string &name) const
{
    Statement query(m_db, "SELECT definition FROM ops WHERE name=?1");
    query.bind(1, name);
    if (!query.step())
        return std::nullopt;
    return nlohmann::json::parse(query.text(0)).get<Op>();
}

std::string Archive::opSourceText(const std::string &name) const
{
    Statement query(m_db, "SELECT source_text FROM ops WHERE name=?1");
    query.bind(1, name);
    return query.step() ? query.text(0) : std::string();
}

std::vector<Run> Archive::runs(const std::string &opName) const
{
    Statement query(m_db, std::string("SELECT ") + kRunColumns + " FROM runs WHERE ?1='' OR op_name=?1 ORDER BY id");
    query.bind(1, opName);
    std::vector<Run> result;
    while (query.step())
        result.push_back(readRun(query));
    return result;
}

std::optional<Run> Archive::run(std::int64_t id) const
{
    Statement query(m_db, std::string("SELECT ") + kRunColumns + " FROM runs WHERE id=?1");
    query.bind(1, id);
    return query.step() ? std::optional(readRun(query)) : std::nullopt;
}

std::optional<Run> Archive::runByUid(const std::string &uid) const
{
    Statement query(m_db, std::string("SELECT ") + kRunColumns + " FROM runs WHERE uid=?1");
    query.bind(1, uid);
    return query.step() ? std::optional(readRun(query)) : std::nullopt;
}

std::optional<Candidate> Archive::candidate(const std::string &id) const
{
    Statement query(m_db, std::string("SELECT ") + kCandidateColumns + " FROM candidates c WHERE c.id=?1");
    query.bind(1, id);
    return query.step() ? std::optional(readCandidate(m_db, query)) : std::nullopt;
}

Expected<std::string> Archive::resolveCandidateId(const std::string &prefix) const
{
    if (prefix.size() < 4)
        return Error{"candidate id prefix '" + prefix + "' is too short (at least 4 characters)"};
    Statement query(m_db, "SELECT id FROM candidates WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2");
    query.bind(1, prefix);
    if (!query.step())
        return Error{"no candidate with id " + prefix};
    std::string id = query.text(0);
    if (query.step())
        return Error{"candidate id prefix " + prefix + " is ambiguous"};
    return id;
}

std::vector<Candidate> Archive::candidates(const std::string &opName) const
{
    Statement query(m_db, std::string("SELECT ") + kCandidateColumns
                              + " FROM candidates c WHERE ?1='' OR c.op_name=?1 ORDER BY c.rowid");
    query.bind(1, opName);
    return readCandidates(m_db, query);
}

std::vector<Candidate> Archive::candidatesOfRun(std::int64_t runId) const
{
    Statement query(m_db, std::string("SELECT ") + kCandidateColumns
                              + " FROM candidates c JOIN run_candidates m ON m.candidate_id=c.id"
                                " WHERE m.run_id=?1 ORDER BY m.rowid");
    query.bind(1, runId);
    return readCandidates(m_db, query);
}

std::vector<Candidate> Archive::candidateHeadersOfRun(std::int64_t runId) const
{
    Statement query(m_db, "SELECT c.id, c.op_name, c.origin, c.operator, c.description, c.run_id, c.created_at"
                          " FROM candidates c JOIN run_candidates m ON m.candidate_id=c.id"
                          " WHERE m.run_id=?1 ORDER BY m.rowid");
    query.bind(1, runId);
    std::vector<Candidate> result;
    std::map<std::string, std::size_t> index;
    while (query.step()) {
        Candidate candidate;
        candidate.id = query.text(0);
        candidate.opName = query.text(1);
        candidate.origin = originFromString(query.text(2));
        candidate.operatorName = query.text(3);
        candidate.description = query.text(4);
        candidate.runId = query.optionalInt64(5);
        candidate.createdAtMs = query.int64(6);
        index.emplace(candidate.id, result.size());
        result.push_back(std::move(candidate));
    }
    Statement parents(m_db, "SELECT p.candidate_id, p.parent_id FROM candidate_parents p"
                            " JOIN run_candidates m ON m.candidate_id=p.candidate_id"
                            " WHERE m.run_id=?1 ORDER BY p.candidate_id, p.position");
    parents.bind(1, runId);
    while (parents.step())
        if (const auto it = index.find(parents.text(0)); it != index.end())
            result[it->second].parentIds.push_back(parents.text(1));
    return result;
}

std::vector<Evaluation> Archive::evaluationOutcomesOfRun(std::int64_t runId) const
{
    Statement query(m_db, "SELECT e.id, e.candidate_id, e.run_id, g.name, e.status, e.speedup, e.created_at"
                          " FROM evaluations e JOIN gpus g ON g.id=e.gpu_id"
                          " JOIN run_candidates m ON m.candidate_id=e.candidate_id"
                          " WHERE m.run_id=?1 ORDER BY e.id");
    query.bind(1, runId);
    std::vector<Evaluation> result;
    std::map<std::int64_t, std::size_t> index;
    while (query.step()) {
        Evaluation evaluation;
        evaluation.id = query.int64(0);
        evaluation.candidateId = query.text(1);
        evaluation.runId = query.optionalInt64(2);
        evaluation.gpu.name = query.text(3);
        evaluation.status = evalStatusFromString(query.text(4));
        evaluation.speedup = query.real(5);
        evaluation.createdAtMs = query.int64(6);
        index.emplace(evaluation.id, result.size());
        result.push_back(std::move(evaluation));
    }
    Statement flags(m_db, "SELECT f.evaluation_id, f.kind FROM flags f JOIN evaluations e ON e.id=f.evaluation_id"
                          " JOIN run_candidates m ON m.candidate_id=e.candidate_id"
                          " WHERE m.run_id=?1 ORDER BY f.evaluation_id, f.position");
    flags.bind(1, runId);
    while (flags.step())
        if (const auto it = index.find(flags.int64(0)); it != index.end())
            result[it->second].flags.push_back(Flag{flags.text(1), {}});
    return result;
}

std::vector<std::pair<std::string, int>> Archive::runGenerations(std::int64_t runId) const
{
    Statement query(m_db, "SELECT candidate_id, generation FROM run_candidates WHERE run_id=?1 ORDER BY rowid");
    query.bind(1, runId);
    std::vector<std::pair<std::string, int>> result;
    while (query.step())
        result.emplace_back(query.text(0), int(query.int64(1)));
    return result;
}

std::vector<CandidateSummary> Archive::candidateSummaries(const CandidateFilter &filter) const
{
    return querySummaries(m_db, filter, false);
}

std::vector<CandidateSummary> Archive::reviewQueue() const
{
    return querySummaries(m_db, {}, true);
}

std::optional<CandidateProvenance> Archive::provenance(const std::string &candidateId) const
{
    Statement query(m_db, R"sql(
        SELECT proposer, model, prompt, prompt_sha256, response, prompt_tokens, completion_tokens, cost, note
        FROM candidate_provenance WHERE candidate_id=?1)sql");
    query.bind(1, candidateId);
    if (!query.step())
        return std::nullopt;
    CandidateProvenance provenance;
    provenance.proposer = query.text(0);
    provenance.model = query.text(1);
    provenance.prompt = query.text(2);
    provenance.promptSha256 = query.text(3);
    provenance.response = query.text(4);
    provenance.promptTokens = query.int64(5);
    provenance.completionTokens = query.int64(6);
    provenance.cost = query.real(7);
    provenance.note = query.text(8);
    return provenance;
}

RunCost Archive::runCost(std::int64_t runId) const
{
    // The template proposer standing in for a failed model leaves a provenance row too (with its reason):
    // it is no candidate of a model or command.
    Statement query(m_db, R"sql(
        SELECT COALESCE(SUM(p.proposer <> 'template'), 0), COALESCE(SUM(p.prompt_tokens), 0),
               COALESCE(SUM(p.completion_tokens), 0), COALESCE(SUM(p.cost), 0)
        FROM run_candidates r JOIN candidate_provenance p ON p.candidate_id = r.candidate_id
        WHERE r.run_id=?1)sql");
    query.bind(1, runId);
    query.step();
    return RunCost{query.int64(0), query.int64(1), query.int64(2), query.real(3)};
}

namespace {

constexpr const char *kBaselineColumns =
    "b.id, b.uid, b.op_name, b.run_id, g.info, b.kind, b.method, b.precision, b.error, b.measurement, b.samples, "
    "b.created_at";

BaselineMeasurement readBaseline(const Statement &row)
{
    auto measurement = nlohmann::json::parse(row.text(9)).get<BaselineMeasurement>();
    measurement.id = row.int64(0);
    measurement.uid = row.text(1);
    measurement.opName = row.text(2);
    measurement.runId = row.optionalInt64(3);
    measurement.gpu = nlohmann::json::parse(row.text(4)).get<GpuInfo>();
    measurement.kind = baselineKindFromString(row.text(5));
    measurement.method = row.text(6);
    measurement.precision = precisionFromString(row.text(7));
    measurement.error = row.text(8);
    const auto samples = nlohmann::json::parse(row.text(10));
    samples.at("event").get_to(measurement.samplesMs);
    samples.at("wall").get_to(measurement.wallSamplesMs);
    measurement.createdAtMs = row.int64(11);
    return measurement;
}

} // namespace

std::set<std::string> Archive::flagKinds(const std::string &candidateId) const
{
    Statement query(m_db, R"sql(
        SELECT DISTINCT f.kind FROM flags f JOIN evaluations e ON e.id = f.evaluation_id WHERE e.candidate_id=?1)sql");
    query.bind(1, candidateId);
    std::set<std::string> kinds;
    while (query.step())
        kinds.insert(query.text(0));
    return kinds;
}

std::vector<Evaluation> Archive::evaluations(const std::string &candidateId) const
{
    Statement query(m_db, R"sql(
        SELECT e.id, e.candidate_id, e.run_id, g.info, e.status, e.message, e.speedup, e.details, e.samples,
               e.created_at, e.precision, e.eager_baseline_id, e.inductor_baseline_id
        FROM evaluations e JOIN gpus g ON g.id = e.gpu_id WHERE e.candidate_id=?1 ORDER BY e.id)sql");
    query.bind(1, candidateId);
    Statement flags(m_db, "SELECT kind, evidence FROM flags WHERE evaluation_id=?1 ORDER BY position");
    Statement baseline(m_db, std::string("SELECT ") + kBaselineColumns
                                 + " FROM baselines b JOIN gpus g ON g.id = b.gpu_id WHERE b.id=?1");
    std::vector<Evaluation> result;
    while (query.step()) {
        Evaluation evaluation;
        evaluation.id = query.int64(0);
        evaluation.candidateId = query.text(1);
        evaluation.runId = query.optionalInt64(2);
        evaluation.gpu = nlohmann::json::parse(query.text(3)).get<GpuInfo>();
        evaluation.status = evalStatusFromString(query.text(4));
        evaluation.message = query.text(5);
        evaluation.speedup = query.real(6);
        const auto details = nlohmann::json::parse(query.text(7));
        details.at("compile").get_to(evaluation.compile);
        details.at("correctness").get_to(evaluation.correctness);
        details.at("timing").get_to(evaluation.timing);
        details.at("baseline").get_to(evaluation.baseline);
        const auto samples = nlohmann::json::parse(query.text(8));
        samples.at("candidate").get_to(evaluation.samplesMs);
        samples.at("baseline").get_to(evaluation.baselineSamplesMs);
        // Archives written before wall-clock samples were kept have only the medians.
        if (samples.contains("candidateWall"))
            samples.at("candidateWall").get_to(evaluation.wallSamplesMs);
        if (samples.contains("baselineWall"))
            samples.at("baselineWall").get_to(evaluation.baselineWallSamplesMs);
        evaluation.createdAtMs = query.int64(9);
        evaluation.precision = precisionFromString(query.text(10));
        for (const int column : {11, 12}) {
            if (query.isNull(column))
                continue;
            baseline.bind(1, query.int64(column));
            if (baseline.step())
                evaluation.baselines.push_back(readBaseline(baseline));
            baseline.reset();
        }
        flags.bind(1, evaluation.id);
        while (flags.step())
            evaluation.flags.push_back(Flag{flags.text(0), flags.text(1)});
        flags.reset();
        result.push_back(std::move(evaluation));
    }
    return result;
}

std::vector<Profile> Archive::profiles(const std::string &candidateId) const
{
    Statement query(m_db, R"sql(
        SELECT p.id, p.candidate_id, p.target, g.info, p.ncu_version, p.metrics, p.kernels, p.findings, p.error,
               p.created_at
        FROM profiles p LEFT JOIN gpus g ON g.id = p.gpu_id WHERE p.candidate_id=?1 ORDER BY p.id)sql");
    query.bind(1, candidateId);
    std::vector<Profile> result;
    while (query.step()) {
        Profile profile;
        profile.id = query.int64(0);
        profile.candidateId = query.text(1);
        profile.target = profileTargetFromString(query.text(2));
        if (!query.isNull(3))
            profile.gpu = nlohmann::json::parse(query.text(3)).get<GpuInfo>();
        profile.ncuVersion = query.text(4);
        const auto metrics = nlohmann::json::parse(query.text(5));
        metrics.at("metrics").get_to(profile.metrics);
        if (const auto traffic = metrics.find("traffic"); traffic != metrics.end() && !traffic->is_null())
            profile.traffic = traffic->get<TrafficComparison>();
        profile.check = metrics.value("check", std::string());
        nlohmann::json::parse(query.text(6)).get_to(profile.kernels);
        nlohmann::json::parse(query.text(7)).get_to(profile.findings);
        profile.error = query.text(8);
        profile.createdAtMs = query.int64(9);
        result.push_back(std::move(profile));
    }
    return result;
}

std::vector<BaselineMeasurement> Archive::baselines(std::int64_t runId) const
{
    Statement query(m_db, std::string("SELECT ") + kBaselineColumns
                              + " FROM baselines b JOIN gpus g ON g.id = b.gpu_id WHERE b.run_id=?1 ORDER BY b.id");
    query.bind(1, runId);
    std::vector<BaselineMeasurement> result;
    while (query.step())
        result.push_back(readBaseline(query));
    return result;
}

std::vector<InductorPackageRecord> Archive::inductorPackages(const std::string &opName) const
{
    Statement query(m_db, R"sql(
        SELECT sha256, arch, torch_version, shapes, details, LENGTH(package), created_at
        FROM inductor_packages WHERE op_name=?1 ORDER BY created_at)sql");
    query.bind(1, opName);
    std::vector<InductorPackageRecord> result;
    while (query.step())
        result.push_back(InductorPackageRecord{query.text(0), query.text(1), query.text(2), query.text(3),
                                               query.text(4), query.int64(5), query.int64(6)});
    return result;
}

std::string Archive::inductorPackageBytes(const std::string &sha256) const
{
    Statement query(m_db, "SELECT package FROM inductor_packages WHERE sha256=?1");
    query.bind(1, sha256);
    return query.step() ? query.blob(0) : std::string();
}

std::vector<BestKernel> Archive::bestKernels(const std::string &opName, const std::string &gpuName) const
{
    // Rejected candidates (current verdict) and physically impossible timings never count as the best.
    Statement query(m_db, R"sql(
        WITH verdict AS (
            SELECT candidate_id, accepted,
                   ROW_NUMBER() OVER (PARTITION BY candidate_id ORDER BY id DESC) AS rank
            FROM verdicts WHERE retracted = 0),
        ranked AS (
            SELECT c.op_name, g.name AS gpu, e.candidate_id, e.speedup, e.median_ms, e.baseline_ms, e.precision,
                   e.inductor_baseline_id,
                   -- the fastest kernel: its speedup also depends on the baseline measurement it met
                   ROW_NUMBER() OVER (PARTITION BY c.op_name, g.name, e.precision ORDER BY e.median_ms, e.id) AS rank
            FROM evaluations e
            JOIN candidates c ON c.id = e.candidate_id
            JOIN gpus g ON g.id = e.gpu_id
            LEFT JOIN verdict v ON v.candidate_id = c.id AND v.rank = 1
            WHERE e.status = 'correct' AND (v.accepted IS NULL OR v.accepted = 1)
              AND NOT EXISTS (SELECT 1 FROM flags f WHERE f.evaluation_id = e.id AND f.kind = 'impossible')
              AND (?1 = '' OR c.op_name = ?1) AND (?2 = '' OR g.name = ?2))
        SELECT r.op_name, r.gpu, r.candidate_id, r.speedup, r.median_ms, r.baseline_ms, r.precision,
               b.median_ms, b.method, b.error
        FROM ranked r LEFT JOIN baselines b ON b.id = r.inductor_baseline_id
        WHERE r.rank = 1
        ORDER BY r.op_name, r.gpu, r.precision)sql");
    query.bind(1, opName).bind(2, gpuName);
    std::vector<BestKernel> result;
    while (query.step()) {
        BestKernel best;
        best.opName = query.text(0);
        best.gpuName = query.text(1);
        best.candidateId = query.text(2);
        best.speedup = query.real(3);
        best.medianMs = query.real(4);
        best.baselineMs = query.real(5);
        best.precision = precisionFromString(query.text(6));
        if (!query.isNull(7)) {
            best.inductorMethod = query.text(8);
            best.inductorNote = query.text(9);
            if (best.inductorNote.empty() && query.real(7) > 0)
                best.inductorMs = query.real(7);
        }
        result.push_back(std::move(best));
    }
    return result;
}

std::vector<std::string> Archive::gpuNames() const
{
    Statement query(m_db, "SELECT DISTINCT name FROM gpus ORDER BY name");
    std::vector<std::string> result;
    while (query.step())
        result.push_back(query.text(0));
    return result;
}

std::vector<GpuInfo> Archive::gpusOfOp(const std::string &opName) const
{
    Statement query(m_db, R"sql(SELECT g.info FROM gpus g WHERE g.id IN
                                (SELECT e.gpu_id FROM evaluations e JOIN candidates c ON c.id = e.candidate_id
                                 WHERE c.op_name=?1) ORDER BY g.id)sql");
    query.bind(1, opName);
    std::vector<GpuInfo> result;
    while (query.step())
        result.push_back(nlohmann::json::parse(query.text(0)).get<GpuInfo>());
    return result;
}

std::vector<Verdict> Archive::verdicts(const std::string &candidateId) const
{
    Statement query(m_db, R"sql(SELECT id, candidate_id, accepted, reason, note, created_at, retracted
                                FROM verdicts WHERE candidate_id=?1 ORDER BY id)sql");
    query.bind(1, candidateId);
    std::vector<Verdict> result;
    while (query.step())
        result.push_back(Verdict{query.int64(0), query.text(1), query.int64(2) != 0, query.text(3), query.text(4),
                                 query.int64(5), query.int64(6) != 0});
    return result;
}

std::optional<Verdict> Archive::currentVerdict(const std::string &candidateId) const
{
    auto all = verdicts(candidateId);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (!it->retracted)
            return *it;
    return std::nullopt;
}

std::string Archive::integrityCheck() const
{
    Statement query(m_db, "PRAGMA integrity_check");
    std::string result;
    while (query.step())
        result += (result.empty() ? "" : "\n") + query.text(0);
    return result;
}

} // namespace kx
