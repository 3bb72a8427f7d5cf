#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"

#include <QColor>
#include <QCoreApplication>
#include <QString>

#include <cstdint>
#include <optional>
#include <string>

namespace kx::ui {

/// How the UI writes numbers, times and statuses, so every view agrees.
class Format
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::Format)

public:
    static QString text(const std::string &utf8) { return QString::fromStdString(utf8); }
    static QString shortId(const std::string &candidateId);

    /// Milliseconds with four significant digits and no exponent, e.g. "0.01234", "12.35".
    static QString ms(double milliseconds);
    static QString speedup(double factor); ///< "3.42×"
    static QString bytes(std::int64_t bytes);
    static QString timestamp(std::int64_t msSinceEpoch); ///< Local time, "yyyy-MM-dd HH:mm:ss"
    static QString number(double value, int significantDigits = 4);
    /// A file path for people: native separators, and the home folder as "~" (status bar, recent files).
    static QString path(const QString &path);
    /// Model usage: "1,200 prompt + 340 completion tokens · est. cost 0.0052" (no cost part when it is 0;
    /// two significant digits below 1, cents above).
    static QString modelUsage(std::int64_t promptTokens, std::int64_t completionTokens, double cost);

    static QString status(EvalStatus status);                       ///< Translated, for people.
    static QString status(const std::optional<EvalStatus> &status); ///< "not evaluated" when empty.
    static QString origin(Origin origin);
    static QString verdict(const std::optional<bool> &accepted);

    /// Status colours are mid-tones chosen to read on light and dark backgrounds alike.
    static QColor statusColor(EvalStatus status);
    static QColor warningColor();
};

} // namespace kx::ui
