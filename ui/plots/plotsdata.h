#pragma once

#include "core/archive/archive.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kx::ui {

/// The minimal work of an op at its default shapes, from its bytes/FLOPs expressions.
struct Workload
{
    std::optional<std::int64_t> bytes;
    std::optional<std::int64_t> flops;
    QString error; ///< Why a value is missing, when one is.

    static Workload of(const Op &op);
};

/// What the plots page shows for an op (or one of its runs) and the selected candidate.
struct PlotsScope
{
    QString opName; ///< Empty: the selected candidate's op, else the first op.
    std::optional<std::int64_t> runId;
    QString candidateId; ///< The candidate for the distribution and roofline plots.
};

/**
 * Names that tell the cards in scope apart: a model's name alone where one card of it took part, otherwise the
 * name with the card's host (cards of several machines) or with the start of its UUID (cards of one machine).
 */
class GpuLabels
{
public:
    void add(const GpuInfo &gpu);
    /// The card's label; its model's name for a card that was not added.
    std::string operator()(const GpuInfo &gpu) const;

private:
    std::map<std::string, std::map<std::string, GpuInfo>> m_cards; // model name -> fingerprint -> card
};

struct PlotsData
{
    QStringList ops;       ///< Every op of the archive (for the scope chooser).
    std::vector<Run> runs; ///< The runs of the chosen op.
    QString opName;
    std::optional<std::int64_t> runId;

    // (a) Speedup per candidate and GPU: speedups[gpu][candidate], 0 where not measured correct. A GPU is one
    // card (see GpuLabels): two cards of one model are two columns.
    QStringList gpus;
    QStringList candidateIds;
    QStringList candidateLabels;
    std::vector<std::vector<double>> speedups;
    /// Per candidate: its best speedup where it does not count towards the best (rejected, or flagged
    /// impossible; drawn apart and left out of the axis range so it cannot flatten the honest bars), else 0.
    std::vector<double> discounted;
    QStringList discountReasons; ///< "rejected" or "flagged impossible", per candidate.

    /// torch.compile against eager on one GPU: eager's median over Inductor's, both as the evaluations in scope
    /// met them. A kernel whose speedup over eager lies above it beats Inductor too.
    struct InductorReference
    {
        double speedupOverEager = 0; ///< Median over the measurement pairs; 0: no Inductor time.
        int pairs = 0;               ///< Distinct (eager, Inductor) measurement pairs it comes from.
        QString method;              ///< How Inductor was timed (see kx::baselinemethod).
        QString note;                ///< Why there is no Inductor time, when a measurement says so.
    };
    std::vector<InductorReference> inductor; ///< Per GPU, in the order of gpus (for plots a and b).
    /// Per GPU: the median of eager PyTorch's medians in scope (ms), 0 where none was measured.
    std::vector<double> eagerMs;

    // (b) Best speedup so far against the number of candidates evaluated, per GPU.
    struct Progress
    {
        QString gpu;
        std::vector<double> evaluated;   ///< 1, 2, 3 ...
        std::vector<double> bestSpeedup; ///< Running best of correct, unflagged-impossible, unrejected results.
    };
    std::vector<Progress> progress;
    GpuLabels gpuLabels; ///< Of the cards in scope; the selected kernel's plots use them too.

    // (c) Timing samples of the selected candidate and of the baselines it was compared with, per GPU.
    QString candidateId;
    struct Distribution
    {
        QString gpu;
        std::vector<double> candidateMs;
        std::vector<double> baselineMs; ///< Eager PyTorch.
        std::vector<double> inductorMs; ///< torch.compile (Inductor), when it was measured.
    };
    std::vector<Distribution> distributions;

    // (d) The selected candidate against each GPU's roofline.
    struct RooflinePoint
    {
        QString gpu;
        double bandwidthGBs = 0; ///< Measured DRAM bandwidth of the GPU.
        double peakGflops = 0;   ///< Peak under the evaluation's precision policy (0 when unknown).
        double medianMs = 0;
        double achievedGBs = 0;
        double achievedGflops = 0;
        double intensity = 0; ///< FLOP per byte.
    };
    std::vector<RooflinePoint> roofline;
    QString rooflineNote; ///< Why there is no roofline point, when there is none.

    /// Reads everything for the scope (on any thread: it only touches the given archive).
    static PlotsData prepare(const Archive &archive, const PlotsScope &scope);
    /// Replaces the selected candidate's part, (c) and (d), of data: when only the kernel changes within the op,
    /// the op's plots stay as they are (at 30k kernels they take seconds to read).
    static void addCandidate(const Archive &archive, const Candidate &selected, PlotsData &data);
    /// Whether this data's op-level part, (a) and (b), is the one the scope asks for when the kernel is of
    /// candidateOpName.
    bool sameOpData(const PlotsScope &scope, const QString &candidateOpName) const;

    /// At most this many candidates in the bar chart: the fastest ones.
    static constexpr int kMaxBarCandidates = 24;
};

} // namespace kx::ui
