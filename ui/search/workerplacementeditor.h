#pragma once

#include "core/eval/workerplacement.h"
#include "core/util/expected.h"

#include <QStringList>
#include <QWidget>

class QComboBox;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace kx::ui {

/**
 * Where the GPU workers of a search run, as `kx search` takes it: this computer, hosts reached by SSH
 * ("gpu-a:0,1 gpu-b:3", --ssh) or Slurm job steps (--slurm N with partition, account and time limit). Kept in
 * QSettings between sessions.
 */
class WorkerPlacementEditor : public QWidget
{
    Q_OBJECT
public:
    explicit WorkerPlacementEditor(QWidget *parent = nullptr);

    /// The field shown while workers run on this computer (the run panel's GPU list); the editor takes it.
    void setLocalField(QWidget *field);

    WorkerPlacement::Kind kind() const;
    void setKind(WorkerPlacement::Kind kind);
    void setSshHosts(const QString &hosts);
    void setSlurm(int workers, const QString &partition, const QString &account, const QString &timeLimit);

    /**
     * The placement with @p workerCommand as the worker (for SSH and Slurm: the command on the hosts; empty:
     * `kx worker`), or what is wrong with the fields.
     */
    Expected<WorkerPlacement> placement(const QStringList &workerCommand) const;

signals:
    void kindChanged();

private:
    void save() const;

    QComboBox *m_kind;
    QStackedWidget *m_pages; // This computer's field, the SSH hosts, the Slurm request.
    QLineEdit *m_hosts;
    QSpinBox *m_slurmWorkers;
    QLineEdit *m_partition;
    QLineEdit *m_account;
    QLineEdit *m_timeLimit;
};

} // namespace kx::ui
