#pragma once

#include "core/domain/evaluation.h"

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace kx::cli {

/// One problem file of kx coverage: how far it got, and its best kernel against both baselines.
struct CoverageRow
{
    std::string file;
    std::string op;
    bool imported = false;
    std::string family;
    bool translated = false; // the first candidate compiles with NVRTC
    bool searched = false;
    bool verified = false;
    std::string precision;      ///< The search's precision policy.
    double eagerMs = 0;         ///< The run's eager PyTorch time on the GPU (median of its measurements).
    double inductorMs = 0;      ///< torch.compile's; 0: not measured (note says why).
    double bestMs = 0;          ///< The best verified kernel's.
    double speedup = 0;         ///< Over eager.
    double inductorSpeedup = 0; ///< Over Inductor; 0: no Inductor time.
    std::string note;
};

/**
 * Why a translated candidate does not count as verified, from its evaluations: the flags any of them carries
 * where one is correct (verified means correct with no flag on any evaluation: a flag found on one run, such as
 * nondeterministic outputs, keeps it from counting even when a later evaluation is clean), else the last failure.
 */
std::string unverifiedNote(const std::vector<Evaluation> &evaluations, const std::string &candidateId);

/// The table, then the summary lines: translated and verified shares, fast_1 against eager and against Inductor
/// (KernelBench's share of all problems with a correct kernel faster than the baseline), and the geometric mean
/// speedup against each over the problems that have both numbers.
void writeCoverageMarkdown(std::ostream &out, const std::vector<CoverageRow> &rows, bool gpu);
void writeCoverageCsv(std::ostream &out, const std::vector<CoverageRow> &rows);
/// The rows of an earlier run's CSV (this format or the one before Inductor columns), by file; rows that do not
/// parse are left out (those files run again).
std::map<std::string, CoverageRow> readCoverageCsv(const std::string &path);

} // namespace kx::cli
