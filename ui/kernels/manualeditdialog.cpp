#include "ui/kernels/manualeditdialog.h"

#include "ui/common/codeview.h"
#include "ui/common/format.h"
#include "ui/kernels/kernelsourceview.h"

#include <Qsci/qscilexerjson.h>

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace kx::ui {

namespace {

QString editablePlan(const std::string &text)
{
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(text));
    return document.isNull() ? QString::fromStdString(text)
                             : QString::fromUtf8(document.toJson(QJsonDocument::Indented));
}

} // namespace

ManualEditDialog::ManualEditDialog(const Candidate &original, const Op &op, QWidget *parent)
    : QDialog(parent)
    , m_original(original)
    , m_op(op)
    , m_source(new KernelSourceView(this))
    , m_plan(new CodeView(new QsciLexerJSON, this))
    , m_description(new QLineEdit(this))
    , m_message(new QLabel(this))
    , m_checkButton(new QPushButton(tr("&Check"), this))
    , m_submitButton(new QPushButton(tr("&Submit"), this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setObjectName(QStringLiteral("manualEditDialog"));
    setWindowTitle(tr("New Candidate From %1").arg(Format::shortId(original.id)));
    setAttribute(Qt::WA_DeleteOnClose);
    resize(900, 700);

    m_source->setObjectName(QStringLiteral("manualSource"));
    m_source->setReadOnly(false);
    m_source->setCode(Format::text(original.source));
    m_plan->setObjectName(QStringLiteral("manualPlan"));
    m_plan->setReadOnly(false);
    m_plan->setCode(editablePlan(original.launchPlan));
    m_description->setObjectName(QStringLiteral("manualDescription"));
    m_description->setText(tr("manual edit of %1").arg(Format::shortId(original.id)));
    m_message->setObjectName(QStringLiteral("manualMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setText(tr("Edit the kernel, then Check (Ctrl+Return) or Submit (Ctrl+S)."));

    auto *tabs = new QTabWidget(this);
    tabs->setDocumentMode(true);
    tabs->addTab(m_source, tr("CUDA Source"));
    tabs->addTab(m_plan, tr("Launch Plan"));

    auto *summary = new QLabel(tr("Op %1 · parent %2 · the new kernel is stored in the parent's run and evaluated.")
                                   .arg(Format::text(op.name).toHtmlEscaped(), Format::shortId(original.id)),
                               this);
    summary->setWordWrap(true);

    m_checkButton->setObjectName(QStringLiteral("manualCheck"));
    m_checkButton->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_checkButton->setToolTip(tr("Check the device code, the launch plan and compile with NVRTC (Ctrl+Return)"));
    m_submitButton->setObjectName(QStringLiteral("manualSubmit"));
    m_submitButton->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    m_submitButton->setToolTip(tr("Check, then store the kernel as a new candidate and evaluate it (Ctrl+S)"));
    m_submitButton->setDefault(false);
    m_buttons->addButton(m_checkButton, QDialogButtonBox::ActionRole);
    m_buttons->addButton(m_submitButton, QDialogButtonBox::ApplyRole);
    connect(m_checkButton, &QPushButton::clicked, this, &ManualEditDialog::check);
    connect(m_submitButton, &QPushButton::clicked, this, &ManualEditDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *form = new QFormLayout;
    form->addRow(tr("&Description:"), m_description);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(summary);
    layout->addWidget(tabs, 1);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(m_buttons);
}

CodeView *ManualEditDialog::sourceEditor() const
{
    return m_source;
}

QString ManualEditDialog::source() const
{
    return m_source->text();
}

void ManualEditDialog::setSource(const QString &source)
{
    m_source->setCode(source);
}

QString ManualEditDialog::launchPlan() const
{
    return m_plan->text();
}

void ManualEditDialog::setLaunchPlan(const QString &plan)
{
    m_plan->setCode(plan);
}

QString ManualEditDialog::description() const
{
    return m_description->text().trimmed();
}

void ManualEditDialog::setDescription(const QString &description)
{
    m_description->setText(description);
}

QString ManualEditDialog::messageText() const
{
    return m_message->text();
}

Candidate ManualEditDialog::candidate() const
{
    Candidate candidate;
    candidate.opName = m_original.opName;
    candidate.source = source().toStdString();
    candidate.launchPlan = launchPlan().toStdString();
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.origin = Origin::Manual;
    candidate.parentIds = {m_original.id};
    candidate.operatorName = "manual edit";
    const QString text = description();
    candidate.description =
        (text.isEmpty() ? tr("manual edit of %1").arg(Format::shortId(m_original.id)) : text).toStdString();
    candidate.runId = m_original.runId;
    return candidate;
}

void ManualEditDialog::check()
{
    runCheck(false);
}

void ManualEditDialog::submit()
{
    runCheck(true);
}

void ManualEditDialog::showSubmitError(const QString &message)
{
    setBusy(false);
    m_message->setText(message);
}

void ManualEditDialog::runCheck(bool thenSubmit)
{
    setBusy(true);
    m_message->setText(tr("Checking…"));
    const Candidate edited = candidate();
    QtConcurrent::run([op = m_op, source = source(), plan = launchPlan()] {
        return checkManualCandidate(op, source, plan);
    }).then(this, m_check.guard([this, thenSubmit, edited](const ManualCheckResult &result) {
        setBusy(false);
        if (result.ok) {
            m_message->setText(
                tr("No problems: %n kernel(s), %1 registers at most, compiled in %2 ms.", nullptr, result.kernels)
                    .arg(result.registers)
                    .arg(Format::ms(result.compileMs)));
        } else {
            const QString problems = result.problems.join(QLatin1Char('\n'));
            m_message->setText(thenSubmit ? tr("Not stored:") + QLatin1Char('\n') + problems : problems);
        }
        emit checked(result);
        if (thenSubmit && result.ok) {
            setBusy(true); // Until the owner has stored it.
            emit submitted(edited);
        }
    }));
}

void ManualEditDialog::setBusy(bool busy)
{
    m_checking = busy;
    m_checkButton->setEnabled(!busy);
    m_submitButton->setEnabled(!busy);
}

} // namespace kx::ui
