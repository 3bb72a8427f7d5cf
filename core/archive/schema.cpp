#include "core/archive/schema.h"

#include "core/archive/archive.h"
#include "core/archive/statement.h"
#include "core/version.h"

#include <sqlite3.h>

#include <array>
#include <string>

namespace kx::schema {
namespace {

// Step N turns a version N-1 archive into version N. Steps are never edited once released: add a new one.
constexpr std::array<const char *, 6> kMigrations{
    // 1: the initial schema.
    R"sql(
    CREATE TABLE schema_version(version INTEGER NOT NULL);
    INSERT INTO schema_version(version) VALUES (0);
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE ops(
        name TEXT PRIMARY KEY,
        source_kind TEXT NOT NULL,
        definition TEXT NOT NULL,
        source_text TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL);
    CREATE TABLE runs(
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        op_name TEXT NOT NULL REFERENCES ops(name),
        seed INTEGER NOT NULL,
        settings TEXT NOT NULL,
        environment TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL);
    CREATE INDEX idx_runs_op ON runs(op_name);
    CREATE TABLE candidates(
        id TEXT PRIMARY KEY,
        op_name TEXT NOT NULL REFERENCES ops(name),
        source TEXT NOT NULL,
        launch_plan TEXT NOT NULL,
        origin TEXT NOT NULL,
        operator TEXT NOT NULL,
        description TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id),
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_candidates_op ON candidates(op_name);
    CREATE INDEX idx_candidates_run ON candidates(run_id);
    CREATE TABLE candidate_parents(
        candidate_id TEXT NOT NULL REFERENCES candidates(id),
        position INTEGER NOT NULL,
        parent_id TEXT NOT NULL,
        PRIMARY KEY(candidate_id, position));
    CREATE INDEX idx_parents_parent ON candidate_parents(parent_id);
    CREATE TABLE run_candidates(
        run_id INTEGER NOT NULL REFERENCES runs(id),
        candidate_id TEXT NOT NULL REFERENCES candidates(id),
        PRIMARY KEY(run_id, candidate_id));
    CREATE TABLE gpus(
        id INTEGER PRIMARY KEY,
        fingerprint TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        info TEXT NOT NULL);
    CREATE TABLE evaluations(
        id INTEGER PRIMARY KEY,
        candidate_id TEXT NOT NULL REFERENCES candidates(id),
        gpu_id INTEGER NOT NULL REFERENCES gpus(id),
        run_id INTEGER REFERENCES runs(id),
        status TEXT NOT NULL,
        message TEXT NOT NULL,
        speedup REAL NOT NULL,
        median_ms REAL NOT NULL,
        baseline_ms REAL NOT NULL,
        details TEXT NOT NULL,
        samples TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_evaluations_candidate ON evaluations(candidate_id);
    CREATE INDEX idx_evaluations_gpu ON evaluations(gpu_id, status, speedup);
    CREATE TABLE flags(
        evaluation_id INTEGER NOT NULL REFERENCES evaluations(id),
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        evidence TEXT NOT NULL,
        PRIMARY KEY(evaluation_id, position));
    CREATE TABLE verdicts(
        id INTEGER PRIMARY KEY,
        candidate_id TEXT NOT NULL REFERENCES candidates(id),
        accepted INTEGER NOT NULL,
        reason TEXT NOT NULL,
        note TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_verdicts_candidate ON verdicts(candidate_id);
    )sql",
    // 2: verdicts can be retracted (undo keeps history); review and per-run queries get indexes.
    R"sql(
    ALTER TABLE verdicts ADD COLUMN retracted INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX idx_flags_kind ON flags(kind);
    CREATE INDEX idx_evaluations_run ON evaluations(run_id);
    )sql",
    // 3: the search engine records each candidate's genome (template parameters) and its generation in a run.
    R"sql(
    ALTER TABLE candidates ADD COLUMN genome TEXT NOT NULL DEFAULT '';
    ALTER TABLE run_candidates ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 4: candidates made by language models or external commands keep their prompt, response and cost.
    R"sql(
    CREATE TABLE candidate_provenance(
        candidate_id TEXT PRIMARY KEY REFERENCES candidates(id),
        proposer TEXT NOT NULL,
        model TEXT NOT NULL,
        prompt TEXT NOT NULL,
        prompt_sha256 TEXT NOT NULL,
        response TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        cost REAL NOT NULL,
        note TEXT NOT NULL);
    )sql",
    // 5: baselines (eager PyTorch, torch.compile's Inductor) are measured once per run and GPU and referred to
    // by the evaluations compared with them; evaluations record their precision policy; Inductor packages are
    // kept with their op. Older evaluations are fp32 and have no Inductor measurement.
    R"sql(
    CREATE TABLE baselines(
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        op_name TEXT NOT NULL,
        run_id INTEGER REFERENCES runs(id),
        gpu_id INTEGER NOT NULL REFERENCES gpus(id),
        kind TEXT NOT NULL,
        method TEXT NOT NULL,
        precision TEXT NOT NULL,
        median_ms REAL NOT NULL,
        error TEXT NOT NULL,
        measurement TEXT NOT NULL,
        samples TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_baselines_run ON baselines(run_id, gpu_id, kind);
    ALTER TABLE evaluations ADD COLUMN precision TEXT NOT NULL DEFAULT 'fp32';
    ALTER TABLE evaluations ADD COLUMN eager_baseline_id INTEGER REFERENCES baselines(id);
    ALTER TABLE evaluations ADD COLUMN inductor_baseline_id INTEGER REFERENCES baselines(id);
    CREATE TABLE inductor_packages(
        sha256 TEXT PRIMARY KEY,
        op_name TEXT NOT NULL,
        arch TEXT NOT NULL,
        torch_version TEXT NOT NULL,
        shapes TEXT NOT NULL,
        details TEXT NOT NULL,
        package BLOB NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_inductor_packages_op ON inductor_packages(op_name, arch);
    )sql",
    // 6: Nsight Compute profiles of one launch of a candidate (target 'candidate') or of the eager reference it is
    // compared with (target 'eager'): aggregate metrics, per-kernel rows and findings as JSON. A profile that
    // failed keeps its error; one that failed before a GPU was reached has no GPU.
    R"sql(
    CREATE TABLE profiles(
        id INTEGER PRIMARY KEY,
        candidate_id TEXT NOT NULL REFERENCES candidates(id),
        target TEXT NOT NULL,
        gpu_id INTEGER REFERENCES gpus(id),
        ncu_version TEXT NOT NULL,
        metrics TEXT NOT NULL,
        kernels TEXT NOT NULL,
        findings TEXT NOT NULL,
        error TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE INDEX idx_profiles_candidate ON profiles(candidate_id);
    )sql",
};

bool hasTable(sqlite3 *db, const char *name)
{
    Statement query(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1");
    query.bind(1, name);
    return query.step();
}

} // namespace

int currentVersion()
{
    return int(kMigrations.size());
}

int storedVersion(sqlite3 *db)
{
    Statement appId(db, "PRAGMA application_id");
    appId.step();
    const auto id = appId.int64(0);
    Statement tables(db, "SELECT COUNT(*) FROM sqlite_master");
    tables.step();
    const auto tableCount = tables.int64(0);
    if (id == 0 && tableCount == 0)
        return 0;
    if (id != kApplicationId || !hasTable(db, "schema_version"))
        return -1;
    Statement version(db, "SELECT version, typeof(version) FROM schema_version");
    if (!version.step())
        return -1;
    // A committed archive never holds version 0 (step 1 sets 1 in the transaction that creates the table):
    // anything but a positive whole number means the file was damaged or edited.
    if (version.text(1) != "integer" || version.int64(0) < 1)
        throw ArchiveError("its schema version is '" + version.text(0).substr(0, 40)
                           + "' where a positive whole number belongs: the file is damaged or was edited by hand "
                             "(restore it from a backup or an export)");
    return int(version.int64(0));
}

void migrate(sqlite3 *db, int targetVersion)
{
    // An archive that is up to date needs no lock (another process may be writing to it).
    if (const int version = storedVersion(db); version >= targetVersion || version < 0) {
        if (version < 0)
            throw ArchiveError("not a Kernel Explorer archive (an SQLite database of another program)");
        return;
    }
    // The version is read again under the write lock before every step: other processes may be creating or
    // migrating the same file at the same moment, and a step must run exactly once.
    for (;;) {
        executeSql(db, "BEGIN IMMEDIATE");
        try {
            const int version = storedVersion(db);
            if (version < 0)
                throw ArchiveError("not a Kernel Explorer archive (an SQLite database of another program)");
            if (version >= targetVersion) {
                executeSql(db, "COMMIT");
                return;
            }
            executeSql(db, kMigrations[std::size_t(version)]);
            Statement setVersion(db, "UPDATE schema_version SET version=?1");
            setVersion.bind(1, version + 1).run();
            if (version == 0) {
                executeSql(db, ("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str());
                Statement meta(db, "INSERT INTO meta(key, value) VALUES('created_by', ?1)");
                meta.bind(1, std::string(kProjectName) + " " + kVersion).run();
            }
            executeSql(db, "COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
}

} // namespace kx::schema
