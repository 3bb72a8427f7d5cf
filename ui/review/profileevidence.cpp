#include "ui/review/profileevidence.h"

#include "ui/common/format.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace kx::ui {

namespace {

const Profile *latest(const std::vector<Profile> &profiles, ProfileTarget target)
{
    const Profile *found = nullptr;
    for (const Profile &profile : profiles)
        if (profile.target == target)
            found = &profile;
    return found;
}

QString dash()
{
    return QStringLiteral("–");
}

QString megabytes(const std::optional<double> &bytes)
{
    return bytes ? ProfileEvidence::tr("%1 MB").arg(Format::number(*bytes / 1e6, 4)) : dash();
}

QString percent(const std::optional<double> &value)
{
    return value ? QStringLiteral("%1%").arg(Format::number(*value, 3)) : dash();
}

QString bandwidth(const std::optional<double> &gbs)
{
    return gbs ? ProfileEvidence::tr("%1 GB/s").arg(Format::number(*gbs, 4)) : dash();
}

QString microseconds(const std::optional<double> &ns)
{
    return ns ? ProfileEvidence::tr("%1 µs").arg(Format::number(*ns / 1e3, 4)) : dash();
}

QString stalls(const ProfileMetrics &metrics)
{
    QStringList parts;
    for (const StallReason &stall : metrics.topStalls)
        parts << QStringLiteral("%1 %2").arg(Format::text(stall.name).toHtmlEscaped(),
                                             Format::number(stall.cyclesPerIssue, 3));
    return parts.isEmpty() ? dash() : parts.join(QStringLiteral(", "));
}

// One metric of both profiles and the model's figure for it.
struct Row
{
    QString label;
    QString candidate;
    QString eager;
    QString model;
};

Row row(const QString &label, const Profile *candidate, const Profile *eager, QString (*cell)(const Profile &),
        const QString &model = {})
{
    const auto value = [cell](const Profile *profile) {
        return !profile ? dash() : profile->ok() ? cell(*profile) : ProfileEvidence::tr("failed");
    };
    return {label, value(candidate), value(eager), model};
}

QString findingText(const Flag &finding)
{
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(finding.evidence));
    if (!document.isObject())
        return Format::text(finding.evidence).toHtmlEscaped();
    const QJsonObject object = document.object();
    if (finding.kind == "moved-too-few-bytes")
        return ProfileEvidence::tr("measured %1 of DRAM traffic where the op must move %2 (%3× of it, under %4×)")
            .arg(megabytes(object.value(QLatin1String("measuredBytes")).toDouble()),
                 megabytes(object.value(QLatin1String("modelBytes")).toDouble()),
                 Format::number(object.value(QLatin1String("ratio")).toDouble(), 3),
                 Format::number(object.value(QLatin1String("threshold")).toDouble(), 2));
    return Format::text(finding.evidence).toHtmlEscaped();
}

} // namespace

QString ProfileEvidence::html(const std::vector<Profile> &profiles)
{
    const Profile *candidate = latest(profiles, ProfileTarget::Candidate);
    const Profile *eager = latest(profiles, ProfileTarget::Eager);
    if (!candidate && !eager)
        return QStringLiteral("<h3>%1</h3><p>%2</p>")
            .arg(QStringLiteral("Nsight Compute"),
                 tr("Not profiled. Profile runs one launch of the kernel and of the eager "
                    "reference under Nsight Compute and stores what the hardware measured."));
    const Profile &shown = candidate ? *candidate : *eager;
    QString html = QStringLiteral("<h3>Nsight Compute &middot; %1</h3>")
                       .arg(Format::text(shown.gpu.name.empty() ? std::string("?") : shown.gpu.name).toHtmlEscaped());
    html += QStringLiteral("<p>%1</p>")
                .arg(tr("ncu %1, %2")
                         .arg(Format::text(shown.ncuVersion).toHtmlEscaped(), Format::timestamp(shown.createdAtMs)));

    const std::optional<TrafficComparison> traffic = candidate && candidate->traffic ? candidate->traffic
                                                     : eager && eager->traffic       ? eager->traffic
                                                                                     : std::nullopt;
    const QString modelBytes = traffic && traffic->modelBytes > 0 ? megabytes(traffic->modelBytes) : QString();
    const QString cardBandwidth =
        traffic && traffic->measuredBandwidthGBs > 0
            ? tr("%1 (the card's copy bandwidth)").arg(bandwidth(traffic->measuredBandwidthGBs))
            : QString();
    const std::vector<Row> rows{
        row(tr("Kernels"), candidate, eager, [](const Profile &p) { return QString::number(p.metrics.kernels); }),
        row(tr("Duration"), candidate, eager, [](const Profile &p) { return microseconds(p.metrics.durationNs); }),
        row(tr("DRAM read"), candidate, eager, [](const Profile &p) { return megabytes(p.metrics.dramReadBytes); }),
        row(tr("DRAM written"), candidate, eager, [](const Profile &p) { return megabytes(p.metrics.dramWriteBytes); }),
        row(
            tr("DRAM traffic"), candidate, eager, [](const Profile &p) { return megabytes(p.metrics.dramBytes()); },
            modelBytes.isEmpty() ? QString() : tr("%1 (what the op must move)").arg(modelBytes)),
        row(tr("Measured / model bytes"), candidate, eager,
            [](const Profile &p) {
                return p.traffic && p.traffic->ratio ? QStringLiteral("%1×").arg(Format::number(*p.traffic->ratio, 3))
                                                     : dash();
            }),
        row(
            tr("Achieved bandwidth"), candidate, eager,
            [](const Profile &p) { return bandwidth(p.metrics.achievedBandwidthGBs); }, cardBandwidth),
        row(tr("SM throughput"), candidate, eager, [](const Profile &p) { return percent(p.metrics.smThroughputPct); }),
        row(tr("Tensor pipes"), candidate, eager, [](const Profile &p) { return percent(p.metrics.tensorPipePct); }),
        row(tr("Achieved occupancy"), candidate, eager,
            [](const Profile &p) { return percent(p.metrics.achievedOccupancyPct); }),
        row(tr("Registers per thread"), candidate, eager,
            [](const Profile &p) {
                return p.metrics.registersPerThread ? QString::number(*p.metrics.registersPerThread) : dash();
            }),
        row(tr("L2 hit rate"), candidate, eager, [](const Profile &p) { return percent(p.metrics.l2HitRatePct); }),
        row(tr("Top stalls (cycles per issue)"), candidate, eager, [](const Profile &p) { return stalls(p.metrics); }),
    };
    html += QStringLiteral("<table cellspacing=0 cellpadding=2><tr><th></th><th align=right>%1</th>"
                           "<th align=right>%2</th><th align=right>%3</th></tr>")
                .arg(tr("Kernel"), tr("Eager reference"), tr("Model"));
    for (const Row &r : rows)
        html +=
            QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                .arg(r.label, r.candidate, r.eager, r.model);
    html += QStringLiteral("</table>");
    if (traffic && !traffic->note.empty())
        html +=
            QStringLiteral("<p>%1</p>").arg(tr("Traffic rule: %1").arg(Format::text(traffic->note).toHtmlEscaped()));
    if (candidate && !candidate->check.empty())
        html += QStringLiteral("<p>%1</p>").arg(Format::text(candidate->check).toHtmlEscaped());
    for (const Profile *profile : {candidate, eager}) {
        if (!profile)
            continue;
        const QString who = profile->target == ProfileTarget::Candidate ? tr("Kernel") : tr("Eager reference");
        for (const Flag &finding : profile->findings)
            html += QStringLiteral("<p><b><font color=\"%1\">%2</font></b><br>%3</p>")
                        .arg(Format::warningColor().name(),
                             tr("Finding: %1").arg(Format::text(finding.kind).toHtmlEscaped()), findingText(finding));
        if (!profile->ok())
            html += QStringLiteral("<p><b><font color=\"%1\">%2</font></b><br><code>%3</code></p>")
                        .arg(Format::warningColor().name(), tr("%1: profiling failed").arg(who),
                             Format::text(profile->error).toHtmlEscaped());
        if (profile->ok() && !profile->metrics.missing.empty())
            html += QStringLiteral("<p>%1</p>")
                        .arg(tr("%1: not printed by this ncu: %2")
                                 .arg(who, Format::text([&] {
                                               std::string names;
                                               for (const auto &name : profile->metrics.missing)
                                                   names += (names.empty() ? "" : ", ") + name;
                                               return names;
                                           }())
                                               .toHtmlEscaped()));
    }
    if (candidate && candidate->ok() && !candidate->kernels.empty()) {
        html += QStringLiteral("<table cellspacing=0 cellpadding=2><tr><th align=left>%1</th><th align=right>%2</th>"
                               "<th align=right>%3</th><th align=right>%4</th></tr>")
                    .arg(tr("Kernel launch"), tr("Duration"), tr("DRAM read"), tr("DRAM written"));
        for (const ProfiledKernel &kernel : candidate->kernels)
            html += QStringLiteral(
                        "<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                        .arg(Format::text(kernel.name).toHtmlEscaped(), microseconds(kernel.durationNs),
                             megabytes(kernel.dramReadBytes), megabytes(kernel.dramWriteBytes));
        html += QStringLiteral("</table>");
    }
    return html;
}

} // namespace kx::ui
