#pragma once

#include "core/archive/archive.h"

#include <QString>

#include <memory>
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
    std::string a, b, c, d, e;              ///< Candidate ids.
    std::string sourceB;

    /// Writes the sample into the archive at path (created when missing).
    static SampleArchive write(const QString &path);
};

} // namespace kx::test
