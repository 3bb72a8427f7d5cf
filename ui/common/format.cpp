#include "ui/common/format.h"

#include <QDateTime>
#include <QDir>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace kx::ui {

QString Format::shortId(const std::string &candidateId)
{
    return QString::fromStdString(candidateId.substr(0, 12));
}

QString Format::number(double value, int significantDigits)
{
    if (!std::isfinite(value))
        return QString::number(value);
    if (value == 0)
        return QLocale().toString(0.0, 'f', 0);
    const int magnitude = int(std::floor(std::log10(std::abs(value))));
    const int decimals = std::clamp(significantDigits - 1 - magnitude, 0, 9);
    return QLocale().toString(value, 'f', decimals);
}

QString Format::modelUsage(std::int64_t promptTokens, std::int64_t completionTokens, double cost)
{
    const QLocale locale;
    QString text = tr("%1 prompt + %2 completion tokens")
                       .arg(locale.toString(qint64(promptTokens)), locale.toString(qint64(completionTokens)));
    // Prices are the user's, in the user's currency: no currency sign. Small sums keep two significant digits
    // (a connection test costs millionths), large ones cents.
    if (cost > 0)
        text +=
            QStringLiteral(" · ") + tr("est. cost %1").arg(cost < 1 ? number(cost, 2) : locale.toString(cost, 'f', 2));
    return text;
}

QString Format::ms(double milliseconds)
{
    return number(milliseconds);
}

QString Format::speedup(double factor)
{
    return QLocale().toString(factor, 'f', factor >= 100 ? 0 : 2) + QChar(0x00D7);
}

QString Format::bytes(std::int64_t bytes)
{
    return QLocale().formattedDataSize(bytes);
}

QString Format::timestamp(std::int64_t msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString Format::status(EvalStatus status)
{
    switch (status) {
    case EvalStatus::Correct: return tr("correct");
    case EvalStatus::Incorrect: return tr("incorrect");
    case EvalStatus::CompileError: return tr("compile error");
    case EvalStatus::PlanError: return tr("plan error");
    case EvalStatus::LaunchError: return tr("launch error");
    case EvalStatus::Fault: return tr("fault");
    case EvalStatus::Timeout: return tr("timeout");
    case EvalStatus::Crashed: return tr("crashed");
    }
    return QString::fromLatin1(toString(status));
}

QString Format::status(const std::optional<EvalStatus> &status)
{
    return status ? Format::status(*status) : tr("not evaluated");
}

QString Format::origin(Origin origin)
{
    switch (origin) {
    case Origin::Translated: return tr("translated");
    case Origin::Mutated: return tr("mutated");
    case Origin::Crossover: return tr("crossover");
    case Origin::Manual: return tr("manual");
    case Origin::Imported: return tr("imported");
    }
    return QString::fromLatin1(toString(origin));
}

QString Format::verdict(const std::optional<bool> &accepted)
{
    if (!accepted)
        return {};
    return *accepted ? tr("accepted") : tr("rejected");
}

QColor Format::statusColor(EvalStatus status)
{
    switch (status) {
    case EvalStatus::Correct: return QColor(0x2f, 0x9e, 0x44);
    case EvalStatus::Incorrect: return QColor(0xe0, 0x31, 0x31);
    case EvalStatus::CompileError:
    case EvalStatus::PlanError:
    case EvalStatus::LaunchError: return QColor(0xe8, 0x59, 0x0c);
    case EvalStatus::Fault:
    case EvalStatus::Timeout:
    case EvalStatus::Crashed: return QColor(0xae, 0x3e, 0xc9);
    }
    return {};
}

QColor Format::warningColor()
{
    return QColor(0xe8, 0x59, 0x0c);
}

QString Format::path(const QString &path)
{
#ifdef Q_OS_UNIX
    const QString home = QDir::homePath();
    if (!path.isEmpty() && home != QDir::rootPath() && (path == home || path.startsWith(home + QLatin1Char('/'))))
        return QLatin1Char('~') + path.mid(home.size());
#endif
    return QDir::toNativeSeparators(path);
}

} // namespace kx::ui
