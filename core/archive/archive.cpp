// Opening, transactions and writes. Reads are in archivequeries.cpp.
#include "core/archive/archive.h"

#include "core/archive/lockholders.h"
#include "core/archive/schema.h"
#include "core/archive/statement.h"
#include "core/domain/domainjson.h"
#include "core/util/clock.h"
#include "core/util/hash.h"

#include <sqlite3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace kx {

// Transaction ---------------------------------------------------------------------------------------

Transaction::Transaction(Archive *archive)
    : m_archive(archive)
{
    const int rc = sqlite3_exec(m_archive->m_db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if ((rc & 0xff) == SQLITE_BUSY)
        throw ArchiveError(busyArchiveMessage(m_archive->m_path, Archive::kBusyTimeoutMs));
    if (rc != SQLITE_OK)
        throw ArchiveError(std::string("cannot start a write on ") + m_archive->m_path + ": "
                           + sqlite3_errmsg(m_archive->m_db));
    m_archive->m_inTransaction = true;
}

Transaction::Transaction(Transaction &&other) noexcept
    : m_archive(other.m_archive)
    , m_open(other.m_open)
{
    other.m_open = false;
}

Transaction::~Transaction()
{
    if (m_open) {
        sqlite3_exec(m_archive->m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        m_archive->m_inTransaction = false;
    }
}

void Transaction::commit()
{
    if (!m_open)
        throw ArchiveError("transaction already finished");
    executeSql(m_archive->m_db, "COMMIT");
    m_open = false;
    m_archive->m_inTransaction = false;
}

// Opening ---------------------------------------------------------------------------------------------

namespace {

struct Connection
{
    sqlite3 *db = nullptr;
    ~Connection() { sqlite3_close_v2(db); }
    sqlite3 *release() { return std::exchange(db, nullptr); }
};

bool fileExists(const std::string &path)
{
    struct stat info
    {};
    return ::stat(path.c_str(), &info) == 0;
}

std::int64_t fileSize(const std::string &path)
{
    struct stat info
    {};
    return ::stat(path.c_str(), &info) == 0 ? std::int64_t(info.st_size) : 0;
}

// A file without write permission is treated as read-only even for root: its owner marked it so.
bool isReadOnlyFile(const std::string &path)
{
    struct stat info
    {};
    return ::access(path.c_str(), W_OK) != 0 || (::stat(path.c_str(), &info) == 0 && (info.st_mode & 0222) == 0);
}

// An archive that cannot be opened is unreadable input, unless it is only busy (another writer holds it).
Error openError(const std::string &path, const std::string &why)
{
    return Error::badInput("cannot open " + path + ": " + why);
}

bool isBusy(sqlite3 *db)
{
    return (sqlite3_extended_errcode(db) & 0xff) == SQLITE_BUSY;
}

// What went wrong in an ArchiveError thrown while opening: a busy lock gets its holders named.
Error openError(const std::string &path, sqlite3 *db, const ArchiveError &error)
{
    if (isBusy(db))
        return Error{"cannot open " + path + ": " + busyArchiveMessage(path, Archive::kBusyTimeoutMs)};
    return openError(path, error.what());
}

// Reads the stored schema version, mapping SQLite's "not a database" to a clear message.
Expected<int> probeVersion(sqlite3 *db, const std::string &path)
{
    try {
        const int version = schema::storedVersion(db);
        if (version < 0)
            return openError(path, "not a Kernel Explorer archive (an SQLite database of another program)");
        if (version > schema::currentVersion())
            return openError(path, "the archive has schema version " + std::to_string(version)
                                       + ", newer than this program understands ("
                                       + std::to_string(schema::currentVersion())
                                       + "); it was left untouched: use a newer Kernel Explorer");
        return version;
    } catch (const ArchiveError &error) {
        const int code = sqlite3_extended_errcode(db);
        if (code == SQLITE_NOTADB)
            return openError(path, "not a Kernel Explorer archive (not an SQLite database)");
        return openError(path, db, error);
    }
}

// "file:" URI of a path, with the characters URIs reserve escaped.
std::string fileUri(const std::string &path)
{
    std::string uri = path.starts_with('/') ? "file://" : "file:";
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            static const char hex[] = "0123456789ABCDEF";
            uri += '%';
            uri += hex[(unsigned char)c >> 4];
            uri += hex[c & 0xf];
        } else {
            uri += c;
        }
    }
    return uri;
}

bool openConnection(Connection &connection, const std::string &name, int flags)
{
    if (sqlite3_open_v2(name.c_str(), &connection.db, flags, nullptr) != SQLITE_OK)
        return false;
    sqlite3_busy_timeout(connection.db, Archive::kBusyTimeoutMs);
    sqlite3_extended_result_codes(connection.db, 1);
    return true;
}

std::string unreadableWalMessage(const std::string &path)
{
    const auto slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    return "its write-ahead log " + path + "-wal holds changes that are not in the file yet, and its index " + path
           + "-shm is missing and cannot be created (is " + folder
           + " read-only for you?); reading without them would silently miss committed rows. Fix: have someone who "
             "may write "
           + folder + " open the archive once (e.g. kx archive info " + path + "), or copy " + path + " together with "
           + path + "-wal into a writable folder and open the copy";
}

// Reading must leave nothing behind: a read-only SQLite connection to a WAL database creates -wal and -shm
// files and, unable to checkpoint, never removes them.
//  - A file nobody may write, without a -wal: opened immutable (no locks, no companion files). With a -wal, its
//    committed frames must still be read, so it is opened read-only and the files (already there) stay.
//  - A writable file without a -wal: opened read-write with query_only, so that the last connection to close
//    removes the files as a writer's would. The WAL then holds only what writers committed meanwhile.
//  - A writable file with a -wal (a writer is or was active): opened read-only; the files were there before.
Expected<int> openForReading(Connection &connection, const std::string &path, bool readOnlyFile)
{
    const bool hasWal = fileExists(path + "-wal");
    const int immutableFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    bool immutable = readOnlyFile && !hasWal;
    bool opened = false;
    if (immutable)
        opened = openConnection(connection, fileUri(path) + "?immutable=1", immutableFlags);
    else if (!readOnlyFile && !hasWal)
        opened = openConnection(connection, path, SQLITE_OPEN_READWRITE)
                 && sqlite3_exec(connection.db, "PRAGMA query_only=ON", nullptr, nullptr, nullptr) == SQLITE_OK;
    else
        opened = openConnection(connection, path, SQLITE_OPEN_READONLY);
    if (!opened)
        return openError(path, connection.db ? sqlite3_errmsg(connection.db) : "out of memory");

    auto version = probeVersion(connection.db, path);
    if (!version && !immutable) {
        // A WAL archive in a read-only folder cannot create its -shm file: read it as immutable instead, which
        // ignores the -wal. That is only right when the -wal holds nothing: else rows would silently be missing.
        Connection fallback;
        if (openConnection(fallback, fileUri(path) + "?immutable=1", immutableFlags)) {
            if (auto retry = probeVersion(fallback.db, path)) {
                if (fileSize(path + "-wal") > 0)
                    return openError(path, unreadableWalMessage(path));
                std::swap(connection.db, fallback.db);
                version = retry;
            }
        }
    }
    return version;
}

// An older archive opened for reading is copied into a private in-memory database and migrated there, so
// that it can be browsed with this program's queries while the file stays as it is.
Status copyAndMigrate(Connection &source, Connection &copy, const std::string &path)
{
    if (!openConnection(copy, ":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
        return openError(path, "cannot create an in-memory copy: out of memory");
    try {
        // An in-memory destination refuses a backup from a database of another page size.
        Statement pageSize(source.db, "PRAGMA page_size");
        pageSize.step();
        executeSql(copy.db, ("PRAGMA page_size=" + std::to_string(pageSize.int64(0))).c_str());
    } catch (const ArchiveError &error) {
        return openError(path, error.what());
    }
    sqlite3_backup *backup = sqlite3_backup_init(copy.db, "main", source.db, "main");
    if (!backup)
        return openError(path, std::string("cannot copy it into memory: ") + sqlite3_errmsg(copy.db));
    const int rc = sqlite3_backup_step(backup, -1);
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE)
        return openError(path, std::string("cannot copy it into memory: ") + sqlite3_errstr(rc));
    try {
        schema::migrate(copy.db, schema::currentVersion());
    } catch (const ArchiveError &error) {
        return openError(path, std::string("cannot upgrade its in-memory copy: ") + error.what());
    }
    return {};
}

} // namespace

Expected<std::unique_ptr<Archive>> Archive::open(const std::string &path, ArchiveMode mode)
{
    const bool exists = fileExists(path);
    if (mode == ArchiveMode::ReadOnly && !exists)
        return openError(path, "no such file");
    const bool readOnlyFile = exists && isReadOnlyFile(path);
    if (mode == ArchiveMode::ReadWrite && readOnlyFile)
        return openError(path, "the file is read-only; open it read-only to browse it");

    Connection connection;
    if (mode == ArchiveMode::ReadOnly) {
        const auto version = openForReading(connection, path, readOnlyFile);
        if (!version)
            return version.error();
        bool upgradedCopy = false;
        if (*version < schema::currentVersion()) {
            Connection copy;
            if (const auto copied = copyAndMigrate(connection, copy, path); !copied)
                return copied.error();
            std::swap(connection.db, copy.db); // the file's connection closes here
            upgradedCopy = true;
        }
        try {
            executeSql(connection.db, "PRAGMA foreign_keys=ON");
        } catch (const ArchiveError &error) {
            return openError(path, error.what());
        }
        return std::unique_ptr<Archive>(new Archive(path, mode, connection.release(), upgradedCopy));
    }

    if (!openConnection(connection, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
        return openError(path, connection.db ? sqlite3_errmsg(connection.db) : "out of memory");
    if (const auto version = probeVersion(connection.db, path); !version)
        return version.error();
    // Processes opening a new file at once race to switch it to WAL: SQLite answers the losers "busy" at once,
    // without waiting (it would deadlock), so the setup is tried again until the busy timeout has passed. Every
    // step may be repeated: the mode switch is a no-op the second time, and the migration re-reads the version.
    const auto giveUp = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
    for (int attempt = 0;; ++attempt) {
        try {
            executeSql(connection.db, "PRAGMA foreign_keys=ON");
            executeSql(connection.db, "PRAGMA journal_mode=WAL");
            executeSql(connection.db, "PRAGMA synchronous=NORMAL");
            // Creation and every migration step run under the write lock (see schema::migrate).
            schema::migrate(connection.db, schema::currentVersion());
            break;
        } catch (const ArchiveError &error) {
            if (!isBusy(connection.db) || std::chrono::steady_clock::now() >= giveUp)
                return openError(path, connection.db, error);
            std::this_thread::sleep_for(std::chrono::milliseconds(10 + 7 * (attempt % 8) + ::getpid() % 11));
        }
    }
    return std::unique_ptr<Archive>(new Archive(path, mode, connection.release()));
}

int Archive::currentSchemaVersion()
{
    return schema::currentVersion();
}

Archive::Archive(std::string path, ArchiveMode mode, sqlite3 *db, bool upgradedCopy)
    : m_path(std::move(path))
    , m_mode(mode)
    , m_db(db)
    , m_upgradedCopy(upgradedCopy)
{}

Archive::~Archive()
{
    sqlite3_close_v2(m_db);
}

int Archive::schemaVersion() const
{
    return schema::storedVersion(m_db);
}

void Archive::execute(const char *sql)
{
    executeSql(m_db, sql);
}

Transaction Archive::begin()
{
    if (isReadOnly())
        throw ArchiveError("the archive " + m_path + " is open read-only");
    if (m_inTransaction)
        throw ArchiveError("a transaction is already open on " + m_path);
    return Transaction(this);
}

void Archive::requireTransaction(const Transaction &tx) const
{
    if (tx.m_archive != this || !tx.m_open)
        throw ArchiveError("write outside an open transaction of this archive");
}

// Writes --------------------------------------------------------------------------------------------

void Archive::putOp(Transaction &tx, const Op &op, const std::string &sourceText)
{
    requireTransaction(tx);
    const auto now = nowMs();
    Statement upsert(m_db, R"sql(
        INSERT INTO ops(name, source_kind, definition, source_text, created_at, updated_at)
        VALUES(?1, ?2, ?3, ?4, ?5, ?5)
        ON CONFLICT(name) DO UPDATE SET source_kind=excluded.source_kind, definition=excluded.definition,
            source_text=CASE WHEN excluded.source_text<>'' THEN excluded.source_text ELSE ops.source_text END,
            updated_at=excluded.updated_at)sql");
    upsert.bind(1, op.name).bind(2, toString(op.sourceKind)).bind(3, nlohmann::json(op).dump());
    upsert.bind(4, sourceText).bind(5, now).run();
}

bool Archive::addCandidate(Transaction &tx, const Candidate &candidate, int generation)
{
    requireTransaction(tx);
    const std::string id =
        candidate.id.empty() ? makeCandidateId(candidate.source, candidate.launchPlan) : candidate.id;
    Statement insert(m_db, R"sql(
        INSERT OR IGNORE INTO candidates(id, op_name, source, launch_plan, origin, operator, description, run_id,
                                         created_at, genome)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))sql");
    insert.bind(1, id).bind(2, candidate.opName).bind(3, candidate.source).bind(4, candidate.launchPlan);
    insert.bind(5, toString(candidate.origin)).bind(6, candidate.operatorName).bind(7, candidate.description);
    insert.bind(8, candidate.runId).bind(9, candidate.createdAtMs ? candidate.createdAtMs : nowMs());
    insert.bind(10, candidate.genome).run();
    const bool added = sqlite3_changes(m_db) > 0;
    if (added) {
        Statement parent(m_db, "INSERT INTO candidate_parents(candidate_id, position, parent_id) VALUES(?1, ?2, ?3)");
        for (std::size_t i = 0; i < candidate.parentIds.size(); ++i)
            parent.bind(1, id).bind(2, std::int64_t(i)).bind(3, candidate.parentIds[i]).run();
        if (candidate.provenance)
            setProvenance(tx, id, *candidate.provenance);
    }
    if (candidate.runId) {
        Statement member(m_db,
                         "INSERT OR IGNORE INTO run_candidates(run_id, candidate_id, generation) VALUES(?1, ?2, ?3)");
        member.bind(1, *candidate.runId).bind(2, id).bind(3, generation).run();
    }
    return added;
}

void Archive::setProvenance(Transaction &tx, const std::string &candidateId, const CandidateProvenance &provenance)
{
    requireTransaction(tx);
    Statement insert(m_db, R"sql(
        INSERT OR REPLACE INTO candidate_provenance(candidate_id, proposer, model, prompt, prompt_sha256, response,
                                                    prompt_tokens, completion_tokens, cost, note)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10))sql");
    insert.bind(1, candidateId).bind(2, provenance.proposer).bind(3, provenance.model).bind(4, provenance.prompt);
    insert.bind(5, provenance.promptSha256).bind(6, provenance.response).bind(7, provenance.promptTokens);
    insert.bind(8, provenance.completionTokens).bind(9, provenance.cost).bind(10, provenance.note).run();
}

std::int64_t Archive::gpuRowId(const GpuInfo &gpu)
{
    const std::string fingerprint = gpu.fingerprint();
    Statement insert(m_db, "INSERT OR IGNORE INTO gpus(fingerprint, name, info) VALUES(?1, ?2, ?3)");
    insert.bind(1, fingerprint).bind(2, gpu.name).bind(3, nlohmann::json(gpu).dump()).run();
    Statement find(m_db, "SELECT id FROM gpus WHERE fingerprint=?1");
    find.bind(1, fingerprint);
    find.step();
    return find.int64(0);
}

std::int64_t Archive::addBaseline(Transaction &tx, const BaselineMeasurement &baseline)
{
    requireTransaction(tx);
    if (!baseline.uid.empty()) {
        Statement find(m_db, "SELECT id FROM baselines WHERE uid=?1");
        find.bind(1, baseline.uid);
        if (find.step())
            return find.int64(0);
    }
    nlohmann::json measurement = baseline;
    for (const char *key : {"uid", "gpu", "samplesMs", "wallSamplesMs"})
        measurement.erase(key);
    const nlohmann::json samples{{"event", baseline.samplesMs}, {"wall", baseline.wallSamplesMs}};
    Statement insert(m_db, R"sql(
        INSERT INTO baselines(uid, op_name, run_id, gpu_id, kind, method, precision, median_ms, error, measurement,
                              samples, created_at)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12))sql");
    insert.bind(1, baseline.uid.empty() ? randomHexId() : baseline.uid).bind(2, baseline.opName);
    insert.bind(3, baseline.runId).bind(4, gpuRowId(baseline.gpu)).bind(5, toString(baseline.kind));
    insert.bind(6, baseline.method).bind(7, toString(baseline.precision)).bind(8, baseline.timing.medianMs);
    insert.bind(9, baseline.error).bind(10, measurement.dump()).bind(11, samples.dump());
    insert.bind(12, baseline.createdAtMs ? baseline.createdAtMs : nowMs());
    insert.run();
    return sqlite3_last_insert_rowid(m_db);
}

void Archive::putInductorPackage(Transaction &tx, const std::string &opName, const InductorPackageRecord &package,
                                 std::string_view bytes)
{
    requireTransaction(tx);
    Statement insert(m_db, R"sql(
        INSERT OR IGNORE INTO inductor_packages(sha256, op_name, arch, torch_version, shapes, details, package,
                                                created_at)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql");
    insert.bind(1, package.sha256).bind(2, opName).bind(3, package.arch).bind(4, package.torchVersion);
    insert.bind(5, package.shapes).bind(6, package.details).bindBlob(7, bytes.data(), bytes.size());
    insert.bind(8, nowMs()).run();
}

std::int64_t Archive::addEvaluation(Transaction &tx, const Evaluation &evaluation)
{
    requireTransaction(tx);
    std::optional<std::int64_t> eagerId;
    std::optional<std::int64_t> inductorId;
    for (auto baseline : evaluation.baselines) {
        if (baseline.gpu.name.empty())
            baseline.gpu = evaluation.gpu;
        if (!baseline.runId)
            baseline.runId = evaluation.runId;
        auto &id = baseline.kind == BaselineKind::Eager ? eagerId : inductorId;
        if (!id)
            id = addBaseline(tx, baseline);
    }
    const nlohmann::json details{{"compile", evaluation.compile},
                                 {"correctness", evaluation.correctness},
                                 {"timing", evaluation.timing},
                                 {"baseline", evaluation.baseline}};
    const nlohmann::json samples{{"candidate", evaluation.samplesMs},
                                 {"candidateWall", evaluation.wallSamplesMs},
                                 {"baseline", evaluation.baselineSamplesMs},
                                 {"baselineWall", evaluation.baselineWallSamplesMs}};
    Statement insert(m_db, R"sql(
        INSERT INTO evaluations(candidate_id, gpu_id, run_id, status, message, speedup, median_ms, baseline_ms,
                                details, samples, created_at, precision, eager_baseline_id, inductor_baseline_id)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14))sql");
    insert.bind(1, evaluation.candidateId).bind(2, gpuRowId(evaluation.gpu)).bind(3, evaluation.runId);
    insert.bind(4, toString(evaluation.status)).bind(5, evaluation.message).bind(6, evaluation.speedup);
    insert.bind(7, evaluation.timing.medianMs).bind(8, evaluation.baseline.medianMs);
    insert.bind(9, details.dump()).bind(10, samples.dump());
    insert.bind(11, evaluation.createdAtMs ? evaluation.createdAtMs : nowMs());
    insert.bind(12, toString(evaluation.precision)).bind(13, eagerId).bind(14, inductorId);
    insert.run();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    Statement flag(m_db, "INSERT INTO flags(evaluation_id, position, kind, evidence) VALUES(?1, ?2, ?3, ?4)");
    for (std::size_t i = 0; i < evaluation.flags.size(); ++i)
        flag.bind(1, id)
            .bind(2, std::int64_t(i))
            .bind(3, evaluation.flags[i].kind)
            .bind(4, evaluation.flags[i].evidence)
            .run();
    return id;
}

std::int64_t Archive::createRun(Transaction &tx, const Run &run)
{
    requireTransaction(tx);
    const auto now = nowMs();
    Statement insert(m_db, R"sql(
        INSERT INTO runs(uid, op_name, seed, settings, environment, state, created_at, updated_at)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))sql");
    insert.bind(1, run.uid.empty() ? randomHexId() : run.uid).bind(2, run.opName);
    insert.bind(3, std::int64_t(run.seed)).bind(4, run.settings.empty() ? "{}" : run.settings);
    insert.bind(5, run.environment.empty() ? "{}" : run.environment).bind(6, toString(run.state));
    insert.bind(7, run.createdAtMs ? run.createdAtMs : now).bind(8, run.updatedAtMs ? run.updatedAtMs : now);
    insert.run();
    return sqlite3_last_insert_rowid(m_db);
}

void Archive::setRunState(Transaction &tx, std::int64_t runId, RunState state)
{
    requireTransaction(tx);
    Statement update(m_db, "UPDATE runs SET state=?1, updated_at=?2 WHERE id=?3");
    update.bind(1, toString(state)).bind(2, nowMs()).bind(3, runId).run();
    if (sqlite3_changes(m_db) == 0)
        throw ArchiveError("no run with id " + std::to_string(runId));
}

std::int64_t Archive::addVerdict(Transaction &tx, const Verdict &verdict)
{
    requireTransaction(tx);
    Statement insert(m_db, R"sql(
        INSERT INTO verdicts(candidate_id, accepted, reason, note, created_at, retracted)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6))sql");
    insert.bind(1, verdict.candidateId).bind(2, verdict.accepted ? 1 : 0).bind(3, verdict.reasonCode);
    insert.bind(4, verdict.note).bind(5, verdict.createdAtMs ? verdict.createdAtMs : nowMs());
    insert.bind(6, verdict.retracted ? 1 : 0).run();
    return sqlite3_last_insert_rowid(m_db);
}

std::int64_t Archive::addProfile(Transaction &tx, const Profile &profile)
{
    requireTransaction(tx);
    const nlohmann::json metrics{{"metrics", profile.metrics},
                                 {"traffic", profile.traffic ? nlohmann::json(*profile.traffic) : nlohmann::json()},
                                 {"check", profile.check}};
    Statement insert(m_db, R"sql(
        INSERT INTO profiles(candidate_id, target, gpu_id, ncu_version, metrics, kernels, findings, error, created_at)
        VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9))sql");
    insert.bind(1, profile.candidateId).bind(2, toString(profile.target));
    if (profile.gpu.name.empty())
        insert.bindNull(3);
    else
        insert.bind(3, gpuRowId(profile.gpu));
    insert.bind(4, profile.ncuVersion).bind(5, metrics.dump()).bind(6, nlohmann::json(profile.kernels).dump());
    insert.bind(7, nlohmann::json(profile.findings).dump()).bind(8, profile.error);
    const std::int64_t createdAtMs = profile.createdAtMs ? profile.createdAtMs : nowMs();
    insert.bind(9, createdAtMs).run();
    const std::int64_t id = sqlite3_last_insert_rowid(m_db);
    flagImpossibleFromProfile(profile, createdAtMs);
    return id;
}

void Archive::flagImpossibleFromProfile(const Profile &profile, std::int64_t createdAtMs)
{
    // Measured DRAM traffic far below what the op must move cannot be an honest kernel's on that GPU: its
    // evaluations there get an "impossible" flag, so that every definition of the best (kx best, the lineage,
    // the plots, the review) leaves it out, with the profile's numbers as evidence.
    if (profile.target != ProfileTarget::Candidate || profile.gpu.name.empty())
        return;
    for (const auto &finding : profile.findings) {
        if (finding.kind != "moved-too-few-bytes")
            continue;
        auto evidence = nlohmann::json::parse(finding.evidence, nullptr, false);
        if (!evidence.is_object())
            evidence = nlohmann::json::object();
        // The same text for the same profile in any archive: an import does not flag twice.
        evidence["source"] = "Nsight Compute profile";
        evidence["finding"] = finding.kind;
        evidence["profiledAtMs"] = createdAtMs;
        Statement add(m_db, R"sql(
            INSERT INTO flags(evaluation_id, position, kind, evidence)
            SELECT e.id, COALESCE((SELECT MAX(position) + 1 FROM flags WHERE evaluation_id = e.id), 0),
                   'impossible', ?3
            FROM evaluations e WHERE e.candidate_id = ?1 AND e.gpu_id = ?2
              AND NOT EXISTS (SELECT 1 FROM flags f WHERE f.evaluation_id = e.id AND f.evidence = ?3))sql");
        add.bind(1, profile.candidateId).bind(2, gpuRowId(profile.gpu)).bind(3, evidence.dump()).run();
    }
}

void Archive::retractVerdict(Transaction &tx, std::int64_t verdictId)
{
    requireTransaction(tx);
    Statement update(m_db, "UPDATE verdicts SET retracted=1 WHERE id=?1");
    update.bind(1, verdictId).run();
    if (sqlite3_changes(m_db) == 0)
        throw ArchiveError("no verdict with id " + std::to_string(verdictId));
}

} // namespace kx
