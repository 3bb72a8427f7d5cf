#include "ui/kernels/provenanceview.h"

#include "ui/common/codeview.h"
#include "ui/common/format.h"

#include <Qsci/qscilexermarkdown.h>

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

namespace kx::ui {

namespace {

QWidget *titled(const QString &title, QWidget *view, QWidget *parent)
{
    auto *pane = new QWidget(parent);
    auto *label = new QLabel(title, pane);
    label->setContentsMargins(6, 2, 6, 2);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(label);
    layout->addWidget(view, 1);
    return pane;
}

} // namespace

ProvenanceView::ProvenanceView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_prompt(new CodeView(new QsciLexerMarkdown, this))
    , m_response(new CodeView(new QsciLexerMarkdown, this))
{
    setObjectName(QStringLiteral("provenanceView"));
    m_summary->setObjectName(QStringLiteral("provenanceSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setContentsMargins(6, 4, 6, 4);
    m_prompt->setObjectName(QStringLiteral("provenancePrompt"));
    m_response->setObjectName(QStringLiteral("provenanceResponse"));

    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    // No mnemonics: the dock shares the window's Alt keys with the menus.
    splitter->addWidget(titled(tr("Prompt"), m_prompt, splitter));
    splitter->addWidget(titled(tr("Raw response"), m_response, splitter));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
}

bool ProvenanceView::isExternal(const std::optional<CandidateProvenance> &provenance)
{
    return provenance && provenance->proposer != "template";
}

void ProvenanceView::setProvenance(const std::optional<CandidateProvenance> &provenance)
{
    if (!provenance) {
        m_summary->clear();
        m_prompt->setCode({});
        m_response->setCode({});
        return;
    }
    const CandidateProvenance &p = *provenance;
    QStringList lines;
    if (p.proposer == "llm")
        lines << tr("Made by the language model %1.").arg(Format::text(p.model));
    else if (p.proposer == "command")
        lines << tr("Made by the command %1.").arg(Format::text(p.model));
    else
        lines << tr("Made by the %1 proposer.").arg(Format::text(p.proposer));
    if (p.promptTokens > 0 || p.completionTokens > 0 || p.cost > 0)
        lines << Format::modelUsage(p.promptTokens, p.completionTokens, p.cost);
    if (!p.promptSha256.empty())
        lines << tr("Prompt SHA-256: %1").arg(Format::text(p.promptSha256));
    if (!p.note.empty())
        lines << Format::text(p.note);
    m_summary->setText(lines.join(QLatin1Char('\n')));
    m_prompt->setCode(Format::text(p.prompt));
    m_response->setCode(Format::text(p.response));
}

} // namespace kx::ui
