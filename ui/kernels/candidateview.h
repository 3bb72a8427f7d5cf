#pragma once

#include "ui/kernels/candidatedetails.h"

#include <QWidget>

class QAction;
class QLabel;
class QTabWidget;

namespace kx::ui {

class AssemblyLinker;
class AssemblyLoader;
struct AssemblyResult;
class CodeView;
class KernelSourceView;
class ProvenanceView;

/**
 * The selected candidate: a summary line, its CUDA source, its launch plan, the op's reference, the compile
 * statistics of the selected evaluation with the NVRTC log, its PTX and SASS, and for a candidate made by a
 * language model or a command its provenance (model, tokens, cost, prompt and raw response; the tab is
 * hidden for other candidates). PTX and SASS are compiled on demand (when their tab is shown) off the GUI
 * thread, for the arch of the selected evaluation's GPU.
 */
class CandidateView : public QWidget
{
    Q_OBJECT

public:
    explicit CandidateView(QWidget *parent = nullptr);
    ~CandidateView() override;

    void showDetails(const CandidateDetails &details);
    void showMessage(const QString &message);
    void clear();
    /// Shows the compile statistics of the candidate's index-th evaluation, and compiles PTX/SASS for its GPU.
    void selectEvaluation(int index);

    QString candidateId() const { return m_candidateId; }
    /// The arch PTX and SASS are compiled for ("sm_90" when no evaluation says otherwise).
    QString targetArch() const;
    QTabWidget *tabs() const { return m_tabs; }
    KernelSourceView *sourceView() const { return m_source; }
    CodeView *planView() const { return m_plan; }
    CodeView *referenceView() const { return m_reference; }
    QLabel *compileSummary() const { return m_compileSummary; }
    CodeView *compileLogView() const { return m_compileLog; }
    CodeView *ptxView() const { return m_ptx; }
    CodeView *sassView() const { return m_sass; }
    ProvenanceView *provenanceView() const { return m_provenance; }
    /// Whether the Provenance tab is shown (only for candidates made by a model or a command).
    bool isProvenanceTabVisible() const;
    AssemblyLoader *assemblyLoader() const { return m_assembly; }
    /// "New Candidate From This One" (Ctrl+E): emits newCandidateRequested for the shown candidate.
    QAction *newCandidateAction() const { return m_newCandidateAction; }

signals:
    /// A parent link in the summary was clicked.
    void candidateLinkActivated(const QString &candidateId);
    void newCandidateRequested(const QString &candidateId);

private:
    void setProvenanceTabVisible(bool visible);
    void showCompileStats();
    void requestAssembly();
    void showAssembly(const AssemblyResult &result);

    QString m_candidateId;
    CandidateDetails m_details;
    int m_evaluation = -1;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    KernelSourceView *m_source;
    CodeView *m_plan;
    CodeView *m_reference;
    QWidget *m_compileTab;
    QLabel *m_compileSummary;
    CodeView *m_compileLog;
    CodeView *m_ptx;
    CodeView *m_sass;
    ProvenanceView *m_provenance;
    AssemblyLoader *m_assembly;
    AssemblyLinker *m_linker;
    QAction *m_newCandidateAction;
};

} // namespace kx::ui
