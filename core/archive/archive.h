#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/profile.h"
#include "core/domain/run.h"
#include "core/domain/verdict.h"
#include "core/util/expected.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace kx {

class Archive;

/// Thrown for failures nobody can plan for (disk full, I/O error) and misuse (writing a read-only archive).
class ArchiveError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/**
 * Proof that a write transaction is open: every mutating Archive call takes one.
 * Destroying it without commit() rolls the transaction back.
 */
class Transaction
{
public:
    Transaction(Transaction &&other) noexcept;
    Transaction &operator=(Transaction &&) = delete;
    Transaction(const Transaction &) = delete;
    ~Transaction();

    void commit();

private:
    friend class Archive;
    explicit Transaction(Archive *archive);
    Archive *m_archive; // Not owned
    bool m_open = true;
};

enum class ArchiveMode { ReadWrite, ReadOnly };

/// Size and identity of an archive, as `kx archive info` prints it.
struct ArchiveInfo
{
    std::string path;
    int schemaVersion = 0;
    std::string createdBy; ///< Version of the program that created the file.
    std::int64_t ops = 0, runs = 0, candidates = 0, evaluations = 0, verdicts = 0, gpus = 0;
    std::int64_t fileBytes = 0;
};

/// One row of the kernels table: a candidate with its best evaluation and current verdict.
struct CandidateSummary
{
    std::string id;
    std::string opName;
    Origin origin = Origin::Translated;
    std::string operatorName;
    std::string description;
    std::optional<std::int64_t> runId;
    std::int64_t createdAtMs = 0;
    int evaluationCount = 0;
    std::optional<EvalStatus> bestStatus; ///< Status of the most favourable evaluation.
    std::string bestGpu;
    double bestSpeedup = 0;
    double bestMedianMs = 0;
    Precision bestPrecision = Precision::Fp32; ///< The policy of the most favourable evaluation.
    /// That evaluation's Inductor median over its kernel median (none: no Inductor measurement).
    std::optional<double> bestSpeedupOverInductor;
    int flagCount = 0;            ///< Flags over all evaluations.
    std::optional<bool> accepted; ///< Current (not retracted) verdict, if any.
    std::string verdictReason;
};

struct CandidateFilter
{
    std::string opName; ///< Empty: all ops.
    std::optional<std::int64_t> runId;
    std::string gpuName; ///< Empty: any GPU.
    bool onlyUnreviewed = false;
    bool onlyFlagged = false;
    int limit = 0; ///< 0: no limit.
};

/// The fastest correct kernel of an op on one GPU under one precision policy (not rejected, no "impossible" flag).
struct BestKernel
{
    std::string opName;
    std::string gpuName;
    std::string candidateId;
    double speedup = 0; ///< Over eager PyTorch.
    double medianMs = 0;
    double baselineMs = 0; ///< Eager PyTorch.
    Precision precision = Precision::Fp32;
    std::optional<double> inductorMs; ///< torch.compile's time on the same GPU, when it was measured.
    std::string inductorMethod;       ///< How it was measured (see baselinemethod).
    std::string inductorNote;         ///< Why there is no Inductor time (empty: none was asked for).

    std::optional<double> speedupOverInductor() const
    {
        return inductorMs && medianMs > 0 ? std::optional<double>(*inductorMs / medianMs) : std::nullopt;
    }
};

/// An Inductor package as the archive keeps it with its op (the bytes are stored apart).
struct InductorPackageRecord
{
    std::string sha256;
    std::string arch;
    std::string torchVersion;
    std::string shapes;
    std::string details; ///< JSON: build times.
    std::int64_t bytes = 0;
    std::int64_t createdAtMs = 0;
};

/// Tokens and estimated cost of the candidates that language models or commands made in a run.
struct RunCost
{
    std::int64_t candidates = 0; ///< Candidates made by a model or a command (not template fallbacks).
    std::int64_t promptTokens = 0;
    std::int64_t completionTokens = 0;
    double cost = 0;
};

/**
 * The archive of everything ever evaluated: one SQLite file in WAL mode with a versioned schema.
 * One writer per file; readers open their own Archive in ReadOnly mode. Not thread-safe: one
 * Archive object belongs to one thread at a time.
 */
class Archive
{
public:
    /// Opens (ReadWrite: creating if missing) and migrates the archive at path. Expected failures
    /// (not an archive, a newer schema, a read-only file opened for writing) come back as Error and
    /// leave the file untouched. ReadOnly never writes the file and leaves no -wal/-shm files behind: an
    /// archive of an older schema is copied into memory and migrated there (see isUpgradedCopy()); a -wal
    /// that cannot be read (no -shm in a read-only folder) is an Error, never a view without its rows. A lock
    /// held by another process past kBusyTimeoutMs is an Error (from begin(): an ArchiveError) naming it.
    static Expected<std::unique_ptr<Archive>> open(const std::string &path, ArchiveMode mode = ArchiveMode::ReadWrite);

    static int currentSchemaVersion();

    /// How long a write waits for another process's write lock before it fails with a message naming that
    /// process (SQLite retries meanwhile).
    static constexpr int kBusyTimeoutMs = 5000;

    ~Archive();
    Archive(const Archive &) = delete;
    Archive &operator=(const Archive &) = delete;

    const std::string &path() const { return m_path; }
    bool isReadOnly() const { return m_mode == ArchiveMode::ReadOnly; }
    /// True when the file has an older schema and was opened ReadOnly: the queries read a migrated copy in
    /// memory, taken when it was opened (later writes to the file are not seen; the file keeps its schema).
    bool isUpgradedCopy() const { return m_upgradedCopy; }
    int schemaVersion() const;

    /// Starts a write transaction (BEGIN IMMEDIATE). Throws ArchiveError on a read-only archive.
    Transaction begin();

    // Writes ------------------------------------------------------------------------------------
    void putOp(Transaction &tx, const Op &op, const std::string &sourceText = {});
    /// Adds a candidate (id computed when empty). Returns false when the same content was already
    /// stored; run membership (with the generation) is still recorded when the candidate carries a run id.
    bool addCandidate(Transaction &tx, const Candidate &candidate, int generation = 0);
    /// Stores (or replaces) a candidate's provenance; the candidate must exist. addCandidate() calls it
    /// for a new candidate that carries one.
    void setProvenance(Transaction &tx, const std::string &candidateId, const CandidateProvenance &provenance);
    /// Stores an evaluation, its flags and the baselines it was compared with (each baseline once, by uid);
    /// returns the new row id.
    std::int64_t addEvaluation(Transaction &tx, const Evaluation &evaluation);
    /// Stores a baseline measurement unless one with its uid is stored already; returns its row id.
    std::int64_t addBaseline(Transaction &tx, const BaselineMeasurement &baseline);
    /// Keeps an Inductor package with its op (once per content hash).
    void putInductorPackage(Transaction &tx, const std::string &opName, const InductorPackageRecord &package,
                            std::string_view bytes);
    /// Stores a new run (uid generated when empty) and returns its id.
    std::int64_t createRun(Transaction &tx, const Run &run);
    void setRunState(Transaction &tx, std::int64_t runId, RunState state);
    std::int64_t addVerdict(Transaction &tx, const Verdict &verdict);
    /// Stores a profile (its candidate must exist); returns the new row id.
    /// Stores a profile; a candidate's "moved-too-few-bytes" finding also flags its evaluations on that GPU
    /// "impossible" (evidence: the profile's numbers).
    std::int64_t addProfile(Transaction &tx, const Profile &profile);
    void retractVerdict(Transaction &tx, std::int64_t verdictId);

    // Reads -------------------------------------------------------------------------------------
    ArchiveInfo info() const;
    std::vector<Op> ops() const;
    std::optional<Op> op(const std::string &name) const;
    std::string opSourceText(const std::string &name) const;
    std::vector<Run> runs(const std::string &opName = {}) const;
    std::optional<Run> run(std::int64_t id) const;
    std::optional<Run> runByUid(const std::string &uid) const;
    std::optional<Candidate> candidate(const std::string &id) const;
    /// Resolves a unique id prefix (at least 4 characters) to a full candidate id.
    Expected<std::string> resolveCandidateId(const std::string &prefix) const;
    std::vector<Candidate> candidates(const std::string &opName = {}) const;
    /// Every candidate of a run in insertion order: the run's lineage.
    std::vector<Candidate> candidatesOfRun(std::int64_t runId) const;
    /// The same without source, launch plan and genome: what a lineage draws (ids, parents, origin, operator,
    /// description), read in three queries however large the run.
    std::vector<Candidate> candidateHeadersOfRun(std::int64_t runId) const;
    /// The evaluations of a run's candidates (made in any run), in the order they were made, with only what a
    /// lineage draws: candidate, GPU name, status, speedup and the kinds of their flags (no details or samples).
    std::vector<Evaluation> evaluationOutcomesOfRun(std::int64_t runId) const;
    /// The generation each candidate of a run was proposed in, in insertion order.
    std::vector<std::pair<std::string, int>> runGenerations(std::int64_t runId) const;
    std::vector<CandidateSummary> candidateSummaries(const CandidateFilter &filter = {}) const;
    /// A candidate's evaluations, each with the baseline measurements it was compared with.
    std::vector<Evaluation> evaluations(const std::string &candidateId) const;
    /// The kinds of flag any evaluation of the candidate carries ("impossible", ...): a cheap read of the flags
    /// alone, without samples.
    std::set<std::string> flagKinds(const std::string &candidateId) const;
    /// The baseline measurements of a run in the order they were made (every GPU, kind and re-measurement).
    std::vector<BaselineMeasurement> baselines(std::int64_t runId) const;
    /// The Inductor packages kept with an op, without their bytes.
    std::vector<InductorPackageRecord> inductorPackages(const std::string &opName) const;
    /// The bytes of a kept package (empty when there is none with that hash).
    std::string inductorPackageBytes(const std::string &sha256) const;
    /// Who made a candidate (prompt, response, tokens, cost), when a model or command did.
    std::optional<CandidateProvenance> provenance(const std::string &candidateId) const;
    /// Token and cost sums over the candidates of a run that carry provenance.
    RunCost runCost(std::int64_t runId) const;
    std::vector<BestKernel> bestKernels(const std::string &opName = {}, const std::string &gpuName = {}) const;
    std::vector<std::string> gpuNames() const;
    /// The cards that evaluated kernels of the op (one per fingerprint), read without the evaluations themselves.
    std::vector<GpuInfo> gpusOfOp(const std::string &opName) const;
    std::vector<Verdict> verdicts(const std::string &candidateId) const;
    /// A candidate's Nsight Compute profiles (its own launches and the eager reference's), oldest first.
    std::vector<Profile> profiles(const std::string &candidateId) const;
    std::optional<Verdict> currentVerdict(const std::string &candidateId) const;
    /// Correct candidates with flags and no current verdict, most suspicious first.
    std::vector<CandidateSummary> reviewQueue() const;

    /// PRAGMA integrity_check; "ok" when healthy.
    std::string integrityCheck() const;

    /// For tests and tools: the raw connection (read it, never write through it).
    sqlite3 *handle() const { return m_db; }

private:
    Archive(std::string path, ArchiveMode mode, sqlite3 *db, bool upgradedCopy = false);
    friend class Transaction;
    void execute(const char *sql);
    void requireTransaction(const Transaction &tx) const;
    std::int64_t gpuRowId(const GpuInfo &gpu);
    void flagImpossibleFromProfile(const Profile &profile, std::int64_t createdAtMs);

    std::string m_path;
    ArchiveMode m_mode;
    sqlite3 *m_db; // Owned
    bool m_upgradedCopy = false;
    bool m_inTransaction = false;
};

} // namespace kx
