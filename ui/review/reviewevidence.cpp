#include "ui/review/reviewevidence.h"

#include "core/plan/roofline.h"
#include "ui/common/baselineformat.h"
#include "ui/common/format.h"
#include "ui/plots/plotsdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace kx::ui {

namespace {

QString evidenceRows(const std::string &evidence)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(evidence), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return QStringLiteral("<tr><td colspan=2><code>%1</code></td></tr>")
            .arg(Format::text(evidence).toHtmlEscaped());
    QString rows;
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QJsonValue value = it.value();
        QString text;
        if (value.isDouble())
            text = Format::number(value.toDouble(), 6);
        else if (value.isString())
            text = value.toString();
        else if (value.isBool())
            text = value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
        else if (value.isArray())
            text = QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
        else if (value.isObject())
            text = QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
        rows += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>")
                    .arg(it.key().toHtmlEscaped(), text.toHtmlEscaped());
    }
    return rows;
}

/// Both baselines with their methods, as the evaluation met them; older evaluations timed eager alone.
template <typename Row>
void baselineRows(const Evaluation &evaluation, Row &row)
{
    for (const BaselineKind kind : {BaselineKind::Eager, BaselineKind::Inductor}) {
        const QString label = kind == BaselineKind::Eager ? ReviewEvidence::tr("Eager baseline")
                                                          : ReviewEvidence::tr("Inductor baseline");
        if (const BaselineMeasurement *baseline = findBaseline(evaluation.baselines, kind))
            row(label, BaselineFormat::measurementParts(*baseline).join(QStringLiteral(" · ")).toHtmlEscaped(),
                !baseline->usable());
        else if (kind == BaselineKind::Eager)
            row(label, ReviewEvidence::tr("timed with the kernel (older evaluation)"));
        else
            row(label, BaselineFormat::noInductorMeasurement());
    }
}

} // namespace

QString ReviewEvidence::html(const std::optional<Op> &op, const std::vector<Evaluation> &evaluations)
{
    if (evaluations.empty())
        return QStringLiteral("<p>%1</p>").arg(tr("Not evaluated."));
    QString html;
    for (const Evaluation &evaluation : evaluations) {
        html += QStringLiteral("<h3>%1 &middot; %2</h3>")
                    .arg(Format::text(evaluation.gpu.name).toHtmlEscaped(), Format::status(evaluation.status));
        html += QStringLiteral("<table cellspacing=0 cellpadding=2>");
        auto marked = [&html](const QString &label, const QString &value, const QColor &color) {
            html += QStringLiteral("<tr><td>%1</td><td align=right><b><font color=\"%2\">%3</font></b></td></tr>")
                        .arg(label, color.name(), value);
        };
        auto row = [&html, &marked](const QString &label, const QString &value, bool warn = false) {
            if (warn)
                marked(label, value, Format::warningColor());
            else
                html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(label, value);
        };
        row(tr("Precision policy"), BaselineFormat::precisionDescription(evaluation.precision).toHtmlEscaped());
        if (evaluation.status == EvalStatus::Correct) {
            const std::optional<double> overInductor = speedupOverInductor(evaluation);
            row(tr("Speedup"), Format::speedup(evaluation.speedup));
            row(tr("Speedup over Inductor"),
                overInductor ? Format::speedup(*overInductor) : BaselineFormat::noInductorMeasurement());
            const QString standing = BaselineFormat::standing(evaluation.speedup, overInductor).toHtmlEscaped();
            // Against the baseline a user would pick instead, this speedup is a slowdown.
            if (BaselineFormat::losesToInductorOnly(evaluation.speedup, overInductor))
                marked(tr("Standing"), standing, BaselineFormat::losesToInductorColor());
            else
                row(tr("Standing"), standing);
            row(tr("Kernel median (CUDA events)"), Format::ms(evaluation.timing.medianMs) + QStringLiteral(" ms"));
            if (evaluation.timing.wallMedianMs > 0) {
                const double ratio = evaluation.timing.wallMedianMs / std::max(evaluation.timing.medianMs, 1e-12);
                row(tr("Kernel median (wall clock)"),
                    tr("%1 ms (%2× the event time)")
                        .arg(Format::ms(evaluation.timing.wallMedianMs), Format::number(ratio, 3)),
                    ratio > 2.0);
            }
            row(tr("Reference median"), Format::ms(evaluation.baseline.medianMs) + QStringLiteral(" ms"));
            baselineRows(evaluation, row);
            // The same floor and slack as the "impossible" flag, so the evidence never contradicts it.
            if (const auto floor = op ? rooflineFloor(*op, evaluation.gpu, evaluation.precision)
                                      : Expected<RooflineFloor>(Error{"no op"});
                floor && floor->floorMs > 0) {
                const double medianMs = evaluation.timing.medianMs;
                const QString floorMs = Format::ms(floor->floorMs), measuredMs = Format::ms(medianMs);
                if (isBelowFloor(medianMs, *floor))
                    row(tr("Roofline floor"),
                        tr("%1 ms: measured %2 ms is %3× below it, more than timing slack explains")
                            .arg(floorMs, measuredMs, Format::number(floor->floorMs / std::max(medianMs, 1e-12), 3)),
                        true);
                else if (medianMs < floor->floorMs)
                    row(tr("Roofline floor"), tr("%1 ms: measured %2 ms is within timing slack (%3 of the floor)")
                                                  .arg(floorMs, measuredMs, Format::number(kFloorSlack, 2)));
                else
                    row(tr("Roofline floor"), tr("%1 ms: measured %2 ms is above it").arg(floorMs, measuredMs));
            }
            row(tr("Samples"), QString::number(evaluation.samplesMs.size()));
        } else {
            row(tr("Outcome"), Format::text(evaluation.message).toHtmlEscaped());
        }
        QStringList checks;
        for (const std::string &check : evaluation.correctness.checksPassed)
            checks << Format::text(check).toHtmlEscaped();
        row(tr("Checks passed"), checks.isEmpty() ? tr("none") : checks.join(QStringLiteral(", ")));
        const CorrectnessReport &correctness = evaluation.correctness;
        if (!correctness.inputs.empty()) {
            QStringList inputs;
            for (const std::string &text : correctness.inputs)
                inputs << Format::text(text).toHtmlEscaped();
            row(tr("Trial inputs"), inputs.join(QStringLiteral(", ")));
        }
        if (correctness.precisionAudit && correctness.precisionAudit->unavailable.empty()) {
            const PrecisionAudit &audit = *correctness.precisionAudit;
            row(tr("Error vs float64 (p99 relative)"),
                tr("%1, fp32 reference %2")
                    .arg(Format::number(audit.candidate.p99RelError, 3),
                         Format::number(audit.fp32Reference.p99RelError, 3)),
                hasFlag(evaluation, "reduced-precision"));
            if (audit.policyReference.samples > 0)
                row(tr("Eager with TF32 vs float64 (p99 relative)"),
                    Format::number(audit.policyReference.p99RelError, 3));
        }
        if (!correctness.failure.empty())
            row(tr("Failed check"), Format::text(correctness.failure).toHtmlEscaped(), true);
        html += QStringLiteral("</table>");
        for (const Flag &flag : evaluation.flags) {
            html += QStringLiteral(
                        "<p><b><font color=\"%1\">%2</font></b></p><table cellspacing=0 cellpadding=2>%3</table>")
                        .arg(Format::warningColor().name(), tr("Flag: %1").arg(Format::text(flag.kind).toHtmlEscaped()),
                             evidenceRows(flag.evidence));
        }
    }
    return html;
}

} // namespace kx::ui
