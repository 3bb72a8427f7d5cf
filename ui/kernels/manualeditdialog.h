#pragma once

#include "ui/common/latestjob.h"
#include "ui/kernels/manualcheck.h"

#include "core/domain/candidate.h"
#include "core/domain/op.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace kx::ui {

class CodeView;
class KernelSourceView;

/**
 * An editable copy of a candidate (source and launch plan) and a description. Check runs the device-code
 * check, the plan validation and an NVRTC compile off the GUI thread and lists what is wrong with line
 * numbers; Submit checks the same way and, when nothing is wrong, hands the new candidate on (submitted).
 * Not modal, so the rest of the window stays usable while it is open.
 */
class ManualEditDialog : public QDialog
{
    Q_OBJECT

public:
    ManualEditDialog(const Candidate &original, const Op &op, QWidget *parent = nullptr);

    const Candidate &original() const { return m_original; }
    QString source() const;
    void setSource(const QString &source);
    QString launchPlan() const;
    void setLaunchPlan(const QString &plan);
    QString description() const;
    void setDescription(const QString &description);

    /// The new candidate the edits make: origin Manual, parent the original, in the original's run.
    Candidate candidate() const;

    void check();
    void submit();
    bool isChecking() const { return m_checking; }
    QString messageText() const;
    /// Shows why the owner could not take a submitted candidate, and lets the user try again.
    void showSubmitError(const QString &message);

    CodeView *sourceEditor() const;
    CodeView *planEditor() const { return m_plan; }

signals:
    /// A check finished; result.problems lists what is wrong.
    void checked(const kx::ui::ManualCheckResult &result);
    /// Submit passed every check: store and evaluate this candidate.
    void submitted(const kx::Candidate &candidate);

private:
    void runCheck(bool thenSubmit);
    void setBusy(bool busy);

    Candidate m_original;
    Op m_op;
    LatestJob m_check;
    bool m_checking = false;
    KernelSourceView *m_source;
    CodeView *m_plan;
    QLineEdit *m_description;
    QLabel *m_message;
    QPushButton *m_checkButton;
    QPushButton *m_submitButton;
    QDialogButtonBox *m_buttons;
};

} // namespace kx::ui
