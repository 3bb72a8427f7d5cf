#include "ui/plots/plotsdata.h"

#include "ui/common/format.h"

#include "core/plan/launchplan.h"
#include "core/plan/roofline.h"

#include <algorithm>
#include <map>
#include <set>

namespace kx::ui {

namespace {

/// The newest correct evaluation with timings on each card, in label order.
std::map<std::string, const Evaluation *> latestCorrectPerGpu(const std::vector<Evaluation> &evaluations,
                                                              const GpuLabels &labels)
{
    std::map<std::string, const Evaluation *> latest;
    for (const Evaluation &evaluation : evaluations) {
        if (evaluation.status != EvalStatus::Correct || evaluation.timing.medianMs <= 0)
            continue;
        const Evaluation *&slot = latest[labels(evaluation.gpu)];
        if (!slot || evaluation.createdAtMs >= slot->createdAtMs)
            slot = &evaluation;
    }
    return latest;
}

/// Eager's median as an evaluation met it: its own measurement, or (older evaluations) timed with the kernel.
double eagerMedianMs(const Evaluation &evaluation)
{
    if (const BaselineMeasurement *eager = findBaseline(evaluation.baselines, BaselineKind::Eager))
        return eager->usable() ? eager->timing.medianMs : 0.0;
    return evaluation.baseline.medianMs;
}

/// Eager's samples: new evaluations keep them with the eager measurement, older ones with the evaluation.
const std::vector<double> &eagerSamplesMs(const Evaluation &evaluation)
{
    if (evaluation.baselineSamplesMs.empty())
        if (const BaselineMeasurement *eager = findBaseline(evaluation.baselines, BaselineKind::Eager))
            return eager->samplesMs;
    return evaluation.baselineSamplesMs;
}

/// The median of the values; 0 for none.
double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

/// Collects the (eager, Inductor) measurement pairs met on one GPU; each pair counts once.
class InductorPairs
{
public:
    void add(const Evaluation &evaluation)
    {
        const BaselineMeasurement *inductor = findBaseline(evaluation.baselines, BaselineKind::Inductor);
        if (!inductor)
            return;
        if (!inductor->usable()) {
            m_note = Format::text(inductor->error);
            return;
        }
        const BaselineMeasurement *eager = findBaseline(evaluation.baselines, BaselineKind::Eager);
        const double eagerMs = eagerMedianMs(evaluation);
        if (eagerMs <= 0)
            return;
        const auto key = std::make_pair(eager ? eager->id : -evaluation.id, inductor->id);
        m_ratios.emplace(key, eagerMs / inductor->timing.medianMs);
        m_method = Format::text(inductor->method);
    }

    PlotsData::InductorReference reference() const
    {
        PlotsData::InductorReference reference;
        reference.pairs = int(m_ratios.size());
        reference.method = m_method;
        reference.note = m_note;
        if (m_ratios.empty())
            return reference;
        std::vector<double> ratios;
        for (const auto &entry : m_ratios)
            ratios.push_back(entry.second);
        reference.speedupOverEager = median(std::move(ratios));
        reference.note.clear();
        return reference;
    }

private:
    std::map<std::pair<std::int64_t, std::int64_t>, double> m_ratios;
    QString m_method;
    QString m_note;
};

} // namespace

void GpuLabels::add(const GpuInfo &gpu)
{
    m_cards[gpu.name].emplace(gpu.fingerprint(), gpu);
}

std::string GpuLabels::operator()(const GpuInfo &gpu) const
{
    const auto model = m_cards.find(gpu.name);
    if (model == m_cards.end() || model->second.size() < 2)
        return gpu.name;
    std::set<std::string> hosts;
    for (const auto &[fingerprint, card] : model->second)
        hosts.insert(card.host);
    if (hosts.size() == model->second.size() && !gpu.host.empty())
        return gpu.name + " (" + gpu.host + ")";
    // Cards of one machine (or older archives without hosts): the UUID tells them apart, as nvidia-smi -L does.
    std::string uuid = gpu.uuid.rfind("GPU-", 0) == 0 ? gpu.uuid.substr(4) : gpu.uuid;
    uuid = uuid.substr(0, 8);
    const std::string where = gpu.host.empty() ? uuid : gpu.host + " " + uuid;
    return gpu.name + " (" + (where.empty() ? gpu.fingerprint().substr(0, 8) : where) + ")";
}

Workload Workload::of(const Op &op)
{
    Workload workload;
    if (op.shapeSets.empty()) {
        workload.error = QStringLiteral("the op has no shapes");
        return workload;
    }
    const ShapeSet &shapes = op.shapeSets.front();
    QStringList errors;
    if (!op.bytesMovedExpr.empty()) {
        if (auto bytes = evaluateIntExpression(op.bytesMovedExpr, shapes))
            workload.bytes = *bytes;
        else
            errors << QString::fromStdString(bytes.error().message);
    }
    if (!op.flopsExpr.empty()) {
        if (auto flops = evaluateIntExpression(op.flopsExpr, shapes))
            workload.flops = *flops;
        else
            errors << QString::fromStdString(flops.error().message);
    }
    if (op.bytesMovedExpr.empty() && op.flopsExpr.empty())
        errors << QStringLiteral("the op states neither bytes moved nor FLOPs");
    workload.error = errors.join(QStringLiteral("; "));
    return workload;
}

PlotsData PlotsData::prepare(const Archive &archive, const PlotsScope &scope)
{
    PlotsData data;
    for (const Op &op : archive.ops())
        data.ops << Format::text(op.name);

    std::optional<Candidate> selected;
    if (!scope.candidateId.isEmpty())
        selected = archive.candidate(scope.candidateId.toStdString());
    data.opName = scope.opName;
    if (data.opName.isEmpty())
        data.opName = selected ? Format::text(selected->opName) : data.ops.value(0);
    if (data.opName.isEmpty())
        return data;
    const std::string opName = data.opName.toStdString();
    data.runs = archive.runs(opName);
    if (scope.runId
        && std::any_of(data.runs.begin(), data.runs.end(), [&](const Run &run) { return run.id == *scope.runId; }))
        data.runId = scope.runId;

    // (a) and (b): every candidate in scope with its evaluations.
    const std::vector<Candidate> candidates =
        data.runId ? archive.candidatesOfRun(*data.runId) : archive.candidates(opName);
    struct Row
    {
        const Candidate *candidate;
        std::map<std::string, double> bestPerGpu; ///< Results that count towards the best.
        double discounted = 0;                    ///< Its best result that does not (rejected, impossible).
        QString discountReason;
        double best = 0;
    };
    std::vector<Row> rows;
    std::set<std::string> gpuNames;
    struct Event
    {
        std::int64_t at;
        double speedup; ///< 0 when it does not count for the best.
    };
    std::map<std::string, std::vector<Event>> events;
    std::map<std::string, InductorPairs> inductorPairs;
    std::map<std::string, std::map<std::int64_t, double>> eagerMedians; // per GPU, per measurement
    for (const GpuInfo &gpu : archive.gpusOfOp(opName))
        data.gpuLabels.add(gpu);
    for (const Candidate &candidate : candidates) {
        const std::vector<Evaluation> evaluations = archive.evaluations(candidate.id);
        const std::optional<Verdict> verdict = archive.currentVerdict(candidate.id);
        const bool rejected = verdict && !verdict->accepted;
        Row row{&candidate, {}, 0, {}, 0};
        for (const Evaluation &evaluation : evaluations) {
            const std::string gpu = data.gpuLabels(evaluation.gpu);
            gpuNames.insert(gpu);
            inductorPairs[gpu].add(evaluation);
            if (const double eagerMs = eagerMedianMs(evaluation); eagerMs > 0) {
                const BaselineMeasurement *eager = findBaseline(evaluation.baselines, BaselineKind::Eager);
                eagerMedians[gpu].emplace(eager ? eager->id : -evaluation.id, eagerMs);
            }
            const bool correct = evaluation.status == EvalStatus::Correct && evaluation.speedup > 0;
            const bool counts = !rejected && countsTowardsBest(evaluation);
            events[gpu].push_back({evaluation.createdAtMs, counts ? evaluation.speedup : 0});
            if (!correct)
                continue;
            row.best = std::max(row.best, evaluation.speedup);
            if (counts) {
                double &best = row.bestPerGpu[gpu];
                best = std::max(best, evaluation.speedup);
            } else if (evaluation.speedup > row.discounted) {
                row.discounted = evaluation.speedup;
                row.discountReason = rejected ? QStringLiteral("rejected") : QStringLiteral("flagged impossible");
            }
        }
        if (!row.bestPerGpu.empty() || row.discounted > 0)
            rows.push_back(std::move(row));
    }
    if (int(rows.size()) > kMaxBarCandidates) {
        std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) { return a.best > b.best; });
        rows.resize(std::size_t(kMaxBarCandidates));
        std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
            return a.candidate->createdAtMs < b.candidate->createdAtMs;
        });
    }
    for (const std::string &gpu : gpuNames) {
        data.gpus << Format::text(gpu);
        std::vector<double> speedups;
        for (const Row &row : rows) {
            const auto it = row.bestPerGpu.find(gpu);
            speedups.push_back(it == row.bestPerGpu.end() ? 0.0 : it->second);
        }
        data.speedups.push_back(std::move(speedups));
        data.inductor.push_back(inductorPairs[gpu].reference());
        std::vector<double> medians;
        for (const auto &entry : eagerMedians[gpu])
            medians.push_back(entry.second);
        data.eagerMs.push_back(median(medians));

        std::vector<Event> &gpuEvents = events[gpu];
        std::stable_sort(gpuEvents.begin(), gpuEvents.end(),
                         [](const Event &a, const Event &b) { return a.at < b.at; });
        Progress progress{Format::text(gpu), {}, {}};
        double best = 0;
        for (std::size_t i = 0; i < gpuEvents.size(); ++i) {
            best = std::max(best, gpuEvents[i].speedup);
            progress.evaluated.push_back(double(i + 1));
            progress.bestSpeedup.push_back(best);
        }
        data.progress.push_back(std::move(progress));
    }
    for (const Row &row : rows) {
        data.discounted.push_back(row.discounted);
        data.discountReasons << row.discountReason;
        data.candidateIds << Format::text(row.candidate->id);
        QString label = Format::shortId(row.candidate->id).left(8);
        if (!row.candidate->operatorName.empty())
            label += QLatin1Char('\n') + Format::text(row.candidate->operatorName);
        data.candidateLabels << label;
    }

    if (selected)
        addCandidate(archive, *selected, data);
    return data;
}

bool PlotsData::sameOpData(const PlotsScope &scope, const QString &candidateOpName) const
{
    const QString op = scope.opName.isEmpty() ? candidateOpName : scope.opName;
    return !opName.isEmpty() && op == opName && scope.runId == runId;
}

void PlotsData::addCandidate(const Archive &archive, const Candidate &selected, PlotsData &data)
{
    // (c) and (d): the selected candidate.
    data.candidateId = Format::text(selected.id);
    data.distributions.clear();
    data.roofline.clear();
    data.rooflineNote.clear();
    const std::vector<Evaluation> evaluations = archive.evaluations(selected.id);
    const auto latest = latestCorrectPerGpu(evaluations, data.gpuLabels);
    for (const auto &[gpu, evaluation] : latest) {
        Distribution distribution{Format::text(gpu), evaluation->samplesMs, eagerSamplesMs(*evaluation), {}};
        if (const BaselineMeasurement *inductor = findBaseline(evaluation->baselines, BaselineKind::Inductor))
            distribution.inductorMs = inductor->samplesMs;
        if (!distribution.candidateMs.empty() || !distribution.baselineMs.empty() || !distribution.inductorMs.empty())
            data.distributions.push_back(std::move(distribution));
    }
    const std::optional<Op> op = archive.op(selected.opName);
    const Workload workload = op ? Workload::of(*op) : Workload{};
    if (!workload.bytes || *workload.bytes <= 0) {
        data.rooflineNote = workload.error.isEmpty() ? QStringLiteral("the op states no bytes moved") : workload.error;
        return;
    }
    if (latest.empty())
        data.rooflineNote = QStringLiteral("the kernel has no correct timed evaluation");
    for (const auto &[gpu, evaluation] : latest) {
        RooflinePoint point;
        point.gpu = Format::text(gpu);
        point.bandwidthGBs = evaluation->gpu.measuredBandwidthGBs;
        point.peakGflops = peakTflopsFor(evaluation->gpu, evaluation->precision) * 1e3;
        point.medianMs = evaluation->timing.medianMs;
        const double seconds = evaluation->timing.medianMs * 1e-3;
        point.achievedGBs = double(*workload.bytes) / seconds / 1e9;
        const double flops = workload.flops ? double(*workload.flops) : 0.0;
        point.achievedGflops = flops / seconds / 1e9;
        point.intensity = flops / double(*workload.bytes);
        data.roofline.push_back(point);
    }
}

} // namespace kx::ui
