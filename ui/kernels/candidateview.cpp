#include "ui/kernels/candidateview.h"

#include "ui/common/codeview.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/kernels/assemblylinker.h"
#include "ui/kernels/assemblyloader.h"
#include "ui/kernels/kernelsourceview.h"
#include "ui/kernels/provenanceview.h"

#include <Qsci/qscilexerjson.h>
#include <Qsci/qscilexerpython.h>

#include <QAction>
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
    , m_compileTab(new QWidget(this))
    , m_compileSummary(new QLabel(m_compileTab))
    , m_compileLog(new CodeView(nullptr, m_compileTab))
    , m_ptx(new CodeView(nullptr, this))
    , m_sass(new CodeView(nullptr, this))
    , m_provenance(new ProvenanceView(this))
    , m_assembly(new AssemblyLoader(this))
    , m_linker(new AssemblyLinker(m_source, this))
    , m_newCandidateAction(
          new QAction(icon(QStringLiteral("candidate-new")), tr("&New Candidate From This One…"), this))
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

    m_compileSummary->setObjectName(QStringLiteral("compileSummary"));
    m_compileSummary->setWordWrap(true);
    m_compileSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_compileSummary->setContentsMargins(6, 4, 6, 4);
    m_compileLog->setObjectName(QStringLiteral("compileLogView"));
    auto compileLayout = new QVBoxLayout(m_compileTab);
    compileLayout->setContentsMargins(0, 0, 0, 0);
    compileLayout->setSpacing(0);
    compileLayout->addWidget(m_compileSummary);
    compileLayout->addWidget(m_compileLog, 1);
    m_ptx->setObjectName(QStringLiteral("ptxView"));
    m_sass->setObjectName(QStringLiteral("sassView"));
    m_tabs->addTab(m_compileTab, tr("Compile"));
    m_tabs->addTab(m_ptx, tr("PTX"));
    m_tabs->addTab(m_sass, tr("SASS"));
    m_tabs->addTab(m_provenance, tr("Provenance"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_provenance), false);
    connect(m_tabs, &QTabWidget::currentChanged, this, &CandidateView::requestAssembly);
    connect(m_assembly, &AssemblyLoader::loaded, this, &CandidateView::showAssembly);

    m_newCandidateAction->setObjectName(QStringLiteral("newCandidateAction"));
    m_newCandidateAction->setObjectName(QStringLiteral("newCandidateAction"));
    m_newCandidateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_newCandidateAction->setToolTip(tr("Edit a copy of this kernel and evaluate it as a new candidate"));
    connect(m_newCandidateAction, &QAction::triggered, this, [this] {
        if (!m_candidateId.isEmpty())
            emit newCandidateRequested(m_candidateId);
    });
    addAction(m_newCandidateAction);
    setContextMenuPolicy(Qt::ActionsContextMenu);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    clear();
}

CandidateView::~CandidateView()
{
    // While the tab widget dies its pages go one by one and the current tab moves on to PTX and SASS, which
    // would start compiles for a view that is gone.
    disconnect(m_tabs, nullptr, this, nullptr);
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
    // The template proposer standing in for a failed model says why; there is no prompt to show.
    const auto &provenance = candidate.provenance;
    if (provenance && !ProvenanceView::isExternal(provenance) && !provenance->note.empty())
        html += QStringLiteral("<br>") + Format::text(provenance->note).toHtmlEscaped();
    m_summary->setText(html);
    m_summary->setToolTip(m_candidateId);

    m_source->setCode(Format::text(candidate.source));
    m_plan->setCode(prettyJson(candidate.launchPlan));
    // The op's full source (a KernelBench module) says more than its one-line reference when it is stored.
    if (!details.opSourceText.empty())
        m_reference->setCode(Format::text(details.opSourceText));
    else
        m_reference->setCode(details.op ? Format::text(details.op->referenceSource) : QString());
    const bool external = ProvenanceView::isExternal(candidate.provenance);
    m_provenance->setProvenance(external ? candidate.provenance : std::nullopt);
    setProvenanceTabVisible(external);
    m_tabs->setEnabled(true);
    m_newCandidateAction->setEnabled(true);

    const bool sameCandidate = m_details.candidate.id == candidate.id;
    m_details = details;
    // A reload of the same candidate keeps the chosen evaluation.
    if (!sameCandidate || m_evaluation >= int(m_details.evaluations.size()))
        m_evaluation = m_details.evaluations.empty() ? -1 : 0;
    showCompileStats();
    if (!sameCandidate) {
        m_ptx->setCode({});
        m_sass->setCode({});
        m_linker->clear();
    }
    requestAssembly();
}

void CandidateView::selectEvaluation(int index)
{
    if (index < 0 || index >= int(m_details.evaluations.size()) || index == m_evaluation)
        return;
    m_evaluation = index;
    showCompileStats();
    requestAssembly();
}

void CandidateView::setProvenanceTabVisible(bool visible)
{
    // Hiding the current tab would make the tab bar pick a neighbour, SASS, and start a compile no one asked for.
    if (!visible && m_tabs->currentWidget() == m_provenance)
        m_tabs->setCurrentWidget(m_source);
    m_tabs->setTabVisible(m_tabs->indexOf(m_provenance), visible);
}

bool CandidateView::isProvenanceTabVisible() const
{
    return m_tabs->isTabVisible(m_tabs->indexOf(m_provenance));
}

QString CandidateView::targetArch() const
{
    if (m_evaluation >= 0 && m_evaluation < int(m_details.evaluations.size()))
        return AssemblyLoader::archFromCapability(
            Format::text(m_details.evaluations.at(m_evaluation).gpu.computeCapability));
    return AssemblyLoader::archFromCapability({});
}

void CandidateView::showCompileStats()
{
    if (m_evaluation < 0 || m_evaluation >= int(m_details.evaluations.size())) {
        m_compileSummary->setText(tr("No evaluation has recorded compile statistics for this kernel yet."));
        m_compileLog->setCode({});
        return;
    }
    const Evaluation &evaluation = m_details.evaluations.at(m_evaluation);
    const CompileStats &stats = evaluation.compile;
    const QString gpu = evaluation.gpu.name.empty() ? tr("unknown GPU") : Format::text(evaluation.gpu.name);
    m_compileSummary->setText(tr("Registers: %1 · spills: %2 · static shared memory: %3 · compile time: %4 ms (%5)")
                                  .arg(stats.registers)
                                  .arg(Format::bytes(stats.spillBytes), Format::bytes(stats.staticSharedBytes),
                                       Format::ms(stats.compileMs), gpu));
    m_compileLog->setCode(stats.log.empty() ? tr("NVRTC wrote no log.") : Format::text(stats.log));
}

void CandidateView::requestAssembly()
{
    const QWidget *current = m_tabs->currentWidget();
    if (m_candidateId.isEmpty() || (current != m_ptx && current != m_sass))
        return;
    const QString arch = targetArch();
    if (m_assembly->hasResult(m_candidateId, arch)) {
        showAssembly(m_assembly->result());
        return;
    }
    if (m_assembly->load(m_candidateId, Format::text(m_details.candidate.source), arch)) {
        const QString compiling = tr("Compiling for %1…").arg(arch);
        m_ptx->setCode(compiling);
        m_sass->setCode(compiling);
    }
}

void CandidateView::showAssembly(const AssemblyResult &result)
{
    if (result.candidateId != m_candidateId)
        return;
    if (!result.ok) {
        const QString text = tr("NVRTC could not compile this kernel for %1:\n%2").arg(result.arch, result.error);
        m_ptx->setCode(text);
        m_sass->setCode(text);
        m_linker->clear();
        return;
    }
    m_ptx->setCode(result.ptx);
    m_sass->setCode(result.sass.isEmpty() ? result.sassNote : result.sass);
    m_linker->setAssembly(m_ptx, result.ptxLines);
    m_linker->setAssembly(m_sass, result.sassLines);
}

void CandidateView::showMessage(const QString &message)
{
    m_candidateId.clear();
    m_summary->setText(message.toHtmlEscaped());
    m_summary->setToolTip({});
    m_source->setCode({});
    m_plan->setCode({});
    m_reference->setCode({});
    m_compileSummary->clear();
    m_compileLog->setCode({});
    m_ptx->setCode({});
    m_sass->setCode({});
    m_linker->clear();
    m_provenance->clear();
    setProvenanceTabVisible(false);
    m_details = {};
    m_evaluation = -1;
    m_assembly->clear();
    m_tabs->setEnabled(false);
    m_newCandidateAction->setEnabled(false);
}

void CandidateView::clear()
{
    showMessage(tr("Select a kernel to see its source."));
}

} // namespace kx::ui
