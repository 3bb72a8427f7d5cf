#pragma once

#include "core/domain/verdict.h"

#include <QDialog>

#include <set>
#include <string>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QRadioButton;

namespace kx::ui {

/// Asks for a verdict on one candidate: accept or reject, a reason code and a note.
class VerdictDialog : public QDialog
{
    Q_OBJECT

public:
    VerdictDialog(const QString &candidateId, bool accept, QWidget *parent = nullptr);

    /// The verdict as entered (createdAtMs is left for the archive to fill in).
    Verdict verdict() const;
    void setAccepted(bool accept);
    void setReasonCode(const QString &code);
    void setNote(const QString &note);
    /// The reason offered for a rejection until the reviewer picks one (default: incorrect results).
    void setRejectReason(const QString &code);

    /// A reason code in words, for people.
    static QString reasonText(const QString &code);
    /// The likeliest reason to reject kernels with these kinds of flag: suspicious timing for "impossible" or
    /// "suspicious", exploiting the harness for "input-insensitive", else incorrect results.
    static QString rejectReasonFor(const std::set<std::string> &flagKinds);

private:
    void updateDefaultReason();

    QString m_candidateId;
    QRadioButton *m_accept;
    QRadioButton *m_reject;
    QComboBox *m_reason;
    QPlainTextEdit *m_note;
    bool m_reasonTouched = false;
    QString m_rejectReason = QStringLiteral("incorrect");
};

} // namespace kx::ui
