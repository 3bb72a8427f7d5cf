#pragma once

#include "ui/candidatedetails.h"

#include <QWidget>

class QLabel;
class QTabWidget;

namespace kx::ui {

class CodeView;
class KernelSourceView;

/// The selected candidate: a summary line, its CUDA source, its launch plan and the op's reference.
class CandidateView : public QWidget
{
    Q_OBJECT

public:
    explicit CandidateView(QWidget *parent = nullptr);

    void showDetails(const CandidateDetails &details);
    void showMessage(const QString &message);
    void clear();

    QString candidateId() const { return m_candidateId; }
    KernelSourceView *sourceView() const { return m_source; }
    CodeView *planView() const { return m_plan; }
    CodeView *referenceView() const { return m_reference; }

signals:
    /// A parent link in the summary was clicked.
    void candidateLinkActivated(const QString &candidateId);

private:
    QString m_candidateId;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    KernelSourceView *m_source;
    CodeView *m_plan;
    CodeView *m_reference;
};

} // namespace kx::ui
