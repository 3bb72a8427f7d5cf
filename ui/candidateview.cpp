#include "ui/candidateview.h"

#include "ui/codeview.h"
#include "ui/format.h"
#include "ui/kernelsourceview.h"

#include <Qsci/qscilexerjson.h>
#include <Qsci/qscilexerpython.h>

#include <QJsonDocument>
#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace kx::ui {

namespace {

QString prettyJson(const std::string &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError || document.isNull())
        return QString::fromStdString(text); // Shown as stored: a broken plan is itself worth seeing.
    return QString::fromUtf8(document.toJson(QJsonDocument::Indented));
}

} // namespace

CandidateView::CandidateView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_source(new KernelSourceView(this))
    , m_plan(new CodeView(new QsciLexerJSON, this))
    , m_reference(new CodeView(new QsciLexerPython, this))
{
    m_summary->setObjectName(QStringLiteral("candidateSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextBrowserInteraction);
    m_summary->setContentsMargins(6, 4, 6, 4);
    connect(m_summary, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QLatin1String("candidate:")))
            emit candidateLinkActivated(link.mid(int(qstrlen("candidate:"))));
    });

    m_source->setObjectName(QStringLiteral("sourceView"));
    m_plan->setObjectName(QStringLiteral("planView"));
    m_reference->setObjectName(QStringLiteral("referenceView"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_source, tr("CUDA Source"));
    m_tabs->addTab(m_plan, tr("Launch Plan"));
    m_tabs->addTab(m_reference, tr("PyTorch Reference"));

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    clear();
}

void CandidateView::showDetails(const CandidateDetails &details)
{
    const Candidate &candidate = details.candidate;
    m_candidateId = Format::text(candidate.id);

    QStringList parents;
    for (const std::string &parent : candidate.parentIds)
        parents << QStringLiteral("<a href=\"candidate:%1\">%2</a>").arg(Format::text(parent), Format::shortId(parent));

    QString html = QStringLiteral("<b>%1</b> &nbsp; %2 &middot; %3")
                       .arg(Format::shortId(candidate.id), Format::text(candidate.opName).toHtmlEscaped(),
                            Format::origin(candidate.origin));
    if (!candidate.operatorName.empty())
        html += QStringLiteral(" (%1)").arg(Format::text(candidate.operatorName).toHtmlEscaped());
    if (!parents.isEmpty())
        html += QStringLiteral(" &middot; ") + tr("parents: %1").arg(parents.join(QStringLiteral(", ")));
    if (candidate.createdAtMs > 0)
        html += QStringLiteral(" &middot; ") + Format::timestamp(candidate.createdAtMs);
    if (!candidate.description.empty())
        html += QStringLiteral("<br>") + Format::text(candidate.description).toHtmlEscaped();
    m_summary->setText(html);
    m_summary->setToolTip(m_candidateId);

    m_source->setCode(Format::text(candidate.source));
    m_plan->setCode(prettyJson(candidate.launchPlan));
    // The op's full source (a KernelBench module) says more than its one-line reference when it is stored.
    if (!details.opSourceText.empty())
        m_reference->setCode(Format::text(details.opSourceText));
    else
        m_reference->setCode(details.op ? Format::text(details.op->referenceSource) : QString());
    m_tabs->setEnabled(true);
}

void CandidateView::showMessage(const QString &message)
{
    m_candidateId.clear();
    m_summary->setText(message.toHtmlEscaped());
    m_summary->setToolTip({});
    m_source->setCode({});
    m_plan->setCode({});
    m_reference->setCode({});
    m_tabs->setEnabled(false);
}

void CandidateView::clear()
{
    showMessage(tr("Select a kernel to see its source."));
}

} // namespace kx::ui
