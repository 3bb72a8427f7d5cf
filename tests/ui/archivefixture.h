#pragma once

#include "core/archive/archive.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kx::test {

/// Builders for archive contents, written through core's public API as the application writes them.
Op makeOp(const std::string &name, const std::string &reference = "torch.relu(x)");

Candidate makeCandidate(const std::string &opName, const std::string &source, Origin origin,
                        const std::string &operatorName, const std::string &description, std::int64_t createdAtMs,
                        std::vector<std::string> parentIds = {});

Evaluation makeEvaluation(const std::string &candidateId, const std::string &gpuName, EvalStatus status,
                          double medianMs, double baselineMs, std::vector<Flag> flags = {});

/// A baseline measurement as a worker reports one: five samples with medianMs as their median, eager timed
/// with LibTorch and Inductor from an AOTInductor package; with an error, no samples. Equal arguments give the
/// same uid, so evaluations that met the same measurement share it in the archive.
BaselineMeasurement makeBaseline(BaselineKind kind, const std::string &gpuName, double medianMs,
                                 Precision precision = Precision::Fp32, const std::string &error = {},
                                 double driftPercent = 0);

/// Makes an evaluation one of today's: compared with these measurements under their precision policy, eager's
/// samples kept with the eager measurement (baselineSamplesMs empty), the speedup over eager recomputed.
Evaluation withBaselines(Evaluation evaluation, const BaselineMeasurement &eager,
                         const std::optional<BaselineMeasurement> &inductor);

Verdict makeVerdict(const std::string &candidateId, bool accepted, const std::string &reasonCode,
                    const std::string &note = {});

std::unique_ptr<Archive> openWritable(const QString &path);

/**
 * Five kernels over two ops, chosen so that sorting and filtering have something to get wrong:
 *  A  relu     translated  correct 2.0x on H100                       created 1000
 *  B  relu     mutated     correct 10.0x on H100 (flag), 8x on A100   created 2000, rejected
 *  C  relu     mutated     compile error                              created 3000
 *  D  softmax  translated  not evaluated                              created 4000
 *  E  softmax  manual      correct 1.5x on A100                       created 5000, accepted
 */
struct SampleArchive
{
    std::string a, b, c, d, e; ///< Candidate ids.
    std::string sourceB;

    /// Writes the sample into the archive at path (created when missing).
    static SampleArchive write(const QString &path);
};

/**
 * Kernels of op "layernorm" measured against both baselines, added to an archive (created when missing):
 *  losesToInductor  tf32  H100  0.5 ms  eager 1.0  Inductor 0.4             2.0x eager, 0.8x Inductor
 *  beatsBoth        tf32  H100  0.2 ms  eager 1.0  Inductor 0.5 (re-timed)  5.0x eager, 2.5x Inductor
 *  inductorFailed   fp32  A100  0.5 ms  eager 1.0  Inductor failed to export 2.0x eager, no Inductor time
 * On the H100, torch.compile is 2.5x and 2.0x faster than eager in the two (eager, Inductor) pairs.
 */
struct BaselineArchive
{
    std::string losesToInductor, beatsBoth, inductorFailed;
    static constexpr const char *kExportError = "torch.export failed: data-dependent control flow";

    static BaselineArchive addTo(const QString &path);
};

} // namespace kx::test
