#include "ui/review/verdictdialog.h"

#include "ui/common/format.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace kx::ui {

VerdictDialog::VerdictDialog(const QString &candidateId, bool accept, QWidget *parent)
    : QDialog(parent)
    , m_candidateId(candidateId)
    , m_accept(new QRadioButton(tr("&Accept"), this))
    , m_reject(new QRadioButton(tr("&Reject"), this))
    , m_reason(new QComboBox(this))
    , m_note(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Verdict on %1").arg(Format::shortId(candidateId.toStdString())));
    m_accept->setObjectName(QStringLiteral("acceptButton"));
    m_reject->setObjectName(QStringLiteral("rejectButton"));
    m_reason->setObjectName(QStringLiteral("reasonCombo"));
    m_note->setObjectName(QStringLiteral("noteEdit"));
    auto group = new QButtonGroup(this);
    group->addButton(m_accept);
    group->addButton(m_reject);
    for (const std::string &code : verdictReasonCodes())
        m_reason->addItem(reasonText(QString::fromStdString(code)), QString::fromStdString(code));
    m_note->setPlaceholderText(tr("What you checked, and why you decided so"));
    m_note->setTabChangesFocus(true);

    auto choice = new QHBoxLayout;
    choice->addWidget(m_accept);
    choice->addWidget(m_reject);
    choice->addStretch();
    auto form = new QFormLayout;
    form->addRow(tr("Verdict:"), choice);
    form->addRow(tr("Reason:"), m_reason);
    form->addRow(tr("Note:"), m_note);

    auto buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Record Verdict"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(m_reason, &QComboBox::activated, this, [this] { m_reasonTouched = true; });
    connect(m_accept, &QRadioButton::toggled, this, &VerdictDialog::updateDefaultReason);
    setAccepted(accept);
    updateDefaultReason();
    resize(460, sizeHint().height());
}

Verdict VerdictDialog::verdict() const
{
    Verdict verdict;
    verdict.candidateId = m_candidateId.toStdString();
    verdict.accepted = m_accept->isChecked();
    verdict.reasonCode = m_reason->currentData().toString().toStdString();
    verdict.note = m_note->toPlainText().trimmed().toStdString();
    return verdict;
}

void VerdictDialog::setAccepted(bool accept)
{
    (accept ? m_accept : m_reject)->setChecked(true);
}

void VerdictDialog::setReasonCode(const QString &code)
{
    const int index = m_reason->findData(code);
    if (index >= 0) {
        m_reason->setCurrentIndex(index);
        m_reasonTouched = true;
    }
}

void VerdictDialog::setNote(const QString &note)
{
    m_note->setPlainText(note);
}

void VerdictDialog::updateDefaultReason()
{
    // Until the reviewer picks a reason, offer the usual one for the chosen verdict.
    if (m_reasonTouched)
        return;
    m_reason->setCurrentIndex(
        m_reason->findData(m_accept->isChecked() ? QStringLiteral("verified-speedup") : m_rejectReason));
}

void VerdictDialog::setRejectReason(const QString &code)
{
    if (m_reason->findData(code) < 0)
        return;
    m_rejectReason = code;
    updateDefaultReason();
}

QString VerdictDialog::rejectReasonFor(const std::set<std::string> &flagKinds)
{
    return QString::fromStdString(likelyRejectReason(flagKinds));
}

QString VerdictDialog::reasonText(const QString &code)
{
    if (code == QLatin1String("verified-speedup"))
        return tr("Verified speedup");
    if (code == QLatin1String("incorrect"))
        return tr("Incorrect results");
    if (code == QLatin1String("suspicious-timing"))
        return tr("Suspicious timing");
    if (code == QLatin1String("exploits-harness"))
        return tr("Exploits the benchmark harness");
    if (code == QLatin1String("reduced-precision"))
        return tr("Computes in reduced precision");
    if (code == QLatin1String("not-general"))
        return tr("Does not generalise to other shapes");
    if (code == QLatin1String("duplicate"))
        return tr("Duplicate of another kernel");
    if (code == QLatin1String("other"))
        return tr("Other");
    return code;
}

} // namespace kx::ui
