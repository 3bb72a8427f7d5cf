#include "ui/kernels/evaluationspanel.h"

#include "ui/common/baselineformat.h"
#include "ui/common/format.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace kx::ui {

namespace {

QString sci(double value)
{
    return QString::number(value, 'g', 3);
}

constexpr int kLineWidth = 44;

/// Joins parts with " · ", starting a new line before a part that would pass the line width: a dock
/// is narrow, and eliding would hide exactly the numbers a reviewer needs.
QString wrapParts(const QStringList &parts, const QString &separator = QStringLiteral(" · "))
{
    QString text;
    int lineLength = 0;
    for (const QString &part : parts) {
        if (lineLength > 0 && lineLength + separator.size() + part.size() > kLineWidth) {
            text += QLatin1Char('\n');
            lineLength = 0;
        } else if (lineLength > 0) {
            text += separator;
            lineLength += int(separator.size());
        }
        text += part;
        lineLength += int(part.size());
    }
    return text;
}

QString timing(const TimingSummary &summary)
{
    return wrapParts({EvaluationsPanel::tr("median %1 ms").arg(Format::ms(summary.medianMs)),
                      EvaluationsPanel::tr("IQR %1 ms").arg(Format::ms(summary.iqrMs)),
                      EvaluationsPanel::tr("min %1 ms").arg(Format::ms(summary.minMs)),
                      EvaluationsPanel::tr("n = %1").arg(summary.runs)});
}

/// A flag's evidence as "key: value" pairs when it is a JSON object, else as stored.
QString evidence(const std::string &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (!document.isObject())
        return QString::fromStdString(json);
    QStringList parts;
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QJsonValue value = it.value();
        const double number = value.toDouble();
        const bool integral = value.isDouble() && std::floor(number) == number && std::abs(number) < 1e15;
        const QString text =
            integral           ? QString::number(qint64(number))
            : value.isDouble() ? Format::number(number)
            : value.isString()
                ? value.toString()
                : QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
        parts << it.key() + QStringLiteral(": ") + text;
    }
    return wrapParts(parts, QStringLiteral(", "));
}

QString indentedJson(const std::string &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    return document.isNull() ? QString::fromStdString(json)
                             : QString::fromUtf8(document.toJson(QJsonDocument::Indented)).trimmed();
}

QTreeWidgetItem *addRow(QTreeWidgetItem *parent, const QString &property, const QString &value,
                        const QString &toolTip = {})
{
    auto item = new QTreeWidgetItem(parent, {property, value});
    item->setToolTip(1, toolTip.isEmpty() ? value : toolTip);
    return item;
}

QString gpuDescription(const GpuInfo &gpu)
{
    QStringList parts;
    if (!gpu.host.empty()) // workers may run on SSH hosts or Slurm nodes
        parts << EvaluationsPanel::tr("on %1").arg(Format::text(gpu.host));
    if (!gpu.computeCapability.empty())
        parts << EvaluationsPanel::tr("compute %1").arg(Format::text(gpu.computeCapability));
    if (gpu.smCount > 0)
        parts << EvaluationsPanel::tr("SMs: %1").arg(gpu.smCount);
    if (gpu.memoryBytes > 0)
        parts << Format::bytes(gpu.memoryBytes);
    if (!gpu.driverVersion.empty())
        parts << EvaluationsPanel::tr("driver %1").arg(Format::text(gpu.driverVersion));
    if (!gpu.cudaRuntimeVersion.empty())
        parts << EvaluationsPanel::tr("CUDA %1").arg(Format::text(gpu.cudaRuntimeVersion));
    if (!gpu.nvrtcVersion.empty())
        parts << EvaluationsPanel::tr("NVRTC %1").arg(Format::text(gpu.nvrtcVersion));
    if (!gpu.torchVersion.empty())
        parts << EvaluationsPanel::tr("LibTorch %1").arg(Format::text(gpu.torchVersion));
    return wrapParts(parts);
}

} // namespace

EvaluationsPanel::EvaluationsPanel(QWidget *parent)
    : QWidget(parent)
    , m_verdict(new QLabel(this))
    , m_tree(new QTreeWidget(this))
{
    m_verdict->setObjectName(QStringLiteral("verdictLabel"));
    m_verdict->setWordWrap(true);
    m_verdict->setContentsMargins(6, 4, 6, 4);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_tree->setObjectName(QStringLiteral("evaluationsTree"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Property"), tr("Value")});
    m_tree->setUniformRowHeights(false);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_verdict);
    layout->addWidget(m_tree, 1);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        while (item && item->parent())
            item = item->parent();
        if (item)
            emit currentEvaluationChanged(m_tree->indexOfTopLevelItem(item));
    });
    clear();
}

int EvaluationsPanel::evaluationCount() const
{
    return m_tree->topLevelItemCount();
}

QString EvaluationsPanel::verdictText() const
{
    return m_verdict->text();
}

void EvaluationsPanel::showDetails(const CandidateDetails &details)
{
    m_tree->clear();
    if (details.currentVerdict) {
        const Verdict &verdict = *details.currentVerdict;
        QString text = verdict.accepted ? tr("Accepted") : tr("Rejected");
        if (!verdict.reasonCode.empty())
            text += QStringLiteral(": ") + Format::text(verdict.reasonCode);
        if (!verdict.note.empty())
            text += QStringLiteral(" — ") + Format::text(verdict.note);
        m_verdict->setText(text);
    } else {
        m_verdict->setText(tr("Not reviewed."));
    }
    if (details.evaluations.empty()) {
        m_verdict->setText(m_verdict->text() + QLatin1Char(' ') + tr("No evaluations yet."));
        return;
    }
    for (const Evaluation &evaluation : details.evaluations)
        addEvaluation(evaluation)->setExpanded(true);
}

QTreeWidgetItem *EvaluationsPanel::addEvaluation(const Evaluation &evaluation)
{
    const std::optional<double> overInductor = speedupOverInductor(evaluation);
    QStringList headline{Format::status(evaluation.status)};
    if (evaluation.status == EvalStatus::Correct) {
        headline << Format::speedup(evaluation.speedup);
        if (overInductor)
            headline << tr("%1 vs Inductor").arg(Format::speedup(*overInductor));
        headline << tr("%1 ms").arg(Format::ms(evaluation.timing.medianMs));
    }
    if (!evaluation.flags.empty())
        headline << tr("flagged");
    const QString gpuName = evaluation.gpu.name.empty() ? tr("unknown GPU") : Format::text(evaluation.gpu.name);
    auto top = new QTreeWidgetItem(m_tree, {gpuName, headline.join(QStringLiteral(" · "))});
    top->setForeground(1, Format::statusColor(evaluation.status));
    top->setToolTip(0, gpuDescription(evaluation.gpu));
    QFont bold = top->font(0);
    bold.setBold(true);
    top->setFont(0, bold);

    auto status = addRow(top, tr("Status"), Format::status(evaluation.status));
    status->setForeground(1, Format::statusColor(evaluation.status));
    if (!evaluation.message.empty())
        addRow(top, tr("Message"), Format::text(evaluation.message));
    if (evaluation.status == EvalStatus::Correct) {
        addRow(top, tr("Speedup"), Format::speedup(evaluation.speedup));
        addRow(top, tr("× Inductor"),
               overInductor ? Format::speedup(*overInductor) : BaselineFormat::noInductorMeasurement());
        auto standing = addRow(top, tr("Standing"), BaselineFormat::standing(evaluation.speedup, overInductor));
        if (BaselineFormat::losesToInductorOnly(evaluation.speedup, overInductor))
            standing->setForeground(1, BaselineFormat::losesToInductorColor());
    }
    addRow(top, tr("Precision"), BaselineFormat::precision(evaluation.precision),
           BaselineFormat::precisionDescription(evaluation.precision));
    if (evaluation.timing.runs > 0) {
        addRow(top, tr("Time"), timing(evaluation.timing));
        if (evaluation.timing.wallMedianMs > 0)
            addRow(top, tr("Wall clock"), tr("median %1 ms").arg(Format::ms(evaluation.timing.wallMedianMs)));
    }
    addBaselines(top, evaluation);

    const CorrectnessReport &correctness = evaluation.correctness;
    if (correctness.trials > 0) {
        addRow(top, tr("Correctness"),
               wrapParts({tr("trials: %1").arg(correctness.trials), tr("shape sets: %1").arg(correctness.shapeSets),
                          tr("max abs error %1").arg(sci(correctness.maxAbsError)),
                          tr("max rel error %1").arg(sci(correctness.maxRelError)),
                          tr("mismatches: %1").arg(correctness.mismatches)}));
    }
    if (!correctness.checksPassed.empty()) {
        QStringList checks;
        for (const std::string &check : correctness.checksPassed)
            checks << Format::text(check);
        addRow(top, tr("Checks passed"), wrapParts(checks, QStringLiteral(", ")));
    }
    if (!correctness.inputs.empty()) {
        // Which input distributions the trials drew: part of what a reviewer weighs.
        auto inputs = addRow(top, tr("Trial inputs"), tr("trials: %1").arg(correctness.inputs.size()));
        for (std::size_t i = 0; i < correctness.inputs.size(); ++i)
            addRow(inputs, tr("trial %1").arg(i), Format::text(correctness.inputs[i]));
    }
    if (correctness.timingInputSets > 0)
        addRow(top, tr("Timing inputs"), tr("input sets: %1, every run checked").arg(correctness.timingInputSets));
    if (correctness.precisionAudit) {
        const PrecisionAudit &audit = *correctness.precisionAudit;
        if (!audit.unavailable.empty()) {
            addRow(top, tr("Error vs float64"), tr("not measured: %1").arg(Format::text(audit.unavailable)));
        } else {
            QStringList parts{tr("p99 rel %1 (fp32 reference %2)")
                                  .arg(sci(audit.candidate.p99RelError), sci(audit.fp32Reference.p99RelError)),
                              tr("max rel %1 (fp32 reference %2)")
                                  .arg(sci(audit.candidate.maxRelError), sci(audit.fp32Reference.maxRelError))};
            // Under a policy that allows TF32, eager's own error with TF32 is what the flag measures against too.
            if (audit.policyReference.samples > 0)
                parts << tr("eager with TF32: p99 rel %1, max rel %2")
                             .arg(sci(audit.policyReference.p99RelError), sci(audit.policyReference.maxRelError));
            parts << tr("samples: %1").arg(audit.candidate.samples);
            addRow(top, tr("Error vs float64"), wrapParts(parts),
                   tr("Relative error against the reference computed in float64, on trial 0's inputs, beside the "
                      "error of the fp32 reference itself"));
        }
    }
    if (!correctness.failure.empty())
        addRow(top, tr("Failure"), Format::text(correctness.failure))
            ->setForeground(1, Format::statusColor(EvalStatus::Incorrect));

    if (!evaluation.flags.empty()) {
        auto flags = addRow(top, tr("Flags"), QString::number(evaluation.flags.size()));
        flags->setForeground(1, Format::warningColor());
        for (const Flag &flag : evaluation.flags) {
            auto item = addRow(flags, Format::text(flag.kind), evidence(flag.evidence), indentedJson(flag.evidence));
            item->setForeground(0, Format::warningColor());
        }
        flags->setExpanded(true);
    }

    const CompileStats &compile = evaluation.compile;
    if (compile.compileMs > 0 || compile.registers > 0 || !compile.log.empty()) {
        auto item = addRow(top, tr("Compile"),
                           wrapParts({tr("registers: %1").arg(compile.registers),
                                      tr("spilled: %1").arg(Format::bytes(compile.spillBytes)),
                                      tr("static shared: %1").arg(Format::bytes(compile.staticSharedBytes)),
                                      tr("%1 ms").arg(Format::ms(compile.compileMs))}));
        if (!compile.log.empty()) {
            const QString log = Format::text(compile.log).trimmed();
            addRow(item, tr("Log"), log.section(QLatin1Char('\n'), 0, 0), log);
        }
    }
    addRow(top, tr("GPU"), gpuDescription(evaluation.gpu));
    if (evaluation.runId)
        addRow(top, tr("Run"), QString::number(*evaluation.runId));
    if (evaluation.createdAtMs > 0)
        addRow(top, tr("Evaluated"), Format::timestamp(evaluation.createdAtMs));
    return top;
}

void EvaluationsPanel::addBaselines(QTreeWidgetItem *top, const Evaluation &evaluation)
{
    if (evaluation.baselines.empty()) {
        // Older evaluations timed eager PyTorch with the kernel and never torch.compile.
        if (evaluation.baseline.runs > 0)
            addRow(top, tr("Baseline"), timing(evaluation.baseline));
        if (evaluation.baseline.runs > 0 || evaluation.status == EvalStatus::Correct)
            addRow(top, BaselineFormat::kind(BaselineKind::Inductor), BaselineFormat::noInductorMeasurement());
        return;
    }
    QStringList summary;
    for (const BaselineMeasurement &baseline : evaluation.baselines)
        summary << (baseline.usable()
                        ? tr("%1 %2 ms").arg(BaselineFormat::kind(baseline.kind), Format::ms(baseline.timing.medianMs))
                        : tr("%1 none").arg(BaselineFormat::kind(baseline.kind)));
    if (!findBaseline(evaluation.baselines, BaselineKind::Inductor))
        summary << BaselineFormat::noInductorMeasurement();
    auto group = addRow(top, tr("Baselines"), wrapParts(summary));
    for (const BaselineMeasurement &baseline : evaluation.baselines) {
        QString toolTip = BaselineFormat::precisionDescription(baseline.precision);
        if (!baseline.details.empty())
            toolTip += QLatin1Char('\n') + indentedJson(baseline.details);
        auto item = addRow(group, BaselineFormat::kind(baseline.kind),
                           wrapParts(BaselineFormat::measurementParts(baseline)), toolTip);
        if (!baseline.usable())
            item->setForeground(1, Format::warningColor());
    }
    if (!findBaseline(evaluation.baselines, BaselineKind::Inductor))
        addRow(group, BaselineFormat::kind(BaselineKind::Inductor), BaselineFormat::noInductorMeasurement());
    group->setExpanded(true);
}

void EvaluationsPanel::showMessage(const QString &message)
{
    m_tree->clear();
    m_verdict->setText(message);
}

void EvaluationsPanel::clear()
{
    showMessage(tr("Select a kernel to see its evaluations."));
}

} // namespace kx::ui
