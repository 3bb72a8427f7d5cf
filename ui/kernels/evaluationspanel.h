#pragma once

#include "ui/kernels/candidatedetails.h"

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace kx::ui {

/// The selected candidate's evaluations, one expandable entry per evaluation (normally one per GPU):
/// status, speedups over eager and Inductor, precision, timing, baselines, correctness, flags with their
/// evidence, compile statistics.
class EvaluationsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit EvaluationsPanel(QWidget *parent = nullptr);

    void showDetails(const CandidateDetails &details);
    void showMessage(const QString &message);
    void clear();

    int evaluationCount() const;
    QTreeWidget *tree() const { return m_tree; }
    QString verdictText() const;

signals:
    /// The user moved into the index-th evaluation's entry (in the order of CandidateDetails::evaluations).
    void currentEvaluationChanged(int index);

private:
    QTreeWidgetItem *addEvaluation(const Evaluation &evaluation);
    /// Eager and Inductor as this evaluation met them (method, median, runs, drift, error), or why not.
    void addBaselines(QTreeWidgetItem *top, const Evaluation &evaluation);

    QLabel *m_verdict;
    QTreeWidget *m_tree;
};

} // namespace kx::ui
